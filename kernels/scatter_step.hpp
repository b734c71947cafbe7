// scatter_step.hpp: how scatter_reduce's kernels combine an element into its target, one
// definition for the CPU kernel (kernels/cpu/gather.cpp) and the CUDA ones (kernels/cuda/
// gather.cu, grouped_rows.cuh), so that both devices give the same bits. mean is the boundary's
// (core/src/ops_scatter.cpp: a sum, then a division), never a kernel's.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

#include "wick/dispatch.hpp"

#if defined(__CUDACC__)
#define WICK_SCATTER_HD __host__ __device__ __forceinline__
#else
#define WICK_SCATTER_HD inline
#endif

namespace wick::scatter_step {

// x where take_x holds, else acc. On the CPU through bit masks: GCC 12 compiled the plain
// select of amax into two branches and a conditional store, which random data mispredicts half
// the time (scatter_reduce amax of [1024, 1024] along dim 0: 13.4 ms, 0.52 of libtorch's
// speed; docs/cpu-kernels.md). A GPU predicates the select anyway.
template <typename T>
WICK_SCATTER_HD T select(bool take_x, T x, T acc) {
#if defined(__CUDA_ARCH__)
  return take_x ? x : acc;
#else
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  const Bits mask = Bits{0} - static_cast<Bits>(take_x);
  return std::bit_cast<T>(
      static_cast<Bits>((std::bit_cast<Bits>(x) & mask) | (std::bit_cast<Bits>(acc) & ~mask)));
#endif
}

// The target's value so far combined with the next element x. int64 wraps, as PyTorch's
// (signed overflow would be undefined in C++). amax and amin are selects where NaN wins: a NaN
// target stays, a NaN element takes over (for integers x != x is false).
template <ScatterMode kMode>
struct Combine {
  template <typename T>
  WICK_SCATTER_HD T operator()(T acc, T x) const {
    if constexpr (kMode == ScatterMode::assign) {
      return x;
    } else if constexpr (kMode == ScatterMode::amax) {
      return select((acc < x) | (x != x), x, acc);
    } else if constexpr (kMode == ScatterMode::amin) {
      return select((x < acc) | (x != x), x, acc);
    } else if constexpr (std::is_integral_v<T>) {
      const auto a = static_cast<uint64_t>(acc), b = static_cast<uint64_t>(x);
      return static_cast<T>(kMode == ScatterMode::prod ? a * b : a + b);
    } else {
      return kMode == ScatterMode::prod ? acc * x : acc + x;
    }
  }
};

}  // namespace wick::scatter_step
