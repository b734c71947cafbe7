// ops_sort.cpp: the op boundary for sort, argsort and topk: one Kernel op, OpId::sort, that
// orders each line of self along a dim and keeps the first k (sort: k = the dim's size).
// The order is total, so the result is one permutation, the same bits on every device, thread
// count and algorithm (a full sort, a partial one, a tile sort with merges):
//  - values by `<` (by `>` when descending), NaN above every number (last when ascending,
//    first when descending, as PyTorch's);
//  - values that compare equal (0.0 and -0.0 among them, and NaN with NaN) by position, lowest
//    first: a stable sort, as PyTorch's sort(stable=true) in both directions.
// Kernel contract: input 0 is self packed as [outer, n, inner] around dim; outputs 0 (values,
// self's dtype) and 1 (int64 positions along dim) are [outer, k, inner], contiguous. Attributes:
// dim = the wrapped dim; ints = {k, descending (0 or 1)}. Both backends take bfloat16 themselves
// (they compare it as float and move its bits). The kernels: kernels/cpu/sort.cpp,
// kernels/cuda/sort.cu.
// Autograd: the values' gradient goes back to the positions the indices name (a scatter into
// zeros); the node saves the indices only.
#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

std::tuple<Tensor, Tensor> sort_lines(const char* name, const Tensor& self, int64_t dim, int64_t k,
                                      bool descending) {
  Shape sizes = self.sizes();
  sizes[static_cast<size_t>(dim)] = k;
  Tensor values = detail::make_empty(sizes, self.dtype(), self.device(), name);
  Tensor indices = detail::make_empty(sizes, kInt64, self.device(), name);
  OpCall call;
  call.op = OpId::sort;
  call.num_inputs = 1;
  call.outputs = {&values, &indices};
  call.num_outputs = 2;
  call.dim = dim;
  call.ints = {k, descending ? 1 : 0};
  if (values.numel() > 0) {
    const Tensor x = detail::packed(self, name);
    call.inputs[0] = &x;
    run_kernel(call, self.device());
  }
  call.inputs[0] = &self;  // autograd records the caller's tensor
  detail::maybe_record(call);
  return {values, indices};
}

// A 0-d tensor is one line of one element, as PyTorch's: dim is -1 or 0, and the result is
// self's value at position 0.
std::tuple<Tensor, Tensor> sort_scalar(const char* name, const Tensor& self, int64_t dim,
                                       bool descending) {
  detail::wrap_dim(dim, 1, name);
  auto [values, indices] = sort_lines(name, self.reshape({1}), 0, 1, descending);
  return {values.reshape({}), indices.reshape({})};
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  const char* name = "sort";
  detail::check_defined(name, {&self});
  if (self.dim() == 0) return sort_scalar(name, self, dim, descending);
  const int64_t d = detail::wrap_dim(dim, self.dim(), name);
  return sort_lines(name, self, d, self.size(d), descending);
}

std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> /*stable*/, int64_t dim,
                                bool descending) {
  return sort(self, dim, descending);
}

Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(sort(self, dim, descending));
}

std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest,
                                bool /*sorted*/) {
  const char* name = "topk";
  detail::check_defined(name, {&self});
  WICK_CHECK(self.dtype() != kBool, DtypeError, name,
             "does not take bool tensors (as PyTorch), got ", describe(self));
  const int64_t size = self.dim() == 0 ? 1 : self.size(detail::wrap_dim(dim, self.dim(), name));
  WICK_CHECK(k >= 0 && k <= size, IndexError, name, "selected index k out of range: k = ", k,
             " for dim ", dim, " of size ", size, " in ", describe(self));
  // 0-d: PyTorch returns the value for k = 0 as for k = 1.
  if (self.dim() == 0) return sort_scalar(name, self, dim, largest);
  return sort_lines(name, self, detail::wrap_dim(dim, self.dim(), name), k, largest);
}

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const {
  return wick::sort(*this, dim, descending);
}
std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool> stable, int64_t dim,
                                        bool descending) const {
  return wick::sort(*this, stable, dim, descending);
}
Tensor Tensor::argsort(int64_t dim, bool descending) const {
  return wick::argsort(*this, dim, descending);
}
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return wick::topk(*this, k, dim, largest, sorted);
}

}  // namespace wick
