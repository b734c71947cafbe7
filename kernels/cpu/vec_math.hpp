// vec_math.hpp: float32 exp, log, sigmoid and tanh written as straight-line arithmetic (no
// calls, no branches: selects only), so that the compiler vectorises a loop over them at
// whatever width the file is compiled for; std::expf and friends are calls that no loop
// vectorises without -ffast-math. Cephes' argument reduction and polynomials (S. Moshier): exp
// is within 2 ulp of the correctly rounded result over its whole range, subnormal results
// included; log within 2 (0.78 measured); tanh within 3 ulp. NaN in, NaN out; +-inf give the
// limits. The float64 ops keep libm. Checked against float64 libm by the op sweep
// (tests/test_op_sweep.cpp) and over every float in tests/cpu_gemm/test_cpu_kernels.cpp;
// measured in bench/cpu/.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "../rounded_division.hpp"

namespace wick::cpu::vec {

[[gnu::always_inline]] inline float bits_to_float(uint32_t i) {
  float f;
  std::memcpy(&f, &i, sizeof f);
  return f;
}

[[gnu::always_inline]] inline uint32_t float_bits(float f) {
  uint32_t i;
  std::memcpy(&i, &f, sizeof i);
  return i;
}

// Adding 1.5 * 2^23 to |v| < 2^22 leaves no fraction bits: the sum is v rounded to the nearest
// integer (ties to even), plus the constant, and its low mantissa bits hold that integer in
// two's complement. Plain arithmetic, so it vectorises even at SSE2 (floorf needs SSE4.1).
// Relies on IEEE evaluation: never build this with -ffast-math.
constexpr float kRoundShift = 12582912.0f;
constexpr uint32_t kRoundShiftBits = 0x4B400000u;

// bfloat16 <-> float32 on the bit patterns: widening is exact (a shift); rounding is
// BFloat16::round_from_float (nearest, ties to even, NaN kept a quiet NaN) with the NaN case as
// a select instead of an early return, so that loops over it vectorise. The same bits for every
// input (tests/test_bfloat16.cpp). Inlined by force, as map()'s lambdas are (loops.hpp): a copy
// left out of line would be compiled for the baseline target, not for the calling clone.
[[gnu::always_inline]] inline float bf16_to_float(uint16_t b) {
  return bits_to_float(static_cast<uint32_t>(b) << 16);
}
[[gnu::always_inline]] inline uint16_t float_to_bf16(float value) {
  const uint32_t u = float_bits(value);
  const uint32_t rounded = u + 0x7fffu + ((u >> 16) & 1u);
  const uint32_t quiet_nan = u | 0x00400000u;
  // The NaN test as a float compare, and one shift after the select: 351-383 us against
  // 447-451 for 2^20 bfloat16 adds with the test on the bits (a standalone AVX2 loop), for
  // which GCC packed both candidates to 16 bits and widened one back.
  return static_cast<uint16_t>((value != value ? quiet_nan : rounded) >> 16);
}

// 2^k for an integer k in [-126, 127], by building the exponent field. Unsigned arithmetic:
// exp() feeds it garbage for inputs its final selects replace, which must not be UB.
[[gnu::always_inline]] inline float pow2i(int32_t k) {
  return bits_to_float((static_cast<uint32_t>(k) + 127u) << 23);
}

// Why it looks like this: a vector loop over exp is bound by its dependency chain, not by its
// instruction count. A 256-bit iteration was ~50 operations in a ~60-cycle chain, and Zen 3's
// floating-point scheduler holds about three iterations, so the chain's length (without FMA,
// which the clones must not use: -ffp-contract=off keeps them bit-equal) sets the speed. Three
// changes from Cephes' plain form shortened it and cut 30% of the time per element in a
// standalone AVX2 loop (1.09 -> 0.75 ns; docs/cpu-kernels.md):
//  - no clamps of x up front: inputs outside [-128, 128] compute garbage that two selects at
//    the end replace (inside it the scaling overflows to inf, or underflows to 0, by itself);
//    NaN flows through the arithmetic;
//  - the polynomial by Estrin's scheme (three independent pairs, then two levels) instead of
//    Horner's six dependent steps;
//  - n as an integer straight from the rounding's bits (no float-to-int conversion, and the
//    split of 2^n in two factors by a shift).
// Within 1.004 ulp of the correctly rounded result over every float (checked exhaustively when
// this was written; tests/cpu_gemm/test_cpu_kernels.cpp checks 2 ulp on a sample).
[[gnu::always_inline]] inline float exp(float x) {
  // x = n ln2 + r, |r| <= ln2 / 2, with ln2 split in two so n ln2 is exact.
  const float shifted = x * 1.44269504088896341f + kRoundShift;
  const float n = shifted - kRoundShift;
  const int32_t n_int = static_cast<int32_t>(float_bits(shifted) - kRoundShiftBits);
  float r = x - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  // e^r = 1 + r + r^2 p(r), p of degree 5 (Cephes' coefficients).
  const float r2 = r * r;
  const float p01 = 5.0000001201e-1f + 1.6666665459e-1f * r;
  const float p23 = 4.1665795894e-2f + 8.3334519073e-3f * r;
  const float p45 = 1.3981999507e-3f + 1.9875691500e-4f * r;
  const float p = p01 + r2 * (p23 + r2 * p45);
  const float e_r = r2 * p + r + 1.0f;
  // 2^n in two factors, each a normal float for n in [-252, 254], so that subnormal results
  // round once, at the end, and 2^128 times e^r below 1 stays finite.
  const int32_t half = n_int >> 1;  // floor(n / 2): arithmetic shift (C++20)
  const float result = e_r * pow2i(half) * pow2i(n_int - half);
  const float capped = x > 128.0f ? std::numeric_limits<float>::infinity() : result;
  return x < -128.0f ? 0.0f : capped;
}

[[gnu::always_inline]] inline float sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }

