// common.cuh: what every CUDA kernel file shares.
//  - ceil_div; FastDivmod, a division by a run-time constant as a multiply-high and a shift
//    (the "round-up" method of Granlund & Montgomery, PLDI'94, as PyTorch's IntDivider, here on
//    64 bits); OffsetCalculator, the strided N-d index maths (up to Shape::kMaxDims dims) that
//    turns a linear element index into one offset per operand; collapse_dims, which drops
//    size-1 dims and merges dims that every operand walks contiguously, so that most tensors
//    reach a kernel with one or two dims;
//  - device code (nvcc only): aligned vector loads and stores (16 bytes per thread), warp
//    shuffles, warp and block reductions with a fixed combination order (deterministic), and
//    launch_kernel, which launches and checks every launch through check_launch (runtime.hpp).
// The host parts compile with any C++ compiler: tests/cuda/test_host.cpp checks FastDivmod and
// collapse_dims on the CPU against plain division and the definition of strides.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "runtime.hpp"
#include "wick/dim_order.hpp"
#include "wick/shape.hpp"

#if defined(__CUDACC__)
#define WICK_GPU_HD __host__ __device__ __forceinline__
#else
#define WICK_GPU_HD inline
#endif

namespace wick::gpu {

inline constexpr int kMaxDims = Shape::kMaxDims;
inline constexpr int kWarpSize = 32;

template <typename T>
constexpr WICK_GPU_HD T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

// ---- division by a run-time constant ----
__extension__ typedef unsigned __int128 Uint128;  // __extension__: no -Wpedantic warning

// For a divisor d in [1, 2^63] and n in [0, 2^63): q = (mulhi(n, m) + n) >> s with s = ceil(log2
// d) and m = floor(2^64 (2^s - d) / d) + 1. n < 2^63 keeps the sum below 2^64. Note that wick's
// sizes, element counts and linear indices are int64, hence below 2^63.
struct FastDivmod {
  uint64_t divisor = 1;
  uint64_t multiplier = 1;
  uint32_t shift = 0;

  FastDivmod() = default;
  // Host only. d = 0 (an empty dim, never walked) is treated as 1.
  explicit FastDivmod(uint64_t d) : divisor(d == 0 ? 1 : d) {
    while (shift < 63 && (uint64_t{1} << shift) < divisor) ++shift;
    const Uint128 numerator = static_cast<Uint128>((uint64_t{1} << shift) - divisor) << 64;
    multiplier = static_cast<uint64_t>(numerator / divisor) + 1;
  }

  WICK_GPU_HD uint64_t div(uint64_t n) const {
#if defined(__CUDA_ARCH__)
    const uint64_t high = __umul64hi(n, multiplier);
#else
    const uint64_t high = static_cast<uint64_t>((static_cast<Uint128>(n) * multiplier) >> 64);
#endif
    return (high + n) >> shift;
  }
  // n = q * divisor + r.
  WICK_GPU_HD void divmod(uint64_t n, uint64_t& q, uint64_t& r) const {
    q = div(n);
    r = n - q * divisor;
  }
};

// ---- strided N-d layouts ----
// NARGS operands of one shape (the output first), each with its own strides in elements, after
// collapsing: size-1 dims dropped, and a dim merged into the next-outer one when, for every
// operand, stride_outer == stride_inner * size_inner. Dims are stored innermost first.
template <int NARGS>
struct StridedLayout {
  int ndim = 0;
  int64_t numel = 1;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[NARGS][kMaxDims] = {};

