// conv1d.hpp: 1-D convolution over [N, C, L] (Conv1d, functional::conv1d), as libtorch's; also
// AdaptiveAvgPool2d and Identity. It is
// conv2d on a height of 1: the input viewed as [N, C, 1, L] and the weight as [O, C / g, 1, k],
// so it shares conv2d's im2col, its kernels on both devices, and its backward. Tested in
// tests/nn/test_conv.cpp against torch 1.13's values and by gradcheck.
#pragma once

#include <cstdint>
#include <string>

#include "wick/nn/conv.hpp"
#include "wick/nn/module.hpp"
#include "wick/nn/padding.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

// F::conv1d's options: bias (undefined: none), stride, padding, dilation, groups.
class Conv1dFuncOptions {
 public:
  Conv1dFuncOptions& bias(Tensor b) {
    bias_ = std::move(b);
    return *this;
  }
  Conv1dFuncOptions& stride(int64_t v) { return set(stride_, v); }
  WICK_CONV_PADDING(Conv1dFuncOptions, int64_t)
  Conv1dFuncOptions& dilation(int64_t v) { return set(dilation_, v); }
  Conv1dFuncOptions& groups(int64_t v) { return set(groups_, v); }
  const Tensor& bias() const { return bias_; }
  int64_t stride() const { return stride_; }
  int64_t dilation() const { return dilation_; }
  int64_t groups() const { return groups_; }

 private:
  Conv1dFuncOptions& set(int64_t& field, int64_t v) {
    field = v;
    return *this;
  }
  Tensor bias_;
  int64_t stride_ = 1, padding_ = 0, dilation_ = 1, groups_ = 1;
  std::optional<ConvPaddingMode> padding_by_name_;
};

namespace functional {
// input [N, C, L] (or [C, L]), weight [O, C / groups, k], bias [O]: [N, O, OL] with
// OL = (L + 2 padding - dilation (k - 1) - 1) / stride + 1, as torch.nn.functional.conv1d.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Conv1dFuncOptions& options = {});
}  // namespace functional

class Conv1dOptions {
 public:
  Conv1dOptions(int64_t in_channels, int64_t out_channels, int64_t kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  Conv1dOptions& stride(int64_t v) { return set(stride_, v); }
  WICK_CONV_PADDING(Conv1dOptions, int64_t)
  Conv1dOptions& dilation(int64_t v) { return set(dilation_, v); }
  Conv1dOptions& groups(int64_t v) { return set(groups_, v); }
  Conv1dOptions& bias(bool on) {
    bias_ = on;
    return *this;
  }
  // kZeros (the default), kReflect, kReplicate or kCircular, as Conv2d's.
  Conv1dOptions& padding_mode(PadMode m) {
    padding_mode_ = m;
    return *this;
  }
  int64_t in_channels() const { return in_channels_; }
  int64_t out_channels() const { return out_channels_; }
  int64_t kernel_size() const { return kernel_size_; }
  int64_t stride() const { return stride_; }
  int64_t dilation() const { return dilation_; }
  int64_t groups() const { return groups_; }
  bool bias() const { return bias_; }
  PadMode padding_mode() const { return padding_mode_; }

 private:
  Conv1dOptions& set(int64_t& field, int64_t v) {
    field = v;
    return *this;
  }
  int64_t in_channels_, out_channels_, kernel_size_, stride_ = 1, padding_ = 0, dilation_ = 1,
                                                     groups_ = 1;
  bool bias_ = true;
  PadMode padding_mode_ = kZeros;
  std::optional<ConvPaddingMode> padding_by_name_;
};

// weight [out, in / groups, k] and bias [out], U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with
// fan_in = in / groups * k, as PyTorch's reset_parameters.
class Conv1dImpl : public Module {
 public:
  explicit Conv1dImpl(const Conv1dOptions& options);
  Conv1dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size)
      : Conv1dImpl(Conv1dOptions(in_channels, out_channels, kernel_size)) {}
  Tensor forward(const Tensor& input) const;
  void reset_parameters();
  std::string extra_repr() const override;
  const Conv1dOptions& options() const { return options_; }

  Tensor weight;
  Tensor bias;  // undefined with bias(false)

 private:
  Conv1dOptions options_;
};
WICK_MODULE(Conv1d);

// Average pooling to a fixed output size (torch.nn.AdaptiveAvgPool2d): output cell (i, j)
// averages rows [floor(i H / oh), ceil((i + 1) H / oh)) and the columns alike. Computed as two
// matmuls with averaging matrices, P_h x P_w^T, so it runs and differentiates on both devices.
// AdaptiveAvgPool2d(1) is the global average pool of a ResNet's head.
namespace functional {
Tensor adaptive_avg_pool2d(const Tensor& input, Size2 output_size);
}  // namespace functional

class AdaptiveAvgPool2dImpl : public Module {
 public:
  explicit AdaptiveAvgPool2dImpl(Size2 output_size) : output_size_(output_size) {}
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;

 private:
  Size2 output_size_;
};
WICK_MODULE(AdaptiveAvgPool2d);

// Returns its input (torch.nn.Identity): a placeholder in a Sequential.
class IdentityImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const { return input; }
};
WICK_MODULE(Identity);

}  // namespace wick::nn
