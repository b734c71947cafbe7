// special_reference.hpp: float64 references for the special functions without a C library
// version (erfinv, digamma, polygamma), written apart from kernels/special_math.hpp and in long
// double, for the op sweep (op_specs.hpp) and tests/test_special.cpp:
//  - erfinv: bisection, then Newton, on erfl (or erfcl in the upper tail, where 1 - y is
//    exact);
//  - polygamma(n, x), digamma for n = 0: the recurrence psi^(n)(x) = psi^(n)(x + 1) +
//    (-1)^(n+1) n! / x^(n+1) carries x (negative too, away from the poles) up past 30, then
//    the asymptotic series with Bernoulli numbers B_2 .. B_20.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace special_ref {

inline double erfinv(double y) {
  if (std::isnan(y) || std::fabs(y) > 1) return std::numeric_limits<double>::quiet_NaN();
  if (std::fabs(y) == 1) return std::copysign(std::numeric_limits<double>::infinity(), y);
  const long double a = std::fabs(y);
  const bool tail = a > 0.5L;
  const long double target = tail ? 1.0L - a : a;
  // 40 halvings of [0, 10] (erf(10) is 1 in long double) to within 1e-11, then Newton on the
  // same function in long double.
  long double lo = 0, hi = 10;
  for (int i = 0; i < 40; ++i) {
    const long double mid = (lo + hi) / 2;
    const bool below = tail ? std::erfc(mid) > target : std::erf(mid) < target;
    (below ? lo : hi) = mid;
  }
  const long double two_over_sqrt_pi = 1.128379167095512573896158903121545172L;
  // Below 1e-6, erf(x) = 2/sqrt(pi) (x - x^3 / 3 + ...): the linear term is the better start.
  long double x = a < 1e-6L ? a / two_over_sqrt_pi : (lo + hi) / 2;
  for (int i = 0; i < 4; ++i) {
    const long double slope = two_over_sqrt_pi * std::exp(-x * x);
    x -= tail ? (target - std::erfc(x)) / slope : (std::erf(x) - target) / slope;
  }
  return std::copysign(static_cast<double>(x), y);
}

inline double polygamma(int n, double x_in) {
  if (std::isnan(x_in)) return x_in;
  // Poles: digamma is -inf at +0, +inf at -0 and NaN at the negative integers (PyTorch's
  // conventions); polygamma(n >= 1) is (-1)^(n+1) inf.
  const double inf = std::numeric_limits<double>::infinity();
  if (n == 0 && x_in == 0) return std::signbit(x_in) ? inf : -inf;
  if (x_in <= 0 && x_in == std::floor(x_in)) {
    return n == 0 ? std::numeric_limits<double>::quiet_NaN() : n % 2 == 1 ? inf : -inf;
  }
  long double x = x_in, factorial = 1;  // n!
  for (int k = 2; k <= n; ++k) factorial *= k;
  const long double sign = n % 2 == 1 ? 1 : -1;  // (-1)^(n+1)
  long double shifted = 0;
  while (x < 30) {
    shifted += n == 0 ? -1 / x : sign * factorial / std::pow(x, n + 1);
    x += 1;
  }
  // B_2k for k = 1 .. 10.
  const long double bernoulli[10] = {1.0L / 6,       -1.0L / 30,      1.0L / 42, -1.0L / 30,
                                     5.0L / 66,      -691.0L / 2730,  7.0L / 6,  -3617.0L / 510,
                                     43867.0L / 798, -174611.0L / 330};
  if (n == 0) {
    long double s = std::log(x) - 1 / (2 * x);
    for (int k = 1; k <= 10; ++k) s -= bernoulli[k - 1] / (2 * k * std::pow(x, 2 * k));
    return static_cast<double>(shifted + s);
  }
  // (-1)^(n+1) [(n-1)! / x^n + n! / (2 x^(n+1)) + sum B_2k (2k+n-1)! / ((2k)! x^(2k+n))].
  long double s = factorial / n / std::pow(x, n) + factorial / (2 * std::pow(x, n + 1));
  for (int k = 1; k <= 10; ++k) {
    long double ratio = 1;  // (2k+n-1)! / (2k)!
    for (int j = 2 * k + 1; j <= 2 * k + n - 1; ++j) ratio *= j;
    s += bernoulli[k - 1] * ratio / std::pow(x, 2 * k + n);
  }
  return static_cast<double>(shifted + sign * s);
}

inline double digamma(double x) { return polygamma(0, x); }

}  // namespace special_ref
