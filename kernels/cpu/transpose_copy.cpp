// transpose_copy.cpp: copy_kernel's path for a same-dtype copy whose input runs along another
// dim than its output, as `t.t().contiguous()` or the autograd engine's copy of a transposed
// weight gradient. Walking the output row by row then reads the input one element per cache
// line, each a row stride apart: a 1024 x 1024 float32 transpose took 4.5 ms (1.9 GB/s moved),
// as long as the 256 x 1024 x 1024 matmul whose gradient it was laying out.
// Idea: cut the two dims into 8 x 8 tiles, so that the lines a tile reads along the input's
// unit-stride dim and writes along the output's are reused for 8 elements each before they
// leave the cache. Why 8 and not the textbook 32: with a power-of-two row stride (4 KiB for 1024
// floats) every line of a tile maps to the same set of the 8-way L1, and the more lines a tile
// holds, the more of them evict each other before they are used up.
// Measured (2-vCPU Zen 4, 1 thread, 1024 x 1024 float32): `.t().contiguous()` through wick
// 3.92 -> 1.12 ms (BM_transpose_contiguous, docs/cpu-kernels.md); on plain arrays, tiles of
// 64: 3.0 ms, 32: 2.2, 16: 1.3, 8: 0.58-0.67, 4: 0.62-0.68 (memcpy of the same bytes: 0.09).
// Whole tiles of 4-byte elements then went through AVX2 registers (tile_8x8_avx2): 1.63-1.91
// -> 0.57-0.77 ms on one Zen 3 thread, 0.79-1.08 -> 0.36-0.38 ms on two, against libtorch's
// 0.87-2.1 ms (bench_vs_libtorch, paired/transposed_copy; docs/cpu-kernels.md).
// Tested by tests/test_views.cpp.
#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WICK_TRANSPOSE_AVX2 1
#endif

#include "kernels.hpp"
#include "loops.hpp"

