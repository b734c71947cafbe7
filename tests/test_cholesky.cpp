// test_cholesky.cpp: linalg_cholesky(_ex), linalg_solve_triangular, cholesky_solve and
// cholesky_inverse (wick/linalg.hpp) against python3-torch 1.13's values (in the comments),
// residuals of random batches on both sides of the CPU kernels' blocking (128 rows), the
// triangle a kernel must not read (NaN there), gradients (torch's values and gradcheck) and
// errors; and the op sweep's case for cholesky_factor, triangular_solve and the two recorded
// ops.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>
#include <wick/wick.hpp>

#include "linalg_checks.hpp"
#include "sweep_common.hpp"

using namespace wick;
using namespace linalg_checks;

namespace {
// A well-conditioned symmetric positive-definite batch: X X^T / n + I.
Tensor spd(const Shape& shape, Dtype dtype) {
  const int64_t n = shape[shape.size() - 1];
  const Tensor x = randn(shape, kFloat64);
  const Tensor a = matmul(x, x.transpose(-2, -1)) / static_cast<double>(std::max<int64_t>(n, 1)) +
                   eye(n, kFloat64);
  return a.to(dtype);
}
// |L L^T - A| / |A| in float64, the largest over the batch's elements.
double factor_residual(const Tensor& a, const Tensor& l) {
  const Tensor l64 = l.to(kFloat64), a64 = a.to(kFloat64);
  if (a.numel() == 0) return 0;
  return max_abs(matmul(l64, l64.transpose(-2, -1)) - a64) / max_abs(a64);
}
}  // namespace

TEST_CASE("linalg_cholesky: torch's values, upper, info and errors", "[linalg]") {
  const Tensor a = f64({4, 2, -2, 2, 10, 4, -2, 4, 9}, {3, 3});
  // torch.linalg.cholesky(A) = [[2, 0, 0], [1, 3, 0], [-1, 5/3, 2.2852182001336816]].
  check_near(linalg_cholesky(a), {2, 0, 0, 1, 3, 0, -1, 1.6666666666666665, 2.2852182001336816});
  check_near(linalg_cholesky(a, true), doubles(linalg_cholesky(a).transpose(0, 1)));
  // upper reads the upper triangle: A2 = [[4, 1, 2], [7, 5, 3], [9, 8, 6]] (torch: U =
  // [[2, 0.5, 1], [0, 2.1794..., 1.1470...], [0, 0, 1.9194...]]; its lower triangle is not
  // positive-definite, so the default raises, as torch's, for the leading minor of order 2).
  const Tensor a2 = f64({4, 1, 2, 7, 5, 3, 9, 8, 6}, {3, 3});
  check_near(linalg_cholesky(a2, true),
             {2, 0.5, 1, 0, 2.179449471770337, 1.1470786693528088, 0, 0, 1.9194297398747862});
  try {
    linalg_cholesky(a2);
    FAIL("no error");
  } catch (const ValueError& e) {
    const std::string message = e.what();
    CHECK(message.find("linalg_cholesky") != std::string::npos);
    CHECK(message.find("leading minor of order 2 is not positive-definite") != std::string::npos);
    CHECK(message.find("[3, 3] float64") != std::string::npos);
  }
  // A batch names its element: torch's "(Batch element 1)"; info [0, 1, 2] from
  // torch.linalg.cholesky_ex of [A, -A, [[4, 2, -2], [2, 1, 4], [-2, 4, 9]]].
  const Tensor third = f64({4, 2, -2, 2, 1, 4, -2, 4, 9}, {3, 3});
  const Tensor batch = stack({a, -a, third});
  try {
    linalg_cholesky(batch);
    FAIL("no error");
  } catch (const ValueError& e) {
    CHECK(std::string(e.what()).find("(batch element 1)") != std::string::npos);
    CHECK(std::string(e.what()).find("order 1 ") != std::string::npos);
  }
  const auto [l, info] = linalg_cholesky_ex(batch);
  CHECK(info.dtype() == kInt64);
  CHECK(info.to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2});
  check_near(l.select(0, 0), doubles(linalg_cholesky(a)));
  // Columns from the failed one on are NaN (lower triangle), zeros above, finished ones kept.
  const std::vector<double> failed = doubles(l.select(0, 2));
  CHECK(failed[0] == 2);
  CHECK(failed[3] == 1);
  CHECK(std::isnan(failed[4]));
  CHECK(std::isnan(failed[8]));
  CHECK(failed[1] == 0);
  CHECK(failed[5] == 0);
  CHECK_THROWS_AS(linalg_cholesky_ex(batch, false, true), ValueError);
  // A NaN pivot fails (LAPACK's test), a zero one too.
  CHECK(std::get<1>(linalg_cholesky_ex(f64({NAN, 0, 0, 1}, {2, 2}))).item<int64_t>() == 1);
  CHECK(std::get<1>(linalg_cholesky_ex(f64({1, 1, 1, 1}, {2, 2}))).item<int64_t>() == 2);
  // Empty: 0 x 0 matrices and empty batches.
  const auto [l0, info0] = linalg_cholesky_ex(zeros({2, 0, 0}, kFloat64));
  CHECK(l0.sizes() == Shape{2, 0, 0});
  CHECK(info0.to_vector<int64_t>() == std::vector<int64_t>{0, 0});
  CHECK(linalg_cholesky(zeros({0, 3, 3})).sizes() == Shape{0, 3, 3});
  // float32 keeps its dtype; errors for the rest.
  CHECK(linalg_cholesky(a.to(kFloat32)).dtype() == kFloat32);
  CHECK_THROWS_AS(linalg_cholesky(zeros({2, 3})), ShapeError);
  CHECK_THROWS_AS(linalg_cholesky(zeros({3})), ShapeError);
  CHECK_THROWS_AS(linalg_cholesky(eye(3, kInt64)), DtypeError);
  CHECK_THROWS_AS(linalg_cholesky(eye(3, kBFloat16)), DtypeError);
  CHECK_THROWS_AS(linalg_cholesky(Tensor()), ValueError);
  // After the errors, everything works.
  check_near(linalg_cholesky(a), {2, 0, 0, 1, 3, 0, -1, 1.6666666666666665, 2.2852182001336816});
}

