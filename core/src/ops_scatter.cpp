// ops_scatter.cpp: the op boundary for the ops that send src's elements into a copy of self
// along a dim, by an int64 index of self's rank (gather's inverses), and for the ops built on
// them. With dim = d and an index of shape I, position j = (..., i, ...) of the index sends
// src[j] to the target self[..., index[j], ...]:
//  - scatter_add adds it; scatter writes it (where a target repeats, the last j in increasing
//    i wins); scatter_reduce combines it by sum, prod, mean, amax or amin, with the target's
//    own value (include_self) or without it;
//  - index_copy and index_fill are scatters with a vector index expanded to the rows it names
//    (the value expanded to the index's shape); take_along_dim broadcasts and gathers.
// As in PyTorch, I may be smaller than self outside d and than src in every dim.
// One kernel op does the work: scatter_reduce, with OpCall::ints = {ScatterMode}. The
// boundary copies self into the output, so the kernel only combines: out[o, index[o, i, c], c]
// = combine(itself, src[o, i, c]) for i = 0, 1, ..., n - 1 in that order on every device (the
// same bits on the CPU and the GPU, and no atomics). Where I is smaller than self outside d,
// the kernel runs on a packed copy of that block of the output, copied back after. Here too:
//  - include_self = false: the reduction's identity (0, 1, -inf or +inf) is scattered into the
//    named targets first (assign mode), so the kernels never need to know;
//  - mean: a sum, divided by the counts (a scatter_add of ones into ones or zeros; int64 rounds
//    down, as PyTorch's);
//  - bfloat16 runs in float32 and bool in int64 (both round trips are exact for assign; bool
//    results are compared with zero).
// Recorded for autograd: scatter_add as scatter_add (its rule needs no saved values); scatter,
// scatter_reduce and the ops built on them as scatter_reduce with ints = {mode, include_self}.
// A src larger than the index is narrowed before the op is recorded, so autograd's slice
// gradient pads its gradient with zeros.
// Index values out of range are an IndexError raised here (detail::check_gather_index: on a
// GPU, two reductions and one synchronisation), never a device-side fault.
#include <limits>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

ScatterMode parse_reduce(std::string_view reduce) {
  if (reduce == "sum") return ScatterMode::sum;
  if (reduce == "prod") return ScatterMode::prod;
  if (reduce == "mean") return ScatterMode::mean;
  if (reduce == "amax") return ScatterMode::amax;
  if (reduce == "amin") return ScatterMode::amin;
  detail::fail<ValueError>("scatter_reduce", "reduce must be sum, prod, mean, amax or amin, got \"",
                           reduce, "\"");
}

// The value a target starts from when include_self is false: combining it with x gives x.
Scalar identity_of(ScatterMode mode, Dtype dtype) {
  const bool floating = is_floating(dtype);
  switch (mode) {
    case ScatterMode::prod:
      return 1;
    case ScatterMode::amax:
      return floating ? Scalar(-std::numeric_limits<double>::infinity())
                      : Scalar(std::numeric_limits<int64_t>::min());
    case ScatterMode::amin:
      return floating ? Scalar(std::numeric_limits<double>::infinity())
                      : Scalar(std::numeric_limits<int64_t>::max());
    default:
      return 0;
  }
}

// A copy of self (any layout) with src combined into it by the kernel, in `mode` (not mean).
// The index is in range, src has its shape, and the dtype is int64, float32 or float64.
Tensor run_scatter_kernel(const Tensor& self, int64_t d, const Tensor& index, const Tensor& src,
                          ScatterMode mode, const char* name) {
  // The output starts as self's values, copied from any layout (an expanded 0-d tensor, as
  // the backward's zeros, costs one write here).
  Tensor out = detail::make_empty(self.sizes(), self.dtype(), self.device(), name);
  detail::copy_into(out, self.detach());
  if (index.numel() == 0) return out;
  // Where the index covers only part of self outside dim and that block is not contiguous,
  // the kernel runs on a packed copy of the block, copied back (a no-op copy otherwise).
  const Tensor block = detail::narrowed_to(out, d, index);
  Tensor target = detail::packed(block, name);
  const Tensor idx = detail::packed(index, name), values = detail::packed(src, name);
  OpCall call;
  call.op = OpId::scatter_reduce;
  call.inputs = {&idx, &values};
  call.num_inputs = 2;
  call.outputs[0] = &target;
  call.num_outputs = 1;
  call.dim = d;
  call.ints = {static_cast<int64_t>(mode)};
  run_kernel(call, self.device());
  detail::copy_into(block, target);
  return out;
}

