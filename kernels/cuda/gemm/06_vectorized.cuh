// 06_vectorized.cuh: step 6 of the matmul ladder. 128-bit loads and stores, with the A tile
// transposed in shared memory.
// Idea: step 5's block and thread tiles (128 x 128 x 8, 8 x 8 per thread), but every global
// load moves 4 floats (LDG.128: a quarter of the load instructions), and the thread tile is
// contiguous (rows ty * 8 .. + 7, columns tx * 8 .. + 7) so that its 8 values of A and 8
// values of B for one k come out of shared memory as two 128-bit loads each (LDS.128): 4
// shared loads per 64 FMAs instead of 16. A is stored k-major (a_tile[k][m]), transposing a
// row-major A on its way in; C is written with 128-bit stores where it is aligned.
// Why not faster still: two 128-bit loads of B by the 16 threads of a half-warp span 512
// bytes, a 2-way bank conflict; and the loads of step k + 1 wait for the FMAs of step k.
// Limits: float32; each operand row-major or transposed (one stride 1, the other a multiple of
// 4), batch strides multiples of 4, 16-byte aligned bases (problem.hpp: vector_ready);
// any M, N, K (partial vectors at the edges are read element by element).
// Measured on the H200 at 4096^3 (2026-12-04): 18.2 TFLOP/s, 35% of cuBLAS SGEMM (51.4).
#pragma once

#include "problem.hpp"

namespace wick::gpu::gemm {

// ptr[0..3] where `valid` of them (0 to 4) are in the matrix; the rest read as 0. A full vector
// is one 128-bit load (ptr 16-byte aligned); a partial one at an edge, scalar loads.
__device__ __forceinline__ float4 load4(const float* ptr, int64_t valid) {
  if (valid >= 4) return *reinterpret_cast<const float4*>(ptr);
  float4 v = {0.f, 0.f, 0.f, 0.f};
  if (valid > 0) v.x = ptr[0];
  if (valid > 1) v.y = ptr[1];
  if (valid > 2) v.z = ptr[2];
  return v;
}

__device__ __forceinline__ int64_t clamp4(int64_t n) { return n < 0 ? 0 : (n > 4 ? 4 : n); }

// Vector e of a ROWS x COLS tile at (r0, c0) of X(r, c) = x[r * rs + c * cs] (rows x cols in
// all), when threads move 4 consecutive elements along the unit-stride dim (c when
// kColContiguous, else r): its first element's place (r, c) in the tile, where it starts in
// X, and how many of its 4 elements are inside X (the rest read as 0).
struct TileVector {
  int r, c;
  const float* source;  // x itself when none is inside (never read then)
  int64_t valid;
};

template <int ROWS, int COLS, bool kColContiguous>
__device__ __forceinline__ TileVector tile_vector(int e, const float* x, int64_t rows, int64_t cols,
                                                  int64_t rs, int64_t cs, int64_t r0, int64_t c0) {
  TileVector v;
  v.r = kColContiguous ? e / (COLS / 4) : (e % (ROWS / 4)) * 4;
  v.c = kColContiguous ? (e % (COLS / 4)) * 4 : e / (ROWS / 4);
  const int64_t gr = r0 + v.r, gc = c0 + v.c;
  v.valid =
      kColContiguous ? (gr < rows ? clamp4(cols - gc) : 0) : (gc < cols ? clamp4(rows - gr) : 0);
  v.source = v.valid > 0 ? x + gr * rs + gc * cs : x;
  return v;
}

// Stages the ROWS x COLS tile at (r0, c0) of the matrix X(r, c) = x[r * rs + c * cs] (rows x
// cols in all) into `tile`, as tile[c][r] (TRANSPOSE) or tile[r][c], with the threads of the
// block each moving 4 consecutive elements along the unit-stride dim at a time: along c when
// kColContiguous (cs = 1), along r otherwise (rs = 1). LD is the tile's row length in floats.
template <int ROWS, int COLS, int LD, int THREADS, bool kColContiguous, bool kTranspose>
__device__ __forceinline__ void load_tile(float* tile, const float* x, int64_t rows, int64_t cols,
                                          int64_t rs, int64_t cs, int64_t r0, int64_t c0, int tid) {
  constexpr int kVectors = ROWS * COLS / 4;
  static_assert(kVectors % THREADS == 0, "every thread moves the same number of vectors");
#pragma unroll
  for (int e = tid; e < kVectors; e += THREADS) {
    const TileVector tv = tile_vector<ROWS, COLS, kColContiguous>(e, x, rows, cols, rs, cs, r0, c0);
    const float4 v = load4(tv.source, tv.valid);
    const float values[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int tr = kColContiguous ? tv.r : tv.r + q;  // element q's place in the tile
      const int tc = kColContiguous ? tv.c + q : tv.c;
      if (kTranspose) {
        tile[tc * LD + tr] = values[q];
      } else {
        tile[tr * LD + tc] = values[q];
      }
    }
  }
}

// Writes a thread's run of 4 results at C(gm, gn .. gn + 3): one 128-bit store when the run is
// inside C and aligned, else element by element.
__device__ __forceinline__ void store4(float* c, int64_t m, int64_t n, int64_t gm, int64_t gn,
                                       const float (&v)[4]) {
  if (gm >= m) return;
  float* dst = c + gm * n + gn;
  if (gn + 4 <= n && reinterpret_cast<uintptr_t>(dst) % 16 == 0) {
    *reinterpret_cast<float4*>(dst) = float4{v[0], v[1], v[2], v[3]};
    return;
  }
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    if (gn + q < n) dst[q] = v[q];
  }
}

