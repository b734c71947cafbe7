// vec_sums.cpp: the sums of vec_kernels.hpp, all in double: sums along a run (sum_f32 in its
// plain, AVX2 and AVX-512 forms, which give the same bits; sum_bf16, sum_f64) and the row-wise
// accumulations of reductions over outer dims (accumulate_*). Built as vec_kernels.cpp is
// (-fno-trapping-math, -ffp-contract=off, WICK_VEC_CLONES). A sum of 2^20 floats: 87 GB/s
// against 8.2 for one running double sum (docs/cpu-kernels.md, "Measured"); on Zen 4 its limit
// is vcvtps2pd, about 13 floats/ns ("AVX-512 sums").
#include <cstdint>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "vec_clones.hpp"
#include "vec_kernels.hpp"
#include "vec_math.hpp"

namespace wick::cpu::vec {

namespace {
// sum_bf16_lanes widens this many elements at a time into a float32 buffer.
constexpr int64_t kBf16Chunk = 256;
}  // namespace

namespace {

// Adds the tail (fewer than L elements) into lanes 0.. and folds the L lanes pairwise, in a
// fixed order. Every form of a sum ends here, so they give the same bits.
template <int L, typename T>
inline double fold_lanes(double* lane, const T* tail, int64_t count) {
  for (int64_t j = 0; j < count; ++j) lane[j] += static_cast<double>(tail[j]);
  for (int width = L / 2; width > 0; width /= 2) {
    for (int j = 0; j < width; ++j) lane[j] += lane[j + width];
  }
  return lane[0];
}

// Lane j takes elements j, j + L, j + 2L, ...
template <int L, typename T>
[[gnu::always_inline]] inline double sum_lanes(const T* x, int64_t n) {
  double lane[L];
#pragma GCC unroll 32
  for (int j = 0; j < L; ++j) lane[j] = 0.0;  // not `= {}`: see dot2_lanes
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int j = 0; j < L; ++j) lane[j] += static_cast<double>(x[i + j]);
  }
  return fold_lanes<L>(lane, x + i, n - i);
}

// float32 sums take 32 lanes, float64 sums 16. A float converts to double at one vcvtps2pd per
// 4 on Zen 3, the limit of this loop; GCC's AVX2 code for the plain loop loaded 8 floats,
// converted the low 4 from memory again and extracted the high 4 (an extra shuffle per 4),
// so the AVX2 form below is written out: 8 chains of 4 lanes, each converting 4 floats straight
// from memory. 2^20 floats on one Zen 3 thread, standalone, medians of 300 calls, three
// interleaved passes: 16 lanes as a plain loop 118-121 us, 32 lanes 107-109 us, this form
// 98-99 us (docs/cpu-kernels.md, "The float32 sum's conversion").
constexpr int kFloatSumLanes = 32;
constexpr int kDoubleSumLanes = 16;

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define WICK_SUM_AVX2 1
__attribute__((target("arch=x86-64-v3"))) double sum_avx2(const float* x, int64_t n) {
  constexpr int kChains = kFloatSumLanes / 4;
  __m256d acc[kChains];
#pragma GCC unroll 8
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + kFloatSumLanes <= n; i += kFloatSumLanes) {
#pragma GCC unroll 8
    for (int c = 0; c < kChains; ++c) {
      acc[c] = _mm256_add_pd(acc[c], _mm256_cvtps_pd(_mm_loadu_ps(x + i + 4 * c)));
    }
  }
  // The tail and fold_lanes' halving, in registers. Written to the stack and read back as
  // scalars (fold_lanes), they cost store-forwarding stalls: 26% of a cross_entropy step on
  // [256, 10], whose rows are all tail. Lane j of the tail takes element j or +0.0, and adding
  // +0.0 leaves a lane as it is (a lane starts at +0.0 and so is never -0.0): the same bits.
  const auto count = static_cast<int>(n - i);
  if (count > 0) {
    const __m128i lane_index = _mm_setr_epi32(0, 1, 2, 3);
#pragma GCC unroll 8
    for (int c = 0; c < kChains; ++c) {
      // Chains past the end are left as they are (adding +0.0 would not change them), so
      // that no pointer is formed past the end.
      if (count - 4 * c <= 0) break;
      // Masked loads read nothing past the end (no fault), and give 0.0 where masked.
      const __m128i mask = _mm_cmpgt_epi32(_mm_set1_epi32(count - 4 * c), lane_index);
      acc[c] = _mm256_add_pd(acc[c], _mm256_cvtps_pd(_mm_maskload_ps(x + i + 4 * c, mask)));
    }
  }
  // Halving over the 32 lanes: lanes j + 16 into j (chains 4-7 into 0-3), then j + 8, j + 4,
  // then within a chain j + 2 (high half into low), then j + 1.
  acc[0] = _mm256_add_pd(acc[0], acc[4]);
  acc[1] = _mm256_add_pd(acc[1], acc[5]);
  acc[2] = _mm256_add_pd(acc[2], acc[6]);
  acc[3] = _mm256_add_pd(acc[3], acc[7]);
  acc[0] = _mm256_add_pd(acc[0], acc[2]);
  acc[1] = _mm256_add_pd(acc[1], acc[3]);
  acc[0] = _mm256_add_pd(acc[0], acc[1]);
  const __m128d pair = _mm_add_pd(_mm256_castpd256_pd128(acc[0]), _mm256_extractf128_pd(acc[0], 1));
  return _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)));
}

