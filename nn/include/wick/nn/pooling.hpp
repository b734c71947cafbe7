// pooling.hpp: the pooling layers beside MaxPool2d and AvgPool2d (conv.hpp), as libtorch's:
// max pooling that also returns where each maximum came from (max_pool2d_with_indices) and its
// inverse MaxUnpool2d; the 1-D poolings MaxPool1d and AvgPool1d (the 2-D ones on a height of
// 1); and the adaptive poolings AdaptiveMaxPool1d/2d and AdaptiveAvgPool1d. Built from
// index_select, max, gather and scatter, so they run on both devices and are differentiable.
// Tested in tests/nn/test_pooling.cpp against torch 1.13's values and by gradcheck.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "wick/nn/conv.hpp"
#include "wick/nn/conv1d.hpp"
#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

// MaxPool1d's and AvgPool1d's options: kernel_size, stride (the kernel size unless set),
// padding, dilation (max only), ceil_mode, count_include_pad (avg only, default true).
class Pool1dOptions {
 public:
  Pool1dOptions(int64_t kernel_size) : kernel_size_(kernel_size) {}  // NOLINT: implicit
  Pool1dOptions& stride(int64_t v) {
    stride_ = v;
    return *this;
  }
  Pool1dOptions& padding(int64_t v) {
    padding_ = v;
    return *this;
  }
  Pool1dOptions& dilation(int64_t v) {
    dilation_ = v;
    return *this;
  }
  Pool1dOptions& ceil_mode(bool v) {
    ceil_mode_ = v;
    return *this;
  }
  Pool1dOptions& count_include_pad(bool v) {
    count_include_pad_ = v;
    return *this;
  }
  int64_t kernel_size() const { return kernel_size_; }
  int64_t stride() const { return stride_.value_or(kernel_size_); }
  int64_t padding() const { return padding_; }
  int64_t dilation() const { return dilation_; }
  bool ceil_mode() const { return ceil_mode_; }
  bool count_include_pad() const { return count_include_pad_; }

 private:
  int64_t kernel_size_;
  std::optional<int64_t> stride_;
  int64_t padding_ = 0, dilation_ = 1;
  bool ceil_mode_ = false, count_include_pad_ = true;
};
using MaxPool1dOptions = Pool1dOptions;
using AvgPool1dOptions = Pool1dOptions;

// MaxUnpool2d's options: kernel_size, stride (the kernel size unless set), padding; the
// functional form also takes output_size (the last two or all sizes), which picks among the
// sizes the stride allows.
class MaxUnpool2dOptions {
 public:
  MaxUnpool2dOptions(Size2 kernel_size) : kernel_size_(kernel_size) {}  // NOLINT: implicit
  MaxUnpool2dOptions& stride(Size2 v) {
    stride_ = v;
    return *this;
  }
  MaxUnpool2dOptions& padding(Size2 v) {
    padding_ = v;
    return *this;
  }
  MaxUnpool2dOptions& output_size(std::vector<int64_t> v) {
    output_size_ = std::move(v);
    return *this;
  }
  Size2 kernel_size() const { return kernel_size_; }
  Size2 stride() const { return stride_.value_or(kernel_size_); }
  Size2 padding() const { return padding_; }
  const std::vector<int64_t>& output_size() const { return output_size_; }

 private:
  Size2 kernel_size_;
  std::optional<Size2> stride_;
  Size2 padding_ = 0;
  std::vector<int64_t> output_size_;
};
using MaxUnpool2dFuncOptions = MaxUnpool2dOptions;

namespace functional {
// max_pool2d's values and, for each, the index of the element it came from in its input plane
// (h * W + w, int64), as torch's return_indices: the first largest element of the window, or
// its last NaN.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input,
                                                   const MaxPool2dOptions& options);
// input [N, C, H, W] (or [C, H, W]) with the indices max_pool2d_with_indices gave: each value
// written at its index of a zero [N, C, OH, OW] plane, OH = (H - 1) stride - 2 padding + kernel
// unless output_size says otherwise.
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dOptions& options);
// [N, C, L] (or [C, L]) pooled along L.
Tensor max_pool1d(const Tensor& input, const Pool1dOptions& options);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input,
                                                   const Pool1dOptions& options);
Tensor avg_pool1d(const Tensor& input, const Pool1dOptions& options);
// Window i of L -> out covers [floor(i L / out), ceil((i + 1) L / out)), as adaptive_avg_pool2d.
Tensor adaptive_avg_pool1d(const Tensor& input, int64_t output_size);
// The largest element of each adaptive window (the first of equals; NaN wins), and its index
// in the input plane.
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input, Size2 output_size);
Tensor adaptive_max_pool2d(const Tensor& input, Size2 output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            int64_t output_size);
Tensor adaptive_max_pool1d(const Tensor& input, int64_t output_size);
}  // namespace functional

class MaxPool1dImpl : public Module {
 public:
  explicit MaxPool1dImpl(const Pool1dOptions& options) : options_(options) {}
  Tensor forward(const Tensor& input) const { return functional::max_pool1d(input, options_); }
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input) const {
    return functional::max_pool1d_with_indices(input, options_);
  }
  std::string extra_repr() const override;

 private:
  Pool1dOptions options_;
};
WICK_MODULE(MaxPool1d);

class AvgPool1dImpl : public Module {
 public:
  explicit AvgPool1dImpl(const Pool1dOptions& options) : options_(options) {}
  Tensor forward(const Tensor& input) const { return functional::avg_pool1d(input, options_); }
  std::string extra_repr() const override;

 private:
  Pool1dOptions options_;
};
WICK_MODULE(AvgPool1d);

class MaxUnpool2dImpl : public Module {
 public:
  explicit MaxUnpool2dImpl(const MaxUnpool2dOptions& options) : options_(options) {}
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::vector<int64_t>& output_size = {}) const;
  std::string extra_repr() const override;

 private:
  MaxUnpool2dOptions options_;
};
WICK_MODULE(MaxUnpool2d);

class AdaptiveAvgPool1dImpl : public Module {
 public:
  explicit AdaptiveAvgPool1dImpl(int64_t output_size) : output_size_(output_size) {}
  Tensor forward(const Tensor& input) const {
    return functional::adaptive_avg_pool1d(input, output_size_);
  }
  std::string extra_repr() const override;

 private:
  int64_t output_size_;
};
WICK_MODULE(AdaptiveAvgPool1d);

class AdaptiveMaxPool2dImpl : public Module {
 public:
  explicit AdaptiveMaxPool2dImpl(Size2 output_size) : output_size_(output_size) {}
  Tensor forward(const Tensor& input) const {
    return functional::adaptive_max_pool2d(input, output_size_);
  }
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input) const {
    return functional::adaptive_max_pool2d_with_indices(input, output_size_);
  }
  std::string extra_repr() const override;

 private:
  Size2 output_size_;
};
WICK_MODULE(AdaptiveMaxPool2d);

class AdaptiveMaxPool1dImpl : public Module {
 public:
  explicit AdaptiveMaxPool1dImpl(int64_t output_size) : output_size_(output_size) {}
  Tensor forward(const Tensor& input) const {
    return functional::adaptive_max_pool1d(input, output_size_);
  }
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input) const {
    return functional::adaptive_max_pool1d_with_indices(input, output_size_);
  }
  std::string extra_repr() const override;

 private:
  int64_t output_size_;
};
WICK_MODULE(AdaptiveMaxPool1d);

}  // namespace wick::nn