  // Every operand walks its elements contiguously (stride 1) in the same order.
  bool contiguous() const {
    if (ndim == 0) return true;
    if (ndim > 1) return false;
    for (int k = 0; k < NARGS; ++k) {
      if (strides[k][0] != 1) return false;
    }
    return true;
  }
};

template <int NARGS>
StridedLayout<NARGS> collapse_dims(const Shape& sizes,
                                   const std::array<const Shape*, NARGS>& strides) {
  // First outermost first, as in kernels/cpu/loops.hpp, then reversed.
  int n = 0;
  int64_t s[kMaxDims];
  int64_t st[NARGS][kMaxDims];
  StridedLayout<NARGS> layout;
  // An empty layout walks nothing: its sizes before the 0 may overflow when multiplied, and
  // stride * size may pass int64 ([3, 0, 2^63 - 1]). It becomes one dim of size 0 (an empty
  // reduced set stays a dim, as the 0 would have).
  for (int64_t size : sizes) {
    if (size == 0) {
      layout.ndim = 1;
      layout.numel = 0;
      return layout;
    }
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    layout.numel *= sizes[d];
    if (sizes[d] == 1) continue;
    bool merge = n > 0;
    for (int k = 0; k < NARGS && merge; ++k) {
      merge = st[k][n - 1] == (*strides[k])[d] * sizes[d];
    }
    if (merge) {
      s[n - 1] *= sizes[d];
      for (int k = 0; k < NARGS; ++k) st[k][n - 1] = (*strides[k])[d];
    } else {
      s[n] = sizes[d];
      for (int k = 0; k < NARGS; ++k) st[k][n] = (*strides[k])[d];
      ++n;
    }
  }
  layout.ndim = n;
  for (int d = 0; d < n; ++d) {
    layout.sizes[d] = s[n - 1 - d];
    for (int k = 0; k < NARGS; ++k) layout.strides[k][d] = st[k][n - 1 - d];
  }
  return layout;
}

// collapse_dims after putting the dims in memory order (wick/dim_order.hpp): the output's
// (operand 0's) order when it is not contiguous, so that neighbouring threads of an op on
// x.t(), whose result is laid out as x.t(), touch neighbouring addresses.
template <int NARGS>
StridedLayout<NARGS> collapse_in_memory_order(const Shape& sizes,
                                              const std::array<const Shape*, NARGS>& strides) {
  const size_t ndim = sizes.size();
  bool row_major = true;      // operand 0's strides fall from the outer dims to the inner
  int64_t outer_stride = -1;  // that of the last dim of size > 1 so far (-1: none yet)
  for (size_t d = 0; d < ndim && row_major; ++d) {
    if (sizes[d] == 1) continue;
    row_major = outer_stride < 0 || outer_stride >= (*strides[0])[d];
    outer_stride = (*strides[0])[d];
  }
  if (row_major) return collapse_dims<NARGS>(sizes, strides);
  int fastest[kMaxDims];
  detail::fastest_dims_first(sizes, strides.data(), NARGS, fastest);
  Shape ordered_sizes;
  std::array<Shape, NARGS> ordered_strides;
  for (size_t i = 0; i < ndim; ++i) {
    const size_t d = static_cast<size_t>(fastest[ndim - 1 - i]);
    ordered_sizes.push_back(sizes[d]);
    for (int k = 0; k < NARGS; ++k) ordered_strides[k].push_back((*strides[k])[d]);
  }
  std::array<const Shape*, NARGS> pointers;
  for (int k = 0; k < NARGS; ++k) pointers[k] = &ordered_strides[k];
  return collapse_dims<NARGS>(ordered_sizes, pointers);
}

// Linear index (row-major over the collapsed dims) -> one element offset per operand.
template <int NARGS>
struct OffsetCalculator {
  int ndim = 0;
  FastDivmod sizes[kMaxDims];
  int64_t strides[kMaxDims][NARGS] = {};

  OffsetCalculator() = default;
  explicit OffsetCalculator(const StridedLayout<NARGS>& layout) : ndim(layout.ndim) {
    for (int d = 0; d < ndim; ++d) {
      sizes[d] = FastDivmod(static_cast<uint64_t>(layout.sizes[d]));
      for (int k = 0; k < NARGS; ++k) strides[d][k] = layout.strides[k][d];
    }
  }

  // The loop over dims has a fixed trip count and a break, which keeps the arrays addressable
  // with constants (kernel parameter space, no local memory), as PyTorch's OffsetCalculator.
  WICK_GPU_HD void get(uint64_t linear, int64_t (&offsets)[NARGS]) const {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 0; k < NARGS; ++k) offsets[k] = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int d = 0; d < kMaxDims; ++d) {
      if (d == ndim) break;
      uint64_t q, r;
      sizes[d].divmod(linear, q, r);
      linear = q;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int k = 0; k < NARGS; ++k) offsets[k] += static_cast<int64_t>(r) * strides[d][k];
    }
  }
};

// Element offsets of the dims of `t` whose flag in `mask` equals `want` (the kept or the reduced
// dims of a reduction, the row dims of a softmax), collapsed for NARGS = 1.
inline StridedLayout<1> select_dims(const Shape& sizes, const Shape& strides, const Shape& mask,
                                    int64_t want) {
  Shape sub_sizes, sub_strides;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (mask[d] == want) {
      sub_sizes.push_back(sizes[d]);
      sub_strides.push_back(strides[d]);
    }
  }
  return collapse_dims<1>(sub_sizes, {&sub_strides});
}

WICK_GPU_HD bool is_aligned(const void* ptr, size_t bytes) {
  return reinterpret_cast<uintptr_t>(ptr) % bytes == 0;
}

}  // namespace wick::gpu

