// select.cpp: the matmul kernel choice (select.hpp).
// The automatic rule, for a float32 matmul whose operands allow 128-bit loads:
//  - TF32 tensor cores (step 9) on sm_80+ when the user allowed TF32;
//  - else step 8 (cp.async double buffering) on sm_80+, step 7 (warp tiles) before;
//  - but step 5 with its 64 x 64 tiles when the 128 x 128 tiles would not give every SM a
//    block: a half-empty device loses more than the smaller tiles cost.
// Everything else (float64, int64, strided views, misaligned bases) runs step 5, which takes
// any layout. bfloat16 runs step 11 (wgmma and TMA) on an sm_90 device when the build has its
// sm_90a code and both operands are K-major; else step 10 (BF16 mma.sync) on sm_80+ when its
// operands allow 128-bit loads; else float32 copies through the float32 choice, rounded once
// (ladder.cu: "05_blocktile_2d" is returned then, and last_matmul_kernel() names the float32
// kernel that ran). Step 12 (step 11 on 128 x 256 tiles) takes what step 11 takes, but runs only
// when asked for by name until a GPU has measured it; so do step 13 (float32 with TF32 wgmma,
// K-major operands as step 11's) and step 8's tile variants ("08_cp_async_128x256_s3" ...:
// step 8's limits, sm_90 only: tuned for the H200). by_name_only marks them. These thresholds
// are reasoned, not yet measured: no GPU was lent while they were written; bench/gpu's ladder
// runs say where they should move (docs/gemm.md).
#include "select.hpp"

namespace wick::gpu::gemm {
namespace {

constexpr int64_t kGridLimit = 65535;

constexpr LadderKernel kLadder[] = {
    {"01_naive", true, false, 0, 0, 32},
    {"02_coalesced", true, false, 0, 32, 0},
    {"03_shared_tiles", true, false, 0, 32, 0},
    {"04_blocktile_1d", true, false, 0, 64, 0},
    {"05_blocktile_2d", false, false, 0, 0, 0},  // loops over M tiles: no limit
    {"06_vectorized", true, true, 0, 128, 0},
    {"07_warptile", true, true, 0, 128, 0},
    {"08_cp_async", true, true, 80, 128, 0},
    // Step 8's tile variants (08_cp_async_variants.cuh): by name only until a GPU measures them.
    {"08_cp_async_128x256_s3", true, true, 90, 128, 0, false, false, true},
    {"08_cp_async_256x128_s3", true, true, 90, 256, 0, false, false, true},
    {"08_cp_async_128x128_t128_s3", true, true, 90, 128, 0, false, false, true},
    {"08_cp_async_128x128_s3", true, true, 90, 128, 0, false, false, true},
    {"09_tf32_mma", true, true, 80, 128, 0},
    {"10_bf16_mma", false, true, 80, 128, 0, true},
    {"11_wgmma_tma", false, true, 90, 128, 0, true, true},
    {"12_wgmma_wide", false, true, 90, 128, 0, true, true, true},  // by name only: unmeasured
    // float32 in, TF32 wgmma (step 12's pipeline). By name only, not even with set_allow_tf32(true)
    // (step 9 stays the automatic TF32 choice) until a GPU has measured it.
    {"13_wgmma_tf32", true, true, 90, 128, 0, false, true, true},
};

bool fits(int64_t extent, int64_t tile) {
  return tile == 0 || (extent + tile - 1) / tile <= kGridLimit;
}

}  // namespace

std::span<const LadderKernel> ladder_kernels() { return kLadder; }

bool can_take(std::string_view name, const MatmulFacts& f) {
  if (name == "cublas") return f.cublas_ok;
  for (const LadderKernel& kernel : kLadder) {
    if (name != kernel.name) continue;
    if (kernel.bf16_only != (f.type == ElementType::BFloat16)) return false;
    if (kernel.float32_only && f.type != ElementType::Float32) return false;
    if (kernel.needs_vector && !f.vector_ready) return false;
    if (f.sm < kernel.min_sm) return false;
    if (kernel.needs_hopper && !(f.hopper && f.k_major && f.sm == 90)) return false;
    return fits(f.m, kernel.max_m_tile) && fits(f.n, kernel.max_n_tile);
  }
  return false;
}

const char* automatic_kernel(const MatmulFacts& f, bool allow_tf32) {
  if (f.type == ElementType::BFloat16) {
    if (can_take("11_wgmma_tma", f)) return "11_wgmma_tma";
    return can_take("10_bf16_mma", f) ? "10_bf16_mma" : "05_blocktile_2d";
  }
  if (f.type != ElementType::Float32 || !f.vector_ready) return "05_blocktile_2d";
  const int64_t big_tiles = ((f.m + 127) / 128) * ((f.n + 127) / 128) * f.batch;
  if (big_tiles < f.sm_count) return "05_blocktile_2d";
  const char* order[] = {allow_tf32 ? "09_tf32_mma" : "08_cp_async", "08_cp_async", "07_warptile"};
  for (const char* name : order) {
    if (can_take(name, f)) return name;
  }
  return "05_blocktile_2d";
}

const char* choose_kernel(const MatmulFacts& f, std::string_view requested, bool allow_tf32) {
  if (requested == "cublas" && f.cublas_ok) return "cublas";
  for (const LadderKernel& kernel : kLadder) {
    if (requested == kernel.name && can_take(kernel.name, f)) return kernel.name;
  }
  return automatic_kernel(f, allow_tf32);
}

}  // namespace wick::gpu::gemm
