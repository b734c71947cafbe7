// test_ladder_choice.cpp: the matmul ladder's kernel choice (kernels/cuda/gemm/select.cpp),
// checked on the host of every machine (CI included), with no GPU: core's kernel names are the
// ladder's, the automatic choice per dtype, shape and architecture, a forced kernel's fallback,
// step 8's by-name-only variants, and which operands the 128-bit loads can read. Part of
// wick_cuda_host_tests (test_host.cpp has the allocator and no-GPU cases).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "gemm/problem.hpp"
#include "gemm/select.hpp"
#include "gemm/wgmma_shape.hpp"
#include "wick/matmul_backend.hpp"
#include "wick/wick.hpp"

using namespace wick;

namespace {

gpu::gemm::MatmulFacts facts_for(int64_t m, int64_t n, int64_t k, int sm) {
  gpu::gemm::MatmulFacts f;
  f.type = gpu::gemm::ElementType::Float32;
  f.vector_ready = true;
  f.cublas_ok = true;
  f.m = m, f.n = n, f.k = k;
  f.sm = sm;
  f.sm_count = 132;
  return f;
}

}  // namespace

TEST_CASE("matmul ladder: core's kernel names are the ladder's", "[gemm][host]") {
  const auto names = matmul_kernel_names();
  const auto ladder = gpu::gemm::ladder_kernels();
  REQUIRE(names.size() == ladder.size() + 2);
  CHECK(std::string(names[0]) == "auto");
  CHECK(std::string(names[1]) == "cublas");
  for (size_t i = 0; i < ladder.size(); ++i) CHECK(std::string(names[i + 2]) == ladder[i].name);
}

