// 10_bf16_mma.cuh: step 10 of the matmul ladder. Tensor cores with bfloat16 inputs and FP32
// accumulation: mma.sync.m16n8k16.
// Idea: step 9 fed the tensor cores float32 data rounded to TF32 on the way in, so every byte
// moved from memory still carried 32 bits. Here the data itself is bfloat16 (wick::kBFloat16,
// 2 bytes): half the bytes per element through DRAM, L2 and shared memory, twice the elements
// per 16-byte cp.async, and one mma multiplies a 16 x 16 tile of A by a 16 x 8 tile of B, two
// elements per 32-bit register. Products of bfloat16 values are exact in FP32 and the sums are
// FP32, so the only rounding beyond FP32's is that of the inputs (already bfloat16) and of C,
// written back as bfloat16 (round to nearest even), as torch.matmul on bfloat16 tensors does.
// The H200's dense BF16 tensor-core peak is about twice its TF32 peak.
// Structure: step 8's two-stage cp.async pipeline, with 128 x 128 x 32 stages (8 bfloat16 per
// 16-byte copy; rows padded by 8 elements so that the fragment loads below are free of bank
// conflicts in both orientations), step 9's warps: 8 warps of 64 x 32, each 4 x 4 mma tiles of
// 16 x 8, 64 FP32 accumulators per lane. Fragment layouts (PTX ISA, m16n8k16 .bf16; groupID
// g = lane / 4, tig = lane % 4): A register r holds (row g + 8 (r & 1), k 2 tig + 8 (r >> 1))
// and the next k; B register r holds (k 2 tig + 8 r, col g) and the next k; C as step 9. The
// fragments come from ldmatrix, which loads four 8 x 8 matrices per instruction straight into
// that layout (with .trans for an operand stored the other way round): 6 loads per warp and
// k-step of 16 for 16 mmas. The first version built each register from two 16-bit loads (48
// loads and 24 packs per 16 mmas) and ran at 117 TFLOP/s, 15% of cuBLAS BF16, on the H200
// (2026-12-04): bound by shared-memory load instructions, not by the tensor cores.
// Limits: bfloat16 operands whose unit-stride rows are multiples of 8 elements on 16-byte
// aligned bases (problem.hpp: vector_ready with 8-element chunks); sm_80 and later (the
// dispatcher never picks it below; compiled for sm_75 it traps). Other bfloat16 matmuls run in
// float32 (step 5) and round once.
// Measured on the H200 at 4096^3 (2026-12-04), before ldmatrix: 117.5 TFLOP/s, 15% of cuBLAS
// BF16 (781.0). With ldmatrix: predicted 250 to 350 TFLOP/s, not yet measured.
#pragma once

#include <cstdint>

#include "09_tf32_mma.cuh"
#include "wick/bfloat16.hpp"

namespace wick::gpu::gemm {

// d += A (16 x 16, bf16) B (16 x 8, bf16) for one warp; every lane of the warp must call it.
__device__ __forceinline__ void mma_bf16_m16n8k16(float (&d)[4], const uint32_t (&a)[4],
                                                  const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif defined(__CUDA_ARCH__)
  (void)d, (void)a, (void)b;
  __trap();
#elif !defined(__CUDACC__)
  emulated_mma_m16n8k16_bf16(d, a, b);   // tests/cuda/cuda_emulator.hpp
#else
  (void)d, (void)a, (void)b;
#endif
}

// One bfloat16 pipeline stage: step 8's layout (StageIndex) with 8 elements per 16-byte copy.
template <int BM, int BN, int BK, bool kAK, bool kBN>
struct Bf16Stage : StageIndex<BFloat16, BM, BN, BK, kAK, kBN> {
  using Index = StageIndex<BFloat16, BM, BN, BK, kAK, kBN>;
  using Index::kLdA;
  using Index::kLdB;
  static constexpr int kChunk = 8;  // bfloat16 per 16-byte copy

