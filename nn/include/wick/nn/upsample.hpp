// upsample.hpp: resizing images, as libtorch's: functional::interpolate and Upsample (nearest,
// nearest-exact, linear, bilinear, bicubic, trilinear and area), and PixelShuffle /
// PixelUnshuffle. Interpolation is separable: the last dim is resampled first, then each dim
// before it, each pass a few index_selects (the taps) times their weights, summed in PyTorch's
// order; so it runs on both devices and is differentiable. Area is adaptive average
// pooling. Tested in tests/nn/test_upsample.cpp against torch 1.13's values and by gradcheck.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wick/nn/conv.hpp"
#include "wick/nn/conv1d.hpp"
#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

enum class InterpolateMode { Nearest, NearestExact, Linear, Bilinear, Bicubic, Trilinear, Area };
inline constexpr InterpolateMode kNearest = InterpolateMode::Nearest;
inline constexpr InterpolateMode kNearestExact = InterpolateMode::NearestExact;
inline constexpr InterpolateMode kLinear = InterpolateMode::Linear;
inline constexpr InterpolateMode kBilinear = InterpolateMode::Bilinear;
inline constexpr InterpolateMode kBicubic = InterpolateMode::Bicubic;
inline constexpr InterpolateMode kTrilinear = InterpolateMode::Trilinear;
inline constexpr InterpolateMode kArea = InterpolateMode::Area;

// F::interpolate's options: exactly one of size (one number per spatial dim, or one for all)
// and scale_factor (likewise); mode (nearest); align_corners (only for the interpolating modes
// linear, bilinear, bicubic and trilinear; false unless set); recompute_scale_factor (false:
// the given scale_factor is used for the source coordinates, as PyTorch's; true: the ratio of
// the sizes).
class InterpolateFuncOptions {
 public:
  InterpolateFuncOptions& size(std::vector<int64_t> v) {
    size_ = std::move(v);
    return *this;
  }
  InterpolateFuncOptions& scale_factor(std::vector<double> v) {
    scale_factor_ = std::move(v);
    return *this;
  }
  InterpolateFuncOptions& mode(InterpolateMode m) {
    mode_ = m;
    return *this;
  }
  InterpolateFuncOptions& align_corners(bool v) {
    align_corners_ = v;
    return *this;
  }
  InterpolateFuncOptions& recompute_scale_factor(bool v) {
    recompute_scale_factor_ = v;
    return *this;
  }
  const std::optional<std::vector<int64_t>>& size() const { return size_; }
  const std::optional<std::vector<double>>& scale_factor() const { return scale_factor_; }
  InterpolateMode mode() const { return mode_; }
  const std::optional<bool>& align_corners() const { return align_corners_; }
  bool recompute_scale_factor() const { return recompute_scale_factor_; }

 private:
  std::optional<std::vector<int64_t>> size_;
  std::optional<std::vector<double>> scale_factor_;
  InterpolateMode mode_ = kNearest;
  std::optional<bool> align_corners_;
  bool recompute_scale_factor_ = false;
};

// Upsample's options: as InterpolateFuncOptions' but recompute_scale_factor.
using UpsampleOptions = InterpolateFuncOptions;

namespace functional {
// input [N, C, d1, ...] with 1 to 3 spatial dims (linear: 1, bilinear and bicubic: 2,
// trilinear: 3; area: 1 or 2; nearest: any), floating: resized to size, or to
// floor(d * scale_factor) along each spatial dim. Sizes, scales and modes are checked and named
// in a wick::Error.
Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options);
// [*, C * r * r, H, W] -> [*, C, H * r, W * r]: each group of r * r channels becomes an r x r
// block of pixels (torch.nn.functional.pixel_shuffle).
Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
// The inverse: [*, C, H * r, W * r] -> [*, C * r * r, H, W].
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);
}  // namespace functional

class UpsampleImpl : public Module {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options = {});
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;

 private:
  UpsampleOptions options_;
};
WICK_MODULE(Upsample);

class PixelShuffleImpl : public Module {
 public:
  explicit PixelShuffleImpl(int64_t upscale_factor);
  Tensor forward(const Tensor& input) const {
    return functional::pixel_shuffle(input, upscale_factor_);
  }
  std::string extra_repr() const override;

 private:
  int64_t upscale_factor_;
};
WICK_MODULE(PixelShuffle);

class PixelUnshuffleImpl : public Module {
 public:
  explicit PixelUnshuffleImpl(int64_t downscale_factor);
  Tensor forward(const Tensor& input) const {
    return functional::pixel_unshuffle(input, downscale_factor_);
  }
  std::string extra_repr() const override;

 private:
  int64_t downscale_factor_;
};
WICK_MODULE(PixelUnshuffle);

}  // namespace wick::nn
