// activation.cpp: the activations of activation.hpp, as composites of autograd-aware ops. The
// where() conditions are chosen so that autograd's gradient at each kink is PyTorch's (which
// comes from hand-written backward kernels there), and NaN falls through to the branch that
// keeps it.
#include "wick/nn/activation.hpp"

#include <cmath>

#include "wick/autograd.hpp"

namespace wick::nn {

namespace {

void check_floating(const Tensor& input, const char* op) {
  WICK_CHECK(input.defined() && input.is_floating_point(), DtypeError, op, "input ",
             describe(input), " must be a floating-point tensor");
}

// log(1 + exp(x)) without overflow: x + log1p(exp(-x)) above 0, log1p(exp(x)) at and below.
// Each branch's exp sees a clamped argument, so the branch where() drops stays finite and its
// zero gradient stays zero (0 * exp(1000) would be NaN). The gradient is sigmoid(x), 0.5 at 0
// (max(x, 0) + log1p(exp(-|x|)) would give 1 there: clamp's and abs's gradients at the kink).
Tensor stable_softplus(const Tensor& x) {
  return where(gt(x, 0), x + log1p(exp(-clamp_min(x, 0.0))), log1p(exp(clamp_max(x, 0.0))));
}

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

}  // namespace

Tensor functional::elu(const Tensor& input, double alpha) {
  check_floating(input, "elu");
  // le fails for NaN, which then takes the identity's branch: NaN, with torch's gradient 1.
  // expm1 sees the input clamped to <= 0: the branch where() drops must stay finite, or its
  // zero gradient times expm1's infinite one is NaN (x = 100 in float32).
  return where(le(input, 0), expm1(clamp_max(input, 0.0)) * alpha, input);
}

Tensor functional::selu(const Tensor& input) {
  check_floating(input, "selu");
  return elu(input, kSeluAlpha) * kSeluScale;
}

Tensor functional::celu(const Tensor& input, double alpha) {
  check_floating(input, "celu");
  WICK_CHECK(alpha != 0.0, ValueError, "celu", "alpha must not be 0 (it divides the input), for ",
             describe(input));
  // max(0, x) + min(0, alpha expm1(x / alpha)), as one where: the two parts are never both
  // nonzero. At 0 the gradient is 1 from the expm1 branch, PyTorch's value; a NaN takes the
  // identity's (gradient 1, as torch's). expm1 sees the input clamped to <= 0, as elu's.
  return where(le(input, 0), expm1(clamp_max(input, 0.0) / alpha) * alpha, input);
}

Tensor functional::softplus(const Tensor& input, double beta, double threshold) {
  check_floating(input, "softplus");
  const Tensor scaled = input * beta;
  return where(gt(scaled, threshold), input, stable_softplus(scaled) / beta);
}

Tensor functional::hardtanh(const Tensor& input, double min_val, double max_val) {
  check_floating(input, "hardtanh");
  WICK_CHECK(min_val <= max_val, ValueError, "hardtanh", "min_val (", min_val,
             ") must not be greater than max_val (", max_val, "), for ", describe(input));
  // The bounds as constants: the gradient is 0 at and beyond them (PyTorch's hardtanh_backward
  // passes it only where min_val < x < max_val), and NaN falls through as x.
  return where(le(input, min_val), min_val, where(ge(input, max_val), max_val, input));
}

Tensor functional::relu6(const Tensor& input) { return hardtanh(input, 0.0, 6.0); }

Tensor functional::mish(const Tensor& input) {
  check_floating(input, "mish");
  return input * tanh(stable_softplus(input));
}

Tensor functional::logsigmoid(const Tensor& input) {
  check_floating(input, "logsigmoid");
  return -stable_softplus(-input);
}

Tensor functional::hardswish(const Tensor& input) {
  check_floating(input, "hardswish");
  // 0 below -3, x from 3 on, x (x + 3) / 6 on [-3, 3): the pieces PyTorch's backward uses,
  // so the gradient is -0.5 at -3 (the middle piece's (2x + 3) / 6) and 1 at 3. (PyTorch
  // 1.13's vectorised backward gives 1 at 3; its scalar loop, which takes tensors of fewer
  // than 8 doubles and the tails, gives 1.5: wick follows the vectorised one, tests/nn's golden.)
  // Below -3, x * 0: -0.0, and NaN at -inf, as PyTorch's x * min(max(x + 3, 0), 6) / 6. The
  // middle piece reads x only where it is chosen, so at +-inf its discarded slope (inf) cannot
  // meet a zero gradient and give NaN.
  const Tensor middle = where(lt(abs(input.detach()), 4.0), input, zeros_like(input));
  return where(lt(input, -3.0), input * 0.0,
               where(lt(input, 3.0), middle * (middle + 3.0) / 6.0, input));
}

Tensor functional::hardsigmoid(const Tensor& input) {
  check_floating(input, "hardsigmoid");
  // Constants at and beyond +-3 (gradient 0 there, as PyTorch's); NaN takes the middle piece.
  return where(le(input, -3.0), 0.0, where(ge(input, 3.0), 1.0, input / 6.0 + 0.5));
}

Tensor functional::softsign(const Tensor& input) {
  check_floating(input, "softsign");
  return input / (abs(input) + 1.0);
}

Tensor functional::tanhshrink(const Tensor& input) {
  check_floating(input, "tanhshrink");
  return input - tanh(input);
}

Tensor functional::threshold(const Tensor& input, double threshold, double value) {
  check_floating(input, "threshold");
  // PyTorch: x <= threshold ? value : x, so NaN passes as x.
  return where(le(input, threshold), value, input);
}

Tensor functional::glu(const Tensor& input, int64_t dim) {
  check_floating(input, "glu");
  WICK_CHECK(input.dim() > 0, ShapeError, "glu", "does not support scalars (0-d tensors), got ",
             describe(input));
  const int64_t d = dim < 0 ? dim + input.dim() : dim;
  WICK_CHECK(d >= 0 && d < input.dim(), IndexError, "glu", "dim ", dim,
             " out of range for a tensor of ", input.dim(), " dims (", describe(input), ")");
  const int64_t size = input.size(d);
  WICK_CHECK(size % 2 == 0, ShapeError, "glu", "halving dimension ", dim,
             " must be even, but it is ", size, " in ", describe(input));
  return input.narrow(d, 0, size / 2) * sigmoid(input.narrow(d, size / 2, size / 2));
}

Tensor functional::softmin(const Tensor& input, int64_t dim) {
  check_floating(input, "softmin");
  return softmax(-input, dim);
}

std::string ELUImpl::extra_repr() const { return wick::detail::str_cat("alpha=", alpha_); }

CELUImpl::CELUImpl(double alpha) : alpha_(alpha) {
  WICK_CHECK(alpha != 0.0, ValueError, "nn::CELU", "alpha must not be 0");
}
std::string CELUImpl::extra_repr() const { return wick::detail::str_cat("alpha=", alpha_); }

std::string SoftplusImpl::extra_repr() const {
  return wick::detail::str_cat("beta=", beta_, ", threshold=", threshold_);
}

HardtanhImpl::HardtanhImpl(double min_val, double max_val) : min_val_(min_val), max_val_(max_val) {
  WICK_CHECK(min_val <= max_val, ValueError, "nn::Hardtanh", "min_val (", min_val,
             ") must not be greater than max_val (", max_val, ")");
}
std::string HardtanhImpl::extra_repr() const {
  return wick::detail::str_cat("min_val=", min_val_, ", max_val=", max_val_);
}

std::string ThresholdImpl::extra_repr() const {
  return wick::detail::str_cat("threshold=", threshold_, ", value=", value_);
}
std::string GLUImpl::extra_repr() const { return wick::detail::str_cat("dim=", dim_); }
std::string SoftminImpl::extra_repr() const { return wick::detail::str_cat("dim=", dim_); }

Tensor functional::prelu(const Tensor& input, const Tensor& weight) {
  const char* op = "prelu";
  check_floating(input, op);
  WICK_CHECK(weight.defined() && weight.dim() <= 1, ShapeError, op, "weight ",
             weight.defined() ? describe(weight) : std::string("undefined"), " must be 0-D or 1-D");
  WICK_CHECK(weight.dtype() == input.dtype() && weight.device() == input.device(), DtypeError, op,
             "weight ", describe(weight), " must have the dtype and device of input ",
             describe(input));
  Tensor w = weight;
  if (weight.numel() != 1) {
    const int64_t channels = input.dim() >= 2 ? input.size(1) : 1;
    WICK_CHECK(input.dim() > 0 && weight.numel() == channels, ShapeError, op, "weight ",
               describe(weight), " has ", weight.numel(), " parameters; input ", describe(input),
               " has ", channels, " channels (dim 1)");
    Shape shape = Shape::filled(static_cast<size_t>(input.dim()), 1);
    shape[1] = channels;
    w = weight.reshape(shape);
  } else {
    w = weight.reshape({});
  }
  // x > 0 picks x, so the gradient at 0 is weight's side, and NaN falls to weight * NaN. The
  // weight's side reads x only where it is chosen, so +inf cannot give weight 0 * inf = NaN.
  const Tensor positive = gt(input, 0);
  const Tensor rest = where(positive.detach(), zeros_like(input), input);
  return where(positive, input, w * rest);
}

PReLUImpl::PReLUImpl(const PReLUOptions& options) : options_(options) {
  WICK_CHECK(options_.num_parameters() > 0, ValueError, "nn::PReLU", "num_parameters ",
             options_.num_parameters(), " must be positive");
  weight = register_parameter("weight", empty({options_.num_parameters()}));
  reset_parameters();
}

void PReLUImpl::reset_parameters() {
  NoGradGuard no_grad;
  Tensor w = weight;
  w.fill_(options_.init());
}

std::string PReLUImpl::extra_repr() const {
  return "num_parameters=" + std::to_string(options_.num_parameters());
}

}  // namespace wick::nn