// bfloat16 as sum_bf16_avx512 below does it, at half the width: each 8 elements are 4 words,
// whose even and odd halves become 4 floats each by a shift and a mask. The form before it
// zero-extended 4 elements before each conversion (sum_avx2 on widened loads): 2^20 bfloat16
// on one Zen 5 thread 172 -> 88 us. That form had replaced the plain loop on AVX2 machines
// because the plain loop's chunked widening took 2.1x libtorch's time for the rows of a
// [1024, 1024] on a Zen 3; neither was timed on an AVX2-only CPU after this change (on the
// Zen 5 the plain loop's AVX-512 clone takes 70 us; docs/cpu-kernels.md, "bfloat16 sums
// without a shuffle").
// Lane l of even[c] takes elements 8c + 2l, 8c + 2l + 32, ...; of odd[c] 8c + 2l + 1, ...
__attribute__((target("arch=x86-64-v3"), always_inline)) inline __m256d even4(__m128i words) {
  return _mm256_cvtps_pd(_mm_castsi128_ps(_mm_slli_epi32(words, 16)));
}
__attribute__((target("arch=x86-64-v3"), always_inline)) inline __m256d odd4(__m128i words) {
  const __m128i high_half = _mm_set1_epi32(static_cast<int>(0xffff0000u));
  return _mm256_cvtps_pd(_mm_castsi128_ps(_mm_and_si128(words, high_half)));
}
__attribute__((target("arch=x86-64-v3"), always_inline)) inline void add_bf16_block(
    __m256d& even, __m256d& odd, const uint16_t* p) {
  const __m128i words = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  even = _mm256_add_pd(even, even4(words));
  odd = _mm256_add_pd(odd, odd4(words));
}
__attribute__((target("arch=x86-64-v3"))) double sum_bf16_avx2(const uint16_t* x, int64_t n) {
  static_assert(kFloatSumLanes == 32);
  constexpr int kBlocks = kFloatSumLanes / 8;
  __m256d even[kBlocks], odd[kBlocks];
#pragma GCC unroll 4
  for (int c = 0; c < kBlocks; ++c) even[c] = odd[c] = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + kFloatSumLanes <= n; i += kFloatSumLanes) {
#pragma GCC unroll 4
    for (int c = 0; c < kBlocks; ++c) add_bf16_block(even[c], odd[c], x + i + 8 * c);
  }
  if (i < n) {  // the tail as sum_avx2's: +0 past the end
    uint16_t tail[kFloatSumLanes];
    for (int j = 0; j < kFloatSumLanes; ++j) tail[j] = i + j < n ? x[i + j] : 0;
#pragma GCC unroll 4
    for (int c = 0; c < kBlocks; ++c) add_bf16_block(even[c], odd[c], tail + 8 * c);
  }
  // fold_lanes' halving: j + 16 (blocks 2-3 into 0-1), j + 8 (block 1 into 0), j + 4 (lanes
  // 2-3 into 0-1), j + 2 (lane 1 into 0), j + 1 (odd into even).
  const __m256d e8 =
      _mm256_add_pd(_mm256_add_pd(even[0], even[2]), _mm256_add_pd(even[1], even[3]));
  const __m256d o8 = _mm256_add_pd(_mm256_add_pd(odd[0], odd[2]), _mm256_add_pd(odd[1], odd[3]));
  const __m128d e4 = _mm_add_pd(_mm256_castpd256_pd128(e8), _mm256_extractf128_pd(e8, 1));
  const __m128d o4 = _mm_add_pd(_mm256_castpd256_pd128(o8), _mm256_extractf128_pd(o8, 1));
  const __m128d e2 = _mm_add_sd(e4, _mm_unpackhi_pd(e4, e4));
  const __m128d o2 = _mm_add_sd(o4, _mm_unpackhi_pd(o4, o4));
  return _mm_cvtsd_f64(_mm_add_sd(e2, o2));
}

