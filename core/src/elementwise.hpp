// elementwise.hpp: the binary-op engine of ops_elementwise.cpp (core internals, not installed),
// for the files that declare binary ops of their own (ops_divide.cpp). An operand is a tensor or
// a number written in the program (a "wrapped number" in PyTorch); binary() promotes, checks,
// broadcasts, runs the kernel and records for autograd; binary_inplace() is the in-place form.
#pragma once

#include <initializer_list>
#include <optional>

#include "wick/dispatch.hpp"
#include "wick/tensor.hpp"

namespace wick::detail {

// The name an error gives an elementwise op: the function the user called, where the op list
// names a variant of it (div(a, b, "trunc") runs trunc_divide; pow(a, number) pow_scalar).
inline const char* user_name(OpId op) {
  if (op == OpId::trunc_divide) return "div";
  if (op == OpId::pow_scalar) return "pow";
  return op_name(op).data();
}

struct Operand {
  const Tensor* tensor = nullptr;
  Scalar scalar;
  Operand(const Tensor& t) : tensor(&t) {}  // NOLINT
  Operand(const Scalar& s) : scalar(s) {}   // NOLINT
  bool is_scalar() const { return tensor == nullptr; }
};

// The engine (elementwise_engine.cpp). Attrs: the kernel's scalar_a and scalar_b.
struct Attrs {
  std::optional<Scalar> a, b;
};
// torch.result_type: tensors with dims outrank 0-d tensors, which outrank numbers.
Dtype result_type(std::initializer_list<Operand> operands);
// The device the operands run on; a 0-d cpu tensor may join any device, other mixes throw.
Device common_device(const char* op, std::initializer_list<Operand> operands);
// The broadcast shape of the operands, or a ShapeError naming op and every operand.
Shape broadcast_all(const char* op, std::initializer_list<Operand> operands);
// The tensor a kernel reads for operand o: on `device`, of `dtype`, expanded to `sizes`.
Tensor prepare(const Operand& o, Dtype dtype, Device device, const Shape& sizes);
// Runs op over operands into a new tensor (out == nullptr, recorded for autograd) or into
// *out (in place, not recorded: the caller records).
Tensor elementwise(OpId op, std::initializer_list<Operand> operands, Dtype compute, Dtype out_dtype,
                   const Attrs& attrs = {}, Tensor* out = nullptr);

Tensor binary(OpId op, const Operand& a, const Operand& b);
// alpha: add_ and sub_ of float32 or float64 only.
Tensor& binary_inplace(OpId op, Tensor& self, const Operand& other, const Scalar* alpha = nullptr);

}  // namespace wick::detail
