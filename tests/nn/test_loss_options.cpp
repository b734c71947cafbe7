// test_loss_options.cpp: cross_entropy and nll_loss with PyTorch's options (class weights,
// ignore_index, label smoothing, probability targets, [C] and [N, C, d...] inputs) against
// values and gradients computed by python3-torch 1.13 in float64 (loss_golden.inc, written by
// make_loss_golden.py), in float64 and float32; the modules' weight buffer; and the errors.
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

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct LossCase {
  std::string name, fn;
  std::vector<int64_t> input_shape;
  std::vector<double> input;
  std::vector<int64_t> target_shape, index_target;
  std::vector<double> probability_target, weight;
  int64_t ignore_index;
  double label_smoothing;
  std::vector<double> mean, sum;
  std::vector<int64_t> none_shape;
  std::vector<double> none, grad_mean;
};

#include "loss_golden.inc"

wick::Shape shape_of(const std::vector<int64_t>& sizes) { return wick::Shape(sizes); }

Tensor run(const LossCase& c, const Tensor& input, wick::Dtype dtype, nn::Reduction reduction) {
  Tensor target =
      c.index_target.empty() && !c.probability_target.empty()
          ? wick::tensor(c.probability_target, shape_of(c.target_shape), wick::TensorOptions(dtype))
          : wick::tensor(c.index_target, shape_of(c.target_shape));
  Tensor weight;
  if (!c.weight.empty()) weight = wick::tensor(c.weight, wick::TensorOptions(dtype));
  if (c.fn == "nll_loss") {
    return nn::F::nll_loss(
        input, target,
        nn::F::NLLFuncOptions().reduction(reduction).weight(weight).ignore_index(c.ignore_index));
  }
  return nn::F::cross_entropy(input, target,
                              nn::F::CrossEntropyFuncOptions()
                                  .reduction(reduction)
                                  .weight(weight)
                                  .ignore_index(c.ignore_index)
                                  .label_smoothing(c.label_smoothing));
}

// Equal within `rel` of the larger magnitude (or both NaN).
bool close(double actual, double expected, double rel) {
  if (std::isnan(expected)) return std::isnan(actual);
  return std::abs(actual - expected) <= rel * std::max(1.0, std::abs(expected));
}

void check_case(const LossCase& c, wick::Dtype dtype, double rel) {
  INFO("case '" << c.name << "' in " << dtype);
  const auto opts = wick::TensorOptions(dtype);
  // The same inputs as PyTorch's, rounded to the dtype under test.
  Tensor input = wick::tensor(c.input, shape_of(c.input_shape), opts);
  Tensor mean = run(c, input, dtype, nn::kMean);
  Tensor sum = run(c, input, dtype, nn::kSum);
  Tensor none = run(c, input, dtype, nn::kNone);
  CHECK(mean.dim() == 0);
  CHECK(mean.dtype() == dtype);
  CHECK(close(mean.item<double>(), c.mean[0], rel));
  CHECK(close(sum.item<double>(), c.sum[0], rel));
  REQUIRE(none.sizes() == shape_of(c.none_shape));
  const std::vector<double> none_values = none.to_vector<double>();
  for (size_t i = 0; i < c.none.size(); ++i) CHECK(close(none_values[i], c.none[i], rel));
  if (c.grad_mean.empty()) return;
  Tensor leaf = input.detach().requires_grad_();
  run(c, leaf, dtype, nn::kMean).backward();
  REQUIRE(leaf.grad().defined());
  const std::vector<double> grad = leaf.grad().to_vector<double>();
  for (size_t i = 0; i < c.grad_mean.size(); ++i) CHECK(close(grad[i], c.grad_mean[i], rel));
}

}  // namespace

TEST_CASE("cross_entropy and nll_loss options match PyTorch in float64") {
  REQUIRE(kLossCases.size() >= 20);
  for (const LossCase& c : kLossCases) check_case(c, wick::kFloat64, 1e-12);
}

TEST_CASE("cross_entropy and nll_loss options match PyTorch in float32") {
  for (const LossCase& c : kLossCases) check_case(c, wick::kFloat32, 2e-6);
}

