// rmsprop.hpp: RMSprop with PyTorch's update (torch.optim.RMSprop, 1.13 and 2.x). Per parameter:
//   g = g + weight_decay * p
//   v = alpha * v + (1 - alpha) * g * g
//   centered: m = alpha * m + (1 - alpha) * g, and avg = sqrt(v - m * m) + eps
//   else:     avg = sqrt(v) + eps
//   momentum > 0: b = momentum * b + g / avg, p = p - lr * b
//   else:         p = p - lr * g / avg
// Tested option by option in tests/nn/test_optim.cpp (a scalar reference of these formulas,
// itself checked against torch.optim.RMSprop there).
#pragma once

#include "wick/optim/optimizer.hpp"

namespace wick::optim {

class RMSpropOptions {
 public:
  RMSpropOptions(double lr = 1e-2) : lr_(lr) {}  // NOLINT: implicit, as libtorch
  RMSpropOptions& lr(double v) {
    lr_ = v;
    return *this;
  }
  RMSpropOptions& alpha(double v) {
    alpha_ = v;
    return *this;
  }
  RMSpropOptions& eps(double v) {
    eps_ = v;
    return *this;
  }
  RMSpropOptions& weight_decay(double v) {
    weight_decay_ = v;
    return *this;
  }
  RMSpropOptions& momentum(double v) {
    momentum_ = v;
    return *this;
  }
  RMSpropOptions& centered(bool v) {
    centered_ = v;
    return *this;
  }
  double lr() const { return lr_; }
  double alpha() const { return alpha_; }
  double eps() const { return eps_; }
  double weight_decay() const { return weight_decay_; }
  double momentum() const { return momentum_; }
  bool centered() const { return centered_; }

 private:
  double lr_;
  double alpha_ = 0.99;
  double eps_ = 1e-8;
  double weight_decay_ = 0;
  double momentum_ = 0;
  bool centered_ = false;
};

class RMSprop : public Optimizer {
 public:
  // Rejects (ValueError) what PyTorch rejects: lr, alpha, eps, momentum or weight_decay below 0.
  RMSprop(std::vector<Tensor> params, RMSpropOptions options = {});
  void step() override;
  RMSpropOptions options() const { return RMSpropOptions(options_).lr(lr_); }

 private:
  struct State {
    Tensor step;  // 0-dim int64 on the CPU: how many updates this parameter has had
    Tensor square_avg, momentum_buffer, grad_avg;
  };
  // step and square_avg; momentum_buffer with momentum > 0; grad_avg when centered.
  std::vector<std::string> buffer_names() const override;
  Tensor& buffer(size_t i, const std::string& name) override;

  RMSpropOptions options_;
  std::vector<State> state_;
};

}  // namespace wick::optim
