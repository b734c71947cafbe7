// ops_numeric.cpp: the numeric functions of ops_numeric.hpp, each a few ops in PyTorch 1.13's
// order (so float32 results round as there): clamp, addmm, mm and sums for cov, mul by a
// rounded constant for the angle conversions, sin over pi x for sinc, pow in float64 for
// float_power, the trapezoidal rule from narrows and sums, amin and amax for aminmax.
#include <cmath>
#include <limits>
#include <numbers>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// Integers and bool as float32 (the default float), as PyTorch's functions that need one.
Tensor as_floating(const Tensor& a) { return is_floating(a.dtype()) ? a : a.to(kDefaultFloat); }

// The running or total trapezoid sums of y along d with spacings dx (a tensor broadcasting
// against the intervals, or a number).
Tensor trapezoid_terms(const Tensor& y, int64_t d) {
  const int64_t n = y.size(d);
  return y.narrow(d, 0, n - 1) + y.narrow(d, 1, n - 1);
}
Tensor spacing_along(const Tensor& y, const Tensor& x, int64_t d, const char* name) {
  detail::check_defined(name, {&x});
  detail::check_same_device(name, {&y, &x});
  if (x.dim() == 1) {
    WICK_CHECK(x.size(0) == y.size(d), ShapeError, name, "a 1-D x must have y's size along dim ", d,
               ", got ", describe(x), " for ", describe(y));
    Shape sizes = Shape::filled(static_cast<size_t>(y.dim()), 1);
    sizes[static_cast<size_t>(d)] = x.size(0) - 1;
    return diff(x).view(sizes);
  }
  WICK_CHECK(x.dim() == y.dim(), ShapeError, name, "x must be 1-D or have y's dims, got ",
             describe(x), " for ", describe(y));
  return diff(x, 1, d);
}
int64_t trapezoid_dim(const Tensor& y, int64_t dim, const char* name) {
  detail::check_defined(name, {&y});
  WICK_CHECK(y.dim() > 0, ShapeError, name, "needs at least 1 dim, got ", describe(y));
  return detail::wrap_dim(dim, y.dim(), name);
}
Tensor zeros_without(const Tensor& y, int64_t d) {
  Shape sizes = y.sizes();
  sizes.erase(static_cast<size_t>(d));
  return zeros(sizes, TensorOptions(y.dtype()).device(y.device()));
}

}  // namespace

Tensor clip(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max) {
  return clamp(a, min, max);
}

Tensor addmv(const Tensor& c, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha) {
  const char* name = "addmv";
  detail::check_defined(name, {&c, &mat, &vec});
  WICK_CHECK(mat.dim() == 2 && vec.dim() == 1 && mat.size(1) == vec.size(0), ShapeError, name,
             "needs an [n, m] matrix and an [m] vector, got ", describe(mat), " and ",
             describe(vec));
  return detail::add_scaled_product(name, c, matmul(mat, vec), beta, alpha, /*same_dtype=*/false,
                                    /*exact_integer_scalars=*/false);
}

Tensor addr(const Tensor& c, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
            const Scalar& alpha) {
  const char* name = "addr";
  detail::check_defined(name, {&c, &vec1, &vec2});
  WICK_CHECK(vec1.dim() == 1 && vec2.dim() == 1, ShapeError, name, "needs two 1-D vectors, got ",
             describe(vec1), " and ", describe(vec2));
  return detail::add_scaled_product(name, c, matmul(vec1.unsqueeze(1), vec2.unsqueeze(0)), beta,
                                    alpha, /*same_dtype=*/false, /*exact_integer_scalars=*/true);
}

