// select.hpp: which kernel of the matmul ladder runs a matmul. Host C++ with no CUDA header, so
// that tests/cuda/test_host.cpp checks the choices on any machine.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace wick::gpu::gemm {

enum class ElementType : uint8_t { Float32, Float64, Int64, BFloat16 };

// What the choice depends on.
struct MatmulFacts {
  ElementType type = ElementType::Float32;
  bool vector_ready = false;  // problem.hpp: vector_ready, for every launch of the matmul
  bool cublas_ok = false;     // matmul_cublas.cpp: cublas_supports
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int sm = 0;            // compute capability as 10 * major + minor, e.g. 90
  int sm_count = 1;      // streaming multiprocessors
  bool k_major = false;  // operands steps 11 to 13 can read (wgmma_tma_fits)
  bool hopper = false;   // steps 11 to 13's sm_90a code is built and runs here: hopper_code_runs
};

// Steps 11 to 13's sm_90a machine code runs on a 9.0 device only. `sm` above cannot tell: it is
// capped by the PTX the other steps were built with, so a 10.0 or 12.0 device running the
// compute_90 PTX reports 90 there (found by review: the launch would fail with "no kernel
// image" on every eligible bfloat16 matmul).
constexpr bool hopper_code_runs(bool built, int device_major, int device_minor) {
  return built && device_major == 9 && device_minor == 0;
}

// The ladder's kernels and what each needs.
struct LadderKernel {
  const char* name;
  bool float32_only;          // steps 1 to 4, 6 to 9 and 13 are instantiated for float32 only
  bool needs_vector;          // 128-bit loads: problem.hpp's vector_ready
  int min_sm;                 // cp.async and mma.sync: 80
  int64_t max_m_tile;         // rows per block along grid y (M tiles must fit 65535), 0: no limit
  int64_t max_n_tile;         // likewise for N along grid y (step 1 puts N there)
  bool bf16_only = false;     // steps 10 to 12 take bfloat16 only, no other step takes it
  bool needs_hopper = false;  // steps 11 to 13: sm_90 exactly, sm_90a code built, K-major operands
  bool by_name_only = false;  // never the automatic choice (not yet measured): steps 12 and 13,
                              // step 8's tile variants
};
std::span<const LadderKernel> ladder_kernels();

// Whether `name` ("cublas" or a ladder step) can run this matmul.
bool can_take(std::string_view name, const MatmulFacts& facts);

// The automatic choice (what "auto" runs).
const char* automatic_kernel(const MatmulFacts& facts, bool allow_tf32);

// The kernel that runs: `requested` if it is a kernel that can take the matmul, else the
// automatic choice. Returns a static string.
const char* choose_kernel(const MatmulFacts& facts, std::string_view requested, bool allow_tf32);

}  // namespace wick::gpu::gemm