// Device code: compiled by nvcc, or by the host compiler for tests/cuda/emulator (the CUDA
// emulator, tests/cuda/cuda_emulator.hpp, is then included first and defines the built-ins).
#if defined(__CUDACC__) || defined(WICK_GPU_EMULATOR)

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

namespace wick::gpu {

// Calls run(Bits{}) with the unsigned type of d's element size: for kernels that only move
// elements (index_select, gather), one instantiation per size serves every dtype.
template <typename Run>
void dispatch_by_element_size(Dtype d, Run&& run) {
  switch (element_size(d)) {
    case 1:
      run(uint8_t{});
      break;
    case 2:
      run(uint16_t{});
      break;
    case 4:
      run(uint32_t{});
      break;
    default:
      run(uint64_t{});
      break;
  }
}

// Threads per block of the memory-bound kernels: 8 warps, so that 8 blocks fill an SM.
inline constexpr int kBlockThreads = 256;

// `blocks` blocks of `threads` threads, capped at 8 waves of resident blocks (far below
// gridDim.x's 2^31 - 1): the kernel must loop (grid-stride) over whatever the cap leaves.
inline unsigned capped_grid(const OpContext& ctx, int64_t blocks, int threads) {
  const DeviceInfo& info = device_info(ctx.device);
  const int64_t per_sm = info.max_threads_per_sm / threads;
  const int64_t resident = static_cast<int64_t>(info.sm_count) * (per_sm > 0 ? per_sm : 1);
  if (blocks < 1) blocks = 1;
  return static_cast<unsigned>(blocks < resident * 8 ? blocks : resident * 8);
}

// A grid of ceil(work / threads) blocks, capped as capped_grid: kernels loop (grid-stride)
// over whatever the cap leaves, so any size fits in one launch.
inline unsigned grid_for(const OpContext& ctx, int64_t work, int threads = kBlockThreads) {
  return capped_grid(ctx, ceil_div<int64_t>(work > 0 ? work : 1, threads), threads);
}

// gridDim.x for a kernel that does not loop over its blocks: `blocks`, or a ShapeError where it
// passes CUDA's 2^31 - 1 (a cast would wrap and drop work silently). Reachable only through
// huge expanded views (e.g. 2^31 outputs of a stride-0 reduction).
inline unsigned exact_grid_x(const OpContext& ctx, int64_t blocks, const char* kernel) {
  constexpr int64_t kMaxGridX = (int64_t{1} << 31) - 1;
  WICK_CHECK(blocks <= kMaxGridX, ShapeError, ctx.op, "needs ", blocks, " blocks of ", kernel,
             " on cuda:", ctx.device, ", more than CUDA's grid limit of 2^31 - 1");
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

// ---- vector loads: 16 bytes per thread where alignment allows ----
template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
  T v[N];
};

template <int N, typename T>
__device__ __forceinline__ Vec<T, N> load_vec(const T* p) {
  return *reinterpret_cast<const Vec<T, N>*>(p);
}
template <int N, typename T>
__device__ __forceinline__ void store_vec(T* p, const Vec<T, N>& value) {
  *reinterpret_cast<Vec<T, N>*>(p) = value;
}

template <typename T>
__device__ __forceinline__ bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return v != v;
  } else {
    return false;
  }
}

// ---- math for float and double, spelled out: wick:: has its own exp/log/... for tensors,
// which would hide the global ones inside namespace wick ----
template <typename T>
__device__ __forceinline__ T exp_of(T x) {
  if constexpr (sizeof(T) == 4) {
    return ::expf(x);
  } else {
    return ::exp(x);
  }
}
template <typename T>
__device__ __forceinline__ T log_of(T x) {
  if constexpr (sizeof(T) == 4) {
    return ::logf(x);
  } else {
    return ::log(x);
  }
}
template <typename T>
__device__ __forceinline__ T sqrt_of(T x) {
  if constexpr (sizeof(T) == 4) {
    return ::sqrtf(x);
  } else {
    return ::sqrt(x);
  }
}
template <typename T>
__device__ __forceinline__ T tanh_of(T x) {
  if constexpr (sizeof(T) == 4) {
    return ::tanhf(x);
  } else {
    return ::tanh(x);
  }
}
template <typename T>
__device__ __forceinline__ T pow_of(T x, T y) {
  if constexpr (sizeof(T) == 4) {
    return ::powf(x, y);
  } else {
    return ::pow(x, y);
  }
}
template <typename T>
__device__ __forceinline__ T fabs_of(T x) {
  if constexpr (sizeof(T) == 4) {
    return ::fabsf(x);
  } else {
    return ::fabs(x);
  }
}

