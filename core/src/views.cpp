// views.cpp: ops that return a new layout over the same storage and never copy
// (reshape copies only when no view exists, as PyTorch). Each records itself for autograd.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

using detail::make_view;
using detail::wrap_dim;

Tensor record_view(OpId op, const Tensor& input, Tensor result, Shape ints = {}) {
  if (input.requires_grad() && GradMode::is_enabled()) {
    OpCall call;
    call.op = op;
    call.inputs[0] = &input;
    call.num_inputs = 1;
    call.outputs[0] = &result;
    call.num_outputs = 1;
    call.ints = ints;
    detail::maybe_record(call);
    input.storage()->mark_grad_views();  // in-place writes here are refused from now on
  } else if (input.requires_grad() || input.unsafe_impl()->no_grad_view) {
    result.unsafe_impl()->no_grad_view = true;  // made under NoGradGuard
  }
  return result;
}

// Replaces one -1 in `shape` so that it holds numel elements.
Shape infer_size(const Shape& shape, int64_t numel, const Tensor& t, const char* op) {
  Shape out = shape;
  std::optional<size_t> infer;
  bool has_zero = false;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == -1) {
      WICK_CHECK(!infer, ShapeError, op, "only one dimension can be -1, got ", shape);
      infer = i;
    } else {
      WICK_CHECK(out[i] >= 0, ShapeError, op, "invalid size ", shape, " for ", describe(t));
      has_zero = has_zero || out[i] == 0;
    }
  }
  // The product of the given sizes: 0 with a 0 among them, whatever precedes it (as in
  // checked_numel), so [2^62, 9, 0] is a shape for an empty tensor, not an overflow.
  int64_t known = has_zero ? 0 : 1;
  for (size_t i = 0; i < out.size() && !has_zero; ++i) {
    if (infer && i == *infer) continue;
    WICK_CHECK(!__builtin_mul_overflow(known, out[i], &known), ShapeError, op, "size ", shape,
               " overflows int64");
  }
  if (infer) {
    WICK_CHECK(known != 0 && numel % known == 0, ShapeError, op, "shape ", shape,
               " is invalid for input ", describe(t));
    out[*infer] = numel / known;
  }
  WICK_CHECK(known * (infer ? out[*infer] : 1) == numel, ShapeError, op, "shape ", shape,
             " is invalid for input ", describe(t), " (", numel, " elements)");
  return out;
}

// Strides that view `sizes`/`strides` as `new_sizes` without copying, if they exist
// (PyTorch's computeStride): each run of input dims that is contiguous in memory may be
// re-split into output dims of the same total size.
std::optional<Shape> view_strides(const Shape& sizes, const Shape& strides, const Shape& new_sizes,
                                  int64_t numel) {
  if (numel == 0) {
    if (sizes == new_sizes) return strides;
    return detail::contiguous_strides(new_sizes);
  }
  // A 0-d tensor has one element: any shape of one element views it.
  if (sizes.empty()) return detail::contiguous_strides(new_sizes);
  Shape new_strides = Shape::filled(new_sizes.size(), 1);
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.empty() ? 1 : strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        new_strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}

}  // namespace

Tensor Tensor::view(const Shape& shape) const {
  detail::check_defined("view", {this});
  Shape sizes = infer_size(shape, numel(), *this, "view");
  std::optional<Shape> strides = view_strides(this->sizes(), this->strides(), sizes, numel());
  WICK_CHECK(strides.has_value(), ShapeError, "view", "size ", shape, " is not compatible with ",
             describe(*this), " and strides ", this->strides(),
             " (at least one dim spans two contiguous runs); use reshape()");
  return record_view(OpId::view, *this, make_view(*this, sizes, *strides, storage_offset()));
}

Tensor Tensor::reshape(const Shape& shape) const {
  detail::check_defined("reshape", {this});
  Shape sizes = infer_size(shape, numel(), *this, "reshape");
  std::optional<Shape> strides = view_strides(this->sizes(), this->strides(), sizes, numel());
  if (strides) {
    return record_view(OpId::view, *this, make_view(*this, sizes, *strides, storage_offset()));
  }
  return contiguous().view(sizes);
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  detail::check_defined("transpose", {this});
  int64_t d0 = wrap_dim(dim0, dim(), "transpose");
  int64_t d1 = wrap_dim(dim1, dim(), "transpose");
  if (dim() == 0) return record_view(OpId::view, *this, make_view(*this, {}, {}, storage_offset()));
  Shape sizes = this->sizes(), strides = this->strides();
  std::swap(sizes[d0], sizes[d1]);
  std::swap(strides[d0], strides[d1]);
  return record_view(OpId::transpose, *this, make_view(*this, sizes, strides, storage_offset()),
                     {d0, d1});
}

