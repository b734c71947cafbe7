// ops_layout.hpp: arrangements made of views, copies and index ops (core/src/ops_layout.cpp),
// spelled as in libtorch; part of ops.hpp, which includes it (include wick/ops.hpp). Composites:
// both devices, and autograd through the ops they are made of.
#pragma once

#include <cstdint>
#include <vector>

#include "wick/tensor.hpp"

namespace wick {

// broadcast_to: a.expand(shape) (-1 keeps a dim). broadcast_tensors: every tensor expanded to
// the shape they broadcast to (views).
Tensor broadcast_to(const Tensor& a, const Shape& shape);
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors);
// tensor_split: views of a along dim. Into `sections` pieces (the first size % sections of
// them one longer), or cut before each of `indices` (clamped to the dim, as Python slices).
// hsplit, vsplit, dsplit: tensor_split along dim 1 (dim 0 for 1-D), 0 and 2, where a number
// of sections must divide the dim (numpy's rule, PyTorch's).
std::vector<Tensor> tensor_split(const Tensor& a, int64_t sections, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& a, const Shape& indices, int64_t dim = 0);
std::vector<Tensor> hsplit(const Tensor& a, int64_t sections);
std::vector<Tensor> hsplit(const Tensor& a, const Shape& indices);
std::vector<Tensor> vsplit(const Tensor& a, int64_t sections);
std::vector<Tensor> vsplit(const Tensor& a, const Shape& indices);
std::vector<Tensor> dsplit(const Tensor& a, int64_t sections);
std::vector<Tensor> dsplit(const Tensor& a, const Shape& indices);
// fliplr: flip(a, {1}) (at least 2 dims); flipud: flip(a, {0}) (at least 1 dim). ravel: a
// flattened to 1-D (a view when a is contiguous).
Tensor fliplr(const Tensor& a);
Tensor flipud(const Tensor& a);
Tensor ravel(const Tensor& a);
// block_diag: the tensors (0-d as [1, 1], 1-D [n] as [1, n], 2-D as they are) placed corner to
// corner on the diagonal of a zero matrix, in their promoted dtype.
Tensor block_diag(const std::vector<Tensor>& tensors);
// cartesian_prod: the rows of every combination of the 1-D tensors' elements, the last
// varying fastest ([N1 * ... * Nk, k]; one tensor is returned as it is). combinations: the
// r-element combinations of a 1-D tensor's elements in order ([C, r], itertools'
// combinations or, with_replacement, combinations_with_replacement; r = 0 gives [0]).
Tensor cartesian_prod(const std::vector<Tensor>& tensors);
Tensor combinations(const Tensor& a, int64_t r = 2, bool with_replacement = false);
// tril_indices, triu_indices: the [2, N] int64 (row; column) coordinates of the lower (upper)
// triangle of a row x col matrix, elements with column - row <= offset (>= offset), in row-major
// order.
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0, TensorOptions options = kInt64);
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0, TensorOptions options = kInt64);
// diagflat: diag of a flattened (a square matrix with a's elements on diagonal `offset`).
Tensor diagflat(const Tensor& a, int64_t offset = 0);
// select_scatter, slice_scatter, diagonal_scatter: a copy of a with src written where
// a.select(dim, index), a.slice(dim, start, end, step) or a.diagonal(offset, dim1, dim2)
// would look; src must have that view's shape and a's dtype. Differentiable in both.
Tensor select_scatter(const Tensor& a, const Tensor& src, int64_t dim, int64_t index);
Tensor slice_scatter(const Tensor& a, const Tensor& src, int64_t dim = 0,
                     std::optional<int64_t> start = std::nullopt,
                     std::optional<int64_t> end = std::nullopt, int64_t step = 1);
Tensor diagonal_scatter(const Tensor& a, const Tensor& src, int64_t offset = 0, int64_t dim1 = 0,
                        int64_t dim2 = 1);

}  // namespace wick
