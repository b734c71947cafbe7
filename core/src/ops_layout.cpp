// ops_layout.cpp: the arrangements of ops_layout.hpp, made of views (expand, narrow, flip,
// reshape), cat, meshgrid, nonzero and index_copy. The *_scatter ops write src through
// index_copy into a flattened copy of a, at the positions the view would read: the same view
// taken of arange(numel) lists them, so one helper serves every view and autograd follows.
#include <algorithm>
#include <vector>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

TensorOptions int64_on(const Tensor& t) { return TensorOptions(kInt64).device(t.device()); }

// Pieces of a along d: piece i runs from cut i - 1 to cut i (from 0, to the end), as Python
// slices: cuts in [0, n], and a cut below the one before gives an empty piece.
std::vector<Tensor> pieces_between(const Tensor& a, int64_t d, const std::vector<int64_t>& cuts) {
  std::vector<Tensor> pieces;
  const int64_t n = a.size(d);
  for (size_t i = 0; i <= cuts.size(); ++i) {
    const int64_t start = i == 0 ? 0 : cuts[i - 1];
    const int64_t end = i < cuts.size() ? cuts[i] : n;
    pieces.push_back(a.narrow(d, start, std::max<int64_t>(end - start, 0)));
  }
  return pieces;
}

int64_t split_dim_of(const Tensor& a, int64_t dim, const char* name) {
  detail::check_defined(name, {&a});
  WICK_CHECK(a.dim() > 0, ShapeError, name, "needs at least 1 dim, got ", describe(a));
  return detail::wrap_dim(dim, a.dim(), name);
}

// hsplit, vsplit, dsplit: tensor_split along d after the checks numpy's functions make.
std::vector<Tensor> split_along(const Tensor& a, int64_t d, int64_t min_dims, int64_t sections,
                                const char* name) {
  detail::check_defined(name, {&a});
  WICK_CHECK(a.dim() >= min_dims, ShapeError, name, "needs at least ", min_dims, " dims, got ",
             describe(a));
  WICK_CHECK(sections > 0 && a.size(d) % sections == 0, ValueError, name, "dim ", d, " of ",
             describe(a), " (size ", a.size(d), ") is not divisible into ", sections, " sections");
  return tensor_split(a, sections, d);
}
std::vector<Tensor> split_along(const Tensor& a, int64_t d, int64_t min_dims, const Shape& indices,
                                const char* name) {
  detail::check_defined(name, {&a});
  WICK_CHECK(a.dim() >= min_dims, ShapeError, name, "needs at least ", min_dims, " dims, got ",
             describe(a));
  return tensor_split(a, indices, d);
}

// a with src written at `positions` (int64 flat indices of a's row-major order, the view's
// shape); src cast to a's dtype, as copy_ into the view would.
Tensor scatter_into_view(const Tensor& a, const Tensor& src, const Tensor& positions,
                         const char* name) {
  detail::check_same_device(name, {&a, &src});
  WICK_CHECK(src.sizes() == positions.sizes(), ShapeError, name, "src must have the view's shape ",
             positions.sizes(), ", got ", describe(src), " for ", describe(a));
  const detail::IndexesInRange made_here(/*host_tensors_too=*/true);
  return a.reshape({a.numel()})
      .index_copy(0, positions.reshape({positions.numel()}),
                  src.to(a.dtype()).reshape({src.numel()}))
      .view(a.sizes());
}

Tensor flat_positions(const Tensor& a) { return arange(a.numel(), int64_on(a)).view(a.sizes()); }

// The [2, N] coordinates of the elements with column - row on the kept side of offset.
Tensor triangle_indices(int64_t row, int64_t col, int64_t offset, TensorOptions options, bool lower,
                        const char* name) {
  WICK_CHECK(row >= 0 && col >= 0, ValueError, name, "row and col must be non-negative, got ", row,
             " and ", col);
  std::vector<int64_t> rows, cols;
  for (int64_t r = 0; r < row; ++r) {
    for (int64_t c = 0; c < col; ++c) {
      const bool kept = lower ? c - r <= offset : c - r >= offset;
      if (!kept) continue;
      rows.push_back(r);
      cols.push_back(c);
    }
  }
  const auto count = static_cast<int64_t>(rows.size());
  rows.insert(rows.end(), cols.begin(), cols.end());
  // int64 unless the options name a dtype (their float default is not torch's).
  const Dtype dtype = options.has_dtype() ? options.dtype() : kInt64;
  return tensor(rows, {2, count}, TensorOptions(kInt64)).to(options.device()).to(dtype);
}

}  // namespace

