// ops_linalg.cpp: the op boundary for matmul (1-D, 2-D, batched with broadcast batch dims,
// transposed views passed through as strides), softmax and log_softmax.
#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// t viewed with new sizes/strides, not recorded (the op records its own inputs).
Tensor raw_view(const Tensor& t, const Shape& sizes, const Shape& strides) {
  return detail::make_view(t, sizes, strides, t.storage_offset());
}

Tensor softmax_impl(OpId op, const Tensor& a, int64_t dim) {
  const char* name = op_name(op).data();
  detail::check_defined(name, {&a});
  int64_t d = detail::wrap_dim(dim, a.dim(), name);
  WICK_CHECK(is_floating(a.dtype()), DtypeError, name, "needs a floating-point input, got ",
             describe(a));
  Tensor input = a.detach();
  if (input.dim() == 0) input = raw_view(input, {1}, {1});
  // The CPU kernel's vectorised paths take a contiguous input; others (softmax over either dim
  // of x.t(), or of a result laid out like it) took a scalar path with a double exp per element,
  // 4-9x slower than libtorch, which makes every input contiguous first. So does wick on the
  // CPU: the copy (tiled when transposed) costs a fraction of the exps.
  if (input.device().is_cpu() && !input.is_contiguous()) {
    Tensor packed = detail::make_empty(input.sizes(), input.dtype(), input.device(), name);
    detail::copy_into(packed, input);
    input = packed;
  }
  Tensor out = detail::make_empty(input.sizes(), input.dtype(), input.device(), name);
  OpCall call;
  call.op = op;
  call.inputs[0] = &input;
  call.num_inputs = 1;
  call.outputs[0] = &out;
  call.num_outputs = 1;
  call.dim = d;
  if (out.numel() > 0) run_kernel(call, input.device());
  if (a.dim() == 0) out = raw_view(out, {}, {});
  call.inputs[0] = &a;
  call.outputs[0] = &out;
  detail::maybe_record(call);
  return out;
}

// matmul's body; `name` is what its errors call the op (mm calls it too).
Tensor named_matmul(const Tensor& a, const Tensor& b, const char* name) {
  detail::check_defined(name, {&a, &b});
  WICK_CHECK(a.dim() >= 1 && b.dim() >= 1, ShapeError, name,
             "both arguments need at least 1 dim, got ", detail::describe_all({&a, &b}));
  detail::check_same_device(name, {&a, &b});
  WICK_CHECK(a.dtype() == b.dtype(), DtypeError, name, "expected both operands of one dtype, got ",
             detail::describe_all({&a, &b}));
  WICK_CHECK(a.dtype() != kBool, DtypeError, name,
             "not implemented for bool: ", detail::describe_all({&a, &b}));
  // 1-D operands become a row (left) or a column (right), removed again at the end.
  Tensor a2 = a.dim() == 1 ? raw_view(a, {1, a.size(0)}, {0, a.stride(0)}) : a.detach();
  Tensor b2 = b.dim() == 1 ? raw_view(b, {b.size(0), 1}, {b.stride(0), 0}) : b.detach();
  int64_t m = a2.size(-2), k = a2.size(-1), k2 = b2.size(-2), n = b2.size(-1);
  WICK_CHECK(k == k2, ShapeError, name, "shapes ", a.sizes(), " and ", b.sizes(),
             " cannot be multiplied (", k, " != ", k2, ")");
  Shape batch_a(a2.sizes().begin(), a2.sizes().end() - 2);
  Shape batch_b(b2.sizes().begin(), b2.sizes().end() - 2);
  Shape batch;
  try {
    batch = broadcast_shapes(batch_a, batch_b);
  } catch (const ShapeError&) {
    detail::fail<ShapeError>(name, "batch dims of ", a.sizes(), " and ", b.sizes(),
                             " cannot be broadcast (", batch_a, " vs ", batch_b, ")");
  }
  Shape a_sizes = batch, b_sizes = batch, out_sizes = batch;
  a_sizes.push_back(m), a_sizes.push_back(k);
  b_sizes.push_back(k), b_sizes.push_back(n);
  out_sizes.push_back(m), out_sizes.push_back(n);
  Tensor a3 = detail::expand_view(a2, a_sizes), b3 = detail::expand_view(b2, b_sizes);
  Tensor out = detail::make_empty(out_sizes, a.dtype(), a.device(), name);
  OpCall call;
  call.op = OpId::matmul;
  call.inputs[0] = &a3;
  call.inputs[1] = &b3;
  call.num_inputs = 2;
  call.outputs[0] = &out;
  call.num_outputs = 1;
  if (out.numel() > 0) run_kernel(call, a.device());
  if (a.dim() == 1 || b.dim() == 1) {
    Shape final_sizes = batch;
    if (a.dim() > 1) final_sizes.push_back(m);
    if (b.dim() > 1) final_sizes.push_back(n);
    out = raw_view(out, final_sizes, detail::contiguous_strides(final_sizes));
  }
  call.inputs[0] = &a;
  call.inputs[1] = &b;
  detail::maybe_record(call);
  return out;
}
}  // namespace

Tensor detail::matmul_named(const Tensor& a, const Tensor& b, const char* name) {
  return named_matmul(a, b, name);
}

Tensor matmul(const Tensor& a, const Tensor& b) { return named_matmul(a, b, "matmul"); }

Tensor mm(const Tensor& a, const Tensor& b) {
  detail::check_defined("mm", {&a, &b});
  WICK_CHECK(a.dim() == 2 && b.dim() == 2, ShapeError, "mm", "expects two 2-D tensors, got ",
             detail::describe_all({&a, &b}));
  return named_matmul(a, b, "mm");
}

Tensor softmax(const Tensor& a, int64_t dim) { return softmax_impl(OpId::softmax, a, dim); }
Tensor log_softmax(const Tensor& a, int64_t dim) { return softmax_impl(OpId::log_softmax, a, dim); }

Tensor Tensor::matmul(const Tensor& o) const { return wick::matmul(*this, o); }
Tensor Tensor::mm(const Tensor& o) const { return wick::mm(*this, o); }
Tensor Tensor::softmax(int64_t d) const { return wick::softmax(*this, d); }
Tensor Tensor::log_softmax(int64_t d) const { return wick::log_softmax(*this, d); }

}  // namespace wick
