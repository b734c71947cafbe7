// rules_unary.cpp: the backward rules of the elementwise unary ops of wick/op_list.hpp (copy,
// the functions of one tensor, pow with a number exponent, clamp) and of sigmoid_backward and
// tanh_backward, each PyTorch's derivatives.yaml formula written with ops, so it runs on any
// device. rules.cpp asks unary_backward_rule first; tests/test_gradcheck.cpp exercises them all.
#include <cmath>
#include <numbers>

#include "node.hpp"
#include "rule_util.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// Elementwise unary.
// The engine casts back. copy_ records the overwritten value as a second input: it gets zeros.
Grads copy_rule(const Node& n, const Tensor& g) {
  if (n.num_inputs == 2 && n.edges[1].needed) return {g, zeros(in_sizes(n, 1), g.options())};
  return {g};
}
Grads neg_rule(const Node&, const Tensor& g) { return {-g}; }
Grads abs_rule(const Node& n, const Tensor& g) {
  const Tensor& x = n.input(0);
  return {g * (as_float(gt(x, 0), g) - as_float(lt(x, 0), g))};
}
Grads exp_rule(const Node& n, const Tensor& g) { return {g * n.result()}; }
Grads log_rule(const Node& n, const Tensor& g) { return {g / n.input(0)}; }
Grads sqrt_rule(const Node& n, const Tensor& g) { return {g / (n.result() * 2)}; }
// As PyTorch's threshold_backward: the gradient stops where the result is <= 0 (a NaN passes).
Grads relu_rule(const Node& n, const Tensor& g) { return {blocked(le(n.result(), 0), g)}; }
// One fused op each, as PyTorch's backward (three ops and two temporaries before: sigmoid
// forward and backward on a [1024, 1024] took 0.75 of libtorch's speed on the Zen 4).
Grads sigmoid_rule(const Node& n, const Tensor& g) { return {sigmoid_backward(g, n.result())}; }
Grads tanh_rule(const Node& n, const Tensor& g) { return {tanh_backward(g, n.result())}; }
// d erf(x) / dx = 2 / sqrt(pi) e^(-x^2), in derivatives.yaml's order of operations.
Grads erf_rule(const Node& n, const Tensor& g) {
  const Tensor& x = n.input(0);
  return {exp(-(x * x)) * (2.0 / std::sqrt(std::numbers::pi)) * g};
}
// d log1p(x) / dx = 1 / (1 + x); d expm1(x) / dx = exp(x) = expm1(x) + 1, from the result as
// derivatives.yaml does.
Grads log1p_rule(const Node& n, const Tensor& g) { return {g / (n.input(0) + 1)}; }
Grads expm1_rule(const Node& n, const Tensor& g) { return {g * (n.result() + 1)}; }
// derivatives.yaml's forms: grad * cos(x), grad * -sin(x), -0.5 * grad * y^3, -grad * (y * y).
Grads sin_rule(const Node& n, const Tensor& g) { return {g * cos(n.input(0))}; }
Grads cos_rule(const Node& n, const Tensor& g) { return {g * -sin(n.input(0))}; }
// derivatives.yaml's forms: tan: grad * (1 + result^2); asin: grad * (1 - x^2)^(-1/2), acos
// its negation; atan: grad / (x^2 + 1); sinh and cosh each other's; log2 and log10: grad /
// (x ln 2), grad / (x ln 10).
Grads tan_rule(const Node& n, const Tensor& g) {
  const Tensor& y = n.result();
  return {g * (y * y + 1)};
}
Grads asin_rule(const Node& n, const Tensor& g) {
  const Tensor& x = n.input(0);
  return {g * (-x * x + 1).rsqrt()};
}
Grads acos_rule(const Node& n, const Tensor& g) {
  const Tensor& x = n.input(0);
  return {g * -(-x * x + 1).rsqrt()};
}
Grads atan_rule(const Node& n, const Tensor& g) {
  const Tensor& x = n.input(0);
  return {g / (x * x + 1)};
}
Grads sinh_rule(const Node& n, const Tensor& g) { return {g * cosh(n.input(0))}; }
Grads cosh_rule(const Node& n, const Tensor& g) { return {g * sinh(n.input(0))}; }
Grads log2_rule(const Node& n, const Tensor& g) { return {g / (n.input(0) * std::numbers::ln2)}; }
Grads log10_rule(const Node& n, const Tensor& g) { return {g / (n.input(0) * std::numbers::ln10)}; }
// derivatives.yaml's forms: asinh: grad (x^2 + 1)^(-1/2); acosh: grad (x^2 - 1)^(-1/2); atanh:
// grad / (1 - x^2); erfc: -2/sqrt(pi) exp(-x^2) grad; erfinv: sqrt(pi)/2 exp(y^2) grad; exp2:
// grad y ln 2; lgamma: grad digamma(x); digamma: grad polygamma(1, x); polygamma(k, x): grad
// polygamma(k + 1, x) (k is the node's scalar_a).
Grads asinh_rule(const Node& n, const Tensor& g) {
  const Tensor& x = n.input(0);
  return {g * (x * x + 1).rsqrt()};
}
Grads acosh_rule(const Node& n, const Tensor& g) {
  const Tensor& x = n.input(0);
  return {g * (x * x - 1).rsqrt()};
}
Grads atanh_rule(const Node& n, const Tensor& g) {
  const Tensor& x = n.input(0);
  return {g / (-(x * x) + 1)};
}
Grads erfc_rule(const Node& n, const Tensor& g) {
  const Tensor& x = n.input(0);
  return {exp(-(x * x)) * (-2.0 / std::sqrt(std::numbers::pi)) * g};
}
Grads erfinv_rule(const Node& n, const Tensor& g) {
  const Tensor& y = n.result();
  return {exp(y * y) * (std::sqrt(std::numbers::pi) / 2.0) * g};
}
Grads exp2_rule(const Node& n, const Tensor& g) { return {g * n.result() * std::numbers::ln2}; }
Grads lgamma_rule(const Node& n, const Tensor& g) { return {g * digamma(n.input(0))}; }
Grads digamma_rule(const Node& n, const Tensor& g) { return {g * polygamma(1, n.input(0))}; }
Grads polygamma_rule(const Node& n, const Tensor& g) {
  return {g * polygamma(n.scalar_a.to_int64() + 1, n.input(0))};
}
Grads rsqrt_rule(const Node& n, const Tensor& g) { return {g * -0.5 * n.result().pow(3)}; }
Grads reciprocal_rule(const Node& n, const Tensor& g) { return {-g * (n.result() * n.result())}; }
// floor, ceil, round, trunc and sign are flat almost everywhere: zeros, as PyTorch.
Grads flat_rule(const Node&, const Tensor& g) { return {zeros_like(g)}; }
// The ops above, differentiated as PyTorch's derivatives.yaml does (the same ops, rounded the
// same way): d/dg of g (1 - y) y is sigmoid_backward(g', y), d/dy = g' g (-2 y + 1);
// d/dg of g (1 - y^2) is tanh_backward(g', y), d/dy = g' ((-2 y) g).
Grads sigmoid_backward_rule(const Node& n, const Tensor& g) {
  const Tensor& y = n.input(1);
  Grads r;
  if (n.edges[0].needed) r[0] = sum_to(sigmoid_backward(g, y), in_sizes(n, 0));
  if (n.edges[1].needed) r[1] = sum_to(g * n.input(0) * (y * -2 + 1), in_sizes(n, 1));
  return r;
}
Grads tanh_backward_rule(const Node& n, const Tensor& g) {
  const Tensor& y = n.input(1);
  Grads r;
  if (n.edges[0].needed) r[0] = sum_to(tanh_backward(g, y), in_sizes(n, 0));
  if (n.edges[1].needed) r[1] = sum_to(g * (y * -2 * n.input(0)), in_sizes(n, 1));
  return r;
}
Grads pow_scalar_rule(const Node& n, const Tensor& g) {
  // The exponent as written (scalar_b; a bfloat16 computation's scalar_a is rounded), as
  // PyTorch's pow_backward takes exponent.toDouble().
  const double e = n.has_b ? n.scalar_b.to_double() : n.scalar_a.to_double();
  if (e == 0.0) return {zeros_like(g)};
  // PyTorch's pow_backward: grad * (e * x^(e-1)), in that order (it rounds differently from
  // (grad * e) * x^(e-1)).
  return {g * (pow(n.input(0), e - 1.0) * e)};
}
Grads clamp_rule(const Node& n, const Tensor& g) {
  const Tensor& x = n.input(0);
  Tensor out = g;
  // Written as "passes where x >= lo", not "stops where x < lo": a NaN x gets +0, as PyTorch.
  if (n.has_a) out = where(ge(x, n.scalar_a), out, Scalar(0.0));
  if (n.has_b) out = where(le(x, n.scalar_b), out, Scalar(0.0));
  return {out};
}

}  // namespace

