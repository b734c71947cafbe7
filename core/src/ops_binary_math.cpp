// ops_binary_math.cpp: the binary ops beyond arithmetic, on ops_elementwise.cpp's engine
// (elementwise.hpp: promotion, broadcasting, the checks, autograd): atan2, hypot, fmod,
// remainder, copysign (and signbit, made of it), and division rounded to an integer value,
// div(a, b, "trunc" or "floor") and floor_divide. The rounded divisions keep the promoted dtype
// (integers stay integers, exact), refuse bool and an integer zero divisor as fmod does, and run
// the trunc_divide and floor_divide kernels (kernels/rounded_division.hpp: PyTorch 1.13's
// formulas). Their gradient is zero, as PyTorch's for div with a rounding mode.
#include "elementwise.hpp"
#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {

using detail::binary;
using detail::binary_inplace;

namespace {

OpId rounded_division(std::string_view rounding_mode, const char* op) {
  if (rounding_mode == "trunc") return OpId::trunc_divide;
  if (rounding_mode == "floor") return OpId::floor_divide;
  detail::fail<ValueError>(
      op, "expected rounding_mode \"trunc\" or \"floor\" (or none: div(a, b)), got \"",
      rounding_mode, "\"");
}

}  // namespace

Tensor atan2(const Tensor& a, const Tensor& b) { return binary(OpId::atan2, a, b); }
Tensor hypot(const Tensor& a, const Tensor& b) { return binary(OpId::hypot, a, b); }
Tensor fmod(const Tensor& a, const Tensor& b) { return binary(OpId::fmod, a, b); }
Tensor fmod(const Tensor& a, const Scalar& b) { return binary(OpId::fmod, a, b); }
Tensor remainder(const Tensor& a, const Tensor& b) { return binary(OpId::remainder, a, b); }
Tensor remainder(const Tensor& a, const Scalar& b) { return binary(OpId::remainder, a, b); }
Tensor remainder(const Scalar& a, const Tensor& b) { return binary(OpId::remainder, a, b); }
Tensor div(const Tensor& a, const Tensor& b, std::string_view rounding_mode) {
  return binary(rounded_division(rounding_mode, "div"), a, b);
}
Tensor div(const Tensor& a, const Scalar& b, std::string_view rounding_mode) {
  return binary(rounded_division(rounding_mode, "div"), a, b);
}
Tensor floor_divide(const Tensor& a, const Tensor& b) { return binary(OpId::floor_divide, a, b); }
Tensor floor_divide(const Tensor& a, const Scalar& b) { return binary(OpId::floor_divide, a, b); }

Tensor copysign(const Tensor& a, const Tensor& b) { return binary(OpId::copysign, a, b); }
Tensor copysign(const Tensor& a, const Scalar& b) { return binary(OpId::copysign, a, b); }
Tensor signbit(const Tensor& a) {
  detail::check_defined("signbit", {&a});
  if (a.dtype() == kBool) return zeros(a.sizes(), TensorOptions(kBool).device(a.device()));
  if (!is_floating(a.dtype())) return lt(a, 0);
  // The sign bit itself, NaN's and -0's included: 1 with a's sign is -1 exactly where it is set.
  return lt(copysign(ones_like(a, a.options().requires_grad(false)), a.detach()), 0);
}

Tensor& Tensor::atan2_(const Tensor& o) { return binary_inplace(OpId::atan2, *this, o); }
Tensor& Tensor::hypot_(const Tensor& o) { return binary_inplace(OpId::hypot, *this, o); }
Tensor& Tensor::fmod_(const Tensor& o) { return binary_inplace(OpId::fmod, *this, o); }
Tensor& Tensor::fmod_(const Scalar& o) { return binary_inplace(OpId::fmod, *this, o); }
Tensor& Tensor::remainder_(const Tensor& o) { return binary_inplace(OpId::remainder, *this, o); }
Tensor& Tensor::remainder_(const Scalar& o) { return binary_inplace(OpId::remainder, *this, o); }
Tensor& Tensor::div_(const Tensor& o, std::string_view rounding_mode) {
  return binary_inplace(rounded_division(rounding_mode, "div_"), *this, o);
}
Tensor& Tensor::div_(const Scalar& o, std::string_view rounding_mode) {
  return binary_inplace(rounded_division(rounding_mode, "div_"), *this, o);
}
Tensor& Tensor::copysign_(const Tensor& o) { return binary_inplace(OpId::copysign, *this, o); }
Tensor& Tensor::copysign_(const Scalar& o) { return binary_inplace(OpId::copysign, *this, o); }
Tensor& Tensor::floor_divide_(const Tensor& o) {
  return binary_inplace(OpId::floor_divide, *this, o);
}
Tensor& Tensor::floor_divide_(const Scalar& o) {
  return binary_inplace(OpId::floor_divide, *this, o);
}

Tensor Tensor::div(const Tensor& o, std::string_view rounding_mode) const {
  return wick::div(*this, o, rounding_mode);
}
Tensor Tensor::div(const Scalar& o, std::string_view rounding_mode) const {
  return wick::div(*this, o, rounding_mode);
}
Tensor Tensor::copysign(const Tensor& o) const { return wick::copysign(*this, o); }
Tensor Tensor::copysign(const Scalar& o) const { return wick::copysign(*this, o); }
Tensor Tensor::signbit() const { return wick::signbit(*this); }
Tensor Tensor::floor_divide(const Tensor& o) const { return wick::floor_divide(*this, o); }
Tensor Tensor::floor_divide(const Scalar& o) const { return wick::floor_divide(*this, o); }

}  // namespace wick
