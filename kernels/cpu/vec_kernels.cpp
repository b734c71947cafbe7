// vec_kernels.cpp: see vec_kernels.hpp. The elementwise loops (exp, sigmoid, tanh, log, axpy),
// dot products and softmax rows and columns; the sums are in vec_sums.cpp, max and min in
// vec_extremes.cpp. Every loop body is straight-line code (vec_math.hpp's exp, selects instead
// of branches, fixed partial-sum lanes instead of one running sum), so GCC vectorises it at
// each clone's width (vec_clones.hpp); built with -fno-trapping-math (it lets GCC turn selects
// into masks) and -ffp-contract=off (see the header). Measured on Zen 4 (docs/cpu-kernels.md):
// exp of 2^20 floats through the op 26.5 GB/s with the AVX-512 clone against 5.7 GB/s with
// libm's expf.
#include "vec_kernels.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "vec_clones.hpp"
#include "vec_math.hpp"
#include "wick/philox.hpp"

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

// sin and cos: the vectorised in-range form everywhere, then libm for the few arguments past
// kTrigLimit, inf and NaN (found by a second, cheap pass only when the first saw one).
namespace {
template <float (*kInRange)(float), float (*kAny)(float)>
[[gnu::always_inline]] inline void trig_f32(const float* x, float* y, int64_t n) {
  int out_of_range = 0;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = kInRange(x[i]);
    out_of_range |= trig_in_range(x[i]) ? 0 : 1;
  }
  if (out_of_range == 0) return;
  for (int64_t i = 0; i < n; ++i) {
    if (!trig_in_range(x[i])) y[i] = kAny(x[i]);
  }
}
}  // namespace

WICK_VEC_CLONES void sin_f32(const float* x, float* y, int64_t n) {
  trig_f32<sin_in_range, sin>(x, y, n);
}
WICK_VEC_CLONES void cos_f32(const float* x, float* y, int64_t n) {
  trig_f32<cos_in_range, cos>(x, y, n);
}
WICK_VEC_CLONES void tan_f32(const float* x, float* y, int64_t n) {
  trig_f32<tan_in_range, tan>(x, y, n);
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
// The same chunks, with a function of the whole float32 chunk: the trig functions' two-pass
// loop (trig_f32), whose libm fallback would keep a per-element loop from vectorising. Its
// input and output are two buffers: trig_f32's second pass reads the arguments again.
template <void (*kBlock)(const float*, float*, int64_t)>
[[gnu::always_inline]] inline void map_bf16_block(const uint16_t* x, uint16_t* y, int64_t n) {
  float in[kBf16Chunk], out[kBf16Chunk];
  for (int64_t start = 0; start < n; start += kBf16Chunk) {
    const int64_t m = n - start < kBf16Chunk ? n - start : kBf16Chunk;
    for (int64_t j = 0; j < m; ++j) in[j] = bf16_to_float(x[start + j]);
    kBlock(in, out, m);
    for (int64_t j = 0; j < m; ++j) y[start + j] = float_to_bf16(out[j]);
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

// sin, cos and tan: the float32 chunk through trig_f32 (the scalar forms' call to libm kept
// the loop scalar: 2^20 bfloat16 sines took as long as ten float32 ones).
WICK_VEC_CLONES void sin_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  map_bf16_block<trig_f32<sin_in_range, sin>>(x, y, n);
}

WICK_VEC_CLONES void cos_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  map_bf16_block<trig_f32<cos_in_range, cos>>(x, y, n);
}

WICK_VEC_CLONES void log_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  map_bf16(
      x, y, n, [](float v) __attribute__((always_inline)) { return log(v); });
}

// The float-in, double-inside functions of vec_math.hpp: one straight-line loop each, and
// the bfloat16 form through map_bf16.
#define WICK_VEC_MAP(name)                                                        \
  WICK_VEC_CLONES void name##_f32(const float* x, float* y, int64_t n) {          \
    for (int64_t i = 0; i < n; ++i) y[i] = name(x[i]);                            \
  }                                                                               \
  WICK_VEC_CLONES void name##_bf16(const uint16_t* x, uint16_t* y, int64_t n) {   \
    map_bf16(                                                                     \
        x, y, n, [](float v) __attribute__((always_inline)) { return name(v); }); \
  }
WICK_VEC_MAP(atan)
WICK_VEC_MAP(asin)
WICK_VEC_MAP(acos)
WICK_VEC_MAP(sinh)
WICK_VEC_MAP(cosh)
WICK_VEC_MAP(expm1)
WICK_VEC_MAP(log1p)
WICK_VEC_MAP(log2)
WICK_VEC_MAP(log10)
WICK_VEC_MAP(erf)
WICK_VEC_MAP(erfc)
WICK_VEC_MAP(erfinv)
#undef WICK_VEC_MAP

