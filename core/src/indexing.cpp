// indexing.cpp: Tensor::index and index_put_ (wick/indexing.hpp). One walk over the indices
// with a position `dim` in the result so far: an integer selects (dim stays), a slice slices
// (dim + 1), None and a bool add a dim, Ellipsis skips the dims no later index consumes. int64
// tensors next to each other are gathered together at the end: their dims are flattened into
// one, the broadcast indices turned into one linear index, one index_select, and the dim
// reshaped to the indices' broadcast shape. A bool tensor is a run of int64 tensors too, the
// columns of its nonzero().
#include <string_view>
#include <variant>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {

using indexing::EllipsisIndexType;
using indexing::Slice;
using indexing::TensorIndex;

indexing::TensorIndex::TensorIndex(const char* text) : value_(EllipsisIndexType{}) {
  WICK_CHECK(text != nullptr && std::string_view(text) == "...", ValueError, "index",
             "the only string index is \"...\" (Ellipsis), got \"",
             text == nullptr ? "(null)" : text, "\"");
}

namespace {

constexpr const char* kOp = "index";

// The dims of the indexed tensor an index consumes: 1 for an integer, a slice or an int64
// tensor, a bool tensor's rank, 0 for None, Ellipsis and bools.
int64_t consumed(const TensorIndex& index) {
  const auto& v = index.value();
  if (std::holds_alternative<int64_t>(v) || std::holds_alternative<Slice>(v)) return 1;
  if (const Tensor* t = std::get_if<Tensor>(&v)) return t->dtype() == kBool ? t->dim() : 1;
  return 0;
}

// Gathers result's dims [first, first + count) at the int64 index tensors `picks` (one per
// dim, broadcasting): the dims become the picks' broadcast shape.
Tensor gather_run(const Tensor& result, int64_t first, const std::vector<Tensor>& picks) {
  const auto count = static_cast<int64_t>(picks.size());
  Shape shape = picks[0].sizes();
  for (const Tensor& p : picks) {
    try {
      shape = broadcast_shapes(shape, p.sizes());
    } catch (const ShapeError&) {
      detail::fail<ShapeError>(kOp,
                               "the tensor indices do not broadcast together: ", describe(picks[0]),
                               " and ", describe(p));
    }
  }
  // The linear index into the flattened dims, each pick checked against its own dim's size
  // (index_select checks the linear one, which would miss [0, 5] in a [3, 4]).
  Tensor linear;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t size = result.size(first + k);
    Tensor p = picks[static_cast<size_t>(k)];
    WICK_CHECK(p.dtype() == kInt64, DtypeError, kOp, "tensor indices must be int64 or bool, got ",
               describe(p));
    detail::check_same_device(kOp, {&result, &p});
    p = where(lt(p, 0), p + size, p);  // negative counts from the end
    if (p.numel() > 0) {
      const Tensor out_of_range = logical_or(lt(p, 0), ge(p, size));
      if (out_of_range.any().to(kCPU).item<bool>()) {  // the value is looked up only now
        const Tensor& given = picks[static_cast<size_t>(k)];
        detail::fail<IndexError>(kOp, "index ",
                                 given.masked_select(out_of_range).select(0, 0).item<int64_t>(),
                                 " is out of range for dim ", first + k, " of size ", size,
                                 " (in the index ", describe(given), ")");
      }
    }
    linear = linear.defined() ? linear * size + p : p;
  }
  linear = linear.expand(shape).reshape({-1});
  const Tensor flat = result.flatten(first, first + count - 1);
  Shape out_shape;
  for (int64_t d = 0; d < first; ++d) out_shape.push_back(result.size(d));
  for (int64_t s : shape) out_shape.push_back(s);
  for (int64_t d = first + count; d < result.dim(); ++d) out_shape.push_back(result.size(d));
  return index_select(flat, first, linear).reshape(out_shape);
}

}  // namespace

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(std::vector<TensorIndex>(indices));
}

