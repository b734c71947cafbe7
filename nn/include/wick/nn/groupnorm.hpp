// groupnorm.hpp: GroupNorm and functional::group_norm, as torch.nn.GroupNorm: the C channels of
// [N, C, ...] split into num_groups groups, each sample's group normalised by its own mean and
// biased variance, then a per-channel weight and bias. No running statistics, so training and
// eval() agree, and any batch size works (why CNNs with small batches use it over BatchNorm).
// A composition of ops, so it runs on either device and autograd gives its gradient. Tested
// against python3-torch 1.13 in tests/nn/test_groupnorm.cpp.
#pragma once

#include <string>

#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

class GroupNormFuncOptions {
 public:
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT
  GroupNormFuncOptions& weight(Tensor w) {
    weight_ = std::move(w);
    return *this;
  }
  GroupNormFuncOptions& bias(Tensor b) {
    bias_ = std::move(b);
    return *this;
  }
  GroupNormFuncOptions& eps(double e) {
    eps_ = e;
    return *this;
  }
  int64_t num_groups() const { return num_groups_; }
  const Tensor& weight() const { return weight_; }
  const Tensor& bias() const { return bias_; }
  double eps() const { return eps_; }

 private:
  int64_t num_groups_;
  Tensor weight_, bias_;
  double eps_ = 1e-5;
};

namespace functional {
using GroupNormFuncOptions = nn::GroupNormFuncOptions;
// input [N, C, ...] (floating, 2 or more dims) with C divisible by num_groups; weight and bias
// [C] of the input's dtype and device, or undefined. Else a typed error naming the shapes.
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);
}  // namespace functional

class GroupNormOptions {
 public:
  GroupNormOptions(int64_t num_groups, int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  GroupNormOptions& eps(double e) {
    eps_ = e;
    return *this;
  }
  GroupNormOptions& affine(bool on) {
    affine_ = on;
    return *this;
  }
  int64_t num_groups() const { return num_groups_; }
  int64_t num_channels() const { return num_channels_; }
  double eps() const { return eps_; }
  bool affine() const { return affine_; }

 private:
  int64_t num_groups_, num_channels_;
  double eps_ = 1e-5;
  bool affine_ = true;
};

// Parameters weight (ones) and bias (zeros) of [num_channels] with affine.
class GroupNormImpl : public Module {
 public:
  explicit GroupNormImpl(GroupNormOptions options);
  GroupNormImpl(int64_t num_groups, int64_t num_channels)
      : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  Tensor forward(const Tensor& input) const;
  const GroupNormOptions& options() const { return options_; }
  std::string extra_repr() const override;

  Tensor weight, bias;  // undefined without affine

 private:
  GroupNormOptions options_;
};
WICK_MODULE(GroupNorm);

}  // namespace wick::nn
