// ops_pointwise.cpp: addcmul and addcdiv (and their in-place forms), logaddexp, logaddexp2, xlogy,
// xlog1py, logit, fmax, fmin, heaviside and frac: arrangements of the elementwise kernels, so both
// devices and autograd come with those ops. Each checks its operands here, with its own name, and
// follows PyTorch 1.13's dtype rules.
#include <cmath>
#include <numbers>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

bool integral_result(const Tensor& a, const Tensor& t1, const Tensor& t2) {
  return !is_floating(detail::result_type_of(a, t1)) &&
         !is_floating(detail::result_type_of(t1, t2));
}

void check_addc(const char* name, const Tensor& a, const Tensor& t1, const Tensor& t2,
                const Scalar& value) {
  detail::check_defined(name, {&a, &t1, &t2});
  detail::check_same_device(name, {&a, &t1, &t2});
  const double v = value.to_double();
  WICK_CHECK(!integral_result(a, t1, t2) || (std::isfinite(v) && v == std::floor(v)), ValueError,
             name, "an integral value is needed for ", detail::describe_all({&a, &t1, &t2}),
             ", got ", v);
}

// value * t1 * t2 as PyTorch's kernel rounds it: (value * t1) * t2.
Tensor scaled_product(const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return value.to_double() == 1.0 ? t1 * t2 : (t1 * value) * t2;
}

void check_addcdiv(const Tensor& a, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  check_addc("addcdiv", a, t1, t2, value);
  WICK_CHECK(is_floating(t1.dtype()) || is_floating(t2.dtype()), DtypeError, "addcdiv",
             "integer division is not supported (as PyTorch 1.13): tensor1 and tensor2 are ",
             describe(t1), " and ", describe(t2), "; use a floating dtype");
}

Tensor scaled_quotient(const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return value.to_double() == 1.0 ? t1 / t2 : (t1 * value) / t2;
}

// a and b promoted to a floating dtype (integers to the default float).
Dtype floating_result(const Tensor& a, const Tensor& b) {
  const Dtype d = detail::result_type_of(a, b);
  return is_floating(d) ? d : kDefaultFloat;
}

}  // namespace

Tensor addcmul(const Tensor& a, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  check_addc("addcmul", a, tensor1, tensor2, value);
  return a + scaled_product(tensor1, tensor2, value);
}

Tensor addcdiv(const Tensor& a, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  check_addcdiv(a, tensor1, tensor2, value);
  return a + scaled_quotient(tensor1, tensor2, value);
}

Tensor& Tensor::addcmul_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  check_addc("addcmul_", *this, tensor1, tensor2, value);
  return add_(scaled_product(tensor1, tensor2, value));
}

Tensor& Tensor::addcdiv_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  check_addcdiv(*this, tensor1, tensor2, value);
  return add_(scaled_quotient(tensor1, tensor2, value));
}

namespace {
// log(e^a + e^b) (base2: log2(2^a + 2^b)) as the larger plus log1p of the smaller's share,
// so that nothing overflows.
Tensor log_add_exp(const Tensor& a, const Tensor& b, bool base2) {
  const char* name = base2 ? "logaddexp2" : "logaddexp";
  detail::check_defined(name, {&a, &b});
  detail::check_same_device(name, {&a, &b});
  const Dtype d = detail::result_type_of(a, b);
  WICK_CHECK(is_floating(d), DtypeError, name, "needs floating inputs, got ", describe(a), " and ",
             describe(b));
  const Tensor x = a.to(d), y = b.to(d);
  const Tensor spread =
      base2 ? log1p(exp2(-abs(x - y))) * (1.0 / std::numbers::ln2) : log1p(exp(-abs(x - y)));
  // Equal infinities: their difference is NaN, and the answer is the infinity itself.
  return where(logical_and(isinf(x), eq(x, y)), x, maximum(x, y) + spread);
}
}  // namespace

Tensor logaddexp(const Tensor& a, const Tensor& b) { return log_add_exp(a, b, false); }
Tensor logaddexp2(const Tensor& a, const Tensor& b) { return log_add_exp(a, b, true); }

namespace {
// torch's xlogy and xlog1py return +0 where x == 0 and y is not NaN, and x * f(y) elsewhere
// (-0 included: xlogy(-2, 1) is -0). The product at x == 0 is +-0, so subtracting its detached
// self there gives +0 and leaves every gradient as the product's.
Tensor zero_where_x_is_zero(const Tensor& x, const Tensor& y, const Tensor& product) {
  const Tensor at_zero = logical_and(eq(x.detach(), 0), logical_not(isnan(y.detach())));
  return product - where(at_zero, product.detach(), 0.0);
}
}  // namespace