template <int BM, int BN, int BK, int TM, int TN, bool kAK, bool kBN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 1) vectorized_kernel(Problem<float> p) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  constexpr int kPad = 4;                              // keeps rows 16-byte aligned
  alignas(16) __shared__ float a_tile[BK][BM + kPad];  // a_tile[k][m]
  alignas(16) __shared__ float b_tile[BK][BN + kPad];  // b_tile[k][n]
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % (BN / TN), ty = tid / (BN / TN);
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * BM;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * BN;
  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const float* a = p.a + z * p.a_bs;
    const float* b = p.b + z * p.b_bs;
    float acc[TM][TN] = {};
    for (int64_t k0 = 0; k0 < p.k; k0 += BK) {
      // A (m x k) goes in as a_tile[k][m]: transposed when K is its unit-stride dim.
      load_tile<BM, BK, BM + kPad, kThreads, kAK, true>(&a_tile[0][0], a, p.m, p.k, p.a_rs, p.a_cs,
                                                        m0, k0, tid);
      load_tile<BK, BN, BN + kPad, kThreads, kBN, false>(&b_tile[0][0], b, p.k, p.n, p.b_rs, p.b_cs,
                                                         k0, n0, tid);
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        float a_reg[TM], b_reg[TN];
#pragma unroll
        for (int i = 0; i < TM; i += 4) {
          const float4 v = *reinterpret_cast<const float4*>(&a_tile[kk][ty * TM + i]);
          a_reg[i] = v.x, a_reg[i + 1] = v.y, a_reg[i + 2] = v.z, a_reg[i + 3] = v.w;
        }
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          const float4 v = *reinterpret_cast<const float4*>(&b_tile[kk][tx * TN + j]);
          b_reg[j] = v.x, b_reg[j + 1] = v.y, b_reg[j + 2] = v.z, b_reg[j + 3] = v.w;
        }
#pragma unroll
        for (int i = 0; i < TM; ++i) {
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_reg[i], b_reg[j], acc[i][j]);
        }
      }
      __syncthreads();
    }
    float* c = p.c + z * p.c_bs;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        const float run[4] = {acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]};
        store4(c, p.m, p.n, m0 + ty * TM + i, n0 + tx * TN + j, run);
      }
    }
  }
}

// The kernel for the problem's layouts (vector_ready(p) must hold).
template <template <bool, bool> class Kernel>
auto kernel_for_layout(const Problem<float>& p) {
  const bool a_k = vector_major(p.m, p.k, p.a_rs, p.a_cs) == Major::Row;
  const bool b_n = vector_major(p.k, p.n, p.b_rs, p.b_cs) == Major::Row;
  if (a_k) return b_n ? Kernel<true, true>::kernel : Kernel<true, false>::kernel;
  return b_n ? Kernel<false, true>::kernel : Kernel<false, false>::kernel;
}

template <typename T>
struct Vectorized {
  static constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  template <bool kAK, bool kBN>
  struct For {
    static constexpr auto kernel = &vectorized_kernel<BM, BN, BK, TM, TN, kAK, kBN>;
  };
  static constexpr const char* kName = "06_vectorized";
  static auto kernel_for(const Problem<float>& p) { return kernel_for_layout<For>(p); }
  static dim3 block() { return dim3((BM / TM) * (BN / TN)); }
  static dim3 grid(const Problem<float>& p) { return tile_grid<dim3>(p.n, BN, p.m, BM, p.batch); }
  static bool fits(const Problem<float>& p) {
    return vector_ready(p) && ceil_div<int64_t>(p.m, BM) <= kMaxGridYZ;
  }
};

}  // namespace wick::gpu::gemm
