// conv1d.cpp: conv1d as conv2d on a height of 1, and adaptive average pooling as two matmuls
// with averaging matrices.
#include "wick/nn/conv1d.hpp"

#include <cmath>
#include <vector>

#include "wick/autograd.hpp"

#include "init_uniform.hpp"

namespace wick::nn {

Tensor functional::conv1d(const Tensor& input, const Tensor& weight,
                          const Conv1dFuncOptions& options) {
  const char* op = "conv1d";
  WICK_CHECK(input.defined() && weight.defined(), ValueError, op,
             "input and weight must be defined tensors");
  WICK_CHECK(input.dim() == 2 || input.dim() == 3, ShapeError, op, "input ", describe(input),
             " must be [N, C, L] or [C, L]");
  WICK_CHECK(weight.dim() == 3, ShapeError, op, "weight ", describe(weight),
             " must be [out_channels, in_channels / groups, kernel_size]");
  WICK_CHECK(options.stride() > 0 && options.dilation() > 0 && options.padding() >= 0 &&
                 options.groups() > 0,
             ValueError, op, "stride ", options.stride(), " and dilation ", options.dilation(),
             " must be positive, padding ", options.padding(), " not negative, groups ",
             options.groups(), " positive");
  const int64_t channels = input.size(-2);
  WICK_CHECK(channels == weight.size(1) * options.groups(), ShapeError, op, "input ",
             describe(input), " has ", channels, " channels; weight ", describe(weight), " and ",
             options.groups(), " groups expect ", weight.size(1) * options.groups());
  // Checked here so that the message names conv1d and the caller's shapes, not conv2d's.
  const int64_t padded = input.size(-1) + 2 * options.padding();
  const int64_t extent = options.dilation() * (weight.size(2) - 1) + 1;
  WICK_CHECK(padded >= extent, ShapeError, op, "input ", describe(input), " padded by ",
             options.padding(), " on each side has length ", padded,
             ", shorter than the dilated kernel of weight ", describe(weight), " (", extent, ")");
  const Tensor out = conv2d(input.unsqueeze(-2), weight.unsqueeze(2),
                            Conv2dFuncOptions()
                                .bias(options.bias())
                                .stride(Size2(1, options.stride()))
                                .padding(Size2(0, options.padding()))
                                .dilation(Size2(1, options.dilation()))
                                .groups(options.groups()));
  return out.squeeze(-2);
}

Conv1dImpl::Conv1dImpl(const Conv1dOptions& options) : options_(options) {
  const char* op = "nn::Conv1d";
  const int64_t in = options.in_channels(), out = options.out_channels(), g = options.groups();
  WICK_CHECK(in > 0 && out > 0 && options.kernel_size() > 0, ValueError, op,
             "in_channels, out_channels and kernel_size must be positive, got ", in, ", ", out,
             " and ", options.kernel_size());
  WICK_CHECK(g > 0 && in % g == 0 && out % g == 0, ValueError, op, "groups ", g,
             " must divide in_channels ", in, " and out_channels ", out);
  weight = register_parameter("weight", empty({out, in / g, options.kernel_size()}));
  if (options.bias()) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void Conv1dImpl::reset_parameters() {
  NoGradGuard no_grad;
  const double bound = 1.0 / std::sqrt(static_cast<double>(weight.size(1) * weight.size(2)));
  for (const Tensor& t : parameters()) detail::fill_uniform(t, bound);
}

Tensor Conv1dImpl::forward(const Tensor& input) const {
  const int64_t p = options_.padding();
  const bool zeros = options_.padding_mode() == kZeros;
  const Tensor x =
      zeros ? input : functional::pad(input, PadFuncOptions({p, p}).mode(options_.padding_mode()));
  return functional::conv1d(x, weight,
                            Conv1dFuncOptions()
                                .bias(bias)
                                .stride(options_.stride())
                                .padding(zeros ? p : 0)
                                .dilation(options_.dilation())
                                .groups(options_.groups()));
}

std::string Conv1dImpl::extra_repr() const {
  std::string text = wick::detail::str_cat(options_.in_channels(), ", ", options_.out_channels(),
                                           ", kernel_size=(", options_.kernel_size(),
                                           ",), stride=(", options_.stride(), ",)");
  if (options_.padding() != 0)
    text += wick::detail::str_cat(", padding=(", options_.padding(), ",)");
  if (options_.dilation() != 1) {
    text += wick::detail::str_cat(", dilation=(", options_.dilation(), ",)");
  }
  if (options_.groups() != 1) text += wick::detail::str_cat(", groups=", options_.groups());
  if (!options_.bias()) text += ", bias=False";
  return text;
}

namespace {

// [out, in]: row i averages inputs [floor(i in / out), ceil((i + 1) in / out)).
Tensor averaging_matrix(int64_t out, int64_t in, const Tensor& like) {
  std::vector<double> values(static_cast<size_t>(out * in), 0.0);
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = (i * in) / out, end = ((i + 1) * in + out - 1) / out;
    for (int64_t j = start; j < end; ++j) {
      values[static_cast<size_t>(i * in + j)] = 1.0 / static_cast<double>(end - start);
    }
  }
  return tensor(values, Shape{out, in}, TensorOptions(kFloat64).device(like.device()))
      .to(like.dtype());
}

}  // namespace

Tensor functional::adaptive_avg_pool2d(const Tensor& input, Size2 output_size) {
  const char* op = "adaptive_avg_pool2d";
  WICK_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4), ShapeError, op,
             "input must be [N, C, H, W] or [C, H, W], got ",
             input.defined() ? describe(input) : std::string("an undefined tensor"));
  WICK_CHECK(input.is_floating_point(), DtypeError, op, "input ", describe(input),
             " must be floating point");
  WICK_CHECK(output_size.h > 0 && output_size.w > 0, ValueError, op, "output size (", output_size.h,
             ", ", output_size.w, ") must be positive");
  const int64_t h = input.size(-2), w = input.size(-1);
  WICK_CHECK(h > 0 && w > 0, ShapeError, op, "input ", describe(input),
             " must have a nonzero height and width");
  const Tensor rows = averaging_matrix(output_size.h, h, input);  // [oh, H]
  const Tensor cols = averaging_matrix(output_size.w, w, input);  // [ow, W]
  return matmul(rows, matmul(input, cols.t()));
}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) const {
  return functional::adaptive_avg_pool2d(input, output_size_);
}

std::string AdaptiveAvgPool2dImpl::extra_repr() const {
  return wick::detail::str_cat("output_size=(", output_size_.h, ", ", output_size_.w, ")");
}

}  // namespace wick::nn
