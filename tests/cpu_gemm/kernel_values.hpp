// kernel_values.hpp: reading a tensor's values back as floats or doubles, and a tolerance
// check, for the kernel tests of tests/cpu_gemm.
#pragma once

#include <cmath>
#include <vector>

#include "wick/wick.hpp"

inline std::vector<float> floats_of(const wick::Tensor& t) {
  wick::Tensor c = t.contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

inline std::vector<double> doubles_of(const wick::Tensor& t) {
  wick::Tensor c = t.to(wick::kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// |got - want| <= atol + rtol |want|; NaN matches NaN and an infinity itself.
inline bool close(double got, double want, double rtol, double atol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}
