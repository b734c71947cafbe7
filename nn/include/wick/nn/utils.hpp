// utils.hpp: gradient clipping as libtorch's torch::nn::utils: clip_grad_norm_ scales every
// gradient by min(1, max_norm / (total_norm + 1e-6)), where total_norm is the p-norm of all
// gradients together; clip_grad_value_ clamps each gradient element to [-clip, clip]. Both
// change the gradients in place and skip parameters without one. Tested in
// tests/nn/test_clip_grad.cpp against a float64 reference; docs/nn.md, "Gradient clipping".
#pragma once

#include <initializer_list>
#include <limits>
#include <vector>

#include "wick/tensor.hpp"

namespace wick::nn::utils {

// Returns the total norm before clipping (as libtorch, a double: one host copy at the end).
// norm_type: any p > 0, or infinity (the largest |g|). error_if_nonfinite: a ValueError, with
// no gradient changed, when the total norm is NaN or infinite (otherwise the gradients are
// scaled by the NaN or 0 coefficient, as PyTorch does).
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);

}  // namespace wick::nn::utils
