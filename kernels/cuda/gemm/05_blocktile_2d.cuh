// 05_blocktile_2d.cuh: step 5 of the matmul ladder. Each thread computes a TM x TN = 8 x 8
// tile of C (2-D register blocking). Also wick's general matmul kernel: it takes every dtype
// (float32, float64, int64) and every layout, so the dispatcher falls back to it whenever a
// faster kernel cannot take a problem.
// Idea: a block of 256 threads owns a BM x BN = 128 x 128 tile of C and walks K in steps of
// BK = 8. Per step each thread loads TM values of A and TN values of B from shared memory
// into registers and does TM * TN = 64 FMAs with them (their outer product): 16 shared loads
// per 64 FMAs instead of step 4's 9 per 8. Arithmetic intensity of the block tile:
// 2 * 128 * 128 * 8 flops per (128 + 128) * 8 * 4 bytes = 32 flops per byte from L2.
// The thread tile is strided: thread (ty, tx) owns rows ty * TM + i and columns tx + j * 16, so
// that a warp reads 16 consecutive values of B (no bank conflicts) and writes C in 64-byte runs.
// Tiles are loaded with consecutive threads along whichever of the operand's two dims has
// stride 1 (coalesced for row-major and for transposed views); out-of-range elements load as 0.
// A second shape, 64 x 64 x 8 with 4 x 4 thread tiles, is for problems with too few 128 x 128
// tiles to fill the device, and for float64 (whose 8 x 8 double accumulators do not fit in 255
// registers). Grid y covers the M tiles, looping when there are more than 65535.
// Limits: none (any M, N, K, strides, batch, dtype).
// Measured on the H200 at 4096^3 (2026-12-04): 15.8 TFLOP/s, 31% of cuBLAS SGEMM (51.4).
#pragma once

#include "problem.hpp"

namespace wick::gpu::gemm {

template <typename T, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 1) blocktile_2d_kernel(Problem<T> p) {
  constexpr int kThreadsN = BN / TN;
  constexpr int kThreads = (BM / TM) * kThreadsN;
  constexpr int kPad = 4;  // keeps the transposed stores of A into shared memory conflict-free
  alignas(16) __shared__ T a_tile[BK][BM + kPad];
  alignas(16) __shared__ T b_tile[BK][BN + kPad];
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % kThreadsN, ty = tid / kThreadsN;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * BN;
  const bool a_k_fast = !(p.a_rs == 1 && p.a_cs != 1);  // load A along K (else along M)
  const bool b_n_fast = !(p.b_rs == 1 && p.b_cs != 1);  // load B along N (else along K)
  const int64_t m_tiles = ceil_div<int64_t>(p.m, BM);

  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const T* a = p.a + z * p.a_bs;
    const T* b = p.b + z * p.b_bs;
    T* c = p.c + z * p.c_bs;
    for (int64_t m_tile = blockIdx.y; m_tile < m_tiles; m_tile += gridDim.y) {
      const int64_t m0 = m_tile * BM;
      T acc[TM][TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = T(0);
      }
      for (int64_t k0 = 0; k0 < p.k; k0 += BK) {
#pragma unroll
        for (int e = tid; e < BM * BK; e += kThreads) {
          const int mi = a_k_fast ? e / BK : e % BM;
          const int ki = a_k_fast ? e % BK : e / BM;
          const int64_t gm = m0 + mi, gk = k0 + ki;
          a_tile[ki][mi] = (gm < p.m && gk < p.k) ? a[gm * p.a_rs + gk * p.a_cs] : T(0);
        }
#pragma unroll
        for (int e = tid; e < BK * BN; e += kThreads) {
          const int ni = b_n_fast ? e % BN : e / BK;
          const int ki = b_n_fast ? e / BN : e % BK;
          const int64_t gk = k0 + ki, gn = n0 + ni;
          b_tile[ki][ni] = (gk < p.k && gn < p.n) ? b[gk * p.b_rs + gn * p.b_cs] : T(0);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
          T a_reg[TM], b_reg[TN];
#pragma unroll
          for (int i = 0; i < TM; ++i) a_reg[i] = a_tile[kk][ty * TM + i];
#pragma unroll
          for (int j = 0; j < TN; ++j) b_reg[j] = b_tile[kk][tx + j * kThreadsN];
#pragma unroll
          for (int i = 0; i < TM; ++i) {
#pragma unroll
            for (int j = 0; j < TN; ++j) acc[i][j] = multiply_add(acc[i][j], a_reg[i], b_reg[j]);
          }
        }
        __syncthreads();
      }
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int64_t gm = m0 + ty * TM + i;
        if (gm >= p.m) continue;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          const int64_t gn = n0 + tx + j * kThreadsN;
          if (gn < p.n) c[gm * p.n + gn] = acc[i][j];
        }
      }
    }
  }
}

template <typename T, int BM, int BN, int BK, int TM, int TN>
struct Blocktile2dShape {
  static constexpr auto kernel = &blocktile_2d_kernel<T, BM, BN, BK, TM, TN>;
  static dim3 block() { return dim3((BM / TM) * (BN / TN)); }
  static dim3 grid(const Problem<T>& p) { return tile_grid<dim3>(p.n, BN, p.m, BM, p.batch); }
  static bool fits(const Problem<T>&) { return true; }
};

template <typename T>
struct Blocktile2d : Blocktile2dShape<T, 128, 128, 8, 8, 8> {
  static constexpr const char* kName = "05_blocktile_2d";
};
template <typename T>
struct Blocktile2dSmall : Blocktile2dShape<T, 64, 64, 8, 4, 4> {
  static constexpr const char* kName = "05_blocktile_2d";
};

}  // namespace wick::gpu::gemm
