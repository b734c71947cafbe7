// ops_norm.cpp: the op boundary for layer_norm and its fused backward, layer_norm_backward.
// Both check their operands here, make them contiguous (the kernels walk rows of N =
// prod(normalized_shape) elements one after another) and run one kernel. The kernel attributes:
// scalar_a = eps, ints = {normalized dims, has weight, has bias} (forward) or {normalized dims,
// has weight, wants d input, wants d weight / d bias} (backward). Inputs are x[, weight][, bias]
// and grad_output, x[, weight]; the backward's outputs are d input and a [2, N] tensor of
// d weight (row 0) and d bias (row 1).
#include "internal.hpp"
#include "wick/autograd_hooks.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// The checks both ops share, with PyTorch's wording; returns the row length N.
int64_t check_layer_norm(const char* name, const Tensor& input, const Shape& normalized_shape,
                         std::initializer_list<const Tensor*> params) {
  detail::check_defined(name, {&input});
  const auto k = static_cast<int64_t>(normalized_shape.size());
  WICK_CHECK(k >= 1, ShapeError, name,
             "expected normalized_shape to have at least one dim, got normalized_shape=",
             normalized_shape);
  bool fits = input.dim() >= k;
  for (int64_t i = 0; i < k; ++i) {
    fits = fits && input.size(input.dim() - k + i) == normalized_shape[static_cast<size_t>(i)];
  }
  if (!fits) {
    std::string trailing;  // "[*, 2, 3]", as PyTorch's message
    for (int64_t d : normalized_shape) trailing += ", " + std::to_string(d);
    detail::fail<ShapeError>(name, "given normalized_shape=", normalized_shape,
                             ", expected input with shape [*", trailing, "], got ",
                             describe(input));
  }
  // The dims are the input's own: their count is 0 past a 0 dim (an empty [2, 2^62, 0] once
  // overflowed here, multiplied left to right) and else at most the input's element count.
  const int64_t row_length = checked_numel(normalized_shape, name);
  WICK_CHECK(is_floating(input.dtype()), DtypeError, name, "needs a floating-point input, got ",
             describe(input));
  for (const Tensor* p : params) {
    if (!p->defined()) continue;
    WICK_CHECK(p->sizes() == normalized_shape, ShapeError, name,
               "weight and bias must have normalized_shape ", normalized_shape, ", got ",
               describe(*p));
    WICK_CHECK(p->dtype() == input.dtype(), DtypeError, name,
               "weight and bias must have the input's dtype: input ", describe(input), ", got ",
               describe(*p));
    detail::check_same_device(name, {&input, p});
  }
  return row_length;
}

}  // namespace

Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  const char* name = "layer_norm";
  check_layer_norm(name, input, normalized_shape, {&weight, &bias});
  const Tensor x = detail::packed(input, name), w = detail::packed(weight, name),
               b = detail::packed(bias, name);
  Tensor out = detail::make_empty(x.sizes(), x.dtype(), x.device(), name);
  OpCall call;
  call.op = OpId::layer_norm;
  call.outputs[0] = &out;
  call.num_outputs = 1;
  call.scalar_a = Scalar(eps);
  call.has_a = true;
  call.ints = {static_cast<int64_t>(normalized_shape.size()), weight.defined(), bias.defined()};
  const auto set_inputs = [&call](const Tensor& xi, const Tensor& wi, const Tensor& bi) {
    call.num_inputs = 0;
    for (const Tensor* t : {&xi, &wi, &bi}) {
      if (t->defined()) call.inputs[call.num_inputs++] = t;
    }
  };
  set_inputs(x, w, b);
  if (out.numel() > 0) run_kernel(call, x.device());
  set_inputs(input, weight, bias);  // autograd records the caller's tensors
  detail::maybe_record(call);
  return out;
}

std::array<Tensor, 3> layer_norm_backward(const Tensor& grad_output, const Tensor& input,
                                          const Shape& normalized_shape, const Tensor& weight,
                                          double eps, std::array<bool, 3> output_mask) {
  const char* name = "layer_norm_backward";
  const int64_t row_length = check_layer_norm(name, input, normalized_shape, {&weight});
  detail::check_defined(name, {&grad_output});
  WICK_CHECK(
      grad_output.sizes() == input.sizes(), ShapeError, name,
      "grad_output must have the input's sizes: ", detail::describe_all({&grad_output, &input}));
  WICK_CHECK(
      grad_output.dtype() == input.dtype(), DtypeError, name,
      "grad_output must have the input's dtype: ", detail::describe_all({&grad_output, &input}));
  detail::check_same_device(name, {&grad_output, &input});
  const bool tracked = grad_output.requires_grad() || input.requires_grad() ||
                       (weight.defined() && weight.requires_grad());
  WICK_CHECK(!(GradMode::is_enabled() && tracked), AutogradError, name,
             "is not differentiable; call it under NoGradGuard or on tensors that do not require "
             "grad");
  const bool want_input = output_mask[0];
  const bool want_params = output_mask[1] || output_mask[2];
  const Tensor g = detail::packed(grad_output, name), x = detail::packed(input, name),
               w = detail::packed(weight, name);
  Tensor d_input, d_params;
  if (want_input) d_input = detail::make_empty(x.sizes(), x.dtype(), x.device(), name);
  if (want_params) d_params = detail::make_empty({2, row_length}, x.dtype(), x.device(), name);
  OpCall call;
  call.op = OpId::layer_norm_backward;
  call.inputs = {&g, &x, &w};
  call.num_inputs = w.defined() ? 3 : 2;
  // An output not asked for is an empty placeholder the kernel does not write.
  Tensor unused = detail::make_empty({0}, x.dtype(), x.device(), name);
  call.outputs = {want_input ? &d_input : &unused, want_params ? &d_params : &unused};
  call.num_outputs = 2;
  call.scalar_a = Scalar(eps);
  call.has_a = true;
  call.ints = {static_cast<int64_t>(normalized_shape.size()), w.defined(), want_input, want_params};
  if ((want_input || want_params) && x.numel() > 0) {
    run_kernel(call, x.device());
  } else if (want_params) {
    d_params.zero_();  // no rows: the sums over them are 0
  }
  std::array<Tensor, 3> grads;
  if (want_input) grads[0] = d_input;
  if (output_mask[1]) grads[1] = d_params.select(0, 0).view(normalized_shape);
  if (output_mask[2]) grads[2] = d_params.select(0, 1).view(normalized_shape);
  return grads;
}

}  // namespace wick
