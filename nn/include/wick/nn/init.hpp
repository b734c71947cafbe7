// init.hpp: parameter initialisation as libtorch's torch::nn::init (and Python's
// torch.nn.init, whose trunc_normal_ libtorch 1.13 lacks). Each function fills an existing
// tensor in place, under a NoGradGuard (so a leaf parameter that requires grad may be filled),
// draws from wick::rand / randn on the tensor's own device (manual_seed repeats the values),
// and returns the tensor. The fans are PyTorch's: fan_in = size(1) * receptive field, fan_out =
// size(0) * receptive field, receptive field = the product of the sizes after the first two.
// Tested in tests/nn/test_init.cpp (bounds, moments, the fans and gains against torch 1.13's
// formulas, errors).
#pragma once

#include <cstdint>
#include <utility>

#include "wick/tensor.hpp"

namespace wick::nn::init {

enum class Nonlinearity {
  kLinear,
  kConv1D,
  kConv2D,
  kConv3D,
  kConvTranspose1D,
  kConvTranspose2D,
  kConvTranspose3D,
  kSigmoid,
  kTanh,
  kReLU,
  kLeakyReLU,
  kSELU,
};
inline constexpr Nonlinearity kLinear = Nonlinearity::kLinear;
inline constexpr Nonlinearity kConv1D = Nonlinearity::kConv1D;
inline constexpr Nonlinearity kConv2D = Nonlinearity::kConv2D;
inline constexpr Nonlinearity kConv3D = Nonlinearity::kConv3D;
inline constexpr Nonlinearity kConvTranspose1D = Nonlinearity::kConvTranspose1D;
inline constexpr Nonlinearity kConvTranspose2D = Nonlinearity::kConvTranspose2D;
inline constexpr Nonlinearity kConvTranspose3D = Nonlinearity::kConvTranspose3D;
inline constexpr Nonlinearity kSigmoid = Nonlinearity::kSigmoid;
inline constexpr Nonlinearity kTanh = Nonlinearity::kTanh;
inline constexpr Nonlinearity kReLU = Nonlinearity::kReLU;
inline constexpr Nonlinearity kLeakyReLU = Nonlinearity::kLeakyReLU;
inline constexpr Nonlinearity kSELU = Nonlinearity::kSELU;

enum class FanMode { kFanIn, kFanOut };
inline constexpr FanMode kFanIn = FanMode::kFanIn;
inline constexpr FanMode kFanOut = FanMode::kFanOut;

// The recommended gain for a nonlinearity: 1 for linear, the convolutions and sigmoid; 5/3 for
// tanh; sqrt(2) for ReLU; sqrt(2 / (1 + slope^2)) for leaky ReLU (param = the negative slope);
// 3/4 for SELU.
double calculate_gain(Nonlinearity nonlinearity, double param = 0.01);
// (fan_in, fan_out) of a tensor of 2 or more dims (else a ValueError).
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor uniform_(Tensor tensor, double low = 0.0, double high = 1.0);
Tensor normal_(Tensor tensor, double mean = 0.0, double std = 1.0);
// Normal(mean, std) restricted to [a, b] (PyTorch's inverse-CDF method, then a clamp).
Tensor trunc_normal_(Tensor tensor, double mean = 0.0, double std = 1.0, double a = -2.0,
                     double b = 2.0);
Tensor constant_(Tensor tensor, const Scalar& value);
Tensor ones_(Tensor tensor);
Tensor zeros_(Tensor tensor);
// The identity for a 2-D tensor (ones on the diagonal of a non-square one too).
Tensor eye_(Tensor matrix);
// A 3-, 4- or 5-D convolution weight that passes its input through: 1 at the centre of the
// kernel of output channel d of each group and input channel d, for d < min(out / groups, in).
Tensor dirac_(Tensor tensor, int64_t groups = 1);
// U(-b, b) with b = gain sqrt(6 / (fan_in + fan_out)); N(0, gain^2 2 / (fan_in + fan_out)).
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
// std = calculate_gain(nonlinearity, a) / sqrt(fan) with the fan that mode names; uniform:
// U(-sqrt(3) std, sqrt(3) std), normal: N(0, std^2). A tensor with no elements is left as it
// is (PyTorch warns).
Tensor kaiming_uniform_(Tensor tensor, double a = 0.0, FanMode mode = kFanIn,
                        Nonlinearity nonlinearity = kLeakyReLU);
Tensor kaiming_normal_(Tensor tensor, double a = 0.0, FanMode mode = kFanIn,
                       Nonlinearity nonlinearity = kLeakyReLU);
// A (semi-)orthogonal matrix times gain, from the QR factorisation of a standard normal draw
// (made unique by the signs of R's diagonal, as PyTorch's), for a tensor of 2 or more dims
// seen as [size(0), numel / size(0)]. The factorisation runs on the host in float64.
Tensor orthogonal_(Tensor tensor, double gain = 1.0);
// A 2-D tensor drawn from N(0, std^2), then ceil(sparsity * rows) entries of each column set
// to 0 (rows chosen by randperm).
Tensor sparse_(Tensor tensor, double sparsity, double std = 0.01);

}  // namespace wick::nn::init