// Eight floats as doubles. GCC 12's _mm512_cvtps_pd, _mm512_extractf64x4_pd and the cast to a
// 256-bit half pass an undefined vector that -Wuninitialized flags; the zero-masking forms with
// a full mask are the same instructions.
__attribute__((target("arch=x86-64-v4"), always_inline)) inline __m512d widen8(__m256 v) {
  return _mm512_maskz_cvtps_pd(0xff, v);
}

// The AVX-512 form: the same 32 lanes as 4 chains of 8, each converting 8 floats. The plain
// loop's x86-64-v4 clone (what AVX-512 machines ran) loaded 16 floats, converted the low 8 and
// extracted the high 8, and its tail and fold went through the stack: on one Zen 4 thread 1.64x
// libtorch's time for 2^20 floats, 2.6x for the rows of a [256, 10] (docs/cpu-kernels.md,
// "AVX-512 sums").
// sum_avx512's 32 lanes of one run, halved to 8 (j + 16, then j + 8).
__attribute__((target("arch=x86-64-v4"), always_inline)) inline __m512d lanes8_avx512(
    const float* x, int64_t n) {
  constexpr int kChains = kFloatSumLanes / 8;
  __m512d acc[kChains];
#pragma GCC unroll 4
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_setzero_pd();
  int64_t i = 0;
  for (; i + kFloatSumLanes <= n; i += kFloatSumLanes) {
#pragma GCC unroll 4
    for (int c = 0; c < kChains; ++c) {
      acc[c] = _mm512_add_pd(acc[c], widen8(_mm256_loadu_ps(x + i + 8 * c)));
    }
  }
  // The tail as sum_avx2's: lane j takes element j or +0.0 (the same bits as fold_lanes).
  const auto count = static_cast<int>(n - i);
  if (count > 0) {
#pragma GCC unroll 4
    for (int c = 0; c < kChains; ++c) {
      const int in_chain = count - 8 * c;
      if (in_chain <= 0) break;  // as in sum_avx2: no pointer past the end
      const auto mask = static_cast<__mmask8>(in_chain >= 8 ? 0xff : (1u << in_chain) - 1);
      acc[c] = _mm512_add_pd(acc[c], widen8(_mm256_maskz_loadu_ps(mask, x + i + 8 * c)));
    }
  }
  // Halving over the 32 lanes: j + 16 (chains 2-3 into 0-1), j + 8 (chain 1 into 0).
  return _mm512_add_pd(_mm512_add_pd(acc[0], acc[2]), _mm512_add_pd(acc[1], acc[3]));
}

