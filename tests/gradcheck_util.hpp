// gradcheck_util.hpp: what the composite-op suites share for their gradient checks: seeded
// float64 inputs, and a gradcheck of fn's flattened output at fresh leaves copied from them.
#pragma once

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>
#include <wick/wick.hpp>

inline wick::Tensor f64(const wick::Shape& shape, uint64_t seed) {
  wick::manual_seed(seed);
  return wick::randn(shape, wick::kFloat64);
}

inline bool passes(const std::function<wick::Tensor(const std::vector<wick::Tensor>&)>& f,
                   const std::vector<wick::Tensor>& inputs) {
  std::vector<wick::Tensor> leaves;
  for (const wick::Tensor& t : inputs) leaves.push_back(t.clone().requires_grad_());
  const std::string failure = wick::autograd::gradcheck(
      [&](const std::vector<wick::Tensor>& in) { return f(in).reshape({-1}); }, leaves);
  INFO(failure);
  return failure.empty();
}
