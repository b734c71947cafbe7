// ops_arrange.cpp: dims moved, swapped and split (movedim, swapaxes, swapdims, unflatten:
// views, through permute, transpose and reshape), the atleast_*d views, and the stacks that join
// along a fixed dim after them (vstack, hstack, dstack, column_stack: cat). PyTorch 1.13's
// rules and error cases, with wick's wording; no kernels of their own.
#include <algorithm>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {

Tensor movedim(const Tensor& a, const Shape& source, const Shape& destination) {
  const char* op = "movedim";
  detail::check_defined(op, {&a});
  WICK_CHECK(source.size() == destination.size(), ShapeError, op,
             "source and destination must name as many dims, got ", source, " and ", destination);
  const int64_t nd = a.dim();
  if (nd == 0) {
    // A 0-d tensor has one dim to name (0 or -1), as in PyTorch, and nothing to move; the
    // vectors below would have no slot for it (found by review: a read out of bounds).
    for (size_t i = 0; i < source.size(); ++i) {
      (void)detail::wrap_dim(source[i], nd, op);
      (void)detail::wrap_dim(destination[i], nd, op);
    }
    WICK_CHECK(source.size() <= 1, ShapeError, op, "repeated dim in source ", source);
    return a.permute(Shape{});
  }
  // order[k]: the input dim that lands at position k. Named destinations take their sources;
  // the remaining positions take the remaining dims in their order.
  std::vector<int64_t> order(static_cast<size_t>(nd), -1);
  std::vector<bool> moved(static_cast<size_t>(nd), false);
  for (size_t i = 0; i < source.size(); ++i) {
    const int64_t from = detail::wrap_dim(source[i], nd, op);
    const int64_t to = detail::wrap_dim(destination[i], nd, op);
    WICK_CHECK(!moved[static_cast<size_t>(from)], ShapeError, op, "repeated dim ", from,
               " in source ", source);
    WICK_CHECK(order[static_cast<size_t>(to)] < 0, ShapeError, op, "repeated dim ", to,
               " in destination ", destination);
    moved[static_cast<size_t>(from)] = true;
    order[static_cast<size_t>(to)] = from;
  }
  int64_t next = 0;
  for (int64_t& slot : order) {
    if (slot >= 0) continue;
    while (moved[static_cast<size_t>(next)]) ++next;
    slot = next++;
  }
  Shape dims;
  for (int64_t d : order) dims.push_back(d);
  return a.permute(dims);
}
Tensor movedim(const Tensor& a, int64_t source, int64_t destination) {
  return movedim(a, Shape{source}, Shape{destination});
}
Tensor swapaxes(const Tensor& a, int64_t axis0, int64_t axis1) {
  return transpose(a, axis0, axis1);
}
Tensor swapdims(const Tensor& a, int64_t dim0, int64_t dim1) { return transpose(a, dim0, dim1); }

Tensor unflatten(const Tensor& a, int64_t dim, const Shape& sizes) {
  const char* op = "unflatten";
  detail::check_defined(op, {&a});
  const int64_t d = detail::wrap_dim(dim, a.dim(), op);
  WICK_CHECK(sizes.size() > 0, ShapeError, op, "sizes must not be empty (for ", describe(a), ")");
  // One -1 is inferred, as in view; reshape checks the product and infers it.
  Shape shape;
  for (int64_t i = 0; i < d; ++i) shape.push_back(a.size(i));
  for (int64_t s : sizes) shape.push_back(s);
  for (int64_t i = d + 1; i < a.dim(); ++i) shape.push_back(a.size(i));
  int64_t known = 1, inferred = 0;
  for (int64_t s : sizes) {
    if (s == -1) {
      ++inferred;
    } else {
      known *= s;
    }
  }
  WICK_CHECK(
      inferred > 1 || (inferred == 1 ? known != 0 && a.size(d) % known == 0 : known == a.size(d)),
      ShapeError, op, "sizes ", sizes, " do not split dim ", d, " of size ", a.size(d), " of ",
      describe(a));
  return a.reshape(shape);
}

Tensor atleast_1d(const Tensor& a) {
  detail::check_defined("atleast_1d", {&a});
  return a.dim() >= 1 ? a : a.reshape({1});
}
Tensor atleast_2d(const Tensor& a) {
  detail::check_defined("atleast_2d", {&a});
  if (a.dim() >= 2) return a;
  return a.dim() == 1 ? a.unsqueeze(0) : a.reshape({1, 1});
}
Tensor atleast_3d(const Tensor& a) {
  detail::check_defined("atleast_3d", {&a});
  if (a.dim() >= 3) return a;
  if (a.dim() == 2) return a.unsqueeze(-1);
  return a.dim() == 1 ? a.unsqueeze(0).unsqueeze(-1) : a.reshape({1, 1, 1});
}

namespace {

std::vector<Tensor> each(const std::vector<Tensor>& tensors, Tensor (*fn)(const Tensor&),
                         const char* op) {
  WICK_CHECK(!tensors.empty(), ValueError, op, "expects a non-empty list of tensors");
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(fn(t));
  return out;
}

}  // namespace

Tensor vstack(const std::vector<Tensor>& tensors) {
  return cat(each(tensors, atleast_2d, "vstack"), 0);
}
Tensor hstack(const std::vector<Tensor>& tensors) {
  const std::vector<Tensor> lifted = each(tensors, atleast_1d, "hstack");
  // 1-D tensors join end to end, the rest along their columns.
  return cat(lifted, lifted[0].dim() == 1 ? 0 : 1);
}
Tensor dstack(const std::vector<Tensor>& tensors) {
  return cat(each(tensors, atleast_3d, "dstack"), 2);
}
Tensor column_stack(const std::vector<Tensor>& tensors) {
  std::vector<Tensor> columns = each(
      tensors,
      +[](const Tensor& t) {
        return t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t;
      },
      "column_stack");
  return cat(columns, 1);
}

Tensor Tensor::movedim(const Shape& source, const Shape& destination) const {
  return wick::movedim(*this, source, destination);
}
Tensor Tensor::movedim(int64_t source, int64_t destination) const {
  return wick::movedim(*this, source, destination);
}
Tensor Tensor::swapaxes(int64_t axis0, int64_t axis1) const {
  return wick::swapaxes(*this, axis0, axis1);
}
Tensor Tensor::swapdims(int64_t dim0, int64_t dim1) const {
  return wick::swapdims(*this, dim0, dim1);
}
Tensor Tensor::unflatten(int64_t dim, const Shape& sizes) const {
  return wick::unflatten(*this, dim, sizes);
}

}  // namespace wick
