// linalg_checks.hpp: what test_linalg.cpp and test_cholesky.cpp share: float64 copies of a
// tensor's values, an element-wise comparison with torch's numbers, the largest magnitude, and
// float64 tensors from literals.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>
#include <wick/wick.hpp>

namespace linalg_checks {

inline std::vector<double> doubles(const wick::Tensor& t) {
  return t.to(wick::kFloat64).contiguous().to_vector<double>();
}
inline void check_near(const wick::Tensor& got, const std::vector<double>& want,
                       double tol = 1e-12) {
  const std::vector<double> values = doubles(got);
  REQUIRE(values.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i << ": " << values[i] << " against " << want[i]);
    CHECK(std::abs(values[i] - want[i]) <= tol * std::max(1.0, std::abs(want[i])));
  }
}
inline double max_abs(const wick::Tensor& t) {
  return t.abs().max().to(wick::kFloat64).item<double>();
}
inline wick::Tensor f64(std::vector<double> values, const wick::Shape& shape) {
  return wick::tensor(values, shape, wick::kFloat64);
}

}  // namespace linalg_checks
