// instancenorm.cpp: instance_norm as batch_norm over [1, N * C, ...], as PyTorch's
// (Normalization.cpp, instance_norm): the running statistics and the affine parameters are
// repeated per sample, and the repeated running statistics are averaged back over the batch.
#include "wick/nn/instancenorm.hpp"

#include <sstream>

#include "wick/autograd.hpp"
#include "wick/nn/batchnorm.hpp"

#include "channel_checks.hpp"

namespace wick::nn {

Tensor functional::instance_norm(const Tensor& input, const InstanceNormFuncOptions& options) {
  const char* op = "instance_norm";
  WICK_CHECK(input.defined(), ValueError, op, "input must be a defined tensor");
  WICK_CHECK(input.dim() >= 3, ShapeError, op, "input ", describe(input),
             " must be [N, C, ...] with at least one spatial dim");
  WICK_CHECK(input.is_floating_point(), DtypeError, op, "input ", describe(input),
             " must be floating point");
  const Tensor& running_mean = options.running_mean();
  const Tensor& running_var = options.running_var();
  WICK_CHECK(running_mean.defined() == running_var.defined(), ValueError, op,
             "running_mean and running_var must both be given or both be undefined");
  for (const auto& [t, what] : {std::pair{&running_mean, "running_mean"},
                                {&running_var, "running_var"},
                                {&options.weight(), "weight"},
                                {&options.bias(), "bias"}}) {
    detail::check_channel_tensor(op, *t, what, input);
  }
  WICK_CHECK(options.use_input_stats() || running_mean.defined(), ValueError, op,
             "running_mean and running_var must be given when use_input_stats is false");
  const int64_t batch = input.size(0), channels = input.size(1);
  const int64_t spatial = input.numel() / std::max<int64_t>(1, batch * channels);
  WICK_CHECK(!options.use_input_stats() || spatial > 1 || input.numel() == 0, ValueError, op,
             "expected more than 1 spatial element when using the input's statistics, got input ",
             describe(input));
  Shape folded = input.sizes();
  folded[0] = 1;
  folded[1] = batch * channels;
  auto per_sample = [&](const Tensor& t) { return t.defined() ? t.repeat({batch}) : t; };
  Tensor mean_rows = per_sample(running_mean), var_rows = per_sample(running_var);
  const Tensor out = batch_norm(input.reshape(folded), mean_rows, var_rows,
                                BatchNormFuncOptions()
                                    .weight(per_sample(options.weight()))
                                    .bias(per_sample(options.bias()))
                                    .training(options.use_input_stats())
                                    .momentum(options.momentum())
                                    .eps(options.eps()));
  if (running_mean.defined() && options.use_input_stats() && batch > 0) {
    NoGradGuard no_grad;
    Tensor mean_out = running_mean, var_out = running_var;  // handles: updated in place
    mean_out.copy_(mean_rows.reshape({batch, channels}).mean(0));
    var_out.copy_(var_rows.reshape({batch, channels}).mean(0));
  }
  return out.reshape(input.sizes());
}

InstanceNormImplBase::InstanceNormImplBase(InstanceNormOptions options, const char* name,
                                           int64_t spatial)
    : options_(options), op_(std::string("nn::") + name), spatial_(spatial) {
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

Tensor InstanceNormImplBase::forward(const Tensor& input) const {
  const int64_t batched_dims = spatial_ + 2;
  WICK_CHECK(input.defined() && (input.dim() == batched_dims || input.dim() == batched_dims - 1),
             ShapeError, op_.c_str(), "expected a ", batched_dims - 1, "-D (unbatched) or ",
             batched_dims, "-D input, got ",
             input.defined() ? describe(input) : std::string("an undefined tensor"));
  const bool unbatched = input.dim() == batched_dims - 1;
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  // PyTorch only warns for a mismatch without affine parameters; a wrong channel count is
  // almost always a bug, and with running statistics or parameters it cannot be computed.
  WICK_CHECK(x.size(1) == options_.num_features(), ShapeError, op_.c_str(), "input ",
             describe(input), " has ", x.size(1), " channels, the module ",
             options_.num_features());
  const Tensor out = functional::instance_norm(
      x, InstanceNormFuncOptions()
             .running_mean(running_mean)
             .running_var(running_var)
             .weight(weight)
             .bias(bias)
             .use_input_stats(is_training() || !options_.track_running_stats())
             .momentum(options_.momentum())
             .eps(options_.eps()));
  return unbatched ? out.squeeze(0) : out;
}

std::string InstanceNormImplBase::extra_repr() const {
  std::ostringstream out;
  out << options_.num_features() << ", eps=" << options_.eps()
      << ", momentum=" << options_.momentum()
      << ", affine=" << (options_.affine() ? "True" : "False")
      << ", track_running_stats=" << (options_.track_running_stats() ? "True" : "False");
  return out.str();
}

}  // namespace wick::nn