TEST_CASE("matmul ladder: the automatic choice", "[gemm][host]") {
  using gpu::gemm::automatic_kernel;
  using gpu::gemm::choose_kernel;
  using std::string;
  auto f = facts_for(4096, 4096, 4096, 90);
  CHECK(string(automatic_kernel(f, false)) == "08_cp_async");
  CHECK(string(automatic_kernel(f, true)) == "09_tf32_mma");
  f.sm = 75;  // no cp.async, no mma.sync tf32
  CHECK(string(automatic_kernel(f, true)) == "07_warptile");
  f.sm = 90;
  f.vector_ready = false;  // a strided view or a misaligned base
  CHECK(string(automatic_kernel(f, true)) == "05_blocktile_2d");
  f.vector_ready = true;
  f.type = gpu::gemm::ElementType::Float64;
  CHECK(string(automatic_kernel(f, false)) == "05_blocktile_2d");
  // Too few 128 x 128 tiles for 132 SMs (8 x 8 = 64): the general kernel's small tiles.
  CHECK(string(automatic_kernel(facts_for(1000, 1000, 1000, 90), false)) == "05_blocktile_2d");
  auto batched = facts_for(1000, 1000, 64, 90);
  batched.batch = 4;  // 256 tiles
  CHECK(string(automatic_kernel(batched, false)) == "08_cp_async");
  // bfloat16: step 10 whenever it can take it, whatever the size; else float32 through step 5.
  auto h = facts_for(64, 64, 64, 90);
  h.type = gpu::gemm::ElementType::BFloat16;
  CHECK(string(automatic_kernel(h, false)) == "10_bf16_mma");
  h.sm = 75;
  CHECK(string(automatic_kernel(h, false)) == "05_blocktile_2d");
  h.sm = 80;
  h.vector_ready = false;
  CHECK(string(automatic_kernel(h, false)) == "05_blocktile_2d");
  // No float step takes bfloat16, and step 10 takes nothing else.
  f = facts_for(4096, 4096, 4096, 90);
  CHECK(string(choose_kernel(f, "10_bf16_mma", false)) == "08_cp_async");
  h = facts_for(4096, 4096, 4096, 90);
  h.type = gpu::gemm::ElementType::BFloat16;
  CHECK(string(choose_kernel(h, "08_cp_async", false)) == "10_bf16_mma");
  CHECK(string(choose_kernel(h, "05_blocktile_2d", false)) == "10_bf16_mma");
  CHECK(string(choose_kernel(h, "cublas", false)) == "cublas");
  // Step 11: sm_90 exactly, its sm_90a code in the build, both operands K-major.
  CHECK(string(choose_kernel(h, "11_wgmma_tma", false)) == "10_bf16_mma");  // not built
  CHECK(string(choose_kernel(h, "12_wgmma_wide", false)) == "10_bf16_mma");
  h.hopper = true;
  CHECK(string(choose_kernel(h, "11_wgmma_tma", false)) == "10_bf16_mma");  // B row-major
  CHECK(string(choose_kernel(h, "12_wgmma_wide", false)) == "10_bf16_mma");
  h.k_major = true;
  CHECK(string(automatic_kernel(h, false)) == "11_wgmma_tma");
  CHECK(string(choose_kernel(h, "10_bf16_mma", false)) == "10_bf16_mma");  // still forceable
  // Step 12 (128 x 256 tiles) takes what step 11 takes, but only by name: it is unmeasured.
  CHECK(string(choose_kernel(h, "12_wgmma_wide", false)) == "12_wgmma_wide");
  CHECK(string(choose_kernel(h, "auto", false)) == "11_wgmma_tma");
  for (const int64_t n : {1, 200, 257, 4096 + 8}) {  // N of no multiple of 256: TMA's zero fill
    auto odd = h;
    odd.n = n;
    CHECK(string(automatic_kernel(odd, false)) == "11_wgmma_tma");
    CHECK(string(choose_kernel(odd, "12_wgmma_wide", false)) == "12_wgmma_wide");
  }
  h.sm = 100;  // sm_90a code does not run on later architectures
  CHECK(string(automatic_kernel(h, false)) == "10_bf16_mma");
  CHECK(string(choose_kernel(h, "12_wgmma_wide", false)) == "10_bf16_mma");
  // ... nor does a later device with a build capped at compute_90 say so through `sm`.
  CHECK(gpu::gemm::hopper_code_runs(true, 9, 0));
  CHECK_FALSE(gpu::gemm::hopper_code_runs(false, 9, 0));
  CHECK_FALSE(gpu::gemm::hopper_code_runs(true, 10, 0));
  CHECK_FALSE(gpu::gemm::hopper_code_runs(true, 12, 0));
  CHECK_FALSE(gpu::gemm::hopper_code_runs(true, 8, 9));
  h.sm = 89;
  CHECK(string(automatic_kernel(h, false)) == "10_bf16_mma");
  CHECK(string(choose_kernel(h, "12_wgmma_wide", false)) == "10_bf16_mma");
  h.sm = 90;
  h.vector_ready = false;  // K-major but misaligned for 16-byte loads: neither 10 nor 11
  h.k_major = false;
  CHECK(string(automatic_kernel(h, false)) == "05_blocktile_2d");
  // Step 13 (float32, TF32 wgmma): by name only, on what step 11 would take in bfloat16; never
  // automatic, not even with TF32 allowed (unmeasured); float32 only.
  f = facts_for(4096, 4096, 4096, 90);
  CHECK(string(choose_kernel(f, "13_wgmma_tf32", true)) == "09_tf32_mma");  // not built here
  f.hopper = true;
  CHECK(string(choose_kernel(f, "13_wgmma_tf32", true)) == "09_tf32_mma");  // B row-major
  CHECK(string(choose_kernel(f, "13_wgmma_tf32", false)) == "08_cp_async");
  f.k_major = true;
  CHECK(string(choose_kernel(f, "13_wgmma_tf32", false)) == "13_wgmma_tf32");
  CHECK(string(choose_kernel(f, "13_wgmma_tf32", true)) == "13_wgmma_tf32");
  CHECK(string(automatic_kernel(f, true)) == "09_tf32_mma");
  CHECK(string(automatic_kernel(f, false)) == "08_cp_async");
  CHECK(string(choose_kernel(f, "auto", true)) == "09_tf32_mma");
  for (const int64_t n : {1, 200, 257, 4096 + 4}) {  // N of no multiple of 256: TMA's zero fill
    auto odd = f;
    odd.n = n;
    CHECK(string(choose_kernel(odd, "13_wgmma_tf32", true)) == "13_wgmma_tf32");
  }
  f.sm = 100;  // sm_90a code only
  CHECK(string(choose_kernel(f, "13_wgmma_tf32", true)) == "09_tf32_mma");
  f.sm = 89;
  CHECK(string(choose_kernel(f, "13_wgmma_tf32", false)) == "08_cp_async");
  f.sm = 90;
  f.type = gpu::gemm::ElementType::BFloat16;  // bfloat16 goes to its own steps
  CHECK(string(choose_kernel(f, "13_wgmma_tf32", false)) == "11_wgmma_tma");
  f.type = gpu::gemm::ElementType::Float64;
  f.vector_ready = false;
  CHECK(string(choose_kernel(f, "13_wgmma_tf32", true)) == "05_blocktile_2d");
}

