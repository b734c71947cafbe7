// layers.cpp: Linear's initialisation and forward, Sequential's forward chain, GELU and SiLU
// (compositions of ops). The other activations are inline in layers.hpp. Tested in
// tests/nn/test_module.cpp and tests/nn/test_parity.cpp.
#include <cmath>
#include <numbers>

#include "wick/autograd.hpp"
#include "wick/nn/layers.hpp"

#include "init_uniform.hpp"

namespace wick::nn {

Tensor functional::linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  Tensor output = matmul(input, weight.t());
  if (!bias.defined()) return output;
  // Checked here, so that the errors name linear, not add; a bias of another dtype is refused
  // as PyTorch's (it would have promoted the output).
  WICK_CHECK(bias.dtype() == output.dtype(), DtypeError, "linear", "bias ", describe(bias),
             " must have the dtype of input ", describe(input), " and weight ", describe(weight));
  WICK_CHECK(bias.dim() <= 1 && (bias.numel() == 1 || bias.numel() == weight.size(0)), ShapeError,
             "linear", "bias ", describe(bias), " must be [", weight.size(0), "] for weight ",
             describe(weight));
  return output + bias;
}

Tensor functional::dropout(const Tensor& input, double p, bool training) {
  WICK_CHECK(p >= 0 && p <= 1, ValueError, "dropout",
             "dropout probability has to be between 0 and 1, but got ", p);
  WICK_CHECK(is_floating(input.dtype()), DtypeError, "dropout",
             "needs a floating-point input, got ", describe(input));
  if (!training || p == 0) return input;
  if (p == 1) return input * zeros_like(input);  // as PyTorch: zeros, in the graph
  // PyTorch's order: noise = bernoulli(1 - p) / (1 - p), then input * noise.
  const Tensor keep = lt(rand_like(input), 1 - p).to(input.dtype());
  return input * (keep / (1 - p));
}

namespace {
void check_gelu_mode(const std::string& approximate) {
  WICK_CHECK(approximate == "none" || approximate == "tanh", ValueError, "gelu",
             "approximate must be \"none\" or \"tanh\", not \"", approximate, "\"");
}
}  // namespace

Tensor functional::gelu(const Tensor& input, const std::string& approximate) {
  check_gelu_mode(approximate);
  WICK_CHECK(input.defined() && input.is_floating_point(), DtypeError, "gelu", "input ",
             describe(input), " must be a floating-point tensor");
  if (approximate == "none") return input * 0.5 * (1.0 + erf(input * M_SQRT1_2));
  const double k = std::sqrt(2.0 / std::numbers::pi);
  return 0.5 * input * (1.0 + tanh(k * (input + 0.044715 * input * input * input)));
}

Tensor functional::silu(const Tensor& input) {
  WICK_CHECK(input.defined() && input.is_floating_point(), DtypeError, "silu", "input ",
             describe(input), " must be a floating-point tensor");
  return input * sigmoid(input);
}

Tensor functional::leaky_relu(const Tensor& input, double negative_slope) {
  WICK_CHECK(input.defined() && input.is_floating_point(), DtypeError, "leaky_relu", "input ",
             describe(input), " must be a floating-point tensor");
  // gt fails for NaN, which then takes the other branch: NaN * slope is NaN.
  return where(gt(input, 0), input, input * negative_slope);
}

std::string LeakyReLUImpl::extra_repr() const {
  return wick::detail::str_cat("negative_slope=", negative_slope_);
}
std::string DimModule::extra_repr() const { return wick::detail::str_cat("dim=", dim_); }
std::string FlattenImpl::extra_repr() const {
  return wick::detail::str_cat("start_dim=", start_dim_, ", end_dim=", end_dim_);
}

GELUImpl::GELUImpl(std::string approximate) : approximate_(std::move(approximate)) {
  check_gelu_mode(approximate_);
}

std::string GELUImpl::extra_repr() const {
  return approximate_ == "none" ? "" : "approximate='" + approximate_ + "'";
}

Tensor functional::layer_norm(const Tensor& input, const Shape& normalized_shape,
                              const Tensor& weight, const Tensor& bias, double eps) {
  return wick::layer_norm(input, normalized_shape, weight, bias, eps);
}

