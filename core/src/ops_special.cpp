// ops_special.cpp: the op boundary for asinh, acosh, atanh, erfc, erfinv, exp2, lgamma, digamma
// and polygamma (torch's functions of those names): unary kernel ops computed in a floating
// dtype (integers and bool in float32), through ops_elementwise.cpp's engine. polygamma takes
// its order n as the call's attribute scalar_a (n >= 0, checked here). Kernels:
// kernels/cpu/special.cpp, kernels/cuda/special.cu, both from kernels/special_math.hpp where
// the C library has no such function. Autograd rules in autograd/rules.cpp.
#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {

Tensor asinh(const Tensor& a) { return detail::floating_unary(OpId::asinh, a); }
Tensor acosh(const Tensor& a) { return detail::floating_unary(OpId::acosh, a); }
Tensor atanh(const Tensor& a) { return detail::floating_unary(OpId::atanh, a); }
Tensor erfc(const Tensor& a) { return detail::floating_unary(OpId::erfc, a); }
Tensor erfinv(const Tensor& a) { return detail::floating_unary(OpId::erfinv, a); }
Tensor exp2(const Tensor& a) { return detail::floating_unary(OpId::exp2, a); }
Tensor lgamma(const Tensor& a) { return detail::floating_unary(OpId::lgamma, a); }
Tensor digamma(const Tensor& a) { return detail::floating_unary(OpId::digamma, a); }

Tensor polygamma(int64_t n, const Tensor& a) {
  detail::check_defined("polygamma", {&a});
  // PyTorch: "polygamma(n, x) does not support negative n."
  WICK_CHECK(n >= 0, ValueError, "polygamma", "does not support negative n, got n = ", n, " for ",
             describe(a));
  return detail::floating_unary(OpId::polygamma, a, Scalar(n));
}

Tensor Tensor::asinh() const { return wick::asinh(*this); }
Tensor Tensor::acosh() const { return wick::acosh(*this); }
Tensor Tensor::atanh() const { return wick::atanh(*this); }
Tensor Tensor::erfc() const { return wick::erfc(*this); }
Tensor Tensor::erfinv() const { return wick::erfinv(*this); }
Tensor Tensor::exp2() const { return wick::exp2(*this); }
Tensor Tensor::lgamma() const { return wick::lgamma(*this); }
Tensor Tensor::digamma() const { return wick::digamma(*this); }
Tensor Tensor::polygamma(int64_t n) const { return wick::polygamma(n, *this); }

}  // namespace wick
