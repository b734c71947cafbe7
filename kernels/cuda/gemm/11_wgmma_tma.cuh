// 11_wgmma_tma.cuh: step 11 of the matmul ladder, for Hopper (sm_90a) only. bfloat16 in, FP32
// accumulation, bfloat16 out, as step 10, with Hopper's two engines for matrices:
//  - the tensor memory accelerator (TMA) copies whole tiles from global to shared memory on
//    its own: one thread issues a copy of a 128 x 64 box, the hardware computes the addresses,
//    applies the 128-byte swizzle that keeps shared-memory reads free of bank conflicts, fills
//    what lies outside the matrix with zeros (so edge tiles need no code), and counts the bytes
//    in on an mbarrier;
//  - wgmma: a warpgroup (4 warps) multiplies 64 x 16 by 16 x 128 straight from shared memory,
//    asynchronously, 131072 FMAs an instruction, with no fragment loads through registers.
// Warp specialisation: the block's 3 warpgroups are one producer, whose single elected thread
// keeps a ring of 4 shared-memory stages (128 x 64 of A and 128 x 64 of B^T, 16 KiB each,
// 32 KiB a stage) filled with TMA, and two consumers, each multiplying 64 rows of the block's
// 128 x 128 tile.
// Two barriers per stage hand it over: `full` (the producer's expected bytes have landed) and
// `empty` (all 256 consumer threads are done reading it: each releases a stage once the
// wgmmas after it are issued, keeping one group in flight across the wait for the next). The
// producer gives registers up (setmaxnreg 40) so the consumers can hold their 64 accumulators and
// more (232). Limits: bfloat16; A row-major (K contiguous) and B a transposed view (B^T row-major,
// so K is contiguous too: x @ W.t() of a Linear layer is the case): the 128-byte swizzled K-major
// layout both wgmma and TMA take without transposition; rows of a multiple of 8 elements on 16-byte
// aligned bases (TMA's rules); sm_90 devices only, from a build that includes sm_90a code (the
// dispatcher checks both). A row-major B goes to step 10.
// Measured on the H200 at 4096^3 (2026-12-04): 525.3 TFLOP/s, 67% of cuBLAS BF16 (781.0).
#pragma once

#include <cstdint>

#include "../dynamic_shared.cuh"
#include "10_bf16_mma.cuh"
#include "hopper_ptx.cuh"
#include "wgmma_shape.hpp"
#include "wick/bfloat16.hpp"

