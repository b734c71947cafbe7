// 12_wgmma_wide.cuh: step 12 of the matmul ladder, for Hopper (sm_90a) only. Step 11's kernel
// (11_wgmma_tma.cuh) on a wider tile: 128 x 256 per block instead of 128 x 128, each of the two
// consumer warpgroups computing 64 x 256 with wgmma.m64n256k16 (128 FP32 accumulators per
// thread instead of 64).
// Idea: reuse. Every byte a stage brings into shared memory now feeds more FLOPs: per K tile a
// block loads (128 + 256) x 64 bfloat16 = 48 KiB for 2 x 128 x 256 x 64 = 4.2 MFLOP, 0.0117
// bytes a FLOP from L2, against step 11's 32 KiB for 2.1 MFLOP, 0.0156 (25% less traffic); and
// each wgmma reads 2 KiB of A and 8 KiB of B from shared memory for 524288 FLOPs, 0.0195 bytes a
// FLOP against 0.0234 with N = 128 (17% less), so the tensor cores wait less on shared memory.
// Half as many blocks, TMA copies and barrier round trips per FLOP.
// The cost is registers: 128 accumulators per consumer thread, which the setmaxnreg budget
// (producer 40, consumers 232; 128 x 40 + 256 x 232 = 64512 of the SM's 65536) leaves room
// for; and shared memory: 4 stages of 48 KiB (16 KiB of A, 32 KiB of B^T), 193 KiB in all.
// Limits: as step 11 (bfloat16, both operands K-major, rows of multiples of 8 elements on 16-byte
// aligned bases, sm_90 devices with sm_90a code built; wgmma_tma_fits); edge tiles come from
// TMA's zero fill, so any N works, but an N far from a multiple of 256 wastes up to half a tile.
// The automatic choice stays step 11 until this is measured: set_matmul_kernel("12_wgmma_wide").
// Predicted: about 600 to 640 TFLOP/s at 4096^3 (77 to 82% of cuBLAS BF16's 781), not yet
// measured (published hand-written Hopper kernels gain about 10 to 15 points of cuBLAS going from
// 128 x 128 to 128 x 256 tiles; step 11 measured 525, 67%).
#pragma once

#include "11_wgmma_tma.cuh"
#include "wgmma_shape.hpp"

namespace wick::gpu::gemm {

// Launched as wgmma_tma_kernel<WgmmaWideGeometry> (gemm/hopper.cu: launch_wgmma_wide); the tile
// is defined in wgmma_shape.hpp so that the host-only dispatcher and tests see it.
static_assert(WgmmaWideGeometry::BN == 256 && WgmmaWideGeometry::BM == 128 &&
              WgmmaWideGeometry::kStages == 4);
static_assert(WgmmaWideGeometry::kStageBytes == 48 * 1024 &&
              WgmmaWideGeometry::kSharedBytes <= 227 * 1024);
// 128 accumulators, plus about 40 registers of addresses, descriptors and loop state.
static_assert(WgmmaWideGeometry::BN / 2 + 40 <= WgmmaWideGeometry::kConsumerRegisters);

}  // namespace wick::gpu::gemm
