// sgd.hpp: stochastic gradient descent with PyTorch's update (torch.optim.SGD):
//   d = g + weight_decay * p
//   b = d (first step) or momentum * b + (1 - dampening) * d,   when momentum != 0
//   d = d + momentum * b (nesterov) or b
//   p = p - lr * d
// Tested option by option in tests/nn/test_optim.cpp and against PyTorch in test_parity.cpp.
#pragma once

#include "wick/optim/optimizer.hpp"

namespace wick::optim {

class SGDOptions {
 public:
  SGDOptions(double lr) : lr_(lr) {}  // NOLINT: implicit, as libtorch (no default lr)
  SGDOptions& lr(double v) {
    lr_ = v;
    return *this;
  }
  SGDOptions& momentum(double v) {
    momentum_ = v;
    return *this;
  }
  SGDOptions& dampening(double v) {
    dampening_ = v;
    return *this;
  }
  SGDOptions& weight_decay(double v) {
    weight_decay_ = v;
    return *this;
  }
  SGDOptions& nesterov(bool v) {
    nesterov_ = v;
    return *this;
  }
  double lr() const { return lr_; }
  double momentum() const { return momentum_; }
  double dampening() const { return dampening_; }
  double weight_decay() const { return weight_decay_; }
  bool nesterov() const { return nesterov_; }

 private:
  double lr_;
  double momentum_ = 0;
  double dampening_ = 0;
  double weight_decay_ = 0;
  bool nesterov_ = false;
};

class SGD : public Optimizer {
 public:
  // Rejects (ValueError) what PyTorch rejects: lr, momentum or weight_decay below 0, and
  // nesterov without momentum > 0 and dampening == 0.
  SGD(std::vector<Tensor> params, SGDOptions options);
  void step() override;
  // The options in force (lr as set_lr left it).
  SGDOptions options() const { return SGDOptions(options_).lr(lr_); }

 private:
  std::vector<std::string> buffer_names() const override { return {"momentum_buffer"}; }
  Tensor& buffer(size_t i, const std::string& name) override;

  SGDOptions options_;
  std::vector<Tensor> momentum_buffers_;
};

}  // namespace wick::optim