Tensor Tensor::t() const {
  detail::check_defined("t", {this});
  WICK_CHECK(dim() <= 2, ShapeError, "t", "expects a tensor with <= 2 dims, got ", describe(*this));
  return dim() < 2 ? transpose(0, 0) : transpose(0, 1);
}

Tensor Tensor::permute(const Shape& dims) const {
  detail::check_defined("permute", {this});
  WICK_CHECK(static_cast<int64_t>(dims.size()) == dim(), ShapeError, "permute", "got dims ", dims,
             " for ", describe(*this), " (need one entry per dim)");
  Shape sizes, strides, wrapped;
  std::array<bool, Shape::kMaxDims> seen{};
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, dim(), "permute");
    WICK_CHECK(!seen[w], IndexError, "permute", "dim ", d, " repeats in ", dims);
    seen[w] = true;
    wrapped.push_back(w);
    sizes.push_back(this->sizes()[w]);
    strides.push_back(this->strides()[w]);
  }
  return record_view(OpId::permute, *this, make_view(*this, sizes, strides, storage_offset()),
                     wrapped);
}

Tensor Tensor::unsqueeze(int64_t d) const {
  detail::check_defined("unsqueeze", {this});
  int64_t w = wrap_dim(d, dim() + 1, "unsqueeze");
  Shape sizes = this->sizes(), strides = this->strides();
  // The new dim has size 1, so its stride never steps; when strides[w] * sizes[w] does not fit
  // (only possible for an empty tensor such as [2^63-1, 0, 3]), any value that fits will do.
  int64_t stride = 1;
  if (w < dim() && __builtin_mul_overflow(strides[w], sizes[w], &stride)) stride = 1;
  sizes.insert(w, 1);
  strides.insert(w, stride);
  return record_view(OpId::view, *this, make_view(*this, sizes, strides, storage_offset()));
}

Tensor Tensor::squeeze() const {
  detail::check_defined("squeeze", {this});
  Shape sizes, strides;
  for (int64_t i = 0; i < dim(); ++i) {
    if (this->sizes()[i] != 1) {
      sizes.push_back(this->sizes()[i]);
      strides.push_back(this->strides()[i]);
    }
  }
  return record_view(OpId::view, *this, make_view(*this, sizes, strides, storage_offset()));
}

Tensor Tensor::squeeze(int64_t d) const {
  detail::check_defined("squeeze", {this});
  int64_t w = wrap_dim(d, dim(), "squeeze");
  Shape sizes = this->sizes(), strides = this->strides();
  if (dim() > 0 && sizes[w] == 1) {
    sizes.erase(w);
    strides.erase(w);
  }
  return record_view(OpId::view, *this, make_view(*this, sizes, strides, storage_offset()));
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  detail::check_defined("flatten", {this});
  int64_t s = wrap_dim(start_dim, dim(), "flatten");  // a 0-d tensor takes dims -1 and 0
  int64_t e = wrap_dim(end_dim, dim(), "flatten");
  if (dim() == 0) return reshape({1});
  WICK_CHECK(s <= e, IndexError, "flatten", "start_dim ", start_dim, " comes after end_dim ",
             end_dim, " for ", describe(*this));
  Shape sizes;
  for (int64_t i = 0; i < s; ++i) sizes.push_back(this->sizes()[i]);
  int64_t merged = 1;
  for (int64_t i = s; i <= e; ++i)
    WICK_CHECK(!__builtin_mul_overflow(merged, this->sizes()[i], &merged), ShapeError, "flatten",
               "dims ", start_dim, "..", end_dim, " of ", describe(*this),
               " merge into a size that does not fit int64");
  sizes.push_back(merged);
  for (int64_t i = e + 1; i < dim(); ++i) sizes.push_back(this->sizes()[i]);
  return reshape(sizes);
}

