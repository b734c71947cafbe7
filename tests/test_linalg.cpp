// test_linalg.cpp: linalg_solve, linalg_inv, det and slogdet (wick/linalg.hpp) against
// python3-torch 1.13's values (in the comments), residuals of random batches, gradients
// (gradcheck) and errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>
#include <wick/wick.hpp>

#include "linalg_checks.hpp"
#include "sweep_common.hpp"

using namespace wick;
using namespace linalg_checks;

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

TEST_CASE("linalg_lu_factor, linalg_lu_solve: torch's values and errors", "[linalg]") {
  // torch.linalg.lu_factor([[1, 2], [3, 4]]): LU [[3, 4], [1/3, 2/3]], pivots [2, 2].
  const auto [lu, pivots] = linalg_lu_factor(f64({1, 2, 3, 4}, {2, 2}));
  check_near(lu, {3, 4, 1.0 / 3, 2.0 / 3});
  CHECK(pivots.to_vector<int64_t>() == std::vector<int64_t>{2, 2});
  // [[0, 2, 1], [0, 0, 3], [4, 5, 6]]: LU [[4, 5, 6], [0, 2, 1], [0, 0, 3]], pivots [3, 3, 3];
  // lu_solve against [1, 2, 3]: [-11/24, 1/6, 2/3].
  const auto [lu3, p3] = linalg_lu_factor(f64({0, 2, 1, 0, 0, 3, 4, 5, 6}, {3, 3}));
  check_near(lu3, {4, 5, 6, 0, 2, 1, 0, 0, 3});
  CHECK(p3.to_vector<int64_t>() == std::vector<int64_t>{3, 3, 3});
  check_near(linalg_lu_solve(lu3, p3, f64({1, 2, 3}, {3, 1})), {-11.0 / 24, 1.0 / 6, 2.0 / 3});
  // One factorisation, right-hand sides of a broadcast batch.
  CHECK(linalg_lu_solve(lu3, p3, zeros({4, 3, 2}, kFloat64)).sizes() == Shape{4, 3, 2});
  // A singular matrix factors; solving with it is a ValueError.
  const auto [lu0, p0] = linalg_lu_factor(zeros({2, 2}, kFloat64));
  check_near(lu0, {0, 0, 0, 0});
  CHECK_THROWS_AS(linalg_lu_solve(lu0, p0, ones({2, 1}, kFloat64)), ValueError);
  // The message names the batch element and the diagonal element, as torch's.
  Tensor second_singular = eye(3, kFloat64).expand({4, 3, 3}).contiguous();
  second_singular.select(0, 2).select(0, 1).fill_(0.0);
  CHECK_THROWS_WITH(linalg_solve(second_singular, ones({4, 3, 1}, kFloat64)),
                    Catch::Contains("(batch element 2) the diagonal element 2 of U is zero"));
  // Pivots may name a row above their own, as torch's: lu_solve([[2, 1, 0], [0.5, 3, 1],
  // [0.25, 0.5, 4]], [3, 1, 2], [1, 2, 3]) = [1.1041666666666667, -0.20833333333333334, 0.625].
  const Tensor b = ones({3, 1}, kFloat64);
  check_near(linalg_lu_solve(f64({2, 1, 0, 0.5, 3, 1, 0.25, 0.5, 4}, {3, 3}),
                             tensor(std::vector<int64_t>{3, 1, 2}, {3}), f64({1, 2, 3}, {3, 1})),
             {1.1041666666666667, -0.20833333333333334, 0.625});
  // Pivots that name no row: past n, or 0.
  CHECK_THROWS_AS(linalg_lu_solve(lu3, tensor(std::vector<int64_t>{3, 3, 4}, {3}), b), IndexError);
  CHECK_THROWS_AS(linalg_lu_solve(lu3, tensor(std::vector<int64_t>{0, 3, 3}, {3}), b), IndexError);
  CHECK_THROWS_AS(linalg_lu_solve(lu3, p3.to(kFloat64), b), ShapeError);
  CHECK_THROWS_AS(linalg_lu_solve(lu3, p3, ones({3, 1})), DtypeError);
  CHECK_THROWS_AS(linalg_lu_solve(lu3, p3, ones({2, 1}, kFloat64)), ShapeError);
  // Not differentiable: a recorded input is an error, not a silently lost gradient.
  const Tensor x = f64({1, 2, 3, 4}, {2, 2}).requires_grad_(true);
  CHECK_THROWS_AS(linalg_lu_factor(x), ValueError);
  {
    const NoGradGuard no_grad;
    CHECK(std::get<1>(linalg_lu_factor(x)).numel() == 2);
  }
  CHECK_THROWS_AS(linalg_lu_solve(lu3, p3, ones({3, 1}, kFloat64).requires_grad_(true)),
                  ValueError);
  // After the errors, everything still works.
  check_near(det(f64({1, 2, 3, 4}, {2, 2})), {-2});
}

