// loss_pointwise.cpp: l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy and
// binary_cross_entropy_with_logits as compositions of autograd-aware ops. The branches of the
// piecewise losses are picked with where(), whose gradient goes to the chosen branch only; every
// branch is evaluated on inputs clamped into its own range, so that no branch that is not chosen
// can overflow and turn its zero gradient into 0 * inf = NaN.
#include "wick/nn/loss_pointwise.hpp"

#include <sstream>

#include "loss_common.hpp"
#include "wick/autograd_hooks.hpp"

namespace wick::nn {

using detail::reduce;
using detail::reduction_name;

namespace {

void check_pair(const Tensor& input, const Tensor& target, const char* op) {
  WICK_CHECK(input.defined() && target.defined(), ValueError, op,
             "input and target must be defined tensors");
  WICK_CHECK(input.is_floating_point(), DtypeError, op, "input ", describe(input),
             " must be floating point");
  WICK_CHECK(target.is_floating_point(), DtypeError, op, "target ", describe(target),
             " must be floating point");
  WICK_CHECK(input.sizes() == target.sizes(), ShapeError, op, "input ", describe(input),
             " and target ", describe(target), " must have the same shape");
  WICK_CHECK(input.device() == target.device(), DeviceError, op, "input ", describe(input),
             " and target ", describe(target), " are on different devices");
}

// A weight that must broadcast to `shape` without changing it (PyTorch expands it to the input).
void check_rescaling(const Tensor& w, const char* what, const Tensor& input, const char* op) {
  if (!w.defined()) return;
  WICK_CHECK(w.dtype() == input.dtype(), DtypeError, op, what, " ", describe(w),
             " must have the dtype of input ", describe(input), " (as PyTorch requires)");
  WICK_CHECK(w.device() == input.device(), DeviceError, op, what, " ", describe(w), " and input ",
             describe(input), " are on different devices");
  bool fits = w.dim() <= input.dim();
  for (int64_t i = 1; fits && i <= w.dim(); ++i) {
    const int64_t have = w.size(w.dim() - i), want = input.size(input.dim() - i);
    fits = have == want || have == 1;
  }
  WICK_CHECK(fits, ShapeError, op, what, " ", describe(w), " must broadcast to input ",
             describe(input), "'s shape");
}

Tensor weighted(const Tensor& loss, const Tensor& weight) {
  return weight.defined() ? loss * weight : loss;
}

std::string with_number(Reduction r, const char* name, double value) {
  std::ostringstream out;
  out << "reduction=" << reduction_name(r) << ", " << name << "=" << value;
  return out.str();
}

}  // namespace

Tensor functional::l1_loss(const Tensor& input, const Tensor& target,
                           const L1LossOptions& options) {
  check_pair(input, target, "l1_loss");
  return reduce((input - target).abs(), options.reduction());
}

Tensor functional::smooth_l1_loss(const Tensor& input, const Tensor& target,
                                  const SmoothL1LossOptions& options) {
  const char* op = "smooth_l1_loss";
  check_pair(input, target, op);
  const double beta = options.beta();
  WICK_CHECK(beta >= 0, ValueError, op, "beta ", beta, " must not be negative");
  Tensor z = (input - target).abs();
  if (beta == 0) return reduce(z, options.reduction());
  // PyTorch's order of operations: 0.5 * z * z / beta (the 0.5 is exact), z - 0.5 * beta.
  const Tensor zq = clamp_max(z, beta);  // the quadratic branch's input: finite where z is inf
  Tensor loss = where(lt(z, beta), zq * 0.5 * zq / beta, z - 0.5 * beta);
  return reduce(loss, options.reduction());
}

Tensor functional::huber_loss(const Tensor& input, const Tensor& target,
                              const HuberLossOptions& options) {
  const char* op = "huber_loss";
  check_pair(input, target, op);
  const double delta = options.delta();
  WICK_CHECK(delta > 0, ValueError, op, "delta ", delta, " must be positive");
  Tensor z = (input - target).abs();
  const Tensor zq = clamp_max(z, delta);
  Tensor loss = where(lt(z, delta), zq * 0.5 * zq, (z - 0.5 * delta) * delta);
  return reduce(loss, options.reduction());
}

Tensor functional::binary_cross_entropy(const Tensor& input, const Tensor& target,
                                        const BCELossOptions& options) {
  const char* op = "binary_cross_entropy";
  check_pair(input, target, op);
  WICK_CHECK(target.dtype() == input.dtype(), DtypeError, op, "target ", describe(target),
             " must have the dtype of input ", describe(input), " (as PyTorch requires)");
  check_rescaling(options.weight(), "weight", input, op);
  if (input.numel() > 0) {
    // NaN fails both comparisons, so it counts as outside, as in PyTorch's check.
    const int64_t outside = sum(where(ge(input, 0), gt(input, 1), true)).item<int64_t>();
    WICK_CHECK(outside == 0, ValueError, op, outside, " element(s) of input ", describe(input),
               " outside [0, 1] (or NaN): it must hold probabilities");
  }
  // The value: log x and log(1 - x) clamped at -100 as PyTorch's; at x = 0 (and 1 for the
  // second) the log is taken of a stand-in 1.
  const Tensor x = input.detach(), y = target.detach();
  const Tensor positive = gt(x, 0), below_one = lt(x, 1);
  const Tensor log_x_open = where(positive, x, 1.0).log();
  const Tensor log_1mx_open = (-where(below_one, x, 0.0)).log1p();
  const Tensor log_x = clamp_min(where(positive, log_x_open, -100.0), -100.0);
  const Tensor log_1mx = clamp_min(where(below_one, log_1mx_open, -100.0), -100.0);
  // PyTorch's (y - 1) log(1 - x) - y log(x).
  Tensor loss = (y - 1) * log_1mx - y * log_x;
  // The gradients are PyTorch's rules, not the clamped logs' derivatives (which are 0 where a
  // log is clamped: the input's had the wrong sign at x = 0; found by review): the input's
  // (x - y) / max(x (1 - x), 1e-12) (1e-12 as a float, as PyTorch's EPSILON), the target's
  // log(1 - x) - log(x) with the logs unclamped (clamped only at x = 0 and 1, where PyTorch's is
  // infinite). Each is attached through a term t * slope - (t * slope).detach(), of value exactly
  // 0 (the slopes are finite).
  const auto link = [&](const Tensor& t, const Tensor& slope) {
    if (!wick::GradMode::is_enabled() || !t.requires_grad()) return;
    const Tensor term = t * slope;
    loss = loss + (term - term.detach());
  };
  link(input, (x - y) / clamp_min(x * (1 - x), static_cast<double>(1e-12f)));
  link(target, where(positive, log_x_open, log_x) * -1.0 + where(below_one, log_1mx_open, log_1mx));
  return reduce(weighted(loss, options.weight()), options.reduction());
}

Tensor functional::binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                                    const BCEWithLogitsLossOptions& options) {
  const char* op = "binary_cross_entropy_with_logits";
  check_pair(input, target, op);
  check_rescaling(options.weight(), "weight", input, op);
  check_rescaling(options.pos_weight(), "pos_weight", input, op);
  // softplus(-x) = -log sigmoid(x): for x >= 0, log1p(exp(-x)); for x < 0, -x + log1p(exp(x)).
  // Each branch sees x clamped to its side, so exp never exceeds 1.
  Tensor x_pos = clamp_min(input, 0.0), x_neg = clamp_max(input, 0.0);
  Tensor softplus_neg_x = where(lt(input, 0), x_neg.exp().log1p() - x_neg, (-x_pos).exp().log1p());
  Tensor loss;
  if (options.pos_weight().defined()) {
    Tensor log_weight = (options.pos_weight() - 1) * target + 1;
    loss = (1 - target) * input + log_weight * softplus_neg_x;
  } else {
    loss = (1 - target) * input + softplus_neg_x;
  }
  return reduce(weighted(loss, options.weight()), options.reduction());
}

