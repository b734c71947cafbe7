// conv_transpose.hpp: transposed convolution (ConvTranspose1d/2d and their functional forms)
// and the sliding-window reshapes Unfold and Fold, as libtorch's. A transposed convolution is
// the adjoint of a convolution (the gradient of conv2d with respect to its input): each input
// position spreads weight-times-value over a kernel-sized patch of the output. Both are built
// from conv2d's window rows: unfold is im2col, and fold and conv_transpose2d are col2im, one
// index_add of the columns into the image rows, so they run on both devices, are differentiable,
// and give the same bits on every run. Tested in tests/nn/test_conv_transpose.cpp
// against torch 1.13's values, a direct float64 loop and gradcheck.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wick/nn/conv.hpp"
#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

#define WICK_WINDOW_OPTION(Class, type, name) \
  Class& name(const type& v) {                \
    name##_ = v;                              \
    return *this;                             \
  }                                           \
  const type& name() const { return name##_; }

// F::conv_transpose2d's options: bias (undefined: none), stride, padding, output_padding (added
// to one side of the output; smaller than the stride or the dilation), groups, dilation.
class ConvTranspose2dFuncOptions {
 public:
  WICK_WINDOW_OPTION(ConvTranspose2dFuncOptions, Tensor, bias)
  WICK_WINDOW_OPTION(ConvTranspose2dFuncOptions, Size2, stride)
  WICK_WINDOW_OPTION(ConvTranspose2dFuncOptions, Size2, padding)
  WICK_WINDOW_OPTION(ConvTranspose2dFuncOptions, Size2, output_padding)
  WICK_WINDOW_OPTION(ConvTranspose2dFuncOptions, int64_t, groups)
  WICK_WINDOW_OPTION(ConvTranspose2dFuncOptions, Size2, dilation)

 private:
  Tensor bias_;
  Size2 stride_ = 1, padding_ = 0, output_padding_ = 0;
  int64_t groups_ = 1;
  Size2 dilation_ = 1;
};

// The same for one spatial dim.
class ConvTranspose1dFuncOptions {
 public:
  WICK_WINDOW_OPTION(ConvTranspose1dFuncOptions, Tensor, bias)
  WICK_WINDOW_OPTION(ConvTranspose1dFuncOptions, int64_t, stride)
  WICK_WINDOW_OPTION(ConvTranspose1dFuncOptions, int64_t, padding)
  WICK_WINDOW_OPTION(ConvTranspose1dFuncOptions, int64_t, output_padding)
  WICK_WINDOW_OPTION(ConvTranspose1dFuncOptions, int64_t, groups)
  WICK_WINDOW_OPTION(ConvTranspose1dFuncOptions, int64_t, dilation)

 private:
  Tensor bias_;
  int64_t stride_ = 1, padding_ = 0, output_padding_ = 0, groups_ = 1, dilation_ = 1;
};

// F::unfold's options (torch.nn.Unfold's): kernel_size, dilation, padding, stride.
class UnfoldOptions {
 public:
  UnfoldOptions(Size2 kernel_size) : kernel_size_(kernel_size) {}  // NOLINT: implicit
  WICK_WINDOW_OPTION(UnfoldOptions, Size2, kernel_size)
  WICK_WINDOW_OPTION(UnfoldOptions, Size2, dilation)
  WICK_WINDOW_OPTION(UnfoldOptions, Size2, padding)
  WICK_WINDOW_OPTION(UnfoldOptions, Size2, stride)

 private:
  Size2 kernel_size_, dilation_ = 1, padding_ = 0, stride_ = 1;
};

// F::fold's options: the output image size, then as Unfold's.
class FoldOptions {
 public:
  FoldOptions(Size2 output_size, Size2 kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  WICK_WINDOW_OPTION(FoldOptions, Size2, output_size)
  WICK_WINDOW_OPTION(FoldOptions, Size2, kernel_size)
  WICK_WINDOW_OPTION(FoldOptions, Size2, dilation)
  WICK_WINDOW_OPTION(FoldOptions, Size2, padding)
  WICK_WINDOW_OPTION(FoldOptions, Size2, stride)

 private:
  Size2 output_size_, kernel_size_, dilation_ = 1, padding_ = 0, stride_ = 1;
};

namespace functional {
using UnfoldFuncOptions = UnfoldOptions;
using FoldFuncOptions = FoldOptions;

// input [N, C_in, H, W] (or [C_in, H, W]), weight [C_in, C_out / groups, kh, kw], bias [C_out]:
// [N, C_out, OH, OW] with OH = (H - 1) stride - 2 padding + dilation (kh - 1) + output_padding
// + 1, as torch.nn.functional.conv_transpose2d. Floating dtypes; every operand on one device.
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose2dFuncOptions& options = {});
// input [N, C_in, L] (or [C_in, L]), weight [C_in, C_out / groups, k]: conv_transpose2d on a
// height of 1.
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTranspose1dFuncOptions& options = {});
// input [N, C, H, W] (or [C, H, W]) -> [N, C * kh * kw, L] (or [C * kh * kw, L]): every
// sliding block as a column, channel-major within it, L blocks in row-major order (im2col).
Tensor unfold(const Tensor& input, const UnfoldOptions& options);
// The adjoint of unfold: input [N, C * kh * kw, L] (or unbatched) -> [N, C, H, W] with
// (H, W) = output_size, overlapping values summed. L must be the number of blocks that fit.
Tensor fold(const Tensor& input, const FoldOptions& options);
}  // namespace functional

