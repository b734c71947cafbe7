// schedulers.cpp: LRScheduler::step and StepLR, as libtorch's (the chained form: the rate is
// multiplied at each multiple of step_size, so a set_lr() by hand between steps is kept).
#include "wick/optim/schedulers.hpp"

#include <cmath>

#include "wick/error.hpp"

namespace wick::optim {

void LRScheduler::step() {
  ++step_count_;
  optimizer_.set_lr(get_lr());
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  WICK_CHECK(step_size >= 1, ValueError, "StepLR", "step_size ", step_size, " must be >= 1");
  WICK_CHECK(gamma >= 0 && std::isfinite(gamma), ValueError, "StepLR", "gamma ", gamma,
             " must be a finite number >= 0");
}

double StepLR::get_lr() {
  return step_count() % step_size_ == 0 ? current_lr() * gamma_ : current_lr();
}

}  // namespace wick::optim