std::string L1LossImpl::extra_repr() const {
  return std::string("reduction=") + reduction_name(options_.reduction());
}
std::string SmoothL1LossImpl::extra_repr() const {
  return with_number(options_.reduction(), "beta", options_.beta());
}
std::string HuberLossImpl::extra_repr() const {
  return with_number(options_.reduction(), "delta", options_.delta());
}

BCELossImpl::BCELossImpl(BCELossOptions options) : options_(std::move(options)) {
  if (options_.weight().defined()) weight = register_buffer("weight", options_.weight());
}
Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) const {
  BCELossOptions current = options_;
  current.weight(weight);  // the buffer, which Module::to moves
  return functional::binary_cross_entropy(input, target, current);
}
std::string BCELossImpl::extra_repr() const {
  return std::string("reduction=") + reduction_name(options_.reduction());
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(BCEWithLogitsLossOptions options)
    : options_(std::move(options)) {
  if (options_.weight().defined()) weight = register_buffer("weight", options_.weight());
  if (options_.pos_weight().defined())
    pos_weight = register_buffer("pos_weight", options_.pos_weight());
}
Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) const {
  BCEWithLogitsLossOptions current = options_;
  current.weight(weight).pos_weight(pos_weight);
  return functional::binary_cross_entropy_with_logits(input, target, current);
}
std::string BCEWithLogitsLossImpl::extra_repr() const {
  return std::string("reduction=") + reduction_name(options_.reduction());
}

}  // namespace wick::nn
