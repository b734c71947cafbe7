// isa.cpp: run-time choice of the GEMM micro-kernel. The CPU's features are read once with
// __builtin_cpu_supports (which also checks that the OS saves the AVX/AVX-512 registers); the
// environment variable WICK_CPU_ISA=portable|avx2|avx512 is read once at the first call and
// can only lower the choice, so a binary built on any x86-64 runs on any other. Non-x86 builds
// have only the portable path. AVX512_BF16 (for the bfloat16 kernel) is read the same way and
// used only while the active ISA is avx512. Tested in tests/cpu_gemm/ (every ISA the CPU has).
#include <atomic>
#include <cstdlib>
#include <cstring>

#include <initializer_list>
#include "gemm.hpp"

#include "kernels.hpp"

namespace wick::cpu::gemm {
namespace {

Isa detect() {
#if defined(WICK_GEMM_X86)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("fma")) {
    return Isa::avx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
#endif
  return Isa::portable;
}

Isa clamp(Isa wanted) {
  const Isa best = best_supported_isa();
  return static_cast<int>(wanted) <= static_cast<int>(best) ? wanted : best;
}

Isa from_environment() {
  const char* env = std::getenv("WICK_CPU_ISA");
  if (env == nullptr || *env == '\0') return best_supported_isa();
  for (Isa isa : {Isa::portable, Isa::avx2, Isa::avx512}) {
    if (std::strcmp(env, isa_name(isa)) == 0) return clamp(isa);
  }
  return best_supported_isa();  // an unknown name: ignored
}

std::atomic<int>& chosen() {
  static std::atomic<int> isa{static_cast<int>(from_environment())};
  return isa;
}

}  // namespace

bool cpu_has_avx512_bf16() {
#if defined(WICK_GEMM_X86)
  static const bool has =
      best_supported_isa() == Isa::avx512 && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bf16");
  return has;
#else
  return false;
#endif
}

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::avx512:
      return "avx512";
    case Isa::avx2:
      return "avx2";
    default:
      return "portable";
  }
}

Isa best_supported_isa() {
  static const Isa best = detect();
  return best;
}

Isa active_isa() { return static_cast<Isa>(chosen().load(std::memory_order_relaxed)); }

void set_isa(Isa isa) { chosen().store(static_cast<int>(clamp(isa)), std::memory_order_relaxed); }

}  // namespace wick::cpu::gemm
