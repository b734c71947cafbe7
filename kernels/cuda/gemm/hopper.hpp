// hopper.hpp: step 11 of the matmul ladder (11_wgmma_tma.cuh), launched from gemm/hopper.cu,
// the one file compiled for sm_90a. ladder.cu calls it only in builds that have that file
// (WICK_HOPPER_KERNEL) and only on sm_90 devices.
#pragma once

#include "common.cuh"
#include "gemm/problem.hpp"
#include "wick/bfloat16.hpp"

namespace wick::gpu {

// Whether step 11 can launch on ctx.device (the current device): the driver has the tensor-map
// encoder, and the kernel was granted its shared memory. Asked once per device, then remembered.
bool wgmma_tma_ready(const OpContext& ctx);

// C = A @ B for a bfloat16 problem that gemm::wgmma_tma_fits() accepts, on a device for which
// wgmma_tma_ready() said yes (the matmul dispatcher asks it once per matmul, not per launch).
void launch_wgmma_tma(const OpContext& ctx, const gemm::Problem<BFloat16>& p);

}  // namespace wick::gpu