// The AVX-512 form: the same 32 lanes as 4 chains of 8, each converting 8 floats. The plain
// loop's x86-64-v4 clone (what AVX-512 machines ran) loaded 16 floats, converted the low 8 and
// extracted the high 8, and its tail and fold went through the stack: on one Zen 4 thread 1.64x
// libtorch's time for 2^20 floats, 2.6x for the rows of a [256, 10] (docs/cpu-kernels.md,
// "AVX-512 sums").
__attribute__((target("arch=x86-64-v4"))) double sum_avx512(const float* x, int64_t n) {
  const __m512d lanes = lanes8_avx512(x, n);
  // Within the chain: j + 4 (high half into low), j + 2, j + 1.
  const __m256d quad = _mm256_add_pd(_mm512_maskz_extractf64x4_pd(0xff, lanes, 0),
                                     _mm512_maskz_extractf64x4_pd(0xff, lanes, 1));
  const __m128d pair = _mm_add_pd(_mm256_castpd256_pd128(quad), _mm256_extractf128_pd(quad, 1));
  return _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)));
}

// Four runs' sums at once, each with sum_avx512's additions in its order: the last three
// halving steps of the four share vectors (each step one add for two or four runs, where
// apart each run paid a chain of three adds and shuffles, which rows of 64 spent most of
// their time on). The zero-masking forms with a full mask: see widen8.
__attribute__((target("arch=x86-64-v4"))) void sum4_avx512(const float* x, int64_t stride,
                                                           int64_t n, double* out) {
  const __m512d v0 = lanes8_avx512(x, n), v1 = lanes8_avx512(x + stride, n);
  const __m512d v2 = lanes8_avx512(x + 2 * stride, n), v3 = lanes8_avx512(x + 3 * stride, n);
  // j + 4: [v0 lanes 0-3, v1 lanes 0-3] + [v0 lanes 4-7, v1 lanes 4-7], and v2, v3.
  const __m512d q01 =
      _mm512_add_pd(_mm512_maskz_shuffle_f64x2(0xff, v0, v1, _MM_SHUFFLE(1, 0, 1, 0)),
                    _mm512_maskz_shuffle_f64x2(0xff, v0, v1, _MM_SHUFFLE(3, 2, 3, 2)));
  const __m512d q23 =
      _mm512_add_pd(_mm512_maskz_shuffle_f64x2(0xff, v2, v3, _MM_SHUFFLE(1, 0, 1, 0)),
                    _mm512_maskz_shuffle_f64x2(0xff, v2, v3, _MM_SHUFFLE(3, 2, 3, 2)));
  // j + 2: lanes 0-1 of each run's quad + lanes 2-3, all four runs in one add.
  const __m512d pairs =
      _mm512_add_pd(_mm512_maskz_shuffle_f64x2(0xff, q01, q23, _MM_SHUFFLE(2, 0, 2, 0)),
                    _mm512_maskz_shuffle_f64x2(0xff, q01, q23, _MM_SHUFFLE(3, 1, 3, 1)));
  // j + 1: lane 0 + lane 1 of each pair; the four sums sit in lanes 0, 2, 4, 6.
  const __m512d sums = _mm512_add_pd(_mm512_maskz_unpacklo_pd(0xff, pairs, pairs),
                                     _mm512_maskz_unpackhi_pd(0xff, pairs, pairs));
  _mm256_storeu_pd(out,
                   _mm512_maskz_extractf64x4_pd(0xff, _mm512_maskz_compress_pd(0x55, sums), 0));
}

