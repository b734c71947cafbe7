// ops_logical.cpp: tests of values (isnan, isinf, isfinite), logical ops, any and all,
// masked_fill, and tril and triu. Each is a short arrangement of other ops (comparisons, sum,
// where), as PyTorch users write them by hand: no kernel of their own, so they run on every
// device, and autograd records the ops they are made of (masked_fill, tril and triu pass the
// gradient where they keep the input, through where's rule).
#include <algorithm>
#include <limits>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// The broadcast shape of a and b, or a ShapeError naming op (broadcast_shapes would name
// itself).
Shape broadcast_for(const char* op, const Tensor& a, const Tensor& b) {
  detail::check_defined(op, {&a, &b});
  detail::check_same_device(op, {&a, &b});
  try {
    return broadcast_shapes(a.sizes(), b.sizes());
  } catch (const ShapeError&) {
    detail::fail<ShapeError>(op, "the shapes do not broadcast: ", describe(a), " and ",
                             describe(b));
  }
}

// x != 0 as bool (NaN is true, as PyTorch's truth of a number), without history.
Tensor truth(const Tensor& x) { return x.dtype() == kBool ? x.detach() : ne(x.detach(), 0); }

Tensor none_of(const Tensor& x) {
  return zeros(x.sizes(), TensorOptions(kBool).device(x.device()));
}

}  // namespace

Tensor isnan(const Tensor& a) {
  detail::check_defined("isnan", {&a});
  return is_floating(a.dtype()) ? ne(a.detach(), a.detach()) : none_of(a);
}
Tensor isinf(const Tensor& a) {
  detail::check_defined("isinf", {&a});
  return is_floating(a.dtype()) ? eq(abs(a.detach()), std::numeric_limits<double>::infinity())
                                : none_of(a);
}
Tensor isfinite(const Tensor& a) {
  detail::check_defined("isfinite", {&a});
  // NaN fails the compare, so it is not finite either.
  if (!is_floating(a.dtype())) return ones(a.sizes(), TensorOptions(kBool).device(a.device()));
  return lt(abs(a.detach()), std::numeric_limits<double>::infinity());
}

Tensor logical_not(const Tensor& a) {
  detail::check_defined("logical_not", {&a});
  return a.dtype() == kBool ? eq(a.detach(), false) : eq(a.detach(), 0);
}
Tensor logical_and(const Tensor& a, const Tensor& b) {
  broadcast_for("logical_and", a, b);
  return mul(truth(a), truth(b));  // bool * bool is and
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  broadcast_for("logical_or", a, b);
  return add(truth(a), truth(b));  // bool + bool is or
}
Tensor logical_xor(const Tensor& a, const Tensor& b) {
  broadcast_for("logical_xor", a, b);
  return ne(truth(a), truth(b));
}

// any: some element is nonzero; all: none is zero. Counted with sum, whose identity (0) gives
// PyTorch's answers for empty tensors: any is false, all is true. The result is bool.
Tensor any(const Tensor& a) {
  detail::check_defined("any", {&a});
  return gt(sum(truth(a)), 0);
}
Tensor any(const Tensor& a, int64_t dim, bool keepdim) {
  detail::check_defined("any", {&a});
  detail::check_reduce_dims(a, {dim}, "any");
  return gt(sum(truth(a), dim, keepdim), 0);
}
Tensor all(const Tensor& a) {
  detail::check_defined("all", {&a});
  return eq(sum(logical_not(a)), 0);
}
Tensor all(const Tensor& a, int64_t dim, bool keepdim) {
  detail::check_defined("all", {&a});
  detail::check_reduce_dims(a, {dim}, "all");
  return eq(sum(logical_not(a), dim, keepdim), 0);
}

