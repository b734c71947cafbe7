// init_uniform.hpp (internal to nn/): the two initialisations PyTorch's reset_parameters use,
// drawn with wick::rand (so manual_seed repeats them) into existing parameters, in place. The
// caller holds a NoGradGuard.
#pragma once

#include <cmath>

#include "wick/ops.hpp"

namespace wick::nn::detail {

// U(-bound, bound).
inline void fill_uniform(Tensor t, double bound) {
  t.copy_(rand(t.sizes(), t.options()) * (2 * bound) - bound);
}

// Xavier (Glorot) uniform for a [out, in] weight: bound sqrt(6 / (fan_in + fan_out)).
inline void xavier_uniform(Tensor t) {
  fill_uniform(t, std::sqrt(6.0 / static_cast<double>(t.size(0) + t.size(1))));
}

// A convolution's (ConvNd or ConvTransposeNd) weight and bias as PyTorch's reset_parameters()
// leaves them: kaiming_uniform_(a = sqrt(5)) gives U(-1/sqrt(fan_in), 1/sqrt(fan_in)), the bias
// too, with PyTorch's fan_in: the weight's dim 1 times the kernel (in / groups * k for a
// convolution, out / groups * k for a transposed one). Weight first, then bias.
inline void fill_conv_parameters(const Tensor& weight, const Tensor& bias) {
  const int64_t fan_in = weight.size(0) == 0 ? 0 : weight.numel() / weight.size(0);
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  fill_uniform(weight, bound);
  if (bias.defined()) fill_uniform(bias, bound);
}

}  // namespace wick::nn::detail
