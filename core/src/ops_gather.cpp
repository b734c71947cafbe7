// ops_gather.cpp: the op boundary for gather and scatter_add, the two ops that take an int64
// index of the same rank as self (torch.gather, torch.scatter_add; each is the other's
// gradient). With dim = d and an index of shape I:
//  - gather(self, d, index) has the index's shape: out[..., i, ...] = self[..., index[..., i,
//    ...], ...], the index value replacing the coordinate along d;
//  - scatter_add(self, d, index, src) is a copy of self with src[..., i, ...] added to
//    self[..., index[..., i, ...], ...], for the positions of the index only (src may be larger),
//    in increasing i: a repeated index accumulates in that order, on every device (the same
//    bits on the CPU and the GPU, and no atomics).
// As in PyTorch, I may be smaller than self in every dim but d (and than src in every dim).
// The kernels see one layout: the index packed as [outer, n, inner] around d, and self (gather)
// or the output (scatter_add) as [outer, size, inner] with the same outer and inner. Where I is
// smaller than self outside d, the boundary narrows self to I's extents first: gather packs
// the narrowed view; scatter_add scatters into a packed copy of that block of the output and
// copies it back (one extra copy of the block, for that case only). A src larger than I is
// narrowed before the op is recorded, so autograd's slice gradient pads it with zeros.
// Kernel attributes: dim = the wrapped dim. bfloat16: gather moves raw bits; scatter_add adds
// in float32 here and rounds once, as index_add.
// Out-of-range indices are an IndexError raised here (on a GPU, two reductions and one
// synchronisation), never a device-side fault.
#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// The checks both ops make on self, dim and index (index.dim() == self.dim(), index no larger
// than self outside dim, every value in [0, self.size(dim))); returns the wrapped dim. An empty
// index skips the shape checks, as PyTorch's (gather(x, 0, zeros({0})) is an empty result).
int64_t check_gather_index(const char* name, const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t wrapped = detail::wrap_dim(dim, self.dim(), name);
  WICK_CHECK(index.dtype() == kInt64, DtypeError, name, "expected an int64 index, got ",
             describe(index));
  detail::check_same_device(name, {&self, &index});
  if (index.numel() == 0) return wrapped;
  WICK_CHECK(index.dim() == self.dim(), ShapeError, name,
             "index must have as many dims as self: ", detail::describe_all({&self, &index}));
  for (int64_t d = 0; d < self.dim(); ++d) {
    WICK_CHECK(d == wrapped || index.size(d) <= self.size(d), ShapeError, name,
               "index may not be larger than self in dim ", d, " (only dim ", wrapped,
               " may differ): ", detail::describe_all({&self, &index}));
  }
  detail::check_index_range(name, self, wrapped, index);
  return wrapped;
}

// self narrowed to the index's extents in every dim but `dim` (a view; no autograd record).
Tensor narrowed_to(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor block = self.detach();
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d != dim && index.size(d) != self.size(d)) block = block.narrow(d, 0, index.size(d));
  }
  return block;
}

// PyTorch treats 0-d tensors as 1-d of one element in both ops: true when every operand has at
// most one dim and one of them has none.
bool all_vectors_with_a_scalar(std::initializer_list<const Tensor*> tensors) {
  bool any_scalar = false;
  for (const Tensor* t : tensors) {
    if (t->dim() > 1) return false;
    any_scalar = any_scalar || t->dim() == 0;
  }
  return any_scalar;
}

Tensor as_vector(const Tensor& t) { return t.reshape({t.numel()}); }

}  // namespace

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  const char* name = "gather";
  detail::check_defined(name, {&self, &index});
  if (all_vectors_with_a_scalar({&self, &index})) {
    detail::wrap_dim(dim, 1, name);
    return gather(as_vector(self), 0, as_vector(index)).reshape(index.sizes());
  }
  const int64_t d = check_gather_index(name, self, dim, index);
  Tensor out = detail::make_empty(index.sizes(), self.dtype(), self.device(), name);
  OpCall call;
  call.op = OpId::gather;
  call.num_inputs = 2;
  call.outputs[0] = &out;
  call.num_outputs = 1;
  call.dim = d;
  if (out.numel() > 0) {
    const Tensor x = detail::packed(narrowed_to(self, d, index), name);
    const Tensor idx = detail::packed(index, name);
    call.inputs = {&x, &idx};
    run_kernel(call, self.device());
  }
  call.inputs = {&self, &index};  // autograd records the caller's tensors
  detail::maybe_record(call);
  return out;
}

namespace {

void record_scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        Tensor& out) {
  OpCall record;
  record.op = OpId::scatter_add;
  record.inputs = {&self, &index, &src};
  record.num_inputs = 3;
  record.outputs[0] = &out;
  record.num_outputs = 1;
  record.dim = dim;
  detail::maybe_record(record);
}

