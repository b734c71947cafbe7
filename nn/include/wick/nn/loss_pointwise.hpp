// loss_pointwise.hpp: the elementwise losses beside MSELoss: L1Loss, SmoothL1Loss, HuberLoss,
// BCELoss and BCEWithLogitsLoss (modules, functional forms and libtorch's option names). Each is
// a composition of autograd-aware ops (docs/nn.md gives the formulas), so its gradients, the
// target's included, come from autograd's rules and run on any device. Checked against
// python3-torch 1.13 in tests/nn/test_loss_pointwise.cpp.
#pragma once

#include "wick/nn/loss.hpp"

namespace wick::nn {

// reduction only (L1Loss).
class L1LossOptions {
 public:
  L1LossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT: implicit
  L1LossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  Reduction reduction() const { return reduction_; }

 private:
  Reduction reduction_;
};

// beta >= 0: below it the loss is quadratic (0.5 d^2 / beta), above it linear (|d| - beta / 2);
// beta = 0 is the L1 loss.
class SmoothL1LossOptions {
 public:
  SmoothL1LossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  SmoothL1LossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  SmoothL1LossOptions& beta(double b) {
    beta_ = b;
    return *this;
  }
  Reduction reduction() const { return reduction_; }
  double beta() const { return beta_; }

 private:
  Reduction reduction_;
  double beta_ = 1.0;
};

// delta > 0: below it 0.5 d^2, above it delta (|d| - delta / 2).
class HuberLossOptions {
 public:
  HuberLossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  HuberLossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  HuberLossOptions& delta(double d) {
    delta_ = d;
    return *this;
  }
  Reduction reduction() const { return reduction_; }
  double delta() const { return delta_; }

 private:
  Reduction reduction_;
  double delta_ = 1.0;
};

// weight: a rescaling that broadcasts to the input's shape (input's dtype and device).
class BCELossOptions {
 public:
  BCELossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  BCELossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  BCELossOptions& weight(Tensor w) {
    weight_ = std::move(w);
    return *this;
  }
  Reduction reduction() const { return reduction_; }
  const Tensor& weight() const { return weight_; }

 private:
  Reduction reduction_;
  Tensor weight_;
};

// weight as BCELoss's; pos_weight: the positive examples' weight, broadcast against the target
// (one per class when the classes are the last dim), as PyTorch's.
class BCEWithLogitsLossOptions {
 public:
  BCEWithLogitsLossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  BCEWithLogitsLossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  BCEWithLogitsLossOptions& weight(Tensor w) {
    weight_ = std::move(w);
    return *this;
  }
  BCEWithLogitsLossOptions& pos_weight(Tensor w) {
    pos_weight_ = std::move(w);
    return *this;
  }
  Reduction reduction() const { return reduction_; }
  const Tensor& weight() const { return weight_; }
  const Tensor& pos_weight() const { return pos_weight_; }

 private:
  Reduction reduction_;
  Tensor weight_;
  Tensor pos_weight_;
};

namespace functional {
// libtorch's names for the functional forms' options.
using L1LossFuncOptions = L1LossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;

// Input floating, target floating of the input's shape, on one device (a shape mismatch is a
// ShapeError, where PyTorch broadcasts with a warning, as for mse_loss).
// |input - target|; the gradient at input == target is 0 (the sign of 0).
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossOptions& options = {});
// |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta, d = input - target.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossOptions& options = {});
// |d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta).
Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossOptions& options = {});
// -weight (y log x + (1 - y) log(1 - x)) with each log clamped at -100, as PyTorch's. x must be
// in [0, 1] (else a ValueError: one reduction, one device sync). Where x is exactly 0 or 1 the
// clamped term's gradient is 0 (PyTorch divides by max(x (1 - x), 1e-12) instead).
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BCELossOptions& options = {});
// weight ((1 - y) x + l softplus(-x)), l = (pos_weight - 1) y + 1 (1 without pos_weight):
// sigmoid and BCE in one stable form; softplus(-x) = max(-x, 0) + log1p(exp(-|x|)), written so
// that no exp overflows, in value or gradient, and the gradient at x = 0 is sigmoid(0) - 1.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BCEWithLogitsLossOptions& options = {});
}  // namespace functional

class L1LossImpl : public Module {
 public:
  explicit L1LossImpl(L1LossOptions options = {}) : options_(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) const {
    return functional::l1_loss(input, target, options_);
  }
  const L1LossOptions& options() const { return options_; }
  std::string extra_repr() const override;

 private:
  L1LossOptions options_;
};
WICK_MODULE(L1Loss);

class SmoothL1LossImpl : public Module {
 public:
  explicit SmoothL1LossImpl(SmoothL1LossOptions options = {}) : options_(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) const {
    return functional::smooth_l1_loss(input, target, options_);
  }
  const SmoothL1LossOptions& options() const { return options_; }
  std::string extra_repr() const override;

 private:
  SmoothL1LossOptions options_;
};
WICK_MODULE(SmoothL1Loss);

class HuberLossImpl : public Module {
 public:
  explicit HuberLossImpl(HuberLossOptions options = {}) : options_(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) const {
    return functional::huber_loss(input, target, options_);
  }
  const HuberLossOptions& options() const { return options_; }
  std::string extra_repr() const override;

 private:
  HuberLossOptions options_;
};
WICK_MODULE(HuberLoss);

// weight is the registered buffer "weight" (Module::to moves it, save/load keep it).
class BCELossImpl : public Module {
 public:
  explicit BCELossImpl(BCELossOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& target) const;
  const BCELossOptions& options() const { return options_; }
  std::string extra_repr() const override;
  Tensor weight;  // undefined without a weight

 private:
  BCELossOptions options_;
};
WICK_MODULE(BCELoss);

// weight and pos_weight are registered buffers, as PyTorch's.
class BCEWithLogitsLossImpl : public Module {
 public:
  explicit BCEWithLogitsLossImpl(BCEWithLogitsLossOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& target) const;
  const BCEWithLogitsLossOptions& options() const { return options_; }
  std::string extra_repr() const override;
  Tensor weight;      // undefined without a weight
  Tensor pos_weight;  // undefined without a pos_weight

 private:
  BCEWithLogitsLossOptions options_;
};
WICK_MODULE(BCEWithLogitsLoss);

}  // namespace wick::nn
