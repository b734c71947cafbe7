// kernel_portable.cpp: the micro-kernel in plain C++, compiled with the target's baseline flags
// (SSE2 on x86-64, NEON on AArch64): the fallback on CPUs without AVX2 and on non-x86 builds,
// and the path tests force with WICK_CPU_ISA=portable. An MR x NR = 4 x 8 (float) or 4 x 4
// (double) tile of accumulators in a local array whose inner loop the compiler vectorises: 8
// SSE registers, so they stay in registers (a 4 x 16 tile spills and runs 3x slower). Partial
// tiles are computed whole (the packed panels are zero-padded) and copied out. Through the
// whole driver on Zen 4 with SSE2: 32.7 GFLOP/s at 1024^3 on one thread, 28% of the FMA peak
// and under a third of the AVX-512 path (docs/cpu-gemm.md, the ladder table).
#include <cstdint>

#include "kernels.hpp"

namespace wick::cpu::gemm {
namespace {

template <typename T, int MR, int NR>
void macro_kernel(const MacroArgs<T>& g) {
  for (int64_t i = 0; i < g.mc; i += MR) {
    const int64_t mr = g.mc - i < MR ? g.mc - i : MR;
    for (int64_t j = 0; j < g.nc; j += NR) {
      const int64_t nr = g.nc - j < NR ? g.nc - j : NR;
      const T* pa = g.packed_a + i * g.kc;
      const T* pb = g.packed_b + j * g.kc;
      T acc[MR][NR] = {};
      for (int64_t p = 0; p < g.kc; ++p) {
        for (int r = 0; r < MR; ++r) {
          const T a = pa[r];
          for (int q = 0; q < NR; ++q) acc[r][q] += a * pb[q];
        }
        pa += MR;
        pb += NR;
      }
      T* c = g.c + i * g.ldc + j;
      for (int64_t r = 0; r < mr; ++r) {
        for (int64_t q = 0; q < nr; ++q) {
          c[r * g.ldc + q] = g.accumulate ? c[r * g.ldc + q] + acc[r][q] : acc[r][q];
        }
      }
    }
  }
}

}  // namespace

KernelSet<float> portable_kernels_f32() { return {4, 8, &macro_kernel<float, 4, 8>}; }
KernelSet<double> portable_kernels_f64() { return {4, 4, &macro_kernel<double, 4, 4>}; }

}  // namespace wick::cpu::gemm
