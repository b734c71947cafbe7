// test_quantile.cpp: quantile and nanquantile against PyTorch 1.13 (python3-torch; its values
// written beside each check): every interpolation, NaN in a line, q as a number, a 0-d and a
// 1-D tensor, keepdim with and without a dim, float64, errors, and the gradient.
#include <catch2/catch.hpp>
#include <cmath>

#include "wick/wick.hpp"

using namespace wick;

namespace {

std::vector<float> floats(const Tensor& t) {
  return t.contiguous().reshape({t.numel()}).to(kFloat32).to_vector<float>();
}

// Equal values, NaN matching NaN.
bool same(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]) ? !std::isnan(got[i]) : got[i] != want[i]) return false;
  }
  return true;
}

const float kNan = NAN;

}  // namespace

TEST_CASE("quantile and nanquantile: every interpolation, PyTorch's values", "[quantile]") {
  const Tensor a =
      tensor({{3.0f, 1.0f, 4.0f, 1.5f}, {kNan, 2.0f, -1.0f, 0.5f}, {7.0f, 7.0f, 2.0f, -3.0f}});
  const Tensor q = tensor({0.0f, 0.25f, 0.5f, 0.9f, 1.0f});
  // torch.quantile(a, q, dim=1, interpolation=...) and nanquantile, [5, 3] each, row-major.
  struct Row {
    const char* interpolation;
    std::vector<float> with_nan, without_nan;
  };
  const std::vector<Row> rows = {
      {"linear",
       {1, kNan, -3, 1.375f, kNan, 0.75f, 2.25f, kNan, 4.5f, 3.6999998f, kNan, 7, 4, kNan, 7},
       {1, -1, -3, 1.375f, -0.25f, 0.75f, 2.25f, 0.5f, 4.5f, 3.6999998f, 1.6999999f, 7, 4, 2, 7}},
      {"lower",
       {1, kNan, -3, 1, kNan, -3, 1.5f, kNan, 2, 3, kNan, 7, 4, kNan, 7},
       {1, -1, -3, 1, -1, -3, 1.5f, 0.5f, 2, 3, 0.5f, 7, 4, 2, 7}},
      {"higher",
       {1, kNan, -3, 1.5f, kNan, 2, 3, kNan, 7, 4, kNan, 7, 4, kNan, 7},
       {1, -1, -3, 1.5f, 0.5f, 2, 3, 0.5f, 7, 4, 2, 7, 4, 2, 7}},
      {"midpoint",
       {1, kNan, -3, 1.25f, kNan, -0.5f, 2.25f, kNan, 4.5f, 3.5f, kNan, 7, 4, kNan, 7},
       {1, -1, -3, 1.25f, -0.25f, -0.5f, 2.25f, 0.5f, 4.5f, 3.5f, 1.25f, 7, 4, 2, 7}},
      {"nearest",
       {1, kNan, -3, 1.5f, kNan, 2, 3, kNan, 7, 4, kNan, 7, 4, kNan, 7},
       {1, -1, -3, 1.5f, -1, 2, 3, 0.5f, 7, 4, 2, 7, 4, 2, 7}},
  };
  for (const Row& row : rows) {
    INFO(row.interpolation);
    const Tensor with_nan = quantile(a, q, 1, false, row.interpolation);
    CHECK(with_nan.sizes() == Shape{5, 3});
    CHECK(same(floats(with_nan), row.with_nan));
    CHECK(same(floats(a.nanquantile(q, 1, false, row.interpolation)), row.without_nan));
  }
  // torch: nearest rounds half to even: quantile([1, 2, 3, 4], 0.5, 'nearest') is 3, and at
  // q = [1/6, 0.5] [1, 3].
  CHECK(quantile(tensor({1.0f, 2.0f, 3.0f, 4.0f}), 0.5, std::nullopt, false, "nearest")
            .item<float>() == 3.0f);
}

