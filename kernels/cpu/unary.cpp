// unary.cpp: neg, abs, exp, log, sqrt, relu, sigmoid, tanh, pow with a scalar exponent, and
// clamp, for the dtypes the boundary lets through (floating for exp/log/sqrt/sigmoid/tanh,
// int64 and floating for the rest). NaN propagates as in PyTorch (relu(nan) = nan). float32
// exp, log, sigmoid and tanh use vec_math.hpp's straight-line versions (2-3 ulp): unit-stride
// runs go to vec_kernels.cpp's AVX-512/AVX2/baseline clones, other runs use the same code one
// element at a time, so the result does not depend on the layout. 4.6x libm's expf through
// the op on Zen 4 (docs/cpu-kernels.md). float64 keeps libm. sqrt is the instruction
// (-fno-math-errno) and clamp two selects, so their loops vectorise too.
#include <cmath>
#include <limits>

#include "kernels.hpp"
#include "loops.hpp"
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

// out = f(in) for float32 with f's vectorised loop for unit-stride runs.
template <void (*kContiguous)(const float*, float*, int64_t), float (*kScalar)(float)>
void map_f32(const Tensor& out, const Tensor& in) {
  for_each_strided<2>({&out, &in}, [](char** p, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(float) && s[1] == sizeof(float)) {
      kContiguous(reinterpret_cast<const float*>(p[1]), reinterpret_cast<float*>(p[0]), n);
      return;
    }
    for (int64_t j = 0; j < n; ++j) {
      *reinterpret_cast<float*>(p[0] + j * s[0]) =
          kScalar(*reinterpret_cast<const float*>(p[1] + j * s[1]));
    }
  });
}

template <typename T>
void run_unary(const OpCall& call) {
  const Tensor& out = call.out();
  const std::array<const Tensor*, 1> in{&call.in(0)};
  switch (call.op) {
    case OpId::neg:
      if constexpr (std::is_same_v<T, int64_t>) {
        map<T, T>(
            out, [](T x) { return static_cast<T>(0ull - static_cast<uint64_t>(x)); }, in);
      } else {
        map<T, T>(
            out, [](T x) { return -x; }, in);
      }
      break;
    case OpId::abs:
      if constexpr (std::is_same_v<T, int64_t>) {
        map<T, T>(
            out, [](T x) { return x < 0 ? static_cast<T>(0ull - static_cast<uint64_t>(x)) : x; },
            in);
      } else {
        map<T, T>(
            out, [](T x) { return std::abs(x); }, in);
      }
      break;
    case OpId::relu:
      // NaN (the compare fails) and -0 (PyTorch 1.13's relu(-0.) is -0.) pass through.
      map<T, T>(
          out, [](T x) { return T(0) > x ? T(0) : x; }, in);
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
        map<T, T>(
            out, [=](T) { return nan_value; }, in);
      } else if (has_lo && has_hi) {
        map<T, T>(
            out,
            [=](T x) {
              const T above = x < lo ? lo : x;
              return above > hi ? hi : above;
            },
            in);
      } else if (has_lo) {
        map<T, T>(
            out, [=](T x) { return x < lo ? lo : x; }, in);
      } else {
        map<T, T>(
            out, [=](T x) { return x > hi ? hi : x; }, in);
      }
      break;
    }
    case OpId::pow_scalar:
      if constexpr (std::is_same_v<T, int64_t>) {
        const int64_t e = call.scalar_a.to_int64();
        map<T, T>(
            out, [e](T x) { return int_pow(x, e); }, in);
      } else {
        // PyTorch 1.13's pow(tensor, number) sends these exponents to other kernels, whose
        // results differ from pow's at the edges: pow(-0., 0.5) is -0. (sqrt), not 0., and
        // pow(-inf, 0.5) is nan, not inf; pow(x, -2) rounds as 1 / (x * x). It picks sqrt,
        // rsqrt and reciprocal by the exponent as written (scalar_b, from the boundary), the
        // others by the exponent in the computation's dtype (scalar_a).
        const T e = call.scalar_a.to<T>();
        const double written = call.has_b ? call.scalar_b.to_double() : call.scalar_a.to_double();
        if (written == 0.5) {
          map<T, T>(
              out, [](T x) { return std::sqrt(x); }, in);
        } else if (written == -0.5) {
          map<T, T>(
              out, [](T x) { return T(1) / std::sqrt(x); }, in);
        } else if (written == -1.0) {
          map<T, T>(
              out, [](T x) { return T(1) / x; }, in);
        } else if (e == T(2)) {
          map<T, T>(
              out, [](T x) { return x * x; }, in);
        } else if (e == T(3)) {
          map<T, T>(
              out, [](T x) { return x * x * x; }, in);
        } else if (e == T(-2)) {
          map<T, T>(
              out, [](T x) { return T(1) / (x * x); }, in);
        } else {
          map<T, T>(
              out, [e](T x) { return std::pow(x, e); }, in);
        }
      }
      break;
    default:
      if constexpr (std::is_same_v<T, float>) {
        switch (call.op) {
          case OpId::exp:
            map_f32<vec::exp_f32, vec::exp>(out, call.in(0));
            return;
          case OpId::sigmoid:
            map_f32<vec::sigmoid_f32, vec::sigmoid>(out, call.in(0));
            return;
          case OpId::tanh:
            map_f32<vec::tanh_f32, vec::tanh>(out, call.in(0));
            return;
          case OpId::log:
            map_f32<vec::log_f32, vec::log>(out, call.in(0));
            return;
          default:
            break;
        }
      }
      if constexpr (std::is_floating_point_v<T>) {
        switch (call.op) {
          case OpId::exp:
            map<T, T>(
                out, [](T x) { return std::exp(x); }, in);
            break;
          case OpId::log:
            map<T, T>(
                out, [](T x) { return std::log(x); }, in);
            break;
          case OpId::sqrt:
            map<T, T>(
                out, [](T x) { return std::sqrt(x); }, in);
            break;
          case OpId::tanh:
            map<T, T>(
                out, [](T x) { return std::tanh(x); }, in);
            break;
          case OpId::sigmoid:
            map<T, T>(
                out, [](T x) { return T(1) / (T(1) + std::exp(-x)); }, in);
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
  WICK_DISPATCH_NUMERIC(call.out().dtype(), run_unary<T>(call))
}

}  // namespace wick::cpu