// bfloat16 without a widening shuffle: a 32-bit word holds elements 2k (low half) and 2k + 1
// (high half), so word << 16 is the even element as a float and word & 0xffff0000 the odd one,
// two ALU operations where the form before it (sum_avx512 on widened loads) spent a zero-extend
// (a shuffle, on the ports vcvtps2pd needs) and a shift per 8 elements: 2^20 bfloat16 on one
// Zen 5 thread 81 -> 54 us (libtorch 48; the float32 sum of as many elements 49). The even and
// odd chains hold lanes 2l and 2l + 1 of each 16, so the halving pairs them as fold_lanes does
// (same bits as every other form, a NaN result's sign and payload aside: vec_kernels.hpp).
__attribute__((target("arch=x86-64-v4"), always_inline)) inline __m512d even8(__m256i words) {
  return widen8(_mm256_castsi256_ps(_mm256_slli_epi32(words, 16)));
}
__attribute__((target("arch=x86-64-v4"), always_inline)) inline __m512d odd8(__m256i words) {
  const __m256i high_half = _mm256_set1_epi32(static_cast<int>(0xffff0000u));
  return widen8(_mm256_castsi256_ps(_mm256_and_si256(words, high_half)));
}
// The first `count` (0..16) of sixteen bfloat16, +0 for the rest; masked ones are not read.
__attribute__((target("arch=x86-64-v4"), always_inline)) inline __m256i load16_first(
    const uint16_t* p, int count) {
  const auto mask = static_cast<__mmask16>(count >= 16 ? 0xffff : (1u << count) - 1);
  return _mm256_maskz_loadu_epi16(mask, p);
}

__attribute__((target("arch=x86-64-v4"))) double sum_bf16_avx512(const uint16_t* x, int64_t n) {
  static_assert(kFloatSumLanes == 32);
  // Lane l of even[h] takes elements 16h + 2l, 16h + 2l + 32, ...; of odd[h] 16h + 2l + 1, ...
  __m512d even[2] = {_mm512_setzero_pd(), _mm512_setzero_pd()};
  __m512d odd[2] = {_mm512_setzero_pd(), _mm512_setzero_pd()};
  int64_t i = 0;
  for (; i + kFloatSumLanes <= n; i += kFloatSumLanes) {
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const __m256i words = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i + 16 * h));
      even[h] = _mm512_add_pd(even[h], even8(words));
      odd[h] = _mm512_add_pd(odd[h], odd8(words));
    }
  }
  const auto count = static_cast<int>(n - i);  // as in sum_avx512: +0 past the end
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    if (count - 16 * h <= 0) break;  // no pointer past the end
    const __m256i words = load16_first(x + i + 16 * h, count - 16 * h);
    even[h] = _mm512_add_pd(even[h], even8(words));
    odd[h] = _mm512_add_pd(odd[h], odd8(words));
  }
  // fold_lanes' halving: j + 16 into j (the second half into the first), then j + 8 (lanes
  // 4-7 of a chain into 0-3), j + 4 (lanes 2-3 into 0-1), j + 2 (lane 1 into 0), and j + 1
  // (the odd chain into the even one).
  const __m512d e16 = _mm512_add_pd(even[0], even[1]), o16 = _mm512_add_pd(odd[0], odd[1]);
  const __m256d e8 = _mm256_add_pd(_mm512_maskz_extractf64x4_pd(0xff, e16, 0),
                                   _mm512_maskz_extractf64x4_pd(0xff, e16, 1));
  const __m256d o8 = _mm256_add_pd(_mm512_maskz_extractf64x4_pd(0xff, o16, 0),
                                   _mm512_maskz_extractf64x4_pd(0xff, o16, 1));
  const __m128d e4 = _mm_add_pd(_mm256_castpd256_pd128(e8), _mm256_extractf128_pd(e8, 1));
  const __m128d o4 = _mm_add_pd(_mm256_castpd256_pd128(o8), _mm256_extractf128_pd(o8, 1));
  const __m128d e2 = _mm_add_sd(e4, _mm_unpackhi_pd(e4, e4));
  const __m128d o2 = _mm_add_sd(o4, _mm_unpackhi_pd(o4, o4));
  return _mm_cvtsd_f64(_mm_add_sd(e2, o2));
}
#endif

}  // namespace

// The plain loops: what CPUs without AVX2 run.
WICK_VEC_CLONES double sum_f32_lanes(const float* x, int64_t n) {
  return sum_lanes<kFloatSumLanes>(x, n);
}

