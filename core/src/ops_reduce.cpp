// ops_reduce.cpp: the op boundary for sum, mean, max, min and their dim/arg forms.
// Kernels receive the output in keepdim form (reduced dims of size 1, contiguous) and the set
// of reduced dims as flags in call.ints; the boundary squeezes afterwards when !keepdim.
#include <limits>

#include "internal.hpp"
#include "wick/dim_order.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

struct Reduced {
  Tensor values;
  Tensor indices;
};

}  // namespace

Shape detail::reduce_mask(const Shape& dims, int64_t ndim, bool all, const char* op) {
  Shape mask = Shape::filled(static_cast<size_t>(ndim), all ? 1 : 0);
  bool scalar_dim_seen = false;  // a 0-d tensor takes dim 0 or -1, once (as PyTorch)
  for (int64_t d : dims) {
    int64_t w = detail::wrap_dim(d, ndim, op);
    const bool seen = ndim == 0 ? scalar_dim_seen : mask[w] != 0;
    WICK_CHECK(!seen, IndexError, op, "dim ", d, " appears more than once in ", dims);
    if (ndim == 0) {
      scalar_dim_seen = true;
    } else {
      mask[w] = 1;
    }
  }
  return mask;
}

namespace {
using detail::reduce_mask;

// `name` is what errors call the op (amax and argmax run as max).
Reduced reduce(OpId op, const Tensor& a, const Shape& dims, bool all, bool keepdim,
               bool want_indices, const char* name = nullptr) {
  if (name == nullptr) name = op_name(op).data();
  detail::check_defined(name, {&a});
  Shape mask = reduce_mask(dims, a.dim(), all, name);
  Shape kept_sizes = a.sizes();
  Shape final_sizes;
  int64_t reduced_count = 1;
  for (int64_t i = 0; i < a.dim(); ++i) {
    if (mask[i]) {
      // Saturates: a product past int64 only happens when another dim is 0 (the output is
      // empty), and then only "is it 0" matters.
      if (__builtin_mul_overflow(reduced_count, a.sizes()[i], &reduced_count))
        reduced_count = std::numeric_limits<int64_t>::max();
      kept_sizes[i] = 1;
      if (keepdim) final_sizes.push_back(1);
    } else {
      final_sizes.push_back(a.sizes()[i]);
    }
  }
  Dtype dtype = a.dtype();
  if (op == OpId::sum && !is_floating(dtype)) dtype = kInt64;
  if (op == OpId::mean) {
    WICK_CHECK(is_floating(dtype), DtypeError, name,
               "could not infer output dtype: input must be floating point, got ", describe(a));
  }
  if (op == OpId::max || op == OpId::min) {
    WICK_CHECK(reduced_count > 0, IndexError, name, "cannot reduce over a zero-size dim of ",
               describe(a), " (the operation has no identity)");
  }
  Tensor input = a.detach();
  if (input.dtype() != dtype) input = input.to(dtype);
  Shape kernel_mask = mask;
  const Shape keepdim_sizes = kept_sizes;
  // Every dim reduced, values only, over a dense tensor that is not row-major (x.t().sum(),
  // or the sum of a result laid out like x.t()): the kernel walks its memory in order as one
  // dim, as PyTorch does. Walked in row-major order, each step of a [1024, 1024] float32 went a
  // row further, and x.t().mean() took 77x libtorch's time. The sum is then added in memory
  // order, which is fixed for a given layout (thread count still changes nothing).
  if (!want_indices && input.dim() > 1 && reduced_count == input.numel() && input.numel() > 0 &&
      !input.is_contiguous() &&
      detail::is_non_overlapping_and_dense(input.sizes(), input.strides())) {
    input = detail::make_view(input, {input.numel()}, {1}, input.storage_offset());
    kept_sizes = {1};
    kernel_mask = {1};
  }
  Reduced r;
  r.values = detail::make_empty(kept_sizes, dtype, a.device(), name);
  if (want_indices) r.indices = detail::make_empty(kept_sizes, kInt64, a.device(), name);
  OpCall call;
  call.op = op;
  call.inputs[0] = &input;
  call.num_inputs = 1;
  call.outputs[0] = &r.values;
  call.outputs[1] = &r.indices;
  call.num_outputs = want_indices ? 2 : 1;
  call.ints = kernel_mask;
  if (r.values.numel() > 0) run_kernel(call, a.device());
  call.ints = mask;
  if (kept_sizes.size() != keepdim_sizes.size()) {  // walked as one dim: back to a.dim() dims
    r.values =
        detail::make_view(r.values, keepdim_sizes, detail::contiguous_strides(keepdim_sizes), 0);
  }
  if (!keepdim) {
    Shape strides = detail::contiguous_strides(final_sizes);
    r.values = detail::make_view(r.values, final_sizes, strides, 0);
    if (want_indices) r.indices = detail::make_view(r.indices, final_sizes, strides, 0);
  }
  call.inputs[0] = &a;
  call.outputs[0] = &r.values;
  call.outputs[1] = &r.indices;
  call.keepdim = keepdim;
  call.over_all = all;
  detail::maybe_record(call);
  return r;
}

Tensor flat(const Tensor& a) { return a.detach().reshape({-1}); }

// argmax and argmin refuse bool, as PyTorch does (max and min over a dim take it).
const Tensor& no_bool(const Tensor& a, const char* op) {
  WICK_CHECK(a.dtype() != kBool, DtypeError, op, "does not take bool tensors (as PyTorch), got ",
             describe(a));
  return a;
}

}  // namespace

