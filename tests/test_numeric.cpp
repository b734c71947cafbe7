// test_numeric.cpp: the functions of wick/ops_numeric.hpp against python3-torch 1.13's values
// (in the comments, float32 unless said), with gradients where they are differentiable.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>
#include <wick/wick.hpp>

using namespace wick;

namespace {
std::vector<double> doubles(const Tensor& t) {
  return t.to(kFloat64).contiguous().to_vector<double>();
}
void check_near(const Tensor& got, const std::vector<double>& want, double tol = 1e-4) {
  const std::vector<double> values = doubles(got);
  REQUIRE(values.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i << ": " << values[i] << " against " << want[i]);
    if (std::isnan(want[i])) {
      CHECK(std::isnan(values[i]));
    } else if (std::isinf(want[i])) {
      CHECK(values[i] == want[i]);
    } else {
      CHECK(std::abs(values[i] - want[i]) <= tol * std::max(1.0, std::abs(want[i])));
    }
  }
}
const double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("cov and corrcoef as torch's", "[numeric]") {
  const Tensor m = tensor({0.0f, 1.0f, 2.0f, 2.0f, 1.0f, 0.5f}).view({2, 3});
  // torch.cov(m) = [[1, -0.75], [-0.75, 0.5833]]; correction=0: [[0.6667, -0.5], [-0.5, 0.3889]];
  // fweights [1, 2, 1], aweights [0.5, 1, 2]: [[0.6429, -0.4286], [-0.4286, 0.3036]];
  // corrcoef(m): [[1, -0.9820], [-0.9820, 1]].
  check_near(cov(m), {1, -0.75, -0.75, 0.583333});
  check_near(cov(m, 0), {0.666667, -0.5, -0.5, 0.388889});
  check_near(cov(m, 1, tensor({1, 2, 1}), tensor({0.5f, 1.0f, 2.0f})),
             {0.642857, -0.428571, -0.428571, 0.303571});
  check_near(cov(m, 1, tensor({1, 2, 1})), {0.666667, -0.5, -0.5, 0.395833});  // fweights only
  check_near(corrcoef(m), {1, -0.981981, -0.981981, 1});
  // 1-D int64: a 0-d float32 (torch.cov(tensor([1, 2, 4])) = 2.3333).
  const Tensor one = cov(tensor({1, 2, 4}));
  CHECK(one.dim() == 0);
  CHECK(one.dtype() == kFloat32);
  check_near(one, {2.333333});
  // No degrees of freedom left: inf (torch warns and divides by 0).
  check_near(cov(tensor({1.0f, 2.0f, 3.0f}).view({1, 3}), 3), {kInf});
  CHECK_THROWS_AS(cov(ones({2, 2, 2})), ShapeError);
  CHECK_THROWS_AS(cov(m, 1, tensor({1, 2})), ShapeError);
  CHECK_THROWS_AS(cov(m, 1, tensor({1, -2, 1})), ValueError);
  CHECK_THROWS_AS(cov(m, 1, ones({3})), DtypeError);
  CHECK_THROWS_AS(cov(m, 1, std::nullopt, tensor({1, 2, 1})), DtypeError);
  // The gradient flows (cov is a product of centred rows).
  Tensor x = tensor({0.0, 1.0, 2.0, 2.0, 1.0, 0.5}).to(kFloat64).view({2, 3}).requires_grad_(true);
  cov(x).sum().backward();
  CHECK(x.grad().defined());
}

TEST_CASE("angles, sinc, float_power, logaddexp2, ldexp as torch's", "[numeric]") {
  check_near(deg2rad(tensor({180})), {3.141593});
  CHECK(deg2rad(tensor({180})).dtype() == kFloat32);
  check_near(tensor({3.14159265f}).rad2deg(), {180.0});
  // sinc([0, 0.5, 1]) = [1, 0.63662, -2.7828e-08] (float32's sin(pi) over pi).
  const std::vector<double> s = doubles(sinc(tensor({0.0f, 0.5f, 1.0f})));
  CHECK(s[0] == 1.0);
  CHECK(s[1] == Approx(0.63662).epsilon(1e-5));
  CHECK(std::abs(s[2] - -2.7828e-08) < 1e-10);
  // The gradient of sinc at 0 is 0, not NaN.
  Tensor z = zeros({1}, kFloat64).requires_grad_(true);
  sinc(z).sum().backward();
  CHECK(doubles(z.grad()) == std::vector<double>{0});
  // float_power(tensor([2]), 3) = 8 float64; of float32 tensors: float64.
  CHECK(float_power(tensor({2}), 3).dtype() == kFloat64);
  check_near(float_power(tensor({2}), 3), {8});
  CHECK(tensor({2.0f}).float_power(tensor({0.5f})).dtype() == kFloat64);
  check_near(float_power(2, tensor({0.5f})), {std::sqrt(2.0)}, 1e-15);
  // logaddexp2([1, 1000], [1, 1000]) = [2, 1001]; of -inf and -inf: -inf.
  check_near(logaddexp2(tensor({1.0f, 1000.0f, -2.0f}), tensor({1.0f, 1000.0f, 3.0f})),
             {2, 1001, std::log2(std::exp2(-2.0) + 8.0)});
  check_near(logaddexp2(full({1}, -kInf), full({1}, -kInf)), {-kInf});
  CHECK_THROWS_AS(logaddexp2(tensor({1}), tensor({2})), DtypeError);
  // ldexp([1.], [3]) = [8.]; of int64 operands: float32.
  check_near(ldexp(tensor({1.0f, -1.5f}), tensor({3, -1})), {8, -0.75});
  CHECK(ldexp(tensor({1}), tensor({3})).dtype() == kFloat32);
}

