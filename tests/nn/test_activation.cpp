// test_activation.cpp: the activations of wick/nn/activation.hpp against values and gradients
// computed by python3-torch 1.13 in float64 (activation_golden.inc, written by
// make_activation_golden.py), kinks and extremes included; the modules (same values, printing);
// NaN; float32; the errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include <wick/wick.hpp>

#include "golden_check.hpp"

namespace nn = wick::nn;
namespace F = wick::nn::functional;
using wick::Tensor;

namespace {

struct ActivationCase {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<double> input, output, grad;
};

#include "activation_golden.inc"

using Fn = std::function<Tensor(const Tensor&)>;

// The golden cases' names, each with the functional call and the module that computes it.
const std::map<std::string, std::pair<Fn, Fn>>& calls() {
  static const std::map<std::string, std::pair<Fn, Fn>> c = {
      {"elu", {[](const Tensor& x) { return F::elu(x); }, nn::ELU()}},
      {"elu, alpha 0.5", {[](const Tensor& x) { return F::elu(x, 0.5); }, nn::ELU(0.5)}},
      {"selu", {[](const Tensor& x) { return F::selu(x); }, nn::SELU()}},
      {"celu", {[](const Tensor& x) { return F::celu(x); }, nn::CELU()}},
      {"celu, alpha 2", {[](const Tensor& x) { return F::celu(x, 2.0); }, nn::CELU(2.0)}},
      {"softplus", {[](const Tensor& x) { return F::softplus(x); }, nn::Softplus()}},
      {"softplus, beta 2, threshold 5",
       {[](const Tensor& x) { return F::softplus(x, 2.0, 5.0); }, nn::Softplus(2.0, 5.0)}},
      {"hardtanh", {[](const Tensor& x) { return F::hardtanh(x); }, nn::Hardtanh()}},
      {"hardtanh, -2 0.5",
       {[](const Tensor& x) { return F::hardtanh(x, -2.0, 0.5); }, nn::Hardtanh(-2.0, 0.5)}},
      {"relu6", {[](const Tensor& x) { return F::relu6(x); }, nn::ReLU6()}},
      {"mish", {[](const Tensor& x) { return F::mish(x); }, nn::Mish()}},
      {"logsigmoid", {[](const Tensor& x) { return F::logsigmoid(x); }, nn::LogSigmoid()}},
      {"hardswish", {[](const Tensor& x) { return F::hardswish(x); }, nn::Hardswish()}},
      {"hardsigmoid", {[](const Tensor& x) { return F::hardsigmoid(x); }, nn::Hardsigmoid()}},
      {"softsign", {[](const Tensor& x) { return F::softsign(x); }, nn::Softsign()}},
      {"tanhshrink", {[](const Tensor& x) { return F::tanhshrink(x); }, nn::Tanhshrink()}},
      {"threshold 0.5 -2",
       {[](const Tensor& x) { return F::threshold(x, 0.5, -2.0); }, nn::Threshold(0.5, -2.0)}},
      {"glu", {[](const Tensor& x) { return F::glu(x); }, nn::GLU()}},
      {"glu, dim 0", {[](const Tensor& x) { return F::glu(x, 0); }, nn::GLU(0)}},
      {"softmin, dim 1", {[](const Tensor& x) { return F::softmin(x, 1); }, nn::Softmin(1)}},
  };
  return c;
}

// make_activation_golden.py's weight: sin(0.37 i + 0.9), i over the output's elements.
Tensor weight_like(const Tensor& y) {
  std::vector<double> w(static_cast<size_t>(y.numel()));
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37 * static_cast<double>(i) + 0.9);
  return wick::tensor(w).to(wick::kFloat64).reshape(y.sizes());
}

Tensor input_of(const ActivationCase& c) {
  return wick::tensor(c.input).to(wick::kFloat64).reshape(wick::Shape(c.shape));
}

}  // namespace

TEST_CASE("activations: PyTorch's values and gradients, kinks included", "[nn][activation]") {
  REQUIRE(kActivationCases.size() == 2 * calls().size());
  for (const ActivationCase& c : kActivationCases) {
    INFO(c.name);
    const auto& [functional, module] = calls().at(c.name);
    Tensor x = input_of(c).requires_grad_();
    const Tensor y = functional(x);
    CHECK(y.dtype() == wick::kFloat64);
    check_values(y, c.output, 1e-13, "output");
    (y * weight_like(y)).sum().backward();
    // PyTorch 1.13's hardsigmoid backward multiplies by 1/6 rounded to float32, even in float64
    // (3e-8 relative); wick's x / 6 is differentiated exactly.
    check_values(x.grad(), c.grad, c.name == "hardsigmoid" ? 1e-7 : 1e-13, "gradient");
    // The module computes the same.
    check_values(module(input_of(c)), c.output, 1e-13, "module output");
  }
}

