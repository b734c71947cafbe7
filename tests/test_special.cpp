// test_special.cpp: asinh, acosh, atanh, erfc, erfinv, exp2, lgamma, digamma and polygamma
// (core/src/ops_special.cpp): python3-torch 1.13's float64 values (in the comments), known
// constants where torch 1.13 is less accurate than wick (trigamma, erfinv's tails), the poles
// and domains, dtypes, errors and gradients. The op sweep (op_specs.hpp, against
// special_reference.hpp), gradcheck (grad_cases.hpp) and the GPU sweep cover layouts and
// devices.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>
#include <wick/wick.hpp>

#include "special_reference.hpp"

using namespace wick;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> f64(const Tensor& t) { return t.to(kFloat64).contiguous().to_vector<double>(); }
Tensor doubles(std::vector<double> v) { return tensor(v).to(kFloat64); }

// A float32 result of input x against the float64 one rounded to float: equal, or one float
// ulp away for fewer than one element in 1000.
void check_float32_rounding(const Tensor& x, const Tensor& got32, const Tensor& got64) {
  const std::vector<float> got = got32.to_vector<float>();
  const std::vector<double> want = got64.to_vector<double>();
  REQUIRE(got.size() == want.size());
  int64_t off = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const float rounded = static_cast<float>(want[i]);
    if (got[i] == rounded || (std::isnan(got[i]) && std::isnan(rounded))) continue;
    ++off;
    INFO("x = " << x.select(0, static_cast<int64_t>(i)).item<float>());
    CHECK(std::nextafter(rounded, got[i]) == got[i]);
  }
  CHECK(off < static_cast<int64_t>(got.size()) / 1000);
}

// Within a few float64 ulps; infinities and NaN exactly.
void check_values(const std::vector<double>& got, const std::vector<double>& want,
                  double rtol = 4e-16) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": " << got[i] << ", expected " << want[i]);
    if (std::isnan(want[i])) {
      CHECK(std::isnan(got[i]));
    } else if (std::isinf(want[i])) {
      CHECK(got[i] == want[i]);
    } else {
      CHECK(std::fabs(got[i] - want[i]) <= rtol * std::fabs(want[i]));
    }
  }
}

}  // namespace

TEST_CASE("asinh, acosh, atanh, erfc, exp2: PyTorch's values", "[special]") {
  // Built from literals in float64: tensor({...}) of doubles would be float32.
  check_values(f64(asinh(doubles({-2.0, 0.5, 1e-300, 1e300}))),
               {-1.4436354751788103, 0.48121182505960347, 1e-300, 691.4686750787736});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  check_values(f64(acosh(doubles({1.0, 2.0, 0.5, 1e300}))),
               {0.0, 1.3169578969248166, nan, 691.4686750787736});
  check_values(f64(atanh(doubles({0.5, -0.99, 1.0, -1.0, 1.5}))),
               {0.5493061443340548, -2.6466524123622457, kInf, -kInf, nan});
  check_values(f64(erfc(doubles({-1.0, 0.5, 10.0, 30.0}))),
               {1.8427007929497148, 0.4795001221869535, 2.088487583762545e-45, 0.0});
  check_values(f64(exp2(doubles({0.5, -1074.0, 1024.0, 10.0}))),
               {1.4142135623730951, 5e-324, kInf, 1024.0});
  // float32: erfc(10) = 2.09e-45 rounds to the subnormal 2^-149 (torch 1.13's erfcf gives
  // 2^-148, 2.802596928649634e-45).
  CHECK(erfc(tensor({10.0f})).item<float>() == 0x1p-149f);
}

TEST_CASE("erfc in float32: the vectorised form against float64 rounded once", "[special]") {
  // kernels/cpu/vec_math.hpp's erfc (a fit in double): within one float ulp of float64's erfc
  // rounded to float over [-11, 11] (an exhaustive sweep of every 97th bit pattern found 70 of
  // 44 million one ulp apart, none further), the specials, and strided runs (the scalar form)
  // equal to contiguous ones (the loop).
  const Tensor x = arange(-11.0, 11.0, 1.0 / 1024, kFloat32);
  check_float32_rounding(x, erfc(x), erfc(x.to(kFloat64)));
  const std::vector<float> specials =
      erfc(tensor({0.0f, -0.0f, kInf, -kInf, 0.75f, -4.0f, 26.0f})).to_vector<float>();
  CHECK(specials == std::vector<float>{1, 1, 0, 2, 0.288844377f, 2, 0});
  CHECK(std::isnan(erfc(tensor({std::numeric_limits<float>::quiet_NaN()})).item<float>()));
  const Tensor strided = x.slice(0, 0, x.size(0), 3);
  CHECK(equal(erfc(strided), erfc(strided.contiguous())));
  // bfloat16 goes through float32 and rounds once.
  CHECK(equal(erfc(x.to(kBFloat16)), erfc(x.to(kBFloat16).to(kFloat32)).to(kBFloat16)));
}