Tensor Tensor::index(const std::vector<TensorIndex>& indices) const {
  detail::check_defined(kOp, {this});
  int64_t total = 0, ellipses = 0;
  for (const TensorIndex& i : indices) {
    total += consumed(i);
    ellipses += std::holds_alternative<EllipsisIndexType>(i.value());
  }
  WICK_CHECK(ellipses <= 1, IndexError, kOp, "an index can have only one Ellipsis");
  WICK_CHECK(total <= dim(), IndexError, kOp, "too many indices for ", describe(*this), ": ", total,
             " dims indexed");
  Tensor result = *this;
  int64_t d = 0;            // the next dim of `result` to index
  int64_t run_first = -1;   // the first dim of the pending run of tensor indices
  std::vector<Tensor> run;  // its int64 indices, one per dim
  bool run_done = false;    // a run ended already (a second one is refused)
  auto end_run = [&] {
    if (run.empty()) return;
    const int64_t dims_after_run = result.dim() - run_first - static_cast<int64_t>(run.size());
    result = gather_run(result, run_first, run);
    d = result.dim() - dims_after_run;  // past the broadcast dims the run became
    run.clear();
    run_done = true;
  };
  for (const TensorIndex& index : indices) {
    const auto& v = index.value();
    if (const Tensor* t = std::get_if<Tensor>(&v)) {
      WICK_CHECK(t->defined(), ValueError, kOp, "a tensor index is undefined");
      WICK_CHECK(!run_done || !run.empty(), ValueError, kOp,
                 "tensor indices separated by other indices are not supported (PyTorch moves "
                 "their dims to the front); index in two steps");
      if (run.empty()) run_first = d;
      if (t->dtype() == kBool) {
        // A mask over the next t->dim() dims: their sizes must match; its nonzero positions'
        // columns index those dims together.
        for (int64_t k = 0; k < t->dim(); ++k) {
          WICK_CHECK(t->size(k) == result.size(d + k), IndexError, kOp, "mask ", describe(*t),
                     " does not match dims ", d, ".. of ", describe(result));
        }
        const Tensor positions = wick::nonzero(*t);  // [K, t->dim()]
        for (int64_t k = 0; k < t->dim(); ++k) run.push_back(positions.select(1, k));
        if (t->dim() == 0) {  // a 0-d mask: a new dim of size 1 or 0
          end_run();
          result = result.unsqueeze(d);
          if (!t->to(kCPU).item<bool>()) result = result.narrow(d, 0, 0);
          ++d;
          continue;
        }
        d += t->dim();
      } else {
        run.push_back(*t);
        ++d;
      }
      continue;
    }
    end_run();
    if (const int64_t* i = std::get_if<int64_t>(&v)) {
      WICK_CHECK(d < result.dim(), IndexError, kOp, "too many indices for ", describe(*this));
      result = result.select(d, *i);
    } else if (const Slice* s = std::get_if<Slice>(&v)) {
      result = result.slice(d, s->start(), s->stop(), s->step());
      ++d;
    } else if (const bool* b = std::get_if<bool>(&v)) {
      result = result.unsqueeze(d);
      if (!*b) result = result.narrow(d, 0, 0);
      ++d;
    } else if (std::holds_alternative<TensorIndex::NewDim>(v)) {
      result = result.unsqueeze(d);
      ++d;
    } else {  // Ellipsis: skip the dims that no later index consumes
      d += dim() - total;
    }
  }
  end_run();
  // Nothing was copied by basic indices alone: x.index({}) is x itself, a view, as PyTorch's.
  return result;
}

