// index_cases.hpp: index tensors for the index_select / index_add tests on the CPU
// (tests/test_index.cpp) and the GPU (tests/cuda/test_index.cpp).
#pragma once

#include <random>
#include <vector>

#include "wick/wick.hpp"

namespace index_cases {

// The row-major offset of the multi-index i in a tensor of `sizes`.
inline int64_t flat_index(const wick::Shape& sizes, const std::vector<int64_t>& i) {
  int64_t flat = 0;
  for (size_t d = 0; d < sizes.size(); ++d) flat = flat * sizes[d] + i[d];
  return flat;
}

// The multi-index i with its coordinate along dim replaced by v.
inline std::vector<int64_t> with_dim(std::vector<int64_t> i, int64_t dim, int64_t v) {
  i[static_cast<size_t>(dim)] = v;
  return i;
}

// m int64 indices in [0, size), drawn from `seed`, with index 1 repeating index 0 (empty when
// size is 0).
inline wick::Tensor draw_index(int64_t size, int64_t m, uint64_t seed) {
  std::vector<int64_t> v;
  if (size > 0) {
    std::mt19937_64 gen(seed);
    for (int64_t k = 0; k < m; ++k) v.push_back(static_cast<int64_t>(gen() % uint64_t(size)));
    if (m >= 2) v[1] = v[0];
  }
  return wick::tensor(v, wick::Shape{static_cast<int64_t>(v.size())}, wick::kInt64);
}

}  // namespace index_cases

namespace index_cases {

// An index for gather / scatter_add on a tensor of `shape` along `dim`: the shape's rank, m
// positions along dim (none when shape[dim] is 0), and every other extent the shape's (shrink
// 0), one less where above 1 (shrink 1: the boundary's block path), or 1 (shrink 2: one column,
// index_add's kernel, into a block that is not contiguous). Values in [0, shape[dim]) drawn
// from `seed`, with the first two positions along dim of every column equal.
inline wick::Tensor draw_gather_index(const wick::Shape& shape, int64_t dim, int64_t m, int shrink,
                                      uint64_t seed) {
  const int64_t size = shape[static_cast<size_t>(dim)];
  wick::Shape sizes = shape;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (static_cast<int64_t>(d) == dim) {
      sizes[d] = size > 0 ? m : 0;
    } else if (shrink == 1 && sizes[d] > 1) {
      sizes[d] -= 1;
    } else if (shrink == 2 && sizes[d] > 1) {
      sizes[d] = 1;
    }
  }
  int64_t count = 1, inner = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    count *= sizes[d];
    if (static_cast<int64_t>(d) > dim) inner *= sizes[d];
  }
  std::mt19937_64 gen(seed);
  std::vector<int64_t> v(static_cast<size_t>(count));
  for (auto& x : v) x = static_cast<int64_t>(gen() % uint64_t(size > 0 ? size : 1));
  // Position 1 along dim repeats position 0 in every column (a repeated target for scatter_add).
  const int64_t n = sizes.empty() ? 1 : sizes[static_cast<size_t>(dim)];
  for (int64_t k = 0; n >= 2 && k < count; ++k) {
    if ((k / inner) % n == 1) v[static_cast<size_t>(k)] = v[static_cast<size_t>(k - inner)];
  }
  return wick::tensor(v, sizes, wick::kInt64);
}

}  // namespace index_cases