Tensor xlogy(const Tensor& a, const Tensor& b) {
  const char* name = "xlogy";
  detail::check_defined(name, {&a, &b});
  detail::check_same_device(name, {&a, &b});
  const Dtype d = floating_result(a, b);
  const Tensor x = a.to(d), y = b.to(d);
  // log(1) where a == 0 and b <= 0 (or b = +inf): the value is 0 there, not 0 * log(b), and
  // so is each gradient; at a == 0 with b > 0 the gradient of a is log(b), as torch's
  // (xlogy(g, b) masked where a == 0 and b <= 0). A NaN b gives NaN through the product. Two
  // points differ from torch, which writes the gradient as a rule: (0, +inf) gives a no
  // gradient (torch: inf) and (0, 0) gives b 0 (torch: 0 / 0, NaN).
  const Tensor replaced =
      logical_and(eq(x.detach(), 0), logical_or(le(y.detach(), 0), eq(y.detach(), INFINITY)));
  return zero_where_x_is_zero(x, y, x * log(where(replaced, 1.0, y)));
}

Tensor xlog1py(const Tensor& a, const Tensor& b) {
  const char* name = "xlog1py";
  detail::check_defined(name, {&a, &b});
  detail::check_same_device(name, {&a, &b});
  const Dtype d = floating_result(a, b);
  const Tensor x = a.to(d), y = b.to(d);
  // xlogy's rule one step along: log1p(0) where a == 0 and b <= -1 (or b = +inf), so the value
  // and each gradient are 0 there; a NaN b gives NaN through the product.
  const Tensor replaced =
      logical_and(eq(x.detach(), 0), logical_or(le(y.detach(), -1), eq(y.detach(), INFINITY)));
  return zero_where_x_is_zero(x, y, x * log1p(where(replaced, 0.0, y)));
}

Tensor logit(const Tensor& a, std::optional<double> eps) {
  detail::check_defined("logit", {&a});
  const Tensor x = is_floating(a.dtype()) ? a : a.to(kDefaultFloat);
  // log(p) - log1p(-p): its gradient 1/p + 1/(1-p) is inf at 0 and 1, as torch's.
  if (eps && *eps >= 0) {  // a negative eps clamps nothing, as torch's
    // Clamped by selects, not clamp: outside [eps, 1 - eps] the gradient is 0, and a NaN keeps
    // its NaN gradient (clamp's select would give it 0), as torch's. The lower bound first,
    // then the upper, as torch's min(max(x, lo), hi): for eps > 1/2 the upper one wins.
    const double lo = *eps, hi = 1.0 - *eps;
    const Tensor raised = where(lt(x.detach(), lo), Scalar(lo), x);
    const Tensor p = where(gt(raised.detach(), hi), Scalar(hi), raised);
    return log(p) - log1p(-p);
  }
  // Outside [0, 1] the value is NaN, and so is the gradient (torch's): x times a constant
  // that is NaN there and 0 inside adds that NaN to both, and nothing inside.
  const Tensor xd = x.detach();
  const Tensor nan_outside =
      where(logical_or(lt(xd, 0), gt(xd, 1)), Scalar(std::nan("")), zeros_like(xd));
  return log(x) - log1p(-x) + x * nan_outside;
}

// fmax and fmin: maximum and minimum that ignore NaN (NaN only where both are). As selects,
// so the gradient is PyTorch's: all of it to a on a tie, none to a NaN that lost.
Tensor fmax(const Tensor& a, const Tensor& b) {
  detail::check_defined("fmax", {&a, &b});
  return where(logical_or(ge(a, b), isnan(b)), a, b);
}
Tensor fmin(const Tensor& a, const Tensor& b) {
  detail::check_defined("fmin", {&a, &b});
  return where(logical_or(le(a, b), isnan(b)), a, b);
}

// heaviside: 0 where a < 0, values where a == 0, 1 where a > 0 (and 0 for NaN, as PyTorch's
// kernel: NaN > 0 is false). a and values broadcast and must share a dtype, as PyTorch's.
Tensor heaviside(const Tensor& a, const Tensor& values) {
  detail::check_defined("heaviside", {&a, &values});
  WICK_CHECK(a.dtype() == values.dtype(), DtypeError, "heaviside",
             "input and values must have one dtype, got ", detail::describe_all({&a, &values}));
  return where(eq(a, 0), values, gt(a, 0).to(a.dtype()));
}

// frac: a - trunc(a), floating only (PyTorch has no integer kernel for it); the gradient is g.
Tensor frac(const Tensor& a) {
  detail::check_defined("frac", {&a});
  WICK_CHECK(is_floating(a.dtype()), DtypeError, "frac", "takes a floating-point tensor, got ",
             describe(a));
  return a - trunc(a);
}

Tensor Tensor::fmax(const Tensor& other) const { return wick::fmax(*this, other); }
Tensor Tensor::fmin(const Tensor& other) const { return wick::fmin(*this, other); }
Tensor Tensor::heaviside(const Tensor& values) const { return wick::heaviside(*this, values); }
Tensor Tensor::frac() const { return wick::frac(*this); }

Tensor Tensor::addcmul(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return wick::addcmul(*this, t1, t2, value);
}
Tensor Tensor::addcdiv(const Tensor& t1, const Tensor& t2, const Scalar& value) const {
  return wick::addcdiv(*this, t1, t2, value);
}
Tensor Tensor::logaddexp(const Tensor& other) const { return wick::logaddexp(*this, other); }
Tensor Tensor::xlogy(const Tensor& other) const { return wick::xlogy(*this, other); }
Tensor Tensor::logit(std::optional<double> eps) const { return wick::logit(*this, eps); }

}  // namespace wick