TEST_CASE("cross_entropy with options passes gradcheck, weight and smoothing included") {
  const auto opts = wick::TensorOptions(wick::kFloat64);
  wick::manual_seed(11);
  Tensor x = wick::randn({3, 4, 2}, opts.requires_grad(true));
  Tensor target = wick::tensor(std::vector<int64_t>{0, 3, -100, 1, 2, 2}, wick::Shape{3, 2});
  Tensor weight = wick::tensor({0.5, 2.0, 1.0, 0.75}, opts);
  Tensor probs = wick::softmax(wick::randn({3, 4, 2}, opts), 1);
  for (auto reduction : {nn::kMean, nn::kSum, nn::kNone}) {
    auto options = nn::F::CrossEntropyFuncOptions(reduction).weight(weight).label_smoothing(0.2);
    auto flat = [](const Tensor& t) { return t.reshape({-1}); };
    CHECK(wick::autograd::gradcheck(
              [&](const std::vector<Tensor>& in) {
                return flat(nn::F::cross_entropy(in[0], target, options));
              },
              {x}) == "");
    CHECK(wick::autograd::gradcheck(
              [&](const std::vector<Tensor>& in) {
                return flat(nn::F::cross_entropy(in[0], probs, options));
              },
              {x}) == "");
  }
}

TEST_CASE("the default options give the old formula's bits") {
  // Before the options, cross_entropy was -where(one_hot, log_softmax(x, 1), 0).sum(1).mean().
  wick::manual_seed(5);
  Tensor x = wick::randn({64, 10});
  std::vector<int64_t> classes(64);
  for (size_t i = 0; i < classes.size(); ++i) classes[i] = static_cast<int64_t>((i * 7) % 10);
  Tensor target = wick::tensor(classes);
  Tensor hit = wick::eq(target.unsqueeze(1), wick::arange(10, wick::TensorOptions(wick::kInt64)));
  Tensor old_none = -wick::where(hit, wick::log_softmax(x, 1), 0.0).sum(1);
  CHECK(wick::equal(nn::F::cross_entropy(x, target, nn::kNone), old_none));
  CHECK(wick::equal(nn::F::cross_entropy(x, target), old_none.mean()));
  CHECK(wick::equal(nn::CrossEntropyLoss(nn::kSum)(x, target), old_none.sum()));
}

TEST_CASE("CrossEntropyLoss and NLLLoss keep the class weights as a buffer that moves") {
  Tensor w = wick::tensor({1.0f, 2.0f, 0.5f});
  nn::CrossEntropyLoss ce(nn::CrossEntropyLossOptions().weight(w).ignore_index(1));
  REQUIRE(ce->named_buffers().size() == 1);
  CHECK(ce->named_buffers()[0].first == "weight");
  CHECK(ce->parameters().empty());  // weights are not trained
  CHECK_FALSE(ce->weight.requires_grad());
  std::ostringstream printed;
  printed << ce;
  CHECK(printed.str() == "CrossEntropyLoss(reduction=mean, ignore_index=1)");
  Tensor x64 = wick::tensor(std::vector<double>{0.2, -1.0, 0.7, 1.5, 0.1, -0.3}, wick::Shape{2, 3});
  Tensor target = wick::tensor(std::vector<int64_t>{2, 0});
  // A float32 weight against float64 logits is refused, as PyTorch refuses it...
  CHECK_THROWS_AS(ce(x64, target), wick::DtypeError);
  // ...until Module::to casts the buffer along with the parameters.
  ce->to(wick::kFloat64);
  CHECK(ce->weight.dtype() == wick::kFloat64);
  const double expected =
      nn::F::cross_entropy(x64, target,
                           nn::F::CrossEntropyFuncOptions().weight(ce->weight).ignore_index(1))
          .item<double>();
  CHECK(ce(x64, target).item<double>() == expected);
  nn::NLLLoss nll(
      nn::NLLLossOptions(nn::kSum).weight(wick::tensor({1.0, 2.0, 0.5}, wick::kFloat64)));
  CHECK(nll->named_buffers().size() == 1);
  const std::vector<double> log_probs = wick::log_softmax(x64, 1).to_vector<double>();
  CHECK(nll(wick::log_softmax(x64, 1), target).item<double>() ==
        Approx(-(0.5 * log_probs[2] + 1.0 * log_probs[3])));
  // Without weights there is no buffer.
  CHECK(nn::CrossEntropyLoss()->named_buffers().empty());
}

