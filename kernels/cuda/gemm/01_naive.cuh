// 01_naive.cuh: step 1 of the matmul ladder. One thread per element of C.
// Idea: thread (x, y) of a 32 x 32 block computes C(i, j) = sum_p A(i, p) B(p, j) with its row
// i taken from x and its column j from y, reading A and B straight from global memory.
// Why it is slow: the 32 threads of a warp have consecutive x, so they walk down a column of
// C: at each p they read 32 elements of A that are a row apart (32 memory transactions for 128
// useful bytes) and write C 32 rows apart. 2K global loads per 2K flops and no reuse at all:
// the kernel is bound by the memory system's transactions, not by arithmetic.
// Limits: float32 only (ladder.cu instantiates steps 1 to 4 for float32 alone); any M, N, K,
// strides and batch; N below 2^21 (grid y).
// Measured on the H200 at 4096^3 (2026-12-04): 0.5 TFLOP/s, 1% of cuBLAS SGEMM (51.4).
#pragma once

#include "problem.hpp"

namespace wick::gpu::gemm {

template <typename T>
__global__ void __launch_bounds__(1024) naive_kernel(Problem<T> p) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * 32 + threadIdx.x;
  const int64_t j = static_cast<int64_t>(blockIdx.y) * 32 + threadIdx.y;
  if (i >= p.m || j >= p.n) return;  // no barrier below, so early exit is fine
  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const T* a = p.a + z * p.a_bs;
    const T* b = p.b + z * p.b_bs;
    T acc = 0;
    for (int64_t k = 0; k < p.k; ++k) {
      acc = multiply_add(acc, a[i * p.a_rs + k * p.a_cs], b[k * p.b_rs + j * p.b_cs]);
    }
    p.c[z * p.c_bs + i * p.n + j] = acc;
  }
}

template <typename T>
struct Naive {
  static constexpr const char* kName = "01_naive";
  static constexpr auto kernel = &naive_kernel<T>;
  static dim3 block() { return dim3(32, 32); }
  static dim3 grid(const Problem<T>& p) { return tile_grid<dim3>(p.m, 32, p.n, 32, p.batch); }
  static bool fits(const Problem<T>& p) { return ceil_div<int64_t>(p.n, 32) <= kMaxGridYZ; }
};

}  // namespace wick::gpu::gemm