  // Starts copying the ROWS x COLS tile at (r0, c0) of X(r, c) = x[r * rs + c * cs] into
  // `tile` (tile[r * LD + c] when kColContiguous, else tile[c * LD + r]), 8 elements per copy
  // along the unit-stride dim, zero-filled past the matrix.
  template <int ROWS, int COLS, int LD, bool kColContiguous>
  static __device__ __forceinline__ void copy_tile(BFloat16* tile, const BFloat16* x, int64_t rows,
                                                   int64_t cols, int64_t rs, int64_t cs, int64_t r0,
                                                   int64_t c0, int tid) {
    constexpr int kCopies = ROWS * COLS / kChunk;
    static_assert(kCopies % WarpGeometry::kThreads == 0, "every thread makes the same copies");
#pragma unroll
    for (int e = tid; e < kCopies; e += WarpGeometry::kThreads) {
      const int r = kColContiguous ? e / (COLS / kChunk) : (e % (ROWS / kChunk)) * kChunk;
      const int c = kColContiguous ? (e % (COLS / kChunk)) * kChunk : e / (ROWS / kChunk);
      const int64_t gr = r0 + r, gc = c0 + c;
      const int64_t left =
          kColContiguous ? (gr < rows ? cols - gc : 0) : (gc < cols ? rows - gr : 0);
      const int valid = left <= 0 ? 0 : (left >= kChunk ? kChunk : static_cast<int>(left));
      const BFloat16* src = valid > 0 ? x + gr * rs + gc * cs : x;
      BFloat16* dst = kColContiguous ? tile + r * LD + c : tile + c * LD + r;
      cp_async16_bytes(dst, src, valid * static_cast<int>(sizeof(BFloat16)));
    }
  }

  // Starts the copies of the K slice at k0 into the stage (a, b).
  static __device__ __forceinline__ void start(BFloat16* a_stage, BFloat16* b_stage,
                                               const Problem<BFloat16>& p, const BFloat16* a,
                                               const BFloat16* b, int64_t m0, int64_t n0,
                                               int64_t k0, int tid) {
    copy_tile<BM, BK, kLdA, kAK>(a_stage, a, p.m, p.k, p.a_rs, p.a_cs, m0, k0, tid);
    copy_tile<BK, BN, kLdB, kBN>(b_stage, b, p.k, p.n, p.b_rs, p.b_cs, k0, n0, tid);
    cp_async_commit();
  }
};

// ldmatrix.x4: the warp loads four 8 x 8 matrices of bfloat16 from shared memory in one
// instruction; lane l gives the address of row l % 8 of matrix l / 8, and register j of lane t
// receives row t / 4, elements 2 (t % 4) and 2 (t % 4) + 1 of matrix j (kTrans: column t / 4,
// rows 2 (t % 4) and 2 (t % 4) + 1), which is the mma fragment layout. Every lane must call it.
template <bool kTrans>
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const BFloat16* row) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const auto address = static_cast<uint32_t>(__cvta_generic_to_shared(row));
  if constexpr (kTrans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
  }
#elif defined(__CUDA_ARCH__)
  (void)r, (void)row;
  __trap();
#elif !defined(__CUDACC__)
  emulated_ldmatrix_x4<kTrans>(r, row);  // tests/cuda/cuda_emulator.hpp
#else
  (void)r, (void)row;
#endif
}