namespace {

bool has_tensor_index(std::initializer_list<TensorIndex> indices) {
  for (const TensorIndex& i : indices) {
    if (std::holds_alternative<Tensor>(i.value())) return true;
  }
  return false;
}

// x[indices] = value (or += value) where the indices pick elements (tensor indices): the flat
// positions of the picked elements are the same indexing applied to arange(numel); the new
// values go in as one out-of-place index_add, then one copy_ into x, so any layout works and
// autograd sees a copy_ of an expression of x and value. accumulate: index_add of the values,
// which adds repeated positions in index order. Otherwise the picked positions are first set to
// -0.0 (index_fill) and then receive the values by index_add, each position only from its last
// occurrence (-0.0 from the others), so the last write wins (PyTorch calls repeated positions
// undefined; its CPU kernel also keeps the last). -0.0 is the identity of IEEE addition
// (v + -0.0 is v for every v, +0.0, -0.0, infinities and NaN included), so the values land
// bit for bit, whatever was there (x + (v - x) was not exact: 1e20 became 0, inf NaN). The
// value's gradient goes to the last occurrence of each position: the others leave no trace.
void put_by_positions(Tensor& self, std::initializer_list<TensorIndex> indices, const Tensor& value,
                      bool accumulate) {
  detail::check_same_device("index_put_", {&self, &value});
  const Tensor positions = arange(self.numel(), TensorOptions(kInt64).device(self.device()))
                               .reshape(self.sizes())
                               .index(std::vector<TensorIndex>(indices));
  // bool has no subtraction: the sums run in int64, and copy_ casts back.
  const Dtype work = self.dtype() == kBool ? kInt64 : self.dtype();
  Tensor source;
  try {
    source = value.to(work).expand(positions.sizes());
  } catch (const ShapeError&) {
    detail::fail<ShapeError>("index_put_", "value ", describe(value),
                             " does not broadcast to the indexed shape ", positions.sizes());
  }
  // A copy, not a view: x must share its storage with no one when copy_ writes into it, or
  // autograd refuses the write of a value that requires grad. clone() first: self.to(work)
  // is self when the dtype is already work's, and a reshape of it would be a recorded view.
  const Tensor flat = self.to(work).clone().reshape({-1});
  const Tensor picked = positions.reshape({-1});
  if (accumulate) {
    self.copy_(flat.index_add(0, picked, source.reshape({-1})).reshape(self.sizes()));
    return;
  }
  // -0.0 for floating dtypes (0 for int64, where the sums are exact anyway).
  const Scalar identity = is_floating(work) ? Scalar(-0.0) : Scalar(int64_t{0});
  Tensor incoming = source.reshape({-1});
  const int64_t n = picked.numel();
  if (n > 1) {
    // The last occurrence of each position: in a stable sort, the last of its run.
    const auto [sorted, order] = sort(picked);
    const Tensor last_in_run = cat({ne(sorted.narrow(0, 1, n - 1), sorted.narrow(0, 0, n - 1)),
                                    ones({1}, TensorOptions(kBool).device(self.device()))});
    const detail::IndexesInRange a_permutation(/*host_tensors_too=*/true);
    const Tensor is_last = zeros({n}, TensorOptions(kInt64).device(self.device()))
                               .index_add(0, order, last_in_run.to(kInt64));
    incoming = where(gt(is_last, 0), incoming, identity);
  }
  self.copy_(
      flat.index_fill(0, picked, identity).index_add(0, picked, incoming).reshape(self.sizes()));
}

}  // namespace

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) {
  // A lone mask of this tensor's shape: masked_fill_ in place.
  if (indices.size() == 1) {
    if (const Tensor* t = std::get_if<Tensor>(&indices.begin()->value());
        t != nullptr && t->dtype() == kBool && t->sizes() == sizes()) {
      return masked_fill_(*t, value);
    }
  }
  if (has_tensor_index(indices)) {
    put_by_positions(*this, indices, full({}, value, TensorOptions(dtype()).device(device())),
                     /*accumulate=*/false);
    return *this;
  }
  Tensor view = index(std::vector<TensorIndex>(indices));  // basic indices give a view
  view.fill_(value);
  return *this;
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value,
                           bool accumulate) {
  detail::check_defined("index_put_", {this, &value});
  if (has_tensor_index(indices)) {
    // As torch's "Index put requires the source and destination dtypes match" (a number value,
    // the other overload, is cast; so are the basic indices' copy_ and add_ below).
    WICK_CHECK(value.dtype() == dtype(), DtypeError, "index_put_", "the value ", describe(value),
               " must have the dtype of ", describe(*this), " when a tensor indexes it");
    put_by_positions(*this, indices, value, accumulate);
    return *this;
  }
  Tensor view = index(std::vector<TensorIndex>(indices));
  try {
    if (accumulate) {
      view.add_(value.expand(view.sizes()));
    } else {
      view.copy_(value.expand(view.sizes()));
    }
  } catch (const ShapeError&) {
    detail::fail<ShapeError>("index_put_", "value ", describe(value),
                             " does not broadcast to the indexed shape ", view.sizes());
  }
  return *this;
}

}  // namespace wick
