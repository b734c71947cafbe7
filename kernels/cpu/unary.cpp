// unary.cpp: neg, abs, exp, log, sqrt, relu, sigmoid, tanh, erf, log1p, expm1, sin, cos, tan,
// asin, acos, atan, sinh, cosh, log2, log10, rsqrt, reciprocal, floor, ceil, round, trunc, sign,
// pow with a scalar exponent, and clamp, for the dtypes the boundary lets through (floating for
// the transcendental ones, rsqrt and reciprocal; int64 and floating for the rest). NaN
// propagates as in PyTorch (relu(nan) = nan). float32 transcendentals use
// vec_math.hpp's straight-line versions (exp, log, sigmoid, tanh in float within 2-3 ulp; the
// others in double inside, within 1 ulp): unit-stride runs go to vec_kernels.cpp's
// AVX-512/AVX2/baseline clones, other runs use the same code one element at a time, so the
// result does not depend on the layout. 4.6x libm's expf through the op on Zen 4
// (docs/cpu-kernels.md). float64 keeps libm. sqrt is the instruction
// (-fno-math-errno) and clamp two selects, so their loops vectorise too. bfloat16 computes in
// float32 inside the loops (loops.hpp, in_compute_type): the float32 code, widened and rounded.
#include <cmath>
#include <limits>

#include "kernels.hpp"
#include "loops.hpp"
#include "map_f32.hpp"
#include "vec_kernels.hpp"
#include "vec_math.hpp"

