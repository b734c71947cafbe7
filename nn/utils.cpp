// utils.cpp: clip_grad_norm_ and clip_grad_value_, as libtorch's (torch/nn/utils/clip_grad.h):
// per-gradient norms on the gradients' devices, stacked on the first one's, then one scale
// factor multiplied into every gradient with no host round trip before the final item().
#include "wick/nn/utils.hpp"

#include <cmath>

#include "wick/autograd.hpp"
#include "wick/ops.hpp"

namespace wick::nn::utils {

namespace {

std::vector<Tensor> defined_grads(const std::vector<Tensor>& parameters, const char* op) {
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters) {
    WICK_CHECK(p.defined(), ValueError, op, "a parameter is an undefined tensor");
    if (p.grad().defined()) grads.push_back(p.grad());
  }
  return grads;
}

// ||g||_p in at least float32 (a bfloat16 gradient's norm is summed in float32).
Tensor grad_norm(const Tensor& grad, double p) {
  Tensor g = grad.dtype() == kBFloat16 ? grad.to(kFloat32) : grad;
  if (std::isinf(p))
    return g.numel() == 0 ? zeros({}, TensorOptions(g.dtype()).device(g.device())) : max(abs(g));
  if (p == 2.0) return sqrt(sum(g * g));
  if (p == 1.0) return sum(abs(g));
  return pow(sum(pow(abs(g), p)), 1.0 / p);
}

}  // namespace

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  const char* op = "clip_grad_norm_";
  WICK_CHECK(max_norm >= 0, ValueError, op, "max_norm ", max_norm,
             " must be a non-negative number");
  WICK_CHECK(norm_type > 0 && !std::isnan(norm_type), ValueError, op, "norm_type ", norm_type,
             " must be positive (or infinity)");
  const std::vector<Tensor> grads = defined_grads(parameters, op);
  if (grads.empty()) return 0.0;
  NoGradGuard no_grad;
  const Device device = grads[0].device();
  Dtype dtype = kFloat32;
  for (const Tensor& g : grads) {
    if (g.dtype() == kFloat64) dtype = kFloat64;
  }
  std::vector<Tensor> norms;
  for (const Tensor& g : grads) norms.push_back(grad_norm(g, norm_type).to(device, dtype));
  Tensor total = norms.size() == 1 ? norms[0] : grad_norm(stack(norms), norm_type);
  if (error_if_nonfinite) {
    const double value = total.item<double>();
    WICK_CHECK(std::isfinite(value), ValueError, op, "the total norm of order ", norm_type,
               " of the gradients is ", value,
               ", so they cannot be clipped; pass error_if_nonfinite = false to scale them "
               "by it anyway");
  }
  Tensor coef = clamp_max(max_norm / (total + 1e-6), 1.0);
  for (const Tensor& g : grads) {
    Tensor target = g;
    target.mul_(coef.to(g.device(), g.dtype()));
  }
  return total.item<double>();
}

double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>(parameters), max_norm, norm_type, error_if_nonfinite);
}

double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  return clip_grad_norm_(std::vector<Tensor>{parameter}, max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  const char* op = "clip_grad_value_";
  WICK_CHECK(clip_value >= 0, ValueError, op, "clip_value ", clip_value,
             " must be a non-negative number");
  const std::vector<Tensor> grads = defined_grads(parameters, op);
  NoGradGuard no_grad;
  for (const Tensor& g : grads) {
    Tensor target = g;
    target.clamp_(-clip_value, clip_value);
  }
}

void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<Tensor>(parameters), clip_value);
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(std::vector<Tensor>{parameter}, clip_value);
}

}  // namespace wick::nn::utils
