// conv_transpose.cpp: conv_transpose2d, conv_transpose1d, unfold and fold on conv2d's window
// rows (im2col.hpp).
//
// conv_transpose2d reads conv2d backwards. conv2d of an image [C_out, OH, OW] with a window w
// has one output position per input position (h, w) of the transposed convolution. So the
// product weight^T [C_out * kh * kw, C_in] x input [C_in, H * W * N] gives, for every input
// position, what it adds to each element of its window, in the row order (c, ki, kj, h, w) of
// conv2d's columns; col2im sums them into the image with one index_add (elements that fall in
// the padding go to the padding row and are dropped). Backward comes from matmul's and
// index_add's rules: the input's gradient is conv2d of the output's gradient.
#include "wick/nn/conv_transpose.hpp"

#include <cmath>

#include "wick/autograd.hpp"

#include "channel_checks.hpp"
#include "im2col.hpp"
#include "init_uniform.hpp"

namespace wick::nn {

using detail::Geometry;
using detail::pair_text;
using detail::Window;

namespace {

// The transposed convolution's output size along one dim, checked as PyTorch's: output_padding
// below the stride or the dilation, and a positive result.
int64_t transposed_size(const char* op, const Tensor& input, int64_t in, int64_t k, int64_t s,
                        int64_t p, int64_t d, int64_t output_padding) {
  WICK_CHECK(output_padding >= 0 && (output_padding < s || output_padding < d), ValueError, op,
             "output_padding ", output_padding, " must be smaller than either the stride ", s,
             " or the dilation ", d);
  const int64_t out = (in - 1) * s - 2 * p + d * (k - 1) + output_padding + 1;
  WICK_CHECK(out > 0, ShapeError, op, "the input ", describe(input), " with kernel ", k,
             ", stride ", s, ", padding ", p, " and dilation ", d, " gives an output size of ", out,
             ", which is not positive");
  return out;
}

std::string size_text(const Size2& s) { return s.h == s.w ? std::to_string(s.h) : pair_text(s); }

}  // namespace

Tensor functional::conv_transpose2d(const Tensor& input, const Tensor& weight,
                                    const ConvTranspose2dFuncOptions& options) {
  const char* op = "conv_transpose2d";
  auto [x, unbatched] = detail::batched(op, input);
  WICK_CHECK(weight.defined() && weight.dim() == 4, ShapeError, op,
             "expected a 4-D weight [in, out / groups, kh, kw], got ",
             weight.defined() ? describe(weight) : std::string("undefined"));
  const int64_t groups = options.groups();
  const Tensor& bias = options.bias();
  detail::check_conv_operands(op, input, weight, bias, groups, 2, /*transposed=*/true);
  const Window w{
      {weight.size(2), weight.size(3)}, options.stride(), options.padding(), options.dilation()};
  detail::check_window(op, w);
  const Size2 extra = options.output_padding();
  const int64_t in_channels = weight.size(0), out_channels = weight.size(1) * groups;
  const int64_t height = x.size(2), width = x.size(3), n = x.size(0);
  // conv2d's geometry on the output image: its "output positions" are this input's positions.
  const Geometry g{
      out_channels,
      transposed_size(op, input, height, w.kernel.h, w.stride.h, w.padding.h, w.dilation.h,
                      extra.h),
      transposed_size(op, input, width, w.kernel.w, w.stride.w, w.padding.w, w.dilation.w, extra.w),
      height, width};
  detail::check_index_size(op, input, g, w);
  const int64_t k = weight.size(1) * w.kernel.h * w.kernel.w;
  // [C_in, H * W, N] as [g, C_in / g, H * W * N]; the weight's [C_in / g, k] blocks transposed.
  const Tensor rows = x.reshape({n, in_channels, height * width})
                          .permute({1, 2, 0})
                          .reshape({groups, in_channels / groups, height * width * n});
  const Tensor cols =
      matmul(weight.reshape({groups, in_channels / groups, k}).transpose(1, 2), rows)
          .reshape({out_channels * w.kernel.h * w.kernel.w, height * width, n});
  Tensor out = detail::col2im(cols, g, w);
  if (bias.defined()) out = out + bias.reshape({1, out_channels, 1, 1});
  return unbatched ? out.squeeze(0) : out;
}

Tensor functional::conv_transpose1d(const Tensor& input, const Tensor& weight,
                                    const ConvTranspose1dFuncOptions& options) {
  const char* op = "conv_transpose1d";
  WICK_CHECK(input.defined() && weight.defined(), ValueError, op,
             "input and weight must be defined tensors");
  WICK_CHECK(input.dim() == 2 || input.dim() == 3, ShapeError, op, "input ", describe(input),
             " must be [N, C, L] or [C, L]");
  WICK_CHECK(weight.dim() == 3, ShapeError, op, "weight ", describe(weight),
             " must be [in_channels, out_channels / groups, kernel_size]");
  detail::check_conv_operands(op, input, weight, options.bias(), options.groups(), 1,
                              /*transposed=*/true);
  // Checked here so that messages name conv_transpose1d and its sizes, not (1, s) pairs.
  detail::check_window(op, {Size2(1, weight.size(2)), Size2(1, options.stride()),
                            Size2(0, options.padding()), Size2(1, options.dilation())});
  transposed_size(op, input, input.size(-1), weight.size(2), options.stride(), options.padding(),
                  options.dilation(), options.output_padding());
  const Tensor out = conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(2),
                                      ConvTranspose2dFuncOptions()
                                          .bias(options.bias())
                                          .stride(Size2(1, options.stride()))
                                          .padding(Size2(0, options.padding()))
                                          .output_padding(Size2(0, options.output_padding()))
                                          .dilation(Size2(1, options.dilation()))
                                          .groups(options.groups()));
  return out.squeeze(-2);
}

