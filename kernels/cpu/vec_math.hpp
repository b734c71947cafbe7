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

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

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

[[gnu::always_inline]] inline float sin_quadrant(float x, uint64_t quadrant_shift) {
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
  const double v = (q & 1u) ? cos_r : sin_r;
  return static_cast<float>((q & 2u) ? -v : v);
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

}  // namespace wick::cpu::vec
