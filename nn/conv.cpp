// conv.cpp: conv2d, max_pool2d and avg_pool2d as im2col (one index_select) and then a matmul
// or a reduction over the window, so both devices and autograd come from existing ops.
//
// The input [N, C, H, W] is laid out as rows [C * H * W + 1, N]: one row per input position
// holding that position of every image, plus one last row of the padding value (0, or -inf for
// max). A window element is then a row index: the row of (c, ih, iw), or the padding row where
// (ih, iw) falls outside the image. Selecting rows in the order (c, ki, kj, oh, ow) gives the
// columns [C * kh * kw, OH * OW * N] in one index_select, whose every copy is a contiguous row of
// N elements; conv2d is then one matmul of the weight [O, C * kh * kw] with them (groups: a
// batch of g such products), and pooling a max or mean over the kh * kw rows of each (c, oh, ow).
// Backward, index_select's rule adds the columns' gradients back into the rows with index_add,
// in index order.
#include "wick/nn/conv.hpp"

#include <cmath>
#include <limits>

#include "wick/autograd.hpp"
#include "wick/nn/pooling.hpp"

#include "channel_checks.hpp"
#include "im2col.hpp"
#include "init_uniform.hpp"

namespace wick::nn {
using detail::batched;
using detail::Geometry;
using detail::geometry;
using detail::im2col;
using detail::to_images;
using detail::Window;

namespace {

// geometry() for pooling, whose padding must be at most half the kernel (as PyTorch's), so
// that no window is padding only.
Geometry pooling_geometry(const char* op, const Tensor& x, const Window& w) {
  WICK_CHECK(2 * w.padding.h <= w.kernel.h && 2 * w.padding.w <= w.kernel.w, ValueError, op,
             "padding (", w.padding.h, ", ", w.padding.w,
             ") should be at most half of the kernel (", w.kernel.h, ", ", w.kernel.w, ")");
  return geometry(op, x, w);
}

// For each output position, how many of its window's elements lie inside the image, or with
// padded inside the image and its padding: [OH * OW] float64 on the CPU.
Tensor window_counts(const Geometry& g, const Window& w, bool padded) {
  const int64_t ph = padded ? w.padding.h : 0, pw = padded ? w.padding.w : 0;
  auto span = [](int64_t start, int64_t k, int64_t d, int64_t lo, int64_t hi) {
    int64_t inside = 0;
    for (int64_t i = 0; i < k; ++i) inside += (start + i * d >= lo && start + i * d < hi) ? 1 : 0;
    return inside;
  };
  Tensor counts = empty({g.out_h * g.out_w}, TensorOptions(kFloat64));
  double* out = counts.data_ptr<double>();
  for (int64_t oh = 0; oh < g.out_h; ++oh) {
    const int64_t rows =
        span(oh * w.stride.h - w.padding.h, w.kernel.h, w.dilation.h, -ph, g.height + ph);
    for (int64_t ow = 0; ow < g.out_w; ++ow) {
      const int64_t cols =
          span(ow * w.stride.w - w.padding.w, w.kernel.w, w.dilation.w, -pw, g.width + pw);
      *out++ = static_cast<double>(rows * cols);
    }
  }
  return counts;
}

}  // namespace

namespace {

// kSame's padding of one dim: d (k - 1) in all, the odd one on the right, as PyTorch's.
std::pair<int64_t, int64_t> same_sides(int64_t kernel, int64_t dilation) {
  const int64_t total = dilation * (kernel - 1);
  return {total / 2, total - total / 2};
}

void check_same_stride(const char* op, Size2 stride) {
  WICK_CHECK(stride.h == 1 && stride.w == 1, ValueError, op,
             "padding same is not supported for strided convolutions, got stride (", stride.h, ", ",
             stride.w, ")");
}

}  // namespace

Tensor functional::conv2d(const Tensor& input, const Tensor& weight,
                          const Conv2dFuncOptions& options) {
  const char* op = "conv2d";
  WICK_CHECK(weight.defined() && weight.dim() == 4, ShapeError, op,
             "expected a 4-D weight [out, in / groups, kh, kw], got ",
             weight.defined() ? describe(weight) : std::string("undefined"));
  if (options.padding_by_name() == kSame) {
    check_same_stride(op, options.stride());
    WICK_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4), ShapeError, op,
               "expected a 3-D (unbatched) or 4-D (batched) input, got ",
               input.defined() ? describe(input) : std::string("undefined"));
    const auto [top, bottom] = same_sides(weight.size(2), options.dilation().h);
    const auto [left, right] = same_sides(weight.size(3), options.dilation().w);
    // The odd row or column first, on the far side; then the symmetric padding.
    const Tensor padded = (bottom == top && right == left)
                              ? input
                              : pad(input, PadFuncOptions({0, right - left, 0, bottom - top}));
    return conv2d(padded, weight, Conv2dFuncOptions(options).padding(Size2(top, left)));
  }
  auto [x, unbatched] = batched(op, input);
  const int64_t groups = options.groups(), out_channels = weight.size(0);
  const Tensor& bias = options.bias();
  detail::check_conv_operands(op, input, weight, bias, groups, 2);
  const Window w{
      {weight.size(2), weight.size(3)}, options.stride(), options.padding(), options.dilation()};
  const Geometry g = geometry(op, x, w);
  const int64_t n = x.size(0), k = weight.size(1) * w.kernel.h * w.kernel.w;
  const int64_t positions = g.out_h * g.out_w;
  // [g, C / g * kh * kw, OH * OW * N]: the columns of each group are consecutive rows.
  const Tensor cols = im2col(x, g, w, 0.0).reshape({groups, k, positions * n});
  // [g, O / g, k] x [g, k, OH * OW * N] -> [O, OH * OW, N].
  Tensor out = matmul(weight.reshape({groups, out_channels / groups, k}), cols)
                   .reshape({out_channels, positions, n});
  if (bias.defined()) out = out + bias.reshape({out_channels, 1, 1});
  return to_images(out, g, unbatched);
}