Tensor sum(const Tensor& a) { return reduce(OpId::sum, a, {}, true, false, false).values; }
Tensor sum(const Tensor& a, int64_t dim, bool keepdim) {
  return reduce(OpId::sum, a, {dim}, false, keepdim, false).values;
}
Tensor sum(const Tensor& a, const Shape& dims, bool keepdim) {
  return reduce(OpId::sum, a, dims, dims.empty(), keepdim, false).values;
}
Tensor mean(const Tensor& a) { return reduce(OpId::mean, a, {}, true, false, false).values; }
Tensor mean(const Tensor& a, int64_t dim, bool keepdim) {
  return reduce(OpId::mean, a, {dim}, false, keepdim, false).values;
}
Tensor mean(const Tensor& a, const Shape& dims, bool keepdim) {
  return reduce(OpId::mean, a, dims, dims.empty(), keepdim, false).values;
}
namespace {
// var, and std's variance: `name` is the op that errors name.
Tensor variance(const Tensor& a, const Shape& dims, bool unbiased, bool keepdim, const char* name) {
  detail::check_defined(name, {&a});
  WICK_CHECK(is_floating(a.dtype()), DtypeError, name, "takes floating tensors (as PyTorch), got ",
             describe(a));
  detail::check_reduce_dims(a, dims, name);
  // The squares are in a's dtype (their sum accumulates in double): float32 deviations beyond
  // 1.8e19 overflow (std of [1e20, -1e20, 3e20] is inf where PyTorch's Welford in double gives
  // 2e20) and below 1e-23 underflow. Computing in float64 would fix that but took 2.7x the time
  // of a BatchNorm2d-shaped var ([64, 64, 32, 32] over 0, 2, 3: 9.9 ms against 3.7), which
  // batch_norm and group_norm pay every step; the range is documented instead.
  const Tensor centre = mean(a, dims, /*keepdim=*/true);
  const Tensor deviation = a - centre;
  const Tensor squares = sum(deviation * deviation, dims, keepdim);
  // The count of each reduced group: the input's elements over the groups'.
  const int64_t n = centre.numel() == 0 ? 0 : a.numel() / centre.numel();
  const int64_t divisor = std::max<int64_t>(n - (unbiased ? 1 : 0), 0);
  return squares / static_cast<double>(divisor);
}
}  // namespace

Tensor var(const Tensor& a, const Shape& dims, bool unbiased, bool keepdim) {
  return variance(a, dims, unbiased, keepdim, "var");
}
// sqrt's derivative is infinite at 0, and a constant group's variance has a zero gradient: their
// product would be NaN. As PyTorch's std_backward, such a group's gradient is 0: the sqrt sees 1
// there (its branch is not chosen) and the variance passes through with its own zero gradient.
Tensor std(const Tensor& a, const Shape& dims, bool unbiased, bool keepdim) {
  const Tensor v = variance(a, dims, unbiased, keepdim, "std");
  const Tensor positive = gt(v, 0);
  return where(positive, sqrt(where(positive, v, 1.0)), v);
}

