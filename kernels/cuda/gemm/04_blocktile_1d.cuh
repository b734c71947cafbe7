// 04_blocktile_1d.cuh: step 4 of the matmul ladder. Each thread computes a column of TM = 8
// elements of C (1-D register blocking).
// Idea: a block of 512 threads owns a BM x BN = 64 x 64 tile of C and walks K in steps of
// BK = 8, staging A's 64 x 8 and B's 8 x 64 tiles in shared memory (one element per thread).
// Thread t computes rows (t / 64) * 8 .. + 7 of column t % 64. In the inner loop it loads one
// value of B into a register and reuses it for 8 FMAs, against 8 values of A that the whole
// warp reads at the same address (a broadcast). Shared-memory loads per FMA drop from 2 to
// about 9/8, so the FMA units get busier (Boehm: about 3x over step 3).
// A is stored transposed in shared memory, a_tile[k][m], so that a thread's 8 values of A
// for one k are consecutive words.
// Limits: float32 only (ladder.cu instantiates it for no other dtype); any M, N, K, strides,
// batch (edges load zeros); M below 2^22.
// Measured on the H200 at 4096^3 (2026-12-04): 14.3 TFLOP/s, 28% of cuBLAS SGEMM (51.4).
#pragma once

#include "problem.hpp"

namespace wick::gpu::gemm {

template <typename T, int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__(BM* BN / TM) blocktile_1d_kernel(Problem<T> p) {
  constexpr int kThreads = BM * BN / TM;
  static_assert(BM * BK == kThreads && BK * BN == kThreads, "one element of each tile per thread");
  __shared__ T a_tile[BK][BM];
  __shared__ T b_tile[BK][BN];
  const int tid = static_cast<int>(threadIdx.x);
  const int col = tid % BN, row0 = (tid / BN) * TM;
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * BM;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * BN;
  // The element each thread stages: of A, (m0 + a_m, k0 + a_k) with k fastest across threads
  // (coalesced for a row-major A); of B, (k0 + b_k, n0 + b_n) with n fastest.
  const int a_m = tid / BK, a_k = tid % BK;
  const int b_k = tid / BN, b_n = tid % BN;
  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const T* a = p.a + z * p.a_bs;
    const T* b = p.b + z * p.b_bs;
    T acc[TM] = {};
    for (int64_t k0 = 0; k0 < p.k; k0 += BK) {
      const int64_t gm = m0 + a_m, gka = k0 + a_k, gkb = k0 + b_k, gn = n0 + b_n;
      a_tile[a_k][a_m] = (gm < p.m && gka < p.k) ? a[gm * p.a_rs + gka * p.a_cs] : T(0);
      b_tile[b_k][b_n] = (gkb < p.k && gn < p.n) ? b[gkb * p.b_rs + gn * p.b_cs] : T(0);
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        const T b_value = b_tile[kk][col];
#pragma unroll
        for (int r = 0; r < TM; ++r) acc[r] = multiply_add(acc[r], a_tile[kk][row0 + r], b_value);
      }
      __syncthreads();
    }
    T* c = p.c + z * p.c_bs;
    const int64_t gn = n0 + col;
#pragma unroll
    for (int r = 0; r < TM; ++r) {
      const int64_t gm = m0 + row0 + r;
      if (gm < p.m && gn < p.n) c[gm * p.n + gn] = acc[r];
    }
  }
}

template <typename T>
struct Blocktile1d {
  static constexpr int BM = 64, BN = 64, BK = 8, TM = 8;
  static constexpr const char* kName = "04_blocktile_1d";
  static constexpr auto kernel = &blocktile_1d_kernel<T, BM, BN, BK, TM>;
  static dim3 block() { return dim3(BM * BN / TM); }
  static dim3 grid(const Problem<T>& p) { return tile_grid<dim3>(p.n, BN, p.m, BM, p.batch); }
  static bool fits(const Problem<T>& p) { return ceil_div<int64_t>(p.m, BM) <= kMaxGridYZ; }
};

}  // namespace wick::gpu::gemm
