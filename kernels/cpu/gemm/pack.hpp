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

// One B panel: `cols` (<= NR) columns from j0, depth kc from p0, for a B that is not row-major
// (a row-major B is packed row by row, by pack_b_row_major below).
template <typename T, int NR>
void pack_b_panel(const ConstMatrix<T>& b, int64_t p0, int64_t kc, int64_t j0, int64_t cols,
                  T* __restrict dst) {
  const T* base = b.data + p0 * b.row_stride + j0 * b.col_stride;
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

// A row-major B block, row by row: each depth step reads its nc values in one sequential run
// and scatters them NR at a time into the panels. Panel by panel (pack_b_panel) the same block
// is read NR values from each of kc rows, then the next NR: with a large row stride every read
// is a new cache line and page, and the hardware prefetchers miss most of them; measured on the
// 2-vCPU AVX2 EPYC, 64 x 1024 x 2048 on 1 thread spent 39% of its time here and ran at 36-40
// GFLOP/s (docs/cpu-gemm.md has the figures after this change).
constexpr int64_t kPrefetchRows = 8;
template <typename T, int NR>
void pack_b_row_major(const ConstMatrix<T>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                      T* __restrict dst) {
  const int64_t full = nc / NR * NR;
  for (int64_t p = 0; p < kc; ++p) {
    const T* src = b.data + (p0 + p) * b.row_stride + j0;
    T* out = dst + p * NR;
    if (p + kPrefetchRows < kc) {
      const char* ahead = reinterpret_cast<const char*>(src + kPrefetchRows * b.row_stride);
      for (int64_t byte = 0; byte < nc * static_cast<int64_t>(sizeof(T)); byte += 64)
        __builtin_prefetch(ahead + byte);
    }
    for (int64_t j = 0; j < full; j += NR) std::memcpy(out + j * kc, src + j, sizeof(T) * NR);
    if (full < nc) {
      T* last = out + full * kc;
      for (int64_t j = full; j < nc; ++j) last[j - full] = src[j];
      for (int64_t j = nc - full; j < NR; ++j) last[j] = T(0);
    }
  }
}

// Packs the B block of nc columns from j0 into ceil(nc / NR) panels.
template <typename T, int NR>
void pack_b(const ConstMatrix<T>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, T* dst) {
  if (b.col_stride == 1) {
    pack_b_row_major<T, NR>(b, p0, kc, j0, nc, dst);
    return;
  }
  for (int64_t j = 0; j < nc; j += NR) {
    pack_b_panel<T, NR>(b, p0, kc, j0 + j, min64(NR, nc - j), dst + j * kc);
  }
}

}  // namespace
}  // namespace wick::cpu::gemm
