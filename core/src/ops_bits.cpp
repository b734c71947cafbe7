// ops_bits.cpp: the bitwise ops (and, or, xor, the shifts, not), gcd, lcm and nextafter, on
// ops_elementwise.cpp's engine (elementwise.hpp: promotion, broadcasting, autograd's refusal of
// a gradient through them), with their operators and in-place forms. The operand checks
// (integers or bool, int64, floating) are the engine's, check_operands in ops_elementwise.cpp,
// so the in-place forms make the same ones. The element functions are kernels/bit_ops.hpp's.
// bitwise_not is xor with all ones: -1 for int64, true for bool.
#include "elementwise.hpp"
#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {

using detail::binary;
using detail::binary_inplace;

Tensor bitwise_and(const Tensor& a, const Tensor& b) { return binary(OpId::bitwise_and, a, b); }
Tensor bitwise_and(const Tensor& a, const Scalar& b) { return binary(OpId::bitwise_and, a, b); }
Tensor bitwise_and(const Scalar& a, const Tensor& b) { return binary(OpId::bitwise_and, a, b); }
Tensor bitwise_or(const Tensor& a, const Tensor& b) { return binary(OpId::bitwise_or, a, b); }
Tensor bitwise_or(const Tensor& a, const Scalar& b) { return binary(OpId::bitwise_or, a, b); }
Tensor bitwise_or(const Scalar& a, const Tensor& b) { return binary(OpId::bitwise_or, a, b); }
Tensor bitwise_xor(const Tensor& a, const Tensor& b) { return binary(OpId::bitwise_xor, a, b); }
Tensor bitwise_xor(const Tensor& a, const Scalar& b) { return binary(OpId::bitwise_xor, a, b); }
Tensor bitwise_xor(const Scalar& a, const Tensor& b) { return binary(OpId::bitwise_xor, a, b); }
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b) {
  return binary(OpId::bitwise_left_shift, a, b);
}
Tensor bitwise_left_shift(const Tensor& a, const Scalar& b) {
  return binary(OpId::bitwise_left_shift, a, b);
}
Tensor bitwise_left_shift(const Scalar& a, const Tensor& b) {
  return binary(OpId::bitwise_left_shift, a, b);
}
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b) {
  return binary(OpId::bitwise_right_shift, a, b);
}
Tensor bitwise_right_shift(const Tensor& a, const Scalar& b) {
  return binary(OpId::bitwise_right_shift, a, b);
}
Tensor bitwise_right_shift(const Scalar& a, const Tensor& b) {
  return binary(OpId::bitwise_right_shift, a, b);
}
Tensor bitwise_not(const Tensor& a) {
  detail::check_defined("bitwise_not", {&a});
  WICK_CHECK(!is_floating(a.dtype()), DtypeError, "bitwise_not",
             "takes int64 or bool tensors, got ", describe(a));
  return a.dtype() == kBool ? bitwise_xor(a, Scalar(true)) : bitwise_xor(a, Scalar(int64_t{-1}));
}
Tensor gcd(const Tensor& a, const Tensor& b) { return binary(OpId::gcd, a, b); }
Tensor lcm(const Tensor& a, const Tensor& b) { return binary(OpId::lcm, a, b); }
Tensor nextafter(const Tensor& a, const Tensor& b) { return binary(OpId::nextafter, a, b); }

Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor operator&(const Tensor& a, const Scalar& b) { return bitwise_and(a, b); }
Tensor operator&(const Scalar& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor operator|(const Tensor& a, const Scalar& b) { return bitwise_or(a, b); }
Tensor operator|(const Scalar& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor operator^(const Tensor& a, const Scalar& b) { return bitwise_xor(a, b); }
Tensor operator^(const Scalar& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor operator<<(const Tensor& a, const Tensor& b) { return bitwise_left_shift(a, b); }
Tensor operator<<(const Tensor& a, const Scalar& b) { return bitwise_left_shift(a, b); }
Tensor operator>>(const Tensor& a, const Tensor& b) { return bitwise_right_shift(a, b); }
Tensor operator>>(const Tensor& a, const Scalar& b) { return bitwise_right_shift(a, b); }
Tensor operator~(const Tensor& a) { return bitwise_not(a); }
Tensor& operator&=(Tensor& a, const Tensor& b) { return a.bitwise_and_(b); }
Tensor& operator&=(Tensor& a, const Scalar& b) { return a.bitwise_and_(b); }
Tensor& operator|=(Tensor& a, const Tensor& b) { return a.bitwise_or_(b); }
Tensor& operator|=(Tensor& a, const Scalar& b) { return a.bitwise_or_(b); }
Tensor& operator^=(Tensor& a, const Tensor& b) { return a.bitwise_xor_(b); }
Tensor& operator^=(Tensor& a, const Scalar& b) { return a.bitwise_xor_(b); }
Tensor& operator<<=(Tensor& a, const Tensor& b) { return a.bitwise_left_shift_(b); }
Tensor& operator<<=(Tensor& a, const Scalar& b) { return a.bitwise_left_shift_(b); }
Tensor& operator>>=(Tensor& a, const Tensor& b) { return a.bitwise_right_shift_(b); }
Tensor& operator>>=(Tensor& a, const Scalar& b) { return a.bitwise_right_shift_(b); }

Tensor Tensor::bitwise_and(const Tensor& o) const { return wick::bitwise_and(*this, o); }
Tensor Tensor::bitwise_and(const Scalar& o) const { return wick::bitwise_and(*this, o); }
Tensor Tensor::bitwise_or(const Tensor& o) const { return wick::bitwise_or(*this, o); }
Tensor Tensor::bitwise_or(const Scalar& o) const { return wick::bitwise_or(*this, o); }
Tensor Tensor::bitwise_xor(const Tensor& o) const { return wick::bitwise_xor(*this, o); }
Tensor Tensor::bitwise_xor(const Scalar& o) const { return wick::bitwise_xor(*this, o); }
Tensor Tensor::bitwise_left_shift(const Tensor& o) const {
  return wick::bitwise_left_shift(*this, o);
}
Tensor Tensor::bitwise_left_shift(const Scalar& o) const {
  return wick::bitwise_left_shift(*this, o);
}
Tensor Tensor::bitwise_right_shift(const Tensor& o) const {
  return wick::bitwise_right_shift(*this, o);
}
Tensor Tensor::bitwise_right_shift(const Scalar& o) const {
  return wick::bitwise_right_shift(*this, o);
}
Tensor Tensor::bitwise_not() const { return wick::bitwise_not(*this); }
Tensor Tensor::gcd(const Tensor& o) const { return wick::gcd(*this, o); }
Tensor Tensor::lcm(const Tensor& o) const { return wick::lcm(*this, o); }
Tensor Tensor::nextafter(const Tensor& o) const { return wick::nextafter(*this, o); }

Tensor& Tensor::bitwise_and_(const Tensor& o) {
  return binary_inplace(OpId::bitwise_and, *this, o);
}
Tensor& Tensor::bitwise_and_(const Scalar& o) {
  return binary_inplace(OpId::bitwise_and, *this, o);
}
Tensor& Tensor::bitwise_or_(const Tensor& o) { return binary_inplace(OpId::bitwise_or, *this, o); }
Tensor& Tensor::bitwise_or_(const Scalar& o) { return binary_inplace(OpId::bitwise_or, *this, o); }
Tensor& Tensor::bitwise_xor_(const Tensor& o) {
  return binary_inplace(OpId::bitwise_xor, *this, o);
}
Tensor& Tensor::bitwise_xor_(const Scalar& o) {
  return binary_inplace(OpId::bitwise_xor, *this, o);
}
Tensor& Tensor::bitwise_left_shift_(const Tensor& o) {
  return binary_inplace(OpId::bitwise_left_shift, *this, o);
}
Tensor& Tensor::bitwise_left_shift_(const Scalar& o) {
  return binary_inplace(OpId::bitwise_left_shift, *this, o);
}
Tensor& Tensor::bitwise_right_shift_(const Tensor& o) {
  return binary_inplace(OpId::bitwise_right_shift, *this, o);
}
Tensor& Tensor::bitwise_right_shift_(const Scalar& o) {
  return binary_inplace(OpId::bitwise_right_shift, *this, o);
}
Tensor& Tensor::bitwise_not_() {
  detail::check_defined("bitwise_not_", {this});
  WICK_CHECK(!is_floating(dtype()), DtypeError, "bitwise_not_", "takes int64 or bool tensors, got ",
             describe(*this));
  return dtype() == kBool ? bitwise_xor_(Scalar(true)) : bitwise_xor_(Scalar(int64_t{-1}));
}
Tensor& Tensor::gcd_(const Tensor& o) { return binary_inplace(OpId::gcd, *this, o); }
Tensor& Tensor::lcm_(const Tensor& o) { return binary_inplace(OpId::lcm, *this, o); }
Tensor& Tensor::nextafter_(const Tensor& o) { return binary_inplace(OpId::nextafter, *this, o); }

}  // namespace wick
