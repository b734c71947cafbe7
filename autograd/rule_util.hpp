// rule_util.hpp: what the backward rules share (autograd internals, not installed): the
// gradients a rule returns, an input's sizes, a bool mask as g's dtype, and g blocked by a mask.
#pragma once

#include <array>

#include "node.hpp"
#include "wick/ops.hpp"

namespace wick {

using Grads = std::array<Tensor, 3>;

inline const Shape& in_sizes(const Node& n, int i) { return n.input_meta[i].sizes; }
inline Tensor as_float(const Tensor& mask, const Tensor& like) { return mask.to(like.dtype()); }
// g with +0 where `stops` holds. Not g * (1 - mask): as PyTorch's masked_fill, a blocked
// element gets +0 even where g is negative (-0 otherwise), inf or NaN (NaN otherwise).
inline Tensor blocked(const Tensor& stops, const Tensor& g) { return where(stops, Scalar(0.0), g); }

}  // namespace wick
