// schedulers.hpp: learning-rate schedules, as libtorch's torch::optim::LRScheduler and StepLR.
// A scheduler holds a reference to its optimizer; step() (once per epoch, after the
// optimizer's steps) counts and sets the optimizer's lr to get_lr(). Tested in
// tests/nn/test_optim.cpp.
#pragma once

#include <cstdint>

#include "wick/optim/optimizer.hpp"

namespace wick::optim {

class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {}
  virtual ~LRScheduler() = default;
  // Advances the count and sets the optimizer's learning rate to get_lr().
  void step();
  // How many times step() has run.
  int64_t step_count() const { return step_count_; }

 protected:
  // The learning rate after step() number step_count() (already counted), from the current one.
  virtual double get_lr() = 0;
  double current_lr() const { return optimizer_.lr(); }

 private:
  Optimizer& optimizer_;
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

}  // namespace wick::optim
