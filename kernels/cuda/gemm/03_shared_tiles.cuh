// 03_shared_tiles.cuh: step 3 of the matmul ladder. Stage 32 x 32 tiles in shared memory.
// Idea: the block (32 x 32 threads, one per element of a 32 x 32 tile of C) walks K in steps
// of 32. At each step it copies the 32 x 32 tile of A and the 32 x 32 tile of B that its tile
// of C needs into shared memory (one element per thread, coalesced), waits at a barrier, and
// every thread accumulates its dot product over the 32 staged values. Each global element is
// now read by one thread and reused by 32 from shared memory: global traffic drops 32x (2K
// loads per 64 flops per thread become 2 loads per 64 flops).
// Why it is still slow: each FMA needs two shared-memory loads (one broadcast, one
// conflict-free), so the SM's load/store units, not its FMA units, set the pace.
// Limits: float32 only (ladder.cu instantiates it for no other dtype); any M, N, K, strides,
// batch (edges load zeros); M below 2^21.
// Measured on the H200 at 4096^3 (2026-12-04): 7.6 TFLOP/s, 15% of cuBLAS SGEMM (51.4).
#pragma once

#include "problem.hpp"

namespace wick::gpu::gemm {

template <typename T>
__global__ void __launch_bounds__(1024) shared_tiles_kernel(Problem<T> p) {
  constexpr int kTile = 32;
  __shared__ T a_tile[kTile][kTile];      // a_tile[row][k]
  __shared__ T b_tile[kTile][kTile + 1];  // b_tile[k][col]; +1: no conflicts when rows differ
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int64_t i = static_cast<int64_t>(blockIdx.y) * kTile + ty;
  const int64_t j = static_cast<int64_t>(blockIdx.x) * kTile + tx;
  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const T* a = p.a + z * p.a_bs;
    const T* b = p.b + z * p.b_bs;
    T acc = 0;
    for (int64_t k0 = 0; k0 < p.k; k0 += kTile) {
      // Every thread loads (zeros past the edges) and every thread reaches both barriers.
      const int64_t ak = k0 + tx, bk = k0 + ty;
      a_tile[ty][tx] = (i < p.m && ak < p.k) ? a[i * p.a_rs + ak * p.a_cs] : T(0);
      b_tile[ty][tx] = (bk < p.k && j < p.n) ? b[bk * p.b_rs + j * p.b_cs] : T(0);
      __syncthreads();
#pragma unroll 8
      for (int kk = 0; kk < kTile; ++kk) acc = multiply_add(acc, a_tile[ty][kk], b_tile[kk][tx]);
      __syncthreads();  // before the next step overwrites the tiles
    }
    if (i < p.m && j < p.n) p.c[z * p.c_bs + i * p.n + j] = acc;
  }
}

template <typename T>
struct SharedTiles {
  static constexpr const char* kName = "03_shared_tiles";
  static constexpr auto kernel = &shared_tiles_kernel<T>;
  static dim3 block() { return dim3(32, 32); }
  static dim3 grid(const Problem<T>& p) { return tile_grid<dim3>(p.n, 32, p.m, 32, p.batch); }
  static bool fits(const Problem<T>& p) { return ceil_div<int64_t>(p.m, 32) <= kMaxGridYZ; }
};

}  // namespace wick::gpu::gemm