TEST_CASE("activations: float32, NaN, and the module printing", "[nn][activation]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const auto& [name, pair] : calls()) {
    INFO(name);
    // float32 in, float32 out, within float32 rounding of the float64 result.
    const Tensor x64 = wick::tensor({-3.5, -0.25, 0.0, 0.75, 2.5, 7.0, -1.5, 3.0})
                           .to(wick::kFloat64)
                           .reshape({2, 4});
    const Tensor y32 = pair.first(x64.to(wick::kFloat32));
    CHECK(y32.dtype() == wick::kFloat32);
    check_values(y32, pair.first(x64).contiguous().to_vector<double>(), 1e-6, "float32");
    // NaN gives NaN (glu: in the half it lands in; softmin: its whole row).
    const std::vector<float> got = pair.first(wick::tensor({nan, 1.0f, 2.0f, 3.0f}).reshape({2, 2}))
                                       .contiguous()
                                       .to_vector<float>();
    CHECK(std::isnan(got[0]));
  }
  std::ostringstream printed;
  printed << nn::ELU(0.5) << " " << nn::Softplus(2.0, 5.0) << " " << nn::Hardtanh(-2.0, 0.5) << " "
          << nn::Threshold(0.5, -2.0) << " " << nn::GLU() << " " << nn::Softmin(1) << " "
          << nn::ReLU6() << " " << nn::Mish();
  CHECK(printed.str() ==
        "ELU(alpha=0.5) Softplus(beta=2, threshold=5) Hardtanh(min_val=-2, max_val=0.5) "
        "Threshold(threshold=0.5, value=-2) GLU(dim=-1) Softmin(dim=1) ReLU6() Mish()");
}

TEST_CASE("activations: no NaN gradient from the branch where() drops", "[nn][activation]") {
  // softplus, mish and logsigmoid at +-1000 in float32: exp(1000) overflows, but no exp(x) is
  // ever computed, so the gradients are finite (torch: softplus' 1 and 0, logsigmoid's 0 and 1).
  Tensor x = wick::tensor({1000.0f, -1000.0f}).requires_grad_();
  (F::softplus(x) + F::mish(x) + F::logsigmoid(x)).sum().backward();
  const std::vector<float> g = x.grad().to_vector<float>();
  CHECK(g[0] == Approx(2.0f));  // 1 (softplus) + 1 (mish) + 0 (logsigmoid)
  CHECK(g[1] == Approx(1.0f));  // 0 + 0 + 1
  // elu, selu and celu at 50, 100 and 1000 in float32: expm1(100) is inf, and its branch's zero
  // gradient times inf was NaN (torch: 1, 1, 1; selu's scale 1.0507).
  for (const char* name : {"elu", "selu", "celu"}) {
    INFO(name);
    Tensor big = wick::tensor({50.0f, 100.0f, 1000.0f}).requires_grad_();
    const std::string op = name;
    const Tensor y = op == "elu" ? F::elu(big) : op == "selu" ? F::selu(big) : F::celu(big, 0.5);
    y.sum().backward();
    for (float v : big.grad().to_vector<float>()) CHECK(v == Approx(op == "selu" ? 1.0507f : 1.0f));
  }
}

TEST_CASE("activations: errors", "[nn][activation]") {
  const Tensor ints = wick::tensor({1, 2});
  CHECK_THROWS_AS(F::elu(ints), wick::DtypeError);
  CHECK_THROWS_AS(F::softplus(Tensor()), wick::DtypeError);
  CHECK_THROWS_AS(nn::Mish()(ints), wick::DtypeError);
  // glu halves an even dim (torch: "Halving dimension must be even, but dimension 1 is size 3").
  try {
    F::glu(wick::zeros({2, 3}));
    FAIL("no error");
  } catch (const wick::ShapeError& e) {
    CHECK_THAT(e.what(), Catch::Contains("glu") && Catch::Contains("even") && Catch::Contains("3"));
  }
  CHECK_THROWS_AS(F::glu(wick::zeros({2, 4}), 2), wick::IndexError);
  CHECK_THROWS_AS(F::glu(wick::zeros({})), wick::ShapeError);
  CHECK_THROWS_AS(F::celu(wick::zeros({2}), 0.0), wick::ValueError);
  CHECK_THROWS_AS(nn::CELU(0.0), wick::ValueError);
  CHECK_THROWS_AS(F::hardtanh(wick::zeros({2}), 1.0, -1.0), wick::ValueError);
  CHECK_THROWS_AS(nn::Hardtanh(1.0, -1.0), wick::ValueError);
}
