// 02_coalesced.cuh: step 2 of the matmul ladder. The naive kernel with its thread order fixed.
// Idea: give consecutive threads of a warp consecutive columns j of C instead of consecutive
// rows. At each p the warp now reads one element of A (a broadcast: one transaction) and 32
// consecutive elements of B (one 128-byte line when B is row-major), and writes 32
// consecutive elements of C. Same arithmetic as step 1; the memory system now moves whole
// lines instead of single words, so the kernel is limited by L1/L2 bandwidth instead of
// transactions (Boehm's ladder: about 8x on an A6000).
// Limits: float32 only (ladder.cu instantiates it for no other dtype); any M, N, K, strides,
// batch; M below 2^21 (grid y).
// Measured on the H200 at 4096^3 (2026-12-04): 1.7 TFLOP/s, 3% of cuBLAS SGEMM (51.4).
#pragma once

#include "problem.hpp"

namespace wick::gpu::gemm {

template <typename T>
__global__ void __launch_bounds__(1024) coalesced_kernel(Problem<T> p) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * 32 + threadIdx.x;  // x: along N
  const int64_t i = static_cast<int64_t>(blockIdx.y) * 32 + threadIdx.y;
  if (i >= p.m || j >= p.n) return;
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
struct Coalesced {
  static constexpr const char* kName = "02_coalesced";
  static constexpr auto kernel = &coalesced_kernel<T>;
  static dim3 block() { return dim3(32, 32); }
  static dim3 grid(const Problem<T>& p) { return tile_grid<dim3>(p.n, 32, p.m, 32, p.batch); }
  static bool fits(const Problem<T>& p) { return ceil_div<int64_t>(p.m, 32) <= kMaxGridYZ; }
};

}  // namespace wick::gpu::gemm
