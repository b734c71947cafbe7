// conv1d.cpp: conv1d as conv2d on a height of 1, and adaptive average pooling as a windowed
// mean along each of the two dims.
#include "wick/nn/conv1d.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "wick/autograd.hpp"

#include "channel_checks.hpp"
#include "init_uniform.hpp"

namespace wick::nn {

Tensor functional::conv1d(const Tensor& input, const Tensor& weight,
                          const Conv1dFuncOptions& options) {
  const char* op = "conv1d";
  WICK_CHECK(input.defined() && weight.defined(), ValueError, op,
             "input and weight must be defined tensors");
  WICK_CHECK(input.dim() == 2 || input.dim() == 3, ShapeError, op, "input ", describe(input),
             " must be [N, C, L] or [C, L]");
  WICK_CHECK(weight.dim() == 3, ShapeError, op, "weight ", describe(weight),
             " must be [out_channels, in_channels / groups, kernel_size]");
  WICK_CHECK(options.stride() > 0 && options.dilation() > 0 && options.padding() >= 0 &&
                 options.groups() > 0,
             ValueError, op, "stride ", options.stride(), " and dilation ", options.dilation(),
             " must be positive, padding ", options.padding(), " not negative, groups ",
             options.groups(), " positive");
  detail::check_conv_operands(op, input, weight, options.bias(), options.groups(), 1);
  if (options.padding_by_name() == kSame) {
    WICK_CHECK(options.stride() == 1, ValueError, op,
               "padding same is not supported for strided convolutions, got stride ",
               options.stride());
    return conv2d(input.unsqueeze(-2), weight.unsqueeze(2),
                  Conv2dFuncOptions()
                      .bias(options.bias())
                      .padding(kSame)
                      .dilation(Size2(1, options.dilation()))
                      .groups(options.groups()))
        .squeeze(-2);
  }
  // Checked here so that the message names conv1d and the caller's shapes, not conv2d's.
  const int64_t padded = input.size(-1) + 2 * options.padding();
  const int64_t extent = options.dilation() * (weight.size(2) - 1) + 1;
  WICK_CHECK(padded >= extent, ShapeError, op, "input ", describe(input), " padded by ",
             options.padding(), " on each side has length ", padded,
             ", shorter than the dilated kernel of weight ", describe(weight), " (", extent, ")");
  const Tensor out = conv2d(input.unsqueeze(-2), weight.unsqueeze(2),
                            Conv2dFuncOptions()
                                .bias(options.bias())
                                .stride(Size2(1, options.stride()))
                                .padding(Size2(0, options.padding()))
                                .dilation(Size2(1, options.dilation()))
                                .groups(options.groups()));
  return out.squeeze(-2);
}

Conv1dImpl::Conv1dImpl(const Conv1dOptions& options) : options_(options) {
  const char* op = "nn::Conv1d";
  const int64_t in = options.in_channels(), out = options.out_channels(), g = options.groups();
  WICK_CHECK(in > 0 && out > 0 && options.kernel_size() > 0, ValueError, op,
             "in_channels, out_channels and kernel_size must be positive, got ", in, ", ", out,
             " and ", options.kernel_size());
  WICK_CHECK(g > 0 && in % g == 0 && out % g == 0, ValueError, op, "groups ", g,
             " must divide in_channels ", in, " and out_channels ", out);
  WICK_CHECK(options.padding_by_name() != kSame || options.stride() == 1, ValueError, op,
             "padding same is not supported for strided convolutions, got stride ",
             options.stride());
  weight = register_parameter("weight", empty({out, in / g, options.kernel_size()}));
  if (options.bias()) bias = register_parameter("bias", empty({out}));
  reset_parameters();
}

void Conv1dImpl::reset_parameters() {
  NoGradGuard no_grad;
  detail::fill_conv_parameters(weight, bias);
}

Tensor Conv1dImpl::forward(const Tensor& input) const {
  const int64_t p = options_.padding();
  const bool zeros = options_.padding_mode() == kZeros;
  const bool same = options_.padding_by_name() == kSame;
  Conv1dFuncOptions conv = Conv1dFuncOptions()
                               .bias(bias)
                               .stride(options_.stride())
                               .dilation(options_.dilation())
                               .groups(options_.groups());
  if (zeros) return functional::conv1d(input, weight, same ? conv.padding(kSame) : conv.padding(p));
  // Reflect, replicate or circular: the input padded in that mode (same: d (k - 1) in all, the
  // odd one on the right), then no padding.
  const int64_t total = options_.dilation() * (options_.kernel_size() - 1);
  const std::vector<int64_t> sides =
      same ? std::vector<int64_t>{total / 2, total - total / 2} : std::vector<int64_t>{p, p};
  const Tensor x = functional::pad(input, PadFuncOptions(sides).mode(options_.padding_mode()));
  return functional::conv1d(x, weight, conv.padding(0));
}

std::string Conv1dImpl::extra_repr() const {
  std::string text = wick::detail::str_cat(options_.in_channels(), ", ", options_.out_channels(),
                                           ", kernel_size=(", options_.kernel_size(),
                                           ",), stride=(", options_.stride(), ",)");
  if (options_.padding_by_name()) {
    text += options_.padding_by_name() == kSame ? ", padding=same" : ", padding=valid";
  } else if (options_.padding() != 0) {
    text += wick::detail::str_cat(", padding=(", options_.padding(), ",)");
  }
  if (options_.dilation() != 1) {
    text += wick::detail::str_cat(", dilation=(", options_.dilation(), ",)");
  }
  if (options_.groups() != 1) text += wick::detail::str_cat(", groups=", options_.groups());
  if (!options_.bias()) text += ", bias=False";
  return text;
}

namespace {

// x's dim `dim` of size in -> out: output i is the mean of inputs [floor(i in / out),
// ceil((i + 1) in / out)), summed from its own window only, so that a NaN or an infinity
// stays in the windows that hold it, as torch's (an averaging matmul spread it to every
// output through its zero weights). The windows, padded to the widest by repeating their last
// index, are gathered as [.., out, widest, ..]; the padding is masked out by a where (which
// also gives it no gradient), and the sum divided by each window's length.
Tensor adaptive_mean(const Tensor& x, int64_t dim, int64_t out) {
  const int64_t in = x.size(dim);
  std::vector<int64_t> starts(static_cast<size_t>(out)), lengths(static_cast<size_t>(out));
  int64_t widest = 0;
  for (int64_t i = 0; i < out; ++i) {
    starts[static_cast<size_t>(i)] = (i * in) / out;
    lengths[static_cast<size_t>(i)] = ((i + 1) * in + out - 1) / out - (i * in) / out;
    widest = std::max(widest, lengths[static_cast<size_t>(i)]);
  }
  std::vector<int64_t> index(static_cast<size_t>(out * widest));
  std::vector<double> keep(static_cast<size_t>(out * widest)), length(static_cast<size_t>(out));
  for (int64_t i = 0; i < out; ++i) {
    const size_t at = static_cast<size_t>(i);
    length[at] = static_cast<double>(lengths[at]);
    for (int64_t j = 0; j < widest; ++j) {
      index[static_cast<size_t>(i * widest + j)] = starts[at] + std::min(j, lengths[at] - 1);
      keep[static_cast<size_t>(i * widest + j)] = j < lengths[at] ? 1.0 : 0.0;
    }
  }
  const TensorOptions on = TensorOptions(kInt64).device(x.device());
  Shape sizes = x.sizes(), window_shape{out, widest}, length_shape{out};
  sizes[static_cast<size_t>(dim)] = out;
  sizes.insert(static_cast<size_t>(dim + 1), widest);
  for (int64_t d = dim + 1; d < x.dim(); ++d) {
    window_shape.push_back(1);
    length_shape.push_back(1);
  }
  const Tensor picked = x.index_select(dim, tensor(index, Shape{out * widest}, on)).reshape(sizes);
  const Tensor mask = tensor(keep, window_shape, TensorOptions(kFloat64).device(x.device()));
  const Tensor kept = where(ne(mask, 0), picked, Scalar(0.0));
  return sum(kept, dim + 1) /
         tensor(length, length_shape, TensorOptions(kFloat64).device(x.device())).to(x.dtype());
}

}  // namespace

Tensor functional::adaptive_avg_pool2d(const Tensor& input, Size2 output_size) {
  const char* op = "adaptive_avg_pool2d";
  WICK_CHECK(input.defined() && (input.dim() == 3 || input.dim() == 4), ShapeError, op,
             "input must be [N, C, H, W] or [C, H, W], got ",
             input.defined() ? describe(input) : std::string("an undefined tensor"));
  WICK_CHECK(input.is_floating_point(), DtypeError, op, "input ", describe(input),
             " must be floating point");
  WICK_CHECK(output_size.h > 0 && output_size.w > 0, ValueError, op, "output size (", output_size.h,
             ", ", output_size.w, ") must be positive");
  const int64_t h = input.size(-2), w = input.size(-1);
  WICK_CHECK(h > 0 && w > 0, ShapeError, op, "input ", describe(input),
             " must have a nonzero height and width");
  return adaptive_mean(adaptive_mean(input, input.dim() - 1, output_size.w), input.dim() - 2,
                       output_size.h);
}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) const {
  return functional::adaptive_avg_pool2d(input, output_size_);
}

std::string AdaptiveAvgPool2dImpl::extra_repr() const {
  return wick::detail::str_cat("output_size=(", output_size_.h, ", ", output_size_.w, ")");
}

}  // namespace wick::nn