TEST_CASE("quantile: dims, shapes, keepdim, float64, errors, gradient", "[quantile]") {
  const Tensor a =
      tensor({{3.0f, 1.0f, 4.0f, 1.5f}, {kNan, 2.0f, -1.0f, 0.5f}, {7.0f, 7.0f, 2.0f, -3.0f}});
  // torch: quantile(a, 0.5, dim=0) [nan, 2, 2, 0.5]; nanquantile [5, 2, 2, 0.5].
  CHECK(same(floats(quantile(a, 0.5, 0)), {kNan, 2, 2, 0.5f}));
  CHECK(same(floats(nanquantile(a, 0.5, 0)), {5, 2, 2, 0.5f}));
  // torch: quantile(a[2], [0.1, 0.7]) [-1.5, 7]; nanquantile(a, 0.3) 1.0 over every element.
  CHECK(floats(a.select(0, 2).quantile(tensor({0.1f, 0.7f}))) == std::vector<float>{-1.5f, 7});
  CHECK(nanquantile(a, 0.3).item<float>() == 1.0f);
  CHECK(quantile(a, 0.3).sizes() == Shape{});
  // torch shapes: q [2] along dim 1 with keepdim [2, 3, 1]; without a dim [2, 1, 1]; 0-d q with
  // keepdim along dim 0 [1, 4].
  CHECK(quantile(a, tensor({0.2f, 0.8f}), 1, true).sizes() == Shape{2, 3, 1});
  CHECK(nanquantile(a, tensor({0.2f, 0.8f}), std::nullopt, true).sizes() == Shape{2, 1, 1});
  CHECK(quantile(a, 0.5, 0, true).sizes() == Shape{1, 4});
  CHECK(quantile(a, tensor(0.5f), 1).sizes() == Shape{3});
  // A line of NaNs: nanquantile gives NaN (torch: [nan, 1.5]).
  const Tensor nans = tensor({{kNan, kNan}, {1.0f, 2.0f}});
  CHECK(same(floats(nanquantile(nans, 0.5, 1)), {kNan, 1.5f}));
  // float64: rank 0.7 between 0.1 and 0.3 (torch: 0.24).
  const Tensor d = tensor({0.1, 0.7, 0.3}).to(kFloat64);
  CHECK(quantile(d, 0.35).item<double>() == Approx(0.24).margin(1e-15));
  // bfloat16 is computed in float32 (PyTorch refuses it).
  CHECK(quantile(tensor({1.0f, 2.0f, 3.0f}).to(kBFloat16), 0.5).to(kFloat32).item<float>() == 2);
  // Errors (torch: "q must be in the range [0, 1] but got 1.5", "input tensor must be either
  // float or double dtype", and an empty input).
  CHECK_THROWS_WITH(quantile(a, 1.5), Catch::Contains("quantile") && Catch::Contains("[0, 1]"));
  CHECK_THROWS_AS(quantile(a, tensor({0.5, 0.2}).to(kFloat64)), DtypeError);  // q's dtype
  CHECK_THROWS_AS(quantile(tensor({1, 2}), 0.5), DtypeError);
  CHECK_THROWS_AS(quantile(zeros({0}), 0.5), ShapeError);
  CHECK_THROWS_AS(quantile(a, tensor({{0.5f}})), ShapeError);
  CHECK_THROWS_AS(quantile(a, 0.5, 2), IndexError);
  CHECK_THROWS_WITH(quantile(a, 0.5, 0, false, "cubic"),
                    Catch::Contains("quantile") && Catch::Contains("\"cubic\""));
  // The gradient goes to the two neighbours by the weights (torch: [0.6, 0.1, 0.4, 0.9]).
  const Tensor x = tensor({3.0f, 1.0f, 4.0f, 1.5f}).requires_grad_();
  quantile(x, tensor({0.3f, 0.8f})).sum().backward();
  const std::vector<float> grad = floats(x.grad());
  const std::vector<float> want{0.6f, 0.1f, 0.4f, 0.9f};
  for (size_t i = 0; i < 4; ++i) CHECK(grad[i] == Approx(want[i]).margin(1e-6));
}