Tensor Tensor::slice(int64_t d, std::optional<int64_t> start, std::optional<int64_t> end,
                     int64_t step) const {
  detail::check_defined("slice", {this});
  WICK_CHECK(dim() > 0, IndexError, "slice", "cannot slice a 0-d tensor");
  int64_t w = wrap_dim(d, dim(), "slice");
  WICK_CHECK(step > 0, ValueError, "slice", "step must be positive, got ", step);
  int64_t n = sizes()[w];
  // Python slice semantics: negative counts from the end, out-of-range clamps.
  auto clampi = [n](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + n : v, 0, n); };
  int64_t s = start ? clampi(*start) : 0;
  int64_t e = end ? clampi(*end) : n;
  // Written so that nothing overflows for steps near INT64_MAX.
  int64_t len = e > s ? 1 + (e - s - 1) / step : 0;
  Shape sizes = this->sizes(), strides = this->strides();
  sizes[w] = len;
  // A dim of size <= 1 never steps, so its stride needs no scaling (and may not fit).
  if (len > 1) {
    WICK_CHECK(!__builtin_mul_overflow(strides[w], step, &strides[w]), ShapeError, "slice",
               "stride ", this->strides()[w], " times step ", step, " overflows int64");
  }
  // An empty tensor's view reads nothing, and s * stride may not fit: keep the offset.
  int64_t offset = storage_offset() + (len > 0 && numel() > 0 ? s * this->strides()[w] : 0);
  // The recorded end s + (len - 1) * step + 1 selects the same elements and cannot overflow.
  int64_t last_end = len > 0 ? s + (len - 1) * step + 1 : s;
  return record_view(OpId::slice, *this, make_view(*this, sizes, strides, offset),
                     {w, s, last_end, step});
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  detail::check_defined("narrow", {this});
  WICK_CHECK(dim() > 0, IndexError, "narrow", "cannot narrow a 0-d tensor");
  int64_t w = wrap_dim(d, dim(), "narrow");
  int64_t n = sizes()[w];
  WICK_CHECK(start >= -n && start <= n, IndexError, "narrow", "start ", start,
             " out of range for dim ", d, " of ", describe(*this));
  if (start < 0) start += n;
  WICK_CHECK(length >= 0 && length <= n - start, IndexError, "narrow", "start (", start,
             ") + length (", length, ") exceeds dim ", d, " of ", describe(*this));
  return slice(w, start, start + length, 1);
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  detail::check_defined("select", {this});
  WICK_CHECK(dim() > 0, IndexError, "select", "cannot select from a 0-d tensor");
  int64_t w = wrap_dim(d, dim(), "select");
  int64_t n = sizes()[w];
  WICK_CHECK(index >= -n && index < n, IndexError, "select", "index ", index,
             " out of range for dim ", d, " of ", describe(*this));
  if (index < 0) index += n;
  Shape sizes = this->sizes(), strides = this->strides();
  // An empty tensor's view reads nothing, and index * stride may not fit: keep the offset.
  int64_t offset = storage_offset() + (numel() > 0 ? index * strides[w] : 0);
  sizes.erase(w);
  strides.erase(w);
  return record_view(OpId::select, *this, make_view(*this, sizes, strides, offset), {w, index});
}

Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  detail::check_defined("diagonal", {this});
  WICK_CHECK(dim() >= 2, ShapeError, "diagonal", "needs at least 2 dims, got ", describe(*this));
  const int64_t r = wrap_dim(dim1, dim(), "diagonal"), c = wrap_dim(dim2, dim(), "diagonal");
  WICK_CHECK(r != c, ValueError, "diagonal", "dim1 and dim2 must differ, got ", dim1, " and ", dim2,
             " for ", describe(*this));
  // Element k is (row start + k, column start + k): a positive offset moves along dim2.
  const int64_t rows = sizes()[r], cols = sizes()[c];
  // Written so that an offset near INT64_MIN or MAX cannot overflow: such a diagonal is empty.
  const int64_t row_start = offset >= 0 ? 0 : offset == INT64_MIN ? INT64_MAX : -offset;
  const int64_t col_start = offset > 0 ? offset : 0;
  const int64_t length =
      row_start >= rows || col_start >= cols ? 0 : std::min(rows - row_start, cols - col_start);
  Shape out_sizes, out_strides;
  for (int64_t i = 0; i < dim(); ++i) {
    if (i == r || i == c) continue;
    out_sizes.push_back(sizes()[i]);
    out_strides.push_back(strides()[i]);
  }
  out_sizes.push_back(length);
  // One step along the diagonal is one along each dim. The sum may not fit int64 where the
  // tensor is empty (zeros({0, 3, 2^61}): strides 3 * 2^61 and 2^61); a diagonal of at most
  // one element never steps, so any stride serves it.
  int64_t step = 0;
  const bool too_far = __builtin_add_overflow(strides()[r], strides()[c], &step);
  WICK_CHECK(!too_far || length <= 1, ShapeError, "diagonal", "strides ", strides()[r], " and ",
             strides()[c], " of ", describe(*this), " sum past int64");
  out_strides.push_back(too_far ? 1 : step);
  int64_t start = storage_offset();
  if (length > 0 && numel() > 0) start += row_start * strides()[r] + col_start * strides()[c];
  return record_view(OpId::diagonal, *this, make_view(*this, out_sizes, out_strides, start),
                     {offset, r, c});
}

