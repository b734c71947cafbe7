// dim_order.hpp: the order in which elementwise loops walk the dims of their operands, and the
// layout of a new elementwise result, by PyTorch's TensorIterator rules
// (reorder_dimensions, compute_fast_setup_type, allocate_or_resize_outputs). Why: a loop that
// walked x.t() in row-major order stepped 4 KiB between neighbouring elements of a [1024, 1024]
// float32, a page per element (exp of x.t(): 3.9 ms against libtorch's 0.39; a.t() * b.t():
// 13.4 ms against 0.11); walking the dims in memory order and giving the result x's layout,
// as PyTorch does, reads and writes memory in order. Used by the op boundary
// (core/src/ops_elementwise.cpp) and both backends' loops (kernels/cpu/loops.hpp,
// kernels/cuda/common.cuh).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "wick/shape.hpp"

namespace wick::detail {

// Fills order[0..sizes.size()) with the dims of `sizes`, fastest-moving first. Operand 0's
// strides decide the order of two dims where they can; a zero stride (a broadcast dim) or a tie
// in which the faster dim is already first passes the decision to the next operand; equal
// strides put the smaller size first. Dims that no operand orders keep their row-major order.
// An insertion sort that stops at the first operand that has an opinion, as PyTorch's
// reorder_dimensions, so that result layouts (elementwise_result_strides) match PyTorch's.
inline void fastest_dims_first(const Shape& sizes, const Shape* const* strides, size_t num_operands,
                               int* order) {
  const int ndim = static_cast<int>(sizes.size());
  for (int i = 0; i < ndim; ++i) order[i] = ndim - 1 - i;
  // 1: dim0 should move after dim1 (it is slower); -1: it stays before; 0: no operand knows.
  auto compare = [&](int dim0, int dim1) {
    for (size_t k = 0; k < num_operands; ++k) {
      const int64_t stride0 = (*strides[k])[static_cast<size_t>(dim0)];
      const int64_t stride1 = (*strides[k])[static_cast<size_t>(dim1)];
      if (stride0 == 0 || stride1 == 0) continue;
      if (stride0 < stride1) return -1;
      if (stride0 > stride1) return 1;
      if (sizes[static_cast<size_t>(dim0)] > sizes[static_cast<size_t>(dim1)]) return 1;
    }
    return 0;
  };
  for (int i = 1; i < ndim; ++i) {
    int dim1 = i;
    for (int dim0 = i - 1; dim0 >= 0; --dim0) {
      const int c = compare(order[dim0], order[dim1]);
      if (c > 0) {
        std::swap(order[dim0], order[dim1]);
        dim1 = dim0;
      } else if (c < 0) {
        break;
      }
    }
  }
}

// True when a tensor of these sizes and strides is row-major (dims of size 1 may have any
// stride; an empty tensor is). Tensor::is_contiguous asks this.
inline bool is_contiguous_layout(const Shape& sizes, const Shape& strides) {
  // An empty tensor is contiguous whatever its strides, as in PyTorch: checked before the walk,
  // which stopped at the first wrong stride of an outer dim (zeros({2, 0, 3}).transpose(0, 2)
  // read as not contiguous; found by review).
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return true;
  }
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] != 1 && strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

// True when the elements of a tensor of these sizes and strides tile one block of memory with
// no gaps and no overlaps, in some order of the dims (PyTorch's is_non_overlapping_and_dense).
bool is_non_overlapping_and_dense(const Shape& sizes, const Shape& strides);

// The strides of a new elementwise result of `sizes` whose inputs, expanded to `sizes` (zero
// strides where broadcast), have `input_strides`; `same_shape` says that every input had
// `sizes` before it was expanded (no broadcast and no number among them). As PyTorch:
//  - every input contiguous: contiguous;
//  - same shape, every input non-overlapping and dense with the same strides: those strides;
//  - otherwise the dims are ordered by fastest_dims_first over the inputs and the result is
//    dense in that order (contiguous when that order is row-major).
// So exp(x.t()) and a.t() * b.t() are transposed like their inputs, and a.t() + b takes the
// layout of a, its first input.
Shape elementwise_result_strides(const Shape& sizes, const Shape* const* input_strides,
                                 size_t num_inputs, bool same_shape);

}  // namespace wick::detail