Tensor cov(const Tensor& a, int64_t correction, const std::optional<Tensor>& fweights,
           const std::optional<Tensor>& aweights) {
  const char* name = "cov";
  detail::check_defined(name, {&a});
  WICK_CHECK(a.dim() <= 2, ShapeError, name, "expects a tensor of at most 2 dims, got ",
             describe(a));
  const Tensor x = as_floating(a.dim() < 2 ? a.reshape({1, a.numel()}) : a);
  const int64_t observations = x.size(1);
  Tensor w, aw;  // each observation's weight (when any is given), and its aweight
  if (fweights) {
    detail::check_defined(name, {&*fweights});
    detail::check_same_device(name, {&a, &*fweights});
    WICK_CHECK(fweights->dim() <= 1 && fweights->numel() == observations, ShapeError, name,
               "fweights must be 1-D with one weight per observation (", observations, "), got ",
               describe(*fweights));
    WICK_CHECK(fweights->dtype() == kInt64, DtypeError, name, "fweights must be int64, got ",
               describe(*fweights));
    WICK_CHECK(observations == 0 || fweights->min().item<int64_t>() >= 0, ValueError, name,
               "fweights cannot be negative");
    w = fweights->reshape({observations});
  }
  if (aweights) {
    detail::check_defined(name, {&*aweights});
    detail::check_same_device(name, {&a, &*aweights});
    WICK_CHECK(aweights->dim() <= 1 && aweights->numel() == observations, ShapeError, name,
               "aweights must be 1-D with one weight per observation (", observations, "), got ",
               describe(*aweights));
    WICK_CHECK(is_floating(aweights->dtype()), DtypeError, name, "aweights must be floating, got ",
               describe(*aweights));
    WICK_CHECK(observations == 0 || aweights->min().item<double>() >= 0, ValueError, name,
               "aweights cannot be negative");
    aw = aweights->reshape({observations});
    w = w.defined() ? w * aw : aw;
  }
  // PyTorch's formula: the weighted mean, then the total weight less the correction (scaled
  // by the observation weights' own weighted mean when they are given).
  const Tensor w_sum = w.defined() ? w.sum() : full({}, observations, TensorOptions(x.dtype()));
  const Tensor mean = w.defined() ? (x * w).sum(1) / w_sum : x.mean(1);
  // Observation weights scale the correction by their weighted mean; otherwise it comes off as is.
  const Tensor kept = aweights && correction != 0 ? w_sum - (w * aw).sum() * correction / w_sum
                                                  : w_sum - correction;
  const Tensor norm_factor = clamp_min(kept.to(x.dtype()).to(x.device()), 0);  // none left: inf/NaN
  const Tensor centred = x - mean.unsqueeze(1);
  const Tensor product = matmul(centred, (w.defined() ? centred * w : centred).t());
  return (product / norm_factor).squeeze();
}

Tensor corrcoef(const Tensor& a) {
  const Tensor c = cov(a);
  if (c.dim() == 0) return c / c;  // one variable: 1, or NaN for a constant one
  const Tensor stddev = sqrt(diag(c));
  return clamp(c / stddev.unsqueeze(1) / stddev.unsqueeze(0), -1, 1);
}

Tensor deg2rad(const Tensor& a) {
  detail::check_defined("deg2rad", {&a});
  return as_floating(a) * (std::numbers::pi / 180.0);
}
Tensor rad2deg(const Tensor& a) {
  detail::check_defined("rad2deg", {&a});
  return as_floating(a) * (180.0 / std::numbers::pi);
}
Tensor sinc(const Tensor& a) {
  detail::check_defined("sinc", {&a});
  // bfloat16 through float32, rounded once at the end.
  const Tensor x = a.dtype() == kBFloat16 ? a.to(kFloat32) : as_floating(a);
  // sin(t) / t with t = pi x, except for |t| < 1/2: there its Taylor series to t^12 (the first
  // term left out is below 5e-17), whose gradient has no cancellation (the quotient's two
  // terms of size 1 / t cancel to -pi^2 x / 3: -5.5e13 instead of 0 at x = 1e-30). Each
  // branch sees an argument that keeps it finite, so that the branch where() drops gives no
  // NaN gradient.
  const Tensor t = x * std::numbers::pi;
  const Tensor small = lt(abs(t.detach()), 0.5);
  const Tensor ts = where(small, t, Scalar(0.0)), tq = where(small, Scalar(1.0), t);
  const Tensor u = ts * ts;
  Tensor series = full({}, 1.0 / 6227020800.0, TensorOptions(x.dtype()).device(x.device()));
  for (double c : {-1.0 / 39916800.0, 1.0 / 362880.0, -1.0 / 5040.0, 1.0 / 120.0, -1.0 / 6.0}) {
    series = series * u + c;
  }
  series = series * u + 1.0;
  const Tensor result = where(small, series, sin(tq) / tq);
  return a.dtype() == kBFloat16 ? result.to(kBFloat16) : result;
}