// Cephes' logf: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(1 + f) for f = m - 1 by a
// degree-9 polynomial, e ln2 added in two parts. Subnormal inputs are scaled by 2^23 first;
// 0, negatives, +inf and NaN by selects at the end. Within 2 ulp over the sampled floats
// (tests/cpu_gemm/test_cpu_kernels.cpp); replaced a libm call per element that no loop
// vectorises (3.3x slower than libtorch's, docs/cpu-kernels.md).
[[gnu::always_inline]] inline float log(float x) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const bool subnormal = x < 1.17549435e-38f;
  const float scaled = subnormal ? x * 8388608.0f : x;
  const uint32_t bits = float_bits(scaled);
  int32_t e = static_cast<int32_t>((bits >> 23) & 0xffu) - 126 - (subnormal ? 23 : 0);
  float m = bits_to_float((bits & 0x007fffffu) | 0x3f000000u);  // in [0.5, 1)
  const bool low = m < 0.707106781186547524f;
  e = low ? e - 1 : e;
  m = low ? m + m - 1.0f : m - 1.0f;
  const float z = m * m;
  float y = 7.0376836292e-2f;
  y = y * m - 1.1514610310e-1f;
  y = y * m + 1.1676998740e-1f;
  y = y * m - 1.2420140846e-1f;
  y = y * m + 1.4249322787e-1f;
  y = y * m - 1.6668057665e-1f;
  y = y * m + 2.0000714765e-1f;
  y = y * m - 2.4999993993e-1f;
  y = y * m + 3.3333331174e-1f;
  y = y * m * z;
  const float ef = static_cast<float>(e);
  y = y + ef * -2.12194440e-4f;
  y = y - 0.5f * z;
  float result = m + y;
  result = result + ef * 0.693359375f;
  result = x == kInf ? kInf : result;
  result = x == 0.0f ? -kInf : result;
  result = x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : result;
  return x != x ? x : result;
}

[[gnu::always_inline]] inline float tanh(float x) {
  const float ax = x < 0 ? -x : x;
  // Small |x|: Cephes' odd polynomial (no cancellation); large: 1 - 2 / (e^2|x| + 1).
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * x + x;
  const float big_abs = 1.0f - 2.0f / (exp(2.0f * ax) + 1.0f);
  const float big = x < 0 ? -big_abs : big_abs;
  const float result = ax < 0.625f ? small : big;
  // NaN, and +-0 with its sign (tanh(-0.) is -0. in PyTorch; the polynomial gives +0).
  return (x != x || x == 0.0f) ? x : result;
}

// sin and cos of a float, computed in double precision so that a plain reduction and Taylor
// polynomials are enough (libm's sinf is a call per element, which no loop vectorises: 0.14x
// libtorch's speed, docs/cpu-kernels.md):
//  - x = k pi/2 + r with k the nearest integer to x 2/pi (the kRoundShift trick in double: the
//    sum's low bits hold k) and pi/2 in two parts, the first with 33 significant bits, so that
//    k * kPiOver2Hi is exact for |k| < 2^20 and r is exact to about 2^-80;
//  - sin r and cos r by their Taylor series to r^11 and r^12 (|r| <= pi/4: truncation below
//    1e-11 relative, far under float's 6e-8);
//  - the quadrant k mod 4 picks sin r or cos r and the sign (cos x is sin of the next quadrant).
// The double result is rounded once to float: within 1 ulp of the correctly rounded value
// (tests/cpu_gemm/test_cpu_kernels.cpp). Valid for |x| < kTrigLimit; larger arguments, inf and
// NaN are the callers' to hand to libm (trig_in_range), whose reduction is exact at any size.
constexpr float kTrigLimit = 1048576.0f;  // 2^20: |k| < 2^20 * 2 / pi
[[gnu::always_inline]] inline bool trig_in_range(float x) { return (x < 0 ? -x : x) < kTrigLimit; }