TEST_CASE("linalg: gradients of solve and inv are the closed forms", "[linalg][autograd]") {
  // d/dA sum(inv(A)) for A = [[2, 1], [1, 3]] (torch): -inv(A)^T ones inv(A)^T.
  Tensor a = f64({2, 1, 1, 3}, {2, 2}).requires_grad_(true);
  linalg_inv(a).sum().backward();
  // inv(A) = [[0.6, -0.2], [-0.2, 0.4]]; column sums 0.4, 0.2 -> -[[0.16, 0.08], [0.08, 0.04]].
  check_near(a.grad(), {-0.16, -0.08, -0.08, -0.04});
  manual_seed(9);
  std::vector<Tensor> inputs{
      (randn({2, 3, 3}, kFloat64) + eye(3, kFloat64) * 3.0).requires_grad_(true),
      randn({3}, kFloat64).requires_grad_(true)};
  auto fn = [](const std::vector<Tensor>& in) { return linalg_solve(in[0], in[1]); };
  CHECK(autograd::gradcheck(fn, inputs) == "");
}

namespace {

// The float64 reference: getrf's algorithm on one row-major matrix, in place, 0-based pivots.
std::vector<int64_t> reference_lu(double* lu, int64_t n) {
  std::vector<int64_t> pivots(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; ++i)
      if (std::abs(lu[i * n + k]) > std::abs(lu[p * n + k])) p = i;
    pivots[static_cast<size_t>(k)] = p;
    for (int64_t j = 0; j < n; ++j) std::swap(lu[k * n + j], lu[p * n + j]);
    for (int64_t i = k + 1; i < n; ++i) {
      if (lu[k * n + k] != 0) lu[i * n + k] /= lu[k * n + k];  // LAPACK: a zero divides nothing
      for (int64_t j = k + 1; j < n; ++j) lu[i * n + j] -= lu[i * n + k] * lu[k * n + j];
    }
  }
  return pivots;
}

// max |A X - B| over max |A| max |X| n: a backward-stable solve keeps it near the epsilon.
double relative_residual(const Tensor& a, const Tensor& x, const Tensor& b) {
  const Tensor a64 = a.to(kFloat64), x64 = x.to(kFloat64);
  if (x64.numel() == 0) return 0;
  const double scale = max_abs(a64) * max_abs(x64) * static_cast<double>(a.size(-1));
  return max_abs(matmul(a64, x64) - b.to(kFloat64)) / std::max(scale, 1e-300);
}

}  // namespace

