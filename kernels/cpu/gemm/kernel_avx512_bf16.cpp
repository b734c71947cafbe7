// kernel_avx512_bf16.cpp: the bfloat16 micro-kernel, compiled with -mavx512bf16 (and called only
// when the CPU has AVX512_BF16: isa.cpp). vdpbf16ps takes two vectors of 32 bfloat16, multiplies
// them lane by lane and adds each adjacent pair of products to one of 16 float32 accumulators:
// 32 multiply-adds per instruction where a float32 FMA does 16. So the packed panels hold the
// depth in pairs: an A panel is kc/2 steps of MR pairs (A[i][p], A[i][p + 1]) as 32-bit words,
// a B panel kc/2 steps of NR pairs (B[p][j], B[p + 1][j]); each step broadcasts one A pair to
// all 16 lanes and multiplies it with NR/16 vectors of B pairs. A pair past an odd depth is zero
// in both panels, so it adds 0 * 0. MR x NR = 8 x 32, the float32 kernel's tile (16
// accumulators); measured in docs/cpu-gemm.md ("bfloat16 on AVX512_BF16").
// Rounding: the products of two bfloat16 are exact in float32 and each is added to the
// accumulator with one float32 rounding, as the float32 kernel on widened copies does, but
// vdpbf16ps treats subnormal inputs as zero and flushes subnormal results (as oneDNN, behind
// libtorch's bfloat16 matmul on such CPUs, does too); tests/cpu_gemm/ holds it to the same
// error bound as float32.
// Packing: the two layouts that come straight from the views wick passes (row-major, or a
// transposed view) are SIMD: depth-contiguous pairs are 32-bit words, moved by pack_x86.hpp's
// 8 x 8 transposes; lane-contiguous ones interleave two depth rows. Anything else takes the
// plain loop. Includes only intrinsics and headers without std:: templates (kernels.hpp).
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels.hpp"
#include "pack_x86.hpp"

namespace wick::cpu::gemm {
namespace {

constexpr int kMr = 8, kNv = 2, kNr = kNv * 16;

// W lanes (rows of an A panel, columns of a B panel) by the depth kc from `base`, into
// ceil(kc / 2) steps of W pairs: dst[(s * W + l) * 2 + h] = value at lane l, depth 2 s + h, zero
// past `lanes` and past kc. lane_stride and depth_stride are in elements.
template <int W>
void pack_pairs_plain(const uint16_t* base, int64_t lane_stride, int64_t depth_stride,
                      int64_t lanes, int64_t kc, uint16_t* __restrict dst) {
  const int64_t steps = (kc + 1) / 2;
  for (int64_t s = 0; s < steps; ++s) {
    uint16_t* out = dst + s * W * 2;
    for (int64_t l = 0; l < W; ++l) {
      for (int h = 0; h < 2; ++h) {
        const int64_t p = 2 * s + h;
        out[l * 2 + h] = l < lanes && p < kc ? base[l * lane_stride + p * depth_stride] : 0;
      }
    }
  }
}

// Depth-contiguous source (depth_stride 1): each pair is a 32-bit word, and a panel is the
// transpose of W lanes by kc/2 words, 8 x 8 at a time.
template <int W>
void pack_pairs_depth_contiguous(const uint16_t* base, int64_t lane_stride, int64_t kc,
                                 uint16_t* __restrict dst) {
  static_assert(W % 8 == 0, "whole 8 x 8 tiles");
  const int64_t full_steps = kc / 2;
  float* words = reinterpret_cast<float*>(dst);  // bits only: see transpose_8x8
  int64_t s = 0;
  for (; s + 8 <= full_steps; s += 8) {
    for (int l = 0; l < W; l += 8) {
      transpose_8x8<uint16_t>(base + l * lane_stride + 2 * s, lane_stride, words + s * W + l, W);
    }
  }
  for (; s < (kc + 1) / 2; ++s) {
    for (int l = 0; l < W; ++l) {
      const uint16_t* src = base + l * lane_stride + 2 * s;
      dst[(s * W + l) * 2] = src[0];
      dst[(s * W + l) * 2 + 1] = 2 * s + 1 < kc ? src[1] : 0;
    }
  }
}

// vpermt2w indices: the first 32 words of the result are even[0], odd[0], even[1], odd[1], ...,
// even[15], odd[15] (odd's words are numbered from 32); the second 32 go on from even[16].
alignas(64) constexpr uint16_t kInterleaveLow[32] = {0,  32, 1,  33, 2,  34, 3,  35, 4,  36, 5,
                                                     37, 6,  38, 7,  39, 8,  40, 9,  41, 10, 42,
                                                     11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
alignas(64) constexpr uint16_t kInterleaveHigh[32] = {16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21,
                                                      53, 22, 54, 23, 55, 24, 56, 25, 57, 26, 58,
                                                      27, 59, 28, 60, 29, 61, 30, 62, 31, 63};

// out[2 l + h] = (h ? odd : even)[l] for l < 32; odd null: zeros (the pair past an odd depth).
inline void interleave_32(const uint16_t* even, const uint16_t* odd, uint16_t* out) {
  const __m512i e = _mm512_loadu_si512(even);
  const __m512i o = odd != nullptr ? _mm512_loadu_si512(odd) : _mm512_setzero_si512();
  _mm512_storeu_si512(out, _mm512_permutex2var_epi16(e, _mm512_load_si512(kInterleaveLow), o));
  _mm512_storeu_si512(out + 32,
                      _mm512_permutex2var_epi16(e, _mm512_load_si512(kInterleaveHigh), o));
}

// Lane-contiguous source (lane_stride 1): step s interleaves depth rows 2 s and 2 s + 1.
template <int W>
void pack_pairs_lane_contiguous(const uint16_t* base, int64_t depth_stride, int64_t kc,
                                uint16_t* __restrict dst) {
  static_assert(W % 8 == 0, "whole 8-lane groups");
  const int64_t steps = (kc + 1) / 2;
  for (int64_t s = 0; s < steps; ++s) {
    const uint16_t* even = base + 2 * s * depth_stride;
    const bool has_odd = 2 * s + 1 < kc;
    uint16_t* out = dst + s * W * 2;
    for (int l = 0; l < W; l += 8) {
      const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(even + l));
      const __m128i o =
          has_odd ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(even + depth_stride + l))
                  : _mm_setzero_si128();
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * l), _mm_unpacklo_epi16(e, o));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * l + 8), _mm_unpackhi_epi16(e, o));
    }
  }
}

