// pooling.cpp: the 1-D poolings (the 2-D ones on a height of 1), max_unpool2d (one scatter
// into a zero plane per channel), and adaptive max pooling: each output's window along one dim
// gathered with index_select (windows padded to the widest by repeating their last index, which
// cannot change a maximum), the element PyTorch's kernel picks chosen by max_choice, and the 2-D
// form as two such passes, last dim first (the first largest element in row-major order is in
// the first row holding the maximum, at that row's first; the last NaN likewise).
#include "wick/nn/pooling.hpp"

#include <algorithm>

#include "wick/autograd.hpp"

#include "im2col.hpp"

namespace wick::nn {
namespace {

// The input as [N, C, L] and whether it came unbatched ([C, L]); floating.
std::pair<Tensor, bool> batched1d(const char* op, const Tensor& input) {
  WICK_CHECK(input.defined() && (input.dim() == 2 || input.dim() == 3), ShapeError, op,
             "expected a 2-D (unbatched) or 3-D (batched) input [N, C, L], got ",
             input.defined() ? describe(input) : std::string("undefined"));
  WICK_CHECK(input.is_floating_point(), DtypeError, op, "expected a floating input, got ",
             describe(input));
  return {input.dim() == 2 ? input.unsqueeze(0) : input, input.dim() == 2};
}

MaxPool2dOptions as_2d_max(const Pool1dOptions& o) {
  return MaxPool2dOptions(Size2(1, o.kernel_size()))
      .stride(Size2(1, o.stride()))
      .padding(Size2(0, o.padding()))
      .dilation(Size2(1, o.dilation()))
      .ceil_mode(o.ceil_mode());
}

// Pooling parameters checked under the 1-D op's name, before the 2-D form sees them.
void check_pool1d(const char* op, const Pool1dOptions& o) {
  WICK_CHECK(o.kernel_size() > 0 && o.stride() > 0 && o.dilation() > 0 && o.padding() >= 0,
             ValueError, op, "kernel_size ", o.kernel_size(), ", stride ", o.stride(),
             " and dilation ", o.dilation(), " must be positive and padding ", o.padding(),
             " not negative");
  WICK_CHECK(2 * o.padding() <= o.kernel_size(), ValueError, op, "padding ", o.padding(),
             " should be at most half of the kernel size ", o.kernel_size());
}

struct AdaptiveMax {
  Tensor values, index;  // index: the source position along the pooled dim
};

// Adaptive max pooling of x's dim `dim` (size in) to out windows [floor(i in / out),
// ceil((i + 1) in / out)).
AdaptiveMax adaptive_max_along(const Tensor& x, int64_t dim, int64_t out) {
  const int64_t in = x.size(dim);
  int64_t widest = 0;
  for (int64_t i = 0; i < out; ++i) {
    widest = std::max(widest, ((i + 1) * in + out - 1) / out - (i * in) / out);
  }
  std::vector<int64_t> index(static_cast<size_t>(out * widest));
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = (i * in) / out, length = ((i + 1) * in + out - 1) / out - start;
    for (int64_t j = 0; j < widest; ++j) {
      index[static_cast<size_t>(i * widest + j)] = start + std::min(j, length - 1);
    }
  }
  const Tensor sources = tensor(index, Shape{out * widest}, TensorOptions(kInt64)).to(x.device());
  Shape sizes = x.sizes();
  sizes[static_cast<size_t>(dim)] = out;
  sizes.insert(static_cast<size_t>(dim + 1), widest);
  const Tensor picked = x.index_select(dim, sources).reshape(sizes);
  const Tensor choice = detail::max_choice(picked.detach(), dim + 1, Tensor());
  Shape index_shape = Shape::filled(sizes.size(), 1);
  index_shape[static_cast<size_t>(dim)] = out;
  index_shape[static_cast<size_t>(dim + 1)] = widest;
  const Tensor positions = sources.reshape(index_shape).expand(sizes);
  return {gather(picked, dim + 1, choice).squeeze(dim + 1),
          gather(positions, dim + 1, choice).squeeze(dim + 1)};
}

void check_adaptive(const char* op, const Tensor& input, int64_t spatial, Size2 size) {
  WICK_CHECK(input.defined() && (input.dim() == spatial + 1 || input.dim() == spatial + 2),
             ShapeError, op, "expected a ", spatial + 1, "-D (unbatched) or ", spatial + 2,
             "-D (batched) input, got ",
             input.defined() ? describe(input) : std::string("undefined"));
  WICK_CHECK(input.is_floating_point(), DtypeError, op, "expected a floating input, got ",
             describe(input));
  WICK_CHECK(size.h > 0 && size.w > 0, ValueError, op, "output size (", size.h, ", ", size.w,
             ") must be positive");
  for (int64_t d = 1; d <= spatial; ++d) {
    WICK_CHECK(input.size(-d) > 0, ShapeError, op, "input ", describe(input),
               " must have nonzero spatial sizes");
  }
}

}  // namespace