Tensor functional::unfold(const Tensor& input, const UnfoldOptions& options) {
  const char* op = "unfold";
  auto [x, unbatched] = detail::batched(op, input);
  const Window w{options.kernel_size(), options.stride(), options.padding(), options.dilation()};
  const Geometry g = detail::geometry(op, x, w);
  // [C * kh * kw, L, N] -> [N, C * kh * kw, L].
  const Tensor cols = detail::im2col(x, g, w, 0.0).permute({2, 0, 1}).contiguous();
  return unbatched ? cols.squeeze(0) : cols;
}

Tensor functional::fold(const Tensor& input, const FoldOptions& options) {
  const char* op = "fold";
  WICK_CHECK(input.defined(), ValueError, op, "the input is undefined");
  WICK_CHECK(input.dim() == 2 || input.dim() == 3, ShapeError, op,
             "expected a 2-D (unbatched) or 3-D (batched) input [N, C * kh * kw, L], got ",
             describe(input));
  WICK_CHECK(input.is_floating_point(), DtypeError, op, "expected a floating input, got ",
             describe(input));
  const Window w{options.kernel_size(), options.stride(), options.padding(), options.dilation()};
  detail::check_window(op, w);
  const Size2 image = options.output_size();
  WICK_CHECK(image.h > 0 && image.w > 0, ValueError, op, "output_size must be positive, got ",
             pair_text(image));
  const Tensor x = input.dim() == 2 ? input.unsqueeze(0) : input;
  const int64_t window = w.kernel.h * w.kernel.w, rows = x.size(1);
  WICK_CHECK(rows % window == 0, ShapeError, op, "the input ", describe(input), "'s dim of size ",
             rows, " is not divisible by the kernel's ", window, " elements ", pair_text(w.kernel));
  const Geometry g{rows / window, image.h, image.w,
                   detail::out_size(op, input, image.h, w.kernel.h, w.stride.h, w.padding.h,
                                    w.dilation.h, false),
                   detail::out_size(op, input, image.w, w.kernel.w, w.stride.w, w.padding.w,
                                    w.dilation.w, false)};
  WICK_CHECK(x.size(2) == g.out_h * g.out_w, ShapeError, op, "the input ", describe(input), " has ",
             x.size(2), " blocks; output_size ", pair_text(image), " with kernel ",
             pair_text(w.kernel), ", stride ", pair_text(w.stride), ", padding ",
             pair_text(w.padding), " and dilation ", pair_text(w.dilation), " gives ", g.out_h,
             " x ", g.out_w, " = ", g.out_h * g.out_w);
  detail::check_index_size(op, input, g, w);
  const Tensor out = detail::col2im(x.permute({1, 2, 0}), g, w);
  return input.dim() == 2 ? out.squeeze(0) : out;
}

