// dispatch.hpp: the contract between the op boundary (core/src/ops_*.cpp) and the backends.
// The boundary checks everything and hands a kernel an OpCall it can trust:
//  - elementwise ops: every input already expanded to the output's sizes (zero strides where
//    broadcast) and cast to one compute dtype; the output has that dtype (bool for comparisons)
//    and any strides (a new one is laid out as PyTorch lays it out: wick/dim_order.hpp);
//  - reductions: the output keeps the reduced dims with size 1 (keepdim form), contiguous;
//  - softmax: input and contiguous output of one shape, `dim` non-negative;
//  - matmul: a [batch..., M, K] and b [batch..., K, N] expanded to the same batch dims, any
//    strides; the output [batch..., M, N] contiguous;
//  - copy: output and input of one shape, any dtypes (bfloat16 included), one device;
//  - arange: a contiguous 1-D output; element i is start + i * step with start and step in
//    scalar_a and scalar_b: int64 numbers count in int64 (wrapping: every value fits), doubles
//    in double, each value then converted to the output's dtype.
// Backends register one KernelFn per (op, device type) at start-up (kernels/*/register_*.cpp).
#pragma once

#include <array>
#include <span>
#include <string>

#include "wick/op_list.hpp"
#include "wick/tensor.hpp"

namespace wick {

struct OpCall {
  OpId op;
  std::array<const Tensor*, 3> inputs{};
  int num_inputs = 0;
  std::array<Tensor*, 2> outputs{};  // max/min over a dim: values, then int64 indices
  int num_outputs = 0;
  // Attributes; which ones an op reads is written beside the op in ops_*.cpp.
  Scalar scalar_a, scalar_b;  // pow exponent (a: in the compute dtype, b: as written), clamp
                              // bounds, fill value
  bool has_a = false, has_b = false;
  int64_t dim = 0;        // softmax dim
  bool keepdim = false;   // reductions, when recorded for autograd
  bool over_all = false;  // reductions: max()/min() over every element (their gradient differs)
  Shape ints;             // reduce: one flag per input dim (1 = reduced); views: their arguments
  uint64_t seed = 0, offset = 0;  // random: Philox key and first counter

  // Composite ops with any number of inputs (cat) list them here instead of in `inputs`;
  // autograd records one edge per listed tensor.
  std::span<const Tensor> list;

  const Tensor& in(int i) const { return *inputs[i]; }
  Tensor& out(int i = 0) const { return *outputs[i]; }
};

using KernelFn = void (*)(const OpCall& call);

// index_select and index_add (core/src/ops_index.cpp): self (input 0) seen as [outer, size,
// inner] around the dim, and the index's length n; both backends' kernels walk this.
struct IndexLayout {
  int64_t outer = 1, size = 1, inner = 1, n = 0;
};
inline IndexLayout index_layout(const OpCall& call) {
  const Tensor& self = call.in(0);
  IndexLayout l;
  for (int64_t d = 0; d < call.dim; ++d) l.outer *= self.size(d);
  for (int64_t d = call.dim + 1; d < self.dim(); ++d) l.inner *= self.size(d);
  l.size = self.size(call.dim);
  l.n = call.in(1).numel();
  return l;
}

// gather and scatter_add (core/src/ops_gather.cpp): the index (gather's input 1, scatter_add's
// input 0) packed as [outer, n, inner] around the dim; the gathered-from input (gather's input 0)
// or the scattered-into output, packed as [outer, size, inner] with the same outer and inner.
struct GatherLayout {
  int64_t outer = 1, n = 1, inner = 1, size = 1;
};
inline GatherLayout gather_layout(const Tensor& index, const Tensor& table, int64_t dim) {
  GatherLayout l;
  for (int64_t d = 0; d < dim; ++d) l.outer *= index.size(d);
  for (int64_t d = dim + 1; d < index.dim(); ++d) l.inner *= index.size(d);
  l.n = index.size(dim);
  l.size = table.size(dim);
  return l;
}

// scatter_reduce's kernels: how the elements sent to one target combine with it (OpCall::ints
// = {mode, include_self}). mean is the boundary's (a sum, then a division by the counts), never
// a kernel's; assign is scatter's (the last element wins).
enum class ScatterMode : int64_t { sum, prod, amax, amin, assign, mean };

// computes_bf16: the kernel takes bfloat16 tensors itself (the copy kernels, the CUDA matmul);
// for any other kernel run_kernel computes bfloat16 in float32 and rounds each output once.
void register_kernel(OpId op, DeviceType device, KernelFn fn, bool computes_bf16 = false);
bool supports(OpId op, DeviceType device);
// Runs the registered kernel for call.op on `device`; a missing one is a DeviceError.
void run_kernel(const OpCall& call, Device device);

namespace detail {
// Runs fn on float32 copies of call's bfloat16 inputs and outputs, then rounds each bfloat16
// output once (what run_kernel does for kernels that do not compute bfloat16 themselves; the
// CUDA matmul uses it for the bfloat16 matmuls its tensor-core kernel cannot take).
void run_in_float32(KernelFn fn, const OpCall& call, Device device);
// Runs once before the first dispatch: registers the CPU backend, the CUDA backend where it was
// built, and the autograd layer. Defined in src/init.cpp, the one place that knows every layer.
void ensure_initialized();

// While one is alive on this thread, the index ops (index_select, index_add, gather,
// scatter_add) skip the range check of their index values; every other check still runs. On a
// GPU the check is two reductions and a synchronisation, which stops the host from queueing
// work ahead; on the CPU it costs about 2 us. Two uses:
//  - Device indices only (the default): the backward rules of the index ops and of sort, whose
//    saved index the forward checked against the same size (an in-place change since is a
//    version error). A write through a raw device pointer is not seen by the version counter,
//    so the CUDA kernels still guard every access: an index out of range reads zeros (gather,
//    index_select), adds nothing (scatter_add), or is an IndexError (index_add, which reads its
//    index on the host anyway). CPU indices are checked as always.
//  - host_tensors_too: indices checked by the caller a moment before, with no user code in
//    between (cross_entropy's targets).
class IndexesInRange {
 public:
  explicit IndexesInRange(bool host_tensors_too = false);
  ~IndexesInRange();
  IndexesInRange(const IndexesInRange&) = delete;
  IndexesInRange& operator=(const IndexesInRange&) = delete;

 private:
  int previous_;
};
// How many index range checks this thread has run (the tests count the checks a step makes).
uint64_t index_range_checks();
}  // namespace detail

}  // namespace wick
