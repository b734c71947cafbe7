// sort_order.hpp: the total order of sort and topk (core/src/ops_sort.cpp), one definition for
// the CPU kernel (kernels/cpu/sort.cpp) and the CUDA one (kernels/cuda/sort.cu), so that both
// give the same permutation. An element is compared by its key (bfloat16 as float, the other
// dtypes as they are) and then by its position along the dim:
//  - ascending: a < b, with NaN above every number (NaN is the one value with x != x);
//  - descending: the reverse of that for keys (NaN first);
//  - keys that are neither below nor above each other (equal, 0.0 and -0.0, two NaNs): the
//    lower position first, in both directions (a stable sort).
// Positions differ within a line, so no two elements are tied: any correct sorting algorithm
// gives the same result. searchsorted bisects in the same order of keys.
#pragma once

#include <cstdint>

#include "wick/bfloat16.hpp"

#if defined(__CUDACC__)
#define WICK_SORT_HD __host__ __device__ __forceinline__
#else
#define WICK_SORT_HD inline
#endif

namespace wick::sort_order {

template <typename T>
struct KeyOf {
  using type = T;
};
template <>
struct KeyOf<BFloat16> {
  using type = float;
};
template <typename T>
using Key = typename KeyOf<T>::type;

template <typename T>
WICK_SORT_HD Key<T> key_of(T value) {
  return static_cast<Key<T>>(value);
}

// a below b in ascending order. The short-circuit form is the faster one in sort's and topk's
// loops, whose compares mostly go one way: topk 5 of each row of [4096, 1000] ran at 0.66x
// libtorch's speed with the branch-free form below and 0.96x with this one (survey bench,
// 1 thread, 2026-12-06).
template <typename K>
WICK_SORT_HD bool below(K a, K b) {
  return a < b || (b != b && a == a);  // NOLINT(misc-redundant-expression): NaN tests
}

// The same without branches, for a bisection, whose compares are coin flips.
template <typename K>
WICK_SORT_HD bool below_branchless(K a, K b) {
  return (a < b) | ((b != b) & (a == a));  // NOLINT(misc-redundant-expression): NaN tests
}

// Does the element (key a, position pa) come before (b, pb)?
template <bool Descending, typename K>
WICK_SORT_HD bool before(K a, int64_t pa, K b, int64_t pb) {
  if (Descending ? below(b, a) : below(a, b)) return true;
  if (Descending ? below(a, b) : below(b, a)) return false;
  return pa < pb;
}

// searchsorted (core/src/ops_search.cpp): the first position of row[0, m) whose key is not below
// v (kRight: the first above v), by bisection in this order. One definition
// for the CPU kernel (kernels/cpu/search.cpp) and the CUDA one (kernels/cuda/search.cu), so both
// give the same positions. Branch-free: the window [base, base + len) halves each step, base
// moving by a multiply rather than a jump, so the step count depends on m alone (a
// data-dependent branch per step, mispredicted half the time, cost the CPU kernel most of its
// time: 84 ms for 2^20 values in 1000).
template <bool kRight, typename T>
WICK_SORT_HD int64_t insertion_point(const T* row, int64_t m, T v) {
  if (m == 0) return 0;
  int64_t base = 0, len = m;
  while (len > 1) {
    const int64_t half = len / 2;
    const T probe = row[base + half];
    const bool after = kRight ? !below_branchless(v, probe) : below_branchless(probe, v);
    base += static_cast<int64_t>(after) * half;
    len -= half;
  }
  const bool after = kRight ? !below_branchless(v, row[base]) : below_branchless(row[base], v);
  return base + static_cast<int64_t>(after);
}

}  // namespace wick::sort_order