Tensor max(const Tensor& a) { return reduce(OpId::max, a, {}, true, false, false).values; }
Tensor min(const Tensor& a) { return reduce(OpId::min, a, {}, true, false, false).values; }
std::tuple<Tensor, Tensor> max(const Tensor& a, int64_t dim, bool keepdim) {
  Reduced r = reduce(OpId::max, a, {dim}, false, keepdim, true);
  return {r.values, r.indices};
}
std::tuple<Tensor, Tensor> min(const Tensor& a, int64_t dim, bool keepdim) {
  Reduced r = reduce(OpId::min, a, {dim}, false, keepdim, true);
  return {r.values, r.indices};
}
Tensor amax(const Tensor& a, int64_t dim, bool keepdim) {
  return reduce(OpId::max, a, {dim}, false, keepdim, false, "amax").values;
}
Tensor amin(const Tensor& a, int64_t dim, bool keepdim) {
  return reduce(OpId::min, a, {dim}, false, keepdim, false, "amin").values;
}
namespace {
// amax/amin over no named dims reduce over every dim, but listed, not as max() over all: their
// gradient is then amax's over several dims (a NaN result gives NaN everywhere, as PyTorch's
// amax), not max()'s, which shares it among NaNs (a review found the two mixed).
Shape every_dim_if_none(const Tensor& a, const Shape& dims) {
  if (!dims.empty()) return dims;
  Shape all;
  for (int64_t d = 0; d < a.dim(); ++d) all.push_back(d);
  return all;
}
}  // namespace
Tensor amax(const Tensor& a, const Shape& dims, bool keepdim) {
  detail::check_defined("amax", {&a});
  const Shape reduced = every_dim_if_none(a, dims);
  return reduce(OpId::max, a, reduced, reduced.empty(), keepdim, false, "amax").values;
}
Tensor amin(const Tensor& a, const Shape& dims, bool keepdim) {
  detail::check_defined("amin", {&a});
  const Shape reduced = every_dim_if_none(a, dims);
  return reduce(OpId::min, a, reduced, reduced.empty(), keepdim, false, "amin").values;
}
// log(sum(exp(a))) with the largest element m taken out first, so that exp cannot overflow:
// log(sum(exp(a - m))) + m, as PyTorch's. An infinite m is replaced by 0 (a row of -inf gives
// -inf, a row with +inf gives +inf, not NaN from inf - inf); m is a constant for autograd, whose
// gradient through the rest is softmax(a) * g. Integers and bool compute in float32.
Tensor logsumexp(const Tensor& a, const Shape& dims, bool keepdim) {
  detail::check_defined("logsumexp", {&a});
  const Tensor x = is_floating(a.dtype()) ? a : a.to(kFloat32);
  detail::check_reduce_dims(x, dims, "logsumexp");
  // Nothing reduced over (a zero-size dim): the sum of no exps is 0, its log -inf, as PyTorch;
  // max would refuse it.
  if (x.numel() == 0) return log(sum(exp(x), dims, keepdim));
  Tensor m = amax(x.detach(), dims, /*keepdim=*/true);
  m = where(isinf(m), scalar_tensor(0, m.options()), m);
  const Tensor total = log(sum(exp(x - m), dims, keepdim));
  // m has size 1 in the reduced dims; summing over them drops them, exactly.
  return total + (keepdim ? m : sum(m, dims, false));
}
Tensor logsumexp(const Tensor& a, int64_t dim, bool keepdim) {
  return logsumexp(a, Shape{dim}, keepdim);
}
Tensor argmax(const Tensor& a) {
  return reduce(OpId::max, flat(no_bool(a, "argmax")), {0}, false, false, true, "argmax").indices;
}
Tensor argmax(const Tensor& a, int64_t dim, bool keepdim) {
  return reduce(OpId::max, no_bool(a, "argmax").detach(), {dim}, false, keepdim, true, "argmax")
      .indices;
}
Tensor argmin(const Tensor& a) {
  return reduce(OpId::min, flat(no_bool(a, "argmin")), {0}, false, false, true, "argmin").indices;
}
Tensor argmin(const Tensor& a, int64_t dim, bool keepdim) {
  return reduce(OpId::min, no_bool(a, "argmin").detach(), {dim}, false, keepdim, true, "argmin")
      .indices;
}

Tensor Tensor::sum() const { return wick::sum(*this); }
Tensor Tensor::sum(int64_t d, bool k) const { return wick::sum(*this, d, k); }
Tensor Tensor::sum(const Shape& d, bool k) const { return wick::sum(*this, d, k); }
Tensor Tensor::mean() const { return wick::mean(*this); }
Tensor Tensor::mean(int64_t d, bool k) const { return wick::mean(*this, d, k); }
Tensor Tensor::mean(const Shape& d, bool k) const { return wick::mean(*this, d, k); }
Tensor Tensor::var(const Shape& d, bool u, bool k) const { return wick::var(*this, d, u, k); }
Tensor Tensor::std(const Shape& d, bool u, bool k) const { return wick::std(*this, d, u, k); }
Tensor Tensor::max() const { return wick::max(*this); }
std::tuple<Tensor, Tensor> Tensor::max(int64_t d, bool k) const { return wick::max(*this, d, k); }
Tensor Tensor::min() const { return wick::min(*this); }
std::tuple<Tensor, Tensor> Tensor::min(int64_t d, bool k) const { return wick::min(*this, d, k); }
Tensor Tensor::amax(int64_t d, bool k) const { return wick::amax(*this, d, k); }
Tensor Tensor::logsumexp(int64_t d, bool k) const { return wick::logsumexp(*this, d, k); }
Tensor Tensor::logsumexp(const Shape& d, bool k) const { return wick::logsumexp(*this, d, k); }
Tensor Tensor::amin(int64_t d, bool k) const { return wick::amin(*this, d, k); }
Tensor Tensor::amax(const Shape& d, bool k) const { return wick::amax(*this, d, k); }
Tensor Tensor::amin(const Shape& d, bool k) const { return wick::amin(*this, d, k); }
Tensor Tensor::argmax() const { return wick::argmax(*this); }
Tensor Tensor::argmax(int64_t d, bool k) const { return wick::argmax(*this, d, k); }
Tensor Tensor::argmin() const { return wick::argmin(*this); }
Tensor Tensor::argmin(int64_t d, bool k) const { return wick::argmin(*this, d, k); }

}  // namespace wick