// The op's values, unrecorded (self and src detached; src has the index's shape).
Tensor scatter_values(const Tensor& self, int64_t d, const Tensor& index, const Tensor& src,
                      ScatterMode mode, bool include_self, const char* name) {
  if (self.dtype() == kBFloat16 || self.dtype() == kBool) {
    const Dtype wide = self.dtype() == kBool ? kInt64 : kFloat32;
    return scatter_values(self.to(wide), d, index, src.to(wide), mode, include_self, name)
        .to(self.dtype());
  }
  const TensorOptions options = TensorOptions(self.dtype()).device(self.device());
  Tensor start = self;
  if (!include_self && mode != ScatterMode::assign && index.numel() > 0) {
    const Tensor identity = full({}, identity_of(mode, self.dtype()), options);
    start = run_scatter_kernel(self, d, index, identity.expand(index.sizes()), ScatterMode::assign,
                               name);
  }
  if (mode != ScatterMode::mean) return run_scatter_kernel(start, d, index, src, mode, name);
  const Tensor sums = run_scatter_kernel(start, d, index, src, ScatterMode::sum, name);
  const Tensor counts = clamp_min(
      run_scatter_kernel(full({}, include_self ? 1 : 0, options).expand(self.sizes()), d, index,
                         full({}, 1, options).expand(index.sizes()), ScatterMode::sum, name),
      1);
  if (is_floating(self.dtype())) return div(sums, counts);
  // Rounded down, as PyTorch's: float64's quotient is exact enough while |sum| < 2^53. A target
  // of one value (every target no index names, with self) keeps it exactly.
  return where(eq(counts, 1), sums, floor(div(sums.to(kFloat64), counts.to(kFloat64))).to(kInt64));
}

void record_scatter(OpId op, const Tensor& self, int64_t d, const Tensor& index, const Tensor& src,
                    ScatterMode mode, bool include_self, Tensor& out) {
  OpCall record;
  record.op = op;
  record.inputs = {&self, &index, &src};
  record.num_inputs = 3;
  record.outputs[0] = &out;
  record.num_outputs = 1;
  record.dim = d;
  if (op == OpId::scatter_reduce) record.ints = {static_cast<int64_t>(mode), include_self ? 1 : 0};
  detail::maybe_record(record);
}

// After the checks (dim wrapped, the index in range, src of self's dtype and at least the
// index's extents): the narrowing of a larger src recurses here, not through the checks again
// (each check is a GPU sync).
Tensor scatter_checked(OpId op, const Tensor& self, int64_t d, const Tensor& index,
                       const Tensor& src, ScatterMode mode, bool include_self, const char* name) {
  if (index.numel() > 0 && src.sizes() != index.sizes()) {
    // Recorded as a slice of src, so that src's gradient is padded with zeros by autograd.
    Tensor block = src;
    for (int64_t i = 0; i < index.dim(); ++i) {
      if (index.size(i) != src.size(i)) block = block.narrow(i, 0, index.size(i));
    }
    return scatter_checked(op, self, d, index, block, mode, include_self, name);
  }
  Tensor out = scatter_values(self.detach(), d, index, src.detach(), mode, include_self, name);
  record_scatter(op, self, d, index, src, mode, include_self, out);
  return out;
}

// The public scatters' checks, then scatter_checked. An empty index sends nothing and does
// not check src's shape, as PyTorch's.
Tensor scatter_entry(OpId op, const Tensor& self, int64_t dim, const Tensor& index,
                     const Tensor& src, ScatterMode mode, bool include_self, const char* name) {
  detail::check_defined(name, {&self, &index, &src});
  if (detail::all_vectors_with_a_scalar({&self, &index, &src})) {
    detail::wrap_dim(dim, 1, name);
    return scatter_entry(op, self.reshape({self.numel()}), 0, index.reshape({index.numel()}),
                         src.reshape({src.numel()}), mode, include_self, name)
        .reshape(self.sizes());
  }
  const int64_t d = detail::check_gather_index(name, self, dim, index);
  detail::check_same_device(name, {&self, &src});
  WICK_CHECK(src.dtype() == self.dtype(), DtypeError, name,
             "src must have self's dtype: ", detail::describe_all({&self, &src}));
  WICK_CHECK(self.dtype() != kBool || (op != OpId::scatter_add && mode != ScatterMode::mean),
             DtypeError, name, "does not ", op == OpId::scatter_add ? "add" : "average",
             " bool tensors, got ", describe(self));
  if (index.numel() > 0) {
    WICK_CHECK(src.dim() == index.dim(), ShapeError, name, "src must have as many dims as index: ",
               detail::describe_all({&self, &index, &src}));
    for (int64_t i = 0; i < index.dim(); ++i) {
      WICK_CHECK(index.size(i) <= src.size(i), ShapeError, name,
                 "index may not be larger than src in dim ", i, ": ",
                 detail::describe_all({&self, &index, &src}));
    }
  }
  return scatter_checked(op, self, d, index, src, mode, include_self, name);
}

