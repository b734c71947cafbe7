// conv.hpp: 2-D convolution and pooling over NCHW tensors (Conv2d, MaxPool2d, AvgPool2d and
// their functional forms), as libtorch's. Each is made of ops that already run on both devices
// and have backward rules: the input's windows are gathered with one index_select (im2col,
// padding read from one extra element), then one matmul with the weight (conv2d), or max or
// mean over the window (pooling). So the gradient is index_add's scatter of the windows' rows,
// in a fixed order (the same bits on every run). Unbatched [C, H, W] inputs are taken, as in
// PyTorch. Padding by name: kSame and kValid. Max pooling's indices: pooling.hpp's
// max_pool2d_with_indices. Not supported: divisor_override. Tested in tests/nn/test_conv.cpp
// against torch 1.13's values and by gradcheck.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "wick/nn/module.hpp"
#include "wick/nn/padding.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

// Two sizes (height, width); one number means both, as libtorch's ExpandingArray<2>.
struct Size2 {
  Size2(int64_t both) : h(both), w(both) {}  // NOLINT: implicit, as libtorch's stride(2)
  Size2(int64_t height, int64_t width) : h(height), w(width) {}
  int64_t h, w;
  bool operator==(const Size2&) const = default;
};

// Padding by name, as PyTorch's padding="valid" and "same": kValid is no padding; kSame pads so
// that the output keeps the input's size (stride 1 only, a ValueError otherwise), d (k - 1) in
// all, half on each side and the odd one on the right, as PyTorch's.
enum class ConvPaddingMode { Valid, Same };
inline constexpr ConvPaddingMode kValid = ConvPaddingMode::Valid;
inline constexpr ConvPaddingMode kSame = ConvPaddingMode::Same;

// The padding setters of the convolutions' options: a size, or a mode by name.
#define WICK_CONV_PADDING(Class, type)             \
  Class& padding(const type& v) {                  \
    padding_ = v;                                  \
    padding_by_name_.reset();                      \
    return *this;                                  \
  }                                                \
  Class& padding(ConvPaddingMode m) {              \
    padding_ = 0;                                  \
    padding_by_name_ = m;                          \
    return *this;                                  \
  }                                                \
  const type& padding() const { return padding_; } \
  const std::optional<ConvPaddingMode>& padding_by_name() const { return padding_by_name_; }