// sum_lanes over chunks widened into a float32 buffer (a multiple of the lanes, so lane j still
// takes elements j, j + L, ... in order): 16-bit loads in the lanes' loop made GCC vectorise it
// 16 elements wide, 2x sum_f32's time.
WICK_VEC_CLONES double sum_bf16_lanes(const uint16_t* x, int64_t n) {
  constexpr int L = kFloatSumLanes;
  static_assert(kBf16Chunk % L == 0);
  double lane[L];
#pragma GCC unroll 32
  for (int j = 0; j < L; ++j) lane[j] = 0.0;  // not `= {}`: see dot2_lanes
  float buffer[kBf16Chunk];
  int64_t start = 0;
  for (;; start += kBf16Chunk) {
    const int64_t m = n - start < kBf16Chunk ? n - start : kBf16Chunk;
    for (int64_t j = 0; j < m; ++j) buffer[j] = bf16_to_float(x[start + j]);
    const int64_t whole = m - m % L;
    for (int64_t i = 0; i < whole; i += L) {
      for (int j = 0; j < L; ++j) lane[j] += static_cast<double>(buffer[i + j]);
    }
    if (m < kBf16Chunk) return fold_lanes<L>(lane, buffer + whole, m - whole);
  }
}

bool sum_form_supported(SumForm form) {
#if defined(WICK_SUM_AVX2)
  static const bool v3 = __builtin_cpu_supports("x86-64-v3");
  static const bool v4 = __builtin_cpu_supports("x86-64-v4");
  return form == SumForm::kLanes || (form == SumForm::kAvx2 && v3) ||
         (form == SumForm::kAvx512 && v4);
#else
  return form == SumForm::kLanes;
#endif
}

namespace {
// The function that runs a form; a form the CPU lacks runs the plain loop (so asking for AVX2
// on a CPU without it gives the plain loop).
template <typename E>
using SumFunction = double (*)(const E*, int64_t);
template <typename E>
SumFunction<E> sum_function(SumForm form) {
#if defined(WICK_SUM_AVX2)
  if (form == SumForm::kAvx512 && sum_form_supported(form)) {
    if constexpr (std::is_same_v<E, float>)
      return sum_avx512;
    else
      return sum_bf16_avx512;
  }
  if (form == SumForm::kAvx2 && sum_form_supported(form)) {
    if constexpr (std::is_same_v<E, float>)
      return sum_avx2;
    else
      return sum_bf16_avx2;
  }
#else
  (void)form;
#endif
  if constexpr (std::is_same_v<E, float>) {
    return sum_f32_lanes;
  } else {
    return sum_bf16_lanes;
  }
}
// The widest form the CPU runs, chosen once: rows of 10 spent a fifth of their sum's time
// choosing the form on each call.
template <typename E>
SumFunction<E> best_sum_function() {
  static const SumFunction<E> best =
      sum_function<E>(sum_form_supported(SumForm::kAvx512) ? SumForm::kAvx512 : SumForm::kAvx2);
  return best;
}
}  // namespace

double sum_f32(const float* x, int64_t n) { return best_sum_function<float>()(x, n); }

void sum_rows_f32(const float* x, int64_t stride, int64_t rows, int64_t n, double* out) {
  int64_t r = 0;
#if defined(WICK_SUM_AVX2)
  static const bool four_at_once = sum_form_supported(SumForm::kAvx512);
  if (four_at_once) {
    for (; r + 4 <= rows; r += 4) sum4_avx512(x + r * stride, stride, n, out + r);
  }
#endif
  const SumFunction<float> sum = best_sum_function<float>();
  for (; r < rows; ++r) out[r] = sum(x + r * stride, n);
}
double sum_bf16(const uint16_t* x, int64_t n) { return best_sum_function<uint16_t>()(x, n); }
double sum_f32_form(SumForm form, const float* x, int64_t n) {
  return sum_function<float>(form)(x, n);
}
double sum_bf16_form(SumForm form, const uint16_t* x, int64_t n) {
  return sum_function<uint16_t>(form)(x, n);
}