namespace wick::cpu {
namespace {

constexpr int64_t kTile = 8;

#if defined(WICK_TRANSPOSE_AVX2)
// A whole 8 x 8 tile of 4-byte elements in AVX2 registers: eight 32-byte loads along the
// input's unit-stride dim (column j of the tile), the transpose by unpacks (pairs), shuffles
// (quads) and 128-bit lane swaps, eight 32-byte stores along the output's rows. Moves bits
// only (no arithmetic), so NaN payloads survive. The scalar tile did 64 loads and 64 stores:
// 1.5-1.6x libtorch's time for a [1024, 1024] float32 transpose on one thread.
__attribute__((target("avx2"))) void tile_8x8_avx2(char* out, const char* in,
                                                   int64_t out_row_stride, int64_t in_col_stride) {
  __m256 c[8];
  for (int j = 0; j < 8; ++j)
    c[j] = _mm256_loadu_ps(reinterpret_cast<const float*>(in + j * in_col_stride));
  // Pairs: lo/hi of (c0, c1) hold rows {0, 1, 4, 5} / {2, 3, 6, 7} of columns 0 and 1.
  __m256 p[8];
  for (int k = 0; k < 4; ++k) {
    p[2 * k] = _mm256_unpacklo_ps(c[2 * k], c[2 * k + 1]);
    p[2 * k + 1] = _mm256_unpackhi_ps(c[2 * k], c[2 * k + 1]);
  }
  // Quads: columns 0-3 (from p0..p3) and 4-7 (p4..p7) of rows {0, 4}, {1, 5}, {2, 6}, {3, 7}.
  __m256 q[8];
  for (int h = 0; h < 2; ++h) {
    q[4 * h + 0] = _mm256_shuffle_ps(p[4 * h], p[4 * h + 2], _MM_SHUFFLE(1, 0, 1, 0));
    q[4 * h + 1] = _mm256_shuffle_ps(p[4 * h], p[4 * h + 2], _MM_SHUFFLE(3, 2, 3, 2));
    q[4 * h + 2] = _mm256_shuffle_ps(p[4 * h + 1], p[4 * h + 3], _MM_SHUFFLE(1, 0, 1, 0));
    q[4 * h + 3] = _mm256_shuffle_ps(p[4 * h + 1], p[4 * h + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  // Rows: the low 128-bit halves hold rows 0-3, the high halves rows 4-7.
  for (int r = 0; r < 4; ++r) {
    _mm256_storeu_ps(reinterpret_cast<float*>(out + r * out_row_stride),
                     _mm256_permute2f128_ps(q[r], q[4 + r], 0x20));
    _mm256_storeu_ps(reinterpret_cast<float*>(out + (r + 4) * out_row_stride),
                     _mm256_permute2f128_ps(q[r], q[4 + r], 0x31));
  }
}

// A whole 8 x 8 tile of 2-byte elements (bfloat16) in SSE2 registers, the same idea: eight
// 16-byte loads, the transpose by unpacks of 16-, 32- and 64-bit pairs, eight 16-byte stores.
// The scalar tile it replaced did 64 two-byte loads and stores, and its speed depended on where
// the linker put its loop (0.60-0.65 or 0.83 ms for a [1024, 1024] on one Zen 4 thread from
// identical code). bench_vs_libtorch's transposed_copy_bf16, speed against libtorch on one
// thread: 1.27-1.29 -> 3.6-3.7 (docs/cpu-kernels.md, "AVX-512 sums").
void tile_8x8_16bit(char* out, const char* in, int64_t out_row_stride, int64_t in_col_stride) {
  __m128i a[8];
  for (int j = 0; j < 8; ++j) {
    a[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + j * in_col_stride));
  }
  // b: columns (2k, 2k + 1) interleaved, rows 0-3 (lo) and 4-7 (hi).
  __m128i b[8];
  for (int k = 0; k < 4; ++k) {
    b[2 * k] = _mm_unpacklo_epi16(a[2 * k], a[2 * k + 1]);
    b[2 * k + 1] = _mm_unpackhi_epi16(a[2 * k], a[2 * k + 1]);
  }
  // c: columns 0-3 (h = 0) or 4-7 (h = 1) for rows {0, 1}, {2, 3}, {4, 5}, {6, 7}.
  __m128i c[8];
  for (int h = 0; h < 2; ++h) {
    c[4 * h + 0] = _mm_unpacklo_epi32(b[4 * h], b[4 * h + 2]);
    c[4 * h + 1] = _mm_unpackhi_epi32(b[4 * h], b[4 * h + 2]);
    c[4 * h + 2] = _mm_unpacklo_epi32(b[4 * h + 1], b[4 * h + 3]);
    c[4 * h + 3] = _mm_unpackhi_epi32(b[4 * h + 1], b[4 * h + 3]);
  }
  // Rows 2m and 2m + 1: the low and high halves of columns 0-3 (c[m]) and 4-7 (c[4 + m]).
  for (int m = 0; m < 4; ++m) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * m * out_row_stride),
                     _mm_unpacklo_epi64(c[m], c[4 + m]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + (2 * m + 1) * out_row_stride),
                     _mm_unpackhi_epi64(c[m], c[4 + m]));
  }
}

bool has_avx2() {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
}
#endif

// One tile: rows (the input's unit-stride dim) [i0, i1) by columns (the output's) [j0, j1).
template <typename E>
void copy_tile(char* out, const char* in, int64_t out_row_stride, int64_t in_col_stride, int64_t i0,
               int64_t i1, int64_t j0, int64_t j1) {
#if defined(WICK_TRANSPOSE_AVX2)
  if constexpr (sizeof(E) == 4) {
    if (i1 - i0 == kTile && j1 - j0 == kTile && has_avx2()) {
      tile_8x8_avx2(out + i0 * out_row_stride + j0 * 4, in + i0 * 4 + j0 * in_col_stride,
                    out_row_stride, in_col_stride);
      return;
    }
  }
  if constexpr (sizeof(E) == 2) {  // SSE2: every x86-64 CPU has it
    if (i1 - i0 == kTile && j1 - j0 == kTile) {
      tile_8x8_16bit(out + i0 * out_row_stride + j0 * 2, in + i0 * 2 + j0 * in_col_stride,
                     out_row_stride, in_col_stride);
      return;
    }
  }
#endif
  for (int64_t i = i0; i < i1; ++i) {
    E* dst = reinterpret_cast<E*>(out + i * out_row_stride);
    const char* src = in + static_cast<int64_t>(sizeof(E)) * i;
    for (int64_t j = j0; j < j1; ++j) {
      E v;
      std::memcpy(&v, src + j * in_col_stride, sizeof(E));  // the input need not be aligned to E
      dst[j] = v;
    }
  }
}

template <typename E>
void tiled_copy(const Layout<2>& l, int row_dim) {
  const int col_dim = l.ndim - 1;
  const int64_t rows = l.sizes[row_dim], cols = l.sizes[col_dim];
  const int64_t out_row_stride = l.strides[0][row_dim], in_col_stride = l.strides[1][col_dim];
  const int64_t row_tiles = (rows + kTile - 1) / kTile, col_tiles = (cols + kTile - 1) / kTile;
  const int64_t planes = l.numel / (rows * cols);
  const int64_t tiles = planes * row_tiles * col_tiles;
  // A tile is up to 64 elements: the grain keeps small copies on one thread.
  parallel_for(tiles, kParallelGrain / (kTile * kTile), [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t plane = t / (row_tiles * col_tiles);
      const int64_t rt = (t / col_tiles) % row_tiles, ct = t % col_tiles;
      // The plane's base pointers: every dim but the two, outermost first.
      char* out = l.base[0];
      const char* in = l.base[1];
      int64_t rest = plane;
      for (int d = l.ndim - 1; d >= 0; --d) {
        if (d == row_dim || d == col_dim) continue;
        const int64_t index = rest % l.sizes[d];
        rest /= l.sizes[d];
        out += index * l.strides[0][d];
        in += index * l.strides[1][d];
      }
      copy_tile<E>(out, in, out_row_stride, in_col_stride, rt * kTile,
                   std::min(rows, (rt + 1) * kTile), ct * kTile, std::min(cols, (ct + 1) * kTile));
    }
  });
}

}  // namespace

