// vec_kernels.cpp: see vec_kernels.hpp. Every loop body is straight-line code (vec_math.hpp's
// exp, selects instead of branches, fixed partial-sum lanes instead of one running sum), so GCC
// vectorises it at each clone's width; built with -fno-trapping-math (it lets GCC turn selects
// into masks) and -ffp-contract=off (see the header). Measured on Zen 4 (docs/cpu-kernels.md):
// exp of 2^20 floats through the op 26.5 GB/s with the AVX-512 clone against 5.7 GB/s with
// libm's expf; a sum of 2^20 floats 87 GB/s against 8.2 (GB/s: 1e9 bytes read and written/s).
#include "vec_kernels.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "vec_math.hpp"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define WICK_VEC_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define WICK_VEC_CLONES
#endif

namespace wick::cpu::vec {

WICK_VEC_CLONES void exp_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = exp(x[i]);
}

WICK_VEC_CLONES void sigmoid_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = sigmoid(x[i]);
}

WICK_VEC_CLONES void tanh_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = tanh(x[i]);
}

WICK_VEC_CLONES void log_f32(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = log(x[i]);
}

namespace {
// bfloat16 in chunks through a float32 buffer: widen, the float32 loop, round. Written as one
// loop, GCC vectorised it 16 elements wide (the width of the 16-bit loads), spilled exp's
// constants and ran at half exp_f32's speed (1.37-1.53 ms against 0.72-0.84 for 2^20).
constexpr int64_t kBf16Chunk = 256;
template <typename Fn>
[[gnu::always_inline]] inline void map_bf16(const uint16_t* x, uint16_t* y, int64_t n,
                                            const Fn& fn) {
  float buffer[kBf16Chunk];
  for (int64_t start = 0; start < n; start += kBf16Chunk) {
    const int64_t m = n - start < kBf16Chunk ? n - start : kBf16Chunk;
    for (int64_t j = 0; j < m; ++j) buffer[j] = bf16_to_float(x[start + j]);
    for (int64_t j = 0; j < m; ++j) buffer[j] = fn(buffer[j]);
    for (int64_t j = 0; j < m; ++j) y[start + j] = float_to_bf16(buffer[j]);
  }
}
}  // namespace

WICK_VEC_CLONES void exp_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  map_bf16(
      x, y, n, [](float v) __attribute__((always_inline)) { return exp(v); });
}

WICK_VEC_CLONES void sigmoid_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  map_bf16(
      x, y, n, [](float v) __attribute__((always_inline)) { return sigmoid(v); });
}

WICK_VEC_CLONES void tanh_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  map_bf16(
      x, y, n, [](float v) __attribute__((always_inline)) { return tanh(v); });
}

WICK_VEC_CLONES void log_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  map_bf16(
      x, y, n, [](float v) __attribute__((always_inline)) { return log(v); });
}

// std::fma is exact whatever -ffp-contract says; the v3 and v4 clones vectorise it (the
// baseline clone calls libm's fmaf, correct but scalar).
WICK_VEC_CLONES void axpy_f32(const float* a, const float* b, float alpha, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::fma(b[i], alpha, a[i]);
}
WICK_VEC_CLONES void axpy_f64(const double* a, const double* b, double alpha, double* out,
                              int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = std::fma(b[i], alpha, a[i]);
}

