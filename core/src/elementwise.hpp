// elementwise.hpp: the binary-op engine of ops_elementwise.cpp (core internals, not installed),
// for the files that declare binary ops of their own (ops_divide.cpp). An operand is a tensor or
// a number written in the program (a "wrapped number" in PyTorch); binary() promotes, checks,
// broadcasts, runs the kernel and records for autograd; binary_inplace() is the in-place form.
#pragma once

#include "wick/dispatch.hpp"
#include "wick/tensor.hpp"

namespace wick::detail {

struct Operand {
  const Tensor* tensor = nullptr;
  Scalar scalar;
  Operand(const Tensor& t) : tensor(&t) {}  // NOLINT
  Operand(const Scalar& s) : scalar(s) {}   // NOLINT
  bool is_scalar() const { return tensor == nullptr; }
};

Tensor binary(OpId op, const Operand& a, const Operand& b);
// alpha: add_ and sub_ of float32 or float64 only.
Tensor& binary_inplace(OpId op, Tensor& self, const Operand& other, const Scalar* alpha = nullptr);

}  // namespace wick::detail
