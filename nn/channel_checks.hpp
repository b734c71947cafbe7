// channel_checks.hpp (internal to nn/): what batch_norm and group_norm share: the check of a
// per-channel tensor (weight, bias, running statistics) against input [N, C, ...], and the
// [1, C, 1, ...] shape that broadcasts one value per channel over it; and the operand checks
// that conv1d and conv2d share, so that each names itself and its caller's shapes.
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

// A convolution's weight and bias (undefined, or [out_channels]) against its input: one dtype
// and one device. Messages show the caller's tensors.
inline void check_conv_dtype_device(const char* op, const Tensor& input, const Tensor& weight,
                                    const Tensor& bias, int64_t out_channels) {
  WICK_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_channels), ShapeError, op,
             "expected a bias of [", out_channels, "] for the weight ", describe(weight), ", got ",
             describe(bias));
  WICK_CHECK(weight.dtype() == input.dtype() && (!bias.defined() || bias.dtype() == input.dtype()),
             DtypeError, op, "the input ", describe(input), ", weight ", describe(weight),
             bias.defined() ? " and bias " + describe(bias) : std::string(),
             " must have one dtype");
  WICK_CHECK(
      weight.device() == input.device() && (!bias.defined() || bias.device() == input.device()),
      DeviceError, op, "the input ", describe(input), ", weight ", describe(weight),
      bias.defined() ? " and bias " + describe(bias) : std::string(), " must be on one device");
}

// A convolution's operands: a floating input whose channels (the dim before its `spatial`
// ones) are weight's in_channels times groups, out_channels (weight's first dim) divisible by
// groups, a bias undefined or [out_channels], one dtype, one device. Run before the input is
// reshaped, so that messages show the caller's tensors. With transposed (conv_transpose), the
// weight is [in_channels, out_channels / groups, ...] instead.
inline void check_conv_operands(const char* op, const Tensor& input, const Tensor& weight,
                                const Tensor& bias, int64_t groups, int64_t spatial,
                                bool transposed = false) {
  WICK_CHECK(input.is_floating_point(), DtypeError, op, "expected a floating input, got ",
             describe(input));
  WICK_CHECK(groups > 0, ValueError, op, "groups must be positive, got ", groups);
  const int64_t channels = input.size(-1 - spatial);
  const int64_t in_channels = transposed ? weight.size(0) : weight.size(1) * groups;
  const int64_t out_channels = transposed ? weight.size(1) * groups : weight.size(0);
  WICK_CHECK(channels == in_channels, ShapeError, op, "the input ", describe(input), " has ",
             channels, " channels; the weight ", describe(weight), " with groups ", groups,
             " expects ", in_channels);
  const int64_t split = transposed ? in_channels : out_channels;
  WICK_CHECK(split % groups == 0, ShapeError, op, "the weight ", describe(weight), "'s ", split,
             transposed ? " input" : " output", " channels are not divisible by groups ", groups);
  check_conv_dtype_device(op, input, weight, bias, out_channels);
}

// A convolution module's channel counts (Conv2d, ConvTranspose1d/2d): positive, and divisible
// by groups.
inline void check_conv_channels(const char* op, int64_t in, int64_t out, int64_t groups) {
  WICK_CHECK(in > 0 && out > 0, ValueError, op,
             "in_channels and out_channels must be positive, got ", in, " and ", out);
  WICK_CHECK(groups > 0 && in % groups == 0 && out % groups == 0, ValueError, op, "groups ", groups,
             " must divide in_channels ", in, " and out_channels ", out);
}

}  // namespace wick::nn::detail
