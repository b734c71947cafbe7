// elementwise_methods.cpp: the Tensor methods of the elementwise ops (x.exp(), x.add(y), x.eq(0)
// and the rest), each the free function of ops_elementwise.cpp on *this. The in-place methods
// stay there, next to the helpers they share.
#include "wick/ops.hpp"
#include "wick/tensor.hpp"

namespace wick {

Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const {
  return wick::add(*this, o, alpha);
}
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const {
  return wick::sub(*this, o, alpha);
}
Tensor Tensor::mul(const Tensor& o) const { return wick::mul(*this, o); }
Tensor Tensor::div(const Tensor& o) const { return wick::div(*this, o); }
Tensor Tensor::add(const Scalar& o) const { return wick::add(*this, o); }
Tensor Tensor::sub(const Scalar& o) const { return wick::sub(*this, o); }
Tensor Tensor::mul(const Scalar& o) const { return wick::mul(*this, o); }
Tensor Tensor::div(const Scalar& o) const { return wick::div(*this, o); }
Tensor Tensor::neg() const { return wick::neg(*this); }
Tensor Tensor::exp() const { return wick::exp(*this); }
Tensor Tensor::log() const { return wick::log(*this); }
Tensor Tensor::sqrt() const { return wick::sqrt(*this); }
Tensor Tensor::abs() const { return wick::abs(*this); }
Tensor Tensor::relu() const { return wick::relu(*this); }
Tensor Tensor::sigmoid() const { return wick::sigmoid(*this); }
Tensor Tensor::erf() const { return wick::erf(*this); }
Tensor Tensor::log1p() const { return wick::log1p(*this); }
Tensor Tensor::expm1() const { return wick::expm1(*this); }
Tensor Tensor::sin() const { return wick::sin(*this); }
Tensor Tensor::cos() const { return wick::cos(*this); }
Tensor Tensor::tan() const { return wick::tan(*this); }
Tensor Tensor::asin() const { return wick::asin(*this); }
Tensor Tensor::acos() const { return wick::acos(*this); }
Tensor Tensor::atan() const { return wick::atan(*this); }
Tensor Tensor::sinh() const { return wick::sinh(*this); }
Tensor Tensor::cosh() const { return wick::cosh(*this); }
Tensor Tensor::log2() const { return wick::log2(*this); }
Tensor Tensor::log10() const { return wick::log10(*this); }
Tensor Tensor::rsqrt() const { return wick::rsqrt(*this); }
Tensor Tensor::reciprocal() const { return wick::reciprocal(*this); }
Tensor Tensor::floor() const { return wick::floor(*this); }
Tensor Tensor::ceil() const { return wick::ceil(*this); }
Tensor Tensor::round() const { return wick::round(*this); }
Tensor Tensor::trunc() const { return wick::trunc(*this); }
Tensor Tensor::sign() const { return wick::sign(*this); }
Tensor Tensor::tanh() const { return wick::tanh(*this); }
Tensor Tensor::pow(const Scalar& e) const { return wick::pow(*this, e); }
Tensor Tensor::pow(const Tensor& e) const { return wick::pow(*this, e); }
Tensor Tensor::clamp(std::optional<Scalar> lo, std::optional<Scalar> hi) const {
  return wick::clamp(*this, lo, hi);
}
Tensor Tensor::clamp_min(const Scalar& lo) const { return wick::clamp_min(*this, lo); }
Tensor Tensor::clamp_max(const Scalar& hi) const { return wick::clamp_max(*this, hi); }
Tensor Tensor::eq(const Tensor& o) const { return wick::eq(*this, o); }
Tensor Tensor::ne(const Tensor& o) const { return wick::ne(*this, o); }
Tensor Tensor::lt(const Tensor& o) const { return wick::lt(*this, o); }
Tensor Tensor::le(const Tensor& o) const { return wick::le(*this, o); }
Tensor Tensor::gt(const Tensor& o) const { return wick::gt(*this, o); }
Tensor Tensor::ge(const Tensor& o) const { return wick::ge(*this, o); }
Tensor Tensor::eq(const Scalar& o) const { return wick::eq(*this, o); }
Tensor Tensor::ne(const Scalar& o) const { return wick::ne(*this, o); }
Tensor Tensor::lt(const Scalar& o) const { return wick::lt(*this, o); }
Tensor Tensor::le(const Scalar& o) const { return wick::le(*this, o); }
Tensor Tensor::gt(const Scalar& o) const { return wick::gt(*this, o); }
Tensor Tensor::ge(const Scalar& o) const { return wick::ge(*this, o); }
Tensor Tensor::maximum(const Tensor& o) const { return wick::maximum(*this, o); }
Tensor Tensor::minimum(const Tensor& o) const { return wick::minimum(*this, o); }
Tensor Tensor::atan2(const Tensor& o) const { return wick::atan2(*this, o); }
Tensor Tensor::hypot(const Tensor& o) const { return wick::hypot(*this, o); }
Tensor Tensor::fmod(const Tensor& o) const { return wick::fmod(*this, o); }
Tensor Tensor::fmod(const Scalar& o) const { return wick::fmod(*this, o); }
Tensor Tensor::remainder(const Tensor& o) const { return wick::remainder(*this, o); }
Tensor Tensor::remainder(const Scalar& o) const { return wick::remainder(*this, o); }

}  // namespace wick
