// 07_warptile.cuh: step 7 of the matmul ladder. Warp tiles: a level between the block and the
// thread.
// Idea: the 8 warps of a block split its 128 x 128 tile into 2 x 4 warp tiles of 64 x 32, and
// the 32 lanes of a warp split each warp tile in turn. A lane's 8 x 8 results are 2 x 2
// sub-tiles of 4 x 4, 32 rows and 16 columns apart (WM_ITER x WN_ITER iterations over a
// 32 x 16 warp sub-tile whose lanes form an 8 x 4 grid). Now the 8 lanes of each quarter-warp
// read 2 distinct 16-byte runs of A (broadcast) and 4 consecutive runs of B from shared memory:
// no bank conflicts, and a warp's loads come from a 64 x 32 region that stays in the SM's L1.
// BK grows to 16 (two 128-bit loads per thread per operand and step): half the barriers.
// This is CUTLASS's hierarchy: block tile (BM x BN x BK) -> warp tile (WM x WN) -> thread tile
// (TM x TN), with the innermost loop an outer product in registers.
// Limits: as step 6 (float32, row-major or transposed operands, problem.hpp: vector_ready).
// Measured on the H200 at 4096^3 (2026-12-04): 20.0 TFLOP/s, 39% of cuBLAS SGEMM (51.4).
#pragma once

#include "06_vectorized.cuh"

namespace wick::gpu::gemm {

// A block tile of BM x BN split into warp tiles of WM x WN (BN / WN warps along N), each
// split among its 32 lanes as LANES_M x LANES_N lanes with a thread tile of THREAD_M x THREAD_N
// results: WM_ITER x WN_ITER sub-tiles of TM x TN = 4 x 4 (one 128-bit load of A and of B),
// WM / WM_ITER rows and WN / WN_ITER columns apart. Step 8's variants instantiate other tiles.
template <int BM_, int BN_, int WM_, int WN_, int THREAD_M, int THREAD_N, int THREADS>
struct WarpTiles {
  static constexpr int BM = BM_, BN = BN_, kThreads = THREADS;
  static constexpr int WM = WM_, WN = WN_, WARPS_N = BN / WN;
  static constexpr int LANES_M = WM / THREAD_M, LANES_N = WN / THREAD_N, TM = 4, TN = 4;
  static constexpr int WM_ITER = THREAD_M / TM, WN_ITER = THREAD_N / TN;
  static_assert(LANES_M * LANES_N == 32, "a warp tile is split among the 32 lanes of a warp");
  static_assert((BM / WM) * (BN / WN) * 32 == THREADS, "one warp per warp tile");
  static_assert(BM % WM == 0 && BN % WN == 0 && THREAD_M % TM == 0 && THREAD_N % TN == 0,
                "tiles divide evenly");
  int wm0, wn0, lane_m, lane_n;
  __device__ __forceinline__ explicit WarpTiles(int tid) {
    const int warp = tid / 32, lane = tid % 32;
    wm0 = (warp / WARPS_N) * WM;
    wn0 = (warp % WARPS_N) * WN;
    lane_m = lane / LANES_N;
    lane_n = lane % LANES_N;
  }
  // Row (within the block tile) of sub-tile mi's element i, column of sub-tile ni's element j.
  __device__ __forceinline__ int row(int mi, int i) const {
    return wm0 + mi * (WM / WM_ITER) + lane_m * TM + i;
  }
  __device__ __forceinline__ int col(int ni, int j) const {
    return wn0 + ni * (WN / WN_ITER) + lane_n * TN + j;
  }
  // Writes the lane's results (acc[mi * TM + i][ni * TN + j] is C's element at row(mi, i),
  // col(ni, j) of the block tile at m0, n0) as runs of 4 along N.
  __device__ __forceinline__ void store(const float (&acc)[WM_ITER * TM][WN_ITER * TN], float* c,
                                        int64_t m, int64_t n, int64_t m0, int64_t n0) const {
#pragma unroll
    for (int mi = 0; mi < WM_ITER; ++mi) {
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int ni = 0; ni < WN_ITER; ++ni) {
          const float* v = &acc[mi * TM + i][ni * TN];
          const float run[4] = {v[0], v[1], v[2], v[3]};
          store4(c, m, n, m0 + row(mi, i), n0 + col(ni, 0), run);
        }
      }
    }
  }
};