Tensor broadcast_to(const Tensor& a, const Shape& shape) {
  detail::check_defined("broadcast_to", {&a});
  return a.expand(shape);
}

std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors) {
  Shape common;
  for (const Tensor& t : tensors) {
    detail::check_defined("broadcast_tensors", {&t});
    common = broadcast_shapes(common, t.sizes());
  }
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(t.expand(common));
  return out;
}

std::vector<Tensor> tensor_split(const Tensor& a, int64_t sections, int64_t dim) {
  const char* name = "tensor_split";
  const int64_t d = split_dim_of(a, dim, name);
  WICK_CHECK(sections > 0, ValueError, name, "the number of sections must be positive, got ",
             sections, " for ", describe(a));
  const int64_t n = a.size(d), base = n / sections, longer = n % sections;
  std::vector<int64_t> cuts;
  int64_t at = 0;
  for (int64_t i = 0; i + 1 < sections; ++i) {
    at += base + (i < longer ? 1 : 0);
    cuts.push_back(at);
  }
  return pieces_between(a, d, cuts);
}

std::vector<Tensor> tensor_split(const Tensor& a, const Shape& indices, int64_t dim) {
  const int64_t d = split_dim_of(a, dim, "tensor_split");
  const int64_t n = a.size(d);
  std::vector<int64_t> cuts;
  for (int64_t index : indices) {  // Python slice bounds: negative from the end, clamped
    cuts.push_back(std::clamp<int64_t>(index < 0 ? std::max(index, -n) + n : index, 0, n));
  }
  return pieces_between(a, d, cuts);
}

std::vector<Tensor> hsplit(const Tensor& a, int64_t sections) {
  return split_along(a, a.dim() == 1 ? 0 : 1, 1, sections, "hsplit");
}
std::vector<Tensor> hsplit(const Tensor& a, const Shape& indices) {
  return split_along(a, a.dim() == 1 ? 0 : 1, 1, indices, "hsplit");
}
std::vector<Tensor> vsplit(const Tensor& a, int64_t sections) {
  return split_along(a, 0, 2, sections, "vsplit");
}
std::vector<Tensor> vsplit(const Tensor& a, const Shape& indices) {
  return split_along(a, 0, 2, indices, "vsplit");
}
std::vector<Tensor> dsplit(const Tensor& a, int64_t sections) {
  return split_along(a, 2, 3, sections, "dsplit");
}
std::vector<Tensor> dsplit(const Tensor& a, const Shape& indices) {
  return split_along(a, 2, 3, indices, "dsplit");
}

Tensor fliplr(const Tensor& a) {
  detail::check_defined("fliplr", {&a});
  WICK_CHECK(a.dim() >= 2, ShapeError, "fliplr", "needs at least 2 dims, got ", describe(a));
  return flip(a, {1});
}
Tensor flipud(const Tensor& a) {
  detail::check_defined("flipud", {&a});
  WICK_CHECK(a.dim() >= 1, ShapeError, "flipud", "needs at least 1 dim, got ", describe(a));
  return flip(a, {0});
}
Tensor ravel(const Tensor& a) {
  detail::check_defined("ravel", {&a});
  return a.reshape({a.numel()});
}

Tensor block_diag(const std::vector<Tensor>& tensors) {
  const char* name = "block_diag";
  Dtype dtype = kBool;
  std::vector<Tensor> blocks;
  int64_t cols = 0;
  for (const Tensor& t : tensors) {
    detail::check_defined(name, {&t});
    WICK_CHECK(t.dim() <= 2, ShapeError, name, "takes tensors of at most 2 dims, got ",
               describe(t));
    WICK_CHECK(blocks.empty() || t.device() == blocks.front().device(), DeviceError, name,
               "takes tensors on one device, got ", describe(blocks.front()), " and ", describe(t));
    dtype = blocks.empty() ? t.dtype() : promote_types(dtype, t.dtype());
    blocks.push_back(t.dim() == 2 ? t : t.reshape({1, t.numel()}));
    cols += blocks.back().size(1);
  }
  if (blocks.empty()) return empty({1, 0});
  const TensorOptions options = TensorOptions(dtype).device(blocks.front().device());
  std::vector<Tensor> rows;
  int64_t left = 0;
  for (const Tensor& block : blocks) {
    const int64_t r = block.size(0), c = block.size(1);
    rows.push_back(
        cat({zeros({r, left}, options), block.to(dtype), zeros({r, cols - left - c}, options)}, 1));
    left += c;
  }
  return cat(rows, 0);
}

