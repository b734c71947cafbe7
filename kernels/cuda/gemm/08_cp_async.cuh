// 08_cp_async.cuh: step 8 of the matmul ladder. Double buffering with asynchronous copies.
// Idea: in steps 3 to 7 a block loads a K slice, waits at a barrier, computes, waits again:
// while it loads, its FMA units idle (unless other blocks on the SM fill the gap). Here the
// block owns two shared-memory stages. It starts the copy of slice t + 1 into one stage with
// cp.async (Ampere and later: global to shared memory without passing through registers,
// tracked in commit groups) and computes slice t from the other; cp.async.wait_group 1 then
// waits for slice t + 1 only when the compute of slice t is done. Loads and FMAs overlap
// inside every block, and no registers are spent on staging.
// The copies land in the operand's own orientation (cp.async cannot transpose): a row-major
// A is staged as a[m][k], a transposed view as a[k][m]; the compute reads 4 consecutive k of a
// row, or 4 consecutive m of a k, as one 128-bit load, whichever the stage holds. Rows are
// padded (k-major rows by 4 floats, m/n-major rows by 8) to keep those loads, and step 9's
// scalar fragment loads, free of bank conflicts. Block, warp and thread tiles as step 7
// (128 x 128 x 16, 64 x 32, 8 x 8); 2 stages of A and B take 34 to 40 KB of shared memory
// (by layout). Known cost: a transposed B (staged b[n][k]) reads with a 2-way bank conflict
// (rows 4 apart are 80 words apart); a swizzle of the 16-byte k chunks would remove it.
// Partial vectors at the edges use cp.async's zero fill (src-size below 16).
// Limits: float32, operands as step 6 (problem.hpp: vector_ready); the dispatcher uses it on
// sm_80 and later (on sm_75 the copies fall back to synchronous loads, correct but no faster).
// Measured on the H200 at 4096^3 (2026-12-04): 31.8 TFLOP/s, 62% of cuBLAS SGEMM (51.4).
#pragma once

#include "07_warptile.cuh"

namespace wick::gpu::gemm {

// 16 bytes from global `src` to shared `dst`, of which the first src_bytes are read and the
// rest zero-filled. Asynchronous on sm_80+: visible after cp_async_wait and a barrier. (Any
// element type: step 10 moves 8 bfloat16 with it.)
__device__ __forceinline__ void cp_async16_bytes(void* dst, const void* src, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const auto shared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared), "l"(src),
               "r"(src_bytes)
               : "memory");
#else
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (int q = 0; q < 16; ++q) d[q] = q < src_bytes ? s[q] : 0;
#endif
}
__device__ __forceinline__ void cp_async16(float* dst, const float* src, int src_bytes) {
  cp_async16_bytes(dst, src, src_bytes);
}

__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Waits until at most `kPending` of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#endif
}

// Starts copying the ROWS x COLS tile at (r0, c0) of X(r, c) = x[r * rs + c * cs] (rows x cols
// in all) into `tile` in X's orientation: tile[r * LD + c] when kColContiguous (cs = 1), else
// tile[c * LD + r] (rs = 1). 4 elements per copy along the unit-stride dim.
template <int ROWS, int COLS, int LD, int THREADS, bool kColContiguous>
__device__ __forceinline__ void copy_tile_async(float* tile, const float* x, int64_t rows,
                                                int64_t cols, int64_t rs, int64_t cs, int64_t r0,
                                                int64_t c0, int tid) {
  constexpr int kVectors = ROWS * COLS / 4;
  static_assert(kVectors % THREADS == 0, "every thread moves the same number of vectors");
#pragma unroll
  for (int e = tid; e < kVectors; e += THREADS) {
    const TileVector tv = tile_vector<ROWS, COLS, kColContiguous>(e, x, rows, cols, rs, cs, r0, c0);
    float* dst = kColContiguous ? tile + tv.r * LD + tv.c : tile + tv.c * LD + tv.r;
    cp_async16(dst, tv.source, static_cast<int>(tv.valid) * 4);
  }
}

// Where element (m, k) of A (BM x BK) and (k, n) of B (BK x BN) sit in a pipeline stage that
// holds each operand in its own orientation, elements of type T. k-major rows are padded by 16
// bytes (4 floats, 8 bfloat16), m/n-major rows by 8 elements. Shared by steps 8 to 10.
template <typename T, int BM, int BN, int BK, bool kAK, bool kBN>
struct StageIndex {
  static constexpr int kPadK = 16 / static_cast<int>(sizeof(T));
  static constexpr int kLdA = kAK ? BK + kPadK : BM + 8;  // a[m][k] rows of BK, or a[k][m] of BM
  static constexpr int kLdB = kBN ? BN + 8 : BK + kPadK;  // b[k][n] rows of BN, or b[n][k] of BK
  static constexpr int kSizeA = (kAK ? BM : BK) * kLdA;
  static constexpr int kSizeB = (kBN ? BK : BN) * kLdB;
  static __device__ __forceinline__ int a_at(int m, int k) {
    return kAK ? m * kLdA + k : k * kLdA + m;
  }
  static __device__ __forceinline__ int b_at(int k, int n) {
    return kBN ? k * kLdB + n : n * kLdB + k;
  }
};

