// golden_check.hpp: comparing a tensor with golden values from python3-torch (the generated
// *_golden.inc files of tests/nn), element by element, relative to max(1, |want|).
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>
#include <wick/wick.hpp>

inline void check_values(const wick::Tensor& got, const std::vector<double>& want, double rel,
                         const char* what) {
  INFO(what);
  const std::vector<double> values = got.to(wick::kFloat64).to_vector<double>();
  REQUIRE(values.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i << ": " << values[i] << " against " << want[i]);
    CHECK(std::abs(values[i] - want[i]) <= rel * std::max(1.0, std::abs(want[i])));
  }
}
