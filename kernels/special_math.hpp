// special_math.hpp: erfinv, digamma, trigamma and polygamma in float64, one definition for the
// CPU kernel (kernels/cpu/special.cpp) and the CUDA one (kernels/cuda/special.cu): libm and the
// CUDA Math API have erf, erfc and lgamma but not these. float32 and bfloat16 are computed here in
// float64 and rounded once. Only +, *, /, sqrt, log, exp, erf, erfc, sin and tan are used, so the
// two devices differ only by those functions' last bits.
// Checked against python3-torch 1.13 (float64) by tests/test_special.cpp.
#pragma once

#include <math.h>

#include <cstdint>

#if defined(__CUDACC__)
#define WICK_SPECIAL_HD __host__ __device__ inline
#else
#define WICK_SPECIAL_HD inline
#endif

namespace wick::special {

// The inverse of erf on [-1, 1]: erfinv(+-1) = +-inf, NaN outside. A first guess from a
// rational approximation (about 1e-3 relative: in y^2 near 0, in sqrt(-log((1 - |y|) / 2))
// in the tails, the forms PyTorch's kernel starts from), then three Newton steps on
// erf(x) = |y|, or, where |y| > 0.5, on erfc(x) = 1 - |y|: 1 - |y| is exact there, where
// erf(x) - |y| would cancel in the tail. Newton doubles the correct digits each step.
WICK_SPECIAL_HD double erfinv(double y) {
  const double a = fabs(y);
  if (!(a <= 1.0)) return NAN;  // NaN too
  if (a == 1.0) return y > 0 ? INFINITY : -INFINITY;
  if (a == 0.0) return y;  // keeps -0
  double x;
  if (a <= 0.7) {
    const double z = a * a;
    const double num = ((-0.140543331 * z + 0.914624893) * z - 1.645349621) * z + 0.886226899;
    const double den =
        (((0.012229801 * z - 0.329097515) * z + 1.442710462) * z - 2.118377725) * z + 1.0;
    x = a * num / den;
  } else {
    const double z = sqrt(-log((1.0 - a) / 2.0));
    const double num = ((1.641345311 * z + 3.429567803) * z - 1.624906493) * z - 1.970840454;
    const double den = (1.637067800 * z + 3.543889200) * z + 1.0;
    x = num / den;
  }
  const double two_over_sqrt_pi = 1.1283791670955125739;  // d erf / dx = this * exp(-x^2)
  for (int step = 0; step < 3; ++step) {
    const double slope = two_over_sqrt_pi * exp(-x * x);
    if (slope == 0.0) break;  // the guess is past where erf changes in float64
    x -= a <= 0.5 ? (erf(x) - a) / slope : ((1.0 - a) - erfc(x)) / slope;
  }
  return y < 0 ? -x : x;
}

// digamma = d/dx log Gamma(x), PyTorch's conventions: -inf at +0, +inf at -0, NaN at the other
// poles (negative integers) and at -inf. Negative x reflect: psi(x) = psi(1 - x) - pi / tan(pi
// x), with x reduced by the nearest integer first (tan(pi x) for large x has no exact argument).
// Positive x step up past 10 by psi(x) = psi(x + 1) - 1 / x, then the asymptotic series
// psi(x) = log x - 1 / (2x) - sum B_2k / (2k x^2k) (Bernoulli numbers B_2 .. B_14).
WICK_SPECIAL_HD double digamma(double x) {
  const double pi = 3.14159265358979323846;
  if (x == 0.0) return signbit(x) ? INFINITY : -INFINITY;
  if (x != x || x == -INFINITY) return NAN;
  if (x == INFINITY) return INFINITY;
  double result = 0.0;
  if (x < 0.0) {
    if (x == floor(x)) return NAN;
    // tan has period pi: tan(pi x) = tan(pi r) with r = x - rint(x) in [-1/2, 1/2], exact. Near
    // a pole r is small and pi r keeps its relative accuracy (pi (x - trunc(x)) near -pi would
    // not: 7e-10 relative error at x = -2.9999998).
    const double r = x - rint(x);
    result = -pi / tan(pi * r);
    x = 1.0 - x;
  }
  while (x < 10.0) {
    result -= 1.0 / x;
    x += 1.0;
  }
  // B_2k / 2k for k = 7 down to 1: 7/6 / 14, -691/2730 / 12, 5/66 / 10, -1/30 / 8, 1/42 / 6,
  // -1/30 / 4, 1/6 / 2.
  const double z = 1.0 / (x * x);
  double series = 0.0;
  if (x < 1e17) {  // beyond, z^1 terms are below float64's resolution of log x
    series = ((((((1.0 / 12.0 * z - 691.0 / 32760.0) * z + 1.0 / 132.0) * z - 1.0 / 240.0) * z +
                1.0 / 252.0) *
                   z -
               1.0 / 120.0) *
                  z +
              1.0 / 12.0) *
             z;
  }
  return result + log(x) - 0.5 / x - series;
}

// The Hurwitz zeta function zeta(s, q) = sum over k >= 0 of (q + k)^-s, for s > 1: the first
// terms summed directly until q + k > 9 (and at least 10 terms), then the Euler-Maclaurin tail
// integral, half term and corrections with B_2j / (2j)! (Cephes' zeta's scheme). Poles at
// q = 0, -1, -2, ...: +inf.
WICK_SPECIAL_HD double hurwitz_zeta(double s, double q) {
  if (q <= 0.0 && q == floor(q)) return INFINITY;
  const double eps = 1.11022302462515654e-16;
  double sum = pow(q, -s);
  double a = q, term = 0.0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    ++i;
    a += 1.0;
    term = pow(a, -s);
    sum += term;
    if (fabs(term / sum) < eps) return sum;
  }
  // (2j)! / B_2j for j = 1 .. 12.
  const double factorial_over_bernoulli[12] = {12.0,
                                               -720.0,
                                               30240.0,
                                               -1209600.0,
                                               47900160.0,
                                               -1.8924375803183791606e9,
                                               7.47242496e10,
                                               -2.950130727918164224e12,
                                               1.1646782814350067249e14,
                                               -4.5979787224074726105e15,
                                               1.8152105401943546773e17,
                                               -7.1661652561756670113e18};
  const double w = a;
  sum += term * w / (s - 1.0) - 0.5 * term;
  double rising = 1.0;  // s (s + 1) ... (s + 2j - 2)
  double k = 0.0;
  for (int j = 0; j < 12; ++j) {
    rising *= s + k;
    term /= w;
    const double correction = rising * term / factorial_over_bernoulli[j];
    sum += correction;
    if (fabs(correction / sum) < eps) break;
    k += 1.0;
    rising *= s + k;
    term /= w;
    k += 1.0;
  }
  return sum;
}