TEST_CASE("matmul ladder: a forced kernel runs what it can take, else the automatic choice",
          "[gemm][host]") {
  using gpu::gemm::choose_kernel;
  using std::string;
  auto f = facts_for(512, 512, 512, 90);
  f.hopper = true;
  f.k_major = true;
  for (const auto& kernel : gpu::gemm::ladder_kernels()) {
    f.type = kernel.bf16_only ? gpu::gemm::ElementType::BFloat16 : gpu::gemm::ElementType::Float32;
    CHECK(string(choose_kernel(f, kernel.name, false)) == kernel.name);
  }
  f.type = gpu::gemm::ElementType::Float32;
  CHECK(string(choose_kernel(f, "cublas", false)) == "cublas");
  CHECK(string(choose_kernel(f, "auto", false)) == "05_blocktile_2d");  // 16 tiles, 132 SMs
  CHECK(string(choose_kernel(facts_for(4096, 4096, 64, 90), "auto", false)) == "08_cp_async");
  f.type = gpu::gemm::ElementType::Int64;
  f.vector_ready = false;
  f.cublas_ok = false;  // cuBLAS has no int64 GEMM
  CHECK(string(choose_kernel(f, "cublas", false)) == "05_blocktile_2d");
  CHECK(string(choose_kernel(f, "07_warptile", false)) == "05_blocktile_2d");
  f = facts_for(512, 512, 512, 80);
  f.vector_ready = false;
  CHECK(string(choose_kernel(f, "03_shared_tiles", false)) == "03_shared_tiles");
  CHECK(string(choose_kernel(f, "06_vectorized", false)) == "05_blocktile_2d");
  f = facts_for(4096, 4096, 512, 75);
  CHECK(string(choose_kernel(f, "09_tf32_mma", true)) == "07_warptile");
  // Grid limits: step 2 puts M / 32 on grid y (at most 65535).
  f = facts_for(65535 * 32 + 1, 8, 8, 90);
  CHECK(string(choose_kernel(f, "02_coalesced", false)) != "02_coalesced");
  CHECK(string(choose_kernel(f, "06_vectorized", false)) == "06_vectorized");  // M / 128 fits
  f = facts_for(8, 65535 * 32 + 1, 8, 90);
  CHECK(string(choose_kernel(f, "01_naive", false)) != "01_naive");
}

