// radix_sort.hpp: the full sort of one line on the CPU (kernels/cpu/sort.cpp: a sort, or a topk
// that keeps at least a quarter of the line) as a least-significant-digit radix sort. A comparison
// sort does about log2(n) compare-and-move steps an element, each a branch that random data
// mispredicts half the time. A radix sort does one counting pass, then one scatter pass per 8-bit
// digit of the key, without comparisons.
//  - Each element's key becomes an unsigned integer whose order is the total order of
//    kernels/sort_order.hpp. Floats: the sign bit set for positives, every bit flipped for
//    negatives; every NaN is made one value above +inf, and -0.0 is made 0.0 (they tie).
//    int64: the sign bit flipped. Descending: the key subtracted from its largest value.
//  - The sort is stable, and the items start in position order. So equal keys end in position
//    order, which is the total order's tie rule. The result is the comparison sort's.
//  - Keys of at most 4 bytes (bool, bfloat16, float32) share one 8-byte item with their
//    position (key high, position low; lines up to 2^32). 8-byte keys (float64, int64) take
//    16-byte items.
//  - A pass whose digit is the same for every item is skipped: small integers skip their high
//    bytes.
// Measured in docs/cpu-kernels.md, "sort and topk".
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "wick/bfloat16.hpp"

namespace wick::cpu::radix {

inline uint32_t key_bits(bool v) { return v ? 1u : 0u; }
inline uint32_t key_bits(BFloat16 v) {
  uint32_t b = v.bits;
  if ((b & 0x7fffu) > 0x7f80u) b = 0x7fc0u;  // NaN: one value, above +inf
  if ((b & 0x7fffu) == 0) b = 0;             // -0.0 ties 0.0
  return (b & 0x8000u) != 0 ? (~b & 0xffffu) : (b | 0x8000u);
}
inline uint32_t key_bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof(b));
  if ((b & 0x7fffffffu) > 0x7f800000u) b = 0x7fc00000u;
  if ((b & 0x7fffffffu) == 0) b = 0;
  return (b & 0x80000000u) != 0 ? ~b : (b | 0x80000000u);
}
inline uint64_t key_bits(double v) {
  constexpr uint64_t kSign = uint64_t{1} << 63;
  uint64_t b;
  std::memcpy(&b, &v, sizeof(b));
  if ((b & ~kSign) > 0x7ff0000000000000u) b = 0x7ff8000000000000u;
  if ((b & ~kSign) == 0) b = 0;
  return (b & kSign) != 0 ? ~b : (b | kSign);
}
inline uint64_t key_bits(int64_t v) { return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63); }

template <typename T>
constexpr int key_bytes() {
  if constexpr (std::is_same_v<T, bool>) return 1;
  if constexpr (std::is_same_v<T, BFloat16>) return 2;
  return static_cast<int>(sizeof(T));
}

// Sorts items[0, n) stably by `passes` 8-bit digits, digit(item, p) for p = 0 (the least
// significant) up, using scratch (n items); returns whichever of the two holds the result.
template <typename Item, typename Digit>
Item* lsd_sort(Item* items, Item* scratch, int64_t n, int passes, Digit digit) {
  std::array<std::array<int64_t, 256>, 8> counts{};
  for (int64_t i = 0; i < n; ++i) {
    for (int p = 0; p < passes; ++p) ++counts[p][digit(items[i], p)];
  }
  for (int p = 0; p < passes; ++p) {
    std::array<int64_t, 256>& next = counts[p];
    if (next[digit(items[0], p)] == n) continue;  // one digit for all: nothing moves
    int64_t sum = 0;
    for (int64_t& c : next) sum += std::exchange(c, sum);  // counts -> first slots
    for (int64_t i = 0; i < n; ++i) scratch[next[digit(items[i], p)]++] = items[i];
    std::swap(items, scratch);
  }
  return items;
}

struct WideItem {
  uint64_t key;
  int64_t position;
};

// One thread's buffers, reused from line to line.
struct Scratch {
  std::vector<uint64_t> packed;
  std::vector<WideItem> wide;
};

// The positions of the line in[0], in[inner], ..., in[(n - 1) * inner] in sorted order, into
// sorted[0, n). n >= 1, and n <= 2^32 for keys of at most 4 bytes.
template <typename T, bool Descending>
void sort_positions(const T* in, int64_t n, int64_t inner, Scratch& s, int64_t* sorted) {
  constexpr int kBytes = key_bytes<T>();
  if constexpr (kBytes <= 4) {
    constexpr uint64_t kTop = (uint64_t{1} << (8 * kBytes)) - 1;
    s.packed.resize(static_cast<size_t>(2 * n));
    uint64_t* items = s.packed.data();
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t key = key_bits(in[i * inner]);
      items[i] = ((Descending ? kTop - key : key) << 32) | static_cast<uint64_t>(i);
    }
    const uint64_t* result = lsd_sort(items, items + n, n, kBytes, [](uint64_t item, int p) {
      return static_cast<size_t>((item >> (32 + 8 * p)) & 0xffu);
    });
    for (int64_t i = 0; i < n; ++i) sorted[i] = static_cast<int64_t>(result[i] & 0xffffffffu);
  } else {
    s.wide.resize(static_cast<size_t>(2 * n));
    WideItem* items = s.wide.data();
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t key = key_bits(in[i * inner]);
      items[i] = WideItem{Descending ? ~key : key, i};
    }
    const WideItem* result = lsd_sort(items, items + n, n, 8, [](const WideItem& item, int p) {
      return static_cast<size_t>((item.key >> (8 * p)) & 0xffu);
    });
    for (int64_t i = 0; i < n; ++i) sorted[i] = result[i].position;
  }
}

}  // namespace wick::cpu::radix