const BackwardRule* unary_backward_rule(OpId op) {
  // {needs_inputs, needs_output, fn}
  static const BackwardRule copy{false, false, copy_rule}, neg{false, false, neg_rule},
      abs{true, false, abs_rule}, exp{false, true, exp_rule}, log{true, false, log_rule},
      sqrt{false, true, sqrt_rule}, relu{false, true, relu_rule},
      sigmoid{false, true, sigmoid_rule}, tanh{false, true, tanh_rule}, erf{true, false, erf_rule},
      log1p{true, false, log1p_rule}, expm1{false, true, expm1_rule}, sin{true, false, sin_rule},
      cos{true, false, cos_rule}, tan{false, true, tan_rule}, asin{true, false, asin_rule},
      acos{true, false, acos_rule}, atan{true, false, atan_rule}, sinh{true, false, sinh_rule},
      cosh{true, false, cosh_rule}, log2{true, false, log2_rule}, log10{true, false, log10_rule},
      rsqrt{false, true, rsqrt_rule}, reciprocal{false, true, reciprocal_rule},
      asinh{true, false, asinh_rule}, acosh{true, false, acosh_rule},
      atanh{true, false, atanh_rule}, erfc{true, false, erfc_rule},
      erfinv{false, true, erfinv_rule}, exp2{false, true, exp2_rule},
      lgamma{true, false, lgamma_rule}, digamma{true, false, digamma_rule},
      polygamma{true, false, polygamma_rule}, flat{false, false, flat_rule},
      pow_scalar{true, false, pow_scalar_rule}, clamp{true, false, clamp_rule},
      sigmoid_backward{true, false, sigmoid_backward_rule},
      tanh_backward{true, false, tanh_backward_rule};
  switch (op) {
    case OpId::copy:
      return &copy;
    case OpId::neg:
      return &neg;
    case OpId::abs:
      return &abs;
    case OpId::exp:
      return &exp;
    case OpId::log:
      return &log;
    case OpId::sqrt:
      return &sqrt;
    case OpId::relu:
      return &relu;
    case OpId::sigmoid:
      return &sigmoid;
    case OpId::tanh:
      return &tanh;
    case OpId::erf:
      return &erf;
    case OpId::log1p:
      return &log1p;
    case OpId::expm1:
      return &expm1;
    case OpId::sin:
      return &sin;
    case OpId::cos:
      return &cos;
    case OpId::tan:
      return &tan;
    case OpId::asin:
      return &asin;
    case OpId::acos:
      return &acos;
    case OpId::atan:
      return &atan;
    case OpId::sinh:
      return &sinh;
    case OpId::cosh:
      return &cosh;
    case OpId::log2:
      return &log2;
    case OpId::log10:
      return &log10;
    case OpId::asinh:
      return &asinh;
    case OpId::acosh:
      return &acosh;
    case OpId::atanh:
      return &atanh;
    case OpId::erfc:
      return &erfc;
    case OpId::erfinv:
      return &erfinv;
    case OpId::exp2:
      return &exp2;
    case OpId::lgamma:
      return &lgamma;
    case OpId::digamma:
      return &digamma;
    case OpId::polygamma:
      return &polygamma;
    case OpId::rsqrt:
      return &rsqrt;
    case OpId::reciprocal:
      return &reciprocal;
    case OpId::floor:
    case OpId::ceil:
    case OpId::round:
    case OpId::trunc:
    case OpId::sign:
      return &flat;
    case OpId::pow_scalar:
      return &pow_scalar;
    case OpId::clamp:
      return &clamp;
    case OpId::sigmoid_backward:
      return &sigmoid_backward;
    case OpId::tanh_backward:
      return &tanh_backward;
    default:
      return nullptr;
  }
}

}  // namespace wick