// The op sweep's case for lu_factor, lu_solve and linalg_solve: empty, single and batched
// matrices, contiguous and transposed, float32 and float64; 300 x 300 takes the CPU kernel's
// row split. float64 factors equal the reference's (same steps); float32 ones satisfy P A = L U
// with |L| <= 1 and pivots at or below the diagonal; solves have backward-stable residuals.
void sweep_linalg(OpId op) {
  manual_seed(17);
  const std::vector<Shape> shapes = {{0, 0},       {1, 1},       {4, 4},   {3, 6, 6},
                                     {2, 0, 3, 3}, {2, 3, 0, 0}, {64, 64}, {300, 300}};
  for (Dtype dtype : {kFloat32, kFloat64}) {
    const double eps = dtype == kFloat32 ? 1.2e-7 : 2.3e-16;
    for (const Shape& shape : shapes) {
      for (bool transposed : {false, true}) {
        INFO(dtype_name(dtype) << " " << shape << (transposed ? " transposed" : ""));
        const Tensor a = transposed ? randn(shape, dtype).transpose(-2, -1) : randn(shape, dtype);
        const int64_t n = a.size(-1);
        Shape rhs_shape = a.sizes();
        rhs_shape[rhs_shape.size() - 1] = 3;
        const Tensor b = randn(rhs_shape, dtype);
        if (op == OpId::linalg_solve) {
          CHECK(relative_residual(a, linalg_solve(a, b), b) < 30 * eps);
          // B shared by the batch, and a vector.
          const Tensor shared = randn({n, 2}, dtype), vector = randn({n}, dtype);
          const Tensor x = linalg_solve(a, shared);
          CHECK(relative_residual(a, x, shared.expand(x.sizes())) < 30 * eps);
          const Tensor xv = linalg_solve(a, vector);
          CHECK(relative_residual(a, xv.unsqueeze(-1),
                                  vector.unsqueeze(-1).expand(xv.unsqueeze(-1).sizes())) <
                30 * eps);
          continue;
        }
        if (op == OpId::det) {
          // Against the product of a float64 LU's pivots (reference_lu: the same pivot rule,
          // so the same sign); 0 x 0 matrices have det 1.
          const Tensor d = det(a);
          Shape batch = a.sizes();
          batch.resize(batch.size() - 2);
          REQUIRE(d.sizes() == batch);
          CHECK(d.dtype() == dtype);
          if (n == 0) {
            CHECK(equal(d, ones(batch, dtype)));
            continue;
          }
          if (n > 64) continue;  // |det| of a 300 x 300 normal draw is near float64's range
          const std::vector<double> given = a.to(kFloat64).contiguous().to_vector<double>();
          const std::vector<double> got = d.to(kFloat64).contiguous().to_vector<double>();
          for (size_t m = 0; m < got.size(); ++m) {
            const auto at = static_cast<ptrdiff_t>(m * static_cast<size_t>(n * n));
            std::vector<double> want(given.begin() + at, given.begin() + at + n * n);
            const std::vector<int64_t> swaps = reference_lu(want.data(), n);
            double ref = 1;
            for (int64_t k = 0; k < n; ++k) {
              ref *= want[static_cast<size_t>(k * n + k)];
              if (swaps[static_cast<size_t>(k)] != k) ref = -ref;
            }
            INFO("matrix " << m << ": got " << got[m] << ", want " << ref);
            if (dtype == kFloat32 && !std::isfinite(static_cast<float>(ref))) {
              CHECK(got[m] == static_cast<double>(static_cast<float>(ref)));  // +-inf: overflow
              continue;
            }
            CHECK(std::abs(got[m] - ref) <= (dtype == kFloat32 ? 1e-3 : 1e-10) * std::abs(ref));
          }
          continue;
        }
        const auto [lu, pivots] = linalg_lu_factor(a);
        CHECK(lu.sizes() == a.sizes());
        CHECK(pivots.dtype() == kInt64);
        if (op == OpId::lu_solve) {
          CHECK(relative_residual(a, linalg_lu_solve(lu, pivots, b), b) < 30 * eps);
          continue;
        }
        const int64_t matrices = n == 0 ? 0 : a.numel() / (n * n);
        const std::vector<double> given = a.to(kFloat64).contiguous().to_vector<double>();
        const std::vector<double> got = lu.to(kFloat64).contiguous().to_vector<double>();
        const std::vector<int64_t> got_pivots = pivots.contiguous().to_vector<int64_t>();
        for (int64_t m = 0; m < matrices; ++m) {
          const size_t at = static_cast<size_t>(m * n * n);
          const double* f = got.data() + at;
          const int64_t* p = got_pivots.data() + m * n;
          for (int64_t k = 0; k < n; ++k) REQUIRE((p[k] >= k + 1 && p[k] <= n));
          if (dtype == kFloat64) {
            std::vector<double> want(given.begin() + static_cast<ptrdiff_t>(at),
                                     given.begin() + static_cast<ptrdiff_t>(at + n * n));
            const std::vector<int64_t> want_pivots = reference_lu(want.data(), n);
            for (int64_t k = 0; k < n; ++k)
              REQUIRE(p[k] == want_pivots[static_cast<size_t>(k)] + 1);
            for (int64_t e = 0; e < n * n; ++e)
              REQUIRE(std::abs(f[e] - want[static_cast<size_t>(e)]) <=
                      1e-10 * (1 + std::abs(want[static_cast<size_t>(e)])));
            continue;
          }
          // float32: P A = L U within rounding, every multiplier at most 1.
          std::vector<double> pa(given.begin() + static_cast<ptrdiff_t>(at),
                                 given.begin() + static_cast<ptrdiff_t>(at + n * n));
          for (int64_t k = 0; k < n; ++k)
            for (int64_t j = 0; j < n; ++j) std::swap(pa[k * n + j], pa[(p[k] - 1) * n + j]);
          double worst = 0, largest = 0;
          for (int64_t i = 0; i < n; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              double s = 0;
              for (int64_t t = 0; t <= std::min(i, j); ++t)
                s += (t == i ? 1.0 : f[i * n + t]) * f[t * n + j];
              worst = std::max(worst, std::abs(s - pa[i * n + j]));
              largest = std::max(largest, std::abs(pa[i * n + j]));
              if (j < i) REQUIRE(std::abs(f[i * n + j]) <= 1.0);
            }
          }
          CHECK(worst <= 50 * eps * static_cast<double>(n) * std::max(largest, 1.0));
        }
      }
    }
  }
}

