// loss.hpp: MSELoss and CrossEntropyLoss (modules and functional forms), with PyTorch's
// reductions. Both are compositions of autograd-aware ops (docs/nn.md gives the formulas), so
// their gradients need no rule of their own. Tested against hand-computed values in
// tests/nn/test_loss.cpp and against PyTorch in tests/nn/test_parity.cpp.
#pragma once

#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

enum class Reduction { None, Mean, Sum };
inline constexpr Reduction kNone = Reduction::None;
inline constexpr Reduction kMean = Reduction::Mean;
inline constexpr Reduction kSum = Reduction::Sum;

namespace functional {
// mean/sum/none of (input - target)^2. Note: PyTorch broadcasts mismatched shapes with a
// warning; wick rejects them (ShapeError), since [64, 1] against [64] silently trains the
// wrong thing.
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean);
// input [N, C] logits (float), target [N] int64 class indices in [0, C). Per sample:
// -log_softmax(input, 1)[n, target[n]]; then mean over N (or sum, or none: [N]). Indices
// outside [0, C) are an IndexError (checked with one reduction, so one device sync).
Tensor cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction = kMean);
}  // namespace functional

class MSELossOptions {
 public:
  MSELossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT: implicit
  MSELossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  Reduction reduction() const { return reduction_; }

 private:
  Reduction reduction_;
};

class MSELossImpl : public Module {
 public:
  explicit MSELossImpl(MSELossOptions options = {}) : options_(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) const {
    return functional::mse_loss(input, target, options_.reduction());
  }
  const MSELossOptions& options() const { return options_; }
  std::string extra_repr() const override;

 private:
  MSELossOptions options_;
};
WICK_MODULE(MSELoss);

class CrossEntropyLossOptions {
 public:
  CrossEntropyLossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  CrossEntropyLossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  Reduction reduction() const { return reduction_; }

 private:
  Reduction reduction_;
};

class CrossEntropyLossImpl : public Module {
 public:
  explicit CrossEntropyLossImpl(CrossEntropyLossOptions options = {}) : options_(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) const {
    return functional::cross_entropy(input, target, options_.reduction());
  }
  const CrossEntropyLossOptions& options() const { return options_; }
  std::string extra_repr() const override;

 private:
  CrossEntropyLossOptions options_;
};
WICK_MODULE(CrossEntropyLoss);

}  // namespace wick::nn