namespace {
// Lanes: four AVX2 vectors of independent FMA chains (latency 4, two issued per cycle).
template <typename T, int L>
[[gnu::always_inline]] inline T dot_lanes(const T* a, const T* b, int64_t n) {
  T lanes[L];
#pragma GCC unroll 32
  for (int j = 0; j < L; ++j) lanes[j] = T(0);  // not `= {}`: see dot2_lanes
  const int64_t whole = n - n % L;
  for (int64_t i = 0; i < whole; i += L) {
    for (int j = 0; j < L; ++j) lanes[j] = std::fma(a[i + j], b[i + j], lanes[j]);
  }
  for (int64_t i = whole; i < n; ++i) lanes[i - whole] = std::fma(a[i], b[i], lanes[i - whole]);
  for (int width = L / 2; width > 0; width /= 2) {
    for (int j = 0; j < width; ++j) lanes[j] += lanes[j + width];
  }
  return lanes[0];
}

// Two rows against one vector, each row with dot_lanes' lanes and order (so the same bits): the
// vector's loads are shared by both rows.
template <typename T, int L>
[[gnu::always_inline]] inline void dot2_lanes(const T* a0, const T* a1, const T* b, int64_t n,
                                              T* out) {
  // Zeroed in a loop GCC unrolls: `= {}` became two `rep stos` (10% of a [1024, 1024] matrix
  // times vector's time, perf).
  T lanes0[L], lanes1[L];
#pragma GCC unroll 32
  for (int j = 0; j < L; ++j) lanes0[j] = lanes1[j] = T(0);
  const int64_t whole = n - n % L;
  for (int64_t i = 0; i < whole; i += L) {
    for (int j = 0; j < L; ++j) {
      lanes0[j] = std::fma(a0[i + j], b[i + j], lanes0[j]);
      lanes1[j] = std::fma(a1[i + j], b[i + j], lanes1[j]);
    }
  }
  for (int64_t i = whole; i < n; ++i) {
    lanes0[i - whole] = std::fma(a0[i], b[i], lanes0[i - whole]);
    lanes1[i - whole] = std::fma(a1[i], b[i], lanes1[i - whole]);
  }
  for (int width = L / 2; width > 0; width /= 2) {
    for (int j = 0; j < width; ++j) {
      lanes0[j] += lanes0[j + width];
      lanes1[j] += lanes1[j + width];
    }
  }
  out[0] = lanes0[0];
  out[1] = lanes1[0];
}

template <typename T, int L>
[[gnu::always_inline]] inline void dot_rows(const T* a, int64_t row_stride, int64_t rows,
                                            const T* b, int64_t n, T* out) {
  int64_t r = 0;
  for (; r + 2 <= rows; r += 2)
    dot2_lanes<T, L>(a + r * row_stride, a + (r + 1) * row_stride, b, n, out + r);
  if (r < rows) out[r] = dot_lanes<T, L>(a + r * row_stride, b, n);
}
}  // namespace

WICK_VEC_CLONES float dot_f32(const float* a, const float* b, int64_t n) {
  return dot_lanes<float, 32>(a, b, n);
}
WICK_VEC_CLONES double dot_f64(const double* a, const double* b, int64_t n) {
  return dot_lanes<double, 16>(a, b, n);
}
WICK_VEC_CLONES void dot_rows_f32(const float* a, int64_t row_stride, int64_t rows, const float* b,
                                  int64_t n, float* out) {
  dot_rows<float, 32>(a, row_stride, rows, b, n, out);
}
WICK_VEC_CLONES void dot_rows_f64(const double* a, int64_t row_stride, int64_t rows,
                                  const double* b, int64_t n, double* out) {
  dot_rows<double, 16>(a, row_stride, rows, b, n, out);
}

namespace {
template <typename T>
inline void axpy_strided(const char* a, int64_t sa, const char* b, int64_t sb, T alpha, char* out,
                         int64_t so, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T x, y;
    std::memcpy(&x, a + i * sa, sizeof(T));
    std::memcpy(&y, b + i * sb, sizeof(T));
    const T r = std::fma(y, alpha, x);
    std::memcpy(out + i * so, &r, sizeof(T));
  }
}
}  // namespace

WICK_VEC_CLONES void axpy_strided_f32(const char* a, int64_t sa, const char* b, int64_t sb,
                                      float alpha, char* out, int64_t so, int64_t n) {
  axpy_strided<float>(a, sa, b, sb, alpha, out, so, n);
}
WICK_VEC_CLONES void axpy_strided_f64(const char* a, int64_t sa, const char* b, int64_t sb,
                                      double alpha, char* out, int64_t so, int64_t n) {
  axpy_strided<double>(a, sa, b, sb, alpha, out, so, n);
}

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
// Four elements as floats: a load, or for bfloat16 a zero-extending load and a shift.
__attribute__((target("arch=x86-64-v3"), always_inline)) inline __m128 load4(const float* p) {
  return _mm_loadu_ps(p);
}
__attribute__((target("arch=x86-64-v3"), always_inline)) inline __m128 load4(const uint16_t* p) {
  const __m128i four = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
  return _mm_castsi128_ps(_mm_slli_epi32(_mm_cvtepu16_epi32(four), 16));
}

