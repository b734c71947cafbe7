// test_loss_pointwise.cpp: l1_loss, smooth_l1_loss, huber_loss, binary_cross_entropy and
// binary_cross_entropy_with_logits against values and gradients (input and target) computed by
// python3-torch 1.13 in float64 (loss_pointwise_golden.inc, written by
// make_pointwise_golden.py), in float64 and float32; gradcheck; the edges PyTorch gets from its
// own kernels (logits of 0 and +-80, probabilities of exactly 0 and 1); the modules' buffers;
// the errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>
#include <wick/wick.hpp>

namespace nn = wick::nn;
using wick::Tensor;

namespace {

struct PointwiseCase {
  std::string name, fn;
  std::vector<int64_t> shape;
  std::vector<double> input, target;
  double number;  // beta or delta
  std::vector<int64_t> weight_shape;
  std::vector<double> weight, pos_weight, mean, sum, none, grad_input, grad_target;
};

#include "loss_pointwise_golden.inc"

Tensor run(const PointwiseCase& c, const Tensor& x, const Tensor& y, nn::Reduction r) {
  const auto opts = wick::TensorOptions(x.dtype());
  Tensor weight, pos_weight;
  if (!c.weight.empty()) weight = wick::tensor(c.weight, wick::Shape(c.weight_shape), opts);
  if (!c.pos_weight.empty()) pos_weight = wick::tensor(c.pos_weight, opts);
  if (c.fn == "l1_loss") return nn::F::l1_loss(x, y, nn::F::L1LossFuncOptions(r));
  if (c.fn == "smooth_l1_loss")
    return nn::F::smooth_l1_loss(x, y, nn::F::SmoothL1LossFuncOptions(r).beta(c.number));
  if (c.fn == "huber_loss")
    return nn::F::huber_loss(x, y, nn::F::HuberLossFuncOptions(r).delta(c.number));
  if (c.fn == "binary_cross_entropy")
    return nn::F::binary_cross_entropy(x, y,
                                       nn::F::BinaryCrossEntropyFuncOptions(r).weight(weight));
  return nn::F::binary_cross_entropy_with_logits(
      x, y,
      nn::F::BinaryCrossEntropyWithLogitsFuncOptions(r).weight(weight).pos_weight(pos_weight));
}

bool close(double actual, double expected, double rel) {
  return std::abs(actual - expected) <= rel * std::max(1.0, std::abs(expected));
}

void check_values(const std::vector<double>& got, const std::vector<double>& want, double rel,
                  const char* what) {
  INFO(what);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i << ": " << got[i] << " against " << want[i]);
    CHECK(close(got[i], want[i], rel));
  }
}

void check_case(const PointwiseCase& c, wick::Dtype dtype, double rel) {
  INFO("case '" << c.name << "' in " << dtype);
  const auto opts = wick::TensorOptions(dtype);
  const wick::Shape shape(c.shape);
  Tensor x = wick::tensor(c.input, shape, opts), y = wick::tensor(c.target, shape, opts);
  Tensor mean = run(c, x, y, nn::kMean);
  CHECK(mean.dim() == 0);
  CHECK(mean.dtype() == dtype);
  CHECK(close(mean.item<double>(), c.mean[0], rel));
  CHECK(close(run(c, x, y, nn::kSum).item<double>(), c.sum[0], rel));
  Tensor none = run(c, x, y, nn::kNone);
  CHECK(none.sizes() == shape);
  check_values(none.to_vector<double>(), c.none, rel, "reduction none");
  Tensor xl = x.detach().requires_grad_(), yl = y.detach().requires_grad_();
  run(c, xl, yl, nn::kSum).backward();
  check_values(xl.grad().to_vector<double>(), c.grad_input, rel, "d sum / d input");
  check_values(yl.grad().to_vector<double>(), c.grad_target, rel, "d sum / d target");
}

}  // namespace

TEST_CASE("pointwise losses match PyTorch in float64") {
  REQUIRE(kPointwiseCases.size() >= 17);
  for (const PointwiseCase& c : kPointwiseCases) check_case(c, wick::kFloat64, 1e-12);
}

TEST_CASE("pointwise losses match PyTorch in float32") {
  for (const PointwiseCase& c : kPointwiseCases) check_case(c, wick::kFloat32, 4e-6);
}

