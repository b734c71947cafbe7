// direct_x86.hpp (gemm): C = A @ B without packing, for small products whose B has unit-stride
// rows, for the ISA files only (with AVX or better enabled; V is the file's Vec<T>).
// The packed path copies A into MR-row panels and B into NR-column panels before it multiplies;
// for a 64^3 float product that copy took 20% of the time (perf: pack_b 11%, pack_a 9%) and
// wick ran at 0.71 of OpenBLAS's speed, whose own small-matrix kernels skip it. Here the
// micro-tile reads B's rows where they are (NV vectors per depth step) and broadcasts A's
// elements from A's own strides: a B strip of k x NR stays in L1 while the tiles walk down M.
// The order of the sums is the packed path's: K in the same steps of at most KC, each step's
// products chained by FMA from zero, then added to C. So both paths, and therefore any thread
// count, give the same bits (tests/cpu_gemm/test_cpu_gemm.cpp).
// Measured on the 2-vCPU Xeon (AVX-512), one thread, against packing and OpenBLAS 0.3.21 in the
// same run (docs/cpu-gemm.md, "Small products without packing"): 64^3 at 1.34-1.37x the packed
// path's speed and 0.96x OpenBLAS's (was 0.71x); the driver's limits (m n k <= 2^22, B rows
// <= 4 KiB) keep it where it measured faster than packing.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "gemm.hpp"

namespace wick::cpu::gemm {
namespace {

// C[0:R, 0:nr] = A[0:R, 0:k] @ B[0:k, 0:nr], nr <= NV vectors; kFull: nr is all of them.
template <typename T, typename V, int R, int NV, bool kFull>
void direct_tile(int64_t k, int64_t kc, const T* a, int64_t a_rs, int64_t a_cs, const T* b,
                 int64_t ldb, T* c, int64_t ldc, int nr) {
  using Reg = typename V::Reg;
  constexpr int kW = V::kWidth;
  typename V::Mask mask[NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) mask[v] = V::first(nr - v * kW);
  for (int64_t pc = 0; pc < k; pc += kc) {
    const int64_t p_end = pc + kc < k ? pc + kc : k;
    Reg acc[R][NV];
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[i][v] = V::zero();
    }
    for (int64_t p = pc; p < p_end; ++p) {
      Reg bv[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        bv[v] =
            kFull ? V::loadu(b + p * ldb + v * kW) : V::mask_loadu(b + p * ldb + v * kW, mask[v]);
      }
#pragma GCC unroll 16
      for (int i = 0; i < R; ++i) {
        const Reg x = V::broadcast(a + i * a_rs + p * a_cs);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i][v] = V::fma(x, bv[v], acc[i][v]);
      }
    }
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        T* dst = c + i * ldc + v * kW;
        if (kFull) {
          V::storeu(dst, pc > 0 ? V::add(V::loadu(dst), acc[i][v]) : acc[i][v]);
        } else {
          V::mask_storeu(dst, mask[v],
                         pc > 0 ? V::add(V::mask_loadu(dst, mask[v]), acc[i][v]) : acc[i][v]);
        }
      }
    }
  }
}

// The tile for r rows (1 <= r <= R): one instantiation per row count, so that every loop over
// the rows unrolls and the accumulators stay in registers.
template <typename T, typename V, int R, int NV, bool kFull>
void direct_rows(int r, int64_t k, int64_t kc, const T* a, int64_t a_rs, int64_t a_cs, const T* b,
                 int64_t ldb, T* c, int64_t ldc, int nr) {
  if constexpr (R > 1) {
    if (r < R) {
      direct_rows<T, V, R - 1, NV, kFull>(r, k, kc, a, a_rs, a_cs, b, ldb, c, ldc, nr);
      return;
    }
  }
  direct_tile<T, V, R, NV, kFull>(k, kc, a, a_rs, a_cs, b, ldb, c, ldc, nr);
}

// C[m x n] = A @ B, B's col_stride 1 (or n == 1), K in steps of kc. Column strips of NR outside,
// MR-row tiles inside: the strip of B is read from memory once and from L1 after.
template <typename T, typename V, int MR, int NV>
void direct_gemm(const ConstMatrix<T>& a, const ConstMatrix<T>& b, T* c, int64_t ldc, int64_t kc) {
  constexpr int kNr = NV * V::kWidth;
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  for (int64_t j = 0; j < n; j += kNr) {
    const int nr = n - j < kNr ? static_cast<int>(n - j) : kNr;
    for (int64_t i = 0; i < m; i += MR) {
      const int r = m - i < MR ? static_cast<int>(m - i) : MR;
      const T* a_rows = a.data + i * a.row_stride;
      const T* b_cols = b.data + j;
      T* c_tile = c + i * ldc + j;
      if (nr == kNr) {
        direct_rows<T, V, MR, NV, true>(r, k, kc, a_rows, a.row_stride, a.col_stride, b_cols,
                                        b.row_stride, c_tile, ldc, nr);
      } else if (NV > 1 && nr <= V::kWidth) {  // a last strip of one vector or less: half the FMAs
        direct_rows<T, V, MR, 1, false>(r, k, kc, a_rows, a.row_stride, a.col_stride, b_cols,
                                        b.row_stride, c_tile, ldc, nr);
      } else {
        direct_rows<T, V, MR, NV, false>(r, k, kc, a_rows, a.row_stride, a.col_stride, b_cols,
                                         b.row_stride, c_tile, ldc, nr);
      }
    }
  }
}

}  // namespace
}  // namespace wick::cpu::gemm