Tensor Tensor::unfold(int64_t d, int64_t size, int64_t step) const {
  detail::check_defined("unfold", {this});
  const int64_t w = wrap_dim(d, dim(), "unfold");
  // A 0-d tensor unfolds as one of a single element (PyTorch's rule).
  const int64_t n = dim() == 0 ? 1 : sizes()[w];
  WICK_CHECK(size >= 0 && size <= n, ShapeError, "unfold", "size ", size,
             " must be between 0 and the size of dim ", d, " (", n, ") of ", describe(*this));
  WICK_CHECK(step > 0, ValueError, "unfold", "step must be positive, got ", step, " for ",
             describe(*this));
  WICK_CHECK(dim() < static_cast<int64_t>(Shape::kMaxDims), ShapeError, "unfold",
             "the windows would be dim ", dim() + 1, ", past the ", Shape::kMaxDims,
             " dims a tensor may have, for ", describe(*this));
  if (dim() == 0) {
    return record_view(OpId::unfold, *this, make_view(*this, {size}, {1}, storage_offset()),
                       {w, size, step});
  }
  Shape out_sizes = sizes(), out_strides = strides();
  out_sizes[w] = (n - size) / step + 1;
  if (out_sizes[w] > 1) {
    WICK_CHECK(!__builtin_mul_overflow(strides()[w], step, &out_strides[w]), ShapeError, "unfold",
               "stride ", strides()[w], " times step ", step, " overflows int64");
  }
  out_sizes.push_back(size);
  out_strides.push_back(strides()[w]);
  return record_view(OpId::unfold, *this,
                     make_view(*this, out_sizes, out_strides, storage_offset()), {w, size, step});
}

Tensor Tensor::expand(const Shape& shape) const {
  detail::check_defined("expand", {this});
  WICK_CHECK(static_cast<int64_t>(shape.size()) >= dim(), ShapeError, "expand", "the size ", shape,
             " has fewer dims than ", describe(*this));
  size_t lead = shape.size() - static_cast<size_t>(dim());
  Shape sizes = Shape::filled(shape.size(), 0), strides = Shape::filled(shape.size(), 0);
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t want = shape[i];
    if (i < lead) {
      WICK_CHECK(want >= 0, ShapeError, "expand",
                 "size -1 is not allowed in a new leading dim: ", shape, " for ", describe(*this));
      sizes[i] = want;
      strides[i] = 0;
      continue;
    }
    int64_t have = this->sizes()[i - lead];
    if (want == -1) want = have;
    WICK_CHECK(want >= 0 && (have == want || have == 1), ShapeError, "expand", "cannot expand ",
               describe(*this), " to ", shape, " (dim ", i, ": ", have, " vs ", want, ")");
    sizes[i] = want;
    strides[i] = (have == want) ? this->strides()[i - lead] : 0;
  }
  checked_numel(sizes, "expand");
  return record_view(OpId::expand, *this, make_view(*this, sizes, strides, storage_offset()));
}

