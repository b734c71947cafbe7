// adagrad.hpp: Adagrad with PyTorch's update (torch.optim.Adagrad, 1.13 and 2.x). Per
// parameter, at step t (counted per parameter from 1), with the sum starting at
// initial_accumulator_value:
//   g = g + weight_decay * p
//   clr = lr / (1 + (t - 1) * lr_decay)
//   sum = sum + g * g
//   p = p - clr * g / (sqrt(sum) + eps)
// Tested option by option in tests/nn/test_optim.cpp (a scalar reference of these formulas,
// itself checked against torch.optim.Adagrad there).
#pragma once

#include "wick/optim/optimizer.hpp"

namespace wick::optim {

class AdagradOptions {
 public:
  AdagradOptions(double lr = 1e-2) : lr_(lr) {}  // NOLINT: implicit, as libtorch
  AdagradOptions& lr(double v) {
    lr_ = v;
    return *this;
  }
  AdagradOptions& lr_decay(double v) {
    lr_decay_ = v;
    return *this;
  }
  AdagradOptions& weight_decay(double v) {
    weight_decay_ = v;
    return *this;
  }
  AdagradOptions& initial_accumulator_value(double v) {
    initial_accumulator_value_ = v;
    return *this;
  }
  AdagradOptions& eps(double v) {
    eps_ = v;
    return *this;
  }
  double lr() const { return lr_; }
  double lr_decay() const { return lr_decay_; }
  double weight_decay() const { return weight_decay_; }
  double initial_accumulator_value() const { return initial_accumulator_value_; }
  double eps() const { return eps_; }

 private:
  double lr_;
  double lr_decay_ = 0;
  double weight_decay_ = 0;
  double initial_accumulator_value_ = 0;
  double eps_ = 1e-10;
};

class Adagrad : public Optimizer {
 public:
  // Rejects (ValueError) what PyTorch rejects: lr, lr_decay, weight_decay,
  // initial_accumulator_value or eps below 0.
  Adagrad(std::vector<Tensor> params, AdagradOptions options = {});
  void step() override;
  AdagradOptions options() const { return AdagradOptions(options_).lr(lr_); }

 private:
  struct State {
    Tensor step;  // 0-dim int64 on the CPU
    Tensor sum;
  };
  std::vector<std::string> buffer_names() const override { return {"step", "sum"}; }
  Tensor& buffer(size_t i, const std::string& name) override;

  AdagradOptions options_;
  std::vector<State> state_;
};

}  // namespace wick::optim