namespace {

// max_pool2d's values and, with with_indices, each one's index in its input plane (h * W + w).
std::pair<Tensor, Tensor> max_pool(const Tensor& input, const MaxPool2dOptions& options,
                                   bool with_indices) {
  const char* op = "max_pool2d";
  auto [x, unbatched] = batched(op, input);
  const Window w{options.kernel_size(), options.stride(), options.padding(), options.dilation(),
                 options.ceil_mode()};
  const Geometry g = pooling_geometry(op, x, w);
  const int64_t n = x.size(0), window = w.kernel.h * w.kernel.w;
  const Tensor cols = im2col(x, g, w, -std::numeric_limits<double>::infinity())
                          .reshape({g.channels, window, g.out_h * g.out_w, n});
  // The largest value of each window (NaN if it holds one). Its gradient goes to one element
  // per window, torch's choice, only computed while the input is recorded or the indices are
  // asked for: the last NaN, else the first largest element inside the input, never the
  // padding (an all -inf window gives its first element inside the input).
  if (!with_indices && !(GradMode::is_enabled() && x.requires_grad())) {
    return {to_images(std::get<0>(max(cols, 1)), g, unbatched), Tensor()};
  }
  const Tensor inside = im2col(ones_like(x, x.options().requires_grad(false)), g, w, 0.0)
                            .reshape(cols.sizes())
                            .to(kBool);
  const Tensor choice = detail::max_choice(cols.detach(), 1, inside);
  const Tensor best = gather(cols, 1, choice).squeeze(1);
  Tensor indices;
  if (with_indices) {
    // The chosen element's row of the image table, less its channel's first row.
    const int64_t plane = g.height * g.width;
    const Tensor rows = detail::window_rows(g, w, x.device())
                            .reshape({g.channels, window, g.out_h * g.out_w, 1})
                            .expand(cols.sizes());
    const Tensor first_row = (arange(g.channels, TensorOptions(kInt64).device(x.device())) * plane)
                                 .reshape({g.channels, 1, 1});
    indices = to_images(gather(rows, 1, choice).squeeze(1) - first_row, g, unbatched);
  }
  return {to_images(best, g, unbatched), indices};
}

}  // namespace

Tensor functional::max_pool2d(const Tensor& input, const MaxPool2dOptions& options) {
  return max_pool(input, options, false).first;
}

std::tuple<Tensor, Tensor> functional::max_pool2d_with_indices(const Tensor& input,
                                                               const MaxPool2dOptions& options) {
  auto [values, indices] = max_pool(input, options, true);
  return {values, indices};
}

std::tuple<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) const {
  return functional::max_pool2d_with_indices(input, options_);
}