Tensor functional::max_pool1d(const Tensor& input, const Pool1dOptions& options) {
  auto [x, unbatched] = batched1d("max_pool1d", input);
  check_pool1d("max_pool1d", options);
  const Tensor out = max_pool2d(x.unsqueeze(-2), as_2d_max(options)).squeeze(-2);
  return unbatched ? out.squeeze(0) : out;
}

std::tuple<Tensor, Tensor> functional::max_pool1d_with_indices(const Tensor& input,
                                                               const Pool1dOptions& options) {
  auto [x, unbatched] = batched1d("max_pool1d", input);
  check_pool1d("max_pool1d", options);
  auto [values, indices] = max_pool2d_with_indices(x.unsqueeze(-2), as_2d_max(options));
  values = values.squeeze(-2);
  indices = indices.squeeze(-2);  // h = 0: the index is the position along L
  if (unbatched) return {values.squeeze(0), indices.squeeze(0)};
  return {values, indices};
}

Tensor functional::avg_pool1d(const Tensor& input, const Pool1dOptions& options) {
  auto [x, unbatched] = batched1d("avg_pool1d", input);
  check_pool1d("avg_pool1d", options);
  WICK_CHECK(options.dilation() == 1, ValueError, "avg_pool1d", "takes no dilation, got ",
             options.dilation());
  const Tensor out =
      avg_pool2d(x.unsqueeze(-2), AvgPool2dOptions(Size2(1, options.kernel_size()))
                                      .stride(Size2(1, options.stride()))
                                      .padding(Size2(0, options.padding()))
                                      .ceil_mode(options.ceil_mode())
                                      .count_include_pad(options.count_include_pad()))
          .squeeze(-2);
  return unbatched ? out.squeeze(0) : out;
}

Tensor functional::adaptive_avg_pool1d(const Tensor& input, int64_t output_size) {
  check_adaptive("adaptive_avg_pool1d", input, 1, Size2(1, output_size));
  return adaptive_avg_pool2d(input.unsqueeze(-2), Size2(1, output_size)).squeeze(-2);
}

std::tuple<Tensor, Tensor> functional::adaptive_max_pool2d_with_indices(const Tensor& input,
                                                                        Size2 output_size) {
  check_adaptive("adaptive_max_pool2d", input, 2, output_size);
  const int64_t width = input.size(-1);
  const AdaptiveMax columns = adaptive_max_along(input, input.dim() - 1, output_size.w);
  const AdaptiveMax rows = adaptive_max_along(columns.values, input.dim() - 2, output_size.h);
  // The chosen row's column, from the first pass.
  const Tensor column = gather(columns.index, input.dim() - 2, rows.index);
  return {rows.values, rows.index * width + column};
}

Tensor functional::adaptive_max_pool2d(const Tensor& input, Size2 output_size) {
  return std::get<0>(adaptive_max_pool2d_with_indices(input, output_size));
}

std::tuple<Tensor, Tensor> functional::adaptive_max_pool1d_with_indices(const Tensor& input,
                                                                        int64_t output_size) {
  check_adaptive("adaptive_max_pool1d", input, 1, Size2(1, output_size));
  const AdaptiveMax pooled = adaptive_max_along(input, input.dim() - 1, output_size);
  return {pooled.values, pooled.index};
}

Tensor functional::adaptive_max_pool1d(const Tensor& input, int64_t output_size) {
  return std::get<0>(adaptive_max_pool1d_with_indices(input, output_size));
}

