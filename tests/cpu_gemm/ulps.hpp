// ulps.hpp: the error of a float result against a float64 reference, in units of the float
// spacing at the reference (the subnormal spacing below FLT_MIN). Shared by the vec math test
// (tests/cpu_gemm/test_cpu_kernels.cpp) and the every-float sweep (bench/cpu/vec_math_ulps.cpp).
#pragma once

#include <algorithm>
#include <cmath>

namespace wick::testing {

// NaN must meet NaN, and a reference that rounds to +-inf must be met exactly; anything else
// returns 1e30.
inline double ulps(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : 1e30;
  const float w = static_cast<float>(want);
  if (std::isinf(w)) return got == w ? 0 : 1e30;
  const double spacing =
      std::max<double>(std::fabs(std::nextafter(w, INFINITY) - w), 1.401298464324817e-45);
  return std::fabs(static_cast<double>(got) - want) / spacing;
}

}  // namespace wick::testing