template <typename E>
__attribute__((target("arch=x86-64-v3"))) double sum_avx2(const E* x, int64_t n) {
  constexpr int kChains = kFloatSumLanes / 4;
  __m256d acc[kChains];
#pragma GCC unroll 8
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + kFloatSumLanes <= n; i += kFloatSumLanes) {
#pragma GCC unroll 8
    for (int c = 0; c < kChains; ++c) {
      acc[c] = _mm256_add_pd(acc[c], _mm256_cvtps_pd(load4(x + i + 4 * c)));
    }
  }
  // The tail and fold_lanes' halving, in registers. Written to the stack and read back as
  // scalars (fold_lanes), they cost store-forwarding stalls: 26% of a cross_entropy step on
  // [256, 10], whose rows are all tail. Lane j of the tail takes element j or +0.0, and adding
  // +0.0 leaves a lane as it is (a lane starts at +0.0 and so is never -0.0): the same bits.
  const auto count = static_cast<int>(n - i);
  if (count > 0) {
    if constexpr (std::is_same_v<E, float>) {
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
    } else {
      uint16_t tail[kFloatSumLanes] = {};  // +0.0 past the end
      for (int j = 0; j < count; ++j) tail[j] = x[i + j];
#pragma GCC unroll 8
      for (int c = 0; c < kChains; ++c) {
        acc[c] = _mm256_add_pd(acc[c], _mm256_cvtps_pd(load4(tail + 4 * c)));
      }
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
// bfloat16 (sum_avx2<uint16_t>) widens four elements in a register before each conversion to
// double: the chunked form below spent as long widening into its buffer as adding (perf), 2.1x
// libtorch's time for the rows of a [1024, 1024].

// The AVX-512 form: the same 32 lanes as 4 chains of 8, each converting 8 floats. The plain
// loop's x86-64-v4 clone (what AVX-512 machines ran) loaded 16 floats, converted the low 8 and
// extracted the high 8, and its tail and fold went through the stack: on one Zen 4 thread 1.64x
// libtorch's time for 2^20 floats, 2.6x for the rows of a [256, 10] (docs/cpu-kernels.md,
// "AVX-512 sums").
__attribute__((target("arch=x86-64-v4"), always_inline)) inline __m256 load8(const float* p) {
  return _mm256_loadu_ps(p);
}
__attribute__((target("arch=x86-64-v4"), always_inline)) inline __m256 load8(const uint16_t* p) {
  const __m128i eight = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(eight), 16));
}
// The first `count` (0..8) of eight elements, +0.0 for the rest; masked lanes are not read.
__attribute__((target("arch=x86-64-v4"), always_inline)) inline __m256 load8_first(const float* p,
                                                                                   __mmask8 m) {
  return _mm256_maskz_loadu_ps(m, p);
}
__attribute__((target("arch=x86-64-v4"), always_inline)) inline __m256 load8_first(
    const uint16_t* p, __mmask8 m) {
  const __m128i eight = _mm_maskz_loadu_epi16(m, p);
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(eight), 16));
}

// Eight floats as doubles. GCC 12's _mm512_cvtps_pd, _mm512_extractf64x4_pd and the cast to a
// 256-bit half pass an undefined vector that -Wuninitialized flags; the zero-masking forms with
// a full mask are the same instructions.
__attribute__((target("arch=x86-64-v4"), always_inline)) inline __m512d widen8(__m256 v) {
  return _mm512_maskz_cvtps_pd(0xff, v);
}

template <typename E>
__attribute__((target("arch=x86-64-v4"))) double sum_avx512(const E* x, int64_t n) {
  constexpr int kChains = kFloatSumLanes / 8;
  __m512d acc[kChains];
#pragma GCC unroll 4
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_setzero_pd();
  int64_t i = 0;
  for (; i + kFloatSumLanes <= n; i += kFloatSumLanes) {
#pragma GCC unroll 4
    for (int c = 0; c < kChains; ++c) {
      acc[c] = _mm512_add_pd(acc[c], widen8(load8(x + i + 8 * c)));
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
      acc[c] = _mm512_add_pd(acc[c], widen8(load8_first(x + i + 8 * c, mask)));
    }
  }
  // Halving over the 32 lanes: j + 16 (chains 2-3 into 0-1), j + 8 (chain 1 into 0), then
  // within the chain j + 4 (high half into low), j + 2, j + 1.
  acc[0] = _mm512_add_pd(acc[0], acc[2]);
  acc[1] = _mm512_add_pd(acc[1], acc[3]);
  acc[0] = _mm512_add_pd(acc[0], acc[1]);
  const __m256d quad = _mm256_add_pd(_mm512_maskz_extractf64x4_pd(0xff, acc[0], 0),
                                     _mm512_maskz_extractf64x4_pd(0xff, acc[0], 1));
  const __m128d pair = _mm_add_pd(_mm256_castpd256_pd128(quad), _mm256_extractf128_pd(quad, 1));
  return _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)));
}
#endif

}  // namespace

