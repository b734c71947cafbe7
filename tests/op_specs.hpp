// op_specs.hpp: the elementwise ops of the sweeps, each with the call that runs it and its
// float64 reference: what test_op_sweep.cpp checks against the oracle and test_loop_paths.cpp
// runs through each of the CPU loop's paths.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>

#include "reference.hpp"
#include "special_reference.hpp"

namespace op_specs {

using namespace wick;
using ref::Domain;

// ---- unary ----
struct UnarySpec {
  std::function<Tensor(const Tensor&)> run;
  std::function<double(double)> fn;
  Domain domain = Domain::Any;
  bool float_result = false;  // int/bool inputs give float32
  bool rejects_bool = false;
};

inline std::map<OpId, UnarySpec> unary_specs() {
  auto sig = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  return {
      {OpId::neg,
       {[](const Tensor& t) { return -t; }, [](double x) { return -x; }, Domain::Any, false, true}},
      {OpId::abs,
       {[](const Tensor& t) { return t.abs(); }, [](double x) { return std::fabs(x); }, Domain::Any,
        false, true}},
      {OpId::exp,
       {[](const Tensor& t) { return t.exp(); }, [](double x) { return std::exp(x); },
        Domain::SmallInt, true}},
      {OpId::log,
       {[](const Tensor& t) { return t.log(); }, [](double x) { return std::log(x); },
        Domain::Positive, true}},
      {OpId::sqrt,
       {[](const Tensor& t) { return t.sqrt(); }, [](double x) { return std::sqrt(x); },
        Domain::Positive, true}},
      {OpId::relu,
       {[](const Tensor& t) { return t.relu(); }, [](double x) { return x > 0 ? x : 0; },
        Domain::Any, false, true}},
      {OpId::sigmoid, {[](const Tensor& t) { return t.sigmoid(); }, sig, Domain::Any, true}},
      {OpId::tanh,
       {[](const Tensor& t) { return t.tanh(); }, [](double x) { return std::tanh(x); },
        Domain::Any, true}},
      {OpId::erf,
       {[](const Tensor& t) { return t.erf(); }, [](double x) { return std::erf(x); }, Domain::Any,
        true}},
      {OpId::log1p,
       {[](const Tensor& t) { return t.log1p(); }, [](double x) { return std::log1p(x); },
        Domain::Positive, true}},
      {OpId::expm1,
       {[](const Tensor& t) { return t.expm1(); }, [](double x) { return std::expm1(x); },
        Domain::Any, true}},
      {OpId::sin,
       {[](const Tensor& t) { return t.sin(); }, [](double x) { return std::sin(x); }, Domain::Any,
        true}},
      {OpId::cos,
       {[](const Tensor& t) { return t.cos(); }, [](double x) { return std::cos(x); }, Domain::Any,
        true}},
      {OpId::tan,
       {[](const Tensor& t) { return t.tan(); }, [](double x) { return std::tan(x); }, Domain::Any,
        true}},
      {OpId::asin,
       {[](const Tensor& t) { return t.asin(); }, [](double x) { return std::asin(x); },
        Domain::Any, true}},
      {OpId::acos,
       {[](const Tensor& t) { return t.acos(); }, [](double x) { return std::acos(x); },
        Domain::Any, true}},
      {OpId::atan,
       {[](const Tensor& t) { return t.atan(); }, [](double x) { return std::atan(x); },
        Domain::Any, true}},
      {OpId::sinh,
       {[](const Tensor& t) { return t.sinh(); }, [](double x) { return std::sinh(x); },
        Domain::Any, true}},
      {OpId::cosh,
       {[](const Tensor& t) { return t.cosh(); }, [](double x) { return std::cosh(x); },
        Domain::Any, true}},
      {OpId::log2,
       {[](const Tensor& t) { return t.log2(); }, [](double x) { return std::log2(x); },
        Domain::Positive, true}},
      {OpId::log10,
       {[](const Tensor& t) { return t.log10(); }, [](double x) { return std::log10(x); },
        Domain::Positive, true}},
      {OpId::asinh,
       {[](const Tensor& t) { return t.asinh(); }, [](double x) { return std::asinh(x); },
        Domain::Any, true}},
      {OpId::acosh,
       {[](const Tensor& t) { return t.acosh(); }, [](double x) { return std::acosh(x); },
        Domain::Positive, true}},
      {OpId::atanh,
       {[](const Tensor& t) { return t.atanh(); }, [](double x) { return std::atanh(x); },
        Domain::Any, true}},
      {OpId::erfc,
       {[](const Tensor& t) { return t.erfc(); }, [](double x) { return std::erfc(x); },
        Domain::Any, true}},
      {OpId::erfinv,
       {[](const Tensor& t) { return t.erfinv(); }, [](double x) { return special_ref::erfinv(x); },
        Domain::Any, true}},
      {OpId::exp2,
       {[](const Tensor& t) { return t.exp2(); }, [](double x) { return std::exp2(x); },
        Domain::Any, true}},
      {OpId::lgamma,
       {[](const Tensor& t) { return t.lgamma(); }, [](double x) { return std::lgamma(x); },
        Domain::Any, true}},
      {OpId::digamma,
       {[](const Tensor& t) { return t.digamma(); },
        [](double x) { return special_ref::digamma(x); }, Domain::Any, true}},
      {OpId::polygamma,
       {[](const Tensor& t) { return t.polygamma(2); },
        [](double x) { return special_ref::polygamma(2, x); }, Domain::Any, true}},
      {OpId::rsqrt,
       {[](const Tensor& t) { return t.rsqrt(); }, [](double x) { return 1 / std::sqrt(x); },
        Domain::Positive, true}},
      {OpId::reciprocal,
       {[](const Tensor& t) { return t.reciprocal(); }, [](double x) { return 1 / x; },
        Domain::Positive, true}},
      {OpId::floor,
       {[](const Tensor& t) { return t.floor(); }, [](double x) { return std::floor(x); },
        Domain::Any, false, true}},
      {OpId::ceil,
       {[](const Tensor& t) { return t.ceil(); }, [](double x) { return std::ceil(x); },
        Domain::Any, false, true}},
      {OpId::round,
       {[](const Tensor& t) { return t.round(); }, [](double x) { return std::nearbyint(x); },
        Domain::Any, false, true}},
      {OpId::trunc,
       {[](const Tensor& t) { return t.trunc(); }, [](double x) { return std::trunc(x); },
        Domain::Any, false, true}},
      {OpId::sign,
       {[](const Tensor& t) { return t.sign(); },
        [](double x) { return static_cast<double>((0 < x) - (x < 0)); }, Domain::Any}},
      {OpId::pow_scalar,
       {[](const Tensor& t) { return t.pow(3); }, [](double x) { return x * x * x; },
        Domain::SmallInt, false, true}},
      {OpId::clamp,
       {[](const Tensor& t) { return t.clamp(-2, 2); },
        [](double x) { return std::clamp(x, -2.0, 2.0); }, Domain::Any, false, true}},
  };
}

// ---- binary and comparisons ----
struct BinarySpec {
  std::function<Tensor(const Tensor&, const Tensor&)> run;
  std::function<double(double, double)> fn;
  Domain domain_b = Domain::Any;
  bool compare = false;
  bool float_result = false;
  bool rejects_bool = false;
  bool floating_only = false;  // int64 and bool operands give DtypeError
  bool integer_only = false;   // floating operands give DtypeError
};

// The bit ops' references, on the int64 values the sweep's doubles hold exactly.
inline double shifted_left(double a, double b) {
  const auto count = static_cast<int64_t>(b);
  if (count < 0 || count > 63) return 0;
  return static_cast<double>(
      static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(a)) << count));
}
inline double shifted_right(double a, double b) {
  const auto count = static_cast<int64_t>(b);
  if (count < 0 || count > 63) return a < 0 ? -1 : 0;
  return std::floor(a / std::ldexp(1.0, static_cast<int>(count)));  // >> rounds down
}

