// search.cpp: searchsorted on the CPU (core/src/ops_search.cpp checks, promotes and packs).
// Sequences [rows, m] and values [rows, n], contiguous, one dtype (int64, float32, float64);
// output [rows, n] int64. A branch-free bisection per value in sort's order (sort_order.hpp;
// the CUDA kernel runs its insertion_point), eight values of a row at a time, values split
// across threads. About log2(m) + 1 compares per value.
#include <algorithm>
#include <bit>
#include <cstdint>

#include "../sort_order.hpp"
#include "kernels.hpp"
#include "loops.hpp"

namespace wick::cpu {
namespace {

// kGroup values of one row bisect in lockstep: the window's length follows m alone, so every
// value takes the same steps, and their probes are independent loads and compares that the core
// overlaps (one search is a chain of dependent ones: load, compare, move, about 15 cycles a
// step). Same positions as sort_order::insertion_point, which does one value.
constexpr int64_t kGroup = 8;

template <bool kRight, typename T>
void search_group(const T* row, int64_t m, const T* v, int64_t count, int64_t* out) {
  int64_t base[kGroup] = {};
  int64_t len = m;
  while (len > 1) {
    const int64_t half = len / 2;
    for (int64_t k = 0; k < kGroup; ++k) {
      const T probe = row[base[k] + half];
      const T value = v[k < count ? k : 0];
      const bool after = kRight ? !sort_order::below_branchless(value, probe)
                                : sort_order::below_branchless(probe, value);
      base[k] += static_cast<int64_t>(after) * half;
    }
    len -= half;
  }
  for (int64_t k = 0; k < count; ++k) {
    const bool after = kRight ? !sort_order::below_branchless(v[k], row[base[k]])
                              : sort_order::below_branchless(row[base[k]], v[k]);
    out[k] = base[k] + static_cast<int64_t>(after);
  }
}

// Values [begin, end) of rows of n values, each row's sequence m long (m >= 1).
template <bool kRight, typename T>
void search_range(const T* rows, int64_t m, const T* v, int64_t n, int64_t begin, int64_t end,
                  int64_t* out) {
  for (int64_t i = begin; i < end;) {
    const int64_t r = i / n;
    const int64_t row_end = std::min(end, (r + 1) * n);
    for (; i < row_end; i += kGroup) {
      search_group<kRight>(rows + r * m, m, v + i, std::min(kGroup, row_end - i), out + i);
    }
    i = row_end;
  }
}

}  // namespace

void searchsorted_kernel(const OpCall& call) {
  const Tensor& seq = call.in(0);
  const Tensor& values = call.in(1);
  const int64_t m = seq.size(1), n = values.size(1);
  const bool right = call.scalar_a.to<bool>();
  int64_t* dst = call.out().data_ptr<int64_t>();
  // A value costs about as much as log2(m) + 1 elements of an elementwise op.
  const int64_t steps = std::bit_width(static_cast<uint64_t>(m)) + 1;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / steps);
  WICK_DISPATCH_NUMERIC(seq.dtype(), {
    const T* rows = seq.data_ptr<T>();
    const T* v = values.data_ptr<T>();
    parallel_for(values.numel(), grain, [&](int64_t begin, int64_t end) {
      if (right) {
        search_range<true>(rows, m, v, n, begin, end, dst);
      } else {
        search_range<false>(rows, m, v, n, begin, end, dst);
      }
    });
  })
}

}  // namespace wick::cpu