// index_copy and index_fill: the vector index (in range, wrapped) as an index of self's rank
// naming whole rows along d, [1, .., n, .., 1] expanded to self's shape with n at d.
Tensor rows_index(const Tensor& self, int64_t d, const Tensor& index) {
  Shape rows = self.sizes(), column = self.sizes();
  for (int64_t& extent : column) extent = 1;
  column[static_cast<size_t>(d)] = rows[static_cast<size_t>(d)] = index.numel();
  return index.reshape(column).expand(rows);
}

// index_fill once the value is a tensor of self's dtype (0-d): the checks, then a scatter.
Tensor index_fill_checked(const Tensor& self, int64_t dim, const Tensor& index,
                          const Tensor& value) {
  const char* name = "index_fill";
  if (self.dim() == 0) {
    detail::wrap_dim(dim, 1, name);
    return index_fill_checked(self.reshape({1}), 0, index, value).reshape({});
  }
  // Negative indices count from the end, as PyTorch's index_fill (not its index_copy).
  const int64_t d = detail::check_vector_index(name, self, dim, index, /*allow_negative=*/true);
  Tensor wrapped = index.numel() == 0 ? index : remainder(index, self.size(d));
  // A recorded value's gradient is the sum over the filled positions, each counted once (as
  // torch's): a repeated index would otherwise gather the gradient of its row twice.
  if (wrapped.numel() > 1 && value.requires_grad() && GradMode::is_enabled())
    wrapped = std::get<0>(unique(wrapped.reshape({-1})));
  const Tensor targets = rows_index(self, d, wrapped);
  return scatter_checked(OpId::scatter_reduce, self, d, targets, value.expand(targets.sizes()),
                         ScatterMode::assign, true, name);
}

}  // namespace

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_entry(OpId::scatter_add, self, dim, index, src, ScatterMode::sum, true,
                       "scatter_add");
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_entry(OpId::scatter_reduce, self, dim, index, src, ScatterMode::assign, true,
                       "scatter");
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  const char* name = "scatter";
  detail::check_defined(name, {&self, &index});
  detail::check_value_fits(value, self.dtype(), name, self);
  const Tensor filler = full({}, value, TensorOptions(self.dtype()).device(self.device()));
  return scatter_entry(OpId::scatter_reduce, self, dim, index, filler.expand(index.sizes()),
                       ScatterMode::assign, true, name);
}

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self) {
  return scatter_entry(OpId::scatter_reduce, self, dim, index, src, parse_reduce(reduce),
                       include_self, "scatter_reduce");
}

Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const char* name = "index_copy";
  detail::check_defined(name, {&self, &index, &source});
  if (self.dim() == 0) {
    // As PyTorch: a 0-d tensor is one row along dim 0 (or -1), with one source value.
    detail::wrap_dim(dim, 1, name);
    WICK_CHECK(source.numel() == index.numel(), ShapeError, name, "a 0-d self takes ",
               index.numel(), " source value(s) for ", describe(index), ", got ", describe(source));
    return index_copy(self.reshape({1}), 0, index, source.reshape({source.numel()})).reshape({});
  }
  if (self.dim() == 1 && source.dim() == 0)
    return index_copy(self, dim, index, source.reshape({1}));
  const int64_t d = detail::check_vector_index(name, self, dim, index);
  detail::check_same_device(name, {&self, &source});
  WICK_CHECK(source.dtype() == self.dtype(), DtypeError, name,
             "source must have self's dtype: ", detail::describe_all({&self, &source}));
  Shape expected = self.sizes();
  expected[static_cast<size_t>(d)] = index.numel();
  WICK_CHECK(source.sizes() == expected, ShapeError, name, "source must have shape ", expected,
             " (self's with dim ", d, " of the index's length), got ",
             detail::describe_all({&self, &index, &source}));
  return scatter_checked(OpId::scatter_reduce, self, d, rows_index(self, d, index), source,
                         ScatterMode::assign, true, name);
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  const char* name = "index_fill";
  detail::check_defined(name, {&self, &index});
  detail::check_value_fits(value, self.dtype(), name, self);
  return index_fill_checked(self, dim, index,
                            full({}, value, TensorOptions(self.dtype()).device(self.device())));
}

Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  const char* name = "index_fill";
  detail::check_defined(name, {&self, &index, &value});
  WICK_CHECK(value.dim() == 0, ShapeError, name, "the value must be a 0-d tensor, got ",
             describe(value));
  detail::check_same_device(name, {&self, &value});
  // As PyTorch: the value's gradient is the sum of the filled positions' gradient.
  return index_fill_checked(self, dim, index, value.to(self.dtype()));
}

Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  const char* name = "take_along_dim";
  detail::check_defined(name, {&self, &indices});
  WICK_CHECK(indices.dtype() == kInt64, DtypeError, name, "expected int64 indices, got ",
             describe(indices));
  detail::check_same_device(name, {&self, &indices});
  if (!dim) return gather(self.reshape({self.numel()}), 0, indices.reshape({indices.numel()}));
  if (self.dim() == 0) return gather(self, *dim, indices);
  const int64_t d = detail::wrap_dim(*dim, self.dim(), name);
  WICK_CHECK(indices.dim() == self.dim(), ShapeError, name,
             "indices must have as many dims as self: ", detail::describe_all({&self, &indices}));
  // Every dim but d broadcasts; along d, self keeps its length and the indices theirs.
  Shape self_sizes = self.sizes(), index_sizes = indices.sizes();
  self_sizes[static_cast<size_t>(d)] = index_sizes[static_cast<size_t>(d)] = 1;
  Shape common;
  try {
    common = broadcast_shapes(self_sizes, index_sizes);
  } catch (const ShapeError&) {
    detail::fail<ShapeError>(name, "self and indices must broadcast outside dim ", d, ": ",
                             detail::describe_all({&self, &indices}));
  }
  Shape self_target = common, index_target = common;
  self_target[static_cast<size_t>(d)] = self.size(d);
  index_target[static_cast<size_t>(d)] = indices.size(d);
  return gather(self.expand(self_target), d, indices.expand(index_target));
}

