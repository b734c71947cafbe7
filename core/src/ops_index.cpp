// ops_index.cpp: the op boundary for index_select and index_add, the two ops that read an int64
// index tensor (nn::Embedding is index_select on its weight; index_select's gradient is
// index_add into zeros, and index_add's gradient for its source is index_select).
// Both check here, with PyTorch's rules and wording, then pack every operand contiguous, so
// that the kernels see `self` as [outer, size, inner] (size = self.size(dim)) and the index as
// n int64 values in [0, size):
//  - index_select(self, dim, index) -> [outer, n, inner]: row i is self's row index[i];
//  - index_add(self, dim, index, source, alpha) -> self with alpha * source's row i added to
//    row index[i], rows in index order (a repeated index accumulates in that order, on every
//    device: the same bits on the CPU and the GPU, and no atomics). The boundary copies self
//    into the output first (the copy kernel takes any layout), so the kernel only adds; its
//    inputs are self (read for its sizes only), the index and the packed source. bfloat16 is
//    computed in float32 here.
// Kernel attributes: dim = the wrapped dim; index_add's scalar_a = alpha.
// Out-of-range indices are an IndexError raised here (on a GPU, two reductions and one
// synchronisation), never a device-side fault: PyTorch's CUDA kernels assert there, which ends
// the process. Indices wick made or checked itself skip that check (detail::IndexesInRange,
// wick/dispatch.hpp): device indices in backward rules and sort's gradient (the CUDA kernels
// guard each access), and cross_entropy's targets.
#include <algorithm>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace detail {
namespace {
// What IndexesInRange trusts: 0 nothing, 1 device indices, 2 every index.
thread_local int t_trusted = 0;
thread_local uint64_t t_index_range_checks = 0;
}  // namespace

int64_t check_vector_index(const char* name, const Tensor& self, int64_t dim, const Tensor& index,
                           bool allow_negative) {
  check_defined(name, {&self, &index});
  const int64_t wrapped = wrap_dim(dim, self.dim(), name);
  WICK_CHECK(index.dtype() == kInt64, DtypeError, name, "expected an int64 index, got ",
             describe(index));
  WICK_CHECK(index.dim() <= 1, ShapeError, name, "index must be a vector (at most 1 dim), got ",
             describe(index));
  check_same_device(name, {&self, &index});
  check_index_range(name, self, wrapped, index, allow_negative);
  return wrapped;
}

IndexesInRange::IndexesInRange(bool host_tensors_too) : previous_(t_trusted) {
  t_trusted = std::max(t_trusted, host_tensors_too ? 2 : 1);
}
IndexesInRange::~IndexesInRange() { t_trusted = previous_; }
uint64_t index_range_checks() { return t_index_range_checks; }

