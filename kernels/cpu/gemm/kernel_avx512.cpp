// kernel_avx512.cpp: the AVX-512 micro-kernels, compiled with -mavx512f -mavx512dq -mfma (and
// called only when the CPU has them). float: MR x NR = 8 x 32 (two zmm per row, 16
// accumulators); double: 8 x 16. Each step of the depth loop loads the B panel's NR values as
// NV vectors, broadcasts the MR values of the A panel one at a time and issues MR x NV FMAs.
// Zen 4 issues one 512-bit FMA per cycle (two 256-bit halves) with latency 4, so 16
// independent accumulators keep it busy; perf puts the kernel at about 97% of the FMA peak in
// place, and the 12 x 32 and 8 x 48 tiles measured no better (docs/cpu-gemm.md). Edges (partial
// MR or NR) use masked stores. Packs with pack_x86.hpp's register transposes. Includes only
// intrinsics, <cstdint> and headers without std:: templates (see kernels.hpp).
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
  using Reg = __m512;
  static constexpr int kWidth = 16;
  using Mask = uint32_t;
  static Mask first(int n) { return n >= kWidth ? 0xffffu : n <= 0 ? 0u : (1u << n) - 1u; }
  static Reg zero() { return _mm512_setzero_ps(); }
  static Reg load(const float* p) { return _mm512_load_ps(p); }
  static Reg loadu(const float* p) { return _mm512_loadu_ps(p); }
  static Reg broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
  static Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
  static void storeu(float* p, Reg v) { _mm512_storeu_ps(p, v); }
  static Reg mask_loadu(const float* p, uint32_t m) {
    return _mm512_maskz_loadu_ps(static_cast<__mmask16>(m), p);
  }
  static void mask_storeu(float* p, uint32_t m, Reg v) {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>(m), v);
  }
};

template <>
struct Vec<double> {
  using Reg = __m512d;
  static constexpr int kWidth = 8;
  using Mask = uint32_t;
  static Mask first(int n) { return n >= kWidth ? 0xffu : n <= 0 ? 0u : (1u << n) - 1u; }
  static Reg zero() { return _mm512_setzero_pd(); }
  static Reg load(const double* p) { return _mm512_load_pd(p); }
  static Reg loadu(const double* p) { return _mm512_loadu_pd(p); }
  static Reg broadcast(const double* p) { return _mm512_set1_pd(*p); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_pd(a, b, c); }
  static Reg add(Reg a, Reg b) { return _mm512_add_pd(a, b); }
  static void storeu(double* p, Reg v) { _mm512_storeu_pd(p, v); }
  static Reg mask_loadu(const double* p, uint32_t m) {
    return _mm512_maskz_loadu_pd(static_cast<__mmask8>(m), p);
  }
  static void mask_storeu(double* p, uint32_t m, Reg v) {
    _mm512_mask_storeu_pd(p, static_cast<__mmask8>(m), v);
  }
};

// C[0:mr, 0:nr] (+)= A panel (kc x MR) . B panel (kc x NR), NR = NV vectors.
template <typename T, int MR, int NV, bool kFetchNextA>
inline void micro_kernel(int64_t kc, const T* __restrict pa, const T* __restrict pb, T* c,
                         int64_t ldc, bool accumulate, int mr, int nr, const T* next_a) {
  using V = Vec<T>;
  using Reg = typename V::Reg;
  constexpr int kW = V::kWidth;
  constexpr int kNr = NV * kW;
  // The B panel streams from L2 (the packed block is too big for L1): fetched this many depth
  // steps ahead. One thread at N = 1024: 91% -> 92% of the FMA peak with 16 (4: no gain; 8 to
  // 32: the same within noise); see docs/cpu-gemm.md.
  constexpr int kPrefetchSteps = 16;
  // Fetch the C tile while the depth loop runs: it is read at the end (accumulate) or written,
  // and with C larger than L2 it would otherwise cost a full miss per row after the loop.
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    if (i < mr) {
#pragma GCC unroll 4
      for (int v = 0; v < NV * kW * static_cast<int>(sizeof(T)); v += 64) {
        _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc) + v, _MM_HINT_T0);
      }
    }
  }
  Reg acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = V::zero();
  }
  for (int64_t p = 0; p < kc; ++p) {
#pragma GCC unroll 4
    for (int v = 0; v < NV * kW * static_cast<int>(sizeof(T)); v += 64) {
      _mm_prefetch(reinterpret_cast<const char*>(pb + kPrefetchSteps * kNr) + v, _MM_HINT_T0);
    }
    if constexpr (kFetchNextA) {
      _mm_prefetch(reinterpret_cast<const char*>(next_a + p * MR), _MM_HINT_T0);
    }
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
  if (mr == MR && nr == kNr) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        T* dst = c + i * ldc + v * kW;
        V::storeu(dst, accumulate ? V::add(V::loadu(dst), acc[i][v]) : acc[i][v]);
      }
    }
    return;
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; ++i) {
    if (i >= mr) break;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const int left = nr - v * kW;
      if (left <= 0) break;
      const uint32_t mask = left >= kW ? (1u << kW) - 1u : (1u << left) - 1u;
      T* dst = c + i * ldc + v * kW;
      V::mask_storeu(dst, mask,
                     accumulate ? V::add(V::mask_loadu(dst, mask), acc[i][v]) : acc[i][v]);
    }
  }
}

template <typename T, int MR, int NV>
void macro_kernel(const MacroArgs<T>& g) {
  constexpr int kNr = NV * Vec<T>::kWidth;
  for (int64_t i = 0; i < g.mc; i += MR) {
    const T* pa = g.packed_a + i * g.kc;  // panel i / MR, each kc * MR
    const int mr = g.mc - i < MR ? static_cast<int>(g.mc - i) : MR;
    for (int64_t j = 0; j < g.nc; j += kNr) {
      const T* pb = g.packed_b + j * g.kc;  // panel j / NR, each kc * NR
      const int nr = g.nc - j < kNr ? static_cast<int>(g.nc - j) : kNr;
      T* c = g.c + i * g.ldc + j;
      if (j + kNr >= g.nc && i + MR < g.mc) {
        micro_kernel<T, MR, NV, true>(g.kc, pa, pb, c, g.ldc, g.accumulate, mr, nr, pa + g.kc * MR);
      } else {
        micro_kernel<T, MR, NV, false>(g.kc, pa, pb, c, g.ldc, g.accumulate, mr, nr, nullptr);
      }
    }
  }
}

constexpr int kMrF32 = 8, kNvF32 = 2;
constexpr int kMrF64 = 8, kNvF64 = 2;

}  // namespace

KernelSet<float> avx512_kernels_f32() {
  return {kMrF32,
          kNvF32 * 16,
          &macro_kernel<float, kMrF32, kNvF32>,
          &pack_a_simd<float, kMrF32>,
          &pack_b_simd<float, kNvF32 * 16>,
          &direct_gemm<float, Vec<float>, kMrF32, kNvF32>};
}
KernelSet<double> avx512_kernels_f64() {
  return {kMrF64,
          kNvF64 * 8,
          &macro_kernel<double, kMrF64, kNvF64>,
          &pack_a_simd<double, kMrF64>,
          &pack_b_simd<double, kNvF64 * 8>,
          &direct_gemm<double, Vec<double>, kMrF64, kNvF64>};
}

}  // namespace wick::cpu::gemm
