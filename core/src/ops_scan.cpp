// ops_scan.cpp: the op boundary for the scans cumsum, cumprod, cummax, cummin and logcumsumexp
// (torch's functions of those names) and for prod (torch.prod). The result dtype is the one asked
// for (int64 for bool and int64 input, else self's dtype); self is cast to it first, as PyTorch's
// `dtype` argument does. A 0-d tensor is one line of one element. Kernel contract: input 0 and
// output 0 of one dtype (int64, float32 or float64; bfloat16 is computed in float32 by run_kernel),
// the input packed as [outer, n, inner] around dim. cumsum/cumprod: the output has the input's
// sizes; element i of a line is the sum (product) of the line's elements 0..i, combined in that
// order (float32 in float64, int64 wrapping). cummax/cummin: output 0 the extreme so far (self's
// dtype: int64, float32, float64; bool runs as int64, bfloat16 in float32, both exactly), output 1
// its int64 position along dim. logcumsumexp: float32 or float64 (bfloat16 in float32), output 0 of
// self's sizes. prod: the output is [outer, 1, inner] (keepdim form, contiguous), each the product
// of its line (an empty line gives 1); the order of the multiplications is the kernel's. Attribute:
// dim = the wrapped dim. Kernels: kernels/cpu/scan.cpp and prod.cpp, kernels/cuda/scan.cu and
// reduce.cu. Autograd (autograd/rules.cpp): cumsum's gradient of element j is the sum of the
// output's gradient over i >= j; cumprod's and prod's are the products of the other elements, from
// prefix and suffix products, so that zeros get the right gradient; cummax's and cummin's go
// to the positions the indices name (sort's rule); logcumsumexp's is PyTorch's formula.
#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

Dtype result_dtype(OpId op, const Tensor& self, std::optional<Dtype> dtype) {
  const Dtype out_dtype = dtype ? *dtype : is_floating(self.dtype()) ? self.dtype() : kInt64;
  WICK_CHECK(out_dtype != kBool, DtypeError, op_name(op).data(), "cannot ",
             op == OpId::cumsum ? "sum" : "multiply", " into bool, for ", describe(self));
  return out_dtype;
}

// Runs the kernel op over self (already of the result dtype) along dim d into out (and
// indices, where the op has them), and records it for autograd with the caller's tensor as
// input.
void run_line_op(OpId op, const Tensor& self, int64_t d, Tensor& out, const char* name,
                 Tensor* indices = nullptr) {
  OpCall call;
  call.op = op;
  call.num_inputs = 1;
  call.outputs = {&out, indices};
  call.num_outputs = indices != nullptr ? 2 : 1;
  call.dim = d;
  if (out.numel() > 0) {
    const Tensor x = detail::packed(self, name);
    call.inputs[0] = &x;
    run_kernel(call, self.device());
  }
  call.inputs[0] = &self;
  detail::maybe_record(call);
}

Tensor scan(OpId op, const Tensor& self, int64_t dim, std::optional<Dtype> dtype) {
  const char* name = op_name(op).data();
  detail::check_defined(name, {&self});
  const Dtype out_dtype = result_dtype(op, self, dtype);
  if (self.dim() == 0) {
    detail::wrap_dim(dim, 1, name);
    return scan(op, self.reshape({1}), 0, dtype).reshape({});
  }
  const int64_t d = detail::wrap_dim(dim, self.dim(), name);
  // The cast is recorded (a copy), so autograd differentiates through it.
  const Tensor input = self.dtype() == out_dtype ? self : self.to(out_dtype);
  Tensor out = detail::make_empty(self.sizes(), out_dtype, self.device(), name);
  run_line_op(op, input, d, out, name);
  return out;
}

