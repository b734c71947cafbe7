// test_var_std.cpp: var and std (over all elements and over dims, biased and unbiased, keepdim)
// against a long double model on random float64 and float32 inputs; the two-pass accuracy with
// a large mean; PyTorch's edges (n - 1 <= 0, empty, integers refused); gradcheck; and where with
// two numbers.
#include <cmath>
#include <limits>
#include <set>

#include "reference.hpp"

using namespace wick;

namespace {

// var of x [d0, d1, d2] over `dims` (normalised, sorted) as long double, in the result's order.
std::vector<double> model_var(const std::vector<double>& x, const Shape& shape,
                              const std::set<int64_t>& dims, bool unbiased) {
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < 3; ++d)
    if (!dims.count(d)) kept.push_back(d);
  std::map<std::vector<int64_t>, std::vector<long double>> groups;
  for (int64_t i = 0; i < shape[0]; ++i)
    for (int64_t j = 0; j < shape[1]; ++j)
      for (int64_t k = 0; k < shape[2]; ++k) {
        const int64_t idx[3] = {i, j, k};
        std::vector<int64_t> key;
        for (int64_t d : kept) key.push_back(idx[d]);
        groups[key].push_back(x[static_cast<size_t>((i * shape[1] + j) * shape[2] + k)]);
      }
  std::vector<double> out;
  for (const auto& [key, values] : groups) {
    long double mean = 0, squares = 0;
    for (long double v : values) mean += v;
    mean /= static_cast<long double>(values.size());
    for (long double v : values) squares += (v - mean) * (v - mean);
    const auto divisor = static_cast<long double>(values.size()) - (unbiased ? 1 : 0);
    out.push_back(static_cast<double>(squares / divisor));
  }
  return out;
}

}  // namespace

TEST_CASE("var and std against a long double model", "[reduce]") {
  const Shape shape{3, 4, 5};
  manual_seed(23);
  const Tensor x64 = randn(shape, kFloat64) * 3.0 + 1.5;
  const std::vector<double> xs = x64.to_vector<double>();
  const std::vector<std::pair<Shape, std::set<int64_t>>> cases = {
      {{}, {0, 1, 2}}, {{0}, {0}},       {{1}, {1}},
      {{-1}, {2}},     {{0, 2}, {0, 2}}, {{2, 0, 1}, {0, 1, 2}}};
  for (Dtype dtype : {kFloat64, kFloat32}) {
    const Tensor x = x64.to(dtype);
    const std::vector<double> held = x.to(kFloat64).to_vector<double>();
    const double rel = dtype == kFloat64 ? 1e-13 : 2e-6;
    for (const auto& [dims, normalised] : cases) {
      for (bool unbiased : {true, false}) {
        for (bool keepdim : {false, true}) {
          INFO(dtype << " dims " << dims << " unbiased " << unbiased << " keepdim " << keepdim);
          const Tensor v = x.var(dims, unbiased, keepdim);
          CHECK(v.dtype() == dtype);
          Shape want_shape;
          for (int64_t d = 0; d < 3; ++d) {
            if (!normalised.count(d))
              want_shape.push_back(shape[d]);
            else if (keepdim)
              want_shape.push_back(1);
          }
          CHECK(v.sizes() == want_shape);
          const std::vector<double> want = model_var(held, shape, normalised, unbiased);
          const std::vector<double> got = v.to(kFloat64).to_vector<double>();
          const std::vector<double> sd =
              x.std(dims, unbiased, keepdim).to(kFloat64).to_vector<double>();
          REQUIRE(got.size() == want.size());
          for (size_t i = 0; i < want.size(); ++i) {
            CHECK(std::abs(got[i] - want[i]) <= rel * want[i]);
            CHECK(std::abs(sd[i] - std::sqrt(want[i])) <= rel * std::sqrt(want[i]));
          }
        }
      }
    }
    // The all-elements and one-dim forms are the Shape form's.
    CHECK(equal(x.var(), x.var(Shape{})));
    CHECK(equal(x.std(false), x.std(Shape{}, false)));
    CHECK(equal(x.var({1}, true, true), x.var(Shape{1}, true, true)));
    CHECK(equal(wick::std(x, {2}), x.std(Shape{2})));
    // One-element lists are dims (libtorch's x.var({1}) is var(unbiased = true)).
    CHECK(equal(x.var({1}), x.var(Shape{1}, true, false)));
    CHECK_FALSE(equal(x.var({1}).sum(), x.var(true)));
  }
  // python3-torch 1.13: torch.var(torch.tensor([1., 2., 3., 4.], dtype=torch.float64)) and std.
  const Tensor four = tensor({1.0, 2.0, 3.0, 4.0}, kFloat64);
  CHECK(four.var().item<double>() == 1.6666666666666667);
  CHECK(four.std().item<double>() == 1.2909944487358056);
  CHECK(four.var(false).item<double>() == 1.25);
}

