// copy.cpp: copy_, to(device/dtype), contiguous, clone, fill_ and zero_. Copies within a device
// run that device's `copy` kernel (which also casts); copies across devices stage through a
// contiguous buffer of the destination dtype and move bytes with the backends' copy calls.
#include <cmath>
#include <cstring>
#include <limits>

#include "internal.hpp"
#include "wick/dim_order.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace detail {
namespace {

// True when a write to t would write some memory location twice (an expanded tensor). An
// empty tensor writes nothing, whatever its strides.
bool has_internal_overlap(const Tensor& t) {
  if (t.numel() == 0) return false;
  for (int64_t i = 0; i < t.dim(); ++i) {
    if (t.strides()[i] == 0 && t.sizes()[i] > 1) return true;
  }
  return false;
}

bool same_layout(const Tensor& a, const Tensor& b) {
  return a.storage() == b.storage() && a.storage_offset() == b.storage_offset() &&
         a.strides() == b.strides() && a.dtype() == b.dtype();
}

void run_copy_kernel(const Tensor& dst, const Tensor& src) {
  OpCall call;
  call.op = OpId::copy;
  call.inputs[0] = &src;
  call.num_inputs = 1;
  Tensor out = dst;
  call.outputs[0] = &out;
  call.num_outputs = 1;
  run_kernel(call, dst.device());
}

}  // namespace

Tensor packed(const Tensor& t, const char* op) {
  if (!t.defined() || t.is_contiguous()) return t.defined() ? t.detach() : t;
  Tensor copy = make_empty(t.sizes(), t.dtype(), t.device(), op);
  copy_into(copy, t);
  return copy;
}

void copy_into(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0) return;
  if (dst.device() == src.device()) {
    if (same_layout(dst, src)) return;
    // Reading and writing one storage through different layouts: read everything first.
    if (dst.storage() == src.storage()) {
      Tensor staged = make_empty(src.sizes(), src.dtype(), src.device(), "copy_");
      run_copy_kernel(staged, src);
      run_copy_kernel(dst, staged);
    } else {
      run_copy_kernel(dst, src);
    }
    return;
  }
  // Across devices: bytes move contiguous and already in the destination dtype.
  Tensor staged_src = src;
  if (!src.is_contiguous() || src.dtype() != dst.dtype()) {
    staged_src = make_empty(src.sizes(), dst.dtype(), src.device(), "copy_");
    run_copy_kernel(staged_src, src);
  }
  Tensor staged_dst =
      dst.is_contiguous() ? dst : make_empty(dst.sizes(), dst.dtype(), dst.device(), "copy_");
  size_t nbytes = staged_dst.nbytes();
  if (src.device().is_cpu()) {
    backend_for(dst.device(), "copy_")
        .copy_from_host(staged_dst.raw_data(), dst.device(), staged_src.raw_data(), nbytes);
  } else if (dst.device().is_cpu()) {
    backend_for(src.device(), "copy_")
        .copy_to_host(staged_dst.raw_data(), staged_src.raw_data(), src.device(), nbytes);
  } else {
    backend_for(dst.device(), "copy_")
        .copy_between(staged_dst.raw_data(), dst.device(), staged_src.raw_data(), src.device(),
                      nbytes);
  }
  if (!staged_dst.is_same(dst)) run_copy_kernel(dst, staged_dst);
}

void check_value_fits(const Scalar& value, Dtype d, const char* op, const Tensor& t) {
  if (!value.is_floating()) return;  // bool and int64 numbers fit every dtype but bool's
  const double v = value.to_double();
  bool fits = true;
  if (d == kInt64) {
    // A floating value becomes an int64 by truncation; one that int64 can't hold is an error
    // here, not undefined behaviour in a kernel.
    fits = v >= -9223372036854775808.0 && v < 9223372036854775808.0;
  } else if (std::isfinite(v) && (d == kFloat32 || d == kBFloat16)) {
    // bfloat16's largest finite value is 0x7f7f: (2 - 2^-7) * 2^127.
    const double max = d == kFloat32
                           ? static_cast<double>(std::numeric_limits<float>::max())
                           : static_cast<double>(static_cast<float>(BFloat16::from_bits(0x7f7f)));
    fits = v >= -max && v <= max;  // PyTorch: 1e300 into float32 is an error, not inf
  }
  WICK_CHECK(fits, ValueError, op, "value ", v, " cannot be converted to ", d,
             " without overflow (", describe(t), ")");
}

void fill_kernel(const Tensor& t, const Scalar& value) {
  if (t.numel() == 0) return;
  OpCall call;
  call.op = OpId::fill;
  Tensor out = t;
  call.outputs[0] = &out;
  call.num_outputs = 1;
  call.scalar_a = value;
  call.has_a = true;
  run_kernel(call, t.device());
}

void check_inplace_target(const Tensor& self, const char* op, bool recorded) {
  WICK_CHECK(!has_internal_overlap(self), ValueError, op,
             "more than one element of the written-to tensor refers to a single memory location ",
             "(an expanded tensor): ", describe(self), " with strides ", self.strides(),
             "; clone() it first");
  if (!GradMode::is_enabled()) return;
  WICK_CHECK(!self.unsafe_impl()->no_grad_view, AutogradError, op,
             "a view of a tensor that requires grad was made under NoGradGuard and is being ",
             "modified in place with grad mode on: ", describe(self),
             "; write it under NoGradGuard as well, or make the view with grad mode on");
  if (self.requires_grad()) {
    if (AutogradHooks* h = autograd_hooks()) h->check_inplace(self, op, recorded);
  }
}