// x = k pi/2 + r: sin r, cos r and k + quadrant_shift (mod 4 in the low bits).
struct TrigParts {
  double sin_r, cos_r;
  uint64_t quadrant;
};
[[gnu::always_inline]] inline TrigParts trig_parts(float x, uint64_t quadrant_shift) {
  constexpr double kTwoOverPi = 0.636619772367581343076;
  constexpr double kPiOver2Hi = 1.5707963267341256141662597656250;  // 33 bits of pi/2
  constexpr double kPiOver2Lo = 6.077100506506192601e-11;           // pi/2 - kPiOver2Hi
  constexpr double kShift = 6755399441055744.0;                     // 1.5 * 2^52
  const double d = x;
  const double shifted = d * kTwoOverPi + kShift;
  const double k = shifted - kShift;
  uint64_t q;
  std::memcpy(&q, &shifted, sizeof q);  // low bits: k in two's complement
  q += quadrant_shift;
  const double r = (d - k * kPiOver2Hi) - k * kPiOver2Lo;
  const double r2 = r * r;
  // r (1 + r^2 p(r^2)) rather than r + r^3 p: keeps sin(-0.) = -0. Horner's form: Estrin's
  // (as exp's above) measured no faster here (1.8-2.1 ms against 1.9 for 2^20), as the loop
  // is bound by its 512-bit double operations rather than by the chain.
  const double sin_r =
      r * (1.0 + r2 * (-1.0 / 6 +
                       r2 * (1.0 / 120 +
                             r2 * (-1.0 / 5040 + r2 * (1.0 / 362880 + r2 * (-1.0 / 39916800))))));
  const double cos_r =
      1.0 +
      r2 * (-0.5 + r2 * (1.0 / 24 +
                         r2 * (-1.0 / 720 + r2 * (1.0 / 40320 + r2 * (-1.0 / 3628800 +
                                                                      r2 * (1.0 / 479001600))))));
  return {sin_r, cos_r, q};
}
[[gnu::always_inline]] inline float sin_quadrant(float x, uint64_t quadrant_shift) {
  const TrigParts t = trig_parts(x, quadrant_shift);
  const double v = (t.quadrant & 1u) ? t.cos_r : t.sin_r;
  return static_cast<float>((t.quadrant & 2u) ? -v : v);
}
[[gnu::always_inline]] inline float sin_in_range(float x) { return sin_quadrant(x, 0); }
[[gnu::always_inline]] inline float cos_in_range(float x) { return sin_quadrant(x, 1); }

// The scalar forms, for strided runs and any argument: the same bits as the loops.
inline float sin(float x) {
  return trig_in_range(x) ? sin_in_range(x) : static_cast<float>(std::sin(static_cast<double>(x)));
}
inline float cos(float x) {
  return trig_in_range(x) ? cos_in_range(x) : static_cast<float>(std::cos(static_cast<double>(x)));
}

// tan x = sin r / cos r in even quadrants, -cos r / sin r in odd ones (tan(-0.) = -0.). Both
// within 1e-11 relative, so the quotient rounds to within 1 ulp of the correctly rounded value.
[[gnu::always_inline]] inline float tan_in_range(float x) {
  const TrigParts t = trig_parts(x, 0);
  return static_cast<float>((t.quadrant & 1u) ? -t.cos_r / t.sin_r : t.sin_r / t.cos_r);
}
inline float tan(float x) {
  return trig_in_range(x) ? tan_in_range(x) : static_cast<float>(std::tan(static_cast<double>(x)));
}

// ---------------------------------------------------------------------------------------------
// atan, asin, acos, sinh, cosh, expm1, log1p, log2 and log10 of a float, computed in double so
// that a plain reduction and a short polynomial give about 1e-12 relative error (below 2e-5
// ulp of float): the double result rounded once is within 1 ulp of the correctly rounded float
// (0.5 plus a hair, tests/cpu_gemm/test_cpu_kernels.cpp). Straight-line code with selects, so
// loops over them vectorise (libm's atanf and friends are a call per element: 0.10-0.40x
// libtorch's speed before, docs/cpu-kernels.md). float64 tensors keep libm. The polynomials of
// atan and asin are least-squares fits made by scripts/fit_vec_math.py (mpmath at 50 digits;
// it prints the error bound quoted); the others are Taylor series with exact coefficients.