// The two-operand ones (atan2, hypot) over unit-stride rows.
#define WICK_VEC_MAP2(name)                                                                \
  WICK_VEC_CLONES void name##_f32(const float* a, const float* b, float* out, int64_t n) { \
    for (int64_t i = 0; i < n; ++i) out[i] = name(a[i], b[i]);                             \
  }                                                                                        \
  WICK_VEC_CLONES void name##_bf16(const uint16_t* a, const uint16_t* b, uint16_t* out,    \
                                   int64_t n) {                                            \
    for (int64_t i = 0; i < n; ++i) {                                                      \
      out[i] = float_to_bf16(name(bf16_to_float(a[i]), bf16_to_float(b[i])));              \
    }                                                                                      \
  }
WICK_VEC_MAP2(atan2)
WICK_VEC_MAP2(hypot)
#undef WICK_VEC_MAP2

// fmod, remainder and floor_divide: vec_math.hpp's exact in-range fmod for every element, the
// result finished from it, then the plain function for the few out of its range (a zero or
// infinite operand, NaN, |a / b| >= 2^29), found by a second pass only when the first saw one.
// Blocks of kBlock go through a local buffer, so out may be a or b (the in-place forms) and the
// second pass still reads the operands.
namespace {
enum class FromFmod { fmod, remainder, floor_divide };
template <FromFmod kResult>
[[gnu::always_inline]] inline float finish(float a, float b, float mod) {
  if constexpr (kResult == FromFmod::remainder) return remainder_from_fmod(mod, b);
  if constexpr (kResult == FromFmod::floor_divide) return floor_divide_from_fmod(a, b, mod);
  return mod;
}
template <FromFmod kResult>
inline float out_of_range(float a, float b) {
  if constexpr (kResult == FromFmod::remainder) return remainder(a, b);
  if constexpr (kResult == FromFmod::floor_divide) return rounded_division::floor_divide(a, b);
  return fmod(a, b);
}
template <FromFmod kResult, typename LoadA, typename LoadB, typename Store>
[[gnu::always_inline]] inline void fmod_rows(int64_t n, const LoadA& load_a, const LoadB& load_b,
                                             const Store& store) {
  constexpr int64_t kBlock = 256;
  float result[kBlock];
  for (int64_t start = 0; start < n; start += kBlock) {
    const int64_t len = n - start < kBlock ? n - start : kBlock;
    int outside = 0;
    for (int64_t i = 0; i < len; ++i) {
      const float a = load_a(start + i), b = load_b(start + i);
      result[i] = finish<kResult>(a, b, fmod_in_range_value(a, b));
      outside |= fmod_in_range(a, b) ? 0 : 1;
    }
    if (outside != 0) {
      for (int64_t i = 0; i < len; ++i) {
        const float a = load_a(start + i), b = load_b(start + i);
        if (!fmod_in_range(a, b)) result[i] = out_of_range<kResult>(a, b);
      }
    }
    for (int64_t i = 0; i < len; ++i) store(start + i, result[i]);
  }
}
}  // namespace

#define WICK_VEC_FMOD(name, result)                                                        \
  WICK_VEC_CLONES void name##_f32(const float* a, const float* b, float* out, int64_t n) { \
    fmod_rows<result>(                                                                     \
        n, [a](int64_t i) { return a[i]; }, [b](int64_t i) { return b[i]; },               \
        [out](int64_t i, float v) { out[i] = v; });                                        \
  }                                                                                        \
  WICK_VEC_CLONES void name##_bf16(const uint16_t* a, const uint16_t* b, uint16_t* out,    \
                                   int64_t n) {                                            \
    fmod_rows<result>(                                                                     \
        n, [a](int64_t i) { return bf16_to_float(a[i]); },                                 \
        [b](int64_t i) { return bf16_to_float(b[i]); },                                    \
        [out](int64_t i, float v) { out[i] = float_to_bf16(v); });                         \
  }
WICK_VEC_FMOD(fmod, FromFmod::fmod)
WICK_VEC_FMOD(remainder, FromFmod::remainder)
WICK_VEC_FMOD(floor_divide, FromFmod::floor_divide)
#undef WICK_VEC_FMOD