Tensor functional::avg_pool2d(const Tensor& input, const AvgPool2dOptions& options) {
  const char* op = "avg_pool2d";
  auto [x, unbatched] = batched(op, input);
  const Window w{options.kernel_size(), options.stride(), options.padding(), 1,
                 options.ceil_mode()};
  const Geometry g = pooling_geometry(op, x, w);
  const int64_t n = x.size(0), window = w.kernel.h * w.kernel.w;
  const int64_t positions = g.out_h * g.out_w;
  const Tensor cols = im2col(x, g, w, 0.0).reshape({g.channels, window, positions, n});
  if (options.count_include_pad() && !w.ceil_mode) return to_images(mean(cols, 1), g, unbatched);
  // Otherwise each window's divisor is its own, as PyTorch's: the elements inside the image
  // (count_include_pad false), or inside the padded image (a ceil_mode window can reach past it).
  const Tensor counts =
      window_counts(g, w, options.count_include_pad()).to(x.dtype()).to(x.device());
  return to_images(sum(cols, 1) / counts.reshape({1, positions, 1}), g, unbatched);
}

Conv2dImpl::Conv2dImpl(const Conv2dOptions& options) : options_(options) {
  const char* op = "nn::Conv2d";
  const int64_t in = options.in_channels(), out = options.out_channels(), g = options.groups();
  detail::check_conv_channels(op, in, out, g);
  detail::check_window(
      op, {options.kernel_size(), options.stride(), options.padding(), options.dilation()});
  if (options.padding_by_name() == kSame) check_same_stride(op, options.stride());
  weight = register_parameter(
      "weight", empty({out, in / g, options.kernel_size().h, options.kernel_size().w}));
  if (options.bias()) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void Conv2dImpl::reset_parameters() {
  NoGradGuard no_grad;
  detail::fill_conv_parameters(weight, bias);
}

Tensor Conv2dImpl::forward(const Tensor& input) const {
  const Size2 p = options_.padding();
  const bool zeros = options_.padding_mode() == kZeros;
  const bool same = options_.padding_by_name() == kSame;
  Conv2dFuncOptions conv = Conv2dFuncOptions()
                               .bias(bias)
                               .stride(options_.stride())
                               .dilation(options_.dilation())
                               .groups(options_.groups());
  if (zeros) {
    if (same) return functional::conv2d(input, weight, conv.padding(kSame));
    return functional::conv2d(input, weight, conv.padding(p));
  }
  // Reflect, replicate or circular: the input padded in that mode, then no padding.
  std::vector<int64_t> sides = {p.w, p.w, p.h, p.h};
  if (same) {
    const auto [top, bottom] = same_sides(options_.kernel_size().h, options_.dilation().h);
    const auto [left, right] = same_sides(options_.kernel_size().w, options_.dilation().w);
    sides = {left, right, top, bottom};
  }
  const Tensor x = functional::pad(input, PadFuncOptions(sides).mode(options_.padding_mode()));
  return functional::conv2d(x, weight, conv.padding(Size2(0)));
}

using detail::pair_text;

std::string Conv2dImpl::extra_repr() const {
  std::string text = wick::detail::str_cat(options_.in_channels(), ", ", options_.out_channels(),
                                           ", kernel_size=", pair_text(options_.kernel_size()),
                                           ", stride=", pair_text(options_.stride()));
  if (options_.padding_by_name()) {
    text += options_.padding_by_name() == kSame ? ", padding=same" : ", padding=valid";
  } else if (!(options_.padding() == Size2(0))) {
    text += ", padding=" + pair_text(options_.padding());
  }
  if (!(options_.dilation() == Size2(1))) text += ", dilation=" + pair_text(options_.dilation());
  if (options_.groups() != 1) text += wick::detail::str_cat(", groups=", options_.groups());
  if (!options_.bias()) text += ", bias=False";
  if (options_.padding_mode() != kZeros) {
    const PadMode m = options_.padding_mode();
    text += std::string(", padding_mode=") + (m == kReflect     ? "reflect"
                                              : m == kReplicate ? "replicate"
                                                                : "circular");
  }
  return text;
}

std::string MaxPool2dImpl::extra_repr() const {
  return "kernel_size=" + pair_text(options_.kernel_size()) +
         ", stride=" + pair_text(options_.stride()) + ", padding=" + pair_text(options_.padding()) +
         ", dilation=" + pair_text(options_.dilation());
}

std::string AvgPool2dImpl::extra_repr() const {
  return "kernel_size=" + pair_text(options_.kernel_size()) +
         ", stride=" + pair_text(options_.stride()) + ", padding=" + pair_text(options_.padding());
}

}  // namespace wick::nn