// scatter_add once the public entry has checked everything (dim wrapped, a non-empty index in
// range, src of self's dtype and at least the index's extents): the narrowing of a larger src
// and bfloat16 recurse here, not through the checks again (each check is a GPU sync).
Tensor scatter_add_checked(const Tensor& self, int64_t d, const Tensor& index, const Tensor& src) {
  const char* name = "scatter_add";
  if (src.sizes() != index.sizes()) {
    // Recorded as a slice of src, so that src's gradient is padded with zeros by autograd.
    Tensor block = src;
    for (int64_t i = 0; i < index.dim(); ++i) {
      if (index.size(i) != src.size(i)) block = block.narrow(i, 0, index.size(i));
    }
    return scatter_add_checked(self, d, index, block);
  }
  if (self.dtype() == kBFloat16) {
    // Added in float32 and rounded once, as index_add; recorded as casts around a float32 op.
    return scatter_add_checked(self.to(kFloat32), d, index, src.to(kFloat32)).to(kBFloat16);
  }
  // The output starts as self's values, copied from any layout (the backward's zeros are an
  // expanded 0-d tensor: one write here).
  Tensor out = detail::make_empty(self.sizes(), self.dtype(), self.device(), name);
  detail::copy_into(out, self.detach());
  // Where the index covers only part of self outside dim and that block is not contiguous,
  // scatter into a packed copy of the block and copy it back (a no-op copy otherwise).
  const Tensor block = narrowed_to(out, d, index);
  Tensor target = detail::packed(block, name);
  const Tensor idx = detail::packed(index, name), values = detail::packed(src, name);
  OpCall call;
  call.outputs[0] = &target;
  call.num_outputs = 1;
  call.dim = d;
  const Tensor flat_idx = idx.reshape({idx.numel()});
  if (idx.numel() == idx.size(d)) {
    // One column (every dim but d of extent 1): this is index_add with alpha 1, whose kernels
    // add in the same order and, on a GPU, run the target rows in parallel where the column
    // kernel would walk the whole index in one thread (kernels/cuda/gather.cu).
    call.op = OpId::index_add;
    call.inputs = {&target, &flat_idx, &values};  // index_add reads input 0's sizes only
    call.num_inputs = 3;
    call.scalar_a = 1;
    call.has_a = true;
  } else {
    call.op = OpId::scatter_add;
    call.inputs = {&idx, &values};
    call.num_inputs = 2;
  }
  run_kernel(call, self.device());
  detail::copy_into(block, target);
  record_scatter_add(self, d, index, src, out);
  return out;
}

}  // namespace

Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const char* name = "scatter_add";
  detail::check_defined(name, {&self, &index, &src});
  if (all_vectors_with_a_scalar({&self, &index, &src})) {
    detail::wrap_dim(dim, 1, name);
    return scatter_add(as_vector(self), 0, as_vector(index), as_vector(src)).reshape(self.sizes());
  }
  const int64_t d = check_gather_index(name, self, dim, index);
  detail::check_same_device(name, {&self, &src});
  WICK_CHECK(src.dtype() == self.dtype(), DtypeError, name,
             "src must have self's dtype: ", detail::describe_all({&self, &src}));
  WICK_CHECK(self.dtype() != kBool, DtypeError, name, "does not add bool tensors, got ",
             describe(self));
  if (index.numel() == 0) {
    // Nothing is added, and src's shape is not checked, as PyTorch's.
    Tensor out = detail::make_empty(self.sizes(), self.dtype(), self.device(), name);
    detail::copy_into(out, self.detach());
    record_scatter_add(self, d, index, src, out);
    return out;
  }
  WICK_CHECK(src.dim() == index.dim(), ShapeError, name,
             "src must have as many dims as index: ", detail::describe_all({&self, &index, &src}));
  for (int64_t i = 0; i < index.dim(); ++i) {
    WICK_CHECK(index.size(i) <= src.size(i), ShapeError, name,
               "index may not be larger than src in dim ", i, ": ",
               detail::describe_all({&self, &index, &src}));
  }
  return scatter_add_checked(self, d, index, src);
}

// The in-place forms: the out-of-place op on the current value, then copy_ (which records the
// write for autograd and bumps the version). One more write of this than a fused kernel; the
// checks run before anything changes.
Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                           const Scalar& alpha) {
  detail::check_defined("index_add_", {this});
  detail::check_inplace_target(*this, "index_add_", true);
  return copy_(wick::index_add(*this, dim, index, source, alpha));
}
Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) {
  detail::check_defined("scatter_add_", {this});
  detail::check_inplace_target(*this, "scatter_add_", true);
  return copy_(wick::scatter_add(*this, dim, index, src));
}

Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  return wick::gather(*this, dim, index);
}
Tensor Tensor::scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const {
  return wick::scatter_add(*this, dim, index, src);
}

}  // namespace wick
