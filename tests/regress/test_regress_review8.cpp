// test_regress_review8.cpp: what an eighth review against python3-torch 1.13 found
// (docs/reliability.md, "Findings of an eighth review"): binary_cross_entropy's gradients were
// the clamped logs' derivatives, 0 where a log is clamped, so the input's had the wrong sign at
// x = 0 and was orders of magnitude off wherever x (1 - x) < 1e-12. torch's values in the
// comments, printed with /usr/bin/python3 (torch 1.13.1).
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "wick/nn.hpp"
#include "wick/wick.hpp"

using namespace wick;
namespace F = wick::nn::functional;

TEST_CASE("binary_cross_entropy's gradients are PyTorch's rules at the clamped ends", "[regress]") {
  const Tensor x = tensor({0.0, 1.0, 1e-50, 1e-13, 0.3, 1 - 1e-16}, kFloat64).requires_grad_(true);
  const Tensor y = tensor({0.5, 0.5, 0.3, 0.0, 0.9, 0.7}, kFloat64).requires_grad_(true);
  const Tensor w = tensor({1.0, 2.0, 1.0, 1.0, 3.0, 1.0}, kFloat64);
  const Tensor loss =
      F::binary_cross_entropy(x, y, nn::BCELossOptions().weight(w).reduction(nn::kSum));
  CHECK(loss.item<double>() == Approx(194.3787692257649).epsilon(1e-14));
  loss.backward();
  // (x - y) / max(x (1 - x), 1e-12f), times the weight.
  const std::vector<double> want_x = {-500000001997.9014,  1000000003995.8029, -300000001198.74084,
                                      0.10000000039958029, -8.571428571428573, 300000001198.7408};
  // log(1 - x) - log(x), unclamped, times the weight; torch gives inf and -inf at x = 0 and 1,
  // wick the clamped logs' 100 and -100 there (times the weight).
  const std::vector<double> want_y = {
      100.0, -200.0, 115.12925464970229, 29.933606208922495, 2.5418935811616112, -36.7368005696771};
  const std::vector<double> got_x = x.grad().to_vector<double>();
  const std::vector<double> got_y = y.grad().to_vector<double>();
  for (size_t i = 0; i < want_x.size(); ++i) {
    INFO("element " << i);
    CHECK(got_x[i] == Approx(want_x[i]).epsilon(1e-12));
    CHECK(got_y[i] == Approx(want_y[i]).epsilon(1e-12));
  }
  // float32, mean: torch's [-124999999488, 124999999488, -75000004608, -0.714285671710968].
  const Tensor xf = tensor({0.0f, 1.0f, 1e-20f, 0.3f}).requires_grad_(true);
  F::binary_cross_entropy(xf, tensor({0.5f, 0.5f, 0.3f, 0.9f})).backward();
  const std::vector<float> got_f = xf.grad().to_vector<float>();
  const std::vector<float> want_f = {-124999999488.0f, 124999999488.0f, -75000004608.0f,
                                     -0.714285671710968f};
  for (size_t i = 0; i < want_f.size(); ++i) {
    INFO("float32 element " << i);
    CHECK(got_f[i] == Approx(want_f[i]).epsilon(1e-6));
  }
}

TEST_CASE("errors of ops built on other ops name the op the user called", "[regress]") {
  // Each named the op it delegates to before: matmul, size, copy_, gather, trunc_divide,
  // pow_scalar and index_select.
  CHECK_THROWS_WITH(dot(ones({3}, kBool), ones({3}, kBool)), Catch::Contains("dot"));
  CHECK_THROWS_WITH(mv(ones({2, 3}, kBool), ones({3}, kBool)), Catch::Contains("mv"));
  CHECK_THROWS_WITH(bmm(ones({1, 2, 3}, kBool), ones({1, 3, 2}, kBool)), Catch::Contains("bmm"));
  CHECK_THROWS_WITH(roll(tensor(1.0), {1}, {1}), Catch::Contains("roll"));
  CHECK(roll(tensor(1.0), {3}, {-1}).item<float>() == 1.0f);  // torch: the one element
  Tensor expanded = ones({1, 3}).expand({2, 3});
  CHECK_THROWS_WITH(expanded.masked_fill_(ones({2, 3}, kBool), 2.0),
                    Catch::Contains("masked_fill_"));
  CHECK(expanded.sum().item<float>() == 6.0f);
  CHECK_THROWS_WITH(searchsorted(tensor({3.0, 1.0}), tensor({2.0}), false, tensor({0, 5})),
                    Catch::Contains("searchsorted") && Catch::Contains("out of range"));
  CHECK_THROWS_WITH(div(ones({2}), ones({3}), "trunc"),
                    Catch::Contains("div") && !Catch::Contains("trunc_divide"));
  CHECK_THROWS_WITH(pow(ones({2}, kBool), 2),
                    Catch::Contains("pow") && !Catch::Contains("pow_scalar"));
  CHECK_THROWS_WITH(nn::Embedding(4, 2)(tensor({5})), Catch::Contains("embedding"));
}

TEST_CASE("LambdaLR calls its factor once per step, the first at construction", "[regress]") {
  // torch 1.13: lr 0.1 after the constructor, then 0.05, 0.0333..., 0.025.
  const Tensor p = tensor({1.0}, kFloat64).requires_grad_(true);
  optim::SGD sgd({p}, optim::SGDOptions(0.1));
  int calls = 0;
  optim::LambdaLR schedule(sgd, [&](int64_t) { return 1.0 / ++calls; });
  CHECK(calls == 1);
  CHECK(sgd.lr() == Approx(0.1));
  schedule.step();
  CHECK(sgd.lr() == Approx(0.05));
  schedule.step();
  CHECK(sgd.lr() == Approx(0.1 / 3));
}

TEST_CASE("a Transformer stack of 0 layers is its final norm, as torch 1.13", "[regress]") {
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2));
  nn::TransformerEncoder bare(nn::TransformerEncoderOptions(layer, 0));
  const Tensor src = randn({3, 2, 4});
  CHECK(equal(bare(src), src));
  CHECK_THROWS_AS(nn::TransformerEncoder(nn::TransformerEncoderOptions(layer, -1)), ValueError);
}
