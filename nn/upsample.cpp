// upsample.cpp: interpolate as one separable pass per spatial dim, last dim first, as PyTorch's
// CPU kernel nests them (its innermost loop runs over the last dim, its outermost over the
// first). A pass along a dim of size in -> out is one resample op (core/src/ops_resample.cpp:
// one kernel per device, and its own gradient kernel): nearest has one tap of weight 1, linear
// two, bicubic four, summed left to right in the working precision (float for float32 and
// bfloat16 inputs; double for float64), as PyTorch's for float32 and float64. The taps and weights
// are PyTorch's formulas (UpSample.h, 1.13): source coordinate scale * (dst + 1/2) - 1/2 (or scale
// * dst with align_corners), with scale the ratio of the sizes or 1 / scale_factor, computed in the
// working precision; nearest in float.
#include "wick/nn/upsample.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace wick::nn {
namespace {

const char* mode_name(InterpolateMode m) {
  switch (m) {
    case kNearest:
      return "nearest";
    case kNearestExact:
      return "nearest-exact";
    case kLinear:
      return "linear";
    case kBilinear:
      return "bilinear";
    case kBicubic:
      return "bicubic";
    case kTrilinear:
      return "trilinear";
    case kArea:
      return "area";
  }
  return "?";
}

// One pass: `taps` index lists (each [out]) and their weights (empty for nearest).
struct Taps {
  std::vector<std::vector<int64_t>> index;
  std::vector<std::vector<double>> weight;
};

// PyTorch's area_pixel_compute_scale: the source step per output step, in T.
template <typename T>
T source_scale(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  if (scale && *scale > 0) return static_cast<T>(1.0 / *scale);
  return static_cast<T>(in) / static_cast<T>(out);
}

// PyTorch's area_pixel_compute_source_index: the source coordinate of output dst, clamped at 0
// except for cubic.
template <typename T>
T source_index(T scale, int64_t dst, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<T>(dst);
  const T src = scale * (static_cast<T>(dst) + T(0.5)) - T(0.5);
  return (!cubic && src < T(0)) ? T(0) : src;
}

Taps nearest_taps(int64_t in, int64_t out, std::optional<double> scale, bool exact) {
  Taps taps{{std::vector<int64_t>(static_cast<size_t>(out))}, {}};
  // In float, as PyTorch's nearest_idx: its rounding decides which source a pixel reads.
  const float step = scale && *scale > 0 ? static_cast<float>(1.0 / *scale)
                                         : static_cast<float>(in) / static_cast<float>(out);
  for (int64_t dst = 0; dst < out; ++dst) {
    int64_t src;
    if (exact) {
      src = static_cast<int64_t>(
          std::floor(static_cast<float>((static_cast<double>(dst) + 0.5) * step)));
    } else if (out == in) {
      src = dst;
    } else if (out == 2 * in) {
      src = dst >> 1;
    } else {
      src = static_cast<int64_t>(std::floor(static_cast<float>(dst) * step));
    }
    taps.index[0][static_cast<size_t>(dst)] = std::min(src, in - 1);
  }
  return taps;
}

template <typename T>
Taps linear_taps(int64_t in, int64_t out, std::optional<double> scale, bool align_corners) {
  Taps taps{std::vector<std::vector<int64_t>>(2, std::vector<int64_t>(static_cast<size_t>(out))),
            std::vector<std::vector<double>>(2, std::vector<double>(static_cast<size_t>(out)))};
  const T step = source_scale<T>(in, out, align_corners, scale);
  for (int64_t dst = 0; dst < out; ++dst) {
    const auto i = static_cast<size_t>(dst);
    if (in == out) {  // PyTorch copies where the sizes agree, whatever the scale
      taps.index[0][i] = taps.index[1][i] = dst;
      taps.weight[0][i] = 1;
      taps.weight[1][i] = 0;
      continue;
    }
    const T real = source_index<T>(step, dst, align_corners, false);
    const auto first = static_cast<int64_t>(real);
    taps.index[0][i] = first;
    taps.index[1][i] = first + (first < in - 1 ? 1 : 0);
    const T lambda1 = std::min(std::max(real - static_cast<T>(first), T(0)), T(1));
    taps.weight[0][i] = static_cast<double>(T(1) - lambda1);
    taps.weight[1][i] = static_cast<double>(lambda1);
  }
  return taps;
}

// Keys' cubic convolution with A = -0.75, as PyTorch's: for |x| <= 1 and 1 < |x| < 2.
template <typename T>
T cubic_near(T x) {
  const T a = T(-0.75);
  return ((a + T(2)) * x - (a + T(3))) * x * x + T(1);
}
template <typename T>
T cubic_far(T x) {
  const T a = T(-0.75);
  return ((a * x - T(5) * a) * x + T(8) * a) * x - T(4) * a;
}

template <typename T>
Taps cubic_taps(int64_t in, int64_t out, std::optional<double> scale, bool align_corners) {
  Taps taps{std::vector<std::vector<int64_t>>(4, std::vector<int64_t>(static_cast<size_t>(out))),
            std::vector<std::vector<double>>(4, std::vector<double>(static_cast<size_t>(out)))};
  const T step = source_scale<T>(in, out, align_corners, scale);
  for (int64_t dst = 0; dst < out; ++dst) {
    const auto i = static_cast<size_t>(dst);
    const T real = source_index<T>(step, dst, align_corners, true);
    const auto first = static_cast<int64_t>(std::floor(real));
    const T t = real - static_cast<T>(first);
    // As PyTorch rounds them: the last from x2 + 1 with x2 = 1 - t, not from 2 - t.
    const T x2 = T(1) - t;
    const T weights[4] = {cubic_far<T>(t + T(1)), cubic_near<T>(t), cubic_near<T>(x2),
                          cubic_far<T>(x2 + T(1))};
    for (size_t j = 0; j < 4; ++j) {
      // Taps past the edges read the edge pixel.
      taps.index[j][i] = std::clamp<int64_t>(first - 1 + static_cast<int64_t>(j), 0, in - 1);
      taps.weight[j][i] = static_cast<double>(weights[j]);
    }
  }
  return taps;
}

// x resampled along dim by taps: one resample (core/src/ops_resample.cpp), which sums the taps'
// products left to right, as the index_select-multiply-add passes it replaced did.
Tensor apply_taps(const Tensor& x, int64_t dim, const Taps& taps) {
  const auto count = static_cast<int64_t>(taps.index.size());
  const auto outputs = static_cast<int64_t>(taps.index[0].size());
  std::vector<int64_t> index;
  std::vector<double> weight;
  index.reserve(static_cast<size_t>(count * outputs));
  weight.reserve(index.capacity());
  for (size_t j = 0; j < taps.index.size(); ++j) {
    index.insert(index.end(), taps.index[j].begin(), taps.index[j].end());
    if (taps.weight.empty()) {
      weight.insert(weight.end(), taps.index[j].size(), 1.0);  // nearest: one tap of weight 1
    } else {
      weight.insert(weight.end(), taps.weight[j].begin(), taps.weight[j].end());
    }
  }
  const Tensor index_tensor = tensor(index).reshape({count, outputs}).to(x.device());
  const Tensor weight_tensor = tensor(weight).reshape({count, outputs}).to(x.device(), x.dtype());
  return resample(x, dim, index_tensor, weight_tensor);
}

// The sizes and the scales the source coordinates use, one per spatial dim, checked.
struct Plan {
  std::vector<int64_t> out;
  std::vector<std::optional<double>> scale;
};

Plan plan(const char* op, const Tensor& input, const InterpolateFuncOptions& o) {
  const auto spatial = static_cast<size_t>(input.dim() - 2);
  WICK_CHECK(o.size().has_value() != o.scale_factor().has_value(), ValueError, op,
             "exactly one of size and scale_factor must be given");
  Plan p{std::vector<int64_t>(spatial), std::vector<std::optional<double>>(spatial)};
  if (o.size()) {
    const std::vector<int64_t>& size = *o.size();
    WICK_CHECK(size.size() == 1 || size.size() == spatial, ValueError, op, "size has ", size.size(),
               " elements; the input ", describe(input), " has ", spatial, " spatial dims");
    for (size_t d = 0; d < spatial; ++d) p.out[d] = size[size.size() == 1 ? 0 : d];
  } else {
    const std::vector<double>& factor = *o.scale_factor();
    WICK_CHECK(factor.size() == 1 || factor.size() == spatial, ValueError, op, "scale_factor has ",
               factor.size(), " elements; the input ", describe(input), " has ", spatial,
               " spatial dims");
    for (size_t d = 0; d < spatial; ++d) {
      const double s = factor[factor.size() == 1 ? 0 : d];
      WICK_CHECK(std::isfinite(s) && s > 0, ValueError, op,
                 "scale_factor must be positive and finite, got ", s);
      const double size = std::floor(static_cast<double>(input.size(2 + d)) * s);
      WICK_CHECK(size < static_cast<double>(int64_t{1} << 40), ValueError, op, "scale_factor ", s,
                 " makes the input ", describe(input), " too large");
      p.out[d] = static_cast<int64_t>(size);
      if (!o.recompute_scale_factor()) p.scale[d] = s;
    }
  }
  for (size_t d = 0; d < spatial; ++d) {
    WICK_CHECK(input.size(2 + d) > 0 && p.out[d] > 0, ValueError, op,
               "input and output sizes should be greater than 0, got the input ", describe(input),
               " and output size ", p.out[d], " in spatial dim ", d);
  }
  return p;
}

void check_mode(const char* op, const Tensor& input, const InterpolateFuncOptions& o) {
  const InterpolateMode m = o.mode();
  const int64_t spatial = input.dim() - 2;
  const int64_t needs = m == kLinear                      ? 1
                        : m == kBilinear || m == kBicubic ? 2
                        : m == kTrilinear                 ? 3
                                                          : 0;
  WICK_CHECK(needs == 0 || spatial == needs, ShapeError, op, "mode ", mode_name(m), " takes a ",
             needs + 2, "-D input, got ", describe(input));
  WICK_CHECK(m != kArea || spatial <= 2, ShapeError, op, "mode area takes a 3-D or 4-D input, got ",
             describe(input));
  const bool interpolating = m == kLinear || m == kBilinear || m == kBicubic || m == kTrilinear;
  WICK_CHECK(interpolating || !o.align_corners().has_value(), ValueError, op,
             "align_corners can only be set with the interpolating modes linear, bilinear, "
             "bicubic and trilinear, not with ",
             mode_name(m));
}

template <typename T>
Taps taps_for(InterpolateMode m, int64_t in, int64_t out, std::optional<double> scale,
              bool align_corners) {
  if (m == kNearest || m == kNearestExact) return nearest_taps(in, out, scale, m == kNearestExact);
  if (m == kBicubic) return cubic_taps<T>(in, out, scale, align_corners);
  return linear_taps<T>(in, out, scale, align_corners);
}

std::string size_text(const std::vector<int64_t>& v) {
  if (v.size() == 1) return std::to_string(v[0]);
  std::string text = "(";
  for (size_t i = 0; i < v.size(); ++i) text += (i ? ", " : "") + std::to_string(v[i]);
  return text + ")";
}

// As Python's repr of a float: the shortest digits that read back, with ".0" if integral.
std::string float_text(double v) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
  std::string text(buffer, end);
  if (text.find_first_of(".eni") == std::string::npos) text += ".0";
  return text;
}

}  // namespace