// One panel of W lanes: the SIMD packs for full panels of the two common layouts. (A full
// row-major B panel never gets here: pack_b_bf16 interleaves whole rows of the block. With one
// depth step, kc = 1, there is no pair to transpose, and a depth stride of 1 may only mean a
// dim of size 1; the lane-contiguous or plain pack reads it.)
template <int W>
void pack_panel(const uint16_t* base, int64_t lane_stride, int64_t depth_stride, int64_t lanes,
                int64_t kc, uint16_t* dst) {
  if (lanes == W && depth_stride == 1 && kc > 1) {
    pack_pairs_depth_contiguous<W>(base, lane_stride, kc, dst);
  } else if (lanes == W && lane_stride == 1) {
    pack_pairs_lane_contiguous<W>(base, depth_stride, kc, dst);
  } else {
    pack_pairs_plain<W>(base, lane_stride, depth_stride, lanes, kc, dst);
  }
}

const uint16_t* bits(const BF16Bits* p) { return reinterpret_cast<const uint16_t*>(p); }

// kernels.hpp's PackA: panels [q0, q1) of MR rows.
void pack_a_bf16(const ConstMatrix<BF16Bits>& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                 int64_t q0, int64_t q1, BF16Bits* dst) {
  const int64_t packed_kc = (kc + 1) / 2 * 2;
  for (int64_t q = q0; q < q1; ++q) {
    const int64_t rows = min64(kMr, mc - q * kMr);
    const uint16_t* base = bits(a.data) + (i0 + q * kMr) * a.row_stride + p0 * a.col_stride;
    pack_panel<kMr>(base, a.row_stride, a.col_stride, rows, kc,
                    reinterpret_cast<uint16_t*>(dst + q * packed_kc * kMr));
  }
}

// kernels.hpp's PackB: the block of nc columns in panels of NR. A row-major B (the common
// case) is read two rows at a time across the whole block, each row in one sequential run, as
// pack.hpp's pack_b_row_major does for float32 and for the same reason (panel by panel, each
// step's 64 bytes sit on a new line and page); a partial last panel takes the plain loop.
void pack_b_bf16(const ConstMatrix<BF16Bits>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                 BF16Bits* dst) {
  const int64_t packed_kc = (kc + 1) / 2 * 2;
  uint16_t* out = reinterpret_cast<uint16_t*>(dst);
  const uint16_t* block = bits(b.data) + p0 * b.row_stride + j0 * b.col_stride;
  int64_t packed_cols = 0;
  if (b.col_stride == 1) {
    packed_cols = nc / kNr * kNr;
    for (int64_t s = 0; s < packed_kc / 2; ++s) {
      const uint16_t* even = block + 2 * s * b.row_stride;
      const uint16_t* odd = 2 * s + 1 < kc ? even + b.row_stride : nullptr;
      for (int64_t j = 0; j < packed_cols; j += kNr) {
        for (int l = 0; l < kNr; l += 32) {
          interleave_32(even + j + l, odd != nullptr ? odd + j + l : nullptr,
                        out + j * packed_kc + s * kNr * 2 + 2 * l);
        }
      }
    }
  }
  for (int64_t j = packed_cols; j < nc; j += kNr) {
    pack_panel<kNr>(block + j * b.col_stride, b.col_stride, b.row_stride, min64(kNr, nc - j), kc,
                    out + j * packed_kc);
  }
}

inline __m512bh as_bf16(__m512i v) { return (__m512bh)v; }  // a vector cast: the same bits

