// ops_join.cpp: cat and stack, with PyTorch 1.13's rules. cat checks its list once, makes one
// contiguous result of the promoted dtype, and copies each input into its slice with the
// device's copy kernel (which casts and takes any strides), so it runs on every backend without
// a kernel of its own (OpKind::Composite). Autograd records one node with an edge per input;
// its rule hands each input its slice of the gradient. stack writes each input into its slice
// of a new dim the same way.
#include <string>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// PyTorch keeps accepting 1-D empty tensors of any other shape in cat ("legacy" empties, from
// the days when an empty tensor had sizes [0]): they are skipped by the shape checks.
bool skipped_by_cat(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

std::string describe_list(const std::vector<Tensor>& tensors) {
  std::string all;
  for (size_t i = 0; i < tensors.size(); ++i) {
    all += (i == 0 ? "" : ", ") + (tensors[i].defined() ? describe(tensors[i]) : "undefined");
  }
  return "[" + all + "]";
}

// Records the join for autograd (one edge per listed tensor) and returns its result.
Tensor recorded(OpId op, const std::vector<Tensor>& tensors, const Tensor& out, int64_t dim) {
  Tensor result = out;
  OpCall call;
  call.op = op;
  call.list = std::span<const Tensor>(tensors);
  call.outputs[0] = &result;
  call.num_outputs = 1;
  call.dim = dim;
  detail::maybe_record(call);
  return result;
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  const char* name = "cat";
  WICK_CHECK(!tensors.empty(), ValueError, name, "expected a non-empty list of tensors");
  const Tensor* reference = nullptr;  // the first tensor that is not a legacy empty
  Dtype dtype = tensors[0].defined() ? tensors[0].dtype() : kFloat32;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    WICK_CHECK(t.defined(), ValueError, name, "tensor ", i,
               " of the list is undefined: ", describe_list(tensors));
    WICK_CHECK(t.dim() > 0, ShapeError, name, "zero-dimensional tensor (at position ", i,
               ") cannot be concatenated: ", describe_list(tensors));
    WICK_CHECK(t.device() == tensors[0].device(), DeviceError, name,
               "expected all tensors on one device, got ", describe_list(tensors));
    dtype = promote_types(dtype, t.dtype());
    if (reference == nullptr && !skipped_by_cat(t)) reference = &t;
  }
  const Device device = tensors[0].device();
  if (reference == nullptr) {
    // Only legacy empties: the result is one of them, in the promoted dtype, for any dim (as
    // PyTorch 1.13, which checks dim against the first tensor that is not skipped).
    Tensor out = detail::make_empty({0}, dtype, device, name);
    return recorded(OpId::cat, tensors, out, 0);
  }
  const int64_t d = detail::wrap_dim(dim, reference->dim(), name);
  Shape out_sizes = reference->sizes();
  out_sizes[d] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (skipped_by_cat(t)) continue;
    WICK_CHECK(t.dim() == reference->dim(), ShapeError, name,
               "tensors must have the same number of dimensions: got ", reference->dim(), " and ",
               t.dim(), " (tensor ", i, " of ", describe_list(tensors), ")");
    for (int64_t k = 0; k < t.dim(); ++k) {
      WICK_CHECK(k == d || t.size(k) == reference->size(k), ShapeError, name,
                 "sizes of tensors must match except in dimension ", d, ": expected size ",
                 reference->size(k), " but got size ", t.size(k), " in dimension ", k,
                 " for tensor ", i, " of ", describe_list(tensors));
    }
    WICK_CHECK(!__builtin_add_overflow(out_sizes[d], t.size(d), &out_sizes[d]), ShapeError, name,
               "the joined size of dimension ", d, " overflows int64: ", describe_list(tensors));
  }
  Tensor out = detail::make_empty(out_sizes, dtype, device, name);
  // An empty result has nothing to copy, and its parts' offsets (offset * stride) could
  // overflow: [3037000500, 4294967297, 0] twice along dim 0 (fuzz_ops).
  if (out.numel() == 0) return recorded(OpId::cat, tensors, out, d);
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (skipped_by_cat(t)) continue;
    Shape part_sizes = out_sizes;
    part_sizes[d] = t.size(d);
    const Tensor part = detail::make_view(out, part_sizes, out.strides(),
                                          out.storage_offset() + offset * out.stride(d));
    detail::copy_into(part, t.detach());
    offset += t.size(d);
  }
  return recorded(OpId::cat, tensors, out, d);
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  const char* name = "stack";
  WICK_CHECK(!tensors.empty(), ValueError, name, "expected a non-empty list of tensors");
  WICK_CHECK(tensors[0].defined(), ValueError, name,
             "tensor 0 of the list is undefined: ", describe_list(tensors));
  // The dim first, as PyTorch's maybe_wrap_dim: a bad dim is an IndexError whatever the sizes.
  const int64_t d = detail::wrap_dim(dim, tensors[0].dim() + 1, name);
  Dtype dtype = tensors[0].dtype();
  for (size_t i = 0; i < tensors.size(); ++i) {
    WICK_CHECK(tensors[i].defined(), ValueError, name, "tensor ", i,
               " of the list is undefined: ", describe_list(tensors));
    WICK_CHECK(tensors[i].sizes() == tensors[0].sizes(), ShapeError, name,
               "expects each tensor to be equal size, but got ", tensors[0].sizes(),
               " at entry 0 and ", tensors[i].sizes(), " at entry ", i, " (",
               describe_list(tensors), ")");
    WICK_CHECK(tensors[i].device() == tensors[0].device(), DeviceError, name,
               "expected all tensors on one device, got ", describe_list(tensors));
    dtype = promote_types(dtype, tensors[i].dtype());
  }
  // Written directly into the result, one slice of the new dim each. Not cat of unsqueezed
  // views: recording those views marked each input as having views in the graph, which made
  // autograd refuse a later in-place op on it (PyTorch allows it).
  Shape out_sizes = tensors[0].sizes();
  out_sizes.insert(static_cast<size_t>(d), static_cast<int64_t>(tensors.size()));
  const Device device = tensors[0].device();
  Tensor out = detail::make_empty(out_sizes, dtype, device, name);
  if (out.numel() == 0) return recorded(OpId::stack, tensors, out, d);  // as cat: no offsets
  Shape part_strides = out.strides();
  part_strides.erase(static_cast<size_t>(d));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor part =
        detail::make_view(out, tensors[i].sizes(), part_strides,
                          out.storage_offset() + static_cast<int64_t>(i) * out.stride(d));
    detail::copy_into(part, tensors[i].detach());
  }
  return recorded(OpId::stack, tensors, out, d);
}

}  // namespace wick
