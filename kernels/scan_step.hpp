// scan_step.hpp: one step of cummax, cummin and logcumsumexp (core/src/ops_scan.cpp), one
// definition for the CPU kernel (kernels/cpu/scan.cpp) and the CUDA one (kernels/cuda/scan.cu),
// so that both devices walk a line with the same rule and give the same results.
#pragma once

#include <math.h>

#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#define WICK_SCAN_HD __host__ __device__ __forceinline__
#else
#define WICK_SCAN_HD inline
#endif

namespace wick::scan_step {

// cummax (kMin false) and cummin: does element x replace the running extreme `best`? Ties do
// (the latest position wins, as PyTorch's), and so does every NaN: once one is met it stays, its
// index moving to each later NaN. For integers x != x is false.
template <bool kMin, typename T>
WICK_SCAN_HD bool takes_over(T x, T best) {
  return (kMin ? x <= best : x >= best) || x != x;
}

// The running extreme before a line's first element: every element, NaN included, takes over.
template <bool kMin, typename T>
WICK_SCAN_HD T extreme_identity() {
  static_assert(std::is_same_v<T, int64_t> || std::is_floating_point_v<T>);
  if constexpr (std::is_same_v<T, int64_t>) {
    return kMin ? INT64_MAX : INT64_MIN;
  } else {
    return kMin ? static_cast<T>(INFINITY) : -static_cast<T>(INFINITY);
  }
}

// log(exp(a) + exp(b)) without overflow, the step of logcumsumexp from a running total a
// (-inf before the first element). NaN in, NaN out; -inf adds nothing; +inf absorbs every
// number (a difference of two infinities would be NaN, so infinities return before it).
WICK_SCAN_HD double log_add_exp(double a, double b) {
  if (a != a || b != b) return a + b;
  const double hi = a < b ? b : a;
  const double lo = a < b ? a : b;
  if (lo == -static_cast<double>(INFINITY) || hi == static_cast<double>(INFINITY)) return hi;
  return hi + ::log1p(::exp(lo - hi));
}

}  // namespace wick::scan_step