Tensor Tensor::detach() const {
  detail::check_defined("detach", {this});
  return detail::make_view(*this, sizes(), strides(), storage_offset());
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out = Shape::filled(n, 1);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    WICK_CHECK(da == db || da == 1 || db == 1, ShapeError, "broadcast", "shapes ", a, " and ", b,
               " cannot be broadcast (dim ", i, ": ", da, " vs ", db, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Tensor transpose(const Tensor& a, int64_t d0, int64_t d1) { return a.transpose(d0, d1); }
Tensor reshape(const Tensor& a, const Shape& s) { return a.reshape(s); }
Tensor flatten(const Tensor& a, int64_t s, int64_t e) { return a.flatten(s, e); }
Tensor unsqueeze(const Tensor& a, int64_t d) { return a.unsqueeze(d); }
Tensor squeeze(const Tensor& a) { return a.squeeze(); }
Tensor squeeze(const Tensor& a, int64_t d) { return a.squeeze(d); }
Tensor permute(const Tensor& a, const Shape& dims) { return a.permute(dims); }
Tensor narrow(const Tensor& a, int64_t d, int64_t s, int64_t l) { return a.narrow(d, s, l); }

// ---- splitting into views (each piece a narrow or select, so autograd follows) ----
namespace {
int64_t split_dim(const Tensor& a, int64_t d, const char* op) {
  detail::check_defined(op, {&a});
  WICK_CHECK(a.dim() > 0, IndexError, op, "needs a tensor of at least 1 dim, got ", describe(a));
  return wrap_dim(d, a.dim(), op);
}
}  // namespace

std::vector<Tensor> split(const Tensor& a, int64_t split_size, int64_t d) {
  const int64_t w = split_dim(a, d, "split");
  const int64_t n = a.size(w);
  WICK_CHECK(split_size > 0 || (split_size == 0 && n == 0), ValueError, "split", "split_size ",
             split_size, " must be positive (0 only for a dim of size 0), for dim ", d, " of ",
             describe(a));
  if (n == 0) return {a.narrow(w, 0, 0)};
  std::vector<Tensor> pieces;
  for (int64_t start = 0; start < n; start += split_size) {
    pieces.push_back(a.narrow(w, start, std::min(split_size, n - start)));
  }
  return pieces;
}

std::vector<Tensor> split(const Tensor& a, const Shape& split_sizes, int64_t d) {
  const int64_t w = split_dim(a, d, "split");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    WICK_CHECK(s >= 0 && !__builtin_add_overflow(total, s, &total), ValueError, "split",
               "split_sizes ", split_sizes, " must be non-negative and sum to dim ", d, " of ",
               describe(a));
  }
  WICK_CHECK(total == a.size(w), ValueError, "split", "split_sizes ", split_sizes, " sum to ",
             total, ", not to the size of dim ", d, " of ", describe(a));
  std::vector<Tensor> pieces;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    pieces.push_back(a.narrow(w, start, s));
    start += s;
  }
  return pieces;
}

std::vector<Tensor> chunk(const Tensor& a, int64_t chunks, int64_t d) {
  const int64_t w = split_dim(a, d, "chunk");
  WICK_CHECK(chunks > 0, ValueError, "chunk", "chunks must be positive, got ", chunks, " for ",
             describe(a));
  const int64_t n = a.size(w);
  // As PyTorch: pieces of ceil(n / chunks), so there may be fewer than chunks; a dim of size 0
  // gives chunks empty pieces.
  if (n == 0) return std::vector<Tensor>(static_cast<size_t>(chunks), a.narrow(w, 0, 0));
  return split(a, n / chunks + (n % chunks != 0), w);
}

std::vector<Tensor> unbind(const Tensor& a, int64_t d) {
  const int64_t w = split_dim(a, d, "unbind");
  std::vector<Tensor> pieces;
  for (int64_t i = 0; i < a.size(w); ++i) pieces.push_back(a.select(w, i));
  return pieces;
}

std::vector<Tensor> Tensor::split(int64_t size, int64_t d) const {
  return wick::split(*this, size, d);
}
std::vector<Tensor> Tensor::split(const Shape& sizes, int64_t d) const {
  return wick::split(*this, sizes, d);
}
std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t d) const {
  return wick::chunk(*this, chunks, d);
}
std::vector<Tensor> Tensor::unbind(int64_t d) const { return wick::unbind(*this, d); }
Tensor select(const Tensor& a, int64_t d, int64_t i) { return a.select(d, i); }
Tensor diagonal(const Tensor& a, int64_t offset, int64_t d1, int64_t d2) {
  return a.diagonal(offset, d1, d2);
}

}  // namespace wick