TEST_CASE("linalg_cholesky: random batches on both sides of the blocking", "[linalg]") {
  manual_seed(23);
  const int threads = get_num_threads();
  for (int t : {1, 2}) {
    set_num_threads(t);
    for (Dtype dtype : {kFloat32, kFloat64}) {
      const double eps = dtype == kFloat32 ? 1.2e-7 : 2.3e-16;
      for (const Shape& shape : std::vector<Shape>{{1, 1},
                                                   {5, 5},
                                                   {3, 31, 31},
                                                   {2, 33, 33},
                                                   {127, 127},
                                                   {128, 128},
                                                   {129, 129},
                                                   {2, 160, 160},
                                                   {300, 300}}) {
        INFO(dtype_name(dtype) << " " << shape << ", " << t << " threads");
        const Tensor a = spd(shape, dtype);
        const Tensor l = linalg_cholesky(a);
        CHECK(factor_residual(a, l) <
              20 * eps * std::sqrt(static_cast<double>(shape[shape.size() - 1])));
        CHECK(max_abs(triu(l, 1)) == 0);
        // Only the lower triangle is read: NaN above changes nothing.
        const Tensor poisoned = where(triu(ones_like(a), 1).to(kBool), Scalar(NAN), a);
        CHECK(equal(linalg_cholesky(poisoned), l));
        // Against the float64 factor: the diagonal is positive and close.
        if (dtype == kFloat64) {
          const Tensor l32 = linalg_cholesky(a.to(kFloat32)).to(kFloat64);
          CHECK(max_abs(l32 - l) < 1e-4 * max_abs(l));
        }
      }
    }
  }
  set_num_threads(threads);
}

