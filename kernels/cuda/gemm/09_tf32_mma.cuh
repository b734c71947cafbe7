// 09_tf32_mma.cuh: step 9 of the matmul ladder. Tensor cores: TF32 inputs, FP32 accumulation,
// with the warp-level mma.sync instruction.
// Idea: a tensor core multiplies small matrix tiles in one instruction. mma.sync.m16n8k8 with
// .tf32 takes a 16 x 8 tile of A and an 8 x 8 tile of B, spread over the 32 lanes of a warp
// (4 and 2 registers per lane), and adds their product to a 16 x 8 FP32 tile (4 registers per
// lane). TF32 keeps float32's 8-bit exponent and 10 of its 23 mantissa bits, so results differ
// from FP32 by about 1e-3 relative: this kernel runs only when the user allows it
// (wick::set_allow_tf32(true), as PyTorch's torch.backends.cuda.matmul.allow_tf32) or forces it
// by name. The H200's dense TF32 peak is about 7x its FP32 FMA peak (495 against 67 TFLOP/s by
// the datasheet), so the bottleneck moves to feeding the tensor cores.
// Rounding: every operand is rounded to TF32 in registers after its fragment load, to nearest
// (cvt.rn.tf32.f32 on sm_90, one instruction; cvt.rna on sm_80 to sm_89, ties away from zero,
// which ptxas expands to 3 instructions). Not truncated: the tensor core ignores the low 13 bits
// of an fp32 register, which would make the error about 2.6x larger (7.7e-4 against 2.9e-4 of
// the norm for random inputs) and biased towards zero, too close to the 1e-3 the GPU tests allow.
// Structure (the first version, measured below, used step 8's two 128 x 128 x 16 stages and 8
// warps of 64 x 32, and issued 24 scalar shared loads and 24 conversions per 16 mmas):
//  - block tile 128 x 128, BK = 32, 3 cp.async stages (32 KiB each, 96 KiB of dynamic shared
//    memory: 2 blocks fit an SM's 228 KiB), one barrier per 32-wide K slice;
//  - 4 warps of 64 x 64 (2 x 2), each 4 x 8 mma tiles, 128 FP32 accumulators per lane;
//    __launch_bounds__(128, 2) lets ptxas use up to 255 registers;
//  - fragments from 128-bit shared loads. The mma only needs A's and B's k to agree, so its
//    k slots are mapped onto physical k within each 16-wide chunk: lane (g = lane / 4,
//    t = lane % 4) puts physical k = 4 t + 2 s into slot t and 4 t + 2 s + 1 into slot t + 4 of
//    k-step s (0, 1): its 4 values of an A row or a B column are 4 consecutive k, one LDS.128
//    for two k-steps. Rows and columns are relabelled the same way: B column g of n8 tile ni is
//    global n = 8 g + ni of the warp tile (so a lane's 8 columns are consecutive: 2 LDS.128
//    from a b[k][n] stage), and for an a[k][m] stage row g (g + 8) of m16 tile mi is
//    m = 8 g + 2 mi (+ 1) (2 LDS.128 per k); the epilogue writes each accumulator where its
//    labels say (a lane's columns are then 16 consecutive floats: 128-bit stores).
//    Per warp and 16-wide k chunk: 16 LDS.128 + 64 conversions for 64 mmas (was 96 + 96);
//  - stages are XOR-swizzled in 16-byte chunks instead of padded: k-major rows (a[m][k],
//    b[n][k]: 8 chunks) flip chunk bit 2 by the parity of row ^ row / 8; m/n-major rows
//    (a[k][m], b[k][n]: 32 chunks) flip chunk bits 0 and 2 by bits 0 and 1 of k / 4. Every
//    quarter warp's 8 LDS.128 then hit 8 distinct 16-byte bank groups in all four layouts.
// Limits: float32 data, TF32 arithmetic; operands as step 6 (problem.hpp: vector_ready);
// sm_80 and later (the dispatcher never picks it below; compiled for sm_75 it traps). On sm_80
// (164 KiB of shared memory per SM) and sm_86/89 (100 KiB) only one block fits an SM.
// Measured on the H200 at 4096^3 (2026-12-04), first version: 49.2 TFLOP/s, 12% of cuBLAS TF32
// (399.9).
// Predicted (not measured: no GPU lent since the rework): 150 to 240 TFLOP/s at 4096^3 (38% to
// 60% of cuBLAS TF32), because mma.sync feeds Hopper's tensor cores from registers: with
// 64 x 64 warp tiles shared memory delivers 16 KiB per 128 mmas per warp, exactly the rate
// of the TF32 peak (128 bytes a clock against 2048 FLOP a clock), and each mma also costs a
// conversion and its share of loads in the issue slots; cuBLAS uses wgmma, which reads
// operands from shared memory directly. docs/gemm.md has the arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../dynamic_shared.cuh"
#include "08_cp_async.cuh"

