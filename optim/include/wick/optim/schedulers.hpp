// schedulers.hpp: learning-rate schedules, as libtorch's torch::optim::LRScheduler and StepLR,
// and PyTorch's Python ExponentialLR, MultiStepLR, CosineAnnealingLR and LambdaLR (their
// chained forms, the rates torch.optim.lr_scheduler gives step by step). A scheduler holds a
// reference to its optimizer; step() (once per epoch, after the optimizer's steps) counts and
// sets the optimizer's lr to get_lr(). Tested in tests/nn/test_optim.cpp against
// get_last_lr() of torch 1.13.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "wick/optim/optimizer.hpp"

namespace wick::optim {

class LRScheduler {
 public:
  // The base rate is the optimizer's initial_lr(), which the first scheduler sets to its
  // current rate (PyTorch's group.setdefault("initial_lr", lr)). check_options (a subclass's
  // option checks) runs first, so that a rejected scheduler leaves the optimizer as it was.
  explicit LRScheduler(Optimizer& optimizer, const std::function<void()>& check_options = {});
  virtual ~LRScheduler() = default;
  // Advances the count and sets the optimizer's learning rate to get_lr().
  void step();
  // How many times step() has run.
  int64_t step_count() const { return step_count_; }
  // The schedule's position, for checkpoints (PyTorch's scheduler state_dict): "last_epoch"
  // (0-dim int64, step_count()), "base_lr" and "last_lr" (0-dim float64, the optimizer's rate
  // after the last step). load_state_dict restores all three, the optimizer's rate included,
  // so a scheduler of the same kind and options, made over the restored optimizer, continues
  // the schedule exactly (whichever of the two states is loaded first). Missing or malformed
  // entries are a ValueError that changes nothing.
  std::map<std::string, Tensor> state_dict() const;
  void load_state_dict(const std::map<std::string, Tensor>& state);

 protected:
  // The learning rate after step() number step_count() (already counted), from the current one.
  virtual double get_lr() = 0;
  double current_lr() const { return optimizer_.lr(); }
  // The optimizer's rate when its first scheduler was made (PyTorch's base_lrs).
  double base_lr() const { return base_lr_; }
  Optimizer& optimizer() { return optimizer_; }

 private:
  Optimizer& optimizer_;
  double base_lr_;
  int64_t step_count_ = 0;
};

// Multiplies the learning rate by gamma every step_size steps (PyTorch's StepLR): after e steps
// the rate is lr0 * gamma^(e / step_size), integer division. step_size >= 1, gamma >= 0.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 private:
  double get_lr() override;
  int64_t step_size_;
  double gamma_;
};

// Multiplies the learning rate by gamma at every step (PyTorch's ExponentialLR). gamma >= 0.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 private:
  double get_lr() override;
  double gamma_;
};

// Multiplies the learning rate by gamma at each milestone step (PyTorch's MultiStepLR; a
// milestone listed twice multiplies by gamma^2). Milestones >= 1, in any order; gamma >= 0.
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 private:
  double get_lr() override;
  std::vector<int64_t> milestones_;
  double gamma_;
};

// Cosine annealing from the base rate to eta_min over t_max steps, then back up, periodically
// (PyTorch's CosineAnnealingLR, its recursive form: a rate set by hand between steps is
// carried on). t_max in [1, 2^62), eta_min >= 0.
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t t_max, double eta_min = 0.0);

 private:
  double get_lr() override;
  int64_t t_max_;
  double eta_min_;
};

// The rate is base_lr * factor(e) after e steps, e = 0 included: the constructor sets
// base_lr * factor(0), as PyTorch's LambdaLR (e.g. a linear warm-up). A factor that is negative
// or not finite is a ValueError at the step that computes it, and the rate is left as it was.
class LambdaLR : public LRScheduler {
 public:
  LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> factor);

 private:
  double get_lr() override;
  double rate_at(int64_t epoch) const;
  std::function<double(int64_t)> factor_;
};

}  // namespace wick::optim