// The plain loops: what CPUs without AVX2 run.
WICK_VEC_CLONES double sum_f32_lanes(const float* x, int64_t n) {
  return sum_lanes<kFloatSumLanes>(x, n);
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
// The function that runs a form; a form the CPU lacks runs the plain loop.
template <typename E>
using SumFunction = double (*)(const E*, int64_t);
template <typename E>
SumFunction<E> sum_function(SumForm form) {
#if defined(WICK_SUM_AVX2)
  if (form == SumForm::kAvx512 && sum_form_supported(form)) return sum_avx512<E>;
  if (form == SumForm::kAvx2 && sum_form_supported(form)) return sum_avx2<E>;
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
      sum_function<E>(sum_form_supported(SumForm::kAvx512) ? SumForm::kAvx512
                      : sum_form_supported(SumForm::kAvx2) ? SumForm::kAvx2
                                                           : SumForm::kLanes);
  return best;
}
}  // namespace

double sum_f32(const float* x, int64_t n) { return best_sum_function<float>()(x, n); }
double sum_bf16(const uint16_t* x, int64_t n) { return best_sum_function<uint16_t>()(x, n); }
double sum_f32_form(SumForm form, const float* x, int64_t n) {
  return sum_function<float>(form)(x, n);
}
double sum_bf16_form(SumForm form, const uint16_t* x, int64_t n) {
  return sum_function<uint16_t>(form)(x, n);
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

WICK_VEC_CLONES double sum_f64(const double* x, int64_t n) {
  return sum_lanes<kDoubleSumLanes>(x, n);
}

namespace {
// Selects, not branches (bitwise & and | on the compares, no short circuit), so that each
// clone vectorises the loop: it replaced a per-element call with two isnan branches, 8.5x
// slower than libtorch's amax over dim 0 (docs/cpu-kernels.md).
template <typename T, bool kMax, bool kIndex>
inline void fold_extreme(T* best, int64_t* best_index, const T* row, int64_t row_index, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    const T c = row[j], b = best[j];
    // c wins where it is larger (smaller), or a NaN, and b is not a NaN: `!(c <= b)` is true
    // for a NaN on either side. Two compares where `(c > b) | ((c != c) & (b == b))` took three.
    const bool beats_or_nan = kMax ? !(c <= b) : !(c >= b);
    const bool take = beats_or_nan & (b == b);
    best[j] = take ? c : b;
    if constexpr (kIndex) best_index[j] = take ? row_index : best_index[j];
  }
}
template <typename T>
inline void fold_extreme_any(T* best, int64_t* best_index, const T* row, int64_t row_index,
                             int64_t n, bool is_max) {
  if (best_index == nullptr) {
    is_max ? fold_extreme<T, true, false>(best, nullptr, row, row_index, n)
           : fold_extreme<T, false, false>(best, nullptr, row, row_index, n);
  } else {
    is_max ? fold_extreme<T, true, true>(best, best_index, row, row_index, n)
           : fold_extreme<T, false, true>(best, best_index, row, row_index, n);
  }
}
}  // namespace

WICK_VEC_CLONES void fold_extreme_f32(float* best, int64_t* best_index, const float* row,
                                      int64_t row_index, int64_t n, bool is_max) {
  fold_extreme_any(best, best_index, row, row_index, n, is_max);
}
WICK_VEC_CLONES void fold_extreme_f64(double* best, int64_t* best_index, const double* row,
                                      int64_t row_index, int64_t n, bool is_max) {
  fold_extreme_any(best, best_index, row, row_index, n, is_max);
}

