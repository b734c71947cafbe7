// ops_index.hpp: the indexing ops (index_select, index_add, gather, the scatter family),
// spelled as in libtorch; part of ops.hpp, which includes it (include wick/ops.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "wick/tensor.hpp"

namespace wick {

// ---- indexing (ops_index.cpp) ----
// index_select: the rows index[0], index[1], ... of `a` along dim, as torch.index_select (an
// int64 vector index; any value outside [0, a.size(dim)) is an IndexError). Differentiable in a.
Tensor index_select(const Tensor& a, int64_t dim, const Tensor& index);
// index_add: a copy of `a` with alpha * source's row i added to row index[i] along dim, rows in
// index order (repeated indices accumulate); source has a's shape with dim of the index's
// length. Differentiable in a and source. Differences from PyTorch: bfloat16 is added in
// float32 and rounded once (PyTorch's CPU kernel rounds after every add: 256 + 1 + 1 + 1 is 256
// there, 260 here); a float alpha for an integer tensor and bool tensors are DtypeErrors
// (PyTorch truncates alpha). In place: Tensor::index_add_.
Tensor index_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha = 1);

// ---- resampling along a dim (ops_resample.cpp) ----
// resample: K weighted taps per output position along dim, the separable step of interpolation
// (nearest: K = 1, linear: 2, cubic: 4):
//   out.select(dim, r) = sum over k < K of weight[k][r] * a.select(dim, index[k][r]),
// the products added left to right from the first (no zero is added first, so -0 stays -0) in
// the working precision: float for float32 and bfloat16 (rounded once at the end), double for
// float64. index: int64 [K, R] with values in [0, a.size(dim)) (else an IndexError); weight:
// [K, R] of a's dtype (a floating dtype); the result has a's shape with dim of size R. The same
// bits on the CPU and the GPU. Differentiable in a and weight.
Tensor resample(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& weight);
// resample's gradient for a (the transposed taps): a tensor of grad's shape with dim of size
// input_size, where position i along dim is the sum of weight[k][r] * grad.select(dim, r) over
// the taps (k, r) with index[k][r] = i, added in order of k, then r, starting from +0.
Tensor resample_backward(const Tensor& grad, int64_t dim, const Tensor& index, const Tensor& weight,
                         int64_t input_size);

// ---- gather and scatter (ops_gather.cpp) ----
// gather: torch.gather. An int64 index of a's rank, no larger than a outside dim; the result has
// the index's shape, with out[..., i, ...] = a[..., index[..., i, ...], ...] (the index value
// replacing the coordinate along dim). Values outside [0, a.size(dim)) are an IndexError.
// Differentiable in a.
Tensor gather(const Tensor& a, int64_t dim, const Tensor& index);

// searchsorted: for each value, where it would be inserted into sorted_sequence to keep it
// sorted: the first position whose element is >= the value (right: > it), int64. A 1-D
// sequence serves every value; an N-D one is one sequence per row along its last dim, and the
// values must share its other dims. The order is sort's (NaN above every number). sorter: the
// indices that sort an unsorted sequence along its last dim (argsort's). The operands are
// promoted to a common dtype; bool is refused. bucketize(input, boundaries) is
// searchsorted(boundaries, input) with 1-D boundaries. (PyTorch's out_int32 is absent: wick has
// no int32 dtype.)
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool right = false,
                    const Tensor& sorter = Tensor());
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool right = false,
                    const Tensor& sorter = Tensor());
Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool right = false);
Tensor bucketize(const Scalar& input, const Tensor& boundaries, bool right = false);
// isin: whether each element equals one of test_elements (torch.isin; NaN equals nothing),
// compared in the promoted dtype; invert negates. bool for every shape of elements. argwhere:
// nonzero's [K, a.dim()] positions (torch.argwhere).
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool invert = false);
Tensor isin(const Tensor& elements, const Scalar& test_element, bool invert = false);
Tensor isin(const Scalar& element, const Tensor& test_elements, bool invert = false);
Tensor argwhere(const Tensor& a);
// scatter_add: torch.scatter_add. A copy of `a` with src[..., i, ...] added to a[..., index[...,
// i, ...], ...] for every position of the index (src may be larger than the index; its extra
// elements are not read), in increasing i: repeated indices accumulate in that order on every
// device. Differentiable in a and src. As index_add: bfloat16 is added in float32 and rounded
// once, bool is a DtypeError. In place: Tensor::scatter_add_.
Tensor scatter_add(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src);
// ---- scatter, scatter_reduce, index_copy, index_fill, take_along_dim (ops_scatter.cpp) ----
// scatter: torch.scatter. A copy of `a` with src[..., i, ...] (or the value) written to a[...,
// index[..., i, ...], ...], index and src as scatter_add's. Where the index repeats a target,
// the last position in increasing i wins, on every device (PyTorch leaves it unspecified). The
// value is converted to a's dtype as fill_ does. Every dtype. Differentiable in a and src (src's
// gradient is gathered at every position, a repeated target's loser included, as PyTorch's).
Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& a, int64_t dim, const Tensor& index, const Scalar& value);
// scatter_reduce: torch.scatter_reduce. The elements of src sent to one target of `a` are
// combined by `reduce`: "sum", "prod", "mean", "amax" or "amin" (NaN wins in amax and amin),
// with the target's own value when include_self, else without it (a target no index names
// keeps its value either way). Elements are combined in increasing i on every device. int64
// mean divides rounding down (as PyTorch's; exact while the sum is below 2^53 in magnitude).
// bfloat16 is reduced in float32 and rounded once; bool is reduced as int64 and compared with
// zero (sum and amax are or, prod and amin are and; mean refuses bool). Differentiable in a and
// src with PyTorch's rules: amax and amin share a target's gradient evenly among its elements
// equal to the result (NaN counts as equal to NaN), prod's gradient is the product of the
// others (zeros included).
Tensor scatter_reduce(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self = true);
// index_copy: torch.index_copy. A copy of `a` with source's row i (along dim) written to row
// index[i]; source has a's shape with dim of the index's length. A repeated index: the last
// row wins. index_fill: a copy of `a` with the rows index names along dim set to the value
// (negative indices count from the end, as PyTorch's index_fill; a 0-d tensor value gets the
// sum of the filled positions' gradient). The index is an int64 vector or 0-d. Differentiable.
Tensor index_copy(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& a, int64_t dim, const Tensor& index, const Scalar& value);
Tensor index_fill(const Tensor& a, int64_t dim, const Tensor& index, const Tensor& value);
// take_along_dim: torch.take_along_dim. With a dim: a and the int64 indices (of a's rank)
// broadcast in every dim but dim, then gather along it. Without: a and the indices are
// flattened and the result is 1-D. Differentiable in a.
Tensor take_along_dim(const Tensor& a, const Tensor& indices,
                      std::optional<int64_t> dim = std::nullopt);

}  // namespace wick