Tensor functional::interpolate(const Tensor& input, const InterpolateFuncOptions& options) {
  const char* op = "interpolate";
  WICK_CHECK(input.defined(), ValueError, op, "the input is undefined");
  WICK_CHECK(input.dim() >= 3 && input.dim() <= 5, ShapeError, op,
             "expected a 3-D, 4-D or 5-D input [N, C, ...], got ", describe(input));
  WICK_CHECK(input.is_floating_point(), DtypeError, op, "expected a floating input, got ",
             describe(input));
  check_mode(op, input, options);
  const Plan p = plan(op, input, options);
  if (options.mode() == kArea) {  // adaptive average pooling to the output size
    if (input.dim() == 4) return adaptive_avg_pool2d(input, Size2(p.out[0], p.out[1]));
    return adaptive_avg_pool2d(input.unsqueeze(-2), Size2(1, p.out[0])).squeeze(-2);
  }
  const bool align = options.align_corners().value_or(false);
  // bfloat16 inputs are interpolated in float32 and rounded once at the end (PyTorch 1.13's CPU
  // kernel rounds to bfloat16 after each product and add, so its bits differ by an ulp or so;
  // these are the correctly rounded ones more often).
  const bool narrow = input.dtype() == kBFloat16;
  Tensor x = narrow ? input.to(kFloat32) : input;
  for (int64_t d = input.dim() - 3; d >= 0; --d) {
    const auto i = static_cast<size_t>(d);
    const int64_t in = input.size(2 + d);
    const Taps taps = x.dtype() == kFloat64
                          ? taps_for<double>(options.mode(), in, p.out[i], p.scale[i], align)
                          : taps_for<float>(options.mode(), in, p.out[i], p.scale[i], align);
    x = apply_taps(x, 2 + d, taps);
  }
  return narrow ? x.to(input.dtype()) : x;
}