ConvTranspose2dImpl::ConvTranspose2dImpl(const ConvTranspose2dOptions& options)
    : options_(options) {
  const char* op = "nn::ConvTranspose2d";
  const int64_t in = options.in_channels(), out = options.out_channels(), g = options.groups();
  detail::check_conv_channels(op, in, out, g);
  detail::check_window(
      op, {options.kernel_size(), options.stride(), options.padding(), options.dilation()});
  weight = register_parameter(
      "weight", empty({in, out / g, options.kernel_size().h, options.kernel_size().w}));
  if (options.bias()) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void ConvTranspose2dImpl::reset_parameters() {
  NoGradGuard no_grad;
  detail::fill_conv_parameters(weight, bias);
}

namespace {

// output_padding for the requested output size of one dim, as PyTorch's _output_padding: the
// sizes from the smallest (no padding) to that plus stride - 1 are possible.
int64_t padding_for(const char* op, const Tensor& input, int64_t want, int64_t in, int64_t k,
                    int64_t s, int64_t p, int64_t d) {
  const int64_t smallest = (in - 1) * s - 2 * p + d * (k - 1) + 1;
  WICK_CHECK(want >= smallest && want <= smallest + s - 1, ValueError, op,
             "requested an output size of ", want, ", but valid sizes for the input ",
             describe(input), " range from ", smallest, " to ", smallest + s - 1);
  return want - smallest;
}

// The last `spatial` sizes of output_size (which holds those or all of the output's sizes).
std::vector<int64_t> spatial_sizes(const char* op, const Tensor& input,
                                   const std::vector<int64_t>& output_size, size_t spatial) {
  const size_t given = output_size.size();
  WICK_CHECK(given == spatial || given == spatial + 1 || given == spatial + 2, ValueError, op,
             "output_size must have ", spatial, ", ", spatial + 1, " or ", spatial + 2,
             " elements, got ", given, " for the input ", describe(input));
  return {output_size.end() - static_cast<std::ptrdiff_t>(spatial), output_size.end()};
}

}  // namespace

Tensor ConvTranspose2dImpl::forward(const Tensor& input,
                                    const std::vector<int64_t>& output_size) const {
  const char* op = "nn::ConvTranspose2d";
  Size2 extra = options_.output_padding();
  if (!output_size.empty()) {
    WICK_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4), ShapeError, op,
               "expected a 3-D or 4-D input, got ",
               input.defined() ? describe(input) : std::string("undefined"));
    const std::vector<int64_t> want = spatial_sizes(op, input, output_size, 2);
    const Size2 k = options_.kernel_size(), s = options_.stride(), p = options_.padding(),
                d = options_.dilation();
    extra = Size2(padding_for(op, input, want[0], input.size(-2), k.h, s.h, p.h, d.h),
                  padding_for(op, input, want[1], input.size(-1), k.w, s.w, p.w, d.w));
  }
  return functional::conv_transpose2d(input, weight,
                                      ConvTranspose2dFuncOptions()
                                          .bias(bias)
                                          .stride(options_.stride())
                                          .padding(options_.padding())
                                          .output_padding(extra)
                                          .dilation(options_.dilation())
                                          .groups(options_.groups()));
}