namespace {
// The first extreme of a contiguous run: blocks of L elements folded into L lanes by
// fold_extreme (a NaN is taken over a number and stays; a tie keeps the earlier block), each
// lane remembering the block it took its value from; then the lanes combined by the same rule,
// the lower element index winning ties, and the tail walked. The answer is the scalar walk's:
// the first NaN if any, else the first of the extreme values.
template <typename T, bool kMax>
inline bool replaces(T candidate, T best) {
  return (kMax ? !(candidate <= best) : !(candidate >= best)) && best == best;  // as fold_extreme
}
// Inlined by force: out of line, it was compiled for the baseline target, not the clones (SSE2
// selects of 64-bit indices: 3.4 ms for max over the rows of a [1024, 1024]).
template <typename T, int L, bool kMax>
[[gnu::always_inline]] inline int64_t extreme_index(const T* x, int64_t n, T* value) {
  int64_t at = 0;
  int64_t i = 1;
  *value = x[0];
  if (n >= 2 * L) {
    T best[L];
    int64_t block[L];
#pragma GCC unroll 64
    for (int j = 0; j < L; ++j) {
      best[j] = x[j];
      block[j] = 0;  // not `= {}`: see dot2_lanes
    }
    int64_t b = 1;
    for (; (b + 1) * L <= n; ++b) fold_extreme<T, kMax, true>(best, block, x + b * L, b, L);
    *value = best[0];
    at = block[0] * L;
    for (int j = 1; j < L; ++j) {
      const int64_t index = block[j] * L + j;
      const bool both_nan = best[j] != best[j] && *value != *value;
      if (replaces<T, kMax>(best[j], *value) || ((best[j] == *value || both_nan) && index < at)) {
        *value = best[j];
        at = index;
      }
    }
    i = b * L;  // the tail comes after every lane's elements
  }
  for (; i < n; ++i) {
    if (replaces<T, kMax>(x[i], *value)) {
      *value = x[i];
      at = i;
    }
  }
  return at;
}

// extreme_index's value without the index (amax, amin, max of everything): the lanes keep no
// block numbers, and NaNs are only noted, so the loop is a max (or min) and a NaN test per
// vector. Only a NaN's payload and a zero's sign depend on which of equal candidates comes
// first: where there is a NaN or the result is a zero (and for short runs), this returns false
// and extreme_f32 or extreme_f64 decides, so the bits always match theirs. Called, not
// inlined: with extreme_index inlined here too, amax over the rows of a [1024, 1024] took 25%
// longer, and rows of 10 10% longer.
template <typename T, int L, bool kMax>
[[gnu::always_inline]] inline bool extreme_value_lanes(const T* x, int64_t n, T* value) {
  using Bits = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;  // a lane's NaN flag
  static_assert(2 * L <= kExtremeValueMinRun);
  if (n < kExtremeValueMinRun) return false;
  T best[L];
  Bits nan_seen[L];
#pragma GCC unroll 64
  for (int j = 0; j < L; ++j) {
    best[j] = x[j];
    nan_seen[j] = x[j] != x[j] ? Bits(-1) : Bits(0);
  }
  int64_t i = L;
  for (; i + L <= n; i += L) {
    for (int j = 0; j < L; ++j) {
      const T c = x[i + j];
      best[j] = (kMax ? c > best[j] : c < best[j]) ? c : best[j];
      nan_seen[j] |= c != c ? Bits(-1) : Bits(0);
    }
  }
  Bits any_nan = 0;
  for (int j = 0; j < L; ++j) any_nan |= nan_seen[j];
  if (any_nan != 0) return false;
  // The lanes halved in vectors: a scalar walk over them took as long as the blocks of a
  // 1024-element row. Unrolled, so that each step has a fixed width (GCC otherwise kept the
  // width a variable and ran most steps in its scalar epilogue).
#pragma GCC unroll 8
  for (int width = L / 2; width > 0; width /= 2) {
    for (int j = 0; j < width; ++j) {
      const T c = best[j + width];
      best[j] = (kMax ? c > best[j] : c < best[j]) ? c : best[j];
    }
  }
  T v = best[0];
  for (; i < n; ++i) v = replaces<T, kMax>(x[i], v) ? x[i] : v;
  *value = v;
  return v == v && v != T(0);
}
}  // namespace

