// 13_wgmma_tf32.cuh: step 13 of the matmul ladder, for Hopper (sm_90a) only. float32 in, TF32
// products, FP32 accumulation, float32 out: step 12's kernel (11_wgmma_tma.cuh on the 128 x 256
// tile of 12_wgmma_wide.cuh) with wgmma.m64n256k8.f32.tf32.tf32 in place of the bfloat16 k16 form.
// Idea: on Hopper the TF32 tensor cores are driven by wgmma, as BF16's are (cuBLAS TF32 does so);
// step 9's mma.sync.m16n8k8 reaches 49 TFLOP/s, 12% of cuBLAS TF32 (400 at 4096^3 on the H200),
// because mma.sync feeds the tensor cores through registers, a warp at a time. The same pipeline
// as step 12 serves: TMA copies 128-byte rows of K with the 128-byte swizzle, which now hold 32
// floats instead of 64 bfloat16, so a stage is 128 x 32 of A and 256 x 32 of B^T (16 + 32 KiB, 4
// stages, 193 KiB), and each wgmma takes K = 8 (32 bytes of each row, as k16 of bfloat16 did: the
// descriptors and the k advance, +2 in the start field per instruction, are step 11's).
// TF32 for wgmma must be K-major on both sides (the PTX ISA gives .tf32 no transpose immediates),
// which is also what TMA writes for A row-major and B a transposed view.
// Rounding: wgmma reads the float32 bit patterns and, per the PTX ISA, "will truncate lower 13 bits
// of the 32-bit input data before multiplication is issued": inputs become TF32 by truncation
// toward zero (a relative error up to 2^-10 per input), where step 9 rounds to nearest with
// cvt.rna.tf32.f32 (up to 2^-11). A product shrinks by up to 2^-9 of itself, about 7e-4 on
// average: a bias toward zero, so the matmul's Frobenius error is about 7e-4 to 9e-4 of the norm
// (the emulator, which truncates likewise), against 2.9e-4 measured for step 9; the tests allow
// 2e-3. (cuBLAS TF32 measured 2.9e-4 too: whether the H200 truncates as documented is for the
// first GPU run's rel_err to say; docs/gemm.md, step 13.)
// Bytes per FLOP: a stage brings 48 KiB for 2 x 128 x 256 x 32 = 2.1 MFLOP, 0.0234 bytes a FLOP
// from L2, twice step 12's 0.0117 (a float is twice a bfloat16, a wgmma does half the K); each
// wgmma reads 2 KiB of A and 8 KiB of B from shared memory for 262144 FLOPs, 0.039 bytes a FLOP,
// twice step 12's. The TF32 tensor cores run at half the BF16 rate (495 against 989 dense
// TFLOP/s on an H100 SXM), so bytes per second stay those of step 12 at the same fraction of
// peak: the kernel is step 12's machine, at half the FLOP rate.
// Limits: float32 only; A row-major (K contiguous) and B a transposed view of a K-contiguous
// [N, K] tensor (x @ W.t()); rows and batch strides in multiples of 4 floats on 16-byte aligned
// bases (wgmma_tma_fits<float>); sm_90 devices from a build with sm_90a code. A row-major B is not
// taken (no transposing copy): the dispatcher runs the automatic float32 choice instead.
// Selection: by name only (set_matmul_kernel("13_wgmma_tf32")) until a GPU has measured it; the
// automatic TF32 choice (set_allow_tf32(true)) stays step 9.
// Predicted, not measured: 270 to 320 TFLOP/s at 4096^3, 67 to 80% of cuBLAS TF32's 400. In bytes
// per second and per stage it is step 12's kernel (same bytes, same instruction count, each
// instruction the same tensor-core time), so it should reach of cuBLAS TF32 what step 12 reaches
// of cuBLAS BF16: between step 11's measured 67% and step 12's predicted 77 to 82%. docs/gemm.md,
// step 13, has the reasoning.
#pragma once

#include <type_traits>

#include "11_wgmma_tma.cuh"
#include "wgmma_shape.hpp"

namespace wick::gpu::gemm {

// Launched as wgmma_tma_kernel<WgmmaTf32Geometry> (gemm/hopper.cu: launch_wgmma_tf32); the tile is
// defined in wgmma_shape.hpp so that the host-only dispatcher and tests see it.
static_assert(std::is_same_v<WgmmaTf32Geometry::Element, float>);
static_assert(WgmmaTf32Geometry::BM == 128 && WgmmaTf32Geometry::BN == 256 &&
              WgmmaTf32Geometry::BK == 32 && WgmmaTf32Geometry::kInstructionK == 8);
// 128 bytes of K per row: the 128-byte swizzle's span, which the descriptors assume.
static_assert(WgmmaTf32Geometry::BK * sizeof(float) == 128);
static_assert(WgmmaTf32Geometry::kStageBytes == 48 * 1024 &&
              WgmmaTf32Geometry::kSharedBytes <= 227 * 1024);

}  // namespace wick::gpu::gemm