template <int BK, bool kAK, bool kBN>
__global__ void __launch_bounds__(WarpGeometry::kThreads, 1) bf16_mma_kernel(Problem<BFloat16> p) {
  using G = WarpGeometry;  // block and warp tiles as step 9
  using S = Bf16Stage<G::BM, G::BN, BK, kAK, kBN>;
  constexpr int MI = G::WM / 16, NI = G::WN / 8;  // 4 x 4 mma tiles per warp
  alignas(16) __shared__ BFloat16 a_stages[2][S::kSizeA];
  alignas(16) __shared__ BFloat16 b_stages[2][S::kSizeB];
  const int tid = static_cast<int>(threadIdx.x);
  const G g(tid);
  const int lane = tid % 32, group = lane / 4, tig = lane % 4;
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * G::BM;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * G::BN;
  const int64_t k_tiles = ceil_div<int64_t>(p.k, BK);
  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const BFloat16* a = p.a + z * p.a_bs;
    const BFloat16* b = p.b + z * p.b_bs;
    float acc[MI][NI][4] = {};
    if (k_tiles > 0) S::start(a_stages[0], b_stages[0], p, a, b, m0, n0, 0, tid);
    for (int64_t t = 0; t < k_tiles; ++t) {
      const int cur = static_cast<int>(t & 1);
      if (t + 1 < k_tiles) {
        S::start(a_stages[cur ^ 1], b_stages[cur ^ 1], p, a, b, m0, n0, (t + 1) * BK, tid);
        cp_async_wait<1>();
      } else {
        cp_async_wait<0>();
      }
      __syncthreads();
      const BFloat16* as = a_stages[cur];
      const BFloat16* bs = b_stages[cur];
#pragma unroll
      for (int kb = 0; kb < BK; kb += 16) {
        uint32_t a_frag[MI][4], b_frag[NI][2];
        // A: matrices (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15) of
        // the 16 x 16 tile give registers a0..a3. Stored as a[m][k] (kAK) lane l names row
        // m = l % 8 + 8 ((l / 8) & 1) at k = 8 (l / 16); stored as a[k][m], the transposed
        // load takes row k = l % 8 + 8 (l / 16) at m = 8 ((l / 8) & 1).
        const int sub = lane % 8, mat = lane / 8;
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
          const int m = g.wm0 + mi * 16;
          const int at = kAK ? S::a_at(m + sub + 8 * (mat & 1), kb + 8 * (mat >> 1))
                             : S::a_at(m + 8 * (mat & 1), kb + sub + 8 * (mat >> 1));
          ldmatrix_x4<!kAK>(a_frag[mi], as + at);
        }
        // B, two n8 tiles per load: matrices (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15),
        // (k 8-15, n 8-15) give b0, b1 of tile ni and b0, b1 of tile ni + 1. Stored as b[n][k]
        // lane l names row n = l % 8 + 8 (l / 16) at k = 8 ((l / 8) & 1); stored as b[k][n]
        // (kBN), the transposed load takes row k = l % 8 + 8 ((l / 8) & 1) at n = 8 (l / 16).
#pragma unroll
        for (int ni = 0; ni < NI; ni += 2) {
          const int n = g.wn0 + ni * 8;
          const int at = kBN ? S::b_at(kb + sub + 8 * (mat & 1), n + 8 * (mat >> 1))
                             : S::b_at(kb + 8 * (mat & 1), n + sub + 8 * (mat >> 1));
          uint32_t pair[4];
          ldmatrix_x4<kBN>(pair, bs + at);
          b_frag[ni][0] = pair[0];
          b_frag[ni][1] = pair[1];
          b_frag[ni + 1][0] = pair[2];
          b_frag[ni + 1][1] = pair[3];
        }
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
          for (int ni = 0; ni < NI; ++ni) mma_bf16_m16n8k16(acc[mi][ni], a_frag[mi], b_frag[ni]);
        }
      }
      __syncthreads();
    }
    BFloat16* c = p.c + z * p.c_bs;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int64_t gm = m0 + g.wm0 + mi * 16 + group + (r >= 2 ? 8 : 0);
          const int64_t gn = n0 + g.wn0 + ni * 8 + 2 * tig + (r & 1);
          if (gm < p.m && gn < p.n) c[gm * p.n + gn] = BFloat16(acc[mi][ni][r]);
        }
      }
    }
  }
}

template <typename T>
struct Bf16Mma {
  static constexpr int BK = 32;
  template <bool kAK, bool kBN>
  struct For {
    static constexpr auto kernel = &bf16_mma_kernel<BK, kAK, kBN>;
  };
  static constexpr const char* kName = "10_bf16_mma";
  static auto kernel_for(const Problem<BFloat16>& p) {
    const bool a_k = vector_major(p.m, p.k, p.a_rs, p.a_cs, 8) == Major::Row;
    const bool b_n = vector_major(p.k, p.n, p.b_rs, p.b_cs, 8) == Major::Row;
    if (a_k) return b_n ? For<true, true>::kernel : For<true, false>::kernel;
    return b_n ? For<false, true>::kernel : For<false, false>::kernel;
  }
  static dim3 block() { return dim3(WarpGeometry::kThreads); }
  static dim3 grid(const Problem<BFloat16>& p) {
    return tile_grid<dim3>(p.n, WarpGeometry::BN, p.m, WarpGeometry::BM, p.batch);
  }
  static bool fits(const Problem<BFloat16>& p) {
    return vector_ready(p) && ceil_div<int64_t>(p.m, WarpGeometry::BM) <= kMaxGridYZ;
  }
};

}  // namespace wick::gpu::gemm
