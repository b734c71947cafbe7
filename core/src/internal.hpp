// internal.hpp: helpers shared by core's .cpp files (not installed).
#pragma once

#include <string>

#include "wick/autograd_hooks.hpp"
#include "wick/backend.hpp"
#include "wick/dispatch.hpp"
#include "wick/tensor.hpp"

namespace wick::detail {

// sizes with dim's size replaced by n (the index ops' results).
inline Shape with_dim_size(const Shape& sizes, int64_t dim, int64_t n) {
  Shape out = sizes;
  out[static_cast<size_t>(dim)] = n;
  return out;
}
// Row-major strides for sizes.
Shape contiguous_strides(const Shape& sizes);
// A new contiguous tensor; checks the element and byte counts for overflow.
Tensor make_empty(const Shape& sizes, Dtype dtype, Device device, const char* op);
// The same with `strides`, which must lay the elements out densely in some order of the dims
// (wick/dim_order.hpp's elementwise_result_strides gives such strides).
Tensor make_empty_dense(const Shape& sizes, const Shape& strides, Dtype dtype, Device device,
                        const char* op);
// A view of base's storage with the given layout.
Tensor make_view(const Tensor& base, const Shape& sizes, const Shape& strides, int64_t offset);
// The view of t broadcast to `sizes` (zero strides on broadcast dims), not recorded for
// autograd: what the op boundary hands kernels. t's sizes must broadcast to `sizes`.
Tensor expand_view(const Tensor& t, const Shape& sizes);
// dim in [-ndim, ndim) -> [0, ndim); IndexError naming op otherwise.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);
// Flags (1 = reduced) for `dims` of a tensor with ndim dims (all of them when `all`); each dim
// wrapped and checked, a repeat an IndexError, the errors naming op (ops_reduce.cpp).
Shape reduce_mask(const Shape& dims, int64_t ndim, bool all, const char* op);
// The dims' errors of a reduction of a over dims (none: every dim) named as op, checked before
// the sum or mean that an op is built of would name itself instead.
inline void check_reduce_dims(const Tensor& a, const Shape& dims, const char* op) {
  (void)reduce_mask(dims, a.dim(), dims.empty(), op);
}
// -0.0 in t's sizes and dtype, joined to t's graph with a zero gradient when autograd records
// t (else undefined): added to a result (-0.0 is the identity of addition, so no value
// changes), it keeps in the graph an input whose values an op ignores, as PyTorch gives such
// an input a zero gradient (ops_compose.cpp).
Tensor zero_gradient_link(const Tensor& t);
// beta * c + alpha * product: the tail of addmm, addmv, addr and baddbmm, with PyTorch's rules.
// c must broadcast to the product's shape (a ShapeError naming op); a c of another dtype is
// cast to the product's, or refused when same_dtype (torch's addmm); integer products take
// alpha and beta truncated to int64 (torch's alpha.to<int64_t>()), or refuse fractional ones
// when exact_integer_scalars (torch's addr); beta = 0 reads nothing of c (its NaN and inf do not
// reach the result) and still gives c a zero gradient (ops_compose.cpp).
Tensor add_scaled_product(const char* op, const Tensor& c, Tensor product, const Scalar& beta,
                          const Scalar& alpha, bool same_dtype, bool exact_integer_scalars);
// "[2, 3] float32 cpu and [3] int64 cpu", for messages.
std::string describe_all(std::initializer_list<const Tensor*> tensors);
// Every tensor defined, or a ValueError naming op (Tensor::impl() could not name it).
void check_defined(const char* op, std::initializer_list<const Tensor*> tensors);
// All operands on one device, or a DeviceError naming op and each operand.
void check_same_device(const char* op, std::initializer_list<const Tensor*> tensors);
// Makes sure the device can be used (backend registered, index valid).
Device check_device(Device device, const char* op);
// Runs the op's kernel and records it for autograd when needed.
void run_and_record(const OpCall& call, Device device);
// Writes `value` into every element of t (kernel op fill). No range check: a number operand of
// an op becomes inf in float32 as in PyTorch; fill_ and full check a user's value first.
void fill_kernel(const Tensor& t, const Scalar& value);
// A number that becomes a value of dtype d (a fill value, a clamp bound) must fit, as PyTorch's
// checked conversion: a ValueError naming op and t for a finite float past d's finite range,
// and for NaN, inf or a float past +-2^63 into int64. inf and NaN may become a float.
void check_value_fits(const Scalar& value, Dtype d, const char* op, const Tensor& t);
// Rejects in-place writes to expanded tensors, and asks autograd about tensors it tracks;
// `recorded`: the op records itself in place (InplaceRecord) rather than being refused.
void check_inplace_target(const Tensor& self, const char* op, bool recorded = false);

// Autograd for an in-place op (add_, sub_, mul_, div_, clamp_, copy_): begin() before the
// write (it copies the old value when the backward needs it), finish() after the write and
// the version bump, with the op's call (inputs[0] is replaced by the old value).
class InplaceRecord {
 public:
  InplaceRecord(OpId op, const Tensor& self, const Tensor* other);
  bool active() const { return active_; }  // the op must be recorded
  void finish(OpCall& call) const;

 private:
  bool active_ = false;
  Tensor before_;
};
// torch.result_type of two tensors.
Dtype result_type_of(const Tensor& a, const Tensor& b);
// The unary kernel op `op` of a, computed and returned in a floating dtype (a's, or float32 for
// integers and bool), with an optional attribute (OpCall::scalar_a): the elementwise engine of
// ops_elementwise.cpp, for ops declared elsewhere (ops_special.cpp).
Tensor floating_unary(OpId op, const Tensor& a, std::optional<Scalar> attr = std::nullopt);
// matmul whose errors name `name` (ops_linalg.cpp): mm, dot, mv and bmm are matmul with their
// own shape checks first.
Tensor matmul_named(const Tensor& a, const Tensor& b, const char* name);
// Copies src (same shape) into dst, casting; both on one device or across via host.
void copy_into(const Tensor& dst, const Tensor& src);
// t detached, as a contiguous tensor (a copy where it is not; t itself where it is): what
// kernels that walk rows in memory order are handed (layer_norm, index_select, index_add).
// Undefined stays undefined.
Tensor packed(const Tensor& t, const char* op);
// The index ops' range check (ops_index.cpp): every value of the int64 `index` in [0,
// self.size(dim)) (with allow_negative, in [-size, size)), else an IndexError naming op, self,
// the dim and the index's range.
void check_index_range(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                       bool allow_negative = false);

// The checks of the ops that take a vector index along dim (index_select, index_add,
// index_copy, index_fill; ops_index.cpp): self and index defined, int64, at most 1 dim, on
// self's device, every value in range (check_index_range); returns the wrapped dim.
int64_t check_vector_index(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                           bool allow_negative = false);
// gather and the scatters (ops_gather.cpp, ops_scatter.cpp): the checks on self, dim and an
// index of self's rank (int64, no larger than self outside dim, every value in range); returns
// the wrapped dim. An empty index skips the shape checks, as PyTorch's.
int64_t check_gather_index(const char* op, const Tensor& self, int64_t dim, const Tensor& index);
// PyTorch treats 0-d tensors as 1-d of one element in gather and the scatters: true when every
// operand has at most one dim and one of them has none.
bool all_vectors_with_a_scalar(std::initializer_list<const Tensor*> tensors);
// self narrowed to the index's extents in every dim but `dim` (a detached view).
Tensor narrowed_to(const Tensor& self, int64_t dim, const Tensor& index);

}  // namespace wick::detail
