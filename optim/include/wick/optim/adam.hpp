// adam.hpp: Adam and AdamW with PyTorch's updates (torch.optim.Adam / AdamW, 1.13 and 2.x).
// Per parameter, at step t (counted per parameter from 1):
//   Adam:  g = g + weight_decay * p          AdamW: p = p * (1 - lr * weight_decay)
//   m = beta1 * m + (1 - beta1) * g;   v = beta2 * v + (1 - beta2) * g * g
//   v_hat = max(v_hat, v) with amsgrad (then used in place of v below)
//   denom = sqrt(v) / sqrt(1 - beta2^t) + eps
//   p = p - lr / (1 - beta1^t) * m / denom
// Tested option by option in tests/nn/test_optim.cpp and against PyTorch in test_parity.cpp.
#pragma once

#include <tuple>

#include "wick/optim/optimizer.hpp"

namespace wick::optim {

// The options both take; only the default weight decay differs (0 for Adam, 0.01 for AdamW).
template <typename Derived>
class AdamOptionsBase {
 public:
  Derived& lr(double v) {
    lr_ = v;
    return self();
  }
  Derived& betas(double beta1, double beta2) {
    beta1_ = beta1;
    beta2_ = beta2;
    return self();
  }
  Derived& betas(std::tuple<double, double> b) { return betas(std::get<0>(b), std::get<1>(b)); }
  Derived& eps(double v) {
    eps_ = v;
    return self();
  }
  Derived& weight_decay(double v) {
    weight_decay_ = v;
    return self();
  }
  Derived& amsgrad(bool v) {
    amsgrad_ = v;
    return self();
  }
  double lr() const { return lr_; }
  std::tuple<double, double> betas() const { return {beta1_, beta2_}; }
  double eps() const { return eps_; }
  double weight_decay() const { return weight_decay_; }
  bool amsgrad() const { return amsgrad_; }

 protected:
  AdamOptionsBase(double lr, double weight_decay) : lr_(lr), weight_decay_(weight_decay) {}

 private:
  Derived& self() { return static_cast<Derived&>(*this); }
  double lr_;
  double beta1_ = 0.9;
  double beta2_ = 0.999;
  double eps_ = 1e-8;
  double weight_decay_;
  bool amsgrad_ = false;
};

class AdamOptions : public AdamOptionsBase<AdamOptions> {
 public:
  AdamOptions(double lr = 1e-3) : AdamOptionsBase(lr, 0.0) {}  // NOLINT: implicit, as libtorch
};
class AdamWOptions : public AdamOptionsBase<AdamWOptions> {
 public:
  AdamWOptions(double lr = 1e-3) : AdamOptionsBase(lr, 1e-2) {}  // NOLINT
};

namespace detail {
// The shared Adam/AdamW machinery; `decoupled` picks AdamW's weight decay.
class AdamCore : public Optimizer {
 public:
  void step() override;

 protected:
  struct Settings {
    double beta1, beta2, eps, weight_decay;
    bool amsgrad, decoupled;
  };
  AdamCore(std::vector<Tensor> params, double lr, Settings settings, const char* name);

 private:
  struct State {
    Tensor step;  // 0-dim int64 on the CPU: how many updates this parameter has had
    Tensor exp_avg, exp_avg_sq, max_exp_avg_sq;
  };
  std::vector<std::string> buffer_names() const override;
  Tensor& buffer(size_t i, const std::string& name) override;

  Settings settings_;
  std::vector<State> state_;
};
}  // namespace detail

class Adam : public detail::AdamCore {
 public:
  // Rejects (ValueError) lr, eps or weight_decay below 0 and betas outside [0, 1).
  Adam(std::vector<Tensor> params, AdamOptions options = {});
  AdamOptions options() const { return AdamOptions(options_).lr(lr_); }

 private:
  AdamOptions options_;
};

class AdamW : public detail::AdamCore {
 public:
  AdamW(std::vector<Tensor> params, AdamWOptions options = {});
  AdamWOptions options() const { return AdamWOptions(options_).lr(lr_); }

 private:
  AdamWOptions options_;
};

}  // namespace wick::optim