namespace wick::gpu::gemm {

// map_a: A as a [batch][M][K] tensor (box BK x BM x 1); map_b: B^T as [batch][N][K] (box
// BK x BN x 1). A batch coordinate of 0 is used for an operand broadcast over the batch (its map
// has one batch). G: the tile and element type (wgmma_shape.hpp), WgmmaGeometry here,
// WgmmaWideGeometry in step 12 (12_wgmma_wide.cuh), WgmmaTf32Geometry (float32 in and out, TF32
// products) in step 13 (13_wgmma_tf32.cuh). (A template also so that only gemm/hopper.cu,
// compiled for sm_90a, instantiates it.)
template <typename G = WgmmaGeometry>
__global__ void __launch_bounds__(G::kThreads, 1)
    wgmma_tma_kernel(Problem<typename G::Element> p, const __grid_constant__ TmaMap map_a,
                     const __grid_constant__ TmaMap map_b, int a_batched, int b_batched) {
#if defined(__CUDA_ARCH__) && !WICK_SM90A
  __trap();  // compiled for another architecture: the dispatcher never launches it there
#else
  unsigned char* raw = dynamic_shared();
  // Stages on a 1024-byte boundary of the shared window, as the swizzle pattern repeats.
  const uint32_t base = smem_address(raw);
  unsigned char* stages = raw + ((1024 - (base & 1023)) & 1023);
  auto* full = reinterpret_cast<uint64_t*>(stages + G::kStages * G::kStageBytes);
  uint64_t* empty = full + G::kStages;
  const int tid = static_cast<int>(threadIdx.x);
  const int warpgroup = tid / 128;
  if (tid == 0) {
    for (int s = 0; s < G::kStages; ++s) {
      mbar_init(&full[s], 1);     // the producer's arrive, plus its expected bytes
      mbar_init(&empty[s], 256);  // every consumer thread
    }
    mbar_init_fence();
  }
  __syncthreads();
  const int64_t m0 = static_cast<int64_t>(blockIdx.y) * G::BM;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * G::BN;
  const int64_t k_tiles = ceil_div<int64_t>(p.k, G::BK);
  if (warpgroup == 0) {
    setmaxnreg_dec<G::kProducerRegisters>();
    if (tid != 0) return;  // one thread issues every copy
    int64_t t = 0;         // the stage ring runs on across batches
    for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
      for (int64_t kt = 0; kt < k_tiles; ++kt, ++t) {
        const int s = static_cast<int>(t % G::kStages);
        const auto round = static_cast<uint32_t>(t / G::kStages);
        mbar_wait(&empty[s], (round & 1) ^ 1);  // the first round finds every stage free
        unsigned char* a_tile = stages + s * G::kStageBytes;
        mbar_arrive_expect_tx(&full[s], G::kStageBytes);
        const auto k0 = static_cast<int32_t>(kt * G::BK);
        tma_load_3d(a_tile, &map_a, k0, static_cast<int32_t>(m0),
                    a_batched ? static_cast<int32_t>(z) : 0, &full[s]);
        tma_load_3d(a_tile + G::kATileBytes, &map_b, k0, static_cast<int32_t>(n0),
                    b_batched ? static_cast<int32_t>(z) : 0, &full[s]);
      }
    }
    return;
  }
  setmaxnreg_inc<G::kConsumerRegisters>();
  const int consumer = warpgroup - 1;       // rows 64 consumer .. 64 consumer + 63 of the tile
  constexpr int kAccumulators = G::BN / 2;  // per thread: 64 x BN over 128 threads
  const int lane = tid % 32, warp = (tid % 128) / 32, group = lane / 4, tig = lane % 4;
  int64_t t = 0;
  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
    float acc[kAccumulators];
#pragma unroll
    for (int i = 0; i < kAccumulators; ++i) acc[i] = 0.f;
    for (int64_t kt = 0; kt < k_tiles; ++kt, ++t) {
      const int s = static_cast<int>(t % G::kStages);
      mbar_wait(&full[s], static_cast<uint32_t>(t / G::kStages) & 1);
      const unsigned char* a_tile = stages + s * G::kStageBytes + consumer * 64 * 128;
      const unsigned char* b_tile = stages + s * G::kStageBytes + G::kATileBytes;
      const uint64_t desc_a = wgmma_desc(a_tile), desc_b = wgmma_desc(b_tile);
      wgmma_fence_operands(acc);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < G::BK / G::kInstructionK; ++kk) {
        // One instruction's K (16 bfloat16 or 8 TF32): 32 bytes further along every swizzled
        // 128-byte row (2 in the field).
        wgmma_m64nN<typename G::Element, G::BN>(acc, desc_a + 2 * kk, desc_b + 2 * kk, 1);
      }
      wgmma_commit();
      // One group stays in flight while the next stage is awaited: waiting for all but the
      // newest means the previous stage's wgmmas are done reading, so that stage is released.
      wgmma_wait<1>();
      if (kt > 0) mbar_arrive(&empty[(t - 1) % G::kStages]);
    }
    wgmma_wait<0>();
    wgmma_fence_operands(acc);
    if (k_tiles > 0) mbar_arrive(&empty[(t - 1) % G::kStages]);
    // Write the 64 x BN FP32 tile as the element type (bfloat16 rounds, float32 is exact), in
    // the accumulators' layout (hopper_ptx.cuh).
    typename G::Element* c = p.c + z * p.c_bs;
    const int64_t row0 = m0 + consumer * 64 + warp * 16 + group;
#pragma unroll
    for (int i = 0; i < G::BN / 8; ++i) {
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        const int64_t gm = row0 + (r >= 2 ? 8 : 0);
        const int64_t gn = n0 + 8 * i + 2 * tig + (r & 1);
        if (gm < p.m && gn < p.n) c[gm * p.n + gn] = typename G::Element(acc[4 * i + r]);
      }
    }
  }
#endif
}

}  // namespace wick::gpu::gemm
