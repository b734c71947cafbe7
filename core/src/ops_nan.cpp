// ops_nan.cpp: nansum, nanmean, nan_to_num, count_nonzero, isclose and allclose: arrangements
// of where, isnan, sum and the comparisons, so both devices and autograd come with those ops.
// Checked here with the op's name and PyTorch 1.13's dtype rules.
#include <cmath>
#include <limits>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// NaNs replaced by 0 (a floating tensor; others have no NaN and pass through).
Tensor zero_nans(const Tensor& a) { return is_floating(a.dtype()) ? where(isnan(a), 0.0, a) : a; }

// The count of non-NaN elements over dims (all when empty), in a's floating dtype.
Tensor count_not_nan(const Tensor& a, const Shape& dims, bool keepdim) {
  const Tensor present = logical_not(isnan(a)).to(a.dtype());
  return dims.empty() && !keepdim ? sum(present) : sum(present, dims, keepdim);
}

void check_nanmean(const Tensor& a) {
  detail::check_defined("nanmean", {&a});
  WICK_CHECK(is_floating(a.dtype()), DtypeError, "nanmean", "needs a floating input, got ",
             describe(a));
}

// The largest finite value of a floating dtype (nan_to_num's default for +inf).
double largest(Dtype d) {
  switch (d) {
    case kFloat64:
      return std::numeric_limits<double>::max();
    case kBFloat16:
      return 3.3895313892515355e38;  // 0x7f7f
    default:
      return std::numeric_limits<float>::max();
  }
}

// isclose's and allclose's operands, checked under the caller's name: one dtype and device,
// shapes that broadcast, rtol and atol >= 0.
void check_close_operands(const char* name, const Tensor& a, const Tensor& b, double rtol,
                          double atol) {
  detail::check_defined(name, {&a, &b});
  detail::check_same_device(name, {&a, &b});
  WICK_CHECK(a.dtype() == b.dtype(), DtypeError, name, "needs one dtype, got ", describe(a),
             " and ", describe(b));
  WICK_CHECK(rtol >= 0 && atol >= 0, ValueError, name, "rtol and atol must be >= 0, got rtol ",
             rtol, " and atol ", atol);
  broadcast_shapes(a.sizes(), b.sizes());  // a ShapeError naming both when they don't broadcast
}

}  // namespace

Tensor nansum(const Tensor& a) {
  detail::check_defined("nansum", {&a});
  return sum(zero_nans(a));
}
Tensor nansum(const Tensor& a, const Shape& dims, bool keepdim) {
  detail::check_defined("nansum", {&a});
  detail::check_reduce_dims(a, dims, "nansum");
  return sum(zero_nans(a), dims, keepdim);
}

Tensor nanmean(const Tensor& a) {
  check_nanmean(a);
  return sum(zero_nans(a)) / count_not_nan(a, {}, false);
}
Tensor nanmean(const Tensor& a, const Shape& dims, bool keepdim) {
  check_nanmean(a);
  detail::check_reduce_dims(a, dims, "nanmean");
  return sum(zero_nans(a), dims, keepdim) / count_not_nan(a, dims, keepdim);
}

Tensor nan_to_num(const Tensor& a, double nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  detail::check_defined("nan_to_num", {&a});
  if (!is_floating(a.dtype())) return a.clone();  // as PyTorch: integers and bool are copied
  const double high = posinf.value_or(largest(a.dtype()));
  const double low = neginf.value_or(-largest(a.dtype()));
  const double inf = std::numeric_limits<double>::infinity();
  Tensor out = where(eq(a, inf), high, a);
  out = where(eq(a, -inf), low, out);
  return where(isnan(a), nan, out);
}

Tensor count_nonzero(const Tensor& a) {
  detail::check_defined("count_nonzero", {&a});
  return sum(ne(a, 0));
}
Tensor count_nonzero(const Tensor& a, const Shape& dims) {
  detail::check_defined("count_nonzero", {&a});
  detail::check_reduce_dims(a, dims, "count_nonzero");
  return sum(ne(a, 0), dims, false);
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  check_close_operands("isclose", a, b, rtol, atol);
  if (a.dtype() == kBool) return eq(a, b);
  // |a - b| <= atol + rtol |b| in float64 (exact for int64 differences up to 2^53, and no
  // wrap-around); equal values (infinities included) are close; an infinite difference never.
  const Tensor x = a.to(kFloat64), y = b.to(kFloat64);
  const Tensor difference = abs(x - y);
  const Tensor within = logical_and(isfinite(difference), le(difference, abs(y) * rtol + atol));
  Tensor close = logical_or(eq(x, y), within);
  if (equal_nan) close = logical_or(close, logical_and(isnan(x), isnan(y)));
  return close;
}

// As torch.allclose (equal_nan false): one dtype, broadcasting, isclose everywhere.
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  check_close_operands("allclose", a, b, rtol, atol);
  return all(isclose(a, b, rtol, atol, false)).to(kCPU).item<bool>();
}

Tensor Tensor::nansum() const { return wick::nansum(*this); }
Tensor Tensor::nansum(const Shape& dims, bool keepdim) const {
  return wick::nansum(*this, dims, keepdim);
}
Tensor Tensor::nanmean() const { return wick::nanmean(*this); }
Tensor Tensor::nanmean(const Shape& dims, bool keepdim) const {
  return wick::nanmean(*this, dims, keepdim);
}
Tensor Tensor::nan_to_num(double nan, std::optional<double> posinf,
                          std::optional<double> neginf) const {
  return wick::nan_to_num(*this, nan, posinf, neginf);
}
Tensor Tensor::count_nonzero() const { return wick::count_nonzero(*this); }
Tensor Tensor::isclose(const Tensor& other, double rtol, double atol, bool equal_nan) const {
  return wick::isclose(*this, other, rtol, atol, equal_nan);
}

}  // namespace wick
