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

}  // namespace wick::nn::detail
