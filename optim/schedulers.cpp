// schedulers.cpp: LRScheduler::step and the schedulers, in PyTorch's chained forms: each step
// computes the new rate from the current one, so a set_lr() by hand between steps is kept
// (LambdaLR excepted: its rate is base_lr * factor(e), as PyTorch's).
#include "wick/optim/schedulers.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "wick/error.hpp"
#include "wick/ops.hpp"

namespace wick::optim {

LRScheduler::LRScheduler(Optimizer& optimizer, const std::function<void()>& check_options)
    : optimizer_(optimizer) {
  if (check_options) check_options();
  if (!optimizer.initial_lr_) optimizer.initial_lr_ = optimizer.lr();
  base_lr_ = *optimizer.initial_lr_;
}

void LRScheduler::step() {
  ++step_count_;
  try {
    optimizer_.set_lr(get_lr());
  } catch (...) {
    --step_count_;  // a failed step changes nothing
    throw;
  }
}

std::map<std::string, Tensor> LRScheduler::state_dict() const {
  const TensorOptions f64 = TensorOptions(kFloat64);
  return {{"last_epoch", full({}, step_count_, TensorOptions(kInt64))},
          {"base_lr", full({}, base_lr_, f64)},
          {"last_lr", full({}, optimizer_.lr(), f64)}};
}

void LRScheduler::load_state_dict(const std::map<std::string, Tensor>& state) {
  const char* op = "LRScheduler::load_state_dict";
  // Every entry read and checked before anything changes.
  const auto entry = [&](const char* key, Dtype dtype) {
    const auto it = state.find(key);
    WICK_CHECK(it != state.end() && it->second.defined(), ValueError, op, "the state has no \"",
               key, "\"");
    WICK_CHECK(it->second.numel() == 1 && it->second.dtype() == dtype, ValueError, op, "\"", key,
               "\" must be one ", dtype_name(dtype), " value, got ", describe(it->second));
    return it->second;
  };
  const int64_t last_epoch = entry("last_epoch", kInt64).to(kCPU).item<int64_t>();
  const double base = entry("base_lr", kFloat64).to(kCPU).item<double>();
  const double last = entry("last_lr", kFloat64).to(kCPU).item<double>();
  WICK_CHECK(state.size() == 3, ValueError, op, "the state has ", state.size(),
             " entries; a scheduler's has last_epoch, base_lr and last_lr");
  WICK_CHECK(last_epoch >= 0, ValueError, op, "last_epoch ", last_epoch, " must be >= 0");
  WICK_CHECK(std::isfinite(base) && base >= 0 && std::isfinite(last) && last >= 0, ValueError, op,
             "base_lr ", base, " and last_lr ", last, " must be finite and >= 0");
  optimizer_.set_lr(last);
  step_count_ = last_epoch;
  base_lr_ = base;
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer,
                  [&] {
                    WICK_CHECK(step_size >= 1, ValueError, "StepLR", "step_size ", step_size,
                               " must be >= 1");
                    WICK_CHECK(gamma >= 0 && std::isfinite(gamma), ValueError, "StepLR", "gamma ",
                               gamma, " must be a finite number >= 0");
                  }),
      step_size_(step_size),
      gamma_(gamma) {}

double StepLR::get_lr() {
  return step_count() % step_size_ == 0 ? current_lr() * gamma_ : current_lr();
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma)
    : LRScheduler(optimizer,
                  [&] {
                    WICK_CHECK(gamma >= 0 && std::isfinite(gamma), ValueError, "ExponentialLR",
                               "gamma ", gamma, " must be a finite number >= 0");
                  }),
      gamma_(gamma) {}

double ExponentialLR::get_lr() { return current_lr() * gamma_; }

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer,
                  [&] {
                    for (int64_t m : milestones) {
                      WICK_CHECK(m >= 1, ValueError, "MultiStepLR", "milestone ", m,
                                 " must be >= 1");
                    }
                    WICK_CHECK(gamma >= 0 && std::isfinite(gamma), ValueError, "MultiStepLR",
                               "gamma ", gamma, " must be a finite number >= 0");
                  }),
      milestones_(std::move(milestones)),
      gamma_(gamma) {}

double MultiStepLR::get_lr() {
  const auto hits = std::count(milestones_.begin(), milestones_.end(), step_count());
  return hits == 0 ? current_lr() : current_lr() * std::pow(gamma_, static_cast<double>(hits));
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t t_max, double eta_min)
    : LRScheduler(optimizer,
                  [&] {
                    // Below 2^62, so that the period 2 * T_max (and the step arithmetic) fits.
                    WICK_CHECK(t_max >= 1 && t_max < (int64_t{1} << 62), ValueError,
                               "CosineAnnealingLR", "T_max ", t_max, " must be in [1, 2^62)");
                    WICK_CHECK(eta_min >= 0 && std::isfinite(eta_min), ValueError,
                               "CosineAnnealingLR", "eta_min ", eta_min,
                               " must be a finite number >= 0");
                  }),
      t_max_(t_max),
      eta_min_(eta_min) {}

double CosineAnnealingLR::get_lr() {
  // PyTorch's recursive rule, term for term (torch/optim/lr_scheduler.py, 1.13), with Python's
  // non-negative modulo.
  const int64_t e = step_count(), period = 2 * t_max_;
  const double pi = std::numbers::pi, t = static_cast<double>(t_max_);
  const double lr = current_lr();
  if ((((e - 1 - t_max_) % period) + period) % period == 0) {
    return lr + (base_lr() - eta_min_) * (1 - std::cos(pi / t)) / 2;
  }
  return (1 + std::cos(pi * static_cast<double>(e) / t)) /
             (1 + std::cos(pi * static_cast<double>(e - 1) / t)) * (lr - eta_min_) +
         eta_min_;
}

namespace {
// factor(0), computed by the option check before the base class runs (so a bad factor
// changes nothing) and used by the constructor's body (a member does not exist yet there).
thread_local double t_first_factor = 0;

void check_factor(double f, int64_t epoch) {
  WICK_CHECK(f >= 0 && std::isfinite(f), ValueError, "LambdaLR", "the factor at step ", epoch,
             " is ", f, "; it must be a finite number >= 0");
}
}  // namespace

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> factor)
    : LRScheduler(optimizer,
                  [&] {
                    WICK_CHECK(static_cast<bool>(factor), ValueError, "LambdaLR",
                               "the factor function is empty");
                    t_first_factor = factor(0);
                    check_factor(t_first_factor, 0);
                  }),
      factor_(std::move(factor)) {
  // factor(0) once, as torch: a stateful factor (a counter) must see one call per step.
  this->optimizer().set_lr(base_lr() * t_first_factor);
}

double LambdaLR::rate_at(int64_t epoch) const {
  const double f = factor_(epoch);
  check_factor(f, epoch);
  return base_lr() * f;
}

double LambdaLR::get_lr() { return rate_at(step_count()); }

}  // namespace wick::optim