Tensor functional::max_unpool2d(const Tensor& input, const Tensor& indices,
                                const MaxUnpool2dOptions& options) {
  const char* op = "max_unpool2d";
  WICK_CHECK(input.defined() && indices.defined() && (input.dim() == 3 || input.dim() == 4),
             ShapeError, op, "expected a 3-D or 4-D input and its indices, got ",
             input.defined() ? describe(input) : std::string("undefined"));
  WICK_CHECK(indices.dtype() == kInt64 && indices.sizes() == input.sizes() &&
                 indices.device() == input.device(),
             ShapeError, op, "indices ", describe(indices),
             " must be int64 of the input's sizes and device, ", describe(input));
  WICK_CHECK(input.is_floating_point(), DtypeError, op, "expected a floating input, got ",
             describe(input));
  const Size2 k = options.kernel_size(), s = options.stride(), p = options.padding();
  WICK_CHECK(k.h > 0 && k.w > 0 && s.h > 0 && s.w > 0 && p.h >= 0 && p.w >= 0, ValueError, op,
             "kernel_size and stride must be positive and padding not negative");
  const int64_t h = input.size(-2), w = input.size(-1);
  int64_t out_h = (h - 1) * s.h - 2 * p.h + k.h, out_w = (w - 1) * s.w - 2 * p.w + k.w;
  const std::vector<int64_t>& size = options.output_size();
  if (!size.empty()) {
    WICK_CHECK(size.size() == 2 || size.size() == static_cast<size_t>(input.dim()), ValueError, op,
               "output_size must have 2 or ", input.dim(), " elements, got ", size.size());
    const int64_t want_h = size[size.size() - 2], want_w = size.back();
    WICK_CHECK(want_h > out_h - s.h && want_h < out_h + s.h && want_w > out_w - s.w &&
                   want_w < out_w + s.w,
               ValueError, op, "output_size (", want_h, ", ", want_w,
               ") must be within a stride of the default (", out_h, ", ", out_w, ")");
    out_h = want_h;
    out_w = want_w;
  }
  WICK_CHECK(out_h > 0 && out_w > 0, ShapeError, op, "the output size (", out_h, ", ", out_w,
             ") for input ", describe(input), " is not positive");
  const bool unbatched = input.dim() == 3;
  const Tensor x = unbatched ? input.unsqueeze(0) : input;
  const Tensor where_to = unbatched ? indices.unsqueeze(0) : indices;
  const int64_t n = x.size(0), c = x.size(1), plane = out_h * out_w;
  const Tensor flat_index = where_to.reshape({n, c, h * w});
  if (flat_index.numel() > 0) {
    const bool in_range = logical_and(ge(flat_index, 0), lt(flat_index, plane)).all().item<bool>();
    WICK_CHECK(in_range, IndexError, op, "an index of ", describe(indices),
               " is outside the output plane of ", out_h, " x ", out_w);
  }
  const Tensor out = scatter(zeros({n, c, plane}, x.options().requires_grad(false)), 2, flat_index,
                             x.reshape({n, c, h * w}))
                         .reshape({n, c, out_h, out_w});
  return unbatched ? out.squeeze(0) : out;
}

Tensor MaxUnpool2dImpl::forward(const Tensor& input, const Tensor& indices,
                                const std::vector<int64_t>& output_size) const {
  return functional::max_unpool2d(input, indices,
                                  MaxUnpool2dOptions(options_).output_size(output_size));
}

std::string MaxPool1dImpl::extra_repr() const {
  return wick::detail::str_cat("kernel_size=", options_.kernel_size(),
                               ", stride=", options_.stride(), ", padding=", options_.padding(),
                               ", dilation=", options_.dilation(),
                               ", ceil_mode=", options_.ceil_mode() ? "True" : "False");
}

std::string AvgPool1dImpl::extra_repr() const {
  return wick::detail::str_cat("kernel_size=(", options_.kernel_size(), ",), stride=(",
                               options_.stride(), ",), padding=(", options_.padding(), ",)");
}

std::string MaxUnpool2dImpl::extra_repr() const {
  return "kernel_size=" + detail::pair_text(options_.kernel_size()) +
         ", stride=" + detail::pair_text(options_.stride()) +
         ", padding=" + detail::pair_text(options_.padding());
}

std::string AdaptiveAvgPool1dImpl::extra_repr() const {
  return wick::detail::str_cat("output_size=", output_size_);
}

std::string AdaptiveMaxPool2dImpl::extra_repr() const {
  return "output_size=" + detail::pair_text(output_size_);
}

std::string AdaptiveMaxPool1dImpl::extra_repr() const {
  return wick::detail::str_cat("output_size=", output_size_);
}

}  // namespace wick::nn