namespace wick::gpu::gemm {

// float32 -> tf32 bits: round to nearest even on sm_90 (cvt.rn.tf32.f32, one instruction), ties
// away from zero before (cvt.rna.tf32.f32: sm_80 has no cvt.rn for tf32).
__device__ __forceinline__ uint32_t to_tf32(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  uint32_t r;
  asm("cvt.rn.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
#elif defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#elif !defined(__CUDACC__)
  return emulated_tf32_rn(x);  // tests/cuda/cuda_emulator.hpp (as sm_90)
#else
  (void)x;
  return 0;  // nvcc's host pass: device code never runs there
#endif
}

// d += A (16 x 8, tf32) B (8 x 8, tf32) for one warp; every lane of the warp must call it.
__device__ __forceinline__ void mma_tf32_m16n8k8(float (&d)[4], const uint32_t (&a)[4],
                                                 const uint32_t (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#elif defined(__CUDA_ARCH__)
  (void)d, (void)a, (void)b;
  __trap();
#elif !defined(__CUDACC__)
  emulated_mma_m16n8k8_tf32(d, a, b);  // tests/cuda/cuda_emulator.hpp
#else
  (void)d, (void)a, (void)b;
#endif
}

// x, hidden from the optimiser (on the GPU): what is computed from it stays where it is
// written instead of being hoisted out of the loops and held in registers all along (ptxas
// would otherwise keep the epilogue's 32 addresses and bounds live through the main loop, and
// spill accumulators).
__device__ __forceinline__ int opaque(int x) {
#if defined(__CUDA_ARCH__)
  asm volatile("" : "+r"(x));
#endif
  return x;
}

// Step 9's tiles: 128 x 128 x 32 block tiles in 3 stages, 4 warps of 64 x 64.
struct Tf32Tile {
  static constexpr int BM = 128, BN = 128, BK = 32, kStages = 3;
  static constexpr int WM = 64, WN = 64, WARPS_N = BN / WN;
  static constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  static constexpr int MI = WM / 16, NI = WN / 8;  // 4 x 8 mma tiles per warp
  static constexpr int kSizeA = BM * BK, kStageFloats = (BM + BN) * BK;
  static constexpr size_t kSharedBytes = size_t{kStages} * kStageFloats * sizeof(float);
};

// Where element (m, k) of A (BM x BK) and (k, n) of B (BK x BN) sit in a stage that holds each
// operand in its own orientation, in 16-byte chunks XOR-swizzled against bank conflicts (see
// the header). A stage is A's BM * BK floats, then B's BK * BN.
template <int BM, int BN, int BK, bool kAK, bool kBN>
struct Tf32Stage {
  static_assert(BK == 32, "k-major rows are 8 chunks of 4 floats");
  static_assert(BM % 32 == 0 && BN % 32 == 0, "m/n-major rows are whole 8-chunk groups");
  // Row r of BK floats (an m of A, an n of B): chunk q is stored at q ^ 4 ((r ^ r / 8) & 1).
  static __device__ __forceinline__ int k_major(int r, int k) {
    const int flip = ((r ^ (r >> 3)) & 1) << 2;
    return r * BK + (((k >> 2) ^ flip) << 2) + (k & 3);
  }
  // Row k of LEN floats: with t = (k / 4) % 4, chunk q is stored at q ^ ((t & 1) | (t & 2) * 2).
  template <int LEN>
  static __device__ __forceinline__ int mn_major(int k, int c) {
    const int t = (k >> 2) & 3;
    const int flip = (t & 1) | ((t & 2) << 1);
    return k * LEN + (((c >> 2) ^ flip) << 2) + (c & 3);
  }
  static __device__ __forceinline__ int a_at(int m, int k) {
    return kAK ? k_major(m, k) : mn_major<BM>(k, m);
  }
  static __device__ __forceinline__ int b_at(int k, int n) {
    return kBN ? mn_major<BN>(k, n) : k_major(n, k);
  }

  // Starts copying the ROWS x COLS tile at (r0, c0) of X(r, c) = x[r * rs + c * cs] (rows x
  // cols in all; cs = 1 when kColContiguous, else rs = 1) into a stage, element (r, c) at
  // tile[at(r, c)], 4 elements per 16-byte copy along the unit-stride dim, zero-filled past
  // the matrix. Each thread keeps one position along the unit-stride dim and steps over the
  // other, so that its copies differ by a constant stride (few registers: the loop is unrolled
  // into the main loop of the kernel).
  template <int ROWS, int COLS, bool kColContiguous, typename At>
  static __device__ __forceinline__ void copy(float* tile, const float* x, int64_t rows,
                                              int64_t cols, int64_t rs, int64_t cs, int64_t r0,
                                              int64_t c0, int tid, At at) {
    constexpr int kThreads = Tf32Tile::kThreads;
    constexpr int kRun = kColContiguous ? COLS / 4 : ROWS / 4;  // copies along the unit dim
    constexpr int kStep = kThreads / kRun;                      // rows (columns) per pass
    constexpr int kPasses = (kColContiguous ? ROWS : COLS) / kStep;
    static_assert(kThreads % kRun == 0 && kPasses * kStep * kRun * 4 == ROWS * COLS, "split");
    const int unit = (tid % kRun) * 4, other = tid / kRun;  // tid is opaque: see start()
    const int64_t g_unit = (kColContiguous ? c0 : r0) + unit;
    const int64_t g_other = (kColContiguous ? r0 : c0) + other;
    const int64_t left = (kColContiguous ? cols : rows) - g_unit;
    const int run = left <= 0 ? 0 : (left >= 4 ? 4 : static_cast<int>(left));
    const int64_t other_extent = kColContiguous ? rows : cols;
    const int64_t other_stride = kColContiguous ? rs : cs;
    const float* src = x + (kColContiguous ? g_other * rs + g_unit : g_unit + g_other * cs);
    int64_t step = kStep * other_stride;
#if defined(__CUDA_ARCH__)
    // Opaque to ptxas: otherwise it keeps the copies' offsets i * step, the same for every
    // slice, in 2 * kPasses registers and spills the accumulators.
    asm volatile("" : "+l"(step));
#endif
#pragma unroll
    for (int i = 0; i < kPasses; ++i) {
      const int valid = g_other + i * kStep < other_extent ? run : 0;
      const int dst = kColContiguous ? at(other + i * kStep, unit) : at(unit, other + i * kStep);
      cp_async16(tile + dst, valid > 0 ? src : x, valid * 4);
      src += step;
    }
  }

  // Starts the copies of the K slice at k0 into `stage` and commits them as one group.
  static __device__ __forceinline__ void start(float* stage, const Problem<float>& p,
                                               const float* a, const float* b, int64_t m0,
                                               int64_t n0, int64_t k0, int tid) {
    tid = opaque(tid);  // the copies' addresses are recomputed per slice, not held in registers
    copy<BM, BK, kAK>(stage, a, p.m, p.k, p.a_rs, p.a_cs, m0, k0, tid,
                      [](int m, int k) { return a_at(m, k); });
    copy<BK, BN, kBN>(stage + BM * BK, b, p.k, p.n, p.b_rs, p.b_cs, k0, n0, tid,
                      [](int k, int n) { return b_at(k, n); });
    cp_async_commit();
  }
};

template <bool kAK, bool kBN>
__global__ void __launch_bounds__(Tf32Tile::kThreads, 2) tf32_mma_kernel(Problem<float> p) {
  using T = Tf32Tile;
  using S = Tf32Stage<T::BM, T::BN, T::BK, kAK, kBN>;
  constexpr int MI = T::MI, NI = T::NI;
  float* stages = reinterpret_cast<float*>(dynamic_shared());  // kStages x kStageFloats
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32, lane = tid % 32, group = lane / 4, tig = lane % 4;
  const int wm0 = (warp / T::WARPS_N) * T::WM, wn0 = (warp % T::WARPS_N) * T::WN;
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * T::BM;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * T::BN;
  const int64_t k_tiles = ceil_div<int64_t>(p.k, T::BK);
  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const float* a = p.a + z * p.a_bs;
    const float* b = p.b + z * p.b_bs;
    float acc[MI][NI][4] = {};
    // Slices 0 .. kStages - 2 in flight; one commit group per slice, empty past the last.
#pragma unroll
    for (int s = 0; s < T::kStages - 1; ++s) {
      if (s < k_tiles) {
        S::start(stages + s * T::kStageFloats, p, a, b, m0, n0, s * T::BK, tid);
      } else {
        cp_async_commit();
      }
    }
    int read = 0, write = T::kStages - 1;  // the stages of slices t and t + kStages - 1
    for (int64_t t = 0; t < k_tiles; ++t) {
      cp_async_wait<T::kStages - 2>();  // this thread's copies of slice t have landed
      __syncthreads();  // everyone's have; and everyone is done with slice t - 1's stage
      if (t + T::kStages - 1 < k_tiles) {
        S::start(stages + write * T::kStageFloats, p, a, b, m0, n0, (t + T::kStages - 1) * T::BK,
                 tid);
      } else {
        cp_async_commit();
      }
      const float* as = stages + read * T::kStageFloats;
      const float* bs = as + T::kSizeA;
#pragma unroll
      for (int kc = 0; kc < T::BK; kc += 16) {
        // av[mi][h][j]: A at row g + 8 h of m16 tile mi, physical k = kc + 4 tig + j.
        uint32_t av[MI][2][4];
        const int k = kc + 4 * tig;
        if constexpr (kAK) {  // a[m][k]: one LDS.128 per row holds its 4 k
#pragma unroll
          for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const float4 v =
                  *reinterpret_cast<const float4*>(as + S::a_at(wm0 + 16 * mi + 8 * h + group, k));
              const float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
              for (int j = 0; j < 4; ++j) av[mi][h][j] = to_tf32(e[j]);
            }
          }
        } else {  // a[k][m]: rows g, g + 8 of tile mi are m = 8 g + 2 mi + (0, 1), consecutive
#pragma unroll
          for (int j = 0; j < 4; ++j) {
#pragma unroll
            for (int half = 0; half < 2; ++half) {
              const float4 v =
                  *reinterpret_cast<const float4*>(as + S::a_at(wm0 + 8 * group + 4 * half, k + j));
              const float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
              for (int q = 0; q < 4; ++q) av[2 * half + q / 2][q % 2][j] = to_tf32(e[q]);
            }
          }
        }
        // B in two groups of 4 n8 tiles (16 registers each, not 32: with 128 accumulators and
        // A's 32 values, all of B would make ptxas spill).
#pragma unroll
        for (int gi = 0; gi < NI / 4; ++gi) {
          uint32_t bv[4][4];    // B at physical k = kc + 4 tig + j, column g of tile 4 gi + ni
          if constexpr (kBN) {  // b[k][n]: column g of tile ni is n = 8 g + ni, consecutive
#pragma unroll
            for (int j = 0; j < 4; ++j) {
              const float4 v =
                  *reinterpret_cast<const float4*>(bs + S::b_at(k + j, wn0 + 8 * group + 4 * gi));
              const float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
              for (int q = 0; q < 4; ++q) bv[q][j] = to_tf32(e[q]);
            }
          } else {  // b[n][k]: one LDS.128 per column holds its 4 k
#pragma unroll
            for (int ni = 0; ni < 4; ++ni) {
              const float4 v =
                  *reinterpret_cast<const float4*>(bs + S::b_at(k, wn0 + 8 * group + 4 * gi + ni));
              const float e[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
              for (int j = 0; j < 4; ++j) bv[ni][j] = to_tf32(e[j]);
            }
          }
          // k-step s: slot tig is physical k 4 tig + 2 s, slot tig + 4 is 4 tig + 2 s + 1.
#pragma unroll
          for (int s = 0; s < 2; ++s) {
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) {
              const uint32_t af[4] = {av[mi][0][2 * s], av[mi][1][2 * s], av[mi][0][2 * s + 1],
                                      av[mi][1][2 * s + 1]};
#pragma unroll
              for (int ni = 0; ni < 4; ++ni) {
                const uint32_t bf[2] = {bv[ni][2 * s], bv[ni][2 * s + 1]};
                mma_tf32_m16n8k8(acc[mi][4 * gi + ni], af, bf);
              }
            }
          }
        }
      }
      read = read == T::kStages - 1 ? 0 : read + 1;
      write = write == T::kStages - 1 ? 0 : write + 1;
    }
    // C: acc[mi][ni][2 h + q] is row g + 8 h of tile mi, column 2 tig + q of tile ni, that is
    // global column n0 + wn0 + 16 tig + 8 q + ni: for each (mi, h, q) 8 consecutive columns.
    float* c = p.c + z * p.c_bs;
    const int e_tid = opaque(tid), e_group = e_tid % 32 / 4, e_tig = e_tid % 4;
    const int e_wm0 = (e_tid / 32 / T::WARPS_N) * T::WM, e_wn0 = (e_tid / 32 % T::WARPS_N) * T::WN;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = kAK ? e_wm0 + 16 * mi + 8 * h + e_group : e_wm0 + 8 * e_group + 2 * mi + h;
#pragma unroll
        for (int q = 0; q < 2; ++q) {
#pragma unroll
          for (int half = 0; half < 2; ++half) {
            const float run[4] = {acc[mi][4 * half][2 * h + q], acc[mi][4 * half + 1][2 * h + q],
                                  acc[mi][4 * half + 2][2 * h + q],
                                  acc[mi][4 * half + 3][2 * h + q]};
            store4(c, p.m, p.n, m0 + row, n0 + e_wn0 + 16 * e_tig + 8 * q + 4 * half, run);
          }
        }
      }
    }
    __syncthreads();  // every warp is done with the stages before the next batch refills them
  }
}

template <typename T>
struct Tf32Mma {
  static constexpr int kDynamicSharedBytes = static_cast<int>(Tf32Tile::kSharedBytes);  // > 48 KiB
  template <bool kAK, bool kBN>
  struct For {
    static constexpr auto kernel = &tf32_mma_kernel<kAK, kBN>;
  };
  static constexpr const char* kName = "09_tf32_mma";
  static auto kernel_for(const Problem<float>& p) { return kernel_for_layout<For>(p); }
  static dim3 block() { return dim3(Tf32Tile::kThreads); }
  static dim3 grid(const Problem<float>& p) {
    return tile_grid<dim3>(p.n, Tf32Tile::BN, p.m, Tf32Tile::BM, p.batch);
  }
  static bool fits(const Problem<float>& p) {
    return vector_ready(p) && ceil_div<int64_t>(p.m, Tf32Tile::BM) <= kMaxGridYZ;
  }
};

}  // namespace wick::gpu::gemm