TEST_CASE("erfinv in float32: the vectorised form against float64 rounded once", "[special]") {
  // vec_math.hpp's erfinv (Newton steps on erf and erfc in double): within one float ulp of
  // the float64 erfinv rounded (every 7th bit pattern: 1,413 of 614 million one ulp apart,
  // none further), the specials, strided runs equal to contiguous ones, and the tails up to
  // the last float below 1.
  Tensor y = arange(-1.0, 1.0, 1.0 / 4096, kFloat32);
  y = cat({y, tensor({0.99999994f, -0.99999994f, 0.9999999f, 1e-30f, -1e-38f})});
  check_float32_rounding(y, erfinv(y), erfinv(y.to(kFloat64)));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> specials = erfinv(tensor({1.0f, -1.0f, 0.0f, 0.5f})).to_vector<float>();
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(specials == std::vector<float>{inf, -inf, 0.0f, 0.476936281f});
  CHECK(std::signbit(erfinv(tensor({-0.0f})).item<float>()));
  CHECK(std::isnan(erfinv(tensor({1.5f})).item<float>()));
  CHECK(std::isnan(erfinv(tensor({nan})).item<float>()));
  const Tensor strided = y.slice(0, 0, y.size(0), 3);
  CHECK(equal(erfinv(strided), erfinv(strided.contiguous())));
}

TEST_CASE("lgamma, digamma, polygamma: values, poles, constants", "[special]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // torch.lgamma([0.5, 2.5, -2.5, 100., -0.5]); lgamma is +inf at 0 and the negative integers.
  check_values(f64(lgamma(doubles({0.5, 2.5, -2.5, 100.0, -0.5, 0.0, -1.0}))),
               {0.5723649429247001, 0.2846828704729192, -0.05624371649767405, 359.1342053695754,
                1.2655121234846454, kInf, kInf});
  // torch.digamma([2.5, -0.5, 100., 0.25]) (a few ulps apart: both round a sum of terms, and
  // psi(-0.5) = 2 - gamma - 2 log 2 + 2 cancels to 0.036; each is 1.3e-16 off); at +0
  // -inf, at -0 +inf, at -1 and -inf NaN (PyTorch's conventions).
  check_values(f64(digamma(doubles({2.5, -0.5, 100.0, 0.25, 0.0, -0.0, -1.0, -kInf, kInf}))),
               {0.7031566406452431, 0.03648997397857639, 4.600161852738088, -4.2274535333762655,
                -kInf, kInf, nan, nan, kInf},
               1e-14);
  // digamma(1) = -Euler's gamma.
  check_values(f64(digamma(doubles({1.0}))), {-std::numbers::egamma}, 1e-15);
  // trigamma: psi'(1) = pi^2 / 6, psi'(1/2) = pi^2 / 2 (torch 1.13: 1.6449340676383375 and
  // 4.934802202073678, both off by about 5e-10 relative: its series stops at B_6). Poles: +inf.
  const double pi2 = std::numbers::pi * std::numbers::pi;
  check_values(f64(polygamma(1, doubles({1.0, 0.5, 0.0, -2.0, kInf}))),
               {pi2 / 6, pi2 / 2, kInf, kInf, 0.0}, 1e-15);
  // polygamma(2, 1) = -2 zeta(3), polygamma(3, 1) = pi^4 / 15 (torch agrees to 1 ulp);
  // polygamma(0, .) is digamma.
  check_values(f64(polygamma(2, doubles({1.0}))), {-2.4041138063191885}, 1e-15);
  check_values(f64(polygamma(3, doubles({1.0}))), {pi2 * pi2 / 15}, 1e-15);
  CHECK(f64(polygamma(0, doubles({2.5}))) == f64(digamma(doubles({2.5}))));
  // Negative non-integers: against the long double reference (torch agrees to 1e-15).
  for (int n : {0, 1, 2, 3, 5}) {
    for (double x : {-2.5, -0.3, 0.001, 7.25, 31.5}) {
      INFO("polygamma(" << n << ", " << x << ")");
      check_values(f64(polygamma(n, doubles({x}))), {special_ref::polygamma(n, x)}, 1e-13);
    }
  }
}

