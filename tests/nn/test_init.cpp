// test_init.cpp: nn::init against torch 1.13: the fans and gains (torch's values printed with
// /usr/bin/python3), the bounds and moments of the random fills (tens of thousands of draws, so
// the tolerances hold with margin), the patterns of eye_, dirac_ (torch's nonzero positions)
// and sparse_, orthogonality, repeatability under manual_seed, and the errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <numbers>
#include <vector>

#include "wick/nn.hpp"
#include "wick/wick.hpp"

using namespace wick;
namespace init = wick::nn::init;

namespace {

struct Moments {
  double mean, std, min, max;
};

Moments moments_of(const Tensor& t) {
  const std::vector<double> v = t.to(kFloat64).reshape({-1}).to_vector<double>();
  Moments m{0, 0, v[0], v[0]};
  for (double x : v) {
    m.mean += x;
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.std += (x - m.mean) * (x - m.mean);
  m.std = std::sqrt(m.std / static_cast<double>(v.size()));
  return m;
}

std::vector<int64_t> nonzero_positions(const Tensor& t) {
  const std::vector<double> v = t.to(kFloat64).reshape({-1}).to_vector<double>();
  std::vector<int64_t> at;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] != 0) at.push_back(static_cast<int64_t>(i));
  }
  return at;
}

}  // namespace

TEST_CASE("nn::init: fans and gains as torch 1.13's", "[nn][init]") {
  CHECK(init::calculate_fan_in_and_fan_out(empty({64, 32, 3, 3})) ==
        std::pair<int64_t, int64_t>{288, 576});
  CHECK(init::calculate_fan_in_and_fan_out(empty({5, 7})) == std::pair<int64_t, int64_t>{7, 5});
  CHECK_THROWS_AS(init::calculate_fan_in_and_fan_out(empty({5})), ValueError);
  CHECK(init::calculate_gain(init::kLeakyReLU, 0.2) == Approx(1.3867504905630728));
  CHECK(init::calculate_gain(init::kSELU) == 0.75);
  CHECK(init::calculate_gain(init::kTanh) == Approx(5.0 / 3.0));
  CHECK(init::calculate_gain(init::kReLU) == Approx(std::sqrt(2.0)));
  CHECK(init::calculate_gain(init::kConv2D) == 1.0);
  CHECK(init::calculate_gain(init::kLeakyReLU) == Approx(std::sqrt(2.0 / 1.0001)));
}

TEST_CASE("nn::init: the random fills have their bounds and moments", "[nn][init]") {
  manual_seed(3);
  // kaiming_uniform_ of a conv weight, a = 0: bound sqrt(6 / fan_in) = sqrt(6 / 288).
  const Tensor conv = empty({64, 32, 3, 3});
  init::kaiming_uniform_(conv);
  const double bound = std::sqrt(6.0 / 288.0);
  Moments m = moments_of(conv);
  CHECK(m.max <= bound);
  CHECK(m.min >= -bound);
  CHECK(m.max > 0.99 * bound);
  CHECK(std::abs(m.mean) < 0.01 * bound);
  CHECK(m.std == Approx(bound / std::sqrt(3.0)).epsilon(0.02));
  // kaiming_normal_ with fan_out and ReLU: std sqrt(2 / 576).
  init::kaiming_normal_(conv, 0.0, init::kFanOut, init::kReLU);
  m = moments_of(conv);
  CHECK(m.std == Approx(std::sqrt(2.0 / 576.0)).epsilon(0.02));
  CHECK(std::abs(m.mean) < 0.01 * m.std);
  // xavier_uniform_ with gain 2 on [100, 50], float64: bound 2 sqrt(6 / 150).
  const Tensor linear = empty({100, 50}, kFloat64);
  init::xavier_uniform_(linear, 2.0);
  m = moments_of(linear);
  CHECK(m.max <= 2 * std::sqrt(6.0 / 150.0));
  CHECK(m.max > 0.98 * 2 * std::sqrt(6.0 / 150.0));
  init::xavier_normal_(linear);
  CHECK(moments_of(linear).std == Approx(std::sqrt(2.0 / 150.0)).epsilon(0.03));
  init::uniform_(linear, -3.0, 5.0);
  m = moments_of(linear);
  CHECK((m.min >= -3.0 && m.max < 5.0 && m.mean == Approx(1.0).margin(0.1)));
  init::normal_(linear, 2.0, 0.5);
  m = moments_of(linear);
  CHECK((m.mean == Approx(2.0).margin(0.02) && m.std == Approx(0.5).epsilon(0.03)));
  // trunc_normal_(mean 1, std 2, [-1, 2]): inside the bounds, with the truncated mean
  // mean + std (phi(alpha) - phi(beta)) / (Phi(beta) - Phi(alpha)).
  const Tensor t = empty({200, 100});
  init::trunc_normal_(t, 1.0, 2.0, -1.0, 2.0);
  m = moments_of(t);
  CHECK((m.min >= -1.0 && m.max <= 2.0));
  const auto phi = [](double x) { return std::exp(-x * x / 2) / std::sqrt(2 * std::numbers::pi); };
  const auto Phi = [](double x) { return (1 + std::erf(x / std::sqrt(2.0))) / 2; };
  const double want = 1.0 + 2.0 * (phi(-1.0) - phi(0.5)) / (Phi(0.5) - Phi(-1.0));
  CHECK(m.mean == Approx(want).margin(0.01));
  // A seed repeats a fill; a leaf that requires grad is filled and stays a leaf.
  manual_seed(11);
  const Tensor first = init::kaiming_uniform_(empty({8, 4})).clone();
  manual_seed(11);
  CHECK(equal(init::kaiming_uniform_(empty({8, 4})), first));
  const Tensor weight = empty({8, 4}).requires_grad_(true);
  init::xavier_uniform_(weight);
  CHECK((weight.requires_grad() && weight.is_leaf()));
  // No elements: left as they are.
  CHECK(init::kaiming_uniform_(empty({0, 3})).numel() == 0);
}

