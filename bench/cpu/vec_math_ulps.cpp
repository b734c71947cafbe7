// vec_math_ulps.cpp: the float32 exp, sigmoid and tanh of kernels/cpu/vec_math.hpp over every
// one of the 2^32 float bit patterns against float64 libm; prints the largest error of each in
// ulps (the spacing of floats at the reference, the subnormal spacing below FLT_MIN). The
// tests check every 509th pattern (tests/cpu_gemm/test_cpu_kernels.cpp); this is the full
// sweep, 4 to 6 minutes on one core here, run by hand when vec_math.hpp changes
// (docs/cpu-kernels.md has its last output).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "ulps.hpp"
#include "vec_math.hpp"

namespace {

using wick::testing::ulps;

struct Worst {
  double ulps = 0;
  float at = 0;
  void update(double u, float x) {
    if (u > ulps) {
      ulps = u;
      at = x;
    }
  }
};

}  // namespace

int main() {
  namespace vec = wick::cpu::vec;
  constexpr uint64_t kChunk = uint64_t{1} << 20;
  std::vector<float> x(kChunk), e(kChunk), s(kChunk), t(kChunk);
  Worst exp_worst, sigmoid_worst, tanh_worst;
  for (uint64_t base = 0; base < (uint64_t{1} << 32); base += kChunk) {
    for (uint64_t i = 0; i < kChunk; ++i) {
      const uint32_t bits = static_cast<uint32_t>(base + i);
      std::memcpy(&x[i], &bits, sizeof bits);
    }
    // Separate loops, so each is vectorised as the library's are.
    for (uint64_t i = 0; i < kChunk; ++i) e[i] = vec::exp(x[i]);
    for (uint64_t i = 0; i < kChunk; ++i) s[i] = vec::sigmoid(x[i]);
    for (uint64_t i = 0; i < kChunk; ++i) t[i] = vec::tanh(x[i]);
    for (uint64_t i = 0; i < kChunk; ++i) {
      const double xd = x[i];
      exp_worst.update(ulps(e[i], std::exp(xd)), x[i]);
      tanh_worst.update(ulps(t[i], std::tanh(xd)), x[i]);
      // As the test does: relative to 1 / (1 + e^-x) while that is a normal float.
      const double sig = 1.0 / (1.0 + std::exp(-xd));
      if (sig > 1e-37) sigmoid_worst.update(ulps(s[i], sig), x[i]);
    }
  }
  std::printf(
      "largest error over every float, in ulps: exp %.4f (x = %.9g), sigmoid %.4f "
      "(x = %.9g), tanh %.4f (x = %.9g)\n",
      exp_worst.ulps, exp_worst.at, sigmoid_worst.ulps, sigmoid_worst.at, tanh_worst.ulps,
      tanh_worst.at);
  return exp_worst.ulps <= 2.0 && sigmoid_worst.ulps <= 4.0 && tanh_worst.ulps <= 3.0 ? 0 : 1;
}