TEST_CASE("pointwise losses pass gradcheck in input and target") {
  const auto opts = wick::TensorOptions(wick::kFloat64);
  wick::manual_seed(17);
  Tensor x = wick::randn({3, 4}, opts.requires_grad(true));
  // Targets kept away from x by at least 0.05, so no kink of |x - y| or the thresholds is
  // within gradcheck's step.
  Tensor side = wick::where(wick::rand({3, 4}, opts) > 0.5, wick::ones({3, 4}, opts), -1.0);
  Tensor y = (x.detach() + side * (wick::rand({3, 4}, opts) * 2 + 0.05)).requires_grad_();
  Tensor p = wick::sigmoid(wick::randn({3, 4}, opts)).requires_grad_();
  Tensor q = wick::rand({3, 4}, opts).requires_grad_();
  Tensor pw = wick::tensor({0.5, 2.0, 1.0, 3.0}, opts);
  Tensor w = wick::tensor({2.0, 0.5, 1.5}, opts).reshape({3, 1});
  using V = std::vector<Tensor>;
  for (auto r : {nn::kMean, nn::kSum, nn::kNone}) {
    INFO("reduction " << static_cast<int>(r));
    auto flat = [](const Tensor& t) { return t.reshape({-1}); };
    CHECK(wick::autograd::gradcheck(
              [&](const V& in) { return flat(nn::F::l1_loss(in[0], in[1], r)); }, {x, y}) == "");
    CHECK(wick::autograd::gradcheck(
              [&](const V& in) {
                return flat(nn::F::smooth_l1_loss(in[0], in[1],
                                                  nn::F::SmoothL1LossFuncOptions(r).beta(1.3)));
              },
              {x, y}) == "");
    CHECK(wick::autograd::gradcheck(
              [&](const V& in) {
                return flat(
                    nn::F::huber_loss(in[0], in[1], nn::F::HuberLossFuncOptions(r).delta(0.7)));
              },
              {x, y}) == "");
    CHECK(wick::autograd::gradcheck(
              [&](const V& in) {
                return flat(nn::F::binary_cross_entropy(
                    in[0], in[1], nn::F::BinaryCrossEntropyFuncOptions(r).weight(w)));
              },
              {p, q}) == "");
    CHECK(wick::autograd::gradcheck(
              [&](const V& in) {
                return flat(nn::F::binary_cross_entropy_with_logits(
                    in[0], in[1],
                    nn::F::BinaryCrossEntropyWithLogitsFuncOptions(r).weight(w).pos_weight(pw)));
              },
              {x, q}) == "");
  }
}

TEST_CASE("binary_cross_entropy_with_logits: exact for large logits, smooth at 0") {
  // softplus(-x) through log1p: at x = 30 the loss of target 1 is log1p(exp(-30)) to the last
  // bit (PyTorch 1.13's log(1 + exp(-30)) is off by 1e-3 relative there); logits of +-1000
  // give finite values and gradients; at x = 0 the gradient is sigmoid(0) - y.
  Tensor x = wick::tensor({30.0, 1000.0, -1000.0, 0.0, 0.0}, wick::kFloat64).requires_grad_();
  Tensor y = wick::tensor({1.0, 0.0, 1.0, 1.0, 0.0}, wick::kFloat64);
  Tensor loss = nn::F::binary_cross_entropy_with_logits(x, y, nn::kNone);
  const std::vector<double> v = loss.to_vector<double>();
  CHECK(v[0] == std::log1p(std::exp(-30.0)));
  CHECK(v[1] == 1000.0);
  CHECK(v[2] == 1000.0);
  CHECK(v[3] == std::log(2.0));
  loss.sum().backward();
  const std::vector<double> g = x.grad().to_vector<double>();
  CHECK(g[1] == 1.0);
  CHECK(g[2] == -1.0);
  CHECK(g[3] == -0.5);
  CHECK(g[4] == 0.5);
}