WICK_VEC_CLONES double sum_f64(const double* x, int64_t n) {
  return sum_lanes<kDoubleSumLanes>(x, n);
}

namespace {
// An element as a double: uint16_t elements are bfloat16 bit patterns.
[[gnu::always_inline]] inline double as_double(float v) { return static_cast<double>(v); }
[[gnu::always_inline]] inline double as_double(uint16_t bf16_bits) {
  return static_cast<double>(bf16_to_float(bf16_bits));
}
template <typename E>
[[gnu::always_inline]] inline void accumulate_rows(double* acc, const E* x, int64_t stride,
                                                   int64_t rows, int64_t n) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const E *x0 = x + r * stride, *x1 = x0 + stride, *x2 = x1 + stride, *x3 = x2 + stride;
    for (int64_t j = 0; j < n; ++j) {
      acc[j] += (as_double(x0[j]) + as_double(x1[j])) + (as_double(x2[j]) + as_double(x3[j]));
    }
  }
  for (; r < rows; ++r) {
    const E* xr = x + r * stride;
    for (int64_t j = 0; j < n; ++j) acc[j] += as_double(xr[j]);
  }
}
}  // namespace

WICK_VEC_CLONES void accumulate_f32(double* acc, const float* x, int64_t n) {
  for (int64_t j = 0; j < n; ++j) acc[j] += static_cast<double>(x[j]);
}
WICK_VEC_CLONES void accumulate_rows_f32(double* acc, const float* x, int64_t stride, int64_t rows,
                                         int64_t n) {
  accumulate_rows(acc, x, stride, rows, n);
}
WICK_VEC_CLONES void accumulate_bf16(double* acc, const uint16_t* x, int64_t n) {
  for (int64_t j = 0; j < n; ++j) acc[j] += as_double(x[j]);
}
namespace {
WICK_VEC_CLONES void accumulate_rows_bf16_lanes(double* acc, const uint16_t* x, int64_t stride,
                                                int64_t rows, int64_t n) {
  accumulate_rows(acc, x, stride, rows, n);
}

#if defined(WICK_SUM_AVX2)
// Adds sixteen columns, given as their even and odd elements, to acc[0..count) in column order;
// a whole block (count 16) with plain loads and stores, a tail with masked ones (with masked
// loads and stores in every block the sum of a [1024, 1024] over dim 0 took 100-110 us on the
// Zen 5, against 77 before this form and 50-56 with it).
__attribute__((target("arch=x86-64-v4"), always_inline)) inline void add_columns16(double* acc,
                                                                                   __m512d even,
                                                                                   __m512d odd,
                                                                                   int count) {
  const __m512i first_index = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
  const __m512i second_index = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
  const __m512d first = _mm512_permutex2var_pd(even, first_index, odd);
  const __m512d second = _mm512_permutex2var_pd(even, second_index, odd);
  if (count == 16) {
    _mm512_storeu_pd(acc, _mm512_add_pd(_mm512_loadu_pd(acc), first));
    _mm512_storeu_pd(acc + 8, _mm512_add_pd(_mm512_loadu_pd(acc + 8), second));
    return;
  }
  const auto first_mask = static_cast<__mmask8>(count >= 8 ? 0xff : (1u << count) - 1);
  _mm512_mask_storeu_pd(acc, first_mask,
                        _mm512_add_pd(_mm512_maskz_loadu_pd(first_mask, acc), first));
  if (count <= 8) return;  // no pointer past the end
  const auto second_mask = static_cast<__mmask8>((1u << (count - 8)) - 1);
  _mm512_mask_storeu_pd(acc + 8, second_mask,
                        _mm512_add_pd(_mm512_maskz_loadu_pd(second_mask, acc + 8), second));
}
// Sixteen bfloat16 from p, or the first `count` of them (+0 for the rest) when count < 16.
__attribute__((target("arch=x86-64-v4"), always_inline)) inline __m256i load16(const uint16_t* p,
                                                                               int count) {
  if (count == 16) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  return load16_first(p, count);
}
// One pass over the columns: whole blocks of 16 (count a constant the compiler folds), then the
// tail.
template <typename Block>
__attribute__((target("arch=x86-64-v4"), always_inline)) inline void over_columns(int64_t n,
                                                                                  Block block) {
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) block(j, 16);
  if (j < n) block(j, static_cast<int>(n - j));
}
// accumulate_rows on bfloat16 with sum_bf16_avx512's widening: sixteen columns of a row as
// their even and odd elements in doubles, the rows added as accumulate_rows adds them (the
// same bits), then the two interleaved back into column order (one vpermt2pd per 8 columns)
// before the update of acc. The clone of accumulate_rows spent a zero-extend and a shift per
// 8 elements: a [1024, 1024] summed over dim 0 on one Zen 5 thread took 77 us, this form 50-56,
// libtorch 58-66 (docs/cpu-kernels.md, "bfloat16 sums without a shuffle").
__attribute__((target("arch=x86-64-v4"))) void accumulate_rows_bf16_avx512(
    double* acc, const uint16_t* x, int64_t stride, int64_t rows, int64_t n) {
  int64_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    const uint16_t *x0 = x + r * stride, *x1 = x0 + stride, *x2 = x1 + stride, *x3 = x2 + stride;
    over_columns(
        n, [&](int64_t j, int count) __attribute__((target("arch=x86-64-v4"), always_inline)) {
          const __m256i w0 = load16(x0 + j, count), w1 = load16(x1 + j, count);
          const __m256i w2 = load16(x2 + j, count), w3 = load16(x3 + j, count);
          const __m512d even = _mm512_add_pd(_mm512_add_pd(even8(w0), even8(w1)),
                                             _mm512_add_pd(even8(w2), even8(w3)));
          const __m512d odd =
              _mm512_add_pd(_mm512_add_pd(odd8(w0), odd8(w1)), _mm512_add_pd(odd8(w2), odd8(w3)));
          add_columns16(acc + j, even, odd, count);
        });
  }
  for (; r < rows; ++r) {
    const uint16_t* xr = x + r * stride;
    over_columns(
        n, [&](int64_t j, int count) __attribute__((target("arch=x86-64-v4"), always_inline)) {
          const __m256i words = load16(xr + j, count);
          add_columns16(acc + j, even8(words), odd8(words), count);
        });
  }
}
#endif
}  // namespace