TEST_CASE("matmul ladder: step 8's tile variants run by name only", "[gemm][host]") {
  using gpu::gemm::automatic_kernel;
  using gpu::gemm::choose_kernel;
  using std::string;
  std::vector<string> variants;
  for (const auto& kernel : gpu::gemm::ladder_kernels()) {
    const string name = kernel.name;
    if (name.rfind("08_cp_async_", 0) == 0) {
      variants.push_back(name);
      CHECK(kernel.by_name_only);
    }
  }
  CHECK(variants.size() == 4);
  // Never the automatic choice, whatever the facts (by_name_only kernels: step 12 as well).
  for (const int sm : {75, 80, 86, 89, 90, 100}) {
    for (const int64_t size : {1, 127, 1000, 2048, 4096, 65535 * 128 + 1}) {
      for (const bool tf32 : {false, true}) {
        auto f = facts_for(size, size, size, sm);
        for (const auto type :
             {gpu::gemm::ElementType::Float32, gpu::gemm::ElementType::BFloat16}) {
          f.type = type;
          f.hopper = f.k_major = true;
          const string chosen = automatic_kernel(f, tf32);
          for (const auto& kernel : gpu::gemm::ladder_kernels()) {
            if (kernel.by_name_only) CHECK(chosen != kernel.name);
          }
        }
      }
    }
  }
  for (const string& name : variants) {
    INFO(name);
    // By name: what step 8 takes (float32, 128-bit loads) on sm_90 (the H200 they are tuned
    // for; no code before), else the automatic choice.
    CHECK(string(choose_kernel(facts_for(4096, 4096, 4096, 90), name, false)) == name);
    CHECK(string(choose_kernel(facts_for(1, 7, 33, 90), name, true)) == name);
    CHECK(string(choose_kernel(facts_for(4096, 4096, 4096, 89), name, false)) == "08_cp_async");
    CHECK(string(choose_kernel(facts_for(4096, 4096, 4096, 80), name, true)) == "09_tf32_mma");
    CHECK(string(choose_kernel(facts_for(4096, 4096, 4096, 75), name, false)) == "07_warptile");
    auto strided = facts_for(4096, 4096, 4096, 90);
    strided.vector_ready = false;
    CHECK(string(choose_kernel(strided, name, false)) == "05_blocktile_2d");
    auto f64 = facts_for(4096, 4096, 4096, 90);
    f64.type = gpu::gemm::ElementType::Float64;
    CHECK(string(choose_kernel(f64, name, false)) == "05_blocktile_2d");
    // M tiles on grid y: at most 65535 of the variant's block rows (128 or 256).
    const int64_t tile_m = name == "08_cp_async_256x128_s3" ? 256 : 128;
    CHECK(string(choose_kernel(facts_for(65535 * tile_m, 8, 8, 90), name, false)) == name);
    CHECK(string(choose_kernel(facts_for(65535 * tile_m + 1, 8, 8, 90), name, false)) != name);
  }
}

