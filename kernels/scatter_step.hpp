// scatter_step.hpp: how scatter_reduce's kernels combine an element into its target, one
// definition for the CPU kernel (kernels/cpu/gather.cpp) and the CUDA ones (kernels/cuda/
// gather.cu, grouped_rows.cuh), so that both devices give the same bits. mean is the boundary's
// (core/src/ops_scatter.cpp: a sum, then a division), never a kernel's.
#pragma once

#include <cstdint>
#include <type_traits>

#include "wick/dispatch.hpp"

#if defined(__CUDACC__)
#define WICK_SCATTER_HD __host__ __device__ __forceinline__
#else
#define WICK_SCATTER_HD inline
#endif

namespace wick::scatter_step {

// The target's value so far combined with the next element x. int64 wraps, as PyTorch's
// (signed overflow would be undefined in C++). amax and amin are branch-free selects where NaN
// wins: a NaN target stays, a NaN element takes over (for integers x != x is false).
template <ScatterMode kMode>
struct Combine {
  template <typename T>
  WICK_SCATTER_HD T operator()(T acc, T x) const {
    if constexpr (kMode == ScatterMode::assign) {
      return x;
    } else if constexpr (kMode == ScatterMode::amax) {
      return (acc < x) | (x != x) ? x : acc;
    } else if constexpr (kMode == ScatterMode::amin) {
      return (x < acc) | (x != x) ? x : acc;
    } else if constexpr (std::is_integral_v<T>) {
      const auto a = static_cast<uint64_t>(acc), b = static_cast<uint64_t>(x);
      return static_cast<T>(kMode == ScatterMode::prod ? a * b : a + b);
    } else {
      return kMode == ScatterMode::prod ? acc * x : acc + x;
    }
  }
};

}  // namespace wick::scatter_step