TEST_CASE("linalg_solve_triangular: torch's values, both sides, the unread triangle", "[linalg]") {
  const Tensor t = f64({2, 7, -1, 3, -4, 5, 1, 6, 0.5}, {3, 3});
  const Tensor b = f64({1, 2, 3, 4, 5, 6}, {3, 2});
  check_near(linalg_solve_triangular(t, b, false), {0.5, 1, -0.375, -0.25, 13.5, 13});
  check_near(linalg_solve_triangular(t, b, false, true, true), {1, 2, 0, -2, 4, 16});
  check_near(linalg_solve_triangular(t, b, true), {-35.625, -42, 11.75, 14, 10, 12});
  check_near(linalg_solve_triangular(t, b, true, true, true), {160, 190, -22, -26, 5, 6});
  check_near(linalg_solve_triangular(t, b.t(), false, false), {-25.875, 14.25, 10, -30.5, 17, 12});
  // A zero on the diagonal: infinities or NaN, no error (trsm's).
  const Tensor singular = f64({0, 0, 1, 1}, {2, 2});
  CHECK(!all(isfinite(linalg_solve_triangular(singular, f64({1, 1}, {2, 1}), false))).item<bool>());
  // Random batches: residuals, broadcast batches, a NaN-filled other triangle.
  manual_seed(29);
  for (Dtype dtype : {kFloat32, kFloat64}) {
    const double eps = dtype == kFloat32 ? 1.2e-7 : 2.3e-16;
    for (int64_t n : {1, 7, 64, 130, 257}) {
      for (bool upper : {false, true}) {
        for (bool unit : {false, true}) {
          for (bool left : {true, false}) {
            INFO(dtype_name(dtype) << " n " << n << (upper ? " upper" : " lower")
                                   << (unit ? " unit" : "") << (left ? " left" : " right"));
            // Well conditioned: a dominant diagonal, small entries off it.
            Tensor a =
                randn({2, 1, n, n}, kFloat64) / static_cast<double>(n) + eye(n, kFloat64) * 2.0;
            const Tensor kept =
                upper ? triu(ones({n, n}), unit ? 1 : 0) : tril(ones({n, n}), unit ? -1 : 0);
            const Tensor exact =
                (a * kept.to(kFloat64) + (unit ? eye(n, kFloat64) : zeros({n, n}, kFloat64)))
                    .to(dtype);
            const Tensor poisoned = where(kept.to(kBool), a, Scalar(NAN)).to(dtype);
            const Tensor rhs = randn(left ? Shape{3, n, 5} : Shape{3, 5, n}, dtype);
            const Tensor x = linalg_solve_triangular(poisoned, rhs, upper, left, unit);
            CHECK(x.sizes() == (left ? Shape{2, 3, n, 5} : Shape{2, 3, 5, n}));
            const Tensor product = left ? matmul(exact.to(kFloat64), x.to(kFloat64))
                                        : matmul(x.to(kFloat64), exact.to(kFloat64));
            CHECK(max_abs(product - rhs.to(kFloat64).expand(product.sizes())) <
                  50 * eps * std::max(1.0, max_abs(rhs)) * static_cast<double>(n));
          }
        }
      }
    }
  }
  // Errors name the op and both operands.
  try {
    linalg_solve_triangular(t, zeros({2, 2}, kFloat64), false);
    FAIL("no error");
  } catch (const ShapeError& e) {
    CHECK(std::string(e.what()).find("linalg_solve_triangular") != std::string::npos);
    CHECK(std::string(e.what()).find("[2, 2] float64") != std::string::npos);
  }
  CHECK_THROWS_AS(linalg_solve_triangular(t, zeros({3, 2}, kFloat32), false), DtypeError);
  CHECK_THROWS_AS(linalg_solve_triangular(t, zeros({3}, kFloat64), false), ShapeError);
  CHECK_THROWS_AS(linalg_solve_triangular(t, zeros({2, 3}, kFloat64), false), ShapeError);
  CHECK_THROWS_AS(linalg_solve_triangular(t, zeros({3, 2}, kFloat64), false, false), ShapeError);
  CHECK_THROWS_AS(linalg_solve_triangular(zeros({2, 3}, kFloat64), b, false), ShapeError);
  // Batches that do not broadcast.
  CHECK_THROWS_AS(linalg_solve_triangular(stack({t, t}), zeros({4, 3, 2}, kFloat64), false),
                  ShapeError);
}

