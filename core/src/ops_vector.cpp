// ops_vector.cpp: diff, cross (and linalg_cross), meshgrid, cdist, var_mean and std_mean,
// arrangements of other ops (narrow and sub; index_select and mul; unsqueeze and expand; norm
// or matmul). Checked here with the op's name; autograd follows the ops they are made of.
#include <algorithm>
#include <string>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {

Tensor diff(const Tensor& a, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  const char* name = "diff";
  detail::check_defined(name, {&a});
  WICK_CHECK(a.dim() >= 1, ShapeError, name, "needs at least one dim, got ", describe(a));
  WICK_CHECK(n >= 0, ValueError, name, "order n must be non-negative, got ", n);
  const int64_t d = detail::wrap_dim(dim, a.dim(), name);
  std::vector<Tensor> parts;
  if (prepend) parts.push_back(*prepend);
  parts.push_back(a);
  if (append) parts.push_back(*append);
  for (const Tensor& p : parts) {
    WICK_CHECK(p.dim() == a.dim(), ShapeError, name, "prepend and append must have ", a.dim(),
               " dims as the input ", describe(a), ", got ", describe(p));
  }
  Tensor x = parts.size() == 1 ? a : cat(parts, d);
  for (int64_t step = 0; step < n && x.size(d) > 0; ++step) {
    const int64_t len = x.size(d);
    const Tensor later = x.narrow(d, 1, len - 1), earlier = x.narrow(d, 0, len - 1);
    // bool: "differs", as PyTorch's (it has no subtraction).
    x = x.dtype() == kBool ? logical_xor(later, earlier) : later - earlier;
  }
  return n == 0 ? x.clone() : x;
}

Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim) {
  const char* name = "linalg_cross";
  detail::check_defined(name, {&a, &b});
  detail::check_same_device(name, {&a, &b});
  WICK_CHECK(a.dim() == b.dim(), ShapeError, name, "inputs must have the same number of dims, got ",
             describe(a), " and ", describe(b));
  WICK_CHECK(a.dim() >= 1, ShapeError, name, "needs at least one dim, got ", describe(a));
  const int64_t d = detail::wrap_dim(dim, a.dim(), name);
  WICK_CHECK(a.size(d) == 3 && b.size(d) == 3, ShapeError, name, "dim ", dim,
             " must have size 3 in both inputs, got ", describe(a), " and ", describe(b));
  const Shape sizes = broadcast_shapes(a.sizes(), b.sizes());
  const Tensor x = a.expand(sizes), y = b.expand(sizes);
  const TensorOptions on = TensorOptions(kInt64).device(a.device());
  const Tensor next = tensor({1, 2, 0}, on), after = tensor({2, 0, 1}, on);
  // (x1 y2 - x2 y1, x2 y0 - x0 y2, x0 y1 - x1 y0)
  return x.index_select(d, next) * y.index_select(d, after) -
         x.index_select(d, after) * y.index_select(d, next);
}

Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
  detail::check_defined("cross", {&a, &b});
  if (dim) return linalg_cross(a, b, *dim);
  // As torch.cross without a dim (1.13): the first dim of size 3.
  for (int64_t d = 0; d < std::min(a.dim(), b.dim()); ++d) {
    if (a.size(d) == 3 && b.size(d) == 3) return linalg_cross(a, b, d);
  }
  detail::fail<ShapeError>("cross", "no dim of size 3 in ", describe(a), " and ", describe(b));
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, const std::string& indexing) {
  const char* name = "meshgrid";
  WICK_CHECK(!tensors.empty(), ValueError, name, "takes at least one tensor");
  WICK_CHECK(indexing == "ij" || indexing == "xy", ValueError, name,
             "indexing must be \"ij\" or \"xy\", got \"", indexing, "\"");
  Shape sizes;
  for (const Tensor& t : tensors) {
    detail::check_defined(name, {&t});
    WICK_CHECK(t.dim() <= 1, ShapeError, name, "takes 0-d or 1-d tensors, got ", describe(t));
    WICK_CHECK(t.device() == tensors[0].device() && t.dtype() == tensors[0].dtype(), ValueError,
               name, "tensors must share a dtype and a device, got ", describe(tensors[0]), " and ",
               describe(t));
    sizes.push_back(t.numel());
  }
  const bool xy = indexing == "xy" && tensors.size() >= 2;
  std::vector<Tensor> grids;
  for (size_t i = 0; i < tensors.size(); ++i) {
    Shape view = Shape::filled(tensors.size(), 1);
    view[i] = sizes[i];
    Tensor grid = tensors[i].reshape(view).expand(sizes);
    // "xy": the first two output dims swapped (Cartesian, as NumPy's default).
    grids.push_back(xy ? grid.transpose(0, 1) : grid);
  }
  return grids;
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p) {
  const char* name = "cdist";
  detail::check_defined(name, {&x1, &x2});
  detail::check_same_device(name, {&x1, &x2});
  WICK_CHECK(x1.dim() >= 2 && x2.dim() >= 2, ShapeError, name,
             "takes tensors of at least 2 dims ([..., P, M] and [..., R, M]), got ", describe(x1),
             " and ", describe(x2));
  WICK_CHECK(x1.size(-1) == x2.size(-1), ShapeError, name,
             "X1 and X2 must have the same last dim, got ", describe(x1), " and ", describe(x2));
  WICK_CHECK(is_floating(x1.dtype()) && x1.dtype() == x2.dtype(), DtypeError, name,
             "takes floating tensors of one dtype, got ", describe(x1), " and ", describe(x2));
  WICK_CHECK(p >= 0, ValueError, name, "p must be non-negative, got ", p);
  const int64_t rows = x1.size(-2), cols = x2.size(-2);
  if (p == 2 && rows > 25 && cols > 25) {
    // As PyTorch's default for the Euclidean distance of larger sets: |a|^2 - 2 a.b + |b|^2
    // through one matmul, instead of a [.., P, R, M] tensor of differences; clamped at 0
    // (rounding can make it slightly negative) and square-rooted with a zero gradient at 0.
    const Tensor sq1 = (x1 * x1).sum(-1, /*keepdim=*/true);
    const Tensor sq2 = (x2 * x2).sum(-1, /*keepdim=*/true).transpose(-1, -2);
    const Tensor d2 = clamp_min(sq1 - matmul(x1, x2.transpose(-1, -2)) * 2.0 + sq2, 0.0);
    const Tensor positive = gt(d2, 0.0);
    return where(positive, sqrt(where(positive, d2, 1.0)), 0.0);
  }
  // Every pair's difference, and its p-norm over the last dim (norm's gradient is 0 at 0).
  const Tensor diffs = x1.unsqueeze(-2) - x2.unsqueeze(-3);
  return norm(diffs, p, {-1});
}

std::tuple<Tensor, Tensor> var_mean(const Tensor& a, const Shape& dims, bool unbiased,
                                    bool keepdim) {
  detail::check_defined("var_mean", {&a});
  detail::check_reduce_dims(a, dims, "var_mean");
  return {var(a, dims, unbiased, keepdim), mean(a, dims, keepdim)};
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& a, const Shape& dims, bool unbiased,
                                    bool keepdim) {
  detail::check_defined("std_mean", {&a});
  detail::check_reduce_dims(a, dims, "std_mean");
  return {wick::std(a, dims, unbiased, keepdim), mean(a, dims, keepdim)};
}

}  // namespace wick
