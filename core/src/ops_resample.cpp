// ops_resample.cpp: the op boundary for resample and resample_backward, the fused separable
// step of nn::functional::interpolate (nn/upsample.cpp): K weighted taps per output position
// along one dim. Before these ops, a step was K index_selects, K broadcast multiplies and K - 1
// adds, each a pass over a tensor of the output's size (bilinear x2 of [32, 16, 32, 32] ran at
// 0.33x libtorch's speed on one thread); now it is one pass (docs/cpu-kernels.md, "interpolate").
// Both check their operands here, with the op's name, then pack every operand contiguous, so
// the kernels see the data as [outer, size, inner] around the dim, the taps as [K, R] int64
// indices and weights of the data's dtype (bfloat16 is computed in float32 by run_kernel):
//  - resample(a, dim, index, weight) -> [outer, R, inner];
//  - resample_backward(grad, dim, index, weight, input_size) -> [outer, input_size, inner],
//    where input_size is the forward input's size along dim. The kernels add each target's
//    terms in (k, r) order from +0: the same bits on the CPU and the GPU.
// Kernel attributes: dim = the wrapped dim.
// Index values are checked against the size along dim here (one host read of their bounds),
// unless the caller trusts them (detail::IndexesInRange: the backward rule's device index).
#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// The checks both ops share; `data` is resample's input or resample_backward's grad, `size`
// the size the index values must stay below. Returns the wrapped dim.
int64_t check_taps(const char* op, const Tensor& data, int64_t dim, const Tensor& index,
                   const Tensor& weight) {
  detail::check_defined(op, {&data, &index, &weight});
  WICK_CHECK(data.dim() > 0, ShapeError, op, "expected a tensor of at least 1 dim, got ",
             describe(data));
  const int64_t d = detail::wrap_dim(dim, data.dim(), op);
  WICK_CHECK(is_floating(data.dtype()), DtypeError, op, "expected a floating tensor, got ",
             describe(data));
  WICK_CHECK(index.dtype() == kInt64, DtypeError, op, "expected an int64 index, got ",
             describe(index));
  WICK_CHECK(weight.dtype() == data.dtype(), DtypeError, op,
             "the weight must have the data's dtype: ", detail::describe_all({&data, &weight}));
  WICK_CHECK(index.dim() == 2 && weight.sizes() == index.sizes(), ShapeError, op,
             "expected an index and a weight of one shape [taps, outputs], got ",
             detail::describe_all({&index, &weight}));
  detail::check_same_device(op, {&data, &index, &weight});
  return d;
}

}  // namespace

Tensor resample(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& weight) {
  const char* name = "resample";
  const int64_t d = check_taps(name, a, dim, index, weight);
  detail::check_index_range(name, a, d, index, false);
  const Tensor x = detail::packed(a, name), idx = detail::packed(index, name),
               w = detail::packed(weight, name);
  Tensor out = detail::make_empty(detail::with_dim_size(a.sizes(), d, index.size(1)), a.dtype(),
                                  a.device(), name);
  OpCall call;
  call.op = OpId::resample;
  call.inputs = {&x, &idx, &w};
  call.num_inputs = 3;
  call.outputs[0] = &out;
  call.num_outputs = 1;
  call.dim = d;
  if (out.numel() > 0) run_kernel(call, a.device());
  call.inputs = {&a, &index, &weight};  // autograd records the caller's tensors
  detail::maybe_record(call);
  return out;
}

Tensor resample_backward(const Tensor& grad, int64_t dim, const Tensor& index, const Tensor& weight,
                         int64_t input_size) {
  const char* name = "resample_backward";
  const int64_t d = check_taps(name, grad, dim, index, weight);
  WICK_CHECK(grad.size(d) == index.size(1), ShapeError, name, "dim ", d, " of the gradient ",
             describe(grad), " must have the ", index.size(1), " outputs of the taps ",
             describe(index));
  WICK_CHECK(input_size >= 0, ValueError, name, "input_size must be >= 0, got ", input_size);
  const Shape out_sizes = detail::with_dim_size(grad.sizes(), d, input_size);
  // The range check names the gradient being made ([..., input_size, ...]), not a tensor the
  // caller holds.
  detail::check_index_range(name, zeros({}, grad.options()).expand(out_sizes), d, index, false);
  const Tensor g = detail::packed(grad, name), idx = detail::packed(index, name),
               w = detail::packed(weight, name);
  Tensor out = detail::make_empty(out_sizes, grad.dtype(), grad.device(), name);
  OpCall call;
  call.op = OpId::resample_backward;
  call.inputs = {&g, &idx, &w};
  call.num_inputs = 3;
  call.outputs[0] = &out;
  call.num_outputs = 1;
  call.dim = d;
  if (out.numel() > 0) run_kernel(call, grad.device());
  return out;
}

}  // namespace wick
