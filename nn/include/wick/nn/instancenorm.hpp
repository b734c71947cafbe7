// instancenorm.hpp: instance normalisation (InstanceNorm1d/2d/3d and functional::instance_norm),
// as libtorch's: each channel of each sample normalised by its own mean and biased variance over
// the spatial dims. As PyTorch's, it is batch_norm on the input viewed as one sample of N * C
// channels, with the running statistics (if tracked) averaged over the batch afterwards. The
// modules have no affine parameters and track no statistics unless asked. Tested in
// tests/nn/test_upsample.cpp against torch 1.13's values and by gradcheck.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

// F::instance_norm's options: running_mean and running_var (both or neither; [C]), weight and
// bias ([C], or undefined), use_input_stats (true: normalise by each instance's statistics and
// move the running ones by momentum; false: by the running ones), momentum, eps.
class InstanceNormFuncOptions {
 public:
#define WICK_NORM_OPTION(type, name)             \
  InstanceNormFuncOptions& name(const type& v) { \
    name##_ = v;                                 \
    return *this;                                \
  }                                              \
  const type& name() const { return name##_; }
  WICK_NORM_OPTION(Tensor, running_mean)
  WICK_NORM_OPTION(Tensor, running_var)
  WICK_NORM_OPTION(Tensor, weight)
  WICK_NORM_OPTION(Tensor, bias)
  WICK_NORM_OPTION(bool, use_input_stats)
  WICK_NORM_OPTION(double, momentum)
  WICK_NORM_OPTION(double, eps)
#undef WICK_NORM_OPTION

 private:
  Tensor running_mean_, running_var_, weight_, bias_;
  bool use_input_stats_ = true;
  double momentum_ = 0.1, eps_ = 1e-5;
};

namespace functional {
// input [N, C, ...] with at least one spatial dim; with use_input_stats, more than one spatial
// element (ValueError otherwise, as PyTorch's).
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});
}  // namespace functional

class InstanceNormOptions {
 public:
  InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
#define WICK_NORM_OPTION(type, name)         \
  InstanceNormOptions& name(const type& v) { \
    name##_ = v;                             \
    return *this;                            \
  }                                          \
  const type& name() const { return name##_; }
  WICK_NORM_OPTION(int64_t, num_features)
  WICK_NORM_OPTION(double, eps)
  WICK_NORM_OPTION(double, momentum)
  WICK_NORM_OPTION(bool, affine)
  WICK_NORM_OPTION(bool, track_running_stats)
#undef WICK_NORM_OPTION

 private:
  int64_t num_features_;
  double eps_ = 1e-5, momentum_ = 0.1;
  bool affine_ = false, track_running_stats_ = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

// What InstanceNorm1d, 2d and 3d share: weight (ones) and bias (zeros) with affine;
// running_mean (zeros), running_var (ones) and num_batches_tracked (int64 0, kept for
// PyTorch's state_dict names; instance norm does not count) with track_running_stats. An input
// of one dim fewer is an unbatched sample. Training, or without tracking, it normalises by the
// input's statistics; in eval with tracking, by the running ones.
class InstanceNormImplBase : public Module {
 public:
  Tensor forward(const Tensor& input) const;
  const InstanceNormOptions& options() const { return options_; }
  std::string extra_repr() const override;

  Tensor weight, bias;
  Tensor running_mean, running_var, num_batches_tracked;

 protected:
  // name: "InstanceNorm2d"; spatial: its number of spatial dims.
  InstanceNormImplBase(InstanceNormOptions options, const char* name, int64_t spatial);

 private:
  InstanceNormOptions options_;
  std::string op_;
  int64_t spatial_;
};

class InstanceNorm1dImpl : public InstanceNormImplBase {
 public:
  explicit InstanceNorm1dImpl(InstanceNormOptions options)
      : InstanceNormImplBase(options, "InstanceNorm1d", 1) {}
};
WICK_MODULE(InstanceNorm1d);

class InstanceNorm2dImpl : public InstanceNormImplBase {
 public:
  explicit InstanceNorm2dImpl(InstanceNormOptions options)
      : InstanceNormImplBase(options, "InstanceNorm2d", 2) {}
};
WICK_MODULE(InstanceNorm2d);

class InstanceNorm3dImpl : public InstanceNormImplBase {
 public:
  explicit InstanceNorm3dImpl(InstanceNormOptions options)
      : InstanceNormImplBase(options, "InstanceNorm3d", 3) {}
};
WICK_MODULE(InstanceNorm3d);

}  // namespace wick::nn
