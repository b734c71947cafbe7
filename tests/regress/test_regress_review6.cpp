// test_regress_review6.cpp: gradients and values a sixth review against python3-torch 1.13
// found apart from torch's (docs/reliability.md, "Findings of a sixth review"): sinc near 0,
// logit at and outside [0, 1], xlogy's gradient of a where a == 0, remainder's gradient of b,
// cumprod over a dim of one inf, the median of an empty tensor. torch's values in the comments.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "wick/wick.hpp"

using namespace wick;

namespace {
Tensor leaf(std::vector<double> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return tensor(values, Shape{n}, kFloat64).requires_grad_(true);
}
std::vector<double> grad_of(const Tensor& x) { return x.grad().to_vector<double>(); }
void check_close(const std::vector<double>& got, const std::vector<double>& want,
                 double tol = 1e-12) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << got[i] << " against " << want[i]);
    if (std::isnan(want[i])) {
      CHECK(std::isnan(got[i]));
    } else if (std::isinf(want[i])) {
      CHECK(got[i] == want[i]);
    } else {
      CHECK(std::abs(got[i] - want[i]) <= tol * std::max(1.0, std::abs(want[i])));
    }
  }
}
}  // namespace

TEST_CASE("sinc: no cancellation in the gradient near 0", "[regress][autograd]") {
  // sin(pi x) / (pi x) differentiated as a quotient: two terms of size 1 / x that cancel, so
  // x = 1e-30 gave -5.5e13 and 1e-310 NaN. The exact gradient is -pi^2 x / 3 there (torch: 0;
  // at 1e-8, torch -6.3e-9 where the exact value is -9.87e-9 times the upstream 0.3 / 0.3).
  Tensor x = leaf({1e-30, 1e-310, 1e-8, 0.0, 0.3, 2.5, -0.1, 0.16, 1e-3});
  Tensor y = sinc(x);
  y.backward(full({9}, 0.3, kFloat64));
  const double pi2 = M_PI * M_PI;
  // torch.sinc of [0.3, 2.5, -0.1, 0.16, 1e-3] and its gradient (upstream 0.3).
  check_close(y.detach().to_vector<double>(),
              {1, 1, 1, 1, 0.8583936913341398, 0.12732395447351627, 0.983631643083466,
               0.9584184823246249, 0.999998355066745});
  check_close(grad_of(x),
              {-pi2 * 1e-30 / 3 * 0.3, -pi2 * 1e-310 / 3 * 0.3, -pi2 * 1e-8 / 3 * 0.3, 0,
               -0.27060843904166665, -0.015278874536821915, 0.09772538036493718,
               -0.15395962927642734, -0.0009869594660224454},
              1e-10);
  // float32 (torch: 0.8583937, 0.9584185, 0.9999984, 0.1273240) and bfloat16 rounded once.
  const std::vector<float> f32 =
      sinc(tensor(std::vector<float>{0.3f, 0.16f, 1e-3f, 2.5f})).to_vector<float>();
  const std::vector<float> want32 = {0.858393669f, 0.958418489f, 0.999998391f, 0.127323955f};
  for (size_t i = 0; i < f32.size(); ++i) CHECK(std::abs(f32[i] - want32[i]) <= 1.2e-7f);
  Tensor small32 = tensor(std::vector<float>{1e-20f}).requires_grad_(true);
  sinc(small32).sum().backward();
  CHECK(std::abs(small32.grad().item<float>()) < 1e-18f);  // was 6.9e12 (torch: 0)
}

TEST_CASE("logit: gradients at and outside [0, 1], and with eps", "[regress][autograd]") {
  // torch.logit(x).backward(): [inf, inf, nan, nan, nan, 4] at [0, 1, -1, 2, nan, 0.5]; with
  // eps = 1e-6: [0, 0, 0, 0, nan, 4] (0 outside the clamp, NaN kept); a negative eps clamps
  // nothing. Was: NaN at 0 and 1, -0.5 outside, 0 at NaN with eps.
  const std::vector<double> at = {0, 1, -1, 2, NAN, 0.5};
  Tensor plain = leaf(at), clamped = leaf(at), negative = leaf(at);
  logit(plain).sum().backward();
  logit(clamped, 1e-6).sum().backward();
  logit(negative, -1.0).sum().backward();
  check_close(grad_of(plain), {INFINITY, INFINITY, NAN, NAN, NAN, 4});
  check_close(grad_of(clamped), {0, 0, 0, 0, NAN, 4});
  check_close(grad_of(negative), grad_of(plain));
  // Values: log(x / (1 - x)), NaN outside; clamped to [eps, 1 - eps].
  check_close(logit(leaf(at)).detach().to_vector<double>(),
              {-INFINITY, INFINITY, NAN, NAN, NAN, 0});
  check_close(logit(leaf({0.0, 0.25}), 0.1).detach().to_vector<double>(),
              {std::log(0.1 / 0.9), std::log(0.25 / 0.75)});
}