inline std::map<OpId, BinarySpec> binary_specs() {
  auto mx = [](double a, double b) {
    return std::isnan(a) || a > b ? a : (std::isnan(b) ? b : std::max(a, b));
  };
  auto mn = [](double a, double b) {
    return std::isnan(a) || a < b ? a : (std::isnan(b) ? b : std::min(a, b));
  };
  return {
      {OpId::add,
       {[](auto& a, auto& b) { return a + b; }, [](double a, double b) { return a + b; }}},
      {OpId::sub,
       {[](auto& a, auto& b) { return a - b; }, [](double a, double b) { return a - b; },
        Domain::Any, false, false, true}},
      {OpId::mul,
       {[](auto& a, auto& b) { return a * b; }, [](double a, double b) { return a * b; }}},
      {OpId::div,
       {[](auto& a, auto& b) { return a / b; }, [](double a, double b) { return a / b; },
        Domain::Positive, false, true}},
      {OpId::pow,
       {[](auto& a, auto& b) { return a.pow(b); },
        [](double a, double b) { return std::pow(a, b); }, Domain::SmallInt, false, false, true}},
      {OpId::maximum, {[](auto& a, auto& b) { return maximum(a, b); }, mx}},
      {OpId::minimum, {[](auto& a, auto& b) { return minimum(a, b); }, mn}},
      {OpId::atan2,
       {[](auto& a, auto& b) { return atan2(a, b); },
        [](double a, double b) { return std::atan2(a, b); }, Domain::Any, false, true}},
      {OpId::hypot,
       {[](auto& a, auto& b) { return hypot(a, b); },
        [](double a, double b) { return std::hypot(a, b); }, Domain::Any, false, false, true,
        true}},
      {OpId::fmod,
       {[](auto& a, auto& b) { return fmod(a, b); },
        [](double a, double b) { return std::fmod(a, b); }, Domain::NonZero, false, false, true}},
      {OpId::remainder,
       {[](auto& a, auto& b) { return remainder(a, b); },
        [](double a, double b) {
          const double mod = std::fmod(a, b);
          return mod != 0 && ((b < 0) != (mod < 0)) ? mod + b : mod;
        },
        Domain::NonZero, false, false, true}},
      // floor: the exact quotient's floor (Python's float // is that floor for these operands;
      // long double holds their quotients closely enough). trunc: of the quotient rounded to the
      // operands' dtype, as PyTorch's trunc(a / b) (float32 1 / 0.1 rounds to 10: trunc 10, floor
      // 9); float32 operands are the ones that float holds exactly.
      {OpId::floor_divide,
       {[](auto& a, auto& b) { return floor_divide(a, b); },
        [](double a, double b) {
          return static_cast<double>(std::floor(static_cast<long double>(a) / b));
        },
        Domain::NonZero, false, false, true}},
      {OpId::trunc_divide,
       {[](auto& a, auto& b) { return div(a, b, "trunc"); },
        [](double a, double b) {
          const auto held = [](double v) {
            return static_cast<double>(static_cast<float>(v)) == v;
          };
          const double q = a / b;
          return std::trunc(held(a) && held(b) ? static_cast<double>(static_cast<float>(q)) : q);
        },
        Domain::NonZero, false, false, true}},
      {OpId::copysign,
       {[](auto& a, auto& b) { return copysign(a, b); },
        [](double a, double b) { return std::copysign(a, b); }, Domain::Any, false, true}},
      {OpId::bitwise_and,
       {[](auto& a, auto& b) { return a & b; },
        [](double a, double b) {
          return static_cast<double>(static_cast<int64_t>(a) & static_cast<int64_t>(b));
        },
        Domain::Any, false, false, false, false, true}},
      {OpId::bitwise_or,
       {[](auto& a, auto& b) { return a | b; },
        [](double a, double b) {
          return static_cast<double>(static_cast<int64_t>(a) | static_cast<int64_t>(b));
        },
        Domain::Any, false, false, false, false, true}},
      {OpId::bitwise_xor,
       {[](auto& a, auto& b) { return a ^ b; },
        [](double a, double b) {
          return static_cast<double>(static_cast<int64_t>(a) ^ static_cast<int64_t>(b));
        },
        Domain::Any, false, false, false, false, true}},
      {OpId::bitwise_left_shift,
       {[](auto& a, auto& b) { return a << b; }, shifted_left, Domain::Any, false, false, true,
        false, true}},
      {OpId::bitwise_right_shift,
       {[](auto& a, auto& b) { return a >> b; }, shifted_right, Domain::Any, false, false, true,
        false, true}},
      {OpId::gcd,
       {[](auto& a, auto& b) { return gcd(a, b); },
        [](double a, double b) {
          return static_cast<double>(std::gcd(static_cast<int64_t>(a), static_cast<int64_t>(b)));
        },
        Domain::Any, false, false, true, false, true}},
      {OpId::lcm,
       {[](auto& a, auto& b) { return lcm(a, b); },
        [](double a, double b) {
          return static_cast<double>(std::lcm(static_cast<int64_t>(a), static_cast<int64_t>(b)));
        },
        Domain::Any, false, false, true, false, true}},
      // In double: a float32 step is within the sweep's float32 tolerance of this, so the
      // sweep checks dtypes, shapes and layouts; tests/test_bits.cpp checks every dtype's step
      // bit for bit.
      {OpId::nextafter,
       {[](auto& a, auto& b) { return nextafter(a, b); },
        [](double a, double b) { return std::nextafter(a, b); }, Domain::Any, false, false, false,
        true}},
      {OpId::sigmoid_backward,
       {[](auto& g, auto& y) { return sigmoid_backward(g, y); },
        [](double g, double y) { return g * (1 - y) * y; }, Domain::Any, false, false, true, true}},
      {OpId::tanh_backward,
       {[](auto& g, auto& y) { return tanh_backward(g, y); },
        [](double g, double y) { return g * (1 - y * y); }, Domain::Any, false, false, true, true}},
      {OpId::eq,
       {[](auto& a, auto& b) { return a == b; }, [](double a, double b) { return double(a == b); },
        Domain::SmallInt, true}},
      {OpId::ne,
       {[](auto& a, auto& b) { return a != b; }, [](double a, double b) { return double(a != b); },
        Domain::SmallInt, true}},
      {OpId::lt,
       {[](auto& a, auto& b) { return a < b; }, [](double a, double b) { return double(a < b); },
        Domain::SmallInt, true}},
      {OpId::le,
       {[](auto& a, auto& b) { return a <= b; }, [](double a, double b) { return double(a <= b); },
        Domain::SmallInt, true}},
      {OpId::gt,
       {[](auto& a, auto& b) { return a > b; }, [](double a, double b) { return double(a > b); },
        Domain::SmallInt, true}},
      {OpId::ge,
       {[](auto& a, auto& b) { return a >= b; }, [](double a, double b) { return double(a >= b); },
        Domain::SmallInt, true}},
  };
}

}  // namespace op_specs