Tensor float_power(const Tensor& a, const Tensor& b) {
  detail::check_defined("float_power", {&a, &b});
  return pow(a.to(kFloat64), b.to(kFloat64));
}
Tensor float_power(const Tensor& a, const Scalar& b) {
  detail::check_defined("float_power", {&a});
  return pow(a.to(kFloat64), full({}, b, TensorOptions(kFloat64).device(a.device())));
}
Tensor float_power(const Scalar& a, const Tensor& b) {
  detail::check_defined("float_power", {&b});
  return pow(full({}, a, TensorOptions(kFloat64).device(b.device())), b.to(kFloat64));
}

Tensor ldexp(const Tensor& a, const Tensor& b) {
  detail::check_defined("ldexp", {&a, &b});
  return a * pow(Scalar(2.0), b);
}

std::tuple<Tensor, Tensor> frexp(const Tensor& a) {
  const char* name = "frexp";
  detail::check_defined(name, {&a});
  WICK_CHECK(is_floating(a.dtype()), DtypeError, name,
             "only supports floating-point dtypes (as PyTorch), got ", describe(a));
  // bfloat16 values are float32 values, and their mantissas too: computed there, exactly.
  const Tensor x = a.dtype() == kBFloat16 ? a.to(kFloat32) : a;
  const Tensor magnitude = abs(x.detach());
  const Tensor regular = logical_and(isfinite(magnitude), ne(magnitude, 0));
  // v * 2^-e in two exact power-of-two steps: 2^-e alone overflows for a subnormal's e (-1073).
  const auto scaled = [](const Tensor& v, const Tensor& e) {
    const Tensor half = trunc(e / 2);
    return v * exp2(-half) * exp2(half - e);
  };
  // floor(log2 |x|) + 1, then one step either way where log2 rounded across an integer.
  Tensor e = where(regular, floor(log2(where(regular, magnitude, 1.0))) + 1, 0.0);
  const Tensor m = scaled(magnitude, e);
  e = e + where(logical_and(regular, ge(m, 1.0)), 1.0, 0.0) -
      where(logical_and(regular, lt(m, 0.5)), 1.0, 0.0);
  // 0, inf and NaN have e = 0: x * 1 * 1 gives them back (the sign of 0 included).
  const Tensor mantissa = scaled(x, e);
  return {a.dtype() == kBFloat16 ? mantissa.to(kBFloat16) : mantissa, e.to(kInt64)};
}

Tensor isposinf(const Tensor& a) {
  detail::check_defined("isposinf", {&a});
  if (!is_floating(a.dtype())) return zeros(a.sizes(), TensorOptions(kBool).device(a.device()));
  return eq(a.detach(), std::numeric_limits<double>::infinity());
}
Tensor isneginf(const Tensor& a) {
  detail::check_defined("isneginf", {&a});
  if (!is_floating(a.dtype())) return zeros(a.sizes(), TensorOptions(kBool).device(a.device()));
  return eq(a.detach(), -std::numeric_limits<double>::infinity());
}
Tensor isreal(const Tensor& a) {
  detail::check_defined("isreal", {&a});
  return ones(a.sizes(), TensorOptions(kBool).device(a.device()));
}

