// ops_numeric.hpp: numeric functions made of other ops (core/src/ops_numeric.cpp), spelled as
// in libtorch; part of ops.hpp, which includes it (include wick/ops.hpp). Composites: both
// devices, and autograd through the ops they are made of.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>

#include "wick/tensor.hpp"

namespace wick {

// clip: clamp's other name.
Tensor clip(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
// addmv: beta * c + alpha * (mat @ vec); addr: beta * c + alpha * outer(vec1, vec2); c
// broadcasts to the product, and beta 0 ignores c (NaN included), as addmm.
Tensor addmv(const Tensor& c, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
             const Scalar& alpha = 1);
Tensor addr(const Tensor& c, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
            const Scalar& alpha = 1);
// cov: the covariance of the rows (variables) of a 1-D or 2-D tensor whose columns are
// observations, with `correction` subtracted from the weight total (1: unbiased), frequency
// weights (int64, one per observation) and observation weights (floating, non-negative), as
// torch.cov; integers compute in float32. corrcoef: cov normalised to correlations, clamped
// to [-1, 1].
Tensor cov(const Tensor& a, int64_t correction = 1, const std::optional<Tensor>& fweights = {},
           const std::optional<Tensor>& aweights = {});
Tensor corrcoef(const Tensor& a);
// deg2rad, rad2deg: times pi / 180 and 180 / pi (integers give float32). sinc: sin(pi x) /
// (pi x), 1 at 0 (gradient 0 there).
Tensor deg2rad(const Tensor& a);
Tensor rad2deg(const Tensor& a);
Tensor sinc(const Tensor& a);
// float_power: pow computed in float64 (complex is not a wick dtype), whatever the operands.
Tensor float_power(const Tensor& a, const Tensor& b);
Tensor float_power(const Tensor& a, const Scalar& b);
Tensor float_power(const Scalar& a, const Tensor& b);
// logaddexp2 (in ops_pointwise.cpp, beside logaddexp): log2(2^a + 2^b) without overflow. ldexp: a *
// 2^b, in a floating dtype.
Tensor logaddexp2(const Tensor& a, const Tensor& b);
Tensor ldexp(const Tensor& a, const Tensor& b);
// frexp: torch.frexp. a = mantissa * 2^exponent with |mantissa| in [0.5, 1) for finite nonzero
// a; 0, inf and NaN give themselves and exponent 0. Floating a only (else a DtypeError). The
// exponent is int64 (PyTorch's is int32; wick has no int32 dtype). Differentiable in a (the
// mantissa's gradient is 2^-exponent).
std::tuple<Tensor, Tensor> frexp(const Tensor& a);
// isposinf, isneginf: a == +inf (-inf), false for integers. isreal: true everywhere (wick has
// no complex dtype).
Tensor isposinf(const Tensor& a);
Tensor isneginf(const Tensor& a);
Tensor isreal(const Tensor& a);
// msort: sort's values along dim 0.
Tensor msort(const Tensor& a);
// dist: norm(a - b, p), a and b broadcast. vdot: dot of two 1-D tensors (no conjugate to take).
Tensor dist(const Tensor& a, const Tensor& b, double p = 2);
Tensor vdot(const Tensor& a, const Tensor& b);
// trapezoid: the trapezoidal rule along dim, with sample points x (1-D along dim, or a's
// shape) or a spacing dx; cumulative_trapezoid: its running sums (one fewer along dim).
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapezoid(const Tensor& y, double dx = 1, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, double dx = 1, int64_t dim = -1);
// aminmax: (amin, amax) over every element or along dim (NaN propagates to both).
std::tuple<Tensor, Tensor> aminmax(const Tensor& a, std::optional<int64_t> dim = std::nullopt,
                                   bool keepdim = false);

}  // namespace wick
