// test_loss.cpp: MSELoss and CrossEntropyLoss against values computed by hand (in double, with
// std::exp/std::log), their gradients (closed forms and gradcheck), numerical stability with
// huge logits, and the errors for bad shapes, dtypes and class indices.
#include <catch2/catch.hpp>
#include <cmath>
#include <wick/wick.hpp>

namespace nn = wick::nn;
using wick::Tensor;

namespace {
std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }
}  // namespace

TEST_CASE("MSELoss: mean, sum and none against hand-computed values") {
  const auto opts = wick::TensorOptions(wick::kFloat64);
  Tensor input = wick::tensor({1.0, 2.0, 3.0, 4.0}, opts).view({2, 2}).requires_grad_();
  Tensor target = wick::tensor({0.0, 2.0, 5.0, 3.0}, opts).view({2, 2});
  // differences 1, 0, -2, 1; squares 1, 0, 4, 1
  CHECK(nn::MSELoss()(input, target).item<double>() == 1.5);
  CHECK(nn::MSELoss(nn::kSum)(input, target).item<double>() == 6.0);
  Tensor none = nn::MSELoss(nn::MSELossOptions().reduction(nn::kNone))(input, target);
  CHECK(none.sizes() == std::vector<int64_t>{2, 2});
  CHECK(values(none) == std::vector<double>{1, 0, 4, 1});
  nn::MSELoss()(input, target).backward();  // d/dx mean((x - t)^2) = 2 (x - t) / n
  CHECK(values(input.grad()) == std::vector<double>{0.5, 0.0, -1.0, 0.5});
  CHECK(nn::MSELoss()->options().reduction() == nn::kMean);
  // float32 follows the inputs' dtype.
  CHECK(nn::MSELoss()(wick::ones({3}), wick::zeros({3})).dtype() == wick::kFloat32);
  // Mismatched shapes are rejected rather than broadcast (docs/nn.md says why).
  CHECK_THROWS_AS(nn::MSELoss()(wick::ones({4, 1}), wick::ones({4})), wick::ShapeError);
}

TEST_CASE("CrossEntropyLoss: log-softmax + NLL against hand-computed values") {
  const std::vector<double> logits = {1.0, 2.0, 3.0, 1.0, 1.0, 1.0, -0.5, 4.0, 0.25};
  const std::vector<int64_t> classes = {2, 0, 1};
  std::vector<double> expected(3), grad(9);
  for (int n = 0; n < 3; ++n) {
    double norm = 0;
    for (int c = 0; c < 3; ++c) norm += std::exp(logits[n * 3 + c]);
    expected[n] = std::log(norm) - logits[n * 3 + classes[n]];
    for (int c = 0; c < 3; ++c) {
      grad[n * 3 + c] = (std::exp(logits[n * 3 + c]) / norm - (c == classes[n] ? 1 : 0)) / 3;
    }
  }
  Tensor input = wick::tensor(logits, wick::Shape{3, 3}).requires_grad_();
  Tensor target = wick::tensor(classes);
  REQUIRE(input.dtype() == wick::kFloat64);
  REQUIRE(target.dtype() == wick::kInt64);
  Tensor none = nn::CrossEntropyLoss(nn::kNone)(input, target);
  for (int n = 0; n < 3; ++n) CHECK(values(none)[n] == Approx(expected[n]).epsilon(1e-14));
  const double mean = (expected[0] + expected[1] + expected[2]) / 3;
  CHECK(nn::CrossEntropyLoss()(input, target).item<double>() == Approx(mean).epsilon(1e-14));
  CHECK(nn::CrossEntropyLoss(nn::kSum)(input, target).item<double>() ==
        Approx(3 * mean).epsilon(1e-14));
  nn::CrossEntropyLoss()(input, target).backward();  // (softmax - one_hot) / N
  for (int i = 0; i < 9; ++i) CHECK(values(input.grad())[i] == Approx(grad[i]).margin(1e-15));
}

TEST_CASE("CrossEntropyLoss is stable with huge logits") {
  for (auto dtype : {wick::kFloat32, wick::kFloat64}) {
    Tensor input = wick::tensor({1000.0, 0.0, -1000.0, 0.0, 0.0, 3.0e4}, wick::TensorOptions(dtype))
                       .view({3, 2})
                       .requires_grad_();
    Tensor target = wick::tensor(std::vector<int64_t>{0, 0, 1});
    Tensor loss = nn::CrossEntropyLoss(nn::kNone)(input, target);
    auto v = values(loss);
    CHECK(v[0] == 0.0);                           // log(1 + e^-1000)
    CHECK(v[1] == Approx(1000.0).epsilon(1e-6));  // the wrong class by 1000
    CHECK(v[2] == 0.0);
    loss.sum().backward();
    for (double g : values(input.grad())) CHECK(std::isfinite(g));
  }
}

TEST_CASE("losses pass gradcheck in float64") {
  const auto opts = wick::TensorOptions(wick::kFloat64).requires_grad(true);
  wick::manual_seed(3);
  Tensor a = wick::randn({4, 3}, opts);
  Tensor b = wick::randn({4, 3}, opts);
  // Scalar outputs go through unsqueeze(0): gradcheck reshapes the output to 1-D, and core's
  // view/reshape of a 0-dim tensor to [1] throws (reported to the lead).
  auto as_1d = [](const Tensor& t) { return t.dim() == 0 ? t.unsqueeze(0) : t; };
  for (auto reduction : {nn::kMean, nn::kSum, nn::kNone}) {
    CHECK(wick::autograd::gradcheck(
              [&](const std::vector<Tensor>& in) {
                return as_1d(nn::F::mse_loss(in[0], in[1], reduction));
              },
              {a, b}) == "");
    Tensor target = wick::tensor(std::vector<int64_t>{0, 2, 1, 2});
    CHECK(wick::autograd::gradcheck(
              [&](const std::vector<Tensor>& in) {
                return as_1d(nn::F::cross_entropy(in[0], target, reduction));
              },
              {a}) == "");
  }
}

TEST_CASE("CrossEntropyLoss rejects bad targets with clear errors") {
  Tensor input = wick::zeros({2, 3});
  nn::CrossEntropyLoss ce;
  CHECK_THROWS_WITH(ce(input, wick::tensor(std::vector<int64_t>{0, 3})),
                    Catch::Contains("outside [0, 3)") && Catch::Contains("max 3"));
  CHECK_THROWS_AS(ce(input, wick::tensor(std::vector<int64_t>{-1, 0})), wick::IndexError);
  CHECK_THROWS_AS(ce(input, wick::tensor({0.0, 1.0})), wick::DtypeError);
  CHECK_THROWS_AS(ce(input, wick::tensor(std::vector<int64_t>{0, 1, 2})), wick::ShapeError);
  CHECK_THROWS_AS(ce(wick::zeros({6}), wick::tensor(std::vector<int64_t>{0})), wick::ShapeError);
  CHECK_THROWS_AS(ce(wick::zeros({2, 3}, wick::kInt64), wick::tensor(std::vector<int64_t>{0, 1})),
                  wick::DtypeError);
}