Tensor cartesian_prod(const std::vector<Tensor>& tensors) {
  const char* name = "cartesian_prod";
  WICK_CHECK(!tensors.empty(), ValueError, name, "needs at least one tensor");
  for (const Tensor& t : tensors) {
    detail::check_defined(name, {&t});
    WICK_CHECK(t.dim() == 1, ShapeError, name, "takes 1-D tensors, got ", describe(t));
  }
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> columns;
  for (const Tensor& grid : meshgrid(tensors, "ij")) columns.push_back(grid.flatten());
  return stack(columns, 1);
}

Tensor combinations(const Tensor& a, int64_t r, bool with_replacement) {
  const char* name = "combinations";
  detail::check_defined(name, {&a});
  WICK_CHECK(a.dim() == 1, ShapeError, name, "takes a 1-D tensor, got ", describe(a));
  WICK_CHECK(r >= 0, ValueError, name, "r must be non-negative, got ", r);
  if (r == 0) return empty({0}, TensorOptions(a.dtype()).device(a.device()));
  // Every r-tuple of positions, kept where they rise (or do not fall), as PyTorch's.
  const std::vector<Tensor> grids(static_cast<size_t>(r), arange(a.size(0), int64_on(a)));
  std::vector<Tensor> positions;
  for (const Tensor& grid : meshgrid(grids, "ij")) positions.push_back(grid.flatten());
  Tensor keep = ones({positions[0].numel()}, TensorOptions(kBool).device(a.device()));
  for (size_t k = 0; k + 1 < positions.size(); ++k) {
    keep = logical_and(keep, with_replacement ? le(positions[k], positions[k + 1])
                                              : lt(positions[k], positions[k + 1]));
  }
  const Tensor rows = nonzero(keep).reshape({-1});
  std::vector<Tensor> columns;
  for (const Tensor& p : positions) columns.push_back(a.index_select(0, p.index_select(0, rows)));
  return stack(columns, 1);
}

Tensor tril_indices(int64_t row, int64_t col, int64_t offset, TensorOptions options) {
  return triangle_indices(row, col, offset, options, true, "tril_indices");
}
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, TensorOptions options) {
  return triangle_indices(row, col, offset, options, false, "triu_indices");
}

Tensor diagflat(const Tensor& a, int64_t offset) {
  detail::check_defined("diagflat", {&a});
  return diag(a.reshape({a.numel()}), offset);
}

Tensor select_scatter(const Tensor& a, const Tensor& src, int64_t dim, int64_t index) {
  const char* name = "select_scatter";
  detail::check_defined(name, {&a, &src});
  // Checked here, so that the message names this op and a, not select and the positions.
  const int64_t d = detail::wrap_dim(dim, a.dim(), name);
  WICK_CHECK(index >= -a.size(d) && index < a.size(d), IndexError, name, "index ", index,
             " is out of range for dim ", d, " of ", describe(a));
  return scatter_into_view(a, src, flat_positions(a).select(d, index), name);
}
Tensor slice_scatter(const Tensor& a, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  detail::check_defined("slice_scatter", {&a, &src});
  return scatter_into_view(a, src, flat_positions(a).slice(dim, start, end, step), "slice_scatter");
}
Tensor diagonal_scatter(const Tensor& a, const Tensor& src, int64_t offset, int64_t dim1,
                        int64_t dim2) {
  detail::check_defined("diagonal_scatter", {&a, &src});
  return scatter_into_view(a, src, flat_positions(a).diagonal(offset, dim1, dim2),
                           "diagonal_scatter");
}

Tensor Tensor::ravel() const { return wick::ravel(*this); }
Tensor Tensor::fliplr() const { return wick::fliplr(*this); }
Tensor Tensor::flipud() const { return wick::flipud(*this); }
Tensor Tensor::broadcast_to(const Shape& shape) const { return wick::broadcast_to(*this, shape); }
std::vector<Tensor> Tensor::tensor_split(int64_t sections, int64_t dim) const {
  return wick::tensor_split(*this, sections, dim);
}
std::vector<Tensor> Tensor::tensor_split(const Shape& indices, int64_t dim) const {
  return wick::tensor_split(*this, indices, dim);
}

}  // namespace wick