InplaceRecord::InplaceRecord(OpId op, const Tensor& self, const Tensor* other) {
  AutogradHooks* h = autograd_hooks();
  active_ = h != nullptr && GradMode::is_enabled() &&
            (self.requires_grad() || (other != nullptr && other->requires_grad()));
  if (!active_) return;
  // A tensor outside the graph takes a history here. Another tensor sharing its storage (a
  // view of it, or its base) would change too, with no history behind the change (PyTorch
  // rebases it; wick refuses).
  WICK_CHECK(self.requires_grad() || self.storage().use_count() == 1, AutogradError,
             op_name(op).data(), "an in-place write of a value that requires grad into ",
             describe(self), ", whose storage other tensors share (a view or its base), is not ",
             "supported by wick's autograd; clone() it first or use the out-of-place op");
  before_ = h->save_before_inplace(op, self);
}

void InplaceRecord::finish(OpCall& call) const {
  if (active_) autograd_hooks()->record_inplace(call, before_);
}

}  // namespace detail

namespace {
// Records `result` as a differentiable copy of `input` (to(), clone(), contiguous()).
void record_copy(const Tensor& input, Tensor& result) {
  OpCall call;
  call.op = OpId::copy;
  call.inputs[0] = &input;
  call.num_inputs = 1;
  call.outputs[0] = &result;
  call.num_outputs = 1;
  detail::maybe_record(call);
}
}  // namespace

Tensor& Tensor::copy_(const Tensor& src) {
  detail::check_defined("copy_", {this, &src});
  detail::check_inplace_target(*this, "copy_", true);
  // A source that requires grad is expanded as a recorded view, so that its gradient is summed
  // back to its shape.
  // Into an int64 or bool tensor the copy is not differentiable (as to(kInt64) and PyTorch's
  // copy_): the target must not start to require grad (found by review).
  const bool differentiable = is_floating(dtype());
  const bool track = differentiable && GradMode::is_enabled() && src.requires_grad();
  Tensor expanded = src;
  WICK_CHECK(src.dim() <= dim(), ShapeError, "copy_", "cannot copy ", describe(src), " into ",
             describe(*this));
  if (src.sizes() != sizes()) {
    // Broadcasting errors name copy_ and both operands.
    try {
      expanded = (track ? src : src.detach()).expand(sizes());
    } catch (const ShapeError&) {
      detail::fail<ShapeError>("copy_", "source ", describe(src),
                               " cannot be broadcast to destination ", describe(*this));
    }
  }
  const detail::InplaceRecord record(OpId::copy, *this, differentiable ? &expanded : nullptr);
  detail::copy_into(*this, expanded.detach());
  storage()->bump_version();
  if (record.active()) {
    // The new value is the source's: its gradient goes to the source, and the old value gets
    // a zero gradient (as PyTorch's CopyBackwards), so a history behind it still receives one.
    OpCall call;
    call.op = OpId::copy;
    call.inputs[0] = &expanded;
    call.inputs[1] = this;
    call.num_inputs = 2;
    call.outputs[0] = this;
    call.num_outputs = 1;
    record.finish(call);
  }
  return *this;
}

namespace {

// PyTorch's preserve_format, which to() and clone() follow: a copy of a tensor that tiles its
// memory densely keeps its strides (x.t().clone() is transposed too, and copies in order);
// any other tensor's copy is dense in the order of its strides (x[:, ::2].t() gives a
// transposed result), contiguous when that order is row-major.
Shape preserved_strides(const Tensor& t) {
  if (t.is_contiguous()) return detail::contiguous_strides(t.sizes());
  if (detail::is_non_overlapping_and_dense(t.sizes(), t.strides())) return t.strides();
  const Shape* strides = &t.strides();
  return detail::elementwise_result_strides(t.sizes(), &strides, 1, false);
}

}  // namespace

Tensor Tensor::to(Device device, Dtype dtype) const {
  detail::check_defined("to", {this});
  Device target = detail::check_device(device, "to");
  if (target == this->device() && dtype == this->dtype()) return *this;
  Tensor result = detail::make_empty_dense(sizes(), preserved_strides(*this), dtype, target, "to");
  detail::copy_into(result, *this);
  if (requires_grad() && GradMode::is_enabled() && is_floating(dtype)) {
    record_copy(*this, result);
  }
  return result;
}

Tensor Tensor::to(Device device) const {
  detail::check_defined("to", {this});
  return to(device, dtype());
}
Tensor Tensor::to(Dtype dtype) const {
  detail::check_defined("to", {this});
  return to(device(), dtype);
}

namespace {

Tensor copy_with_strides(const Tensor& t, const Shape& strides, const char* op) {
  detail::check_defined(op, {&t});
  Tensor result = detail::make_empty_dense(t.sizes(), strides, t.dtype(), t.device(), op);
  detail::copy_into(result, t);
  if (t.requires_grad() && GradMode::is_enabled()) record_copy(t, result);
  return result;
}

}  // namespace

Tensor Tensor::clone() const {
  detail::check_defined("clone", {this});
  return copy_with_strides(*this, preserved_strides(*this), "clone");
}

Tensor Tensor::contiguous() const {
  detail::check_defined("contiguous", {this});
  return is_contiguous()
             ? *this
             : copy_with_strides(*this, detail::contiguous_strides(sizes()), "contiguous");
}

namespace {
Tensor& fill_named(Tensor& self, const Scalar& value, const char* op) {
  detail::check_defined(op, {&self});
  detail::check_inplace_target(self, op);
  detail::check_value_fits(value, self.dtype(), op, self);
  detail::fill_kernel(self, value);
  self.storage()->bump_version();
  return self;
}
}  // namespace

Tensor& Tensor::fill_(const Scalar& value) { return fill_named(*this, value, "fill_"); }

Tensor& Tensor::zero_() { return fill_named(*this, Scalar(int64_t{0}), "zero_"); }

}  // namespace wick
