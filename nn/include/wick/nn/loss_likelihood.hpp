// loss_likelihood.hpp: the negative log-likelihood losses of a Poisson and of a Gaussian
// (torch.nn.PoissonNLLLoss, GaussianNLLLoss), modules and functional forms with libtorch's option
// names. Composites of autograd-aware ops; checked against python3-torch 1.13 in
// tests/nn/test_loss_likelihood.cpp.
#pragma once

#include <string>

#include "wick/nn/loss.hpp"

namespace wick::nn {

// log_input: the input is log(rate) and the loss exp(input) - target input; else the input is
// the rate and the loss input - target log(input + eps). full adds Stirling's approximation of
// log(target!), target log(target) - target + log(2 pi target) / 2, where target > 1.
class PoissonNLLLossOptions {
 public:
  PoissonNLLLossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  PoissonNLLLossOptions& log_input(bool l) {
    log_input_ = l;
    return *this;
  }
  PoissonNLLLossOptions& full(bool f) {
    full_ = f;
    return *this;
  }
  PoissonNLLLossOptions& eps(double e) {
    eps_ = e;
    return *this;
  }
  PoissonNLLLossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  bool log_input() const { return log_input_; }
  bool full() const { return full_; }
  double eps() const { return eps_; }
  Reduction reduction() const { return reduction_; }

 private:
  Reduction reduction_;
  bool log_input_ = true, full_ = false;
  double eps_ = 1e-8;
};

// input: the mean; var: the variance (input's shape, or with its last dim 1 or dropped: one
// variance per row), no entry negative (ValueError). The loss is (log(max(var, eps)) +
// (input - target)^2 / max(var, eps)) / 2, plus log(2 pi) / 2 with full. As PyTorch, the clamp
// to eps does not stop var's gradient (it is taken as if var were not clamped).
class GaussianNLLLossOptions {
 public:
  GaussianNLLLossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  GaussianNLLLossOptions& full(bool f) {
    full_ = f;
    return *this;
  }
  GaussianNLLLossOptions& eps(double e) {
    eps_ = e;
    return *this;
  }
  GaussianNLLLossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  bool full() const { return full_; }
  double eps() const { return eps_; }
  Reduction reduction() const { return reduction_; }

 private:
  Reduction reduction_;
  bool full_ = false;
  double eps_ = 1e-6;
};

namespace functional {
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target,
                        const PoissonNLLLossOptions& options = {});
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var,
                         const GaussianNLLLossOptions& options = {});
}  // namespace functional

class PoissonNLLLossImpl : public Module {
 public:
  explicit PoissonNLLLossImpl(PoissonNLLLossOptions options = {}) : options_(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) const {
    return functional::poisson_nll_loss(input, target, options_);
  }
  std::string extra_repr() const override;

 private:
  PoissonNLLLossOptions options_;
};
WICK_MODULE(PoissonNLLLoss);

class GaussianNLLLossImpl : public Module {
 public:
  explicit GaussianNLLLossImpl(GaussianNLLLossOptions options = {}) : options_(options) {}
  Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var) const {
    return functional::gaussian_nll_loss(input, target, var, options_);
  }
  std::string extra_repr() const override;

 private:
  GaussianNLLLossOptions options_;
};
WICK_MODULE(GaussianNLLLoss);

}  // namespace wick::nn
