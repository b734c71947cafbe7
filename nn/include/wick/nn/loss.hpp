// loss.hpp: MSELoss, CrossEntropyLoss and NLLLoss (modules and functional forms), with
// PyTorch's options (reductions, class weights, ignore_index, label smoothing). All are
// compositions of autograd-aware ops (docs/nn.md gives the formulas), so their gradients need
// no rule of their own. Tested against hand-computed values in
// tests/nn/test_loss.cpp and against PyTorch in tests/nn/test_parity.cpp.
#pragma once

#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

enum class Reduction { None, Mean, Sum };
inline constexpr Reduction kNone = Reduction::None;
inline constexpr Reduction kMean = Reduction::Mean;
inline constexpr Reduction kSum = Reduction::Sum;

class MSELossOptions;
class CrossEntropyLossOptions;
class NLLLossOptions;

namespace functional {
// mean/sum/none of (input - target)^2. Note: PyTorch broadcasts mismatched shapes with a
// warning; wick rejects them (ShapeError), since [64, 1] against [64] silently trains the
// wrong thing.
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean);
// PyTorch's cross_entropy. input: logits [C], [N, C] or [N, C, d1, ...] (floating; classes in
// dim 1). target: either int64 class indices, [], [N] or [N, d1, ...], or class probabilities
// of input's shape (floating). Per element: -sum_c w_c q_c log_softmax(input, 1)_c, where q is
// the target's one-hot row (indices) or its probabilities, smoothed to (1 - s) q + s / C by
// label_smoothing s, and w the optional class weight [C] (ones without it). Index targets equal
// to ignore_index (default -100) add nothing; other indices outside [0, C) are an IndexError
// (one reduction, one device sync). Mean with indices divides by the summed weights of the
// targets that are not ignored (their count without weights; NaN when all are ignored); with
// probabilities, by the number of elements. docs/nn.md gives the formulas.
Tensor cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction = kMean);
Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyLossOptions& options);
// PyTorch's nll_loss: input holds log-probabilities (shapes as cross_entropy's), target int64
// class indices; weight, ignore_index and reductions as cross_entropy's.
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossOptions& options);
Tensor nll_loss(const Tensor& input, const Tensor& target);
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

// weight: class weights [C] on the input's device, of the input's dtype (registered as the
// module's buffer "weight", so Module::to moves it); ignore_index: a target value that adds
// nothing (default -100, as PyTorch); label_smoothing in [0, 1].
class CrossEntropyLossOptions {
 public:
  CrossEntropyLossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  CrossEntropyLossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  CrossEntropyLossOptions& weight(Tensor w) {
    weight_ = std::move(w);
    return *this;
  }
  CrossEntropyLossOptions& ignore_index(int64_t index) {
    ignore_index_ = index;
    return *this;
  }
  CrossEntropyLossOptions& label_smoothing(double s) {
    label_smoothing_ = s;
    return *this;
  }
  Reduction reduction() const { return reduction_; }
  const Tensor& weight() const { return weight_; }
  int64_t ignore_index() const { return ignore_index_; }
  double label_smoothing() const { return label_smoothing_; }

 private:
  Reduction reduction_;
  Tensor weight_;
  int64_t ignore_index_ = -100;
  double label_smoothing_ = 0.0;
};

class NLLLossOptions {
 public:
  NLLLossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  NLLLossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  NLLLossOptions& weight(Tensor w) {
    weight_ = std::move(w);
    return *this;
  }
  NLLLossOptions& ignore_index(int64_t index) {
    ignore_index_ = index;
    return *this;
  }
  Reduction reduction() const { return reduction_; }
  const Tensor& weight() const { return weight_; }
  int64_t ignore_index() const { return ignore_index_; }

 private:
  Reduction reduction_;
  Tensor weight_;
  int64_t ignore_index_ = -100;
};

namespace functional {
// libtorch's names for the functional forms' options.
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using NLLFuncOptions = NLLLossOptions;
}  // namespace functional

class CrossEntropyLossImpl : public Module {
 public:
  explicit CrossEntropyLossImpl(CrossEntropyLossOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& target) const;
  const CrossEntropyLossOptions& options() const { return options_; }
  std::string extra_repr() const override;
  Tensor weight;  // the registered buffer (undefined without class weights)

 private:
  CrossEntropyLossOptions options_;
};
WICK_MODULE(CrossEntropyLoss);

class NLLLossImpl : public Module {
 public:
  explicit NLLLossImpl(NLLLossOptions options = {});
  Tensor forward(const Tensor& input, const Tensor& target) const;
  const NLLLossOptions& options() const { return options_; }
  std::string extra_repr() const override;
  Tensor weight;  // the registered buffer (undefined without class weights)

 private:
  NLLLossOptions options_;
};
WICK_MODULE(NLLLoss);

}  // namespace wick::nn
