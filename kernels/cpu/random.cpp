// random.cpp: rand and randn from the Philox stream of wick/philox.hpp. Element i depends only
// on (seed, offset, i), so the split across threads does not change a single value, and the
// CUDA kernel (kernels/cuda/random.cu) produces the same numbers.
// Idea: the stream's reference functions (philox::rand_element, randn_element) compute a whole
// Philox block for each element, and randn a logarithm and a square root for each element of a
// pair that shares them. Here each block is computed once, kBatch blocks side by side so that
// the clones vectorise the ten rounds' 32 x 32 -> 64-bit multiplies (vpmuludq), and randn's
// Box-Muller once per pair over the batch (philox::box_muller_pair: branch-free log and
// sincos, vectorised too), with the same arithmetic, so every value keeps its bits
// (tests/test_random.cpp compares with the reference functions).
// Measured (Zen 5, 1 thread, 2^20 float32, bench/survey_vs_libtorch): docs/cpu-kernels.md.
#include <algorithm>

#include "kernels.hpp"
#include "loops.hpp"
#include "vec_clones.hpp"
#include "wick/philox.hpp"

namespace wick::cpu {
namespace {

constexpr int64_t kBatch = 64;  // Philox blocks computed side by side: 256 elements

// The four words of blocks first .. first + count - 1 (count <= kBatch) of the stream (seed,
// offset), in element order: words[4 * b + k] is word k of block first + b.
WICK_VEC_CLONES void philox_words(uint64_t seed, uint64_t offset, uint64_t first, int64_t count,
                                  uint32_t* words) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  uint32_t c0[kBatch], c1[kBatch], c2[kBatch], c3[kBatch];
  for (int64_t b = 0; b < kBatch; ++b) {
    const uint64_t counter = offset + first + static_cast<uint64_t>(b);
    c0[b] = static_cast<uint32_t>(counter);
    c1[b] = static_cast<uint32_t>(counter >> 32);
    c2[b] = 0;
    c3[b] = 0;
  }
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    for (int64_t b = 0; b < kBatch; ++b) {  // philox::philox4x32_10's round
      const uint64_t p0 = static_cast<uint64_t>(kMul0) * c0[b];
      const uint64_t p1 = static_cast<uint64_t>(kMul1) * c2[b];
      const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1[b] ^ k0;
      const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3[b] ^ k1;
      c1[b] = static_cast<uint32_t>(p1);
      c3[b] = static_cast<uint32_t>(p0);
      c0[b] = n0;
      c2[b] = n2;
    }
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  for (int64_t b = 0; b < count; ++b) {
    words[4 * b] = c0[b];
    words[4 * b + 1] = c1[b];
    words[4 * b + 2] = c2[b];
    words[4 * b + 3] = c3[b];
  }
}

// Box-Muller on count word pairs: values[2p], values[2p + 1] from words[2p], words[2p + 1].
template <typename T>
WICK_VEC_CLONES void box_muller_words(const uint32_t* words, int64_t pairs, T* values) {
  for (int64_t p = 0; p < pairs; ++p) {
    philox::box_muller_pair<T>(words[2 * p], words[2 * p + 1], values + 2 * p);
  }
}

// Elements [begin, end) of the stream into data[begin .. end).
template <typename T, bool kNormal>
void fill_range(T* data, int64_t begin, int64_t end, uint64_t seed, uint64_t offset) {
  uint32_t words[4 * kBatch];
  T values[4 * kBatch];
  for (int64_t block = begin / 4; block * 4 < end; block += kBatch) {
    const int64_t count = std::min(kBatch, (end + 3) / 4 - block);
    philox_words(seed, offset, static_cast<uint64_t>(block), count, words);
    const int64_t first = std::max(begin, block * 4);
    const int64_t last = std::min(end, (block + count) * 4);
    if constexpr (kNormal) {
      box_muller_words<T>(words, 2 * count, values);
      std::copy(values + (first - block * 4), values + (last - block * 4), data + first);
    } else {
      for (int64_t i = first; i < last; ++i) {
        const uint32_t word = words[i - block * 4];
        if constexpr (sizeof(T) == 4) {
          data[i] = philox::uniform_float(word);
        } else {
          data[i] = philox::uniform_double(word);
        }
      }
    }
  }
}

}  // namespace

void random_kernel(const OpCall& call) {
  const Tensor& out = call.out();  // contiguous, floating
  const bool normal = call.op == OpId::randn;
  const uint64_t seed = call.seed, offset = call.offset;
  WICK_DISPATCH_FLOATING(out.dtype(), {
    T* data = out.data_ptr<T>();
    parallel_for(out.numel(), 4096, [&](int64_t begin, int64_t end) {
      if (normal) {
        fill_range<T, true>(data, begin, end, seed, offset);
      } else {
        fill_range<T, false>(data, begin, end, seed, offset);
      }
    });
  })
}

}  // namespace wick::cpu