TEST_CASE("cholesky_solve, cholesky_inverse: torch's values", "[linalg]") {
  const Tensor a = f64({4, 2, -2, 2, 10, 4, -2, 4, 9}, {3, 3});
  const Tensor b = f64({1, 2, 3, 4, 5, 6}, {3, 2});
  const Tensor l = linalg_cholesky(a);
  // torch.cholesky_solve(B, L), and with upper=True of L^T: the same X.
  const std::vector<double> want = {0.7234042553191489,   1.1276595744680848, -0.15957446808510634,
                                    -0.23404255319148928, 0.7872340425531914, 1.0212765957446808};
  check_near(cholesky_solve(b, l), want);
  check_near(cholesky_solve(b, l.t().contiguous(), true), want);
  check_near(cholesky_inverse(l), {0.3936170212765957, -0.1382978723404255, 0.14893617021276592,
                                   -0.1382978723404255, 0.17021276595744678, -0.10638297872340423,
                                   0.14893617021276592, -0.10638297872340423, 0.19148936170212763});
  check_near(cholesky_inverse(l.t(), true), doubles(cholesky_inverse(l)));
  // A batch of factors against one B; empty ones.
  const Tensor x = cholesky_solve(b, stack({l, l * 2.0}));
  CHECK(x.sizes() == Shape{2, 3, 2});
  check_near(x.select(0, 1), doubles(cholesky_solve(b, l) / 4.0));
  CHECK(cholesky_inverse(zeros({0, 2, 2})).sizes() == Shape{0, 2, 2});
  CHECK(cholesky_inverse(zeros({0, 0})).sizes() == Shape{0, 0});
  // Errors name the op.
  try {
    cholesky_solve(zeros({2, 2}, kFloat64), l);
    FAIL("no error");
  } catch (const ShapeError& e) {
    CHECK(std::string(e.what()).find("cholesky_solve") != std::string::npos);
  }
  CHECK_THROWS_AS(cholesky_solve(b.to(kFloat32), l), DtypeError);
  CHECK_THROWS_AS(cholesky_inverse(zeros({2, 3})), ShapeError);
  // An undefined operand is named by its place in torch's order (B, then L).
  try {
    cholesky_solve(Tensor(), l);
    FAIL("no error");
  } catch (const ValueError& e) {
    CHECK(std::string(e.what()).find("operand 1 of 2") != std::string::npos);
  }
  // Batches that do not broadcast: the op and both operands named (found by review).
  try {
    cholesky_solve(zeros({3, 3, 2}, kFloat64), stack({l, l}));
    FAIL("no error");
  } catch (const ShapeError& e) {
    const std::string message = e.what();
    CHECK(message.find("cholesky_solve") != std::string::npos);
    CHECK(message.find("[2, 3, 3] float64") != std::string::npos);
    CHECK(message.find("[3, 3, 2] float64") != std::string::npos);
  }
  // cholesky_inverse of a singular factor: torch's LinAlgError "The diagonal element 1 is
  // zero"; cholesky_solve gives infinities (as torch's).
  const Tensor singular = f64({0, 0, 1, 2}, {2, 2});
  try {
    cholesky_inverse(singular);
    FAIL("no error");
  } catch (const ValueError& e) {
    CHECK(std::string(e.what()).find("diagonal element 1 of L is zero") != std::string::npos);
  }
  CHECK(!all(isfinite(cholesky_solve(f64({1, 1}, {2, 1}), singular))).item<bool>());
}

TEST_CASE("cholesky and triangular solves: gradients", "[linalg][autograd]") {
  // torch: cholesky(A).backward(G), G = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]: a symmetric grad.
  const Tensor a = f64({4, 2, -2, 2, 10, 4, -2, 4, 9}, {3, 3});
  const Tensor g = arange(9, kFloat64).reshape({3, 3}) + 1.0;
  Tensor x = a.clone().requires_grad_(true);
  linalg_cholesky(x).backward(g);
  check_near(x.grad(),
             {1.172712245380954, 0.7694912532993188, 2.6149157440612263, 0.7694912532993188,
              0.7003633905004865, 0.23934589709912438, 2.6149157440612263, 0.2393458970991243,
              1.9691773852215764},
             1e-10);
  x = a.clone().requires_grad_(true);
  linalg_cholesky(x, true).backward(g);
  check_near(x.grad(),
             {1.1356752083439166, 0.0102319940400597, 1.7815824107278926, 0.010231994040059755,
              0.8855485756856716, -0.09398743623420892, 1.7815824107278928, -0.09398743623420902,
              1.9691773852215764},
             1e-10);
  // torch: solve_triangular(T, B, upper=True).backward([[1, -1], [2, 0.5], [0, 3]]).
  const Tensor t = f64({2, 7, -1, 3, -4, 5, 1, 6, 0.5}, {3, 3});
  Tensor ta = t.clone().requires_grad_(true);
  Tensor tb = f64({1, 2, 3, 4, 5, 6}, {3, 2}).requires_grad_(true);
  linalg_solve_triangular(ta, tb, true).backward(f64({1, -1, 2, 0.5, 0, 3}, {3, 2}));
  check_near(ta.grad(), {-3.1875, 1.125, 1, 0, 9.59375, 8.25, 0, 0, -152.5});
  check_near(tb.grad(), {0.5, -0.5, 0.375, -1, -2.75, 15});
  // ... and from the right, lower, unit: no gradient on the diagonal.
  ta = t.clone().requires_grad_(true);
  tb = f64({1, 3, 5, 2, 4, 6}, {2, 3}).requires_grad_(true);
  linalg_solve_triangular(ta, tb, false, false, true).backward(f64({1, -1, 2, 0.5, 0, 3}, {2, 3}));
  check_near(ta.grad(), {0, 0, 0, 43, 0, 0, -8, 29, 0});
  check_near(tb.grad(), {1, -4, 25, 0.5, -1.5, 11.5});
  // gradcheck: the factor of a symmetrised input (the op reads one triangle, so finite
  // differences must move both), every solve flag, cholesky_solve and cholesky_inverse, batched.
  manual_seed(31);
  auto factor_fn = [](const std::vector<Tensor>& in) {
    const Tensor s = matmul(in[0], in[0].transpose(-2, -1)) + eye(4, kFloat64);
    return linalg_cholesky(s) + linalg_cholesky(s, true) * 0.5;
  };
  CHECK(autograd::gradcheck(factor_fn, {randn({2, 4, 4}, kFloat64).requires_grad_(true)}) == "");
  for (bool upper : {false, true}) {
    for (bool left : {false, true}) {
      for (bool unit : {false, true}) {
        INFO((upper ? "upper" : "lower") << (left ? " left" : " right") << (unit ? " unit" : ""));
        auto fn = [=](const std::vector<Tensor>& in) {
          return linalg_solve_triangular(in[0], in[1], upper, left, unit);
        };
        std::vector<Tensor> inputs{
            (randn({2, 3, 3}, kFloat64) * 0.3 + eye(3, kFloat64) * 2.0).requires_grad_(true),
            randn(left ? Shape{3, 2} : Shape{2, 3}, kFloat64).requires_grad_(true)};
        CHECK(autograd::gradcheck(fn, inputs) == "");
      }
    }
  }
  auto solve_fn = [](const std::vector<Tensor>& in) {
    const Tensor l = tril(in[0], -1) + eye(3, kFloat64) * 2.0;
    return cholesky_solve(in[1], l) + cholesky_inverse(l.transpose(-2, -1), true).sum(-1, true);
  };
  CHECK(autograd::gradcheck(solve_fn, {randn({3, 3}, kFloat64).requires_grad_(true),
                                       randn({3, 2}, kFloat64).requires_grad_(true)}) == "");
}