TEST_CASE("matmul ladder: which operands the 128-bit loads can read", "[gemm][host]") {
  using gpu::gemm::Major;
  using gpu::gemm::vector_major;
  CHECK(vector_major(5, 8, 8, 1) == Major::Row);    // row-major, leading dim 8
  CHECK(vector_major(5, 7, 7, 1) == Major::None);   // leading dim 7: rows not 16-byte aligned
  CHECK(vector_major(8, 5, 1, 8) == Major::Col);    // a transposed view
  CHECK(vector_major(5, 8, 16, 2) == Major::None);  // every second column
  CHECK(vector_major(1, 7, 3, 1) == Major::Row);    // one row: its stride never moves
  CHECK(vector_major(7, 1, 1, 3) == Major::Col);    // one column, contiguous down
  CHECK(vector_major(1, 1, 5, 9) == Major::Row);
  alignas(16) float buffer[64] = {};
  gpu::gemm::Problem<float> p;
  p.a = buffer, p.b = buffer, p.m = 4, p.n = 4, p.k = 4;
  p.a_rs = 4, p.a_cs = 1, p.b_rs = 1, p.b_cs = 4;
  CHECK(gpu::gemm::vector_ready(p));
  p.a = buffer + 1;  // misaligned base
  CHECK_FALSE(gpu::gemm::vector_ready(p));
  p.a = buffer;
  p.a_bs = 6;  // a batch stride that breaks alignment
  CHECK_FALSE(gpu::gemm::vector_ready(p));
  // bfloat16: 16 bytes are 8 elements, so leading dims and batch strides go by 8.
  alignas(16) BFloat16 halves[128] = {};
  gpu::gemm::Problem<BFloat16> h;
  h.a = halves, h.b = halves, h.m = 8, h.n = 8, h.k = 8;
  h.a_rs = 8, h.a_cs = 1, h.b_rs = 1, h.b_cs = 8;
  CHECK(gpu::gemm::vector_ready(h));
  h.a_rs = 12;  // 24 bytes: a multiple of 4 elements, not of 16 bytes
  CHECK_FALSE(gpu::gemm::vector_ready(h));
  h.a_rs = 16;
  h.b = halves + 4;  // 8 bytes past a 16-byte boundary
  CHECK_FALSE(gpu::gemm::vector_ready(h));
  // Steps 11 and 12's operands (TMA): K contiguous in both, rows at least K apart, no overlap.
  h.b = halves;
  h.a_rs = 8, h.a_cs = 1, h.b_rs = 1, h.b_cs = 8;  // A row-major, B a transposed view
  CHECK(gpu::gemm::wgmma_tma_fits(h));
  h.b_rs = 8, h.b_cs = 1;  // B row-major: N contiguous
  CHECK_FALSE(gpu::gemm::wgmma_tma_fits(h));
  h.b_rs = 1, h.b_cs = 8;
  h.a_rs = 0;  // A's one row broadcast over M: TMA cannot take a zero stride
  CHECK_FALSE(gpu::gemm::wgmma_tma_fits(h));
  h.a_rs = 8;
  h.batch = 2, h.a_bs = 8, h.b_bs = 0;  // batches of A overlap; a broadcast B is fine
  CHECK_FALSE(gpu::gemm::wgmma_tma_fits(h));
  h.a_bs = 64;
  CHECK(gpu::gemm::wgmma_tma_fits(h));
  // One row per batch: TMA's row stride is K rounded up to 8, and each batch must start past it
  // (its strides nest), whatever stride the single row has.
  h.m = 1, h.k = 64, h.a_rs = 8, h.b_cs = 64, h.a_bs = 8;
  CHECK_FALSE(gpu::gemm::wgmma_tma_fits(h));
  h.a_bs = 64;
  CHECK(gpu::gemm::wgmma_tma_fits(h));
  h.k = 60, h.b_cs = 64, h.a_bs = 56;  // 56 < 60: the batches overlap
  CHECK_FALSE(gpu::gemm::wgmma_tma_fits(h));
  h.a_bs = 64;
  CHECK(gpu::gemm::wgmma_tma_fits(h));
  // Step 13's float32 operands: the same rules with 16 bytes = 4 elements.
  p = {};
  p.a = buffer, p.b = buffer, p.m = 4, p.n = 4, p.k = 4;
  p.a_rs = 4, p.a_cs = 1, p.b_rs = 1, p.b_cs = 4;  // A row-major, B a transposed view
  CHECK(gpu::gemm::wgmma_tma_fits(p));
  p.b_rs = 4, p.b_cs = 1;  // B row-major: N contiguous, not taken (no transposing copy)
  CHECK_FALSE(gpu::gemm::wgmma_tma_fits(p));
  p.b_rs = 1, p.b_cs = 4;
  p.k = 3, p.a_rs = 4, p.b_cs = 4;  // K of 3 in rows padded to 16 bytes
  CHECK(gpu::gemm::wgmma_tma_fits(p));
  p.k = 6, p.a_rs = 6, p.b_cs = 8;  // 24-byte rows: not 16-byte aligned
  CHECK_FALSE(gpu::gemm::wgmma_tma_fits(p));
  p.a_rs = 8;
  CHECK(gpu::gemm::wgmma_tma_fits(p));
  p.a = buffer + 2;  // 8 bytes past a 16-byte boundary
  CHECK_FALSE(gpu::gemm::wgmma_tma_fits(p));
  p.a = buffer;
  p.batch = 2, p.a_bs = 4, p.b_bs = 0;  // batches of A overlap
  CHECK_FALSE(gpu::gemm::wgmma_tma_fits(p));
  p.a_bs = 32;
  CHECK(gpu::gemm::wgmma_tma_fits(p));
  // Its TMA boxes: 32 floats (128 bytes) of K by 128 rows of A, 256 of B^T; strides in bytes.
  const auto ta = gpu::gemm::tma_shape_a<gpu::gemm::WgmmaTf32Geometry>(p);
  const auto tb = gpu::gemm::tma_shape_b<gpu::gemm::WgmmaTf32Geometry>(p);
  CHECK(ta.element_bytes == 4);
  CHECK((ta.box[0] == 32 && ta.box[1] == 128 && tb.box[0] == 32 && tb.box[1] == 256));
  CHECK((ta.strides[0] == 32 && ta.strides[1] == 128 && ta.batched && !tb.batched));
  CHECK((tb.dims[0] == 6 && tb.dims[1] == 4 && tb.strides[0] == 32));
}
