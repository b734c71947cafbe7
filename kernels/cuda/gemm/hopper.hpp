// hopper.hpp: steps 11 to 13 of the matmul ladder (11_wgmma_tma.cuh, 12_wgmma_wide.cuh,
// 13_wgmma_tf32.cuh), launched from gemm/hopper.cu, the one file compiled for sm_90a. ladder.cu
// calls them only in builds that have that file (WICK_HOPPER_KERNEL) and only on sm_90 devices.
#pragma once

#include "common.cuh"
#include "gemm/problem.hpp"
#include "wick/bfloat16.hpp"

namespace wick::gpu {

// Whether steps 11 to 13 can launch on ctx.device (the current device): the driver has the
// tensor-map encoder, and the three tiles' kernels were granted their shared memory. Asked once per
// device, then remembered.
bool wgmma_tma_ready(const OpContext& ctx);

// C = A @ B for a bfloat16 problem that gemm::wgmma_tma_fits() accepts, on a device for which
// wgmma_tma_ready() said yes (the matmul dispatcher asks it once per matmul, not per launch).
void launch_wgmma_tma(const OpContext& ctx, const gemm::Problem<BFloat16>& p);
// The same with step 12's 128 x 256 tile (12_wgmma_wide.cuh), for the same problems.
void launch_wgmma_wide(const OpContext& ctx, const gemm::Problem<BFloat16>& p);
// C = A @ B for a float32 problem that gemm::wgmma_tma_fits() accepts, with TF32 products (step
// 13, 13_wgmma_tf32.cuh: step 12's tile and pipeline).
void launch_wgmma_tf32(const OpContext& ctx, const gemm::Problem<float>& p);

}  // namespace wick::gpu
