// fma_loops.hpp: the FMA loops both machine ceilings are measured with (bench/machine_info.cpp
// for the report, bench/cpu/bench_cpu_gemm.cpp for its peak_frac column): each runs `iters`
// steps of 12 independent float32 fused multiply-add chains and returns the FLOPs it did, so
// FMA throughput, not latency, bounds it. Header-only, needs only the compiler and Google
// Benchmark (DoNotOptimize/ClobberMemory).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fma_loops {

inline constexpr int kAcc = 12;

#if defined(__x86_64__)
// Twelve named accumulators (not an array: an array may live on the stack, and a store and
// reload per FMA would bound the loop by store forwarding instead of the FMA units).
#define WICK_FMA12(FMA, KEEP)                                                                \
  for (int64_t i = 0; i < iters; ++i) {                                                      \
    a0 = FMA(a0, x, y);                                                                      \
    a1 = FMA(a1, x, y);                                                                      \
    a2 = FMA(a2, x, y);                                                                      \
    a3 = FMA(a3, x, y);                                                                      \
    a4 = FMA(a4, x, y);                                                                      \
    a5 = FMA(a5, x, y);                                                                      \
    a6 = FMA(a6, x, y);                                                                      \
    a7 = FMA(a7, x, y);                                                                      \
    a8 = FMA(a8, x, y);                                                                      \
    a9 = FMA(a9, x, y);                                                                      \
    a10 = FMA(a10, x, y);                                                                    \
    a11 = FMA(a11, x, y);                                                                    \
    __asm__ volatile(""                                                                      \
                     : KEEP(a0), KEEP(a1), KEEP(a2), KEEP(a3), KEEP(a4), KEEP(a5), KEEP(a6), \
                       KEEP(a7), KEEP(a8), KEEP(a9), KEEP(a10), KEEP(a11));                  \
  }
#define WICK_KEEP_V(r) "+v"(r)
#define WICK_KEEP_X(r) "+x"(r)

inline __attribute__((target("avx512f"))) double fma_avx512(int64_t iters) {
  __m512 a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11;
  a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = a8 = a9 = a10 = a11 = _mm512_set1_ps(1.0f);
  const __m512 x = _mm512_set1_ps(0.9999999f), y = _mm512_set1_ps(1e-7f);
  WICK_FMA12(_mm512_fmadd_ps, WICK_KEEP_V)
  __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                           _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
  s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
  float out[16];
  _mm512_storeu_ps(out, s);
  benchmark::DoNotOptimize(out[0]);
  return static_cast<double>(iters) * kAcc * 16 * 2;
}

inline __attribute__((target("avx2,fma"))) double fma_avx2(int64_t iters) {
  __m256 a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11;
  a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = a8 = a9 = a10 = a11 = _mm256_set1_ps(1.0f);
  const __m256 x = _mm256_set1_ps(0.9999999f), y = _mm256_set1_ps(1e-7f);
  WICK_FMA12(_mm256_fmadd_ps, WICK_KEEP_X)
  __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                           _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
  float out[8];
  _mm256_storeu_ps(out, s);
  benchmark::DoNotOptimize(out[0]);
  return static_cast<double>(iters) * kAcc * 8 * 2;
}
#endif

// Portable fallback: whatever the compiler makes of 12 independent scalar multiply-adds.
inline double fma_scalar(int64_t iters) {
  float acc[kAcc];
  for (auto& r : acc) r = 1.0f;
  for (int64_t i = 0; i < iters; ++i) {
    for (auto& r : acc) r = r * 0.9999999f + 1e-7f;
    benchmark::ClobberMemory();
  }
  float s = 0;
  for (float r : acc) s += r;
  benchmark::DoNotOptimize(s);
  return static_cast<double>(iters) * kAcc * 2;
}

#if defined(__x86_64__)
#undef WICK_FMA12
#undef WICK_KEEP_V
#undef WICK_KEEP_X
#endif

}  // namespace fma_loops