TEST_CASE("var keeps its digits when the mean is large against the spread", "[reduce]") {
  // float32 values 1e4 + {0.125, 0.25, 0.375, 0.5} (exact): E[x^2] - E[x]^2 in float32 would
  // lose every digit (x^2 ~ 1e8, ulp 8); two passes give the variance to float32 rounding.
  const Tensor x = tensor({10000.125, 10000.25, 10000.375, 10000.5});
  const std::vector<double> v = {10000.125, 10000.25, 10000.375, 10000.5};
  long double mean = 0, squares = 0;
  for (double e : v) mean += e;
  mean /= 4;
  for (double e : v) squares += (e - mean) * (e - mean);
  CHECK(x.var().item<double>() == Approx(static_cast<double>(squares / 3)).epsilon(1e-6));
}

TEST_CASE("var and std at PyTorch's edges", "[reduce]") {
  CHECK(std::isnan(tensor({2.5}).var().item<double>()));  // 0 / 0
  CHECK(tensor({2.5}).var(false).item<double>() == 0.0);
  CHECK(std::isnan(zeros({0}).var().item<double>()));
  CHECK(zeros({0, 3}).var({0}).sizes() == Shape{3});
  CHECK(std::isnan(zeros({0, 3}).var({0}).to_vector<float>()[0]));
  CHECK(zeros({3, 0}).var({0}).sizes() == Shape{0});
  CHECK_THROWS_WITH(tensor({1, 2, 3}).var(), Catch::Contains("var") && Catch::Contains("int64"));
  CHECK_THROWS_AS(zeros({2, 3}).var({2}), IndexError);
  CHECK(tensor({1.0, 3.0}).std().item<double>() == Approx(std::sqrt(2.0)));  // still works
}

TEST_CASE("var and std pass gradcheck", "[reduce][autograd]") {
  manual_seed(29);
  const Tensor x = randn({3, 4}, TensorOptions(kFloat64).requires_grad(true));
  using V = std::vector<Tensor>;
  for (bool unbiased : {true, false}) {
    CHECK(autograd::gradcheck([&](const V& in) { return in[0].var(unbiased).reshape({1}); }, {x}) ==
          "");
    CHECK(autograd::gradcheck([&](const V& in) { return in[0].var({1}, unbiased); }, {x}) == "");
    CHECK(autograd::gradcheck(
              [&](const V& in) { return in[0].std({0}, unbiased, true).reshape({-1}); }, {x}) ==
          "");
  }
}

TEST_CASE("std: a constant group has a zero gradient, not NaN; one dim as libtorch spells it",
          "[reduce][autograd]") {
  // PyTorch's std_backward gives 0 where the result is 0; sqrt'(0) * 0 would be NaN.
  Tensor x = wick::tensor({{2.0, 2.0, 2.0}, {1.0, 2.0, 4.0}}, wick::kFloat64).requires_grad_();
  Tensor s = x.std(1, true, true);  // libtorch's x.std(dim, unbiased, keepdim)
  CHECK(s.sizes() == wick::Shape{2, 1});
  CHECK(s.to_vector<double>()[0] == 0.0);
  s.sum().backward();
  const std::vector<double> g = x.grad().to_vector<double>();
  for (int i = 0; i < 3; ++i) CHECK(g[i] == 0.0);
  for (int i = 3; i < 6; ++i) CHECK(std::isfinite(g[i]));
  CHECK(wick::var(x, 0, false).sizes() == wick::Shape{3});
}

TEST_CASE("where with two numbers", "[where]") {
  const Tensor c = tensor({true, false, true});
  const Tensor f = where(c, 1.5, 0);
  CHECK(f.dtype() == kFloat32);
  CHECK(f.to_vector<float>() == std::vector<float>{1.5f, 0.0f, 1.5f});
  const Tensor i = where(c, 7, -1);
  CHECK(i.dtype() == kInt64);
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{7, -1, 7});
  CHECK(where(c, true, false).dtype() == kBool);
  CHECK(where(c, true, 2).dtype() == kInt64);
  CHECK(where(tensor({{true}, {false}}), 1.0, 2.0).sizes() == Shape{2, 1});
  CHECK_THROWS_AS(where(tensor({1.0, 0.0}), 1.0, 0.0), DtypeError);
  CHECK_THROWS_AS(where(Tensor(), 1.0, 0.0), Error);
}