WICK_VEC_CLONES void tan_bf16(const uint16_t* x, uint16_t* y, int64_t n) {
  map_bf16_block<trig_f32<tan_in_range, tan>>(x, y, n);
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
// out = fma(b, alpha, a) over `rows` rows of n elements (for_each_strided's blocks: p and s
// ordered out, a, b; row r at p[k] + r * rs[k]). Each row takes the loop its inner strides
// allow: unit stride, a value repeated along the row (stride 0, held in a register), or any
// stride. std::fma is exact in every loop and clone, so the path never changes the bits.
template <typename T>
[[gnu::always_inline]] inline void axpy_rows(char* const* p, const int64_t* s, const int64_t* rs,
                                             int64_t n, int64_t rows, T alpha) {
  constexpr auto e = static_cast<int64_t>(sizeof(T));
  const bool unit_out = s[0] == e, unit_a = s[1] == e, unit_b = s[2] == e;
  const bool same_a = s[1] == 0, same_b = s[2] == 0;
  for (int64_t r = 0; r < rows; ++r) {
    T* o = reinterpret_cast<T*>(p[0] + r * rs[0]);
    const char* pa = p[1] + r * rs[1];
    const char* pb = p[2] + r * rs[2];
    const T* a = reinterpret_cast<const T*>(pa);
    const T* b = reinterpret_cast<const T*>(pb);
    if (unit_out && unit_a && unit_b) {
      for (int64_t i = 0; i < n; ++i) o[i] = std::fma(b[i], alpha, a[i]);
    } else if (unit_out && unit_a && same_b) {
      const T bv = *b;
      for (int64_t i = 0; i < n; ++i) o[i] = std::fma(bv, alpha, a[i]);
    } else if (unit_out && same_a && unit_b) {
      const T av = *a;
      for (int64_t i = 0; i < n; ++i) o[i] = std::fma(b[i], alpha, av);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        T x, y;
        std::memcpy(&x, pa + i * s[1], sizeof(T));
        std::memcpy(&y, pb + i * s[2], sizeof(T));
        const T v = std::fma(y, alpha, x);
        std::memcpy(reinterpret_cast<char*>(o) + i * s[0], &v, sizeof(T));
      }
    }
  }
}
}  // namespace