#define WICK_CONV_OPTION(Class, type, name) \
  Class& name(const type& v) {              \
    name##_ = v;                            \
    return *this;                           \
  }                                         \
  const type& name() const { return name##_; }

// F::conv2d's options: bias (undefined: none), stride, padding (a size, or kValid / kSame),
// dilation, groups.
class Conv2dFuncOptions {
 public:
  WICK_CONV_OPTION(Conv2dFuncOptions, Tensor, bias)
  WICK_CONV_OPTION(Conv2dFuncOptions, Size2, stride)
  WICK_CONV_PADDING(Conv2dFuncOptions, Size2)
  WICK_CONV_OPTION(Conv2dFuncOptions, Size2, dilation)
  WICK_CONV_OPTION(Conv2dFuncOptions, int64_t, groups)

 private:
  Tensor bias_;
  Size2 stride_ = 1, padding_ = 0, dilation_ = 1;
  std::optional<ConvPaddingMode> padding_by_name_;
  int64_t groups_ = 1;
};

// What both poolings take: kernel_size, stride (the kernel size unless set, as PyTorch's) and
// padding; each setter returns the derived options, so calls chain.
template <class Self>
class Pool2dOptionsBase {
 public:
  explicit Pool2dOptionsBase(Size2 kernel_size) : kernel_size_(kernel_size) {}
  Self& kernel_size(const Size2& v) { return set(kernel_size_, v); }
  const Size2& kernel_size() const { return kernel_size_; }
  Self& stride(const Size2& v) {
    stride_given_ = true;
    return set(stride_, v);
  }
  Size2 stride() const { return stride_given_ ? stride_ : kernel_size_; }
  Self& padding(const Size2& v) { return set(padding_, v); }
  const Size2& padding() const { return padding_; }
  // A last, partial window where the floor division would drop it (PyTorch's ceil_mode).
  Self& ceil_mode(bool v) { return set(ceil_mode_, v); }
  bool ceil_mode() const { return ceil_mode_; }

 protected:
  template <typename T>
  Self& set(T& field, const T& v) {
    field = v;
    return static_cast<Self&>(*this);
  }

 private:
  Size2 kernel_size_, stride_ = 1, padding_ = 0;
  bool stride_given_ = false, ceil_mode_ = false;
};

class MaxPool2dOptions : public Pool2dOptionsBase<MaxPool2dOptions> {
 public:
  MaxPool2dOptions(Size2 kernel_size) : Pool2dOptionsBase(kernel_size) {}  // NOLINT: implicit
  MaxPool2dOptions& dilation(const Size2& v) { return set(dilation_, v); }
  const Size2& dilation() const { return dilation_; }

 private:
  Size2 dilation_ = 1;
};

// count_include_pad: whether padded zeros count in the mean (PyTorch's default: true).
class AvgPool2dOptions : public Pool2dOptionsBase<AvgPool2dOptions> {
 public:
  AvgPool2dOptions(Size2 kernel_size) : Pool2dOptionsBase(kernel_size) {}  // NOLINT: implicit
  AvgPool2dOptions& count_include_pad(bool v) { return set(count_include_pad_, v); }
  bool count_include_pad() const { return count_include_pad_; }

 private:
  bool count_include_pad_ = true;
};

namespace functional {
// input [N, C, H, W] (or [C, H, W]), weight [O, C / groups, kh, kw], bias [O]: the output
// [N, O, OH, OW] with OH = (H + 2 padding - dilation (kh - 1) - 1) / stride + 1, as
// torch.nn.functional.conv2d (a cross-correlation). Floating dtypes; every operand on one device.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Conv2dFuncOptions& options = {});
// The largest element of each window (padding never wins: it is -inf); NaN propagates.
Tensor max_pool2d(const Tensor& input, const MaxPool2dOptions& options);
// The mean of each window.
Tensor avg_pool2d(const Tensor& input, const AvgPool2dOptions& options);
}  // namespace functional

// Conv2d's options, as libtorch's: Conv2dOptions(in, out, kernel).stride(2).padding(1).
class Conv2dOptions {
 public:
  Conv2dOptions(int64_t in_channels, int64_t out_channels, Size2 kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  WICK_CONV_OPTION(Conv2dOptions, int64_t, in_channels)
  WICK_CONV_OPTION(Conv2dOptions, int64_t, out_channels)
  WICK_CONV_OPTION(Conv2dOptions, Size2, kernel_size)
  WICK_CONV_OPTION(Conv2dOptions, Size2, stride)
  WICK_CONV_PADDING(Conv2dOptions, Size2)
  WICK_CONV_OPTION(Conv2dOptions, Size2, dilation)
  WICK_CONV_OPTION(Conv2dOptions, int64_t, groups)
  WICK_CONV_OPTION(Conv2dOptions, bool, bias)
  // kZeros (the default), kReflect, kReplicate or kCircular: the input is padded by
  // functional::pad in that mode, then convolved without padding (as PyTorch's Conv2d).
  WICK_CONV_OPTION(Conv2dOptions, PadMode, padding_mode)

 private:
  int64_t in_channels_, out_channels_;
  Size2 kernel_size_, stride_ = 1, padding_ = 0, dilation_ = 1;
  std::optional<ConvPaddingMode> padding_by_name_;
  int64_t groups_ = 1;
  bool bias_ = true;
  PadMode padding_mode_ = kZeros;
};
#undef WICK_CONV_OPTION

// weight [out, in / groups, kh, kw] and bias [out] start as PyTorch's reset_parameters()
// leaves them: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with fan_in = in / groups * kh * kw (weight
// first, then bias, drawn with wick::rand). float32 on the CPU; Module::to moves or casts.
class Conv2dImpl : public Module {
 public:
  explicit Conv2dImpl(const Conv2dOptions& options);
  Conv2dImpl(int64_t in_channels, int64_t out_channels, Size2 kernel_size)
      : Conv2dImpl(Conv2dOptions(in_channels, out_channels, kernel_size)) {}
  Tensor forward(const Tensor& input) const;
  void reset_parameters();
  std::string extra_repr() const override;
  const Conv2dOptions& options() const { return options_; }

  Tensor weight;
  Tensor bias;  // undefined with bias(false)

 private:
  Conv2dOptions options_;
};
WICK_MODULE(Conv2d);

class MaxPool2dImpl : public Module {
 public:
  explicit MaxPool2dImpl(const MaxPool2dOptions& options) : options_(options) {}
  Tensor forward(const Tensor& input) const { return functional::max_pool2d(input, options_); }
  // The values and where each came from (pooling.hpp's max_pool2d_with_indices).
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input) const;
  std::string extra_repr() const override;

 private:
  MaxPool2dOptions options_;
};
WICK_MODULE(MaxPool2d);

class AvgPool2dImpl : public Module {
 public:
  explicit AvgPool2dImpl(const AvgPool2dOptions& options) : options_(options) {}
  Tensor forward(const Tensor& input) const { return functional::avg_pool2d(input, options_); }
  std::string extra_repr() const override;

 private:
  AvgPool2dOptions options_;
};
WICK_MODULE(AvgPool2d);

}  // namespace wick::nn
