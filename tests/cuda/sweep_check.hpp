// sweep_check.hpp: the comparison the GPU op sweeps share (test_ops.cpp, test_softmax.cpp):
// run an op on the CPU's float64 reference and on the GPU, poisoned, and compare within the
// tolerances of docs/cuda-backend.md.
#pragma once

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "gpu_test.hpp"

namespace gpu_test {

// float32: within `ulps` float32 ulps relative; float64: 1e-14 (two libms may differ in the last
// bit or two); integers and bools: exact (check_close ignores the tolerance there).
inline Tolerance tol_for(Dtype dtype, double float32_rtol, double float64_rtol) {
  if (dtype == kFloat32) return Tolerance{float32_rtol, 1e-30};
  return Tolerance{float64_rtol, 1e-300};
}
// The shapes every op sweep runs: a 0-d, two empties, a short and a long vector, a large matrix.
inline const std::vector<Shape>& sweep_shapes() {
  static const std::vector<Shape> s{{}, {0}, {1, 0, 3}, {20}, {812}, big2d()};
  return s;
}

constexpr double kExact32 = 1.2e-7;    // correctly rounded ops: 1 ulp of slack
constexpr double kTranscend32 = 1e-6;  // CUDA's expf, logf, tanhf, powf: a few ulps
constexpr double kSoftmax64 = 1e-12;   // float64 row sums of up to 20000 terms, in another order
// log_softmax = x - max - log(sum) in float32: near 0 it keeps an absolute error of a few
// ulps of |x| (inputs within +-3 here, ulp 2.4e-7), however small the result.
constexpr double kLogSoftmax32Abs = 2e-6;
// The same in float64: the row's maximum gives -log(1 + tiny) (about -6e-10 in a row scaled by
// 1000), whose error is an ulp or two of log(sum) near 1, 1e-16, not 1e-12 of the result.
constexpr double kLogSoftmax64Abs = 1e-15;

// Runs `run` on the CPU (float64 reference) and on the GPU and compares; when the CPU rejects
// the operands, the GPU must reject them with the same kind of error.
// float32_atol, float64_atol: for results that may cancel to near 0 (log_softmax's
// x - max - log(sum)), whose error is an ulp of the operands, not of the result.
inline void check_op(const std::function<Tensor(const std::vector<Tensor>&)>& run,
                     const std::vector<Pair>& inputs, double float32_rtol, const std::string& what,
                     double float64_rtol = 1e-14, double float32_atol = 0,
                     double float64_atol = 0) {
  std::vector<Tensor> cpu, wide, gpu;
  for (const Pair& p : inputs) {
    cpu.push_back(p.cpu);
    wide.push_back(widen(p.cpu));
    gpu.push_back(p.gpu);
  }
  Tensor expected_type;
  try {
    expected_type = run(cpu);
  } catch (const DtypeError&) {
    CHECK_THROWS_AS(run(gpu), DtypeError);
    return;
  }
  PoisonScope poison;
  const Tensor got = run(gpu);
  INFO(what);
  CHECK(got.dtype() == expected_type.dtype());
  Tolerance tol = tol_for(got.dtype(), float32_rtol, float64_rtol);
  if (got.dtype() == kFloat32) tol.atol = std::max(tol.atol, float32_atol);
  if (got.dtype() == kFloat64) tol.atol = std::max(tol.atol, float64_atol);
  check_close(got, run(wide), tol, what);
}

}  // namespace gpu_test
