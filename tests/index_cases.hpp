// index_cases.hpp: index tensors for the index_select / index_add tests on the CPU
// (tests/test_index.cpp) and the GPU (tests/cuda/test_index.cpp).
#pragma once

#include <random>
#include <vector>

#include "wick/wick.hpp"

namespace index_cases {

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
