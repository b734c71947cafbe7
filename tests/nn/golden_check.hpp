// golden_check.hpp: comparing a tensor with golden values from python3-torch (the generated
// *_golden.inc files of tests/nn), element by element, relative to max(1, |want|); and the
// cases of functions of several inputs (distance_golden.inc, likelihood_golden.inc), whose
// generators record the output and the gradient of (output * weight).sum() for every input.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
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

struct MultiInputCase {
  std::string name;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::vector<double>> inputs;
  std::vector<int64_t> output_shape;
  std::vector<double> output;
  // NaN: torch's gradient there is NaN (see the caller); empty: torch gives none.
  std::vector<std::vector<double>> grads;
};

// The generators' weight: sin(0.37 i + 0.9) over the output's elements, 1 for a 0-d output.
inline wick::Tensor golden_weight_like(const wick::Tensor& y) {
  if (y.dim() == 0) return wick::tensor(1.0).to(wick::kFloat64);
  std::vector<double> w(static_cast<size_t>(y.numel()));
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37 * static_cast<double>(i) + 0.9);
  return wick::tensor(w).to(wick::kFloat64).reshape(y.sizes());
}

// Runs fn on the case's float64 inputs and checks its output and every input's gradient to
// 1e-13 (relative to max(1, |want|)). Where torch's gradient is NaN, on_nan(got) decides.
inline void check_multi_input_case(
    const MultiInputCase& c,
    const std::function<wick::Tensor(const std::vector<wick::Tensor>&)>& fn,
    const std::function<void(double)>& on_nan = [](double) { FAIL("NaN in the golden file"); }) {
  INFO(c.name);
  std::vector<wick::Tensor> inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    // An input torch gives no gradient (a label) is a constant here too.
    inputs.push_back(wick::tensor(c.inputs[i])
                         .to(wick::kFloat64)
                         .reshape(wick::Shape(c.shapes[i]))
                         .requires_grad_(!c.grads[i].empty()));
  }
  const wick::Tensor y = fn(inputs);
  CHECK(y.sizes() == wick::Shape(c.output_shape));
  check_values(y, c.output, 1e-13, "output");
  (y * golden_weight_like(y)).sum().backward();
  for (size_t i = 0; i < inputs.size(); ++i) {
    INFO("gradient of input " << i);
    if (c.grads[i].empty()) continue;
    const std::vector<double> got = inputs[i].grad().to_vector<double>();
    REQUIRE(got.size() == c.grads[i].size());
    for (size_t k = 0; k < got.size(); ++k) {
      if (std::isnan(c.grads[i][k])) {
        on_nan(got[k]);
        continue;
      }
      INFO("element " << k << ": " << got[k] << " against " << c.grads[i][k]);
      CHECK(std::abs(got[k] - c.grads[i][k]) <= 1e-13 * std::max(1.0, std::abs(c.grads[i][k])));
    }
  }
}
