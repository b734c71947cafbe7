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
// Tiles: the kernel is a template on CpAsyncTile (block, warp and thread tiles, stages, blocks
// per SM); "08_cp_async" is CpAsyncDefaultTile, the configuration above. Four other tiles
// (08_cp_async_variants.cuh: 128 x 256 and 256 x 128 with 8 x 16 per thread, 128 threads with
// 2 blocks per SM, 3 stages) run by name only, as the tuning sweep for the next GPU run
// (docs/gemm.md, "Step 8 variants"); none is measured yet.
#pragma once

#include <type_traits>

#include "../dynamic_shared.cuh"
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
#elif !defined(__CUDACC__)
  emu::cp_async16(dst, src, src_bytes);  // tests/cuda/cuda_emulator.hpp: lands at the wait
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
#elif !defined(__CUDACC__)
  emu::cp_async_commit();
#endif
}

// Waits until at most `kPending` of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
#elif !defined(__CUDACC__)
  emu::cp_async_wait(kPending);
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

// One float32 pipeline stage of steps 8 and 9: StageIndex's layout and the copies that fill it,
// made by the block's THREADS threads.
template <int BM, int BN, int BK, bool kAK, bool kBN, int THREADS = WarpGeometry::kThreads>
struct StageLayout : StageIndex<float, BM, BN, BK, kAK, kBN> {
  using Index = StageIndex<float, BM, BN, BK, kAK, kBN>;
  using Index::kLdA;
  using Index::kLdB;

  // Starts the copies of the K slice at k0 into the stage (a, b).
  static __device__ __forceinline__ void start(float* a_stage, float* b_stage,
                                               const Problem<float>& p, const float* a,
                                               const float* b, int64_t m0, int64_t n0, int64_t k0,
                                               int tid) {
    copy_tile_async<BM, BK, kLdA, THREADS, kAK>(a_stage, a, p.m, p.k, p.a_rs, p.a_cs, m0, k0, tid);
    copy_tile_async<BK, BN, kLdB, THREADS, kBN>(b_stage, b, p.k, p.n, p.b_rs, p.b_cs, k0, n0, tid);
    cp_async_commit();
  }
};

// Step 8's tile configuration: block tile BM x BN x BK, warp tiles WM x WN, thread tiles
// THREAD_M x THREAD_N (WarpTiles says how the lanes share a warp tile), STAGES shared-memory
// stages in flight, MIN_BLOCKS blocks per SM asked of ptxas (__launch_bounds__: it caps the
// registers at 64K / (threads x MIN_BLOCKS)), MIN_SM the oldest architecture the kernel is
// compiled for (older ones get a trap: the dispatcher never runs it there; select.cpp's min_sm
// says the same). The variants are for the H200: sm_90 only, which keeps them out of the
// compile time of the other 4 architectures CI builds (ladder.cu took 87% longer with them). The
// stages are static shared memory up to 48 KiB, dynamic beyond (the launcher raises the kernel's
// limit with cudaFuncSetAttribute: ladder.cu).
template <int BM, int BN, int BK_, int WM, int WN, int THREAD_M, int THREAD_N, int STAGES,
          int MIN_BLOCKS, int MIN_SM = 90>
