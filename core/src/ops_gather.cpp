// ops_gather.cpp: the op boundary for gather (torch.gather), and the checks it shares with the
// scatters (ops_scatter.cpp), whose gradient it is. With dim = d and an int64 index of self's
// rank and shape I, gather(self, d, index) has the index's shape: out[..., i, ...] = self[...,
// index[..., i, ...], ...], the index value replacing the coordinate along d.
// As in PyTorch, I may be smaller than self in every dim but d. The kernel sees one layout:
// the index packed as [outer, n, inner] around d, and self as [outer, size, inner] with the
// same outer and inner; where I is smaller than self outside d, self is narrowed to I's extents
// and packed first.
// Kernel attributes: dim = the wrapped dim. bfloat16 moves as raw bits.
// Out-of-range indices are an IndexError raised here (on a GPU, two reductions and one
// synchronisation), never a device-side fault.
#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick::detail {

int64_t check_gather_index(const char* name, const Tensor& self, int64_t dim, const Tensor& index) {
  const int64_t wrapped = wrap_dim(dim, self.dim(), name);
  WICK_CHECK(index.dtype() == kInt64, DtypeError, name, "expected an int64 index, got ",
             describe(index));
  check_same_device(name, {&self, &index});
  if (index.numel() == 0) return wrapped;
  WICK_CHECK(index.dim() == self.dim(), ShapeError, name,
             "index must have as many dims as self: ", describe_all({&self, &index}));
  for (int64_t d = 0; d < self.dim(); ++d) {
    WICK_CHECK(d == wrapped || index.size(d) <= self.size(d), ShapeError, name,
               "index may not be larger than self in dim ", d, " (only dim ", wrapped,
               " may differ): ", describe_all({&self, &index}));
  }
  check_index_range(name, self, wrapped, index);
  return wrapped;
}

Tensor narrowed_to(const Tensor& self, int64_t dim, const Tensor& index) {
  Tensor block = self.detach();
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d != dim && index.size(d) != self.size(d)) block = block.narrow(d, 0, index.size(d));
  }
  return block;
}

bool all_vectors_with_a_scalar(std::initializer_list<const Tensor*> tensors) {
  bool any_scalar = false;
  for (const Tensor* t : tensors) {
    if (t->dim() > 1) return false;
    any_scalar = any_scalar || t->dim() == 0;
  }
  return any_scalar;
}

}  // namespace wick::detail

namespace wick {

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  const char* name = "gather";
  detail::check_defined(name, {&self, &index});
  if (detail::all_vectors_with_a_scalar({&self, &index})) {
    detail::wrap_dim(dim, 1, name);
    return gather(self.reshape({self.numel()}), 0, index.reshape({index.numel()}))
        .reshape(index.sizes());
  }
  const int64_t d = detail::check_gather_index(name, self, dim, index);
  Tensor out = detail::make_empty(index.sizes(), self.dtype(), self.device(), name);
  OpCall call;
  call.op = OpId::gather;
  call.num_inputs = 2;
  call.outputs[0] = &out;
  call.num_outputs = 1;
  call.dim = d;
  if (out.numel() > 0) {
    const Tensor x = detail::packed(detail::narrowed_to(self, d, index), name);
    const Tensor idx = detail::packed(index, name);
    call.inputs = {&x, &idx};
    run_kernel(call, self.device());
  }
  call.inputs = {&self, &index};  // autograd records the caller's tensors
  detail::maybe_record(call);
  return out;
}

Tensor Tensor::gather(int64_t dim, const Tensor& index) const {
  return wick::gather(*this, dim, index);
}

}  // namespace wick