// The in-place forms: the out-of-place op on the current value, then copy_ (which records the
// write for autograd and bumps the version). One more write of this than a fused kernel; the
// checks run before anything changes.
Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) {
  detail::check_defined("scatter_add_", {this});
  detail::check_inplace_target(*this, "scatter_add_", true);
  return copy_(wick::scatter_add(*this, dim, index, src));
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) {
  detail::check_defined("scatter_", {this});
  detail::check_inplace_target(*this, "scatter_", true);
  return copy_(wick::scatter(*this, dim, index, src));
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) {
  detail::check_defined("scatter_", {this});
  detail::check_inplace_target(*this, "scatter_", true);
  return copy_(wick::scatter(*this, dim, index, value));
}
Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                std::string_view reduce, bool include_self) {
  detail::check_defined("scatter_reduce_", {this});
  detail::check_inplace_target(*this, "scatter_reduce_", true);
  return copy_(wick::scatter_reduce(*this, dim, index, src, reduce, include_self));
}
Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  detail::check_defined("index_copy_", {this});
  detail::check_inplace_target(*this, "index_copy_", true);
  return copy_(wick::index_copy(*this, dim, index, source));
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) {
  detail::check_defined("index_fill_", {this});
  detail::check_inplace_target(*this, "index_fill_", true);
  return copy_(wick::index_fill(*this, dim, index, value));
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Tensor& value) {
  detail::check_defined("index_fill_", {this});
  detail::check_inplace_target(*this, "index_fill_", true);
  return copy_(wick::index_fill(*this, dim, index, value));
}

Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return wick::scatter_add(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Tensor& src) const {
  return wick::scatter(*this, dim, index, src);
}
Tensor Tensor::scatter(int64_t dim, const Tensor& index, const Scalar& value) const {
  return wick::scatter(*this, dim, index, value);
}
Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                              std::string_view reduce, bool include_self) const {
  return wick::scatter_reduce(*this, dim, index, src, reduce, include_self);
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return wick::index_copy(*this, dim, index, source);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return wick::index_fill(*this, dim, index, value);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Tensor& value) const {
  return wick::index_fill(*this, dim, index, value);
}
Tensor Tensor::take_along_dim(const Tensor& indices, std::optional<int64_t> dim) const {
  return wick::take_along_dim(*this, indices, dim);
}

}  // namespace wick