// The float v with the sign bit of x (sinh is odd; sinh(-0.) = -0.).
[[gnu::always_inline]] inline float with_sign_of(float v, float x) {
  return bits_to_float((float_bits(v) & 0x7fffffffu) | (float_bits(x) & 0x80000000u));
}

// e^x = two_n (1 + em1) for |x| <= 200 (callers clamp): x = n ln2 + r, |r| <= ln2 / 2, with
// fdlibm's split of ln2 (ln2_hi has 32 trailing zero bits, so n ln2_hi is exact), and
// e^r - 1 by Taylor to r^11 / 11! (truncation 2e-14 relative).
struct ExpParts {
  double two_n, em1;
};
[[gnu::always_inline]] inline ExpParts exp_parts(double x) {
  constexpr double kShift = 6755399441055744.0;  // 1.5 * 2^52, as trig_parts
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  const double shifted = x * 1.44269504088896340736 + kShift;
  const double n = shifted - kShift;
  const uint64_t n_bits =
      std::bit_cast<uint64_t>(shifted) - std::bit_cast<uint64_t>(kShift);  // n, two's complement
  const double r = (x - n * kLn2Hi) - n * kLn2Lo;
  const double em1 =
      r *
      (1.0 +
       r * (1.0 / 2 +
            r * (1.0 / 6 +
                 r * (1.0 / 24 +
                      r * (1.0 / 120 +
                           r * (1.0 / 720 +
                                r * (1.0 / 5040 +
                                     r * (1.0 / 40320 +
                                          r * (1.0 / 362880 +
                                               r * (1.0 / 3628800 + r * (1.0 / 39916800)))))))))));
  return {std::bit_cast<double>((n_bits + 1023u) << 52), em1};
}
// |x| clamped to 100 (NaN passes): e^100 overflows float but not double.
[[gnu::always_inline]] inline double clamp_100(double x) {
  const double high = x > 100.0 ? 100.0 : x;
  return high < -100.0 ? -100.0 : high;
}

// expm1 = 2^n em1 + (2^n - 1): exactly em1 for n = 0, so no cancellation near 0.
[[gnu::always_inline]] inline double expm1_f64(double x) {
  const ExpParts p = exp_parts(x);
  return p.two_n * p.em1 + (p.two_n - 1.0);
}
[[gnu::always_inline]] inline float expm1(float x) {
  const float result = static_cast<float>(expm1_f64(clamp_100(x)));
  return x == 0.0f ? x : result;  // expm1(-0.) = -0.
}

// sinh a = (e + e / (e + 1)) / 2 with e = expm1(a), a = |x|: accurate near 0 as well.
[[gnu::always_inline]] inline float sinh(float x) {
  const double a = clamp_100(x < 0 ? -static_cast<double>(x) : static_cast<double>(x));
  const double e = expm1_f64(a);
  return with_sign_of(static_cast<float>(0.5 * (e + e / (e + 1.0))), x);
}
[[gnu::always_inline]] inline float cosh(float x) {
  const double a = clamp_100(x < 0 ? -static_cast<double>(x) : static_cast<double>(x));
  const ExpParts p = exp_parts(a);
  const double e = p.two_n + p.two_n * p.em1;
  return static_cast<float>(0.5 * (e + 1.0 / e));
}

