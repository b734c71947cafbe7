// pack_x86.hpp (gemm): the two transposing packs done with SIMD register transposes, for the
// ISA files only (they include it after <immintrin.h>, with AVX or better enabled): a row-major
// A into MR-row panels, and a column-major (transposed) B into NR-column panels. Both read 8 x 8
// float (4 x 4 double) tiles with one vector load per source line and write one vector per
// panel row; anything else (partial panels, other strides) goes to pack.hpp's plain loops.
// Why: the plain loops read one element per instruction; with these the packs take about 4% of
// a 1024^3 product on Zen 4 (perf; docs/cpu-gemm.md). The plain loop's figure from when this
// was written (~1.75 elements/ns for a 1024 x 512 float A block) was not kept in the docs.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "pack.hpp"

namespace wick::cpu::gemm {
namespace {

// dst[c * dst_stride + r] = src[r * src_stride + c] for r, c < 8, of 32-bit elements, moved as
// bits. Src is float, or uint16_t for the bfloat16 kernel's depth pairs: its 32-bit elements
// start on any 2-byte boundary (src_stride in uint16_t units, so odd strides work).
template <typename Src>
inline void transpose_8x8(const Src* src, int64_t src_stride, float* dst, int64_t dst_stride) {
  const auto row = [&](int r) {
    return _mm256_loadu_ps(reinterpret_cast<const float*>(src + r * src_stride));
  };
  __m256 r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
  __m256 r4 = row(4), r5 = row(5), r6 = row(6), r7 = row(7);
  const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  const __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
  const __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  _mm256_storeu_ps(dst + 0 * dst_stride, _mm256_permute2f128_ps(u0, u4, 0x20));
  _mm256_storeu_ps(dst + 1 * dst_stride, _mm256_permute2f128_ps(u1, u5, 0x20));
  _mm256_storeu_ps(dst + 2 * dst_stride, _mm256_permute2f128_ps(u2, u6, 0x20));
  _mm256_storeu_ps(dst + 3 * dst_stride, _mm256_permute2f128_ps(u3, u7, 0x20));
  _mm256_storeu_ps(dst + 4 * dst_stride, _mm256_permute2f128_ps(u0, u4, 0x31));
  _mm256_storeu_ps(dst + 5 * dst_stride, _mm256_permute2f128_ps(u1, u5, 0x31));
  _mm256_storeu_ps(dst + 6 * dst_stride, _mm256_permute2f128_ps(u2, u6, 0x31));
  _mm256_storeu_ps(dst + 7 * dst_stride, _mm256_permute2f128_ps(u3, u7, 0x31));
}

// dst[c * dst_stride + r] = src[r * src_stride + c] for r, c < 4.
inline void transpose_4x4(const double* src, int64_t src_stride, double* dst, int64_t dst_stride) {
  const __m256d r0 = _mm256_loadu_pd(src + 0 * src_stride);
  const __m256d r1 = _mm256_loadu_pd(src + 1 * src_stride);
  const __m256d r2 = _mm256_loadu_pd(src + 2 * src_stride);
  const __m256d r3 = _mm256_loadu_pd(src + 3 * src_stride);
  const __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
  const __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
  _mm256_storeu_pd(dst + 0 * dst_stride, _mm256_permute2f128_pd(t0, t2, 0x20));
  _mm256_storeu_pd(dst + 1 * dst_stride, _mm256_permute2f128_pd(t1, t3, 0x20));
  _mm256_storeu_pd(dst + 2 * dst_stride, _mm256_permute2f128_pd(t0, t2, 0x31));
  _mm256_storeu_pd(dst + 3 * dst_stride, _mm256_permute2f128_pd(t1, t3, 0x31));
}

template <typename T>
constexpr int kTile = sizeof(T) == 4 ? 8 : 4;

template <typename T>
inline void transpose_tile(const T* src, int64_t src_stride, T* dst, int64_t dst_stride) {
  if constexpr (sizeof(T) == 4) {
    transpose_8x8<float>(src, src_stride, dst, dst_stride);
  } else {
    transpose_4x4(src, src_stride, dst, dst_stride);
  }
}

// pack_a (pack.hpp) with full panels of a row-major A transposed by register tiles.
template <typename T, int MR>
void pack_a_simd(const ConstMatrix<T>& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                 int64_t q0, int64_t q1, T* dst) {
  constexpr int kT = kTile<T>;
  static_assert(MR % kT == 0, "pack_a_simd needs MR to be a multiple of the tile");
  for (int64_t q = q0; q < q1; ++q) {
    const int64_t rows = min64(MR, mc - q * MR);
    T* panel = dst + q * kc * MR;
    if (rows != MR || a.col_stride != 1) {
      pack_a_panel<T, MR>(a, i0 + q * MR, rows, p0, kc, panel);
      continue;
    }
    const T* base = a.data + (i0 + q * MR) * a.row_stride + p0;
    int64_t p = 0;
    for (; p + kT <= kc; p += kT) {
      for (int r = 0; r < MR; r += kT) {
        transpose_tile<T>(base + r * a.row_stride + p, a.row_stride, panel + p * MR + r, MR);
      }
    }
    for (; p < kc; ++p) {
      for (int r = 0; r < MR; ++r) panel[p * MR + r] = base[r * a.row_stride + p];
    }
  }
}

// pack_b (pack.hpp) with full panels of a column-major B transposed by register tiles.
template <typename T, int NR>
void pack_b_simd(const ConstMatrix<T>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, T* dst) {
  constexpr int kT = kTile<T>;
  static_assert(NR % kT == 0, "pack_b_simd needs NR to be a multiple of the tile");
  if (b.col_stride == 1) {
    pack_b_row_major<T, NR>(b, p0, kc, j0, nc, dst);
    return;
  }
  for (int64_t j = 0; j < nc; j += NR) {
    const int64_t cols = min64(NR, nc - j);
    T* panel = dst + j * kc;
    if (cols != NR || b.row_stride != 1) {
      pack_b_panel<T, NR>(b, p0, kc, j0 + j, cols, panel);
      continue;
    }
    const T* base = b.data + p0 + (j0 + j) * b.col_stride;
    int64_t p = 0;
    for (; p + kT <= kc; p += kT) {
      for (int c = 0; c < NR; c += kT) {
        transpose_tile<T>(base + c * b.col_stride + p, b.col_stride, panel + p * NR + c, NR);
      }
    }
    for (; p < kc; ++p) {
      for (int c = 0; c < NR; ++c) panel[p * NR + c] = base[c * b.col_stride + p];
    }
  }
}

}  // namespace
}  // namespace wick::cpu::gemm