// One float32 pipeline stage of steps 8 and 9: StageIndex's layout and the copies that fill it.
template <int BM, int BN, int BK, bool kAK, bool kBN>
struct StageLayout : StageIndex<float, BM, BN, BK, kAK, kBN> {
  using Index = StageIndex<float, BM, BN, BK, kAK, kBN>;
  using Index::kLdA;
  using Index::kLdB;

  // Starts the copies of the K slice at k0 into the stage (a, b).
  static __device__ __forceinline__ void start(float* a_stage, float* b_stage,
                                               const Problem<float>& p, const float* a,
                                               const float* b, int64_t m0, int64_t n0, int64_t k0,
                                               int tid) {
    constexpr int kThreads = WarpGeometry::kThreads;
    copy_tile_async<BM, BK, kLdA, kThreads, kAK>(a_stage, a, p.m, p.k, p.a_rs, p.a_cs, m0, k0, tid);
    copy_tile_async<BK, BN, kLdB, kThreads, kBN>(b_stage, b, p.k, p.n, p.b_rs, p.b_cs, k0, n0, tid);
    cp_async_commit();
  }
};

template <int BK, bool kAK, bool kBN>
__global__ void __launch_bounds__(WarpGeometry::kThreads, 1) cp_async_kernel(Problem<float> p) {
  using G = WarpGeometry;
  using S = StageLayout<G::BM, G::BN, BK, kAK, kBN>;
  alignas(16) __shared__ float a_stages[2][S::kSizeA];
  alignas(16) __shared__ float b_stages[2][S::kSizeB];
  const int tid = static_cast<int>(threadIdx.x);
  const G g(tid);
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * G::BM;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * G::BN;
  const int64_t k_tiles = ceil_div<int64_t>(p.k, BK);
  constexpr int kRows = G::WM_ITER * G::TM, kCols = G::WN_ITER * G::TN;  // 8 x 8 per thread
  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const float* a = p.a + z * p.a_bs;
    const float* b = p.b + z * p.b_bs;
    float acc[kRows][kCols] = {};
    if (k_tiles > 0) S::start(a_stages[0], b_stages[0], p, a, b, m0, n0, 0, tid);
    for (int64_t t = 0; t < k_tiles; ++t) {
      const int cur = static_cast<int>(t & 1);
      if (t + 1 < k_tiles) {
        S::start(a_stages[cur ^ 1], b_stages[cur ^ 1], p, a, b, m0, n0, (t + 1) * BK, tid);
        cp_async_wait<1>();  // slice t has landed; slice t + 1 may still be in flight
      } else {
        cp_async_wait<0>();
      }
      __syncthreads();  // every thread's copies of slice t are visible
      const float* as = a_stages[cur];
      const float* bs = b_stages[cur];
#pragma unroll
      for (int k4 = 0; k4 < BK; k4 += 4) {
        float a_frag[4][kRows], b_frag[4][kCols];  // [k within the group of 4][row or column]
#pragma unroll
        for (int mi = 0; mi < G::WM_ITER; ++mi) {
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            // kAK: 4 consecutive k of row (mi, q); else 4 consecutive rows of k = k4 + q.
            const float4 v = *reinterpret_cast<const float4*>(
                as + (kAK ? S::a_at(g.row(mi, q), k4) : S::a_at(g.row(mi, 0), k4 + q)));
            const float values[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              if (kAK) {
                a_frag[e][mi * 4 + q] = values[e];
              } else {
                a_frag[q][mi * 4 + e] = values[e];
              }
            }
          }
        }
#pragma unroll
        for (int ni = 0; ni < G::WN_ITER; ++ni) {
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            const float4 v = *reinterpret_cast<const float4*>(
                bs + (kBN ? S::b_at(k4 + q, g.col(ni, 0)) : S::b_at(k4, g.col(ni, q))));
            const float values[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              if (kBN) {
                b_frag[q][ni * 4 + e] = values[e];
              } else {
                b_frag[e][ni * 4 + q] = values[e];
              }
            }
          }
        }
#pragma unroll
        for (int q = 0; q < 4; ++q) {
#pragma unroll
          for (int i = 0; i < kRows; ++i) {
#pragma unroll
            for (int j = 0; j < kCols; ++j) acc[i][j] = fmaf(a_frag[q][i], b_frag[q][j], acc[i][j]);
          }
        }
      }
      __syncthreads();  // the stage is read before the next iteration's copies overwrite it
    }
    g.store(acc, p.c + z * p.c_bs, p.m, p.n, m0, n0);
  }
}

template <typename T>
struct CpAsync {
  static constexpr int BK = 16;
  template <bool kAK, bool kBN>
  struct For {
    static constexpr auto kernel = &cp_async_kernel<BK, kAK, kBN>;
  };
  static constexpr const char* kName = "08_cp_async";
  static auto kernel_for(const Problem<float>& p) { return kernel_for_layout<For>(p); }
  static dim3 block() { return dim3(WarpGeometry::kThreads); }
  static dim3 grid(const Problem<float>& p) { return Warptile<float>::grid(p); }
  static bool fits(const Problem<float>& p) { return Warptile<float>::fits(p); }
};

}  // namespace wick::gpu::gemm