TEST_CASE("smooth_l1 and huber at an infinite difference: gradient +-1 or +-delta, not NaN") {
  // PyTorch's kernels pick the linear branch there; the quadratic branch is computed on a
  // clamped difference so that its unchosen inf * 0 does not turn the gradient into NaN.
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = wick::tensor({inf, -inf, 0.25}, wick::kFloat64).requires_grad_();
  Tensor y = wick::zeros({3}, wick::kFloat64);
  nn::F::smooth_l1_loss(x, y, nn::F::SmoothL1LossFuncOptions(nn::kSum).beta(0.5)).backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{1.0, -1.0, 0.5});
  x.mutable_grad() = Tensor();
  Tensor loss = nn::F::huber_loss(x, y, nn::F::HuberLossFuncOptions(nn::kNone).delta(2.0));
  CHECK(loss.to_vector<double>() == std::vector<double>{inf, inf, 0.03125});
  loss.sum().backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{2.0, -2.0, 0.25});
}

TEST_CASE("binary_cross_entropy: probabilities of exactly 0 and 1") {
  // PyTorch clamps each log at -100: x = 0 with y = 1 costs 100; the term whose log was clamped
  // gets no gradient (wick; PyTorch divides by max(x (1 - x), 1e-12)), and nothing is NaN.
  Tensor x = wick::tensor({0.0f, 1.0f, 0.0f, 1.0f}).requires_grad_();
  Tensor y = wick::tensor({1.0f, 0.0f, 0.0f, 1.0f});
  Tensor loss = nn::F::binary_cross_entropy(x, y, nn::kNone);
  CHECK(loss.to_vector<float>() == std::vector<float>{100.0f, 100.0f, 0.0f, 0.0f});
  loss.sum().backward();
  for (float g : x.grad().to_vector<float>()) CHECK(std::isfinite(g));
  // Inside (0, 1) the gradient is (x - y) / (x (1 - x)), as PyTorch's.
  Tensor inside = wick::tensor({0.25}).requires_grad_();
  nn::F::binary_cross_entropy(inside, wick::tensor({1.0}), nn::kSum).backward();
  CHECK(inside.grad().item<double>() == Approx((0.25 - 1.0) / (0.25 * 0.75)).epsilon(1e-14));
}

TEST_CASE("the pointwise loss modules: options, buffers, printing") {
  Tensor x = wick::tensor({0.5, -1.0, 2.0}), y = wick::tensor({0.0, 1.0, 2.5});
  CHECK(nn::L1Loss()(x, y).item<double>() == Approx((0.5 + 2.0 + 0.5) / 3));
  CHECK(nn::L1Loss(nn::kSum)(x, y).item<double>() == Approx(3.0));
  nn::SmoothL1Loss smooth(nn::SmoothL1LossOptions(nn::kSum).beta(0.5));
  CHECK(smooth(x, y).item<double>() == Approx(0.25 + 1.75 + 0.25));
  nn::HuberLoss huber(nn::HuberLossOptions().delta(2.0));
  CHECK(huber(x, y).item<double>() == Approx((0.125 + 2.0 + 0.125) / 3));
  std::ostringstream printed;
  printed << smooth << " " << huber << " " << nn::L1Loss();
  CHECK(printed.str() ==
        "SmoothL1Loss(reduction=sum, beta=0.5) HuberLoss(reduction=mean, "
        "delta=2) L1Loss(reduction=mean)");

  nn::BCEWithLogitsLoss bce(nn::BCEWithLogitsLossOptions()
                                .weight(wick::tensor({1.0f, 2.0f}))
                                .pos_weight(wick::tensor({3.0f, 0.5f})));
  REQUIRE(bce->named_buffers().size() == 2);
  CHECK(bce->named_buffers()[0].first == "weight");
  CHECK(bce->named_buffers()[1].first == "pos_weight");
  CHECK(bce->parameters().empty());
  Tensor logits = wick::tensor({0.3, -1.2, 2.0, 0.1}, wick::kFloat64).reshape({2, 2});
  Tensor targets = wick::tensor({1.0, 0.0, 0.0, 1.0}, wick::kFloat64).reshape({2, 2});
  // float32 buffers against float64 logits are a DtypeError, as in PyTorch; to() casts them.
  CHECK_THROWS_AS(bce(logits, targets), wick::DtypeError);
  bce->to(wick::kFloat64);
  CHECK(bce->pos_weight.dtype() == wick::kFloat64);
  const double expected = nn::F::binary_cross_entropy_with_logits(
                              logits, targets,
                              nn::F::BinaryCrossEntropyWithLogitsFuncOptions()
                                  .weight(wick::tensor({1.0, 2.0}, wick::kFloat64))
                                  .pos_weight(wick::tensor({3.0, 0.5}, wick::kFloat64)))
                              .item<double>();
  CHECK(bce(logits, targets).item<double>() == expected);
  nn::BCELoss plain;
  CHECK(plain->named_buffers().empty());
  nn::BCELoss weighted(nn::BCELossOptions(nn::kSum).weight(wick::tensor({2.0})));
  CHECK(weighted->named_buffers().size() == 1);
  CHECK(weighted(wick::tensor({0.5}), wick::tensor({1.0})).item<double>() ==
        Approx(2.0 * std::log(2.0)));
}