TEST_CASE("linalg: empty batches of huge matrices and 0 x 0 matrices", "[linalg]") {
  // Nothing may be sized by n alone (an identity, an arange of pivots, n steps).
  const int64_t huge = int64_t{1} << 31;  // huge * huge still fits the strides
  Tensor none = zeros({0, huge, huge}, kFloat64);
  CHECK(det(none).sizes() == Shape{0});
  CHECK(std::get<1>(slogdet(none)).sizes() == Shape{0});
  CHECK(linalg_inv(none).sizes() == none.sizes());
  CHECK(linalg_solve(none, zeros({0, huge, 2}, kFloat64)).sizes() == Shape{0, huge, 2});
  CHECK(std::get<1>(linalg_lu_factor(none)).sizes() == Shape{0, huge});
  none.requires_grad_(true);
  CHECK(det(none).sizes() == Shape{0});
  // 0 x 0 matrices: det 1, log|det| 0, and an empty inverse, as torch.
  check_near(det(zeros({2, 0, 0}, kFloat64)), {1, 1});
  check_near(std::get<0>(slogdet(zeros({2, 0, 0}, kFloat64))), {1, 1});
  check_near(std::get<1>(slogdet(zeros({2, 0, 0}, kFloat64))), {0, 0});
  CHECK(linalg_inv(zeros({2, 0, 0}, kFloat64)).sizes() == Shape{2, 0, 0});
}

TEST_CASE("lu_factor: a zero pivot in a panel of a GEMM-sized matrix", "[linalg]") {
  // 200 x 200 (the trailing updates are GEMMs from 128 on) with column 40 all zeros: pivot 40
  // is 0, and its panel's update is a GEMM as every other's. Equal to the reference within
  // rounding, pivots exactly; det 0, and a solve is a ValueError.
  manual_seed(21);
  Tensor a = randn({200, 200}, kFloat64);
  a.select(1, 40).fill_(0.0);
  const auto [lu, pivots] = linalg_lu_factor(a);
  std::vector<double> want = a.contiguous().to_vector<double>();
  const std::vector<int64_t> want_pivots = reference_lu(want.data(), 200);
  const std::vector<double> got = lu.to_vector<double>();
  const std::vector<int64_t> got_pivots = pivots.to_vector<int64_t>();
  for (size_t k = 0; k < 200; ++k) REQUIRE(got_pivots[k] == want_pivots[k] + 1);
  for (size_t e = 0; e < got.size(); ++e)
    REQUIRE(std::abs(got[e] - want[e]) <= 1e-9 * (1 + std::abs(want[e])));
  CHECK(got[40 * 200 + 40] == 0);
  CHECK(det(a).item<double>() == 0);
  CHECK_THROWS_AS(linalg_solve(a, ones({200, 1}, kFloat64)), ValueError);
}

TEST_CASE("lu_factor: a zero pivot still updates the trailing block, as LAPACK's getrf",
          "[linalg]") {
  // getrf divides nothing by a zero pivot but still subtracts its column's outer product, so a
  // NaN below the pivot, or an infinity right of it, reaches U and det is NaN. torch 1.13:
  // lu_factor_ex([[0, 1], [nan, 3]]) = [[0, 1], [nan, nan]], det nan, slogdet's logabsdet nan;
  // lu_factor_ex([[0, inf], [0, 1]]) = [[0, inf], [0, nan]].
  const Tensor nan_below = tensor(std::vector<double>{0, 1, NAN, 3}, {2, 2}, kFloat64);
  const Tensor inf_right = tensor(std::vector<double>{0, INFINITY, 0, 1}, {2, 2}, kFloat64);
  for (const Tensor& a : {nan_below, inf_right}) {
    const auto [lu, pivots] = linalg_lu_factor(a);
    CHECK(pivots.to_vector<int64_t>() == std::vector<int64_t>{1, 2});
    const std::vector<double> f = lu.to_vector<double>();
    CHECK(f[0] == 0);
    CHECK(std::isnan(f[3]));
    CHECK(std::isnan(det(a).item<double>()));
    CHECK(std::isnan(std::get<1>(slogdet(a)).item<double>()));
    // The same with autograd recording (det then factors in tensor ops).
    CHECK(std::isnan(det(a.detach().requires_grad_(true)).item<double>()));
  }
  CHECK(std::isnan(nan_below.to_vector<double>()[2]));  // the input is untouched
  // GEMM-sized: column 0 zero but for a NaN at row 150, which pivot 0 cannot take; the NaN
  // multiplier turns row 150 to NaN through the GEMM update, and det is NaN.
  manual_seed(22);
  Tensor big = randn({200, 200}, kFloat64);
  big.select(1, 0).fill_(0.0);
  big.select(0, 150).select(0, 0).fill_(NAN);
  const auto [lu, pivots] = linalg_lu_factor(big);
  CHECK(lu.select(0, 0).select(0, 0).item<double>() == 0);
  CHECK(isnan(lu.diagonal(0, -2, -1)).any().item<bool>());
  CHECK(std::isnan(det(big).item<double>()));
}