TEST_CASE("xlogy: the gradient of a where a == 0 is log(b)", "[regress][autograd]") {
  // torch: xlogy(0, 2.5) gives a.grad log(2.5) = 0.91629 and b.grad 0 (was 0 and 0). At
  // [0, 0, 0, 0, 1] with b = [0, -1, inf, nan, 0]: values [0, 0, 0, nan, -inf], a.grad
  // [0, 0, inf, nan, -inf], b.grad [nan, -0, 0, nan, inf]; wick gives a.grad 0 at (0, inf)
  // and b.grad 0 at (0, 0), written as a composite (wick/ops.hpp).
  Tensor a = leaf({0, 0, 0, 0, 1, 0}), b = leaf({0, -1, INFINITY, NAN, 0, 2.5});
  Tensor y = xlogy(a, b);
  check_close(y.detach().to_vector<double>(), {0, 0, 0, NAN, -INFINITY, 0});
  y.sum().backward();
  check_close(grad_of(a), {0, 0, 0, NAN, -INFINITY, std::log(2.5)});
  check_close(grad_of(b), {0, 0, 0, NAN, INFINITY, 0});
}

TEST_CASE("remainder: the gradient of b takes the floor division's quotient",
          "[regress][autograd]") {
  // remainder(1, 0.1) = 0.09999999999999995 (quotient 9, as floor division gives it), but
  // floor(1 / 0.1) = 10: the gradient of b was -10 (torch -9); (2.5, 0.1): -24 (was -25).
  Tensor a = leaf({1.0, 2.5, -7, 7}), b = leaf({0.1, 0.1, 2, -2});
  remainder(a, b).sum().backward();
  check_close(grad_of(b), {-9, -24, 4, 4});
  check_close(grad_of(a), {1, 1, 1, 1});
}

TEST_CASE("cumprod over a dim of one inf or NaN: the gradient is the upstream one",
          "[regress][autograd]") {
  // torch: 1 (the line is the identity); the formula's inf / inf gave NaN.
  Tensor x = leaf({INFINITY, NAN, 3});
  cumprod(x.reshape({3, 1}), 1).backward(full({3, 1}, 2.0, kFloat64));
  check_close(grad_of(x), {2, 2, 2});
}

TEST_CASE("median of an empty tensor is recorded", "[regress][autograd]") {
  // torch: median(empty) is NaN with a grad_fn; backward gives an empty gradient.
  Tensor e = zeros({0}, kFloat64).requires_grad_(true);
  for (bool nan_aware : {false, true}) {
    Tensor m = nan_aware ? nanmedian(e) : median(e);
    CHECK(std::isnan(m.item<double>()));
    REQUIRE(m.requires_grad());
    m.backward();
    CHECK(e.grad().sizes() == Shape{0});
  }
}

TEST_CASE("logit with eps above 1/2, xlogy's +0, elu's gradient at NaN", "[regress][autograd]") {
  // Found by a review of the fixes above. torch: logit(0.2, eps=0.7) = log(0.3 / 0.7) (the
  // upper bound applied last wins), xlogy(0, 0.5) = +0.0, elu/selu/celu at NaN: gradient 1
  // (selu 1.0507), value NaN.
  CHECK(std::abs(logit(leaf({0.2}), 0.7).item<double>() - std::log(0.3 / 0.7)) < 1e-15);
  const double zero = xlogy(leaf({0.0}), leaf({0.5})).item<double>();
  CHECK((zero == 0 && !std::signbit(zero)));
  namespace F = wick::nn::functional;
  for (int which = 0; which < 3; ++which) {
    INFO("elu, selu, celu: " << which);
    Tensor x = leaf({NAN, -1.0, 2.0});
    const Tensor y = which == 0 ? F::elu(x) : which == 1 ? F::selu(x) : F::celu(x, 0.5);
    CHECK(std::isnan(y.select(0, 0).item<double>()));
    y.sum().backward();
    const double scale = which == 1 ? 1.0507009873554805 : 1.0;
    CHECK(std::abs(x.grad().select(0, 0).item<double>() - scale) < 1e-12);
  }
}