Tensor functional::pixel_shuffle(const Tensor& input, int64_t upscale_factor) {
  const char* op = "pixel_shuffle";
  const int64_t r = upscale_factor;
  WICK_CHECK(input.defined() && input.dim() >= 3, ShapeError, op,
             "expected an input of 3 or more dims [*, C * r * r, H, W], got ",
             input.defined() ? describe(input) : std::string("undefined"));
  WICK_CHECK(r > 0 && r < (int64_t{1} << 20), ValueError, op,
             "upscale_factor must be positive, got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  WICK_CHECK(c % (r * r) == 0, ShapeError, op, "the ", c, " channels of input ", describe(input),
             " are not divisible by upscale_factor squared, ", r * r);
  Shape sizes = input.sizes();
  sizes.resize(sizes.size() - 3);
  const int64_t lead = static_cast<int64_t>(sizes.size());
  Shape split = sizes;
  for (int64_t v : {c / (r * r), r, r, h, w}) split.push_back(v);
  std::vector<int64_t> order(static_cast<size_t>(lead));
  for (int64_t d = 0; d < lead; ++d) order[static_cast<size_t>(d)] = d;
  for (int64_t d : {0, 3, 1, 4, 2}) order.push_back(lead + d);  // [C', H, r, W, r]
  Shape out = sizes;
  for (int64_t v : {c / (r * r), h * r, w * r}) out.push_back(v);
  return input.reshape(split).permute(order).reshape(out);
}

