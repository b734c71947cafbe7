// pack.hpp (gemm): copies a block of A or B into the micro-kernel's panel order. This is where
// strides and transposes are absorbed: the micro-kernel only ever reads contiguous, aligned,
// zero-padded panels.
//  - A block (rows i0.., depth p0..) -> panels of MR rows, each kc x MR: dst[p * MR + i];
//  - B block (depth p0.., cols j0..) -> panels of NR columns, each kc x NR: dst[p * NR + j].
// Each has a fast case for the common layouts (unit stride along the panel's rows or along the
// depth) and a plain strided loop for anything else (including zero strides). Plain C++ with
// compile-time panel widths, so the compiler vectorises the copies; a row-major A is a
// transpose. The ISA files replace the two transposing cases with SIMD 8 x 8 / 4 x 4 register
// transposes (pack_x86.hpp). Everything here sits in an anonymous namespace: each file that
// includes it (the driver at baseline flags, the ISA files at theirs) gets its own copy, so the
// linker can never hand baseline code an AVX-512 instantiation.
#pragma once

#include <cstdint>
#include <cstring>

#include "gemm.hpp"

namespace wick::cpu::gemm {
namespace {

// No std:: templates here (see above): an out-of-line std::min built with -mavx512f is a weak
// symbol that the linker may share with baseline code.
inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

// One A panel: `rows` (<= MR) rows from i0, depth kc from p0.
template <typename T, int MR>
void pack_a_panel(const ConstMatrix<T>& a, int64_t i0, int64_t rows, int64_t p0, int64_t kc,
                  T* __restrict dst) {
  const T* base = a.data + i0 * a.row_stride + p0 * a.col_stride;
  if (rows == MR && a.col_stride == 1) {
    // Row-major A: a transpose of MR rows. Walk the depth in chunks of 8 so each chunk's MR x 8
    // source stays in registers/L1 while the panel is written contiguously.
    const T* row[MR];
    for (int i = 0; i < MR; ++i) row[i] = base + i * a.row_stride;
    int64_t p = 0;
    for (; p + 8 <= kc; p += 8) {
      T tile[MR][8];
      for (int i = 0; i < MR; ++i) {
        for (int q = 0; q < 8; ++q) tile[i][q] = row[i][p + q];
      }
      for (int q = 0; q < 8; ++q) {
        for (int i = 0; i < MR; ++i) dst[(p + q) * MR + i] = tile[i][q];
      }
    }
    for (; p < kc; ++p) {
      for (int i = 0; i < MR; ++i) dst[p * MR + i] = row[i][p];
    }
    return;
  }
  if (a.row_stride == 1) {
    // Column-major A (a transposed view): each depth step is `rows` contiguous values.
    for (int64_t p = 0; p < kc; ++p) {
      const T* src = base + p * a.col_stride;
      T* out = dst + p * MR;
      if (rows == MR) {
        for (int i = 0; i < MR; ++i) out[i] = src[i];
      } else {
        for (int64_t i = 0; i < rows; ++i) out[i] = src[i];
        for (int64_t i = rows; i < MR; ++i) out[i] = T(0);
      }
    }
    return;
  }
  for (int64_t p = 0; p < kc; ++p) {
    T* out = dst + p * MR;
    for (int64_t i = 0; i < rows; ++i) out[i] = base[i * a.row_stride + p * a.col_stride];
    for (int64_t i = rows; i < MR; ++i) out[i] = T(0);
  }
}

// One B panel: `cols` (<= NR) columns from j0, depth kc from p0.
template <typename T, int NR>
void pack_b_panel(const ConstMatrix<T>& b, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
                  T* __restrict dst) {
  const T* base = b.data + p0 * b.row_stride + j0 * b.col_stride;
  if (b.col_stride == 1) {
    // Row-major B: each depth step is `cols` contiguous values.
    for (int64_t p = 0; p < kc; ++p) {
      const T* src = base + p * b.row_stride;
      T* out = dst + p * NR;
      if (cols == NR) {
        std::memcpy(out, src, sizeof(T) * NR);
      } else {
        for (int64_t j = 0; j < cols; ++j) out[j] = src[j];
        for (int64_t j = cols; j < NR; ++j) out[j] = T(0);
      }
    }
    return;
  }
  if (b.row_stride == 1) {
    // Column-major B (a transposed view): a transpose of `cols` columns.
    for (int64_t p = 0; p < kc; ++p) {
      T* out = dst + p * NR;
      for (int64_t j = cols; j < NR; ++j) out[j] = T(0);
    }
    for (int64_t j = 0; j < cols; ++j) {
      const T* src = base + j * b.col_stride;
      for (int64_t p = 0; p < kc; ++p) dst[p * NR + j] = src[p];
    }
    return;
  }
  for (int64_t p = 0; p < kc; ++p) {
    T* out = dst + p * NR;
    for (int64_t j = 0; j < cols; ++j) out[j] = base[p * b.row_stride + j * b.col_stride];
    for (int64_t j = cols; j < NR; ++j) out[j] = T(0);
  }
}

// Packs A panels [q0, q1) of the block starting at row i0 (mc rows in all).
template <typename T, int MR>
void pack_a(const ConstMatrix<T>& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc, int64_t q0,
            int64_t q1, T* dst) {
  for (int64_t q = q0; q < q1; ++q) {
    const int64_t rows = min64(MR, mc - q * MR);
    pack_a_panel<T, MR>(a, i0 + q * MR, rows, p0, kc, dst + q * kc * MR);
  }
}

// Packs the B block of nc columns from j0 into ceil(nc / NR) panels.
template <typename T, int NR>
void pack_b(const ConstMatrix<T>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, T* dst) {
  for (int64_t j = 0; j < nc; j += NR) {
    pack_b_panel<T, NR>(b, p0, kc, j0 + j, min64(NR, nc - j), dst + j * kc);
  }
}

}  // namespace
}  // namespace wick::cpu::gemm