Tensor masked_fill(const Tensor& a, const Tensor& mask, const Scalar& value) {
  broadcast_for("masked_fill", a, mask);
  WICK_CHECK(mask.dtype() == kBool, DtypeError, "masked_fill",
             "the mask must be a bool tensor, got ", describe(mask), " (for ", describe(a), ")");
  detail::check_value_fits(value, a.dtype(), "masked_fill", a);
  // The value in a's dtype (as PyTorch's fill: 1.5 into int64 is 1), so where keeps a's dtype.
  return where(mask, scalar_tensor(value, a.options().requires_grad(false)), a);
}
Tensor masked_fill(const Tensor& a, const Tensor& mask, const Tensor& value) {
  detail::check_defined("masked_fill", {&a, &mask, &value});
  WICK_CHECK(value.dim() == 0, ShapeError, "masked_fill", "the value must be a 0-d tensor, got ",
             describe(value));
  detail::check_same_device("masked_fill", {&a, &value});
  // As PyTorch: the value's gradient is the sum of the gradient where the mask holds.
  broadcast_for("masked_fill", a, mask);
  WICK_CHECK(mask.dtype() == kBool, DtypeError, "masked_fill",
             "the mask must be a bool tensor, got ", describe(mask), " (for ", describe(a), ")");
  return where(mask, value.to(a.dtype()), a);
}

namespace {
// The [rows, cols] bool mask of (col - row) <= k (tril) or >= k (triu), on a's device, for the
// last two dims of a.
Tensor triangle(const char* op, const Tensor& a, int64_t k, bool lower) {
  detail::check_defined(op, {&a});
  WICK_CHECK(a.dim() >= 2, ShapeError, op, "needs a tensor of at least 2 dims, got ", describe(a));
  const int64_t rows = a.size(-2), cols = a.size(-1);
  const TensorOptions ints = TensorOptions(kInt64).device(a.device());
  // col - row <= k as col <= row + k: [1, cols] against [rows, 1], compared as they broadcast,
  // so only the bool mask is [rows, cols] (an int64 offset tensor first took 8 bytes more per
  // element: 1.29 against 1.11 ms for libtorch's tril of [1024, 1024]).
  // Past these bounds every element (or none) is kept anyway; inside them row + k cannot
  // overflow.
  k = std::clamp<int64_t>(k, -rows - 1, cols + 1);
  const Tensor col = arange(cols, ints).unsqueeze(0);
  const Tensor row_plus_k = (arange(rows, ints) + k).unsqueeze(1);
  const Tensor keep = lower ? le(col, row_plus_k) : ge(col, row_plus_k);
  return where(keep, a, scalar_tensor(0, a.options().requires_grad(false)));
}
}  // namespace

Tensor tril(const Tensor& a, int64_t diagonal) { return triangle("tril", a, diagonal, true); }
Tensor triu(const Tensor& a, int64_t diagonal) { return triangle("triu", a, diagonal, false); }

Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return wick::masked_fill(*this, mask, value);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  return wick::masked_fill(*this, mask, value);
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) {
  detail::check_defined("masked_fill_", {this});
  detail::check_inplace_target(*this, "masked_fill_", true);
  // In place, the mask must broadcast to self's shape without growing it.
  const Shape sizes = broadcast_for("masked_fill_", *this, mask);
  WICK_CHECK(sizes == this->sizes(), ShapeError, "masked_fill_", "the mask ", describe(mask),
             " does not broadcast to the shape of ", describe(*this));
  return copy_(wick::masked_fill(*this, mask, value));
}
Tensor Tensor::tril(int64_t diagonal) const { return wick::tril(*this, diagonal); }
Tensor Tensor::triu(int64_t diagonal) const { return wick::triu(*this, diagonal); }
Tensor Tensor::isnan() const { return wick::isnan(*this); }
Tensor Tensor::isinf() const { return wick::isinf(*this); }
Tensor Tensor::isfinite() const { return wick::isfinite(*this); }
Tensor Tensor::logical_not() const { return wick::logical_not(*this); }
Tensor Tensor::any() const { return wick::any(*this); }
Tensor Tensor::all() const { return wick::all(*this); }
Tensor Tensor::any(int64_t dim, bool keepdim) const { return wick::any(*this, dim, keepdim); }
Tensor Tensor::all(int64_t dim, bool keepdim) const { return wick::all(*this, dim, keepdim); }

}  // namespace wick