// 16 float32 rounded to bfloat16 as wick::BFloat16 rounds (to nearest, ties to even), in integer
// operations: vcvtneps2bf16 would also flush subnormal results to zero. BFloat16 also keeps a
// NaN whose low half would carry into the exponent; every NaN that reaches here has a zero low
// half (a bfloat16 input's payload, quieted by vdpbf16ps, or the default NaN), so the add
// leaves its high half, a quiet NaN, as it is (tests/cpu_gemm: the largest payload, 0x7FFF,
// and a signalling NaN).
inline __m256i round_to_bf16(__m512 x) {
  const __m512i bits = _mm512_castps_si512(x);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
  return _mm512_cvtepi32_epi16(_mm512_srli_epi32(
      _mm512_add_epi32(bits, _mm512_add_epi32(lsb, _mm512_set1_epi32(0x7FFF))), 16));
}

// C[0:mr, 0:nr] (+)= A panel . B panel over `steps` depth pairs; with `rounded`, the sum goes
// there as bfloat16 instead (gemm_rounded's last depth block).
template <bool kFetchNextA>
inline void micro_kernel(int64_t steps, const uint16_t* __restrict pa,
                         const uint16_t* __restrict pb, float* c, uint16_t* rounded, int64_t ldc,
                         bool accumulate, int mr, int nr, const uint16_t* next_a) {
  // As in the float32 kernel (kernel_avx512.cpp): B fetched 16 steps ahead, the C tile early.
  constexpr int kPrefetchSteps = 16;
#pragma GCC unroll 8
  for (int i = 0; i < kMr; ++i) {
    if (i < mr && c != nullptr) {
      _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc + 16), _MM_HINT_T0);
    }
  }
  __m512 acc[kMr][kNv];
#pragma GCC unroll 8
  for (int i = 0; i < kMr; ++i) {
#pragma GCC unroll 2
    for (int v = 0; v < kNv; ++v) acc[i][v] = _mm512_setzero_ps();
  }
  for (int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 2
    for (int v = 0; v < kNv; ++v) {
      _mm_prefetch(reinterpret_cast<const char*>(pb + (kPrefetchSteps * kNr + v * 16) * 2),
                   _MM_HINT_T0);
    }
    if constexpr (kFetchNextA) {
      _mm_prefetch(reinterpret_cast<const char*>(next_a + s * kMr * 2), _MM_HINT_T0);
    }
    __m512bh b[kNv];
#pragma GCC unroll 2
    for (int v = 0; v < kNv; ++v) b[v] = as_bf16(_mm512_load_si512(pb + v * 32));
#pragma GCC unroll 8
    for (int i = 0; i < kMr; ++i) {
      int32_t pair;
      std::memcpy(&pair, pa + 2 * i, sizeof(pair));
      const __m512bh a = as_bf16(_mm512_set1_epi32(pair));
#pragma GCC unroll 2
      for (int v = 0; v < kNv; ++v) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], a, b[v]);
    }
    pa += 2 * kMr;
    pb += 2 * kNr;
  }
#pragma GCC unroll 8
  for (int i = 0; i < kMr; ++i) {
    if (i >= mr) break;
#pragma GCC unroll 2
    for (int v = 0; v < kNv; ++v) {
      const int left = nr - v * 16;
      if (left <= 0) break;
      const __mmask16 mask = left >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << left) - 1u);
      __m512 sum = acc[i][v];
      if (accumulate) sum = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, c + i * ldc + v * 16), sum);
      if (rounded != nullptr) {
        _mm256_mask_storeu_epi16(rounded + i * ldc + v * 16, mask, round_to_bf16(sum));
      } else {
        _mm512_mask_storeu_ps(c + i * ldc + v * 16, mask, sum);
      }
    }
  }
}

void macro_kernel(const MacroArgs<BF16Bits>& g) {
  const uint16_t* packed_a = bits(g.packed_a);
  const uint16_t* packed_b = bits(g.packed_b);
  const int64_t steps = g.kc / 2;  // g.kc is even: the packed depth
  uint16_t* rounded = reinterpret_cast<uint16_t*>(g.rounded);
  for (int64_t i = 0; i < g.mc; i += kMr) {
    const uint16_t* pa = packed_a + i * g.kc;
    const int mr = g.mc - i < kMr ? static_cast<int>(g.mc - i) : kMr;
    for (int64_t j = 0; j < g.nc; j += kNr) {
      const uint16_t* pb = packed_b + j * g.kc;
      const int nr = g.nc - j < kNr ? static_cast<int>(g.nc - j) : kNr;
      float* c = g.c != nullptr ? g.c + i * g.ldc + j : nullptr;
      uint16_t* out = rounded != nullptr ? rounded + i * g.ldc + j : nullptr;
      if (j + kNr >= g.nc && i + kMr < g.mc) {
        micro_kernel<true>(steps, pa, pb, c, out, g.ldc, g.accumulate, mr, nr, pa + g.kc * kMr);
      } else {
        micro_kernel<false>(steps, pa, pb, c, out, g.ldc, g.accumulate, mr, nr, nullptr);
      }
    }
  }
}

}  // namespace

KernelSet<BF16Bits> avx512_kernels_bf16() {
  return {kMr, kNr, &macro_kernel, &pack_a_bf16, &pack_b_bf16};
}

}  // namespace wick::cpu::gemm