TEST_CASE("pointwise losses reject bad input with clear errors") {
  Tensor x = wick::zeros({2, 3}), y = wick::zeros({2, 3});
  CHECK_THROWS_WITH(nn::F::l1_loss(x, wick::zeros({3})), Catch::Contains("l1_loss") &&
                                                             Catch::Contains("[2, 3]") &&
                                                             Catch::Contains("[3]"));
  CHECK_THROWS_AS(nn::F::l1_loss(wick::zeros({2, 3}, wick::kInt64), y), wick::DtypeError);
  CHECK_THROWS_AS(nn::F::huber_loss(x, wick::zeros({2, 3}, wick::kInt64)), wick::DtypeError);
  CHECK_THROWS_AS(nn::F::l1_loss(x, Tensor()), wick::ValueError);
  CHECK_THROWS_WITH(nn::F::smooth_l1_loss(x, y, nn::F::SmoothL1LossFuncOptions().beta(-1)),
                    Catch::Contains("smooth_l1_loss") && Catch::Contains("beta -1"));
  CHECK_THROWS_AS(nn::F::huber_loss(x, y, nn::F::HuberLossFuncOptions().delta(0)),
                  wick::ValueError);
  CHECK_THROWS_AS(nn::F::huber_loss(x, y, nn::F::HuberLossFuncOptions().delta(std::nan(""))),
                  wick::ValueError);
  // binary_cross_entropy: probabilities in [0, 1], NaN refused as PyTorch refuses it.
  CHECK_THROWS_WITH(nn::F::binary_cross_entropy(wick::tensor({0.5, 1.5, -0.1}), wick::zeros({3})),
                    Catch::Contains("binary_cross_entropy") && Catch::Contains("2 element(s)"));
  CHECK_THROWS_AS(nn::F::binary_cross_entropy(wick::tensor({std::nan("")}), wick::zeros({1})),
                  wick::ValueError);
  // Weights that do not broadcast to the input.
  auto bce_w = [&](const Tensor& w) {
    return nn::F::binary_cross_entropy(x, y, nn::F::BinaryCrossEntropyFuncOptions().weight(w));
  };
  CHECK_THROWS_AS(bce_w(wick::ones({2})), wick::ShapeError);
  CHECK_THROWS_AS(bce_w(wick::ones({1, 2, 3})), wick::ShapeError);
  CHECK_NOTHROW(bce_w(wick::ones({2, 1})));
  CHECK_THROWS_AS(bce_w(wick::ones({3}, wick::kInt64)), wick::DtypeError);
  CHECK_THROWS_WITH(bce_w(wick::ones({3}, wick::kFloat64)), Catch::Contains("weight") &&
                                                                Catch::Contains("float64") &&
                                                                Catch::Contains("float32"));
  // The target must have the input's dtype too (PyTorch: "Found dtype Double but expected Float").
  CHECK_THROWS_AS(nn::F::binary_cross_entropy(x, wick::zeros({2, 3}, wick::kFloat64)),
                  wick::DtypeError);
  CHECK_THROWS_WITH(
      nn::F::binary_cross_entropy_with_logits(
          x, y, nn::F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(wick::ones({4}))),
      Catch::Contains("pos_weight") && Catch::Contains("[4]"));
  // Empty batches: mean NaN, sum 0, as PyTorch.
  CHECK(std::isnan(nn::F::binary_cross_entropy(wick::zeros({0}), wick::zeros({0})).item<double>()));
  CHECK(nn::F::l1_loss(wick::zeros({0}), wick::zeros({0}), nn::kSum).item<double>() == 0.0);
  // After the errors everything still works.
  CHECK(nn::F::binary_cross_entropy(wick::full({2}, 0.5), wick::ones({2})).item<double>() ==
        Approx(std::log(2.0)));
}
