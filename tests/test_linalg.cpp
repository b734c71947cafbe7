// test_linalg.cpp: linalg_solve, linalg_inv, det and slogdet (wick/linalg.hpp) against
// python3-torch 1.13's values (in the comments), residuals of random batches, gradients
// (gradcheck) and errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>
#include <wick/wick.hpp>

using namespace wick;

namespace {
std::vector<double> doubles(const Tensor& t) {
  return t.to(kFloat64).contiguous().to_vector<double>();
}
void check_near(const Tensor& got, const std::vector<double>& want, double tol = 1e-12) {
  const std::vector<double> values = doubles(got);
  REQUIRE(values.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i << ": " << values[i] << " against " << want[i]);
    CHECK(std::abs(values[i] - want[i]) <= tol * std::max(1.0, std::abs(want[i])));
  }
}
double max_abs(const Tensor& t) { return t.abs().max().to(kFloat64).item<double>(); }
Tensor f64(std::vector<double> values, const Shape& shape) {
  return tensor(values, shape, kFloat64);
}
}  // namespace

TEST_CASE("linalg_solve, linalg_inv, det, slogdet: torch's values", "[linalg]") {
  const Tensor a = f64({2, 1, 1, 4, -6, 0, -2, 7, 2}, {3, 3});
  const Tensor b = f64({5, 1, -2, 0, 9, 3}, {3, 2});
  // torch.linalg.solve(A, B) = [[1, -0.375], [1, -0.25], [2, 2]]; of [1, 2, 3]: [-1, -1, 4].
  check_near(linalg_solve(a, b), {1, -0.375, 1, -0.25, 2, 2});
  check_near(linalg_solve(a, f64({1, 2, 3}, {3})), {-1, -1, 4});
  CHECK(linalg_solve(a, f64({1, 2, 3}, {3})).sizes() == Shape{3});
  // inv: [[0.75, -0.3125, -0.375], [0.5, -0.375, -0.25], [-1, 1, 1]]; det -16;
  // slogdet (-1, log 16).
  check_near(linalg_inv(a), {0.75, -0.3125, -0.375, 0.5, -0.375, -0.25, -1, 1, 1});
  check_near(inverse(a), doubles(linalg_inv(a)));
  check_near(det(a), {-16});
  auto [sign, logabs] = slogdet(a);
  check_near(sign, {-1});
  check_near(logabs, {std::log(16.0)});
  // A permutation: det -1, slogdet (-1, 0); singular [[1, 2], [2, 4]]: det 0, slogdet (0, -inf);
  // 0 x 0: det 1, inv [0, 0]; a batch: det([[1, 2], [3, 4]]) = -2, det(diag(2, 3)) = 6.
  check_near(det(f64({0, 1, 1, 0}, {2, 2})), {-1});
  const Tensor singular = f64({1, 2, 2, 4}, {2, 2});
  check_near(det(singular), {0});
  auto [ssign, slog] = slogdet(singular);
  CHECK(ssign.item<double>() == 0);
  CHECK(std::isinf(slog.item<double>()));
  CHECK(slog.item<double>() < 0);
  CHECK(det(zeros({0, 0})).item<float>() == 1.0f);
  CHECK(linalg_inv(zeros({0, 0})).sizes() == Shape{0, 0});
  check_near(det(f64({1, 2, 3, 4, 2, 0, 0, 3}, {2, 2, 2})), {-2, 6});
  // float32 keeps its dtype.
  CHECK(det(a.to(kFloat32)).dtype() == kFloat32);
  // Errors: torch's LinAlgError for a singular system; not square; mixed dtypes; integers.
  CHECK_THROWS_AS(linalg_solve(singular, f64({1, 1}, {2})), ValueError);
  CHECK_THROWS_AS(linalg_inv(singular), ValueError);
  CHECK_THROWS_AS(linalg_inv(ones({2, 3})), ShapeError);
  CHECK_THROWS_AS(det(ones({3})), ShapeError);
  CHECK_THROWS_AS(linalg_solve(a, ones({3})), DtypeError);
  CHECK_THROWS_AS(linalg_solve(a, f64({1, 2}, {2})), ShapeError);
  CHECK_THROWS_AS(det(tensor({1, 2, 3, 4}).view({2, 2})), DtypeError);
  // After the errors, everything still works.
  check_near(det(a), {-16});
}

TEST_CASE("linalg: random batches solve to small residuals, broadcast and pivot", "[linalg]") {
  manual_seed(3);
  // A batch of 4 x [12, 12] against a right-hand side shared by every batch (broadcast).
  const Tensor a = randn({4, 12, 12}, kFloat64);
  const Tensor b = randn({12, 3}, kFloat64);
  const Tensor x = linalg_solve(a, b);
  CHECK(x.sizes() == Shape{4, 12, 3});
  CHECK(max_abs(matmul(a, x) - b) < 1e-10);
  CHECK(max_abs(matmul(linalg_inv(a), a) - eye(12, kFloat64)) < 1e-10);
  // det against the product of an LU-free case: det(A B) = det(A) det(B).
  const Tensor c = randn({4, 12, 12}, kFloat64);
  const Tensor lhs = det(matmul(a, c)), rhs = det(a) * det(c);
  CHECK(max_abs((lhs - rhs) / rhs) < 1e-9);
  // A zero in the first pivot place needs a row swap: [[0, 1], [1, 1]] x = [1, 2] -> [1, 1].
  check_near(linalg_solve(f64({0, 1, 1, 1}, {2, 2}), f64({1, 2}, {2})), {1, 1});
  // float32: residual within float32 rounding of a well-conditioned system.
  const Tensor well = randn({16, 16}) + eye(16) * 8.0;
  const Tensor rhs32 = randn({16});
  CHECK(max_abs(matmul(well, linalg_solve(well, rhs32)) - rhs32) < 1e-4);
}

TEST_CASE("linalg: gradients through the factorisation", "[linalg][autograd]") {
  // torch: det([[3, 1], [2, 5]]).backward() gives [[5, -2], [-1, 3]] (the cofactors).
  Tensor x = f64({3, 1, 2, 5}, {2, 2}).requires_grad_(true);
  det(x).backward();
  check_near(x.grad(), {5, -2, -1, 3});
  manual_seed(5);
  auto fn = [](const std::vector<Tensor>& in) {
    return linalg_solve(in[0], in[1]) * 2.0 + linalg_inv(in[0]).sum() +
           std::get<1>(slogdet(in[0])) + det(in[0]);
  };
  std::vector<Tensor> inputs{
      (randn({3, 3}, kFloat64) + eye(3, kFloat64) * 3.0).requires_grad_(true),
      randn({3, 2}, kFloat64).requires_grad_(true)};
  CHECK(autograd::gradcheck(fn, inputs) == "");
}