// log x = e ln2 + log m for a positive finite double, m in [sqrt(1/2), sqrt(2)): f = m - 1 is
// exact, and log m = 2 atanh(s), s = f / (2 + f), by its series to s^17 (|s| <= 0.1716:
// truncation 3e-14 relative). Float subnormals are normal doubles: no scaling needed.
struct LogParts {
  double e, log_m;
};
[[gnu::always_inline]] inline LogParts log_parts(double x) {
  const uint64_t bits = std::bit_cast<uint64_t>(x);
  double m =
      std::bit_cast<double>((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);  // [1, 2)
  // The biased exponent as a double through the 2^52 trick (its bits under 1.0 * 2^52, minus
  // 2^52): AVX2 has no int64 -> double conversion, and with one the loop stayed scalar in the
  // AVX2 clone (log1p and log2 of 2^20 floats 13-14 ms against libtorch's 1.5-4).
  constexpr double kTwo52 = 4503599627370496.0;
  double e =
      (std::bit_cast<double>(std::bit_cast<uint64_t>(kTwo52) | ((bits >> 52) & 0x7ffu)) - kTwo52) -
      1023.0;
  const bool high = m > 1.41421356237309504880;
  m = high ? m * 0.5 : m;
  e = high ? e + 1.0 : e;
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double series =
      1.0 +
      z * (1.0 / 3 +
           z * (1.0 / 5 +
                z * (1.0 / 7 +
                     z * (1.0 / 9 + z * (1.0 / 11 + z * (1.0 / 13 + z * (1.0 / 15 + z / 17)))))));
  return {e, 2.0 * s * series};
}
// The special inputs of log-like functions, by selects: 0 -> -inf, negative -> NaN, +inf ->
// +inf, NaN -> NaN; otherwise `value`.
[[gnu::always_inline]] inline float log_specials(float x, float value) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  float result = x == kInf ? kInf : value;
  result = x == 0.0f ? -kInf : result;
  result = x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : result;
  return x != x ? x : result;
}
[[gnu::always_inline]] inline float log2(float x) {
  const LogParts p = log_parts(x);
  return log_specials(x, static_cast<float>(p.e + p.log_m * 1.44269504088896340736));
}
[[gnu::always_inline]] inline float log10(float x) {
  const LogParts p = log_parts(x);
  return log_specials(
      x, static_cast<float>(p.e * 0.301029995663981195214 + p.log_m * 0.434294481903251827651));
}
// log1p: 1 + x is exact in double for float |x| >= 2^-29, and log_parts keeps its relative
// accuracy near 1 (f = u - 1 = x exactly); below that, x - x^2 / 2 (which keeps -0.).
[[gnu::always_inline]] inline float log1p(float x) {
  const double d = x;
  const LogParts p = log_parts(1.0 + d);
  const double near = d - d * d * 0.5;
  const bool tiny = (d < 0 ? -d : d) < 1.862645149230957e-09;  // 2^-29
  const float value = static_cast<float>(tiny ? near : p.e * 0.693147180559945309417 + p.log_m);
  constexpr float kInf = std::numeric_limits<float>::infinity();
  float result = x == kInf ? kInf : value;
  result = x == -1.0f ? -kInf : result;
  result = x < -1.0f ? std::numeric_limits<float>::quiet_NaN() : result;
  return x != x ? x : result;
}

// atan: |x| reduced to t in [-tan(pi/8), tan(pi/8)] (t = |x| itself, (|x| - 1) / (|x| + 1)
// plus pi/4, or -1 / |x| plus pi/2), then t (1 + z P(z)), z = t^2 (degree 6, 8.3e-13).
[[gnu::always_inline]] inline double atan_poly(double t) {
  const double z = t * t;
  const double p = -0.33333333294255374 +
                   z * (0.19999994187916306 +
                        z * (-0.14285418987140747 +
                             z * (0.11103929964417317 +
                                  z * (-0.08996231508268429 +
                                       z * (0.06988717510320143 + z * -0.037883777850326775)))));
  return t * (1.0 + z * p);  // not t + t z p: that gives atan(-0.) = +0.
}
[[gnu::always_inline]] inline float atan(float x) {
  const double d = x;
  const double a = d < 0 ? -d : d;
  const bool mid = a > 0.41421356237309504880;  // tan(pi/8)
  const bool far = a > 2.41421356237309504880;  // tan(3 pi/8)
  const double t = far ? -1.0 / a : mid ? (a - 1.0) / (a + 1.0) : d;
  const double base = far ? 1.57079632679489661923 : 0.78539816339744830962;
  const double core = atan_poly(t);  // atan is odd: for small |x| the sign (and -0.) is kept
  const double reduced = base + core;
  return static_cast<float>(mid ? (d < 0 ? -reduced : reduced) : core);
}

// atan2(y, x) in double: t = min(|x|, |y|) / max(|x|, |y|) in [0, 1] (0 / 0 taken as 0 and
// inf / inf as 1), atan t by atan's reduction, then the octant: pi/2 - r where |y| > |x|, pi - r
// where x is negative (-0 too: atan2(0, -0) = pi), and y's sign (atan2(-0, 1) = -0).
[[gnu::always_inline]] inline float atan2(float y, float x) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double dy = y, dx = x;
  const double ay = std::fabs(dy), ax = std::fabs(dx);  // +0 for -0: y's sign comes last
  const bool steep = ay > ax;
  const double lo = steep ? ax : ay, hi = steep ? ay : ax;
  double t = lo / hi;
  t = hi == 0 ? 0.0 : t;
  t = lo == kInf ? 1.0 : t;                     // both infinite
  const bool mid = t > 0.41421356237309504880;  // tan(pi/8)
  const double core = atan_poly(mid ? (t - 1.0) / (t + 1.0) : t);
  double r = mid ? 0.78539816339744830962 + core : core;
  r = steep ? 1.57079632679489661923 - r : r;
  r = std::signbit(x) ? 3.14159265358979323846 - r : r;
  r = std::signbit(y) ? -r : r;
  const float result = static_cast<float>(r);
  return x != x ? x : y != y ? y : result;  // a NaN operand itself (x's if both), as hypot
}