// The op sweep's case for cholesky_factor, triangular_solve, linalg_cholesky and
// linalg_solve_triangular: empty, single and batched matrices, contiguous and transposed,
// float32 and float64, 200 x 200 through the blocked kernels; residuals as the LU's.
void sweep_cholesky(OpId op) {
  manual_seed(37);
  const std::vector<Shape> shapes = {{0, 0},       {1, 1},       {4, 4},   {3, 6, 6},
                                     {2, 0, 3, 3}, {2, 3, 0, 0}, {64, 64}, {200, 200}};
  const bool factor = op == OpId::cholesky_factor || op == OpId::linalg_cholesky;
  for (Dtype dtype : {kFloat32, kFloat64}) {
    const double eps = dtype == kFloat32 ? 1.2e-7 : 2.3e-16;
    for (const Shape& shape : shapes) {
      for (bool transposed : {false, true}) {
        INFO(dtype_name(dtype) << " " << shape << (transposed ? " transposed" : ""));
        const int64_t n = shape[shape.size() - 1];
        const Tensor base = spd(shape, dtype);
        if (factor) {
          const Tensor a =
              transposed ? base.transpose(-2, -1).contiguous().transpose(-2, -1) : base;
          const auto [l, info] = linalg_cholesky_ex(a);
          CHECK(l.sizes() == a.sizes());
          Shape batch = shape;
          batch.erase(batch.size() - 1);
          batch.erase(batch.size() - 1);
          CHECK(info.sizes() == batch);
          if (info.numel() > 0) CHECK(max_abs(info) == 0);
          CHECK(factor_residual(a, l) < 20 * eps * std::sqrt(static_cast<double>(n) + 1));
          continue;
        }
        const Tensor l = linalg_cholesky(base);
        const Tensor a = transposed ? l.transpose(-2, -1) : l;  // upper when transposed
        Shape rhs_shape = shape;
        rhs_shape[rhs_shape.size() - 1] = 3;
        const Tensor b = randn(rhs_shape, dtype);
        const Tensor x = linalg_solve_triangular(a, b, transposed);
        CHECK(x.sizes() == b.sizes());
        if (x.numel() == 0) continue;
        // |A X - B| <= 30 n eps (|A| |X| + |B|): backward stable.
        const Tensor a64 = a.to(kFloat64), x64 = x.to(kFloat64), b64 = b.to(kFloat64);
        CHECK(max_abs(matmul(a64, x64) - b64) <=
              30 * static_cast<double>(n) * eps * (max_abs(a64) * max_abs(x64) + max_abs(b64)));
      }
    }
  }
}