TEST_CASE("nn::init: eye_, dirac_, constant_, sparse_ and orthogonal_", "[nn][init]") {
  CHECK(equal(
      init::eye_(empty({3, 5})),
      tensor({{1.0, 0.0, 0.0, 0.0, 0.0}, {0.0, 1.0, 0.0, 0.0, 0.0}, {0.0, 0.0, 1.0, 0.0, 0.0}})));
  // torch: nonzero positions of dirac_([4, 2, 3, 3], groups 2) and dirac_([3, 5, 2]).
  CHECK(nonzero_positions(init::dirac_(empty({4, 2, 3, 3}), 2)) ==
        std::vector<int64_t>{4, 31, 40, 67});
  CHECK(nonzero_positions(init::dirac_(full({3, 5, 2}, 7.0))) == std::vector<int64_t>{1, 13, 25});
  CHECK(init::constant_(empty({2, 2}), 0.5).sum().item<float>() == 2.0f);
  CHECK(init::ones_(empty({3})).sum().item<float>() == 3.0f);
  CHECK(init::zeros_(full({3}, 2.0)).sum().item<float>() == 0.0f);
  // sparse_: ceil(0.3 * 10) = 3 zeros in every column.
  manual_seed(5);
  const Tensor sparse = init::sparse_(empty({10, 6}), 0.3);
  const std::vector<int64_t> zeros_per_column =
      eq(sparse, 0).to(kInt64).sum(0).to_vector<int64_t>();
  CHECK(zeros_per_column == std::vector<int64_t>(6, 3));
  // orthogonal_: rows orthonormal (times the gain) for a wide matrix, columns for a tall one.
  const Tensor wide = init::orthogonal_(empty({3, 5}, kFloat64), 2.0);
  CHECK(allclose(matmul(wide, wide.t()), eye(3, kFloat64) * 4.0, 1e-12, 1e-12));
  const Tensor tall = init::orthogonal_(empty({6, 2, 2}), 1.0).reshape({6, 4});
  CHECK(allclose(matmul(tall.t(), tall), eye(4), 1e-5, 1e-5));
  manual_seed(2);
  const Tensor once = init::orthogonal_(empty({4, 4})).clone();
  manual_seed(2);
  CHECK(equal(init::orthogonal_(empty({4, 4})), once));
}

TEST_CASE("nn::init: bad arguments are typed errors naming the function", "[nn][init]") {
  CHECK_THROWS_WITH(init::normal_(empty({3}), 0.0, -1.0), Catch::Contains("normal_"));
  CHECK_THROWS_WITH(init::uniform_(empty({3}), 2.0, 1.0), Catch::Contains("uniform_"));
  CHECK_THROWS_AS(init::kaiming_uniform_(empty({3}, kInt64)), DtypeError);
  CHECK_THROWS_AS(init::kaiming_uniform_(empty({3})), ValueError);
  CHECK_THROWS_WITH(init::eye_(empty({2, 2, 2})), Catch::Contains("eye_"));
  CHECK_THROWS_WITH(init::dirac_(empty({2, 2})), Catch::Contains("dirac_"));
  CHECK_THROWS_AS(init::dirac_(empty({3, 2, 3}), 2), ValueError);
  CHECK_THROWS_WITH(init::sparse_(empty({4, 4}), 1.5), Catch::Contains("sparse_"));
  CHECK_THROWS_AS(init::orthogonal_(empty({4})), ValueError);
  CHECK_THROWS_AS(init::trunc_normal_(empty({4}), 0.0, 1.0, 2.0, -2.0), ValueError);
  CHECK_THROWS_AS(init::constant_(Tensor(), 1.0), ValueError);
}
