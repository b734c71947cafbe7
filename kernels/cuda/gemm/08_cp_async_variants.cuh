// 08_cp_async_variants.cuh: step 8 (08_cp_async.cuh) on other tile configurations, the sweep
// for the next GPU run. Selectable by name only (wick::set_matmul_kernel): the automatic choice
// keeps "08_cp_async" until a run has measured them (docs/gemm.md, "Step 8 variants").
// Why these (napkin maths for the H200, docs/gemm.md has the figures): with 8 x 8 results per
// thread, each k costs 64 FMAs and 4 shared loads of 128 bits, which at the FP32 peak asks the
// SM's shared memory for as many wavefronts as it serves (128 bytes a clock), and step 8 sits
// at 62% of cuBLAS. An 8 x 16 thread tile does 128 FMAs per 6 loads (75% of that bandwidth);
// bigger block tiles halve the L2 traffic per FMA of one of the operands; a third stage keeps
// two slices in flight while one is computed. The 8 x 16 tiles hold B's fragments 8 columns at
// a time (CpAsyncTile::kFragmentCols) to stay under 255 registers without spilling.
// Limits: as step 8 (float32, problem.hpp: vector_ready, any M, N, K, batches); sm_90 only
// (select.cpp's min_sm; the kernels hold a trap for older architectures, which keeps them out
// of those architectures' compile time), dynamic shared memory above 48 KiB.
#pragma once

#include "08_cp_async.cuh"

namespace wick::gpu::gemm {

// 128 x 256 x 16, warp tiles 64 x 64 (2 x 4 warps), 8 x 16 per thread, 3 stages (90 KiB).
template <typename T>
struct CpAsync128x256S3 : CpAsyncOn<CpAsyncTile<128, 256, 16, 64, 64, 8, 16, 3, 1>> {
  static constexpr const char* kName = "08_cp_async_128x256_s3";
};

// 256 x 128 x 16, warp tiles 64 x 64 (4 x 2 warps), 8 x 16 per thread, 3 stages (90 KiB).
template <typename T>
struct CpAsync256x128S3 : CpAsyncOn<CpAsyncTile<256, 128, 16, 64, 64, 8, 16, 3, 1>> {
  static constexpr const char* kName = "08_cp_async_256x128_s3";
};

// 128 x 128 x 16 with 128 threads (2 x 2 warps of 64 x 64), 8 x 16 per thread, 3 stages
// (60 KiB), at least 2 blocks per SM: the other blocks hide a block's barriers.
template <typename T>
struct CpAsync128x128T128S3 : CpAsyncOn<CpAsyncTile<128, 128, 16, 64, 64, 8, 16, 3, 2>> {
  static constexpr const char* kName = "08_cp_async_128x128_t128_s3";
};

// Step 8's own tile (128 x 128 x 16, 64 x 32, 8 x 8, 256 threads) with 3 stages (60 KiB): what
// one more slice in flight is worth on its own.
template <typename T>
struct CpAsync128x128S3 : CpAsyncOn<CpAsyncTile<128, 128, 16, 64, 32, 8, 8, 3, 1>> {
  static constexpr const char* kName = "08_cp_async_128x128_s3";
};

}  // namespace wick::gpu::gemm