namespace wick::cpu {
namespace {

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// Integer power by squaring; negative exponents give 1/base^e truncated (0 unless |base| = 1).
inline int64_t int_pow(int64_t base, int64_t e) {
  if (e < 0) {
    if (base == 1) return 1;
    if (base == -1) return (e % 2 == 0) ? 1 : -1;
    return 0;
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  while (e > 0) {  // unsigned arithmetic wraps on overflow instead of being UB
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<int64_t>(result);
}

// v rounded to S and back: PyTorch 1.13 computes bfloat16 pow(x, 3) as (x * x) * x and
// pow(x, -2) as 1 / (x * x) with bfloat16 vectors on the CPU, each product rounded to
// bfloat16 (checked on all 65536 inputs against python3-torch: 4762 and 8746 of them differ
// from the float32 power rounded once). float32 and float64 are unchanged.
template <typename S, typename T>
T rounded_to(T v) {
  if constexpr (std::is_same_v<S, BFloat16>) {
    return vec::bf16_to_float(vec::float_to_bf16(v));
  } else {
    return v;
  }
}

// S is the stored type; T = compute_t<S> the one the lambdas compute in (float for bfloat16).
template <typename S>
void run_unary(const OpCall& call) {
  using T = compute_t<S>;
  const Tensor& out = call.out();
  const std::array<const Tensor*, 1> in{&call.in(0)};
  auto map1 = [&](const auto& fn) { map<S, S>(out, in_compute_type<S>(fn), in); };
  auto map1_exact = [&](const auto& fn) {  // the result is x, -x, |x| or 0
    map<S, S>(out, in_compute_type<S, true>(fn), in);
  };
  switch (call.op) {
    case OpId::neg:
      if constexpr (std::is_same_v<T, int64_t>) {
        map1([](T x) { return static_cast<T>(0ull - static_cast<uint64_t>(x)); });
      } else {
        map1_exact([](T x) { return -x; });
      }
      break;
    case OpId::abs:
      if constexpr (std::is_same_v<T, int64_t>) {
        map1([](T x) { return x < 0 ? static_cast<T>(0ull - static_cast<uint64_t>(x)) : x; });
      } else {
        map1_exact([](T x) { return std::abs(x); });
      }
      break;
    case OpId::floor:
    case OpId::ceil:
    case OpId::round:
    case OpId::trunc:
      if constexpr (std::is_same_v<T, int64_t>) {
        map1([](T x) { return x; });  // integers are integral already (PyTorch copies them)
      } else if (call.op == OpId::floor) {
        map1_exact([](T x) { return std::floor(x); });
      } else if (call.op == OpId::ceil) {
        map1_exact([](T x) { return std::ceil(x); });
      } else if (call.op == OpId::round) {
        // Ties to even in the default rounding mode, as PyTorch (std::round goes away from 0).
        map1_exact([](T x) { return std::nearbyint(x); });
      } else {
        map1_exact([](T x) { return std::trunc(x); });
      }
      break;
    case OpId::sign:
      // (0 < x) - (x < 0), as PyTorch 1.13: NaN and -0 give +0.
      map1_exact([](T x) { return static_cast<T>(int(T(0) < x) - int(x < T(0))); });
      break;
    case OpId::relu:
      // NaN (the compare fails) and -0 (PyTorch 1.13's relu(-0.) is -0.) pass through.
      map1_exact([](T x) { return T(0) > x ? T(0) : x; });
      break;
    case OpId::clamp: {
      const bool has_lo = call.has_a, has_hi = call.has_b;
      const T lo = has_lo ? call.scalar_a.to<T>() : T(0);
      const T hi = has_hi ? call.scalar_b.to<T>() : T(0);
      // As PyTorch 1.13: with both bounds, a NaN bound makes every element NaN (its min and max
      // propagate NaN); a single NaN bound is ignored.
      const bool nan_bound = has_lo && has_hi && (is_nan(lo) || is_nan(hi));
      const T nan_value = is_nan(lo) ? lo : hi;
      // One loop per case, each two selects at most: a NaN x fails both compares and passes
      // through. (One lambda testing the cases and NaN per element ran scalar, with branches
      // that random data mispredicts: 7-9x slower than libtorch.)
      if (nan_bound) {
        map1([=](T) { return nan_value; });
      } else if (has_lo && has_hi) {
        map1([=](T x) {
          const T above = x < lo ? lo : x;
          return above > hi ? hi : above;
        });
      } else if (has_lo) {
        map1([=](T x) { return x < lo ? lo : x; });
      } else {
        map1([=](T x) { return x > hi ? hi : x; });
      }
      break;
    }
    case OpId::pow_scalar:
      if constexpr (std::is_same_v<T, int64_t>) {
        const int64_t e = call.scalar_a.to_int64();
        map1([e](T x) { return int_pow(x, e); });
      } else {
        // PyTorch 1.13's pow(tensor, number) sends these exponents to other kernels, whose
        // results differ from pow's at the edges: pow(-0., 0.5) is -0. (sqrt), not 0., and
        // pow(-inf, 0.5) is nan, not inf; pow(x, -2) rounds as 1 / (x * x). It picks sqrt,
        // rsqrt and reciprocal by the exponent as written (scalar_b, from the boundary), the
        // others by the exponent in the computation's dtype (scalar_a).
        const T e = call.scalar_a.to<T>();
        const double written = call.has_b ? call.scalar_b.to_double() : call.scalar_a.to_double();
        if (written == 0.5) {
          map1([](T x) { return std::sqrt(x); });
        } else if (written == -0.5) {
          map1([](T x) { return T(1) / std::sqrt(x); });
        } else if (written == -1.0) {
          map1([](T x) { return T(1) / x; });
        } else if (e == T(2)) {
          map1([](T x) { return x * x; });
        } else if (e == T(3)) {
          map1([](T x) { return rounded_to<S>(x * x) * x; });
        } else if (e == T(-2)) {
          map1([](T x) { return T(1) / rounded_to<S>(x * x); });
        } else {
          map1([e](T x) { return std::pow(x, e); });
        }
      }
      break;
    default:
      if constexpr (std::is_same_v<T, float>) {
        switch (call.op) {
          case OpId::exp:
            map_f32<S, vec::exp_f32, vec::exp_bf16, vec::exp>(out, call.in(0));
            return;
          case OpId::sigmoid:
            map_f32<S, vec::sigmoid_f32, vec::sigmoid_bf16, vec::sigmoid>(out, call.in(0));
            return;
          case OpId::tanh:
            map_f32<S, vec::tanh_f32, vec::tanh_bf16, vec::tanh>(out, call.in(0));
            return;
          case OpId::log:
            map_f32<S, vec::log_f32, vec::log_bf16, vec::log>(out, call.in(0));
            return;
          case OpId::sin:
            map_f32<S, vec::sin_f32, vec::sin_bf16, vec::sin>(out, call.in(0));
            return;
          case OpId::cos:
            map_f32<S, vec::cos_f32, vec::cos_bf16, vec::cos>(out, call.in(0));
            return;
          case OpId::tan:
            map_f32<S, vec::tan_f32, vec::tan_bf16, vec::tan>(out, call.in(0));
            return;
          case OpId::atan:
            map_f32<S, vec::atan_f32, vec::atan_bf16, vec::atan>(out, call.in(0));
            return;
          case OpId::asin:
            map_f32<S, vec::asin_f32, vec::asin_bf16, vec::asin>(out, call.in(0));
            return;
          case OpId::acos:
            map_f32<S, vec::acos_f32, vec::acos_bf16, vec::acos>(out, call.in(0));
            return;
          case OpId::sinh:
            map_f32<S, vec::sinh_f32, vec::sinh_bf16, vec::sinh>(out, call.in(0));
            return;
          case OpId::cosh:
            map_f32<S, vec::cosh_f32, vec::cosh_bf16, vec::cosh>(out, call.in(0));
            return;
          case OpId::expm1:
            map_f32<S, vec::expm1_f32, vec::expm1_bf16, vec::expm1>(out, call.in(0));
            return;
          case OpId::log1p:
            map_f32<S, vec::log1p_f32, vec::log1p_bf16, vec::log1p>(out, call.in(0));
            return;
          case OpId::log2:
            map_f32<S, vec::log2_f32, vec::log2_bf16, vec::log2>(out, call.in(0));
            return;
          case OpId::log10:
            map_f32<S, vec::log10_f32, vec::log10_bf16, vec::log10>(out, call.in(0));
            return;
          case OpId::erf:
            map_f32<S, vec::erf_f32, vec::erf_bf16, vec::erf>(out, call.in(0));
            return;
          default:
            break;
        }
      }
      if constexpr (std::is_floating_point_v<T>) {
        switch (call.op) {
          case OpId::exp:
            map1([](T x) { return std::exp(x); });
            break;
          case OpId::log:
            map1([](T x) { return std::log(x); });
            break;
          case OpId::sqrt:
            map1([](T x) { return std::sqrt(x); });
            break;
          case OpId::tanh:
            map1([](T x) { return std::tanh(x); });
            break;
          case OpId::sigmoid:
            map1([](T x) { return T(1) / (T(1) + std::exp(-x)); });
            break;
          case OpId::erf:
            map1([](T x) { return std::erf(x); });
            break;
          case OpId::log1p:
            map1([](T x) { return std::log1p(x); });
            break;
          case OpId::expm1:
            map1([](T x) { return std::expm1(x); });
            break;
          case OpId::sin:
            map1([](T x) { return std::sin(x); });
            break;
          case OpId::cos:
            map1([](T x) { return std::cos(x); });
            break;
          case OpId::tan:
            map1([](T x) { return std::tan(x); });
            break;
          case OpId::asin:
            map1([](T x) { return std::asin(x); });
            break;
          case OpId::acos:
            map1([](T x) { return std::acos(x); });
            break;
          case OpId::atan:
            map1([](T x) { return std::atan(x); });
            break;
          case OpId::sinh:
            map1([](T x) { return std::sinh(x); });
            break;
          case OpId::cosh:
            map1([](T x) { return std::cosh(x); });
            break;
          case OpId::log2:
            map1([](T x) { return std::log2(x); });
            break;
          case OpId::log10:
            map1([](T x) { return std::log10(x); });
            break;
          case OpId::rsqrt:
            map1([](T x) { return T(1) / std::sqrt(x); });
            break;
          case OpId::reciprocal:
            map1([](T x) { return T(1) / x; });
            break;
          default:
            break;
        }
      }
      break;
  }
}

}  // namespace

void unary_kernel(const OpCall& call) {
  if (call.out().dtype() == kBFloat16) {
    run_unary<BFloat16>(call);
    return;
  }
  WICK_DISPATCH_NUMERIC(call.out().dtype(), run_unary<T>(call))
}

}  // namespace wick::cpu