Tensor msort(const Tensor& a) {
  detail::check_defined("msort", {&a});
  return std::get<0>(sort(a, 0));
}

Tensor dist(const Tensor& a, const Tensor& b, double p) {
  detail::check_defined("dist", {&a, &b});
  return norm(a - b, p);
}
Tensor vdot(const Tensor& a, const Tensor& b) { return dot(a, b); }

Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  const char* name = "trapezoid";
  const int64_t d = trapezoid_dim(y, dim, name);
  const Tensor dx = spacing_along(y, x, d, name);
  if (y.size(d) == 0) return zeros_without(as_floating(y), d);
  return (dx * trapezoid_terms(y, d) / 2.0).sum(d);
}
Tensor trapezoid(const Tensor& y, double dx, int64_t dim) {
  const int64_t d = trapezoid_dim(y, dim, "trapezoid");
  const Tensor v = as_floating(y);
  if (y.size(d) == 0) return zeros_without(v, d);
  return (v.sum(d) - (v.select(d, 0) + v.select(d, -1)) * 0.5) * dx;
}
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  const char* name = "cumulative_trapezoid";
  const int64_t d = trapezoid_dim(y, dim, name);
  const Tensor dx = spacing_along(y, x, d, name);
  const Tensor v = as_floating(y);
  if (y.size(d) == 0) return v;
  return cumsum(dx * trapezoid_terms(v, d) / 2.0, d);
}
Tensor cumulative_trapezoid(const Tensor& y, double dx, int64_t dim) {
  const int64_t d = trapezoid_dim(y, dim, "cumulative_trapezoid");
  const Tensor v = as_floating(y);
  if (y.size(d) == 0) return v;
  return cumsum(trapezoid_terms(v, d) * (dx / 2.0), d);
}

std::tuple<Tensor, Tensor> aminmax(const Tensor& a, std::optional<int64_t> dim, bool keepdim) {
  detail::check_defined("aminmax", {&a});
  // Checked here so that the message names aminmax, not amin.
  const bool empty = !dim ? a.numel() == 0
                          : a.dim() > 0 && a.size(detail::wrap_dim(*dim, a.dim(), "aminmax")) == 0;
  WICK_CHECK(!empty, IndexError, "aminmax", "cannot compute over an empty ", dim ? "dim" : "tensor",
             " (no identity): ", describe(a));
  if (!dim) return {amin(a, Shape{}, keepdim), amax(a, Shape{}, keepdim)};
  return {amin(a, *dim, keepdim), amax(a, *dim, keepdim)};
}

Tensor Tensor::clip(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return wick::clip(*this, min, max);
}
Tensor Tensor::deg2rad() const { return wick::deg2rad(*this); }
Tensor Tensor::rad2deg() const { return wick::rad2deg(*this); }
Tensor Tensor::sinc() const { return wick::sinc(*this); }
Tensor Tensor::float_power(const Tensor& e) const { return wick::float_power(*this, e); }
Tensor Tensor::float_power(const Scalar& e) const { return wick::float_power(*this, e); }
Tensor Tensor::logaddexp2(const Tensor& o) const { return wick::logaddexp2(*this, o); }
Tensor Tensor::ldexp(const Tensor& o) const { return wick::ldexp(*this, o); }
std::tuple<Tensor, Tensor> Tensor::frexp() const { return wick::frexp(*this); }
Tensor Tensor::isposinf() const { return wick::isposinf(*this); }
Tensor Tensor::isneginf() const { return wick::isneginf(*this); }
Tensor Tensor::msort() const { return wick::msort(*this); }
Tensor Tensor::dist(const Tensor& o, double p) const { return wick::dist(*this, o, p); }
std::tuple<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  return wick::aminmax(*this, dim, keepdim);
}

}  // namespace wick