LinearImpl::LinearImpl(int64_t in_features, int64_t out_features, bool with_bias)
    : in_features_(in_features), out_features_(out_features) {
  WICK_CHECK(in_features >= 0 && out_features >= 0, ValueError, "nn::Linear",
             "in_features and out_features must be non-negative, got ", in_features, " and ",
             out_features);
  weight = register_parameter("weight", empty({out_features, in_features}));
  if (with_bias) bias = register_parameter("bias", empty({out_features}));
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  NoGradGuard no_grad;
  // kaiming_uniform_(a = sqrt(5)): gain = sqrt(2 / (1 + a^2)) = sqrt(1/3), std = gain /
  // sqrt(fan_in), bound = sqrt(3) * std = 1 / sqrt(fan_in). The bias uses the same bound.
  const double bound = in_features_ > 0 ? 1.0 / std::sqrt(static_cast<double>(in_features_)) : 0;
  detail::fill_uniform(weight, bound);
  if (bias.defined()) detail::fill_uniform(bias, bound);
}

Tensor LinearImpl::forward(const Tensor& input) const {
  WICK_CHECK(input.dim() >= 1 && input.size(-1) == in_features_, ShapeError, "nn::Linear", "input ",
             describe(input), " must end in in_features = ", in_features_);
  return functional::linear(input, weight, bias);
}

std::string LinearImpl::extra_repr() const {
  return wick::detail::str_cat("in_features=", in_features_, ", out_features=", out_features_,
                               ", bias=", bias.defined() ? "true" : "false");
}

DropoutImpl::DropoutImpl(double p) : p_(p) {
  WICK_CHECK(p >= 0 && p <= 1, ValueError, "nn::Dropout",
             "dropout probability has to be between 0 and 1, but got ", p);
}

Tensor DropoutImpl::forward(const Tensor& input) const {
  return functional::dropout(input, p_, is_training());
}

std::string DropoutImpl::extra_repr() const {
  return wick::detail::str_cat("p=", p_, ", inplace=false");
}

LayerNormImpl::LayerNormImpl(Shape normalized_shape, double eps, bool elementwise_affine)
    : normalized_shape_(std::move(normalized_shape)), eps_(eps) {
  WICK_CHECK(!normalized_shape_.empty(), ValueError, "nn::LayerNorm",
             "normalized_shape needs at least one dim");
  if (elementwise_affine) {
    weight = register_parameter("weight", ones(normalized_shape_));
    bias = register_parameter("bias", zeros(normalized_shape_));
  }
}

Tensor LayerNormImpl::forward(const Tensor& input) const {
  return functional::layer_norm(input, normalized_shape_, weight, bias, eps_);
}

std::string LayerNormImpl::extra_repr() const {
  return wick::detail::str_cat(normalized_shape_, ", eps=", eps_,
                               ", elementwise_affine=", weight.defined() ? "true" : "false");
}

Tensor SequentialImpl::forward(const Tensor& input) const {
  Tensor x = input;
  for (const auto& forward : forwards_) x = forward(x);
  return x;
}

std::shared_ptr<Module> SequentialImpl::operator[](size_t index) const {
  WICK_CHECK(index < forwards_.size(), IndexError, "nn::Sequential", "index ", index,
             " is out of range for a Sequential of ", forwards_.size(), " modules");
  return named_children()[index].second;
}

void ModuleListImpl::push_back(std::shared_ptr<Module> module) {
  WICK_CHECK(module != nullptr, ValueError, "nn::ModuleList", "cannot hold an empty module");
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

void ModuleListImpl::extend(const ModuleListImpl& other) {
  // Copied first, so that list->extend(*list) doubles the list rather than looping for ever.
  const std::vector<std::shared_ptr<Module>> added = other.modules_;
  for (const auto& module : added) push_back(module);
}

std::shared_ptr<Module> ModuleListImpl::operator[](size_t index) const {
  WICK_CHECK(index < modules_.size(), IndexError, "nn::ModuleList", "index ", index,
             " is out of range for a ModuleList of ", modules_.size(), " modules");
  return modules_[index];
}

}  // namespace wick::nn
