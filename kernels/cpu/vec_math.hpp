// vec_math.hpp: float32 exp, sigmoid and tanh written as straight-line arithmetic (no calls,
// no branches: selects only), so that the compiler vectorises a loop over them at whatever
// width the file is compiled for; std::expf and friends are calls that no loop vectorises
// without -ffast-math. Cephes' argument reduction and polynomials (S. Moshier): exp is within
// 2 ulp of the correctly rounded result over its whole range, subnormal results included;
// tanh within 3 ulp. NaN in, NaN out; +-inf give the limits. The float64 ops keep libm.
// Checked against float64 libm by the op sweep (tests/test_op_sweep.cpp) and over every float
// in tests/cpu_gemm/test_cpu_kernels.cpp; measured in bench/cpu/.
#pragma once

#include <cstdint>
#include <cstring>

namespace wick::cpu::vec {

inline float bits_to_float(int32_t i) {
  float f;
  std::memcpy(&f, &i, sizeof f);
  return f;
}

// Round to the nearest integer (ties to even) for |v| < 2^22: adding and subtracting 1.5 * 2^23
// leaves no fraction bits. Plain arithmetic, so it vectorises even at SSE2 (floorf needs
// SSE4.1). Relies on IEEE evaluation: never build this with -ffast-math.
inline float round_int(float v) { return (v + 12582912.0f) - 12582912.0f; }

// 2^n for integer-valued n in [-126, 127], by building the exponent field.
inline float pow2i(float n) { return bits_to_float((static_cast<int32_t>(n) + 127) << 23); }

inline float exp(float x) {
  const bool is_nan = x != x;
  // exp(89) overflows and exp(-104) underflows to 0 even as a subnormal: clamp there so the
  // integer conversion below stays in range; the scaling then yields inf or 0 by itself.
  float xc = x < 89.0f ? x : 89.0f;
  xc = xc > -104.0f ? xc : -104.0f;
  // x = n ln2 + r, |r| <= ln2 / 2, with ln2 split in two so n ln2 is exact.
  const float n = round_int(xc * 1.44269504088896341f);
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^n in two factors, each a normal float, so that subnormal results round once, at the end.
  const float n1 = round_int(n * 0.5f - 0.25f);  // floor(n / 2)
  const float result = p * pow2i(n1) * pow2i(n - n1);
  return is_nan ? x : result;
}

inline float sigmoid(float x) { return 1.0f / (1.0f + exp(-x)); }

inline float tanh(float x) {
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

}  // namespace wick::cpu::vec
