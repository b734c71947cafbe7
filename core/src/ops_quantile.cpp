// ops_quantile.cpp: quantile and nanquantile, torch.quantile's algorithm written with sort,
// gather and lerp, so both devices and autograd come with those ops. Each line (along dim, or
// every element flattened) is sorted; quantile q sits at rank q * (n - 1), where n is the
// line's length (nanquantile: its count of non-NaN values, sorted first since sort puts NaN
// last). A line holding NaN gives NaN in quantile (its rank moves to the last, NaN, place) and
// a line of NaNs gives NaN in nanquantile (rank 0). The interpolation picks the value at the
// rank rounded down ("lower"), up ("higher"), to nearest, half to even ("nearest"), or blends
// the two neighbours by the rank's fraction ("linear") or half and half ("midpoint"). Ranks and
// weights are computed in the input's dtype, as PyTorch's, so float32 results match its own.
#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

enum class Interpolation { linear, lower, higher, midpoint, nearest };

Interpolation parse_interpolation(std::string_view name, const char* op) {
  if (name == "linear") return Interpolation::linear;
  if (name == "lower") return Interpolation::lower;
  if (name == "higher") return Interpolation::higher;
  if (name == "midpoint") return Interpolation::midpoint;
  if (name == "nearest") return Interpolation::nearest;
  detail::fail<ValueError>(op,
                           "interpolation must be linear, lower, higher, midpoint or nearest, "
                           "got \"",
                           name, "\"");
}

Tensor quantile_impl(const char* op, const Tensor& a, const Tensor& q, std::optional<int64_t> dim,
                     bool keepdim, std::string_view interpolation, bool ignore_nan) {
  detail::check_defined(op, {&a, &q});
  const Interpolation mode = parse_interpolation(interpolation, op);
  WICK_CHECK(is_floating(a.dtype()), DtypeError, op,
             "takes a floating-point input (float32, float64 or bfloat16), got ", describe(a));
  WICK_CHECK(q.dtype() == a.dtype(), DtypeError, op, "q must have the input's dtype, got ",
             detail::describe_all({&a, &q}));
  WICK_CHECK(q.dim() <= 1, ShapeError, op, "q must be a number, 0-d or 1-d, got ", describe(q));
  detail::check_same_device(op, {&a, &q});
  WICK_CHECK(a.numel() > 0, ShapeError, op, "the input must be non-empty, got ", describe(a));
  if (q.numel() > 0) {
    // One host read of both bounds (on a GPU, one synchronisation), as PyTorch's check.
    const std::vector<double> bounds =
        stack({min(q.detach()), max(q.detach())}).to(kFloat64).to(kCPU).to_vector<double>();
    WICK_CHECK(bounds[0] >= 0 && bounds[1] <= 1, ValueError, op,
               "q values must be in [0, 1], got values from ", bounds[0], " to ", bounds[1]);
  }
  // A plain int and a flag, not an optional (GCC 12 warns falsely of an uninitialised optional).
  const bool by_dim = dim.has_value();
  const int64_t d = by_dim ? detail::wrap_dim(*dim, a.dim(), op) : 0;
  if (a.dtype() == kBFloat16) {
    // Ranks in bfloat16 would skip values of lines longer than 256: computed in float32, the
    // result rounded once (PyTorch 1.13 refuses bfloat16).
    return quantile_impl(op, a.to(kFloat32), q.to(kFloat32), dim, keepdim, interpolation,
                         ignore_nan)
        .to(kBFloat16);
  }
  // Lines along the last dim: [..., n], sorted (NaN last).
  const Tensor lines = by_dim && a.dim() > 0 ? a.movedim(d, -1) : a.reshape({a.numel()});
  const Tensor sorted = std::get<0>(sort(lines, -1));
  const int64_t last = sorted.size(-1) - 1;
  // ranks: [..., nq], in a's dtype.
  const Tensor qs = q.reshape({q.numel()});
  Tensor ranks;
  if (ignore_nan) {
    const Tensor valid = sum(logical_not(isnan(sorted)), -1, true).to(a.dtype());
    ranks = clamp_min(qs * (valid - 1), 0);
  } else {
    ranks = where(any(isnan(sorted), -1, true), Scalar(static_cast<double>(last)), qs * last);
  }
  if (mode == Interpolation::lower) ranks = floor(ranks);
  if (mode == Interpolation::higher) ranks = ceil(ranks);
  if (mode == Interpolation::nearest) ranks = round(ranks);
  // The ranks are in [0, last] by construction: no range check (a synchronisation on a GPU).
  const detail::IndexesInRange made_here(/*host_tensors_too=*/true);
  const Tensor below = ranks.to(kInt64);
  Tensor values = gather(sorted, -1, below);
  if (mode == Interpolation::linear || mode == Interpolation::midpoint) {
    const Tensor above = gather(sorted, -1, ceil(ranks).to(kInt64));
    values = mode == Interpolation::midpoint ? lerp(values, above, 0.5)
                                             : lerp(values, above, ranks - below.to(a.dtype()));
  }
  // [..., nq] -> q's dims first, then the kept or reduced dims.
  if (q.dim() == 0) {
    values = values.squeeze(-1);
  } else {
    values = values.movedim(-1, 0);
  }
  if (keepdim) {
    const int64_t lead = q.dim();
    if (by_dim) {
      if (a.dim() > 0) values = values.unsqueeze(lead + d);
    } else {
      Shape kept;
      for (int64_t i = 0; i < lead; ++i) kept.push_back(values.size(i));
      for (int64_t i = 0; i < a.dim(); ++i) kept.push_back(1);
      values = values.reshape(kept);
    }
  }
  return values;
}

}  // namespace

Tensor quantile(const Tensor& a, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  return quantile_impl("quantile", a, q, dim, keepdim, interpolation, false);
}
Tensor quantile(const Tensor& a, double q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  detail::check_defined("quantile", {&a});
  return quantile(a, scalar_tensor(q, a.options().requires_grad(false)), dim, keepdim,
                  interpolation);
}
Tensor nanquantile(const Tensor& a, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  return quantile_impl("nanquantile", a, q, dim, keepdim, interpolation, true);
}
Tensor nanquantile(const Tensor& a, double q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  detail::check_defined("nanquantile", {&a});
  return nanquantile(a, scalar_tensor(q, a.options().requires_grad(false)), dim, keepdim,
                     interpolation);
}

Tensor Tensor::quantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                        std::string_view interpolation) const {
  return wick::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::quantile(double q, std::optional<int64_t> dim, bool keepdim,
                        std::string_view interpolation) const {
  return wick::quantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return wick::nanquantile(*this, q, dim, keepdim, interpolation);
}
Tensor Tensor::nanquantile(double q, std::optional<int64_t> dim, bool keepdim,
                           std::string_view interpolation) const {
  return wick::nanquantile(*this, q, dim, keepdim, interpolation);
}

}  // namespace wick
