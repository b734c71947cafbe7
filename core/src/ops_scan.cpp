// ops_scan.cpp: the op boundary for cumsum (torch.cumsum). The result has self's sizes and the
// dtype asked for (int64 for bool and int64 input, else self's dtype); self is cast to it first,
// as PyTorch's `dtype` argument does. A 0-d tensor is one line of one element.
// Kernel contract: input 0 and output 0 of one dtype (int64, float32 or float64; bfloat16 is
// computed in float32 by run_kernel), both packed as [outer, n, inner] around dim; output
// element i of a line is the sum of the line's elements 0..i, added in that order (float32 in
// float64, int64 wrapping). Attribute: dim = the wrapped dim. Kernels: kernels/cpu/scan.cpp,
// kernels/cuda/scan.cu.
// Autograd: the gradient of element j is the sum of the output's gradient over i >= j
// (autograd/rules.cpp: the gradient reversed along dim, a cumsum, reversed back).
#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<Dtype> dtype) {
  const char* name = "cumsum";
  detail::check_defined(name, {&self});
  const Dtype out_dtype = dtype ? *dtype : is_floating(self.dtype()) ? self.dtype() : kInt64;
  WICK_CHECK(out_dtype != kBool, DtypeError, name, "cannot sum into bool, for ", describe(self));
  if (self.dim() == 0) {
    detail::wrap_dim(dim, 1, name);
    return cumsum(self.reshape({1}), 0, dtype).reshape({});
  }
  const int64_t d = detail::wrap_dim(dim, self.dim(), name);
  // The cast is recorded (a copy), so autograd differentiates through it.
  const Tensor input = self.dtype() == out_dtype ? self : self.to(out_dtype);
  Tensor out = detail::make_empty(self.sizes(), out_dtype, self.device(), name);
  OpCall call;
  call.op = OpId::cumsum;
  call.num_inputs = 1;
  call.outputs[0] = &out;
  call.num_outputs = 1;
  call.dim = d;
  if (out.numel() > 0) {
    const Tensor x = detail::packed(input, name);
    call.inputs[0] = &x;
    run_kernel(call, self.device());
  }
  call.inputs[0] = &input;  // autograd records the caller's tensor (after the cast)
  detail::maybe_record(call);
  return out;
}

Tensor Tensor::cumsum(int64_t dim, std::optional<Dtype> dtype) const {
  return wick::cumsum(*this, dim, dtype);
}

}  // namespace wick
