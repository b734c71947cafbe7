// channel_checks.hpp (internal to nn/): what batch_norm and group_norm share: the check of a
// per-channel tensor (weight, bias, running statistics) against input [N, C, ...], and the
// [1, C, 1, ...] shape that broadcasts one value per channel over it.
#pragma once

#include "wick/ops.hpp"

namespace wick::nn::detail {

// t undefined, or [C] of input's dtype and device; else a typed error naming op and what.
inline void check_channel_tensor(const char* op, const Tensor& t, const char* what,
                                 const Tensor& input) {
  if (!t.defined()) return;
  WICK_CHECK(t.dim() == 1 && t.size(0) == input.size(1), ShapeError, op, what, " ", describe(t),
             " must be [", input.size(1), "], one per channel of input ", describe(input));
  WICK_CHECK(t.device() == input.device(), DeviceError, op, what, " ", describe(t), " and input ",
             describe(input), " are on different devices");
  // As PyTorch's "mixed dtype" check; batch_norm runs it before the running statistics change,
  // so a refused call leaves them as they were.
  WICK_CHECK(t.dtype() == input.dtype(), DtypeError, op, what, " ", describe(t),
             " must have the dtype of input ", describe(input));
}

// [1, C, 1, ...] with input's rank.
inline Shape channel_shape(const Tensor& input) {
  Shape shape = Shape::filled(static_cast<size_t>(input.dim()), 1);
  shape[1] = input.size(1);
  return shape;
}

}  // namespace wick::nn::detail
