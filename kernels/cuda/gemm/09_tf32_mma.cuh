// 09_tf32_mma.cuh: step 9 of the matmul ladder. Tensor cores: TF32 inputs, FP32 accumulation,
// with the warp-level mma.sync instruction.
// Idea: a tensor core multiplies small matrix tiles in one instruction. mma.sync.m16n8k8 with
// .tf32 takes a 16 x 8 tile of A and an 8 x 8 tile of B, spread over the 32 lanes of a warp
// (4 and 2 registers per lane), and adds their product to a 16 x 8 FP32 tile (4 registers per
// lane). TF32 keeps float32's 8-bit exponent and 10 of its 23 mantissa bits (inputs are
// rounded with cvt.rna.tf32.f32), so results differ from FP32 by about 1e-3 relative: this
// kernel runs only when the user allows it (wick::set_allow_tf32(true), as PyTorch's
// torch.backends.cuda.matmul.allow_tf32) or forces it by name. The H200's dense TF32 peak is
// about 7x its FP32 FMA peak (495 against 67 TFLOP/s by the datasheet), so the bottleneck
// moves to feeding the tensor cores.
// Structure: step 8's pipeline (two cp.async stages of 128 x 128 x 16, padded so that the
// fragment loads below are free of bank conflicts); each of the 8 warps owns a 64 x 32 warp
// tile = 4 x 4 mma tiles of 16 x 8, so 64 accumulators per lane; per 8-wide k step a lane
// loads its 4 x 4 A fragment values and 4 x 2 B values from shared memory (fragment layouts
// of the PTX ISA: groupID = lane / 4, tig = lane % 4, A (g, tig), (g + 8, tig), (g, tig + 4),
// (g + 8, tig + 4); B (tig, g), (tig + 4, g); C (g, 2 tig), (g, 2 tig + 1), (g + 8, ...)).
// Limits: float32 data, TF32 arithmetic; operands as step 6 (problem.hpp: vector_ready);
// sm_80 and later (the dispatcher never picks it below; compiled for sm_75 it traps).
// Measured on the H200 at 4096^3 (2026-12-04): 49.2 TFLOP/s, 12% of cuBLAS TF32 (399.9).
#pragma once

#include <cstdint>

#include "08_cp_async.cuh"

namespace wick::gpu::gemm {

// float32 -> tf32 (round to nearest, ties away from zero, as cvt.rna.tf32.f32).
__device__ __forceinline__ uint32_t to_tf32(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
  return r;
#elif defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#elif !defined(__CUDACC__)
  return emulated_tf32(x);             // tests/cuda/cuda_emulator.hpp
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

template <int BK, bool kAK, bool kBN>
__global__ void __launch_bounds__(WarpGeometry::kThreads, 1) tf32_mma_kernel(Problem<float> p) {
  using G = WarpGeometry;  // its block and warp tiles; the lane layout is the mma's own
  using S = StageLayout<G::BM, G::BN, BK, kAK, kBN>;
  constexpr int MI = G::WM / 16, NI = G::WN / 8;  // 4 x 4 mma tiles per warp
  alignas(16) __shared__ float a_stages[2][S::kSizeA];
  alignas(16) __shared__ float b_stages[2][S::kSizeB];
  const int tid = static_cast<int>(threadIdx.x);
  const G g(tid);
  const int lane = tid % 32, group = lane / 4, tig = lane % 4;
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * G::BM;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * G::BN;
  const int64_t k_tiles = ceil_div<int64_t>(p.k, BK);
  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const float* a = p.a + z * p.a_bs;
    const float* b = p.b + z * p.b_bs;
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
      const float* as = a_stages[cur];
      const float* bs = b_stages[cur];
#pragma unroll
      for (int kb = 0; kb < BK; kb += 8) {
        uint32_t a_frag[MI][4], b_frag[NI][2];
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
          const int row = g.wm0 + mi * 16 + group;
          a_frag[mi][0] = to_tf32(as[S::a_at(row, kb + tig)]);
          a_frag[mi][1] = to_tf32(as[S::a_at(row + 8, kb + tig)]);
          a_frag[mi][2] = to_tf32(as[S::a_at(row, kb + tig + 4)]);
          a_frag[mi][3] = to_tf32(as[S::a_at(row + 8, kb + tig + 4)]);
        }
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
          const int col = g.wn0 + ni * 8 + group;
          b_frag[ni][0] = to_tf32(bs[S::b_at(kb + tig, col)]);
          b_frag[ni][1] = to_tf32(bs[S::b_at(kb + tig + 4, col)]);
        }
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
          for (int ni = 0; ni < NI; ++ni) mma_tf32_m16n8k8(acc[mi][ni], a_frag[mi], b_frag[ni]);
        }
      }
      __syncthreads();
    }
    float* c = p.c + z * p.c_bs;
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
      for (int ni = 0; ni < NI; ++ni) {
#pragma unroll
        for (int r = 0; r < 4; ++r) {
          const int64_t gm = m0 + g.wm0 + mi * 16 + group + (r >= 2 ? 8 : 0);
          const int64_t gn = n0 + g.wn0 + ni * 8 + 2 * tig + (r & 1);
          if (gm < p.m && gn < p.n) c[gm * p.n + gn] = acc[mi][ni][r];
        }
      }
    }
  }
}

template <typename T>
struct Tf32Mma {
  static constexpr int BK = 16;
  template <bool kAK, bool kBN>
  struct For {
    static constexpr auto kernel = &tf32_mma_kernel<BK, kAK, kBN>;
  };
  static constexpr const char* kName = "09_tf32_mma";
  static auto kernel_for(const Problem<float>& p) { return kernel_for_layout<For>(p); }
  static dim3 block() { return dim3(WarpGeometry::kThreads); }
  static dim3 grid(const Problem<float>& p) { return Warptile<float>::grid(p); }
  static bool fits(const Problem<float>& p) { return Warptile<float>::fits(p); }
};

}  // namespace wick::gpu::gemm