void check_index_range(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                       bool allow_negative) {
  if (index.numel() == 0 || t_trusted == 2 || (t_trusted == 1 && !index.is_cpu())) return;
  ++t_index_range_checks;
  // One host read of both bounds: amin and amax stacked, then one copy. (A serial scan of a
  // CPU index instead was measured slower: 20.4 against 16.1 us for a 4096-element index,
  // 6.5 against 5.5 ms for a 1M one; the reductions are vectorised and threaded.)
  const std::vector<int64_t> bounds =
      stack({wick::min(index), wick::max(index)}).to(kCPU).to_vector<int64_t>();
  const int64_t low = bounds[0], high = bounds[1];
  const int64_t size = self.size(dim);
  WICK_CHECK(low >= (allow_negative ? -size : 0) && high < size, IndexError, op,
             "index out of range in self: dim ", dim, " of ", describe(self), " has size ", size,
             ", and the index holds values from ", low, " to ", high);
}
}  // namespace detail

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  const char* name = "index_select";
  if (self.defined() && self.dim() == 0) {
    // As PyTorch: a 0-d tensor is one row along dim 0 (or -1), and the result is 0-d.
    detail::wrap_dim(dim, 1, name);
    WICK_CHECK(!index.defined() || index.numel() == 1, ShapeError, name,
               "a 0-d tensor takes exactly one index, got ", describe(index));
    return index_select(self.reshape({1}), 0, index).reshape({});
  }
  const int64_t d = detail::check_vector_index(name, self, dim, index);
  const Tensor x = detail::packed(self, name), idx = detail::packed(index, name);
  Tensor out = detail::make_empty(detail::with_dim_size(self.sizes(), d, index.numel()),
                                  self.dtype(), self.device(), name);
  OpCall call;
  call.op = OpId::index_select;
  call.inputs = {&x, &idx};
  call.num_inputs = 2;
  call.outputs[0] = &out;
  call.num_outputs = 1;
  call.dim = d;
  if (out.numel() > 0) run_kernel(call, self.device());
  call.inputs = {&self, &index};  // autograd records the caller's tensors
  detail::maybe_record(call);
  return out;
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha) {
  const char* name = "index_add";
  detail::check_defined(name, {&self, &index, &source});
  if (self.dim() == 0) {
    // As PyTorch: a 0-d tensor is one row along dim 0 (or -1); the source has one value per
    // index, in any shape of that many elements.
    detail::wrap_dim(dim, 1, name);
    WICK_CHECK(source.numel() == index.numel(), ShapeError, name, "a 0-d self takes ",
               index.numel(), " source value(s) for ", describe(index), ", got ", describe(source));
    return index_add(self.reshape({1}), 0, index, source.reshape({source.numel()}), alpha)
        .reshape({});
  }
  if (self.dim() == 1 && source.dim() == 0) {
    // A 1-D self takes a 0-d source for one index, as PyTorch's.
    return index_add(self, dim, index, source.reshape({1}), alpha);
  }
  const int64_t d = detail::check_vector_index(name, self, dim, index);
  detail::check_same_device(name, {&self, &source});
  WICK_CHECK(source.dtype() == self.dtype(), DtypeError, name,
             "source must have self's dtype: ", detail::describe_all({&self, &source}));
  const Shape expected = detail::with_dim_size(self.sizes(), d, index.numel());
  WICK_CHECK(source.sizes() == expected, ShapeError, name, "source must have shape ", expected,
             " (self's with dim ", d, " of the index's length), got ",
             detail::describe_all({&self, &index, &source}));
  WICK_CHECK(self.dtype() != kBool, DtypeError, name, "does not add bool tensors, got ",
             describe(self));
  WICK_CHECK(is_floating(self.dtype()) || !alpha.is_floating(), DtypeError, name, "alpha ", alpha,
             " must be an integer for the integer ", describe(self));
  detail::check_value_fits(alpha, self.dtype(), name, self);
  if (self.dtype() == kBFloat16) {
    // Added in float32 and rounded once, as run_kernel computes bfloat16 for other kernels
    // (it cannot here: the kernel adds into an output that already holds self). Recorded as
    // the casts and a float32 index_add, so autograd differentiates it.
    return index_add(self.to(kFloat32), d, index, source.to(kFloat32), alpha).to(kBFloat16);
  }
  // The output starts as self's values, copied from any layout: the backward's zeros, an
  // expanded 0-d tensor, cost one write here instead of a packed copy and a second pass.
  Tensor out = detail::make_empty(self.sizes(), self.dtype(), self.device(), name);
  detail::copy_into(out, self.detach());
  const Tensor idx = detail::packed(index, name), src = detail::packed(source, name);
  OpCall call;
  call.op = OpId::index_add;
  call.inputs = {&self, &idx, &src};  // the kernel reads self's sizes only
  call.num_inputs = 3;
  call.outputs[0] = &out;
  call.num_outputs = 1;
  call.dim = d;
  call.scalar_a = alpha;
  call.has_a = true;
  if (out.numel() > 0) run_kernel(call, self.device());
  call.inputs = {&self, &index, &source};
  detail::maybe_record(call);
  return out;
}

// In place: the out-of-place op on the current value, then copy_ (which records the write for
// autograd and bumps the version); the checks run before anything changes.
Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                           const Scalar& alpha) {
  detail::check_defined("index_add_", {this});
  detail::check_inplace_target(*this, "index_add_", true);
  return copy_(wick::index_add(*this, dim, index, source, alpha));
}

Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return wick::index_select(*this, dim, index);
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source,
                         const Scalar& alpha) const {
  return wick::index_add(*this, dim, index, source, alpha);
}

}  // namespace wick
