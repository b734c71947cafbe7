// kernel_avx2.cpp: the AVX2+FMA micro-kernels, compiled with -mavx2 -mfma (and called only when
// the CPU has them). With 16 ymm registers the tile is MR x NR = 6 x 16 for float and 6 x 8 for
// double: 12 accumulators, 2 B vectors and 1 broadcast. Partial tiles go through a small tile on
// the stack and are copied out. The C tile is fetched as the depth loop starts, where C's rows
// are 2 KiB or more apart: on the AVX2 EPYC that took 4096^3 on 2 threads from 0.86-0.91 of
// OpenBLAS's speed to 0.90-0.99 (docs/cpu-gemm.md, "Fetching C"). Includes only intrinsics
// and <cstdint> (see kernels.hpp). On Zen 4 (two 256-bit FMA pipes) it reaches nearly the AVX-512
// kernel's speed; see docs/cpu-gemm.md for the last measured figure.
#include <immintrin.h>

#include <cstdint>

#include "direct_x86.hpp"
#include "kernels.hpp"
#include "pack_x86.hpp"

namespace wick::cpu::gemm {
namespace {

template <typename T>
struct Vec;

template <>
struct Vec<float> {
  using Reg = __m256;
  static constexpr int kWidth = 8;
  static Reg zero() { return _mm256_setzero_ps(); }
  static Reg load(const float* p) { return _mm256_load_ps(p); }
  static Reg loadu(const float* p) { return _mm256_loadu_ps(p); }
  static Reg broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
  static Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
  static void storeu(float* p, Reg v) { _mm256_storeu_ps(p, v); }
  // The first n lanes (direct_x86.hpp's partial columns).
  using Mask = __m256i;
  static Mask first(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static Reg mask_loadu(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void mask_storeu(float* p, Mask m, Reg v) { _mm256_maskstore_ps(p, m, v); }
};

template <>
struct Vec<double> {
  using Reg = __m256d;
  static constexpr int kWidth = 4;
  static Reg zero() { return _mm256_setzero_pd(); }
  static Reg load(const double* p) { return _mm256_load_pd(p); }
  static Reg loadu(const double* p) { return _mm256_loadu_pd(p); }
  static Reg broadcast(const double* p) { return _mm256_broadcast_sd(p); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_pd(a, b, c); }
  static Reg add(Reg a, Reg b) { return _mm256_add_pd(a, b); }
  static void storeu(double* p, Reg v) { _mm256_storeu_pd(p, v); }
  using Mask = __m256i;
  static Mask first(int n) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
  }
  static Reg mask_loadu(const double* p, Mask m) { return _mm256_maskload_pd(p, m); }
  static void mask_storeu(double* p, Mask m, Reg v) { _mm256_maskstore_pd(p, m, v); }
};

// C[0:MR, 0:NR] (+)= A panel (kc x MR) . B panel (kc x NR), NR = NV vectors.
template <typename T, int MR, int NV>
inline void micro_kernel(int64_t kc, const T* __restrict pa, const T* __restrict pb, T* c,
                         int64_t ldc, bool accumulate) {
  using V = Vec<T>;
  using Reg = typename V::Reg;
  constexpr int kW = V::kWidth;
  constexpr int kNr = NV * kW;
  Reg acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = V::zero();
  }
  // The C tile is read (accumulate) or written after the depth loop. Where C's rows are
  // kFetchCStride bytes apart or more, C outgrows L2 at a few hundred rows and each row of the
  // tile would be a full miss there, so the tile is fetched now. With rows closer than that it
  // is in L2 already and the fetch only cost time: 256^3, 1 thread, lost 1-6% in seven
  // alternations; 4096^3 gained 2-13% on 1 and 2 threads, float64 1-8% (docs/cpu-gemm.md,
  // "Fetching C").
  // A row of the tile spans 64 bytes from wherever C's row starts: its first and last byte
  // cover the one or two lines.
  constexpr int64_t kFetchCStride = 2048;
  if (ldc * static_cast<int64_t>(sizeof(T)) >= kFetchCStride) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + kNr) - 1, _MM_HINT_T0);
    }
  }
  for (int64_t p = 0; p < kc; ++p) {
    Reg b[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) b[v] = V::load(pb + v * kW);
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
      const Reg a = V::broadcast(pa + i);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = V::fma(a, b[v], acc[i][v]);
    }
    pa += MR;
    pb += kNr;
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      T* dst = c + i * ldc + v * kW;
      V::storeu(dst, accumulate ? V::add(V::loadu(dst), acc[i][v]) : acc[i][v]);
    }
  }
}

template <typename T, int MR, int NV>
void macro_kernel(const MacroArgs<T>& g) {
  constexpr int kNr = NV * Vec<T>::kWidth;
  for (int64_t i = 0; i < g.mc; i += MR) {
    const T* pa = g.packed_a + i * g.kc;
    const int64_t mr = g.mc - i < MR ? g.mc - i : MR;
    for (int64_t j = 0; j < g.nc; j += kNr) {
      const T* pb = g.packed_b + j * g.kc;
      const int64_t nr = g.nc - j < kNr ? g.nc - j : kNr;
      T* c = g.c + i * g.ldc + j;
      if (mr == MR && nr == kNr) {
        micro_kernel<T, MR, NV>(g.kc, pa, pb, c, g.ldc, g.accumulate);
        continue;
      }
      alignas(64) T tile[MR * kNr];
      micro_kernel<T, MR, NV>(g.kc, pa, pb, tile, kNr, false);
      for (int64_t r = 0; r < mr; ++r) {
        for (int64_t q = 0; q < nr; ++q) {
          c[r * g.ldc + q] =
              g.accumulate ? c[r * g.ldc + q] + tile[r * kNr + q] : tile[r * kNr + q];
        }
      }
    }
  }
}

}  // namespace

// MR = 6 is not a multiple of the transpose tile: A packs with the plain loops, B with tiles.
KernelSet<float> avx2_kernels_f32() {
  return {6,
          16,
          &macro_kernel<float, 6, 2>,
          nullptr,
          &pack_b_simd<float, 16>,
          &direct_gemm<float, Vec<float>, 6, 2>};
}
KernelSet<double> avx2_kernels_f64() {
  return {6,
          8,
          &macro_kernel<double, 6, 2>,
          nullptr,
          &pack_b_simd<double, 8>,
          &direct_gemm<double, Vec<double>, 6, 2>};
}

}  // namespace wick::cpu::gemm