// hypot as glibc's hypotf computes it: sqrt(x^2 + y^2) in double (the squares are exact and can
// neither overflow nor underflow there), rounded once; an infinity wins over a NaN.
[[gnu::always_inline]] inline float hypot(float x, float y) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const double dx = x, dy = y;
  const float r = static_cast<float>(std::sqrt(dx * dx + dy * dy));
  const bool infinite = x == kInf || x == -kInf || y == kInf || y == -kInf;
  // A NaN result is the NaN operand itself (x's if both): the same bits whichever way a
  // compiler orders the sum.
  const float nan = x != x ? x : y;
  return infinite ? kInf : (x != x || y != y) ? nan : r;
}

// fmod of floats, exactly (fmod's result is always a float): in double, q = trunc(a / b) and
// a - q b, both exact while |a / b| < 2^29 (q b then has at most 53 bits, and the difference is
// a float). The quotient's rounding can carry a / b just below an integer n up to n; the
// difference then has the wrong sign, and adding |b| back (exact too) mends it. The result
// takes a's sign (so -0 stays -0). fmod_in_range says when this holds: a finite, b finite and
// nonzero, |a / b| < 2^29; callers hand the rest (and NaN) to libm.
[[gnu::always_inline]] inline bool fmod_in_range(float a, float b) {
  const double ratio = static_cast<double>(a) / static_cast<double>(b);
  const float abs_b = b < 0 ? -b : b;
  // & rather than &&: no branches, so loops over it vectorise.
  return ((ratio < 0 ? -ratio : ratio) < 536870912.0) &
         (abs_b < std::numeric_limits<float>::infinity()) & (abs_b > 0);
}
[[gnu::always_inline]] inline float fmod_in_range_value(float a, float b) {
  const double da = a, db = b;
  const double ratio = da / db;
  // Lanes out of range take q = 0 (the caller replaces their result). std::trunc is one
  // instruction in the AVX2 and AVX-512 clones (an int32 conversion kept GCC 12 from
  // vectorising the loop there: "control flow in loop").
  const bool ok = (ratio < 0 ? -ratio : ratio) < 536870912.0;
  const double q = std::trunc(ok ? ratio : 0.0);
  double r = da - q * db;
  const double abs_b = db < 0 ? -db : db;
  r = ((r < 0) & (da > 0)) ? r + abs_b : r;
  r = ((r > 0) & (da < 0)) ? r - abs_b : r;
  return with_sign_of(static_cast<float>(r < 0 ? -r : r), a);
}
inline float fmod(float a, float b) {
  return fmod_in_range(a, b) ? fmod_in_range_value(a, b) : std::fmod(a, b);
}
// remainder: fmod moved to b's sign by adding b, rounded in float (as PyTorch's kernel).
[[gnu::always_inline]] inline float remainder_from_fmod(float mod, float b) {
  // Opposite signs, read from the sign bits: 32-bit masks only, which GCC 12 vectorises (a
  // compare of two float masks, or a select between them, it does not).
  const bool opposite = ((float_bits(mod) ^ float_bits(b)) & 0x80000000u) != 0;
  return (opposite & (mod != 0)) ? mod + b : mod;
}
inline float remainder(float a, float b) { return remainder_from_fmod(fmod(a, b), b); }
// floor_divide (div with rounding_mode "floor") from an exact fmod, in float as PyTorch 1.13's
// formula (kernels/rounded_division.hpp, which the other lanes and the GPU use): (a - mod) / b,
// one less where mod's sign differs from b's, floored and rounded up when more than half
// above; a zero quotient takes a / b's sign. The sign test reads the sign bits (see
// remainder_from_fmod), and the rest are selects.
[[gnu::always_inline]] inline float floor_divide_from_fmod(float a, float b, float mod) {
  const bool opposite = ((float_bits(mod) ^ float_bits(b)) & 0x80000000u) != 0;
  const float q = (a - mod) / b - ((opposite & (mod != 0)) ? 1.0f : 0.0f);
  const float below = std::floor(q);
  const float floored = q - below > 0.5f ? below + 1.0f : below;
  return q == 0 ? with_sign_of(0.0f, a / b) : floored;
}
inline float floor_divide(float a, float b) {
  return fmod_in_range(a, b) ? floor_divide_from_fmod(a, b, fmod_in_range_value(a, b))
                             : rounded_division::floor_divide(a, b);
}