TEST_CASE("cross_entropy and nll_loss reject bad options with clear errors") {
  Tensor x = wick::zeros({2, 3});
  Tensor t = wick::tensor(std::vector<int64_t>{0, 2});
  auto ce = [&](const nn::F::CrossEntropyFuncOptions& o, const Tensor& target) {
    return nn::F::cross_entropy(x, target, o);
  };
  using Opts = nn::F::CrossEntropyFuncOptions;
  CHECK_THROWS_AS(ce(Opts().label_smoothing(-0.1), t), wick::ValueError);
  CHECK_THROWS_AS(ce(Opts().label_smoothing(1.5), t), wick::ValueError);
  CHECK_THROWS_AS(ce(Opts().label_smoothing(kNaN), t), wick::ValueError);
  CHECK_THROWS_WITH(ce(Opts().weight(wick::ones({4})), t),
                    Catch::Contains("cross_entropy") && Catch::Contains("[3]"));
  CHECK_THROWS_AS(ce(Opts().weight(wick::ones({3}, wick::kFloat64)), t), wick::DtypeError);
  CHECK_THROWS_AS(ce(Opts().weight(wick::ones({1, 3})), t), wick::ShapeError);
  // -100 is ignored by default, -1 is not: an IndexError that names ignore_index.
  CHECK_NOTHROW(ce(Opts(), wick::tensor(std::vector<int64_t>{-100, 2})));
  CHECK_THROWS_WITH(ce(Opts(), wick::tensor(std::vector<int64_t>{-1, 2})),
                    Catch::Contains("ignore_index -100") && Catch::Contains("min -1"));
  CHECK_THROWS_AS(ce(Opts().ignore_index(-1), wick::tensor(std::vector<int64_t>{-100, 2})),
                  wick::IndexError);
  // No classes, every row ignored: NaN (0 / 0), as torch 1.13 gives; no index error from the
  // pick of the ignored rows' class.
  CHECK(std::isnan(
      nn::F::cross_entropy(wick::zeros({2, 0}), wick::tensor(std::vector<int64_t>{-100, -100}))
          .item<float>()));
  // With a (empty) weight too: NaN for the mean, 0 for the sum (torch: nan, 0.).
  const Tensor none_kept = wick::tensor(std::vector<int64_t>{-100, -100});
  CHECK(std::isnan(
      nn::F::cross_entropy(wick::zeros({2, 0}), none_kept, Opts().weight(wick::zeros({0})))
          .item<float>()));
  CHECK(nn::F::cross_entropy(wick::zeros({2, 0}), none_kept,
                             Opts().weight(wick::zeros({0})).reduction(nn::kSum))
            .item<float>() == 0.0f);
  // Probability targets: floating, the input's shape, no ignore_index.
  CHECK_THROWS_AS(ce(Opts(), wick::zeros({2, 3}, wick::kInt64)), wick::DtypeError);
  CHECK_THROWS_AS(ce(Opts().ignore_index(0), wick::full({2, 3}, 1.0 / 3)), wick::ValueError);
  CHECK_THROWS_AS(ce(Opts(), wick::zeros({2, 2})), wick::DtypeError);
  // Index targets: [N] for [N, C], [N, d] for [N, C, d], [] for [C].
  CHECK_THROWS_AS(nn::F::cross_entropy(wick::zeros({2, 3, 4}), t), wick::ShapeError);
  CHECK_NOTHROW(nn::F::cross_entropy(wick::zeros({2, 3, 4}), wick::zeros({2, 4}, wick::kInt64)));
  CHECK_THROWS_AS(nn::F::cross_entropy(wick::zeros({3}), t), wick::ShapeError);
  CHECK_THROWS_AS(nn::F::cross_entropy(wick::zeros({}), wick::zeros({}, wick::kInt64)),
                  wick::ShapeError);
  CHECK_THROWS_AS(nn::F::cross_entropy(x, Tensor()), wick::ValueError);
  CHECK_THROWS_AS(nn::F::nll_loss(x, wick::zeros({2})), wick::DtypeError);
  CHECK_THROWS_AS(nn::F::nll_loss(x, wick::tensor(std::vector<int64_t>{0, 3})), wick::IndexError);
  // After the errors everything still works.
  CHECK(nn::F::cross_entropy(x, t).item<double>() == Approx(std::log(3.0)));
}

TEST_CASE("empty batches: mean is NaN, sum is 0, none is empty, as PyTorch") {
  Tensor x = wick::zeros({0, 3});
  Tensor t = wick::zeros({0}, wick::kInt64);
  CHECK(std::isnan(nn::F::cross_entropy(x, t).item<double>()));
  CHECK(nn::F::cross_entropy(x, t, nn::kSum).item<double>() == 0.0);
  CHECK(nn::F::cross_entropy(x, t, nn::kNone).sizes() == wick::Shape{0});
  CHECK(std::isnan(nn::F::cross_entropy(x, wick::zeros({0, 3})).item<double>()));
}
