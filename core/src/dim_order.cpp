// dim_order.cpp: result layouts of elementwise ops (wick/dim_order.hpp).
#include "wick/dim_order.hpp"

#include <algorithm>
#include <numeric>

#include "internal.hpp"

namespace wick::detail {

bool is_non_overlapping_and_dense(const Shape& sizes, const Shape& strides) {
  const size_t ndim = sizes.size();
  if (ndim == 0) return true;
  if (ndim == 1) return sizes[0] < 2 || strides[0] == 1;
  // Empty: nothing to place (and the other sizes may multiply past int64). A non-empty
  // tensor's sizes multiply to its numel, which fits.
  for (size_t d = 0; d < ndim; ++d) {
    if (sizes[d] == 0) return true;
  }
  std::array<size_t, Shape::kMaxDims> perm;
  std::iota(perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(ndim), size_t{0});
  // Dims of size 0 or 1 go last: they place no element.
  std::sort(perm.begin(), perm.begin() + static_cast<std::ptrdiff_t>(ndim),
            [&](size_t a, size_t b) {
              if (sizes[a] < 2) return false;
              if (sizes[b] < 2) return true;
              return strides[a] < strides[b];
            });
  int64_t required = 1;
  for (size_t i = 0; i < ndim; ++i) {
    const int64_t size = sizes[perm[i]];
    if (size < 2) return true;
    if (strides[perm[i]] != required) return false;
    required *= size;
  }
  return true;
}

Shape elementwise_result_strides(const Shape& sizes, const Shape* const* input_strides,
                                 size_t num_inputs, bool same_shape) {
  const size_t ndim = sizes.size();
  if (ndim <= 1 || num_inputs == 0) return contiguous_strides(sizes);
  // An empty result's sizes may multiply past int64 ([2^63 - 1, 0, 2]); contiguous_strides
  // knows how to lay those out, and no order of them holds an element anyway.
  for (size_t d = 0; d < ndim; ++d) {
    if (sizes[d] == 0) return contiguous_strides(sizes);
  }
  if (same_shape) {
    bool contiguous = true;
    for (size_t k = 0; k < num_inputs && contiguous; ++k) {
      contiguous = is_contiguous_layout(sizes, *input_strides[k]);
    }
    if (contiguous) return contiguous_strides(sizes);
    bool dense_alike = true;
    for (size_t k = 0; k < num_inputs && dense_alike; ++k) {
      dense_alike = *input_strides[k] == *input_strides[0] &&
                    is_non_overlapping_and_dense(sizes, *input_strides[k]);
    }
    if (dense_alike) return *input_strides[0];
  }
  int order[Shape::kMaxDims];
  fastest_dims_first(sizes, input_strides, num_inputs, order);
  bool row_major = true;
  for (size_t i = 0; i < ndim; ++i)
    row_major = row_major && order[i] == static_cast<int>(ndim - 1 - i);
  if (row_major) return contiguous_strides(sizes);
  Shape result = Shape::filled(ndim, 0);
  int64_t stride = 1;
  for (size_t i = 0; i < ndim; ++i) {
    const size_t d = static_cast<size_t>(order[i]);
    result[d] = stride;
    if (i + 1 < ndim) stride *= sizes[d];  // the product of the sizes so far: at most numel
  }
  return result;
}

}  // namespace wick::detail
