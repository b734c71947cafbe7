// ops_bits.hpp: the bitwise ops, gcd, lcm and nextafter (core/src/ops_bits.cpp), spelled as in
// libtorch, with their operators; part of ops.hpp, which includes it (include wick/ops.hpp).
// Kernel ops on both devices (kernels/bit_ops.hpp holds the element functions both share).
// Not differentiable: their results are integers or, for nextafter, steps of one ulp.
#pragma once

#include "wick/tensor.hpp"

namespace wick {

// bitwise_and, bitwise_or, bitwise_xor: of int64 or bool operands (PyTorch's promotion: bool
// with bool stays bool, anything with int64 is int64; a number counts as int64 or bool).
// bitwise_left_shift, bitwise_right_shift: of int64 (bool refused, as PyTorch's CPU kernels);
// a count below 0 or above 63 shifts everything out: 0 to the left, the sign to the right
// (PyTorch 2.1's rule, the same on both devices; 1.13's CPU kernel took the count mod 64); a
// left shift drops the bits past 63. bitwise_not: ~a (for bool, not).
// A floating operand is a DtypeError.
Tensor bitwise_and(const Tensor& a, const Tensor& b);
Tensor bitwise_and(const Tensor& a, const Scalar& b);
Tensor bitwise_and(const Scalar& a, const Tensor& b);
Tensor bitwise_or(const Tensor& a, const Tensor& b);
Tensor bitwise_or(const Tensor& a, const Scalar& b);
Tensor bitwise_or(const Scalar& a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, const Tensor& b);
Tensor bitwise_xor(const Tensor& a, const Scalar& b);
Tensor bitwise_xor(const Scalar& a, const Tensor& b);
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b);
Tensor bitwise_left_shift(const Tensor& a, const Scalar& b);
Tensor bitwise_left_shift(const Scalar& a, const Tensor& b);
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b);
Tensor bitwise_right_shift(const Tensor& a, const Scalar& b);
Tensor bitwise_right_shift(const Scalar& a, const Tensor& b);
Tensor bitwise_not(const Tensor& a);
// gcd, lcm: of int64 operands, never negative for inputs past INT64_MIN: gcd(0, 0) = 0, lcm
// with a 0 is 0 (PyTorch's); values that do not fit int64 wrap, as PyTorch's
// (gcd(INT64_MIN, 0) is INT64_MIN).
Tensor gcd(const Tensor& a, const Tensor& b);
Tensor lcm(const Tensor& a, const Tensor& b);
// nextafter: the next representable value after a in the direction of b (b itself when equal,
// NaN when either is NaN), in the floating dtype of the two (integers are a DtypeError, as
// PyTorch's); bfloat16 steps by bfloat16's ulp.
Tensor nextafter(const Tensor& a, const Tensor& b);

Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator&(const Tensor& a, const Scalar& b);
Tensor operator&(const Scalar& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, const Scalar& b);
Tensor operator|(const Scalar& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, const Scalar& b);
Tensor operator^(const Scalar& a, const Tensor& b);
Tensor operator<<(const Tensor& a, const Tensor& b);
Tensor operator<<(const Tensor& a, const Scalar& b);
Tensor operator>>(const Tensor& a, const Tensor& b);
Tensor operator>>(const Tensor& a, const Scalar& b);
Tensor operator~(const Tensor& a);
Tensor& operator&=(Tensor& a, const Tensor& b);
Tensor& operator&=(Tensor& a, const Scalar& b);
Tensor& operator|=(Tensor& a, const Tensor& b);
Tensor& operator|=(Tensor& a, const Scalar& b);
Tensor& operator^=(Tensor& a, const Tensor& b);
Tensor& operator^=(Tensor& a, const Scalar& b);
Tensor& operator<<=(Tensor& a, const Tensor& b);
Tensor& operator<<=(Tensor& a, const Scalar& b);
Tensor& operator>>=(Tensor& a, const Tensor& b);
Tensor& operator>>=(Tensor& a, const Scalar& b);

}  // namespace wick
