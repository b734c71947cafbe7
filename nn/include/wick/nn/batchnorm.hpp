// batchnorm.hpp: BatchNorm1d, BatchNorm2d, BatchNorm3d and functional::batch_norm, as
// torch.nn's: per channel (dim 1 of [N, C, ...]), (x - mean) / sqrt(var + eps) * weight + bias,
// with the batch's statistics in training and the running ones in eval(). A composition of ops
// (mean, var, in-place updates of the running buffers under no-grad), so the gradient comes from
// autograd's rules and it runs on either device. Tested against python3-torch 1.13 in
// tests/nn/test_batchnorm.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

// momentum: the running statistics move by this fraction per training batch; nullopt gives the
// cumulative average (1 / batches seen), as PyTorch's momentum=None.
class BatchNormFuncOptions {
 public:
  BatchNormFuncOptions& weight(Tensor w) {
    weight_ = std::move(w);
    return *this;
  }
  BatchNormFuncOptions& bias(Tensor b) {
    bias_ = std::move(b);
    return *this;
  }
  BatchNormFuncOptions& training(bool on) {
    training_ = on;
    return *this;
  }
  BatchNormFuncOptions& momentum(std::optional<double> m) {
    momentum_ = m;
    return *this;
  }
  BatchNormFuncOptions& eps(double e) {
    eps_ = e;
    return *this;
  }
  const Tensor& weight() const { return weight_; }
  const Tensor& bias() const { return bias_; }
  bool training() const { return training_; }
  std::optional<double> momentum() const { return momentum_; }
  double eps() const { return eps_; }

 private:
  Tensor weight_, bias_;
  bool training_ = false;
  std::optional<double> momentum_ = 0.1;
  double eps_ = 1e-5;
};

namespace functional {
using BatchNormFuncOptions = nn::BatchNormFuncOptions;  // libtorch's F::BatchNormFuncOptions
// input [N, C, ...] of 2 or more dims (floating); running_mean and running_var [C] or undefined;
// weight and bias [C] or undefined; all of the input's dtype and device (else a typed error, before
// anything changes). In training it normalises with the batch's mean and biased variance and,
// where running statistics are given, moves them towards the batch's mean and unbiased
// variance by momentum (in place, not recorded). In eval it normalises with the running
// statistics, which must be given (ValueError). Training on one value per channel is a
// ValueError; an empty batch gives an empty result and leaves the statistics alone.
// momentum nullopt here means 0 (the module passes 1 / batches seen).
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {});
}  // namespace functional

class BatchNormOptions {
 public:
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  BatchNormOptions& eps(double e) {
    eps_ = e;
    return *this;
  }
  BatchNormOptions& momentum(std::optional<double> m) {
    momentum_ = m;
    return *this;
  }
  BatchNormOptions& affine(bool on) {
    affine_ = on;
    return *this;
  }
  BatchNormOptions& track_running_stats(bool on) {
    track_running_stats_ = on;
    return *this;
  }
  int64_t num_features() const { return num_features_; }
  double eps() const { return eps_; }
  std::optional<double> momentum() const { return momentum_; }
  bool affine() const { return affine_; }
  bool track_running_stats() const { return track_running_stats_; }

 private:
  int64_t num_features_;
  double eps_ = 1e-5;
  std::optional<double> momentum_ = 0.1;
  bool affine_ = true;
  bool track_running_stats_ = true;
};

// libtorch's names: the three modules share one options class.
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

// What BatchNorm1d, 2d and 3d share; they differ only in the input dims they accept.
// Parameters weight (ones) and bias (zeros) with affine; buffers running_mean (zeros),
// running_var (ones) and num_batches_tracked (int64 0) with track_running_stats, named as
// PyTorch's state_dict names them, so save/load and Module::to carry them.
class BatchNormImplBase : public Module {
 public:
  Tensor forward(const Tensor& input) const;
  // Running statistics back to zeros and ones, the batch count to 0.
  void reset_running_stats();
  const BatchNormOptions& options() const { return options_; }
  std::string extra_repr() const override;

  Tensor weight, bias;                                    // undefined without affine
  Tensor running_mean, running_var, num_batches_tracked;  // undefined without tracking

 protected:
  // name: "BatchNorm2d"; input_dims: the one or two input ranks the module accepts.
  BatchNormImplBase(BatchNormOptions options, const char* name, std::vector<int64_t> input_dims);

 private:
  BatchNormOptions options_;
  std::string op_;  // "nn::BatchNorm2d", for error messages
  std::vector<int64_t> input_dims_;
};

// [N, C] or [N, C, L].
class BatchNorm1dImpl : public BatchNormImplBase {
 public:
  explicit BatchNorm1dImpl(BatchNormOptions options)
      : BatchNormImplBase(options, "BatchNorm1d", {2, 3}) {}
};
WICK_MODULE(BatchNorm1d);

// [N, C, H, W].
class BatchNorm2dImpl : public BatchNormImplBase {
 public:
  explicit BatchNorm2dImpl(BatchNormOptions options)
      : BatchNormImplBase(options, "BatchNorm2d", {4}) {}
};
WICK_MODULE(BatchNorm2d);

// [N, C, D, H, W].
class BatchNorm3dImpl : public BatchNormImplBase {
 public:
  explicit BatchNorm3dImpl(BatchNormOptions options)
      : BatchNormImplBase(options, "BatchNorm3d", {5}) {}
};
WICK_MODULE(BatchNorm3d);

}  // namespace wick::nn