// The warp and lane geometry shared by steps 7 to 10: 8 warps as 2 (M) x 4 (N), warp tiles of
// WM x WN = 64 x 32, lanes as 8 (M) x 4 (N), 4 x 4 per lane and sub-tile, WM_ITER = WN_ITER = 2
// (8 x 8 results per thread).
using WarpGeometry = WarpTiles<128, 128, 64, 32, 8, 8, 256>;

template <int BK, bool kAK, bool kBN>
__global__ void __launch_bounds__(WarpGeometry::kThreads, 1) warptile_kernel(Problem<float> p) {
  using G = WarpGeometry;
  constexpr int kPad = 4;
  alignas(16) __shared__ float a_tile[BK][G::BM + kPad];  // a_tile[k][m]
  alignas(16) __shared__ float b_tile[BK][G::BN + kPad];  // b_tile[k][n]
  const int tid = static_cast<int>(threadIdx.x);
  const G g(tid);
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * G::BM;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * G::BN;
  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const float* a = p.a + z * p.a_bs;
    const float* b = p.b + z * p.b_bs;
    float acc[G::WM_ITER * G::TM][G::WN_ITER * G::TN] = {};
    for (int64_t k0 = 0; k0 < p.k; k0 += BK) {
      load_tile<G::BM, BK, G::BM + kPad, G::kThreads, kAK, true>(&a_tile[0][0], a, p.m, p.k, p.a_rs,
                                                                 p.a_cs, m0, k0, tid);
      load_tile<BK, G::BN, G::BN + kPad, G::kThreads, kBN, false>(&b_tile[0][0], b, p.k, p.n,
                                                                  p.b_rs, p.b_cs, k0, n0, tid);
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        float a_reg[G::WM_ITER * G::TM], b_reg[G::WN_ITER * G::TN];
#pragma unroll
        for (int mi = 0; mi < G::WM_ITER; ++mi) {
          const float4 v = *reinterpret_cast<const float4*>(&a_tile[kk][g.row(mi, 0)]);
          a_reg[mi * 4] = v.x, a_reg[mi * 4 + 1] = v.y, a_reg[mi * 4 + 2] = v.z,
                     a_reg[mi * 4 + 3] = v.w;
        }
#pragma unroll
        for (int ni = 0; ni < G::WN_ITER; ++ni) {
          const float4 v = *reinterpret_cast<const float4*>(&b_tile[kk][g.col(ni, 0)]);
          b_reg[ni * 4] = v.x, b_reg[ni * 4 + 1] = v.y, b_reg[ni * 4 + 2] = v.z,
                     b_reg[ni * 4 + 3] = v.w;
        }
#pragma unroll
        for (int i = 0; i < G::WM_ITER * G::TM; ++i) {
#pragma unroll
          for (int j = 0; j < G::WN_ITER * G::TN; ++j) {
            acc[i][j] = fmaf(a_reg[i], b_reg[j], acc[i][j]);
          }
        }
      }
      __syncthreads();
    }
    g.store(acc, p.c + z * p.c_bs, p.m, p.n, m0, n0);
  }
}

template <typename T>
struct Warptile {
  static constexpr int BK = 16;
  template <bool kAK, bool kBN>
  struct For {
    static constexpr auto kernel = &warptile_kernel<BK, kAK, kBN>;
  };
  static constexpr const char* kName = "07_warptile";
  static auto kernel_for(const Problem<float>& p) { return kernel_for_layout<For>(p); }
  static dim3 block() { return dim3(WarpGeometry::kThreads); }
  static dim3 grid(const Problem<float>& p) {
    return tile_grid<dim3>(p.n, WarpGeometry::BN, p.m, WarpGeometry::BM, p.batch);
  }
  static bool fits(const Problem<float>& p) {
    return vector_ready(p) && ceil_div<int64_t>(p.m, WarpGeometry::BM) <= kMaxGridYZ;
  }
};

}  // namespace wick::gpu::gemm