// ConvTranspose2d's options, as libtorch's; padding_mode is zeros only (as PyTorch's).
class ConvTranspose2dOptions {
 public:
  ConvTranspose2dOptions(int64_t in_channels, int64_t out_channels, Size2 kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  WICK_WINDOW_OPTION(ConvTranspose2dOptions, int64_t, in_channels)
  WICK_WINDOW_OPTION(ConvTranspose2dOptions, int64_t, out_channels)
  WICK_WINDOW_OPTION(ConvTranspose2dOptions, Size2, kernel_size)
  WICK_WINDOW_OPTION(ConvTranspose2dOptions, Size2, stride)
  WICK_WINDOW_OPTION(ConvTranspose2dOptions, Size2, padding)
  WICK_WINDOW_OPTION(ConvTranspose2dOptions, Size2, output_padding)
  WICK_WINDOW_OPTION(ConvTranspose2dOptions, int64_t, groups)
  WICK_WINDOW_OPTION(ConvTranspose2dOptions, bool, bias)
  WICK_WINDOW_OPTION(ConvTranspose2dOptions, Size2, dilation)

 private:
  int64_t in_channels_, out_channels_;
  Size2 kernel_size_, stride_ = 1, padding_ = 0, output_padding_ = 0;
  int64_t groups_ = 1;
  bool bias_ = true;
  Size2 dilation_ = 1;
};

class ConvTranspose1dOptions {
 public:
  ConvTranspose1dOptions(int64_t in_channels, int64_t out_channels, int64_t kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  WICK_WINDOW_OPTION(ConvTranspose1dOptions, int64_t, in_channels)
  WICK_WINDOW_OPTION(ConvTranspose1dOptions, int64_t, out_channels)
  WICK_WINDOW_OPTION(ConvTranspose1dOptions, int64_t, kernel_size)
  WICK_WINDOW_OPTION(ConvTranspose1dOptions, int64_t, stride)
  WICK_WINDOW_OPTION(ConvTranspose1dOptions, int64_t, padding)
  WICK_WINDOW_OPTION(ConvTranspose1dOptions, int64_t, output_padding)
  WICK_WINDOW_OPTION(ConvTranspose1dOptions, int64_t, groups)
  WICK_WINDOW_OPTION(ConvTranspose1dOptions, bool, bias)
  WICK_WINDOW_OPTION(ConvTranspose1dOptions, int64_t, dilation)

 private:
  int64_t in_channels_, out_channels_, kernel_size_, stride_ = 1, padding_ = 0, output_padding_ = 0,
                                                     groups_ = 1;
  bool bias_ = true;
  int64_t dilation_ = 1;
};
#undef WICK_WINDOW_OPTION

// weight [in, out / groups, kh, kw] and bias [out] start as PyTorch's reset_parameters() leaves
// them: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with PyTorch's fan_in of that weight,
// out / groups * kh * kw (weight first, then bias, drawn with wick::rand).
class ConvTranspose2dImpl : public Module {
 public:
  explicit ConvTranspose2dImpl(const ConvTranspose2dOptions& options);
  ConvTranspose2dImpl(int64_t in_channels, int64_t out_channels, Size2 kernel_size)
      : ConvTranspose2dImpl(ConvTranspose2dOptions(in_channels, out_channels, kernel_size)) {}
  // output_size (empty, or the last 2 or all of the output's sizes) picks output_padding, as
  // PyTorch's forward(input, output_size): the stride leaves that many sizes possible.
  Tensor forward(const Tensor& input, const std::vector<int64_t>& output_size = {}) const;
  void reset_parameters();
  std::string extra_repr() const override;
  const ConvTranspose2dOptions& options() const { return options_; }

  Tensor weight;
  Tensor bias;  // undefined with bias(false)

 private:
  ConvTranspose2dOptions options_;
};
WICK_MODULE(ConvTranspose2d);

class ConvTranspose1dImpl : public Module {
 public:
  explicit ConvTranspose1dImpl(const ConvTranspose1dOptions& options);
  ConvTranspose1dImpl(int64_t in_channels, int64_t out_channels, int64_t kernel_size)
      : ConvTranspose1dImpl(ConvTranspose1dOptions(in_channels, out_channels, kernel_size)) {}
  Tensor forward(const Tensor& input, const std::vector<int64_t>& output_size = {}) const;
  void reset_parameters();
  std::string extra_repr() const override;
  const ConvTranspose1dOptions& options() const { return options_; }

  Tensor weight;
  Tensor bias;

 private:
  ConvTranspose1dOptions options_;
};
WICK_MODULE(ConvTranspose1d);

class UnfoldImpl : public Module {
 public:
  explicit UnfoldImpl(const UnfoldOptions& options) : options_(options) {}
  Tensor forward(const Tensor& input) const { return functional::unfold(input, options_); }
  std::string extra_repr() const override;

 private:
  UnfoldOptions options_;
};
WICK_MODULE(Unfold);

class FoldImpl : public Module {
 public:
  explicit FoldImpl(const FoldOptions& options) : options_(options) {}
  Tensor forward(const Tensor& input) const { return functional::fold(input, options_); }
  std::string extra_repr() const override;

 private:
  FoldOptions options_;
};
WICK_MODULE(Fold);

}  // namespace wick::nn