WICK_VEC_CLONES float extreme_value_f32(const float* x, int64_t n, bool is_max) {
  float value;
  if (is_max ? extreme_value_lanes<float, 32, true>(x, n, &value)
             : extreme_value_lanes<float, 32, false>(x, n, &value)) {
    return value;
  }
  extreme_f32(x, n, is_max, &value);
  return value;
}
WICK_VEC_CLONES double extreme_value_f64(const double* x, int64_t n, bool is_max) {
  double value;
  if (is_max ? extreme_value_lanes<double, 16, true>(x, n, &value)
             : extreme_value_lanes<double, 16, false>(x, n, &value)) {
    return value;
  }
  extreme_f64(x, n, is_max, &value);
  return value;
}
WICK_VEC_CLONES int64_t extreme_f32(const float* x, int64_t n, bool is_max, float* value) {
  return is_max ? extreme_index<float, 64, true>(x, n, value)
                : extreme_index<float, 64, false>(x, n, value);
}
WICK_VEC_CLONES int64_t extreme_f64(const double* x, int64_t n, bool is_max, double* value) {
  return is_max ? extreme_index<double, 32, true>(x, n, value)
                : extreme_index<double, 32, false>(x, n, value);
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
WICK_VEC_CLONES void accumulate_rows_bf16(double* acc, const uint16_t* x, int64_t stride,
                                          int64_t rows, int64_t n) {
  accumulate_rows(acc, x, stride, rows, n);
}
WICK_VEC_CLONES void accumulate_f64(double* acc, const double* x, int64_t n) {
  for (int64_t j = 0; j < n; ++j) acc[j] += x[j];
}

namespace {
// Softmax on float32 or bfloat16 elements (E = float or uint16_t bit patterns) in float32
// arithmetic: a bfloat16 element is widened where it is read and the output rounded where it
// is written, so both give the bits of the float32 code on the widened input, rounded once.
// `y` holds exp(x - max) in float32 between the passes: the output itself for float32, a
// scratch buffer for bfloat16.
[[gnu::always_inline]] inline float as_float(float v) { return v; }
[[gnu::always_inline]] inline float as_float(uint16_t bf16_bits) {
  return bf16_to_float(bf16_bits);
}
template <typename E>
[[gnu::always_inline]] inline E from_float(float v) {
  if constexpr (std::is_same_v<E, float>) {
    return v;
  } else {
    return float_to_bf16(v);
  }
}

template <typename E>
[[gnu::always_inline]] inline void softmax_columns(const E* x, E* out, float* y, int64_t y_stride,
                                                   int64_t n, int64_t stride, int64_t width,
                                                   bool log_form) {
  float shift[kSoftmaxColumns];
  double total[kSoftmaxColumns];
  for (int64_t j = 0; j < width; ++j) shift[j] = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    const E* xi = x + i * stride;
    for (int64_t j = 0; j < width; ++j) {
      shift[j] = as_float(xi[j]) > shift[j] ? as_float(xi[j]) : shift[j];
    }
  }
  for (int64_t j = 0; j < width; ++j) {
    shift[j] = shift[j] == -std::numeric_limits<float>::infinity() ? 0.0f : shift[j];
    total[j] = 0.0;
  }
  for (int64_t i = 0; i < n; ++i) {
    const E* xi = x + i * stride;
    float* yi = y + i * y_stride;
    for (int64_t j = 0; j < width; ++j) {
      yi[j] = exp(as_float(xi[j]) - shift[j]);
      total[j] += yi[j];
    }
  }
  if (log_form) {
    double log_total[kSoftmaxColumns];
    for (int64_t j = 0; j < width; ++j) log_total[j] = std::log(total[j]);
    for (int64_t i = 0; i < n; ++i) {
      const E* xi = x + i * stride;
      E* oi = out + i * stride;
      for (int64_t j = 0; j < width; ++j) {
        oi[j] = from_float<E>(
            static_cast<float>(static_cast<double>(as_float(xi[j]) - shift[j]) - log_total[j]));
      }
    }
  } else {
    float inv[kSoftmaxColumns];
    for (int64_t j = 0; j < width; ++j) inv[j] = static_cast<float>(1.0 / total[j]);
    for (int64_t i = 0; i < n; ++i) {
      const float* yi = y + i * y_stride;
      E* oi = out + i * stride;
      for (int64_t j = 0; j < width; ++j) oi[j] = from_float<E>(yi[j] * inv[j]);
    }
  }
}

template <typename E>
[[gnu::always_inline]] inline void softmax_row(const E* x, E* out, float* y, int64_t n,
                                               bool log_form) {
  // The row as float32: x itself, or bfloat16 widened into y first (the max loop over 16-bit
  // loads was scalar code: 1.64 ms for the rows of a [1024, 1024] against 1.49 with whole
  // float32 copies).
  const float* xf = nullptr;
  if constexpr (std::is_same_v<E, float>) {
    xf = x;
  } else {
    for (int64_t k = 0; k < n; ++k) y[k] = bf16_to_float(x[k]);
    xf = y;
  }
  // max over 64 lanes; `v > m ? v : m` skips NaN, in any order, so the lane count does not
  // change the result. With 16 lanes GCC unrolled the lane loop and left 16 scalar maxss
  // (about 15% of the float32 rows' time, perf); 64 stay a loop, vectorised.
  constexpr int kMaxLanes = 64;
  float shift = -std::numeric_limits<float>::infinity();
  int64_t i = 0;
  if (n >= kMaxLanes) {
    float lane_max[kMaxLanes];
    for (int j = 0; j < kMaxLanes; ++j) lane_max[j] = -std::numeric_limits<float>::infinity();
    for (; i + kMaxLanes <= n; i += kMaxLanes) {
      for (int j = 0; j < kMaxLanes; ++j) {
        lane_max[j] = xf[i + j] > lane_max[j] ? xf[i + j] : lane_max[j];
      }
    }
    // Halving: six vector steps instead of a chain of 63 dependent compares (about 190 cycles
    // of latency per row, which short rows pay in full).
    for (int width = kMaxLanes / 2; width > 0; width /= 2) {
      for (int j = 0; j < width; ++j) {
        lane_max[j] = lane_max[j + width] > lane_max[j] ? lane_max[j + width] : lane_max[j];
      }
    }
    shift = lane_max[0];
  }
  // The tail after the lanes, not into them: scalar stores into the lanes read back as vectors
  // by the halving stalled store forwarding (13% of a cross_entropy step on [256, 10]).
  for (; i < n; ++i) shift = xf[i] > shift ? xf[i] : shift;
  if (shift == -std::numeric_limits<float>::infinity()) shift = 0;
  // exp(x - max) into y (in place for bfloat16), then y summed in double by sum_f32 (the row is
  // still in L1). Two loops, not one: the fused loop (exp, store, convert, add) vectorised
  // worse; split, BM_softmax_rows went 1.013 -> 0.871 ms on one thread (docs/cpu-kernels.md).
  for (i = 0; i < n; ++i) y[i] = exp(xf[i] - shift);
  const double total = sum_f32(y, n);
  if (log_form) {
    const double log_total = std::log(total);
    for (int64_t k = 0; k < n; ++k) {
      out[k] = from_float<E>(
          static_cast<float>(static_cast<double>(as_float(x[k]) - shift) - log_total));
    }
  } else {
    const float inv = static_cast<float>(1.0 / total);
    for (int64_t k = 0; k < n; ++k) out[k] = from_float<E>(y[k] * inv);
  }
}
}  // namespace

WICK_VEC_CLONES void softmax_columns_f32(const float* x, float* y, int64_t n, int64_t stride,
                                         int64_t width, bool log_form) {
  softmax_columns(x, y, y, stride, n, stride, width, log_form);
}

WICK_VEC_CLONES void softmax_columns_bf16(const uint16_t* x, uint16_t* y, float* scratch, int64_t n,
                                          int64_t stride, int64_t width, bool log_form) {
  softmax_columns(x, y, scratch, width, n, stride, width, log_form);
}

WICK_VEC_CLONES void softmax_row_f32(const float* x, float* y, int64_t n, bool log_form) {
  softmax_row(x, y, y, n, log_form);
}

WICK_VEC_CLONES void softmax_row_bf16(const uint16_t* x, uint16_t* y, float* scratch, int64_t n,
                                      bool log_form) {
  softmax_row(x, y, scratch, n, log_form);
}

}  // namespace wick::cpu::vec