std::tuple<Tensor, Tensor> cum_extreme(OpId op, const Tensor& self, int64_t dim) {
  const char* name = op_name(op).data();
  detail::check_defined(name, {&self});
  if (self.dim() == 0) {
    detail::wrap_dim(dim, 1, name);
    auto [values, indices] = cum_extreme(op, self.reshape({1}), 0);
    return {values.reshape({}), indices.reshape({})};
  }
  const int64_t d = detail::wrap_dim(dim, self.dim(), name);
  if (self.dtype() == kBool) {
    // false < true as 0 < 1, so the int64 scan gives bool's values and positions exactly.
    auto [values, indices] = cum_extreme(op, self.to(kInt64), d);
    return {values.to(kBool), indices};
  }
  Tensor values = detail::make_empty(self.sizes(), self.dtype(), self.device(), name);
  Tensor indices = detail::make_empty(self.sizes(), kInt64, self.device(), name);
  run_line_op(op, self, d, values, name, &indices);
  return {values, indices};
}

}  // namespace

std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) {
  return cum_extreme(OpId::cummax, self, dim);
}
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) {
  return cum_extreme(OpId::cummin, self, dim);
}

Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  const char* name = "logcumsumexp";
  detail::check_defined(name, {&self});
  WICK_CHECK(is_floating(self.dtype()), DtypeError, name,
             "takes floating tensors only (as PyTorch), got ", describe(self));
  if (self.dim() == 0) {
    detail::wrap_dim(dim, 1, name);
    return logcumsumexp(self.reshape({1}), 0).reshape({});
  }
  const int64_t d = detail::wrap_dim(dim, self.dim(), name);
  Tensor out = detail::make_empty(self.sizes(), self.dtype(), self.device(), name);
  run_line_op(OpId::logcumsumexp, self, d, out, name);
  return out;
}

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<Dtype> dtype) {
  return scan(OpId::cumsum, self, dim, dtype);
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<Dtype> dtype) {
  return scan(OpId::cumprod, self, dim, dtype);
}

Tensor prod(const Tensor& self, int64_t dim, bool keepdim, std::optional<Dtype> dtype) {
  const char* name = "prod";
  detail::check_defined(name, {&self});
  if (dtype == kBool) {
    // As PyTorch: the product of the elements cast to bool (true where all are nonzero),
    // multiplied as 0 and 1 in int64 so that nothing wraps to 0.
    return prod(self.to(kBool), dim, keepdim, kInt64).to(kBool);
  }
  const Dtype out_dtype = result_dtype(OpId::prod, self, dtype);
  if (self.dim() == 0) {
    detail::wrap_dim(dim, 1, name);
    return prod(self.reshape({1}), 0, false, dtype).reshape({});
  }
  const int64_t d = detail::wrap_dim(dim, self.dim(), name);
  const Tensor input = self.dtype() == out_dtype ? self : self.to(out_dtype);
  Shape kept = self.sizes();
  kept[d] = 1;
  Tensor out = detail::make_empty(kept, out_dtype, self.device(), name);
  run_line_op(OpId::prod, input, d, out, name);  // an empty line's product is 1
  return keepdim ? out : out.squeeze(d);
}

Tensor prod(const Tensor& self, std::optional<Dtype> dtype) {
  detail::check_defined("prod", {&self});
  return prod(self.reshape({-1}), 0, false, dtype);
}

Tensor Tensor::cumsum(int64_t dim, std::optional<Dtype> dtype) const {
  return wick::cumsum(*this, dim, dtype);
}
Tensor Tensor::cumprod(int64_t dim, std::optional<Dtype> dtype) const {
  return wick::cumprod(*this, dim, dtype);
}
std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const { return wick::cummax(*this, dim); }
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const { return wick::cummin(*this, dim); }
Tensor Tensor::logcumsumexp(int64_t dim) const { return wick::logcumsumexp(*this, dim); }
Tensor Tensor::prod(std::optional<Dtype> dtype) const { return wick::prod(*this, dtype); }
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<Dtype> dtype) const {
  return wick::prod(*this, dim, keepdim, dtype);
}

}  // namespace wick
