// loss_likelihood.cpp: poisson_nll_loss and gaussian_nll_loss of loss_likelihood.hpp, as
// compositions of autograd-aware ops.
#include "wick/nn/loss_likelihood.hpp"

#include <cmath>
#include <numbers>
#include <sstream>

#include "loss_common.hpp"
#include "wick/autograd.hpp"

namespace wick::nn {

using detail::reduce;
using detail::reduction_name;

namespace {}  // namespace

Tensor functional::poisson_nll_loss(const Tensor& input, const Tensor& target,
                                    const PoissonNLLLossOptions& options) {
  const char* op = "poisson_nll_loss";
  detail::check_floating_operand(input, "input", op);
  detail::check_floating_operand(target, "target", op);
  Tensor loss = options.log_input() ? exp(input) - target * input
                                    : input - target * log(input + options.eps());
  if (options.full()) {
    // Stirling's term where target > 1; elsewhere 0 (log(0!) = log(1!) = 0). Its branch sees
    // targets clamped to >= 1, so log stays finite in the branch where() drops.
    const Tensor t = clamp_min(target, 1.0);
    const Tensor stirling = t * log(t) - t + 0.5 * log(2.0 * std::numbers::pi * t);
    loss = loss + where(gt(target, 1.0), stirling, 0.0);
  }
  return reduce(loss, options.reduction());
}

Tensor functional::gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                                     const GaussianNLLLossOptions& options) {
  const char* op = "gaussian_nll_loss";
  detail::check_floating_operand(input, "input", op);
  detail::check_floating_operand(target, "target", op);
  detail::check_floating_operand(var, "var", op);
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    // One variance per row: var is input's shape without its last dim, or with it as 1.
    const Shape& in = input.sizes();
    const Shape rows = in.empty() ? in : Shape(in.begin(), in.end() - 1);
    Shape rows_kept = rows;
    rows_kept.push_back(1);
    const bool dropped = !in.empty() && var.sizes() == rows;
    WICK_CHECK(dropped || (!in.empty() && var.sizes() == rows_kept), ShapeError, op, "var ",
               describe(var), " is of incorrect size for input ", describe(input));
    if (dropped) v = var.unsqueeze(-1);
  }
  {
    NoGradGuard no_grad;
    WICK_CHECK(!lt(var, 0.0).any().item<bool>(), ValueError, op, "var ", describe(var),
               " has negative entry/entries");
  }
  // max(v, eps) in value, v's gradient unchanged: v + (the clamp's lift, detached).
  const Tensor clamped = v + (clamp_min(v, options.eps()) - v).detach();
  Tensor loss = 0.5 * (log(clamped) + (input - target) * (input - target) / clamped);
  if (options.full()) loss = loss + 0.5 * std::log(2.0 * std::numbers::pi);
  return reduce(loss, options.reduction());
}

std::string PoissonNLLLossImpl::extra_repr() const {
  std::ostringstream out;
  out << "log_input=" << (options_.log_input() ? "true" : "false")
      << ", full=" << (options_.full() ? "true" : "false") << ", eps=" << options_.eps()
      << ", reduction=" << reduction_name(options_.reduction());
  return out.str();
}

std::string GaussianNLLLossImpl::extra_repr() const {
  std::ostringstream out;
  out << "full=" << (options_.full() ? "true" : "false") << ", eps=" << options_.eps()
      << ", reduction=" << reduction_name(options_.reduction());
  return out.str();
}

}  // namespace wick::nn
