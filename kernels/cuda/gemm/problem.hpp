// problem.hpp: what every kernel of the matmul ladder (kernels/cuda/gemm/NN_*.cuh) is handed,
// and the little index maths they share. Plain C++ with no CUDA header: the same kernels are
// compiled by nvcc for the GPU and by the host compiler for tests/cuda/cuda_emulator.hpp,
// which runs them on the CPU (a block's threads as fibers resumed round robin on one OS thread,
// a barrier among them for __syncthreads).
//
// The product, in CUTLASS's words: C (M x N) = A (M x K) @ B (K x N), for each of `batch`
// matrices. Element (i, p) of A is a[i * a_rs + p * a_cs]: a row-major A has a_cs = 1, a
// transposed view (A = X^T with X row-major) has a_rs = 1; any other strides are allowed by
// the kernels that read scalars (steps 1 to 5). Likewise B(p, j) = b[p * b_rs + j * b_cs]. C is
// contiguous: C(i, j) = c[i * n + j]. Batch z adds z * a_bs, z * b_bs and z * c_bs (a stride of
// 0 broadcasts an operand over the batch). The launcher in ladder.cu reduces any batch layout
// to this one (several launches for batch dims that do not merge into one stride).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define WICK_GEMM_HD __host__ __device__ __forceinline__
#else
#define WICK_GEMM_HD inline
#endif

namespace wick::gpu::gemm {

template <typename T>
struct Problem {
  const T* a = nullptr;
  const T* b = nullptr;
  T* c = nullptr;
  int64_t m = 0, n = 0, k = 0;
  int64_t a_rs = 0, a_cs = 0;  // strides of A along M and along K
  int64_t b_rs = 0, b_cs = 0;  // strides of B along K and along N
  int64_t batch = 1;
  int64_t a_bs = 0, b_bs = 0, c_bs = 0;  // batch strides
};

// Grid dims y and z are at most 65535; kernels loop over the batches a grid of that height
// leaves, and the launcher checks that the tiles along the grid's y fit.
inline constexpr int64_t kMaxGridYZ = 65535;

template <typename I>
constexpr WICK_GEMM_HD I ceil_div(I a, I b) {
  return (a + b - 1) / b;
}

// A launch grid of ceil(extent_x / tile_x) x ceil(extent_y / tile_y) blocks and one z index per
// batch (at most 65535: the kernels loop over the rest; a y beyond 65535 is the caller's to
// rule out or loop over).
template <typename Dim3>
Dim3 tile_grid(int64_t extent_x, int64_t tile_x, int64_t extent_y, int64_t tile_y, int64_t batch) {
  const int64_t y = ceil_div(extent_y, tile_y);
  return Dim3(static_cast<unsigned>(ceil_div(extent_x, tile_x)),
              static_cast<unsigned>(y < kMaxGridYZ ? y : kMaxGridYZ),
              static_cast<unsigned>(batch < kMaxGridYZ ? batch : kMaxGridYZ));
}

// acc + x * y: one rounding (fma) for floats; wrapping (two's complement, as the CPU) for int64.
template <typename T>
WICK_GEMM_HD T multiply_add(T acc, T x, T y) {
  if constexpr (sizeof(T) == 8 && static_cast<T>(0.5) == 0) {
    return static_cast<T>(static_cast<uint64_t>(acc) +
                          static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
  } else {
    return fma(x, y, acc);
  }
}

// How the 128-bit loads of steps 6 to 10 (4 floats, or 8 bfloat16: `chunk` elements) can read
// an operand of rows x cols with strides rs, cs: Row when the column index has stride 1 and
// the row stride is a multiple of the chunk (a row-major matrix), Col when the row index has
// stride 1 and the column stride is a multiple of the chunk (a transposed view), None otherwise
// (those kernels are then skipped). The stride of a dim of size 1 is never used, so it counts
// as whatever helps.
enum class Major : uint8_t { None, Row, Col };

inline Major vector_major(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t chunk = 4) {
  const bool rs_free = rows == 1, cs_free = cols == 1;
  if ((cs == 1 || cs_free) && (rs % chunk == 0 || rs_free)) return Major::Row;
  if ((rs == 1 || rs_free) && (cs % chunk == 0 || cs_free)) return Major::Col;
  return Major::None;
}

// Both operands readable with 128-bit loads: a layout each, batch strides that are multiples
// of the chunk, and 16-byte aligned bases (C needs nothing: its stores check alignment
// themselves, or are scalar).
template <typename T>
inline bool vector_ready(const Problem<T>& p) {
  constexpr int64_t chunk = 16 / static_cast<int64_t>(sizeof(T));
  const auto aligned = [](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % 16 == 0; };
  return vector_major(p.m, p.k, p.a_rs, p.a_cs, chunk) != Major::None &&
         vector_major(p.k, p.n, p.b_rs, p.b_cs, chunk) != Major::None && p.a_bs % chunk == 0 &&
         p.b_bs % chunk == 0 && aligned(p.a) && aligned(p.b);
}

}  // namespace wick::gpu::gemm