WICK_VEC_CLONES void axpy_rows_f32(char* const* p, const int64_t* s, const int64_t* rs, int64_t n,
                                   int64_t rows, float alpha) {
  axpy_rows<float>(p, s, rs, n, rows, alpha);
}
WICK_VEC_CLONES void axpy_rows_f64(char* const* p, const int64_t* s, const int64_t* rs, int64_t n,
                                   int64_t rows, double alpha) {
  axpy_rows<double>(p, s, rs, n, rows, alpha);
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

// log of a softmax row's sum: at least 1 where the row's max is finite (the max adds exp(0)),
// 0 for a row of -inf (log 0 = -inf; the outputs become -inf - -inf = NaN, as in PyTorch), NaN
// where the row holds a NaN or +inf. philox.hpp's log_positive (fdlibm's log without branches,
// within 1.4 ulp) vectorises over a group of rows, where libm's log, one call per row, took
// 17% of log_softmax over rows of 64.
[[gnu::always_inline]] inline double log_of_sum(double total) {
  const double log_total = philox::log_positive(total);
  return total > 0 ? log_total : (total == 0 ? -std::numeric_limits<double>::infinity() : total);
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
    for (int64_t j = 0; j < width; ++j) log_total[j] = log_of_sum(total[j]);
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

// GCC vector extensions, for the reductions whose last steps the loops left to the stack: each
// clone (vec_clones.hpp) lowers them to its own registers (one zmm, two ymm, four xmm).
using F32x16 = float __attribute__((vector_size(64)));
using F32x8 = float __attribute__((vector_size(32)));
using F32x4 = float __attribute__((vector_size(16)));
// `v > m ? v : m`: skips a NaN in v, so a max over lanes in any order gives the same value.
template <typename V>
[[gnu::always_inline]] inline V max_skipping_nan(V v, V m) {
  return v > m ? v : m;
}
[[gnu::always_inline]] inline F32x16 load16(const float* x) {
  F32x16 v;
  std::memcpy(&v, x, sizeof(v));
  return v;
}

// The max of a float32 row, the shift of its exps; 0 for a row of -inf. NaNs are skipped.
[[gnu::always_inline]] inline float row_shift(const float* xf, int64_t n) {
  // Four chains of 16 lanes, halved in registers. The loop over an array of 64 lanes before
  // it left the halving's last steps (widths 4, 2, 1) to scalar code through the stack: 15% of
  // log_softmax over rows of 64 (perf, Zen 4); with 16 lanes GCC had unrolled the lane loop
  // into 16 scalar maxss.
  float shift = -std::numeric_limits<float>::infinity();
  int64_t i = 0;
  if (n >= 16) {
    const F32x16 none = F32x16{} - std::numeric_limits<float>::infinity();
    F32x16 m0 = none, m1 = none, m2 = none, m3 = none;
    for (; i + 64 <= n; i += 64) {
      m0 = max_skipping_nan(load16(xf + i), m0);
      m1 = max_skipping_nan(load16(xf + i + 16), m1);
      m2 = max_skipping_nan(load16(xf + i + 32), m2);
      m3 = max_skipping_nan(load16(xf + i + 48), m3);
    }
    for (; i + 16 <= n; i += 16) m0 = max_skipping_nan(load16(xf + i), m0);
    m0 = max_skipping_nan(max_skipping_nan(m2, m0), max_skipping_nan(m3, m1));
    const F32x8 m8 = max_skipping_nan(__builtin_shufflevector(m0, m0, 8, 9, 10, 11, 12, 13, 14, 15),
                                      __builtin_shufflevector(m0, m0, 0, 1, 2, 3, 4, 5, 6, 7));
    const F32x4 m4 = max_skipping_nan(__builtin_shufflevector(m8, m8, 4, 5, 6, 7),
                                      __builtin_shufflevector(m8, m8, 0, 1, 2, 3));
    const float low = m4[2] > m4[0] ? m4[2] : m4[0], high = m4[3] > m4[1] ? m4[3] : m4[1];
    shift = high > low ? high : low;
  }
  for (; i < n; ++i) shift = xf[i] > shift ? xf[i] : shift;
  return shift == -std::numeric_limits<float>::infinity() ? 0.0f : shift;
}

// `rows` rows of n, one after another, in groups of softmax_row_group(n): each row's shift,
// exps and sum, then the group's logs (or reciprocals) as one vector loop, then the outputs.
// `scratch` holds the group's exps for bfloat16 (softmax_rows_scratch(n) floats); float32
// keeps them in the output.
template <typename E>
[[gnu::always_inline]] inline void softmax_rows(const E* x, E* out, float* scratch, int64_t rows,
                                                int64_t n, bool log_form) {
  const int64_t group = softmax_row_group(n);
  float shift[kSoftmaxRowGroup];
  double total[kSoftmaxRowGroup], factor[kSoftmaxRowGroup];
  for (int64_t r0 = 0; r0 < rows; r0 += group) {
    const int64_t count = rows - r0 < group ? rows - r0 : group;
    for (int64_t r = 0; r < count; ++r) {
      const E* xr = x + (r0 + r) * n;
      float* y = nullptr;  // exp(x - max) of the row
      const float* xf = nullptr;
      if constexpr (std::is_same_v<E, float>) {
        y = out + (r0 + r) * n;
        xf = xr;
      } else {
        // Widened into y first (the max loop over 16-bit loads was scalar code: 1.64 ms for the
        // rows of a [1024, 1024] against 1.49 with whole float32 copies); exps in place.
        y = scratch + r * n;
        for (int64_t k = 0; k < n; ++k) y[k] = bf16_to_float(xr[k]);
        xf = y;
      }
      shift[r] = row_shift(xf, n);
      // exp(x - max) into y, then y summed in double by sum_f32 (the row is still in L1). Two
      // loops, not one: the fused loop (exp, store, convert, add) vectorised worse; split,
      // BM_softmax_rows went 1.013 -> 0.871 ms on one thread (docs/cpu-kernels.md).
      for (int64_t i = 0; i < n; ++i) y[i] = exp(xf[i] - shift[r]);
      total[r] = sum_f32(y, n);
    }
    for (int64_t r = count; r < kSoftmaxRowGroup; ++r) total[r] = 1.0;  // defined lanes
    if (log_form) {
      for (int r = 0; r < kSoftmaxRowGroup; ++r) factor[r] = log_of_sum(total[r]);
    } else {
      for (int r = 0; r < kSoftmaxRowGroup; ++r) factor[r] = 1.0 / total[r];
    }
    for (int64_t r = 0; r < count; ++r) {
      const E* xr = x + (r0 + r) * n;
      E* outr = out + (r0 + r) * n;
      if (log_form) {
        for (int64_t k = 0; k < n; ++k) {
          outr[k] = from_float<E>(
              static_cast<float>(static_cast<double>(as_float(xr[k]) - shift[r]) - factor[r]));
        }
      } else {
        const float* y = nullptr;
        if constexpr (std::is_same_v<E, float>) {
          y = outr;
        } else {
          y = scratch + r * n;
        }
        const auto inv = static_cast<float>(factor[r]);
        for (int64_t k = 0; k < n; ++k) outr[k] = from_float<E>(y[k] * inv);
      }
    }
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

WICK_VEC_CLONES void softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t n,
                                      bool log_form) {
  softmax_rows(x, y, y, rows, n, log_form);
}

WICK_VEC_CLONES void softmax_rows_bf16(const uint16_t* x, uint16_t* y, float* scratch, int64_t rows,
                                       int64_t n, bool log_form) {
  softmax_rows(x, y, scratch, rows, n, log_form);
}

}  // namespace wick::cpu::vec