// ---- shuffles and reductions ----
__device__ __forceinline__ float shfl_down(float v, int delta, int width) {
  return __shfl_down_sync(0xffffffffu, v, delta, width);
}
__device__ __forceinline__ double shfl_down(double v, int delta, int width) {
  return __shfl_down_sync(0xffffffffu, v, delta, width);
}
__device__ __forceinline__ int64_t shfl_down(int64_t v, int delta, int width) {
  return __shfl_down_sync(0xffffffffu, static_cast<long long>(v), delta, width);
}
__device__ __forceinline__ uint64_t shfl_down(uint64_t v, int delta, int width) {
  return __shfl_down_sync(0xffffffffu, static_cast<unsigned long long>(v), delta, width);
}
__device__ __forceinline__ bool shfl_down(bool v, int delta, int width) {
  return __shfl_down_sync(0xffffffffu, static_cast<int>(v), delta, width) != 0;
}

__device__ __forceinline__ float shfl_first(float v, int width) {
  return __shfl_sync(0xffffffffu, v, 0, width);
}
__device__ __forceinline__ double shfl_first(double v, int width) {
  return __shfl_sync(0xffffffffu, v, 0, width);
}

// Combines v across groups of `width` lanes (a power of two <= 32) with a fixed tree: lane i
// takes combine(own, lane i + offset) for offset = width/2, ..., 1. The result is valid in the
// group's first lane. Every lane of the warp must call it, and the warp must be whole (the
// block's size a multiple of 32): the shuffles' mask names all 32 lanes, and a lane missing
// from a partial warp would be read as garbage on a GPU (the CPU emulator stops there).
template <typename Acc, typename Combine>
__device__ __forceinline__ Acc warp_reduce(Acc v, const Combine& combine, int width = kWarpSize) {
  for (int offset = width / 2; offset > 0; offset /= 2) {
    v = combine(v, shfl_down(v, offset, width));
  }
  return v;
}

// warp_reduce, with the result handed to every lane of the group (float and double).
template <typename Acc, typename Combine>
__device__ __forceinline__ Acc warp_allreduce(Acc v, const Combine& combine, int width) {
  return shfl_first(warp_reduce(v, combine, width), width);
}

// Combines v over the whole block (threads numbered x fastest): warps first, then warp 0 over
// the warps' results; valid in thread 0. scratch: 32 Acc in shared memory. Every thread of the
// block must call it, the block made of whole warps (warp_reduce); it ends with a barrier, so
// scratch can be reused right after.
template <typename Acc, typename Combine>
__device__ Acc block_reduce(Acc v, const Combine& combine, Acc identity, Acc* scratch) {
  const int tid = static_cast<int>(threadIdx.x + threadIdx.y * blockDim.x);
  const int lane = tid % kWarpSize, warp = tid / kWarpSize;
  const int warps = static_cast<int>((blockDim.x * blockDim.y + kWarpSize - 1) / kWarpSize);
  v = warp_reduce(v, combine);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? scratch[lane] : identity;
    v = warp_reduce(v, combine);
  }
  __syncthreads();
  return v;
}

// block_reduce, with the result handed to every thread.
template <typename Acc, typename Combine>
__device__ Acc block_allreduce(Acc v, const Combine& combine, Acc identity, Acc* scratch) {
  v = block_reduce(v, combine, identity, scratch);
  if (threadIdx.x == 0 && threadIdx.y == 0) scratch[0] = v;
  __syncthreads();
  v = scratch[0];
  __syncthreads();
  return v;
}

// Shared memory for 32 values of a type that may have constructors (shared variables may not).
template <typename Acc>
struct alignas(16) ReduceScratch {
  unsigned char bytes[kWarpSize * sizeof(Acc)];
  __device__ Acc* get() { return reinterpret_cast<Acc*>(bytes); }
};

// ---- launching ----
// Launches kernel<<<grid, block, smem, ctx.stream>>>(args...) and checks it (check_launch):
// the one way the backend starts a kernel, so that no launch goes unchecked.
template <typename... Params, typename... Args>
void launch_kernel(const OpContext& ctx, const char* name, void (*kernel)(Params...), dim3 grid,
                   dim3 block, size_t shared_bytes, Args&&... args) {
#if defined(__CUDACC__)
  kernel<<<grid, block, shared_bytes, ctx.stream>>>(std::forward<Args>(args)...);
#else
  emu::launch_shared(kernel, grid, block, shared_bytes, static_cast<Params>(args)...);
#endif
  check_launch(ctx, name);
}

}  // namespace wick::gpu

#endif  // __CUDACC__ || WICK_GPU_EMULATOR