struct CpAsyncTile {
  using Geometry = WarpTiles<BM, BN, WM, WN, THREAD_M, THREAD_N, (BM / WM) * (BN / WN) * 32>;
  static constexpr int BK = BK_, kStages = STAGES, kMinBlocks = MIN_BLOCKS, kMinSm = MIN_SM;
  static constexpr int kThreads = Geometry::kThreads;
  static_assert(BK % 4 == 0 && STAGES >= 2, "k groups of 4; at least double buffering");
  // Floats of the larger layout of each operand (padding differs by layout: StageIndex).
  static constexpr int kStageFloats = (StageIndex<float, BM, BN, BK, true, true>::kSizeA >
                                               StageIndex<float, BM, BN, BK, false, true>::kSizeA
                                           ? StageIndex<float, BM, BN, BK, true, true>::kSizeA
                                           : StageIndex<float, BM, BN, BK, false, true>::kSizeA) +
                                      (StageIndex<float, BM, BN, BK, true, true>::kSizeB >
                                               StageIndex<float, BM, BN, BK, true, false>::kSizeB
                                           ? StageIndex<float, BM, BN, BK, true, true>::kSizeB
                                           : StageIndex<float, BM, BN, BK, true, false>::kSizeB);
  static constexpr int kSharedBytes = STAGES * kStageFloats * static_cast<int>(sizeof(float));
  static constexpr bool kDynamicShared = kSharedBytes > 48 * 1024;
  // Columns of B whose fragments a thread holds at once: all of an 8-wide thread tile (as
  // step 8 always did); 4 at a time of a wider one, so that 4 k of A and B stay in registers
  // beside 128 accumulators (8 x 16: 128 + 32 + 16 instead of 128 + 32 + 64; with 8 at a time
  // ptxas spilled 136 bytes for a k-contiguous B at sm_90).
  static constexpr int kFragmentCols = THREAD_N <= 8 ? THREAD_N : 4;
  static constexpr int kUnrollK4 = THREAD_N <= 8 ? BK / 4 : 1;
};

// The stage that slice t of a ring of S stages lands in (unsigned: t & 1 for 2 stages).
template <int S>
__device__ __forceinline__ int stage_of(int64_t t) {
  return static_cast<int>(static_cast<uint64_t>(t) % S);
}

template <typename Tile, bool kAK, bool kBN>
__device__ __forceinline__ void cp_async_body(Problem<float> p) {
  using G = typename Tile::Geometry;
  constexpr int BK = Tile::BK, kStages = Tile::kStages;
  using S = StageLayout<G::BM, G::BN, BK, kAK, kBN, G::kThreads>;
  float* a_stages;  // stage s: a_stages + s * S::kSizeA
  float* b_stages;
  if constexpr (Tile::kDynamicShared) {
    a_stages = reinterpret_cast<float*>(dynamic_shared());
    b_stages = a_stages + kStages * S::kSizeA;
  } else {
    alignas(16) __shared__ float a_static[kStages][S::kSizeA];
    alignas(16) __shared__ float b_static[kStages][S::kSizeB];
    a_stages = &a_static[0][0];
    b_stages = &b_static[0][0];
  }
  const int tid = static_cast<int>(threadIdx.x);
  const G g(tid);
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * G::BM;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * G::BN;
  const int64_t k_tiles = ceil_div<int64_t>(p.k, BK);
  constexpr int kRows = G::WM_ITER * G::TM, kCols = G::WN_ITER * G::TN;  // the thread tile
  constexpr int kChunk = Tile::kFragmentCols, kChunkIter = kChunk / G::TN;
  static_assert(kCols % kChunk == 0 && kChunk % G::TN == 0, "B's fragments in whole sub-tiles");
  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const float* a = p.a + z * p.a_bs;
    const float* b = p.b + z * p.b_bs;
    float acc[kRows][kCols] = {};
    // The first kStages - 1 slices start before the loop; each iteration starts one more.
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
      if (s < k_tiles) {
        S::start(a_stages + s * S::kSizeA, b_stages + s * S::kSizeB, p, a, b, m0, n0, s * BK, tid);
      }
    }
    for (int64_t t = 0; t < k_tiles; ++t) {
      const int cur = stage_of<kStages>(t);
      const int64_t ahead = t + kStages - 1;
      if (ahead < k_tiles) {
        // Into the stage that slice t - 1 used: its reads ended at the last iteration's barrier.
        const int next = kStages == 2 ? cur ^ 1 : stage_of<kStages>(ahead);
        S::start(a_stages + next * S::kSizeA, b_stages + next * S::kSizeB, p, a, b, m0, n0,
                 ahead * BK, tid);
        cp_async_wait<kStages - 1>();  // slice t has landed; the later ones may be in flight
      } else {
        cp_async_wait<0>();  // the last slices: wait for all (a few iterations in K / BK)
      }
      __syncthreads();  // every thread's copies of slice t are visible
      const float* as = a_stages + cur * S::kSizeA;
      const float* bs = b_stages + cur * S::kSizeB;
#pragma unroll(Tile::kUnrollK4)
      for (int k4 = 0; k4 < BK; k4 += 4) {
        float a_frag[4][kRows];  // [k within the group of 4][row]
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
        for (int c0 = 0; c0 < kCols; c0 += kChunk) {
          float b_frag[4][kChunk];  // [k within the group of 4][column within the chunk]
#pragma unroll
          for (int nc = 0; nc < kChunkIter; ++nc) {
            const int ni = c0 / G::TN + nc;
#pragma unroll
            for (int q = 0; q < 4; ++q) {
              const float4 v = *reinterpret_cast<const float4*>(
                  bs + (kBN ? S::b_at(k4 + q, g.col(ni, 0)) : S::b_at(k4, g.col(ni, q))));
              const float values[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
              for (int e = 0; e < 4; ++e) {
                if (kBN) {
                  b_frag[q][nc * 4 + e] = values[e];
                } else {
                  b_frag[e][nc * 4 + q] = values[e];
                }
              }
            }
          }
#pragma unroll
          for (int q = 0; q < 4; ++q) {
#pragma unroll
            for (int i = 0; i < kRows; ++i) {
#pragma unroll
              for (int j = 0; j < kChunk; ++j) {
                acc[i][c0 + j] = fmaf(a_frag[q][i], b_frag[q][j], acc[i][c0 + j]);
              }
            }
          }
        }
      }
      __syncthreads();  // the stage is read before a later iteration's copies overwrite it
    }
    g.store(acc, p.c + z * p.c_bs, p.m, p.n, m0, n0);
  }
}

