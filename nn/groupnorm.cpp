// groupnorm.cpp: group_norm as reshape to [N, G, C/G * rest], the mean and biased variance of
// each row, (x - mean) * (1 / sqrt(var + eps)) reshaped back, then the channel affine.
#include "wick/nn/groupnorm.hpp"

#include <sstream>

#include "channel_checks.hpp"

namespace wick::nn {

Tensor functional::group_norm(const Tensor& input, const GroupNormFuncOptions& options) {
  WICK_CHECK(input.defined(), ValueError, "group_norm", "input must be a defined tensor");
  WICK_CHECK(input.dim() >= 2, ShapeError, "group_norm", "input ", describe(input),
             " must be [N, C, ...], of 2 or more dims");
  WICK_CHECK(input.is_floating_point(), DtypeError, "group_norm", "input ", describe(input),
             " must be floating point");
  const int64_t groups = options.num_groups();
  WICK_CHECK(groups > 0 && input.size(1) % groups == 0, ShapeError, "group_norm", "the ",
             input.size(1), " channels of input ", describe(input), " must split into num_groups ",
             groups, " equal groups");
  detail::check_channel_tensor("group_norm", options.weight(), "weight", input);
  detail::check_channel_tensor("group_norm", options.bias(), "bias", input);
  const int64_t batch = input.size(0);
  Tensor out = input;
  if (input.numel() > 0) {
    const Tensor rows = input.reshape({batch, groups, -1});
    const Tensor mean = wick::mean(rows, 2, /*keepdim=*/true);
    const Tensor var = wick::var(rows, 2, /*unbiased=*/false, /*keepdim=*/true);
    out = ((rows - mean) * (var + options.eps()).pow(-0.5)).reshape(input.sizes());
  }
  const Shape channel_shape = detail::channel_shape(input);
  if (options.weight().defined()) out = out * options.weight().reshape(channel_shape);
  if (options.bias().defined()) out = out + options.bias().reshape(channel_shape);
  return out;
}

GroupNormImpl::GroupNormImpl(GroupNormOptions options) : options_(options) {
  const int64_t groups = options_.num_groups(), channels = options_.num_channels();
  WICK_CHECK(groups > 0 && channels > 0 && channels % groups == 0, ValueError, "nn::GroupNorm",
             "num_channels ", channels, " must be a positive multiple of num_groups ", groups);
  if (options_.affine()) {
    weight = register_parameter("weight", ones({channels}));
    bias = register_parameter("bias", zeros({channels}));
  }
}

Tensor GroupNormImpl::forward(const Tensor& input) const {
  WICK_CHECK(input.defined() && input.dim() >= 2 && input.size(1) == options_.num_channels(),
             ShapeError, "nn::GroupNorm", "expected [N, ", options_.num_channels(), ", ...], got ",
             input.defined() ? describe(input) : std::string("an undefined tensor"));
  return functional::group_norm(
      input,
      GroupNormFuncOptions(options_.num_groups()).weight(weight).bias(bias).eps(options_.eps()));
}

std::string GroupNormImpl::extra_repr() const {
  std::ostringstream out;
  out << options_.num_groups() << ", " << options_.num_channels() << ", eps=" << options_.eps()
      << ", affine=" << (options_.affine() ? "True" : "False");
  return out.str();
}

}  // namespace wick::nn