std::string ConvTranspose2dImpl::extra_repr() const {
  std::string text = wick::detail::str_cat(options_.in_channels(), ", ", options_.out_channels(),
                                           ", kernel_size=", pair_text(options_.kernel_size()),
                                           ", stride=", pair_text(options_.stride()));
  if (!(options_.padding() == Size2(0))) text += ", padding=" + pair_text(options_.padding());
  if (!(options_.dilation() == Size2(1))) text += ", dilation=" + pair_text(options_.dilation());
  if (!(options_.output_padding() == Size2(0))) {
    text += ", output_padding=" + pair_text(options_.output_padding());
  }
  if (options_.groups() != 1) text += wick::detail::str_cat(", groups=", options_.groups());
  if (!options_.bias()) text += ", bias=False";
  return text;
}

ConvTranspose1dImpl::ConvTranspose1dImpl(const ConvTranspose1dOptions& options)
    : options_(options) {
  const char* op = "nn::ConvTranspose1d";
  const int64_t in = options.in_channels(), out = options.out_channels(), g = options.groups();
  detail::check_conv_channels(op, in, out, g);
  detail::check_window(op, {Size2(1, options.kernel_size()), Size2(1, options.stride()),
                            Size2(0, options.padding()), Size2(1, options.dilation())});
  weight = register_parameter("weight", empty({in, out / g, options.kernel_size()}));
  if (options.bias()) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void ConvTranspose1dImpl::reset_parameters() {
  NoGradGuard no_grad;
  detail::fill_conv_parameters(weight, bias);
}

Tensor ConvTranspose1dImpl::forward(const Tensor& input,
                                    const std::vector<int64_t>& output_size) const {
  const char* op = "nn::ConvTranspose1d";
  int64_t extra = options_.output_padding();
  if (!output_size.empty()) {
    WICK_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3), ShapeError, op,
               "expected a 2-D or 3-D input, got ",
               input.defined() ? describe(input) : std::string("undefined"));
    const int64_t want = spatial_sizes(op, input, output_size, 1)[0];
    extra = padding_for(op, input, want, input.size(-1), options_.kernel_size(), options_.stride(),
                        options_.padding(), options_.dilation());
  }
  return functional::conv_transpose1d(input, weight,
                                      ConvTranspose1dFuncOptions()
                                          .bias(bias)
                                          .stride(options_.stride())
                                          .padding(options_.padding())
                                          .output_padding(extra)
                                          .dilation(options_.dilation())
                                          .groups(options_.groups()));
}

std::string ConvTranspose1dImpl::extra_repr() const {
  auto one = [](int64_t v) { return wick::detail::str_cat("(", v, ",)"); };
  std::string text = wick::detail::str_cat(options_.in_channels(), ", ", options_.out_channels(),
                                           ", kernel_size=", one(options_.kernel_size()),
                                           ", stride=", one(options_.stride()));
  if (options_.padding() != 0) text += ", padding=" + one(options_.padding());
  if (options_.dilation() != 1) text += ", dilation=" + one(options_.dilation());
  if (options_.output_padding() != 0) text += ", output_padding=" + one(options_.output_padding());
  if (options_.groups() != 1) text += wick::detail::str_cat(", groups=", options_.groups());
  if (!options_.bias()) text += ", bias=False";
  return text;
}

std::string UnfoldImpl::extra_repr() const {
  return "kernel_size=" + size_text(options_.kernel_size()) +
         ", dilation=" + size_text(options_.dilation()) +
         ", padding=" + size_text(options_.padding()) + ", stride=" + size_text(options_.stride());
}

std::string FoldImpl::extra_repr() const {
  return "output_size=" + pair_text(options_.output_size()) +
         ", kernel_size=" + size_text(options_.kernel_size()) +
         ", dilation=" + size_text(options_.dilation()) +
         ", padding=" + size_text(options_.padding()) + ", stride=" + size_text(options_.stride());
}

}  // namespace wick::nn