TEST_CASE("erfinv: values, tails, domain", "[special]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // torch.erfinv([0.3, -0.5, 0.9]); +-1 give +-inf, outside [-1, 1] NaN; -0 stays -0.
  check_values(
      f64(erfinv(doubles({0.3, -0.5, 0.9, 1.0, -1.0, 1.5, -2.0}))),
      {0.2724627147267544, -0.4769362762044699, 1.1630871536766743, kInf, -kInf, nan, nan});
  CHECK(std::signbit(f64(erfinv(doubles({-0.0})))[0]));
  // The tails, where torch 1.13's Newton steps on erf lose digits: erfc(erfinv(y)) must give
  // back 1 - y. torch: erfinv(0.999999) = 3.458910737283175 (erfc of it is 5.5e-11 relative
  // off), erfinv(1 - 1e-15) = 5.676227423545448 (3.6e-3 off); float32 erfinv(1 - 2^-24) =
  // 3.8325372 where the float nearest is 3.8325069.
  for (double y : {0.999999, 1 - 1e-15, 1 - 1e-10, 0.75, -0.9999}) {
    const double x = f64(erfinv(doubles({y})))[0];
    INFO("erfinv(" << y << ") = " << x);
    CHECK(std::fabs(std::erfc(std::fabs(x)) - (1 - std::fabs(y))) <= 1e-14 * (1 - std::fabs(y)));
    check_values({x}, {special_ref::erfinv(y)}, 1e-15);
  }
  CHECK(erfinv(tensor({1.0f - 0x1p-24f})).item<float>() ==
        static_cast<float>(special_ref::erfinv(1.0 - 0x1p-24)));
  // Tiny inputs: erfinv(y) = sqrt(pi) / 2 y.
  check_values(f64(erfinv(doubles({1e-300}))), {std::sqrt(std::numbers::pi) / 2 * 1e-300});
}

TEST_CASE("special functions: dtypes and errors", "[special]") {
  // Integers and bool compute in float32 (torch: exp2([3]) is float32 8., lgamma([True]) 0.).
  CHECK(exp2(tensor({3})).dtype() == kFloat32);
  CHECK(exp2(tensor({3})).item<float>() == 8.0f);
  CHECK(lgamma(tensor({true})).item<float>() == 0.0f);
  CHECK(polygamma(1, tensor({1, 2})).dtype() == kFloat32);
  // bfloat16 stays bfloat16 (torch: digamma([1., 2.5]) in bfloat16 is [-0.578125, 0.703125]).
  const Tensor b = digamma(tensor({1.0f, 2.5f}).to(kBFloat16));
  CHECK(b.dtype() == kBFloat16);
  CHECK(b.to(kFloat32).to_vector<float>() == std::vector<float>{-0.578125f, 0.703125f});
  // Empty and 0-d.
  CHECK(erfinv(zeros({0, 3})).sizes() == Shape{0, 3});
  CHECK(std::fabs(tensor(2.0).lgamma().item<float>()) < 1e-7f);
  // polygamma's order must be >= 0 (torch: "polygamma(n, x) does not support negative n.").
  try {
    polygamma(-1, zeros({2}));
    FAIL("no error");
  } catch (const ValueError& e) {
    CHECK_THAT(e.what(), Catch::Contains("polygamma") && Catch::Contains("negative n") &&
                             Catch::Contains("float32"));
  }
  CHECK_THROWS_AS(erfinv(Tensor()), ValueError);
  CHECK_THROWS_AS(Tensor().polygamma(1), ValueError);
}

TEST_CASE("special functions: gradients", "[special][autograd]") {
  // torch: lgamma's gradient at [2.5, 0.3] is digamma there, [0.7031566406452431,
  // -3.502524222200133]; erfinv's at [0.3, -0.6], [0.9545203588405493, 1.2628624281411842];
  // polygamma(2, .)'s at [0.3, 1.5], [743.1417646550497, 1.4090910340024367].
  Tensor x = doubles({2.5, 0.3}).requires_grad_();
  lgamma(x).sum().backward();
  check_values(f64(x.grad()), {0.7031566406452431, -3.502524222200133}, 1e-15);
  Tensor y = doubles({0.3, -0.6}).requires_grad_();
  erfinv(y).sum().backward();
  check_values(f64(y.grad()), {0.9545203588405493, 1.2628624281411842}, 1e-15);
  Tensor z = doubles({0.3, 1.5}).requires_grad_();
  polygamma(2, z).sum().backward();
  check_values(f64(z.grad()), {743.1417646550497, 1.4090910340024367}, 1e-14);
  // digamma's gradient is trigamma: pi^2 / 6 at 1.
  Tensor w = doubles({1.0}).requires_grad_();
  digamma(w).sum().backward();
  check_values(f64(w.grad()), {std::numbers::pi * std::numbers::pi / 6}, 1e-15);
}
