// test_gradcheck.cpp: gradcheck (float64 central differences, PyTorch's tolerances) over every
// differentiable op of wick/op_list.hpp, enumerated from the list: a differentiable op
// without a case here fails the test.
#include "grad_cases.hpp"
#include "reference.hpp"

using namespace wick;
using grad_cases::GradCase;
using grad_cases::input;

TEST_CASE("gradcheck: every differentiable op in the op list", "[autograd][gradcheck]") {
  auto all = grad_cases::cases();
  for (size_t k = 0; k < kNumOps; ++k) {
    OpId op = static_cast<OpId>(k);
    if (!op_differentiable(op)) {
      CHECK(all.count(op) == 0);
      continue;
    }
    DYNAMIC_SECTION("op " << op_name(op)) {
      INFO("no gradcheck case for " << op_name(op));
      REQUIRE(all.count(op) == 1);
      const GradCase& c = all.at(op);
      std::vector<Tensor> inputs;
      for (size_t i = 0; i < c.shapes.size(); ++i)
        inputs.push_back(input(c.shapes[i], c.positive, static_cast<int>(i)));
      std::string failure = autograd::gradcheck(c.fn, inputs);
      CHECK(failure == "");
    }
  }
}

TEST_CASE("gradcheck: inputs of any layout", "[autograd][gradcheck]") {
  // A transposed input stays transposed in gradcheck's copy, so the perturbations must go
  // through its strides: a flattened copy left the numeric gradient 0 (found by review).
  const Tensor x = (arange(6, kFloat64).reshape({2, 3}) + 1.0).t().detach().requires_grad_(true);
  auto square = [](const std::vector<Tensor>& v) {
    return v[0] * v[0] * arange(6, kFloat64).reshape({3, 2});
  };
  CHECK(autograd::gradcheck(square, {x}) == "");
  const Tensor stepped =
      (arange(12, kFloat64) + 1.0).slice(0, 0, 12, 3).detach().requires_grad_(true);
  CHECK(autograd::gradcheck([](const std::vector<Tensor>& v) { return v[0].exp(); }, {stepped}) ==
        "");
}

TEST_CASE("gradcheck: catches a wrong gradient", "[autograd][gradcheck]") {
  // x.detach() * x has gradient x, but the numeric one is 2x: gradcheck must say so.
  Tensor x = input({3}, true, 0);
  std::string failure =
      autograd::gradcheck([](const std::vector<Tensor>& v) { return v[0].detach() * v[0]; }, {x});
  CHECK_FALSE(failure.empty());
}