namespace {
// The function that runs a form, as sum_function: a form the CPU lacks (and kAvx2, which has
// none of its own here) runs the plain loop's clone.
using AccumulateRowsFunction = void (*)(double*, const uint16_t*, int64_t, int64_t, int64_t);
AccumulateRowsFunction accumulate_rows_bf16_function(SumForm form) {
#if defined(WICK_SUM_AVX2)
  if (form == SumForm::kAvx512 && sum_form_supported(form)) return accumulate_rows_bf16_avx512;
#else
  (void)form;
#endif
  return accumulate_rows_bf16_lanes;
}
}  // namespace

void accumulate_rows_bf16_form(SumForm form, double* acc, const uint16_t* x, int64_t stride,
                               int64_t rows, int64_t n) {
  accumulate_rows_bf16_function(form)(acc, x, stride, rows, n);
}
void accumulate_rows_bf16(double* acc, const uint16_t* x, int64_t stride, int64_t rows, int64_t n) {
  // Chosen once, as best_sum_function does.
  static const AccumulateRowsFunction best = accumulate_rows_bf16_function(SumForm::kAvx512);
  best(acc, x, stride, rows, n);
}
WICK_VEC_CLONES void accumulate_f64(double* acc, const double* x, int64_t n) {
  for (int64_t j = 0; j < n; ++j) acc[j] += x[j];
}

}  // namespace wick::cpu::vec