// trigamma = psi'(x): +inf at the poles (0 and the negative integers; PyTorch 1.13 gives a
// large finite number at the negative ones, from sin(pi x) not being 0), NaN at -inf, 0 at
// +inf. x < 0.5 reflects: psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x). Then steps up past 10 by
// psi'(x) = psi'(x + 1) + 1 / x^2 and the asymptotic series (1 + 1/(2x) + sum B_2k / x^2k) / x
// with B_2 .. B_14: the next term, B_16 / x^17, is below 1e-15 of the result. (PyTorch 1.13
// steps up 6 times only and stops at B_6: its trigamma(1) is pi^2/6 + 8e-10.)
WICK_SPECIAL_HD double trigamma(double x) {
  const double pi = 3.14159265358979323846;
  if (x != x || x == -INFINITY) return NAN;
  if (x == INFINITY) return 0.0;
  if (x <= 0.0 && x == floor(x)) return INFINITY;
  double sign = 1.0, result = 0.0;
  if (x < 0.5) {
    sign = -1.0;
    const double sin_pi_x = sin(pi * (x - rint(x)));  // sin^2 has period pi too
    result = -(pi * pi) / (sin_pi_x * sin_pi_x);
    x = 1.0 - x;
  }
  while (x < 10.0) {
    result += 1.0 / (x * x);
    x += 1.0;
  }
  const double z = 1.0 / (x * x);
  const double series =
      ((((((7.0 / 6.0 * z - 691.0 / 2730.0) * z + 5.0 / 66.0) * z - 1.0 / 30.0) * z + 1.0 / 42.0) *
            z -
        1.0 / 30.0) *
           z +
       1.0 / 6.0) *
      z;
  result += (1.0 + 0.5 / x + series) / x;
  return sign * result;
}

// polygamma(n, x), the n-th derivative of digamma: digamma for n = 0, trigamma for n = 1, and
// (-1)^(n+1) n! zeta(n + 1, x) above (as PyTorch computes it). n! is exact in float64 up to
// n = 22 and overflows past n = 170 (inf, as PyTorch's exp(lgamma(n + 1))).
WICK_SPECIAL_HD double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  if (x != x || x == -INFINITY) return NAN;
  double factorial = 1.0;
  for (int64_t k = 2; k <= n && factorial != INFINITY; ++k) factorial *= static_cast<double>(k);
  const double sign = n % 2 == 1 ? 1.0 : -1.0;
  if (x == INFINITY) return sign * 0.0;
  // At the poles zeta is +inf: (-1)^(n+1) inf, as PyTorch's.
  return sign * factorial * hurwitz_zeta(static_cast<double>(n + 1), x);
}

}  // namespace wick::special