template <typename Tile, bool kAK, bool kBN>
__global__ void __launch_bounds__(Tile::kThreads, Tile::kMinBlocks)
    cp_async_kernel(Problem<float> p) {
#if defined(__CUDA_ARCH__)
  if constexpr (Tile::kMinSm * 10 <= __CUDA_ARCH__) {
    cp_async_body<Tile, kAK, kBN>(p);
  } else {
    __trap();  // the variants below sm_90: no code (compile time), never launched there
  }
#else
  cp_async_body<Tile, kAK, kBN>(p);
#endif
}

// A step of the ladder on one tile configuration (kName comes with the named step).
template <typename Tile>
struct CpAsyncOn {
  using G = typename Tile::Geometry;
  static constexpr int BK = Tile::BK;
  template <bool kAK, bool kBN>
  struct For {
    static constexpr auto kernel = &cp_async_kernel<Tile, kAK, kBN>;
  };
  // The launch's dynamic shared memory: 0 when the stages are static arrays.
  static constexpr int kDynamicSharedBytes = Tile::kDynamicShared ? Tile::kSharedBytes : 0;
  static auto kernel_for(const Problem<float>& p) { return kernel_for_layout<For>(p); }
  static dim3 block() { return dim3(Tile::kThreads); }
  static dim3 grid(const Problem<float>& p) {
    return tile_grid<dim3>(p.n, G::BN, p.m, G::BM, p.batch);
  }
  static bool fits(const Problem<float>& p) {
    return vector_ready(p) && ceil_div<int64_t>(p.m, G::BM) <= kMaxGridYZ;
  }
};

// Step 8 as measured: 128 x 128 x 16, warp tiles 64 x 32, 8 x 8 per thread, 2 stages in static
// shared memory, one block per SM; compiled for sm_75 too (synchronous copies there).
using CpAsyncDefaultTile = CpAsyncTile<128, 128, 16, 64, 32, 8, 8, 2, 1, 75>;
static_assert(std::is_same_v<CpAsyncDefaultTile::Geometry, WarpGeometry>,
              "step 8's default is step 7's geometry, which step 9 reuses");

template <typename T>
struct CpAsync : CpAsyncOn<CpAsyncDefaultTile> {
  static constexpr const char* kName = "08_cp_async";
};

}  // namespace wick::gpu::gemm