bool transpose_copy(const Tensor& out, const Tensor& in) {
  // Cheap refusals first: every strided copy asks, small ones most often (per-op overhead).
  if (out.dtype() != in.dtype() || out.numel() < kTile * kTile) return false;
  const Layout<2> l = make_layout<2>({&out, &in});
  if (l.numel == 0 || l.ndim < 2) return false;
  const int64_t elem = static_cast<int64_t>(out.element_size());
  const int col_dim = l.ndim - 1;
  // The output runs along its last dim, the input does not but runs along another one.
  if (l.strides[0][col_dim] != elem || l.strides[1][col_dim] == elem) return false;
  int row_dim = -1;
  for (int d = col_dim - 1; d >= 0; --d) {
    if (l.strides[1][d] == elem) {
      row_dim = d;
      break;
    }
  }
  // Below a tile in either dim the plain walk reads whole lines anyway.
  if (row_dim < 0 || l.sizes[row_dim] < kTile || l.sizes[col_dim] < kTile) return false;
  switch (elem) {
    case 1:
      tiled_copy<uint8_t>(l, row_dim);
      break;
    case 2:
      tiled_copy<uint16_t>(l, row_dim);
      break;
    case 4:
      tiled_copy<uint32_t>(l, row_dim);
      break;
    case 8:
      tiled_copy<uint64_t>(l, row_dim);
      break;
    default:
      return false;
  }
  return true;
}

}  // namespace wick::cpu