// asin s = s + s z R(z), z = s^2 <= 1/4 (degree 7, 1.0e-12). |x| <= 1/2 directly; above,
// asin |x| = pi/2 - 2 asin(sqrt((1 - |x|) / 2)) (1 - |x| is exact). |x| > 1: sqrt of a
// negative, NaN.
[[gnu::always_inline]] inline double asin_poly(double s, double z) {
  const double r =
      0.16666666627347557 +
      z * (0.07500004949255668 +
           z * (0.04464072529784869 +
                z * (0.030426169957371324 +
                     z * (0.021869237742105356 +
                          z * (0.02062784763163094 +
                               z * (0.002028547720187352 + z * 0.032859022953398306))))));
  return s + s * z * r;
}
// asin of |x| <= 1/2 (small: x itself), or of sqrt((1 - |x|) / 2) >= 0. (Returned as a
// struct with the flag, GCC left the loops scalar: "complicated access pattern".)
[[gnu::always_inline]] inline double asin_core(double d, double a, bool small) {
  const double z = small ? d * d : 0.5 * (1.0 - a);
  const double s = small ? d : std::sqrt(z);
  return asin_poly(s, z);
}
[[gnu::always_inline]] inline float asin(float x) {
  const double d = x;
  const double a = d < 0 ? -d : d;
  const bool small = a <= 0.5;
  const double core = asin_core(d, a, small);
  const double big = 1.57079632679489661923 - 2.0 * core;
  return static_cast<float>(small ? core : (d < 0 ? -big : big));
}
[[gnu::always_inline]] inline float acos(float x) {
  const double d = x;
  const double a = d < 0 ? -d : d;
  const bool small = a <= 0.5;
  const double core = asin_core(d, a, small);
  const double big = d < 0 ? 3.14159265358979323846 - 2.0 * core : 2.0 * core;
  return static_cast<float>(small ? 1.57079632679489661923 - core : big);
}

// erf: |x| < 3/4 as x P(x^2) (degree 7, 4.1e-13 relative); up to 4 as 1 - e^(-x^2) R(t),
// t = (|x| - 2.375) / 1.625 in [-1, 1] (degree 16, 5.7e-12 absolute on erf >= 0.7, about 1e-10
// relative on erfc = e^(-x^2) R; x^2 of a float is exact in double). |x| is clamped to 4, where
// erf rounds to 1 in float. Both fits are scripts/fit_vec_math.py's. The exact GELU
// (x/2 (1 + erf(x / sqrt 2))) is built on this.
// x P(x^2), z = x^2: erf for |x| < 3/4.
[[gnu::always_inline]] inline double erf_small(double d, double z) {
  return d *
         (1.1283791670951158 +
          z * (-0.37612638894098427 +
               z * (0.1128379133008659 +
                    z * (-0.026866121849869723 +
                         z * (0.005223633725585597 + z * (-0.0008535105424657061 +
                                                          z * (0.00011771166340824799 +
                                                               z * (-1.1673232748136107e-05))))))));
}
// R(t) = erfc(a) e^(a^2) for a in [3/4, 4], t = (a - 2.375) / 1.625.
[[gnu::always_inline]] inline double erfc_scaled_mid(double t) {
  return 0.22050569220636507 +
         t * (-0.13158783468944385 +
              t * (0.0744260432217559 +
                   t * (-0.04015741629220555 +
                        t * (0.020774389760822867 +
                             t * (-0.01034572128347328 +
                                  t * (0.004976269670944951 +
                                       t * (-0.0023187952406653316 +
                                            t * (0.001048727901072806 +
                                                 t * (-0.00045942047430317637 +
                                                      t * (0.0001967985219401419 +
                                                           t * (-8.597255906162918e-05 +
                                                                t * (3.529034857756991e-05 +
                                                                     t * (-1.0183838911420949e-05 +
                                                                          t * (3.91029011116012e-06 +
                                                                               t * (-3.75194751199643e-06 +
                                                                                    t * (1.4320359569205965e-06))))))))))))))));
}
[[gnu::always_inline]] inline float erf(float x) {
  const double d = x;
  const double small = erf_small(d, d * d);
  const double a_abs = d < 0 ? -d : d;
  const double a = a_abs > 4.0 ? 4.0 : a_abs;
  const double r = erfc_scaled_mid((a - 2.375) * (1.0 / 1.625));
  const ExpParts p = exp_parts(-(a * a));
  const double big = 1.0 - (p.two_n + p.two_n * p.em1) * r;
  return static_cast<float>(a_abs < 0.75 ? small : (d < 0 ? -big : big));
}

