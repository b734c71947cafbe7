// batchnorm.cpp: batch_norm and BatchNorm1d/2d/3d from mean, var and elementwise ops. The batch
// statistics are taken over every dim but the channel dim; the normalisation is written as
// PyTorch's CPU kernel orders it, (x - mean) * (1 / sqrt(var + eps)) * weight + bias.
#include "wick/nn/batchnorm.hpp"

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>

#include "wick/autograd.hpp"

#include "channel_checks.hpp"

namespace wick::nn {

Tensor functional::batch_norm(const Tensor& input, const Tensor& running_mean,
                              const Tensor& running_var, const BatchNormFuncOptions& options) {
  WICK_CHECK(input.defined(), ValueError, "batch_norm", "input must be a defined tensor");
  WICK_CHECK(input.dim() >= 2, ShapeError, "batch_norm", "input ", describe(input),
             " must be [N, C, ...], of 2 or more dims");
  WICK_CHECK(input.is_floating_point(), DtypeError, "batch_norm", "input ", describe(input),
             " must be floating point");
  WICK_CHECK(running_mean.defined() == running_var.defined(), ValueError, "batch_norm",
             "running_mean and running_var must both be given or both be undefined");
  detail::check_channel_tensor("batch_norm", running_mean, "running_mean", input);
  detail::check_channel_tensor("batch_norm", running_var, "running_var", input);
  detail::check_channel_tensor("batch_norm", options.weight(), "weight", input);
  detail::check_channel_tensor("batch_norm", options.bias(), "bias", input);
  Shape reduce_dims{0};
  const Shape channel_shape = detail::channel_shape(input);
  for (int64_t d = 2; d < input.dim(); ++d) reduce_dims.push_back(d);
  const int64_t per_channel = input.size(1) == 0 ? 0 : input.numel() / input.size(1);
  WICK_CHECK(options.training() || running_mean.defined(), ValueError, "batch_norm",
             "running_mean and running_var must be given in evaluation mode (training false)");
  Tensor mean, var;
  if (options.training()) {
    // PyTorch's rule: exactly one value per channel is refused; an empty batch gives an empty
    // result and leaves the running statistics alone.
    WICK_CHECK(per_channel != 1, ValueError, "batch_norm",
               "expected more than 1 value per channel when training, got input ", describe(input));
    mean = wick::mean(input, reduce_dims, /*keepdim=*/true);
    var = wick::var(input, reduce_dims, /*unbiased=*/false, /*keepdim=*/true);
    if (running_mean.defined() && per_channel > 1) {
      const double m = options.momentum().value_or(0.0);
      const double bessel = static_cast<double>(per_channel) / static_cast<double>(per_channel - 1);
      NoGradGuard no_grad;
      Tensor rm = running_mean, rv = running_var;  // handles: the buffers change in place
      rm.mul_(1 - m).add_(mean.detach().reshape({-1}).to(rm.dtype()), m);
      rv.mul_(1 - m).add_((var.detach().reshape({-1}) * bessel).to(rv.dtype()), m);
    }
  } else {
    mean = running_mean.reshape(channel_shape);
    var = running_var.reshape(channel_shape);
  }
  Tensor out = (input - mean) * (var + options.eps()).pow(-0.5);  // pow(-0.5) is 1 / sqrt
  if (options.weight().defined()) out = out * options.weight().reshape(channel_shape);
  if (options.bias().defined()) out = out + options.bias().reshape(channel_shape);
  return out;
}

BatchNormImplBase::BatchNormImplBase(BatchNormOptions options, const char* name,
                                     std::vector<int64_t> input_dims)
    : options_(options), op_(std::string("nn::") + name), input_dims_(std::move(input_dims)) {
  const int64_t c = options_.num_features();
  WICK_CHECK(c > 0, ValueError, op_.c_str(), "num_features ", c, " must be positive");
  if (options_.affine()) {
    weight = register_parameter("weight", ones({c}));
    bias = register_parameter("bias", zeros({c}));
  }
  if (options_.track_running_stats()) {
    running_mean = register_buffer("running_mean", zeros({c}));
    running_var = register_buffer("running_var", ones({c}));
    num_batches_tracked = register_buffer("num_batches_tracked", zeros({}, kInt64));
  }
}

void BatchNormImplBase::reset_running_stats() {
  if (!options_.track_running_stats()) return;
  NoGradGuard no_grad;
  Tensor rm = running_mean, rv = running_var, count = num_batches_tracked;
  rm.fill_(0);
  rv.fill_(1);
  count.fill_(0);
}

Tensor BatchNormImplBase::forward(const Tensor& input) const {
  const bool rank_ok = input.defined() && std::find(input_dims_.begin(), input_dims_.end(),
                                                    input.dim()) != input_dims_.end();
  WICK_CHECK(rank_ok, ShapeError, op_.c_str(), "expected a ",
             input_dims_.size() == 2 ? "2-D or 3-D" : std::to_string(input_dims_[0]) + "-D",
             " input, got ",
             input.defined() ? describe(input) : std::string("an undefined tensor"));
  WICK_CHECK(input.size(1) == options_.num_features(), ShapeError, op_.c_str(), "input ",
             describe(input), " has ", input.size(1), " channels (dim 1), the module ",
             options_.num_features());
  std::optional<double> momentum = options_.momentum();
  const bool training = is_training();
  const bool counts = training && options_.track_running_stats();
  if (counts && !momentum) {
    momentum = 1.0 / static_cast<double>(num_batches_tracked.item<int64_t>() + 1);
  }
  // The batch counts only once the call has succeeded: a rejected input changes no state.
  Tensor result = functional::batch_norm(input, running_mean, running_var,
                                         BatchNormFuncOptions()
                                             .weight(weight)
                                             .bias(bias)
                                             .training(training || !options_.track_running_stats())
                                             .momentum(momentum)
                                             .eps(options_.eps()));
  if (counts) {
    NoGradGuard no_grad;
    Tensor count = num_batches_tracked;
    count.add_(1);
  }
  return result;
}

std::string BatchNormImplBase::extra_repr() const {
  std::ostringstream out;
  out << options_.num_features() << ", eps=" << options_.eps() << ", momentum=";
  if (options_.momentum()) {
    out << *options_.momentum();
  } else {
    out << "None";
  }
  out << ", affine=" << (options_.affine() ? "True" : "False")
      << ", track_running_stats=" << (options_.track_running_stats() ? "True" : "False");
  return out.str();
}

}  // namespace wick::nn