Tensor functional::pixel_unshuffle(const Tensor& input, int64_t downscale_factor) {
  const char* op = "pixel_unshuffle";
  const int64_t r = downscale_factor;
  WICK_CHECK(input.defined() && input.dim() >= 3, ShapeError, op,
             "expected an input of 3 or more dims [*, C, H * r, W * r], got ",
             input.defined() ? describe(input) : std::string("undefined"));
  WICK_CHECK(r > 0 && r < (int64_t{1} << 20), ValueError, op,
             "downscale_factor must be positive, got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  WICK_CHECK(h % r == 0 && w % r == 0, ShapeError, op, "the height ", h, " and width ", w,
             " of input ", describe(input), " must be divisible by downscale_factor ", r);
  Shape sizes = input.sizes();
  sizes.resize(sizes.size() - 3);
  const int64_t lead = static_cast<int64_t>(sizes.size());
  Shape split = sizes;
  for (int64_t v : {c, h / r, r, w / r, r}) split.push_back(v);
  std::vector<int64_t> order(static_cast<size_t>(lead));
  for (int64_t d = 0; d < lead; ++d) order[static_cast<size_t>(d)] = d;
  for (int64_t d : {0, 2, 4, 1, 3}) order.push_back(lead + d);  // [C, r, r, H', W']
  Shape out = sizes;
  for (int64_t v : {c * r * r, h / r, w / r}) out.push_back(v);
  return input.reshape(split).permute(order).reshape(out);
}

UpsampleImpl::UpsampleImpl(const UpsampleOptions& options) : options_(options) {
  WICK_CHECK(!options_.recompute_scale_factor(), ValueError, "nn::Upsample",
             "recompute_scale_factor is an option of interpolate, not of Upsample");
}

Tensor UpsampleImpl::forward(const Tensor& input) const {
  return functional::interpolate(input, options_);
}

std::string UpsampleImpl::extra_repr() const {
  std::string text;
  if (options_.scale_factor()) {
    const std::vector<double>& s = *options_.scale_factor();
    if (s.size() == 1) {
      text = "scale_factor=" + float_text(s[0]);
    } else {
      text = "scale_factor=(";
      for (size_t i = 0; i < s.size(); ++i) text += (i ? ", " : "") + float_text(s[i]);
      text += ")";
    }
  } else if (options_.size()) {
    text = "size=" + size_text(*options_.size());
  } else {
    text = "size=None";
  }
  return text + ", mode=" + mode_name(options_.mode());
}

PixelShuffleImpl::PixelShuffleImpl(int64_t upscale_factor) : upscale_factor_(upscale_factor) {
  WICK_CHECK(upscale_factor > 0, ValueError, "nn::PixelShuffle",
             "upscale_factor must be positive, got ", upscale_factor);
}

std::string PixelShuffleImpl::extra_repr() const {
  return "upscale_factor=" + std::to_string(upscale_factor_);
}

PixelUnshuffleImpl::PixelUnshuffleImpl(int64_t downscale_factor)
    : downscale_factor_(downscale_factor) {
  WICK_CHECK(downscale_factor > 0, ValueError, "nn::PixelUnshuffle",
             "downscale_factor must be positive, got ", downscale_factor);
}

std::string PixelUnshuffleImpl::extra_repr() const {
  return "downscale_factor=" + std::to_string(downscale_factor_);
}

}  // namespace wick::nn