// erfc of a float in double: 1 - erf_small below 3/4 (erfc >= 0.28 there: no cancellation);
// e^(-a^2) R(t) up to 4 (erf's tail, whose R is erfc scaled); beyond, e^(-a^2) G(w) / a with
// w = 1/a^2 (degree 8, 1.4e-13 relative, scripts/fit_vec_math.py), a clamped to 10.1, past
// which erfc is below half the least float subnormal. Negative x: 2 - erfc(-x). libm's erfc
// per element was 2.6 times slower than libtorch (a review's measurement, 2026-12-07).
[[gnu::always_inline]] inline float erfc(float x) {
  const double d = x;
  const double a_abs = d < 0 ? -d : d;
  const double small = 1.0 - erf_small(d, d * d);
  const double a = a_abs > 10.1 ? 10.1 : a_abs;
  const double mid = erfc_scaled_mid(((a > 4.0 ? 4.0 : a) - 2.375) * (1.0 / 1.625));
  const double t = (1.0 / (a * a) - 0.03615148024703461) * (1.0 / 0.026348519752965396);
  const double far =
      (0.5544999371241207 + t * (-0.0067205521119905985 +
                                 t * (0.0002300388804494886 +
                                      t * (-1.2412825104612647e-05 +
                                           t * (8.904858063759485e-07 +
                                                t * (-7.8235612507449e-08 +
                                                     t * (8.029324189470083e-09 +
                                                          t * (-9.737595730916985e-10 +
                                                               t * 1.2707766306255253e-10)))))))) /
      a;
  const ExpParts p = exp_parts(-(a * a));
  const double tail = (p.two_n + p.two_n * p.em1) * (a > 4.0 ? far : mid);
  const double big = d < 0 ? 2.0 - tail : tail;
  const float result = static_cast<float>(a_abs < 0.75 ? small : big);
  return x != x ? x : result;
}

// erfinv of a float in double: special_math.hpp's first guess (about 1e-3 relative: rational
// in y^2 up to 0.7, in sqrt(-log((1 - |y|) / 2)) above; log by log_parts, its argument kept
// positive in every lane), then two Newton steps (special_math.hpp takes three for float64;
// two give the same floats, as each step squares the relative error): on erf(x) = |y| up to
// 1/2, on erfc(x) = 1 - |y| above (exact in double), with erf and erfc in double from erf's
// fits (within 6e-12 absolute, 1e-10 relative on erfc; x stays below 4 for float |y| < 1).
// All in selects, so the loop vectorises; special_math.hpp's erfinv (libm's erf and erfc per
// element) took 1.8 times libtorch's time (the review of 2026-12-07).
[[gnu::always_inline]] inline float erfinv(float y) {
  const double d = y;
  const double a = d < 0 ? -d : d;
  const double z = a * a;
  const double small_guess =
      a * (((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z + 0.886226899) /
      ((((0.012229801 * z - 0.329097515) * z + 1.442710462) * z - 2.118377725) * z + 1.0);
  const double tail_a = a < 0.7 ? 0.7 : (a < 0.99999994039535522 ? a : 0.99999994039535522);
  const LogParts lp = log_parts((1.0 - tail_a) * 0.5);
  const double w = std::sqrt(-(lp.e * 0.693147180559945309417 + lp.log_m));
  const double tail_guess =
      (((1.641345311 * w + 3.429567803) * w - 1.624906493) * w - 1.970840454) /
      ((1.637067800 * w + 3.543889200) * w + 1.0);
  double x = a <= 0.7 ? small_guess : tail_guess;
  const double one_minus_a = 1.0 - a;
  // Unrolled: a loop inside the element loop kept GCC from vectorising the element loop.
#pragma GCC unroll 2
  for (int step = 0; step < 2; ++step) {
    const double x2 = x * x;
    const ExpParts p = exp_parts(-x2);
    const double e = p.two_n + p.two_n * p.em1;
    const double xc = x > 4.0 ? 4.0 : x;
    const double erfc_tail = e * erfc_scaled_mid((xc - 2.375) * (1.0 / 1.625));
    const double erf_x = x < 0.75 ? erf_small(x, x2) : 1.0 - erfc_tail;
    const double erfc_x = x < 0.75 ? 1.0 - erf_small(x, x2) : erfc_tail;
    const double residual = a <= 0.5 ? erf_x - a : one_minus_a - erfc_x;
    x -= residual / (1.1283791670955125739 * e);
  }
  constexpr float kInf = std::numeric_limits<float>::infinity();
  float result = static_cast<float>(d < 0 ? -x : x);
  result = a == 1.0 ? (y < 0 ? -kInf : kInf) : result;
  result = a > 1.0 ? std::numeric_limits<float>::quiet_NaN() : result;
  result = a == 0.0 ? y : result;  // keeps -0
  return y != y ? y : result;
}

}  // namespace wick::cpu::vec