TEST_CASE("isposinf, isneginf, isreal, msort, dist, vdot, clip, addmv, addr", "[numeric]") {
  const Tensor v = tensor({kInf, -kInf, 1.0}).to(kFloat64);
  CHECK(doubles(isposinf(v)) == std::vector<double>{1, 0, 0});
  CHECK(doubles(v.isneginf()) == std::vector<double>{0, 1, 0});
  CHECK(doubles(isposinf(tensor({1, 2}))) == std::vector<double>{0, 0});
  CHECK(doubles(isreal(tensor({1, 2}))) == std::vector<double>{1, 1});
  // msort([[3, 1], [1, 2]]) = [[1, 1], [3, 2]].
  CHECK(doubles(msort(tensor({3, 1, 1, 2}).view({2, 2}))) == std::vector<double>{1, 1, 3, 2});
  // dist([1, 2], [4, 6]) = 5; vdot([1, 2], [3, 4]) = 11.
  check_near(dist(tensor({1.0f, 2.0f}), tensor({4.0f, 6.0f})), {5});
  check_near(dist(tensor({1.0f, 2.0f}), tensor({4.0f, 6.0f}), 1), {7});
  check_near(vdot(tensor({1.0f, 2.0f}), tensor({3.0f, 4.0f})), {11});
  check_near(clip(tensor({-2.0f, 0.5f, 3.0f}), -1, 1), {-1, 0.5, 1});
  // addmv([1, 1], ones(2, 3), [1, 2, 3], beta=2, alpha=0.5) = [5, 5];
  // addr(zeros(2, 2), [1, 2], [3, 4]) = [[3, 4], [6, 8]].
  check_near(addmv(tensor({1.0f, 1.0f}), ones({2, 3}), tensor({1.0f, 2.0f, 3.0f}), 2, 0.5), {5, 5});
  check_near(addr(zeros({2, 2}), tensor({1.0f, 2.0f}), tensor({3.0f, 4.0f})), {3, 4, 6, 8});
  check_near(addmv(full({}, std::nan("")), ones({2, 3}), ones({3}), 0), {3, 3});  // beta 0
  CHECK_THROWS_AS(addmv(zeros({2}), ones({2, 3}), ones({2})), ShapeError);
  CHECK_THROWS_AS(addr(zeros({2, 2}), ones({2, 1}), ones({2})), ShapeError);
}

TEST_CASE("trapezoid, cumulative_trapezoid and aminmax as torch's", "[numeric]") {
  const Tensor y = tensor({1.0f, 2.0f, 3.0f});
  // trapezoid(y) = 4, dx=2: 8, x = [0, 1, 3]: 6.5; cumulative: [1.5, 4]; of int64 [1, 2, 3]: 4.
  check_near(trapezoid(y), {4});
  check_near(trapezoid(y, 2.0), {8});
  check_near(trapezoid(y, tensor({0.0f, 1.0f, 3.0f})), {6.5});
  check_near(cumulative_trapezoid(y), {1.5, 4});
  check_near(trapezoid(tensor({1, 2, 3})), {4});
  CHECK(trapezoid(tensor({1, 2, 3})).dtype() == kFloat32);
  // Along the last dim of [2, 3] with a 1-D x: [3, 3]; of [2, 0]: [0, 0];
  // cumulative with x of y's shape, [[1, 2, 4]] and [[0, 1, 3]]: [[1.5, 7.5]].
  check_near(trapezoid(ones({2, 3}), tensor({0.0f, 1.0f, 3.0f})), {3, 3});
  check_near(trapezoid(zeros({2, 0})), {0, 0});
  check_near(cumulative_trapezoid(tensor({1.0f, 2.0f, 4.0f}).view({1, 3}),
                                  tensor({0.0f, 1.0f, 3.0f}).view({1, 3})),
             {1.5, 7.5});
  check_near(trapezoid(tensor({1.0f, 2.0f, 3.0f, 4.0f}).view({2, 2}), 1.0, 0), {2, 3});
  CHECK_THROWS_AS(trapezoid(y, tensor({0.0f, 1.0f})), ShapeError);
  CHECK_THROWS_AS(trapezoid(ones({})), ShapeError);
  // aminmax([[1, 5], [3, nan]], dim=1) = ([1, nan], [5, nan]); of [2, 7, 1]: (1, 7).
  const double nan = std::nan("");
  auto [lo, hi] = aminmax(tensor({1.0, 5.0, 3.0, nan}).to(kFloat64).view({2, 2}), 1);
  check_near(lo, {1, nan});
  check_near(hi, {5, nan});
  auto [mn, mx] = tensor({2, 7, 1}).aminmax();
  CHECK(mn.dim() == 0);
  CHECK(mn.item<int64_t>() == 1);
  CHECK(mx.item<int64_t>() == 7);
  auto [kl, kh] = aminmax(ones({2, 3}), 0, true);
  CHECK(kl.sizes() == Shape{1, 3});
  CHECK(kh.sizes() == Shape{1, 3});
}
