// test_binary_math.cpp: atan2, hypot, fmod and remainder at their edges (signs, zeros,
// infinities, NaN, integer overflow), their dtypes and errors, the number and in-place forms
// and a broadcast gradient: python3-torch 1.13's values in the comments. The op sweeps
// (test_op_sweep.cpp, tests/cuda/test_ops.cpp) and gradcheck (grad_cases.hpp) cover the rest.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>
#include <wick/wick.hpp>

using namespace wick;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> doubles(const Tensor& t) {
  return t.contiguous().to(kFloat64).to_vector<double>();
}
// Bit-equal, NaN matching NaN, and the signs of zeros compared.
bool identical(const std::vector<double>& got, const std::vector<double>& want) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]) && std::isnan(got[i])) continue;
    if (got[i] != want[i] || std::signbit(got[i]) != std::signbit(want[i])) return false;
  }
  return true;
}
Tensor f64(const std::vector<double>& v) { return tensor(v, {static_cast<int64_t>(v.size())}); }

}  // namespace

TEST_CASE("fmod takes the dividend's sign, remainder the divisor's", "[binary_math]") {
  const Tensor a = f64({5.5, -5.5, 5.5, -5.5, 0.0, -0.0, kInf, 3.0, kNan, 1e-30});
  const Tensor b = f64({2.0, 2.0, -2.0, -2.0, 3.0, -3.0, 2.0, kInf, 1.0, -1.0});
  // torch.fmod(a, b): [1.5, -1.5, 1.5, -1.5, 0, -0, nan, 3, nan, 1e-30]
  CHECK(identical(doubles(fmod(a, b)), {1.5, -1.5, 1.5, -1.5, 0.0, -0.0, kNan, 3.0, kNan, 1e-30}));
  // torch.remainder(a, b): [1.5, 0.5, -0.5, -1.5, 0, -0, nan, 3, nan, -1]
  CHECK(identical(doubles(remainder(a, b)),
                  {1.5, 0.5, -0.5, -1.5, 0.0, -0.0, kNan, 3.0, kNan, -1.0}));
  CHECK(identical(doubles(a.fmod(b)), doubles(fmod(a, b))));
  CHECK(identical(doubles(a.remainder(b)), doubles(remainder(a, b))));
  // A floating zero divisor gives NaN.
  CHECK(std::isnan(fmod(f64({5.0}), 0.0).item<double>()));
  CHECK(std::isnan(remainder(f64({5.0}), 0.0).item<double>()));
  // float32 remainder adds b after fmod, rounded: remainder([-1e-20, 1e-20, -3], 1.0) is
  // [1.0, 9.999999682655225e-21, -0.0].
  const Tensor small = tensor({-1e-20, 1e-20, -3.0}, kFloat32);
  CHECK(identical(doubles(remainder(small, 1.0)), {1.0, 9.999999682655225e-21, -0.0}));
}

TEST_CASE("integer fmod and remainder: exact, with zero divisors refused", "[binary_math]") {
  const Tensor a = tensor(std::vector<int64_t>{7, -7, 7, -7, 0, INT64_MAX});
  const Tensor b = tensor(std::vector<int64_t>{3, 3, -3, -3, 5, 2});
  // torch: fmod [1, -1, 1, -1, 0, 1], remainder [1, 2, -2, -1, 0, 1]
  CHECK(fmod(a, b).dtype() == kInt64);
  CHECK(fmod(a, b).to_vector<int64_t>() == std::vector<int64_t>{1, -1, 1, -1, 0, 1});
  CHECK(remainder(a, b).to_vector<int64_t>() == std::vector<int64_t>{1, 2, -2, -1, 0, 1});
  // INT64_MIN % -1 overflows in C++ (and kills PyTorch 1.13 with SIGFPE); here it is 0.
  const Tensor lowest = tensor(std::vector<int64_t>{INT64_MIN, 9});
  CHECK(fmod(lowest, -1).to_vector<int64_t>() == std::vector<int64_t>{0, 0});
  CHECK(remainder(lowest, -1).to_vector<int64_t>() == std::vector<int64_t>{0, 0});
  // remainder(5, [3, -3, 2]) is [2, -1, 1]; a floating number makes float32:
  // remainder(5.5, [3, -3]) [2.5, -0.5], fmod([5, -5], 2.5) [0, -0].
  CHECK(remainder(Scalar(5), tensor(std::vector<int64_t>{3, -3, 2})).to_vector<int64_t>() ==
        std::vector<int64_t>{2, -1, 1});
  const Tensor mixed = remainder(Scalar(5.5), tensor(std::vector<int64_t>{3, -3}));
  CHECK(mixed.dtype() == kFloat32);
  CHECK(doubles(mixed) == std::vector<double>{2.5, -0.5});
  CHECK(identical(doubles(fmod(tensor(std::vector<int64_t>{5, -5}), 2.5)), {0.0, -0.0}));
  // Zero divisors: torch raises ZeroDivisionError; here a ValueError naming the op, for a tensor
  // divisor (found by a scan), a number, and a bool divisor holding false.
  try {
    (void)fmod(a, tensor(std::vector<int64_t>{1, 2, 0, 4, 5, 6}));
    FAIL("no error");
  } catch (const ValueError& e) {
    CHECK_THAT(e.what(), Catch::Contains("fmod") && Catch::Contains("division by zero"));
  }
  CHECK_THROWS_AS(remainder(a, 0), ValueError);
  CHECK_THROWS_AS(remainder(Scalar(3), tensor(std::vector<int64_t>{1, 0})), ValueError);
  CHECK_THROWS_AS(fmod(a, tensor(std::vector<bool>{true, false, true, true, true, true})),
                  ValueError);
  // Shapes are checked before the divisor is scanned.
  CHECK_THROWS_AS(fmod(a, tensor(std::vector<int64_t>{0, 0})), ShapeError);
  // bool operands are refused (torch: "fmod_cpu" not implemented for 'Bool').
  const Tensor flags = tensor(std::vector<bool>{true, false});
  CHECK_THROWS_AS(fmod(flags, flags), DtypeError);
  CHECK_THROWS_AS(remainder(flags, flags), DtypeError);
}

TEST_CASE("div with rounding_mode and floor_divide: PyTorch 1.13's values", "[binary_math]") {
  // torch: a // b and div(a, b, rounding_mode='trunc') of float32: 1 // 0.1 is 9 (0.1f is above
  // 1/10) but trunc(1 / 0.1) is 10 (the quotient rounds to 10 first).
  const Tensor a = tensor({1.0f, -1.0f, 7.5f, -7.5f, 0.3f, -0.3f, 1e10f, 5.0f});
  const Tensor b = tensor({0.1f, 0.1f, 2.0f, 2.0f, 0.1f, 0.1f, 3.0f, -0.5f});
  CHECK(floor_divide(a, b).to_vector<float>() ==
        std::vector<float>{9, -10, 3, -4, 3, -4, 3333333248.0f, -10});
  CHECK(div(a, b, "floor").to_vector<float>() == floor_divide(a, b).to_vector<float>());
  CHECK(a.div(b, "trunc").to_vector<float>() ==
        std::vector<float>{10, -10, 3, -3, 3, -3, 3333333248.0f, -10});
  // Signed zeros, infinite divisors and zero divisors: torch [-0, -0, 0, -1] and [inf, -inf, nan].
  CHECK(identical(doubles(floor_divide(tensor({-0.0, 0.0, 1.0, -1.0}).to(kFloat64),
                                       tensor({5.0, -5.0, INFINITY, INFINITY}).to(kFloat64))),
                  {-0.0, -0.0, 0.0, -1.0}));
  const std::vector<double> by_zero = doubles(floor_divide(tensor({1.0, -1.0, 0.0}), 0.0));
  CHECK(by_zero[0] == INFINITY);
  CHECK(by_zero[1] == -INFINITY);
  CHECK(std::isnan(by_zero[2]));
  // int64 stays int64, exact: torch [3, -4, -4, 3, 0, -3074457345618258603, -INT64_MAX] and
  // trunc [3, -3, -3, 3, 0, -3074457345618258602, -INT64_MAX]; INT64_MIN // -1 wraps to itself
  // (PyTorch 1.13 dies of SIGFPE there).
  const Tensor ai = tensor(std::vector<int64_t>{7, -7, 7, -7, 0, INT64_MIN, INT64_MAX});
  const Tensor bi = tensor(std::vector<int64_t>{2, 2, -2, -2, 5, 3, -1});
  CHECK(floor_divide(ai, bi).dtype() == kInt64);
  CHECK(floor_divide(ai, bi).to_vector<int64_t>() ==
        std::vector<int64_t>{3, -4, -4, 3, 0, -3074457345618258603, -INT64_MAX});
  CHECK(div(ai, bi, "trunc").to_vector<int64_t>() ==
        std::vector<int64_t>{3, -3, -3, 3, 0, -3074457345618258602, -INT64_MAX});
  CHECK(floor_divide(tensor(std::vector<int64_t>{INT64_MIN}), -1).to_vector<int64_t>() ==
        std::vector<int64_t>{INT64_MIN});
  // A floating number makes float32 (torch: tensor([5]) // 2.5 is tensor([2.])).
  const Tensor mixed = floor_divide(tensor(std::vector<int64_t>{5}), 2.5);
  CHECK(mixed.dtype() == kFloat32);
  CHECK(mixed.item<float>() == 2.0f);
  // Errors: a zero integer divisor, bool, an unknown mode; the engine goes on.
  CHECK_THROWS_WITH(floor_divide(ai, 0),
                    Catch::Contains("floor_divide") && Catch::Contains("division by zero"));
  CHECK_THROWS_AS(div(ai, tensor(std::vector<int64_t>{1, 1, 1, 0, 1, 1, 1}), "trunc"), ValueError);
  const Tensor flags = tensor(std::vector<bool>{true, false});
  CHECK_THROWS_AS(floor_divide(flags, flags), DtypeError);
  CHECK_THROWS_WITH(div(a, b, "round"), Catch::Contains("div") && Catch::Contains("\"round\""));
  CHECK_THROWS_AS(div(a, b, "round"), ValueError);
  // In place, and the gradient: zero for both operands (torch's div with a rounding mode).
  Tensor t = tensor({7.0f, -7.0f});
  t.floor_divide_(2);
  t.div_(tensor({-2.0f, -2.0f}), "trunc");
  CHECK(t.to_vector<float>() == std::vector<float>{-1, 2});
  const Tensor x = tensor({3.0, -5.0}).to(kFloat64).requires_grad_();
  const Tensor y = tensor({2.0, 2.0}).to(kFloat64).requires_grad_();
  (x.div(y, "floor") * 3 + floor_divide(x, 2)).sum().backward();
  CHECK(doubles(x.grad()) == std::vector<double>{0, 0});
  CHECK(doubles(y.grad()) == std::vector<double>{0, 0});
}

TEST_CASE("copysign and signbit: sign bits, -0 and NaN included", "[binary_math]") {
  // torch: copysign([1, -2, 0, 3, nan, -0.], [-1, 1, -0., nan, -1, 2]) is
  // [-1, 2, -0., 3, -nan, 0.] and its signbit [T, F, T, F, T, F].
  const Tensor a = tensor({1.0f, -2.0f, 0.0f, 3.0f, NAN, -0.0f});
  const Tensor b = tensor({-1.0f, 1.0f, -0.0f, NAN, -1.0f, 2.0f});
  const Tensor c = copysign(a, b);
  CHECK(identical(doubles(c), {-1.0, 2.0, -0.0, 3.0, -NAN, 0.0}));
  CHECK(c.signbit().to_vector<bool>() == std::vector<bool>{true, false, true, false, true, false});
  // torch: signbit([1, -0., 0, -nan, nan, -3]) [F, T, F, T, F, T]; of int64 [-1, 0, 2]
  // [T, F, F]; of bool False. Integers give float32: copysign([1, 2], -1) [-1., -2.].
  CHECK(signbit(tensor({1.0f, -0.0f, 0.0f, -NAN, NAN, -3.0f})).to_vector<bool>() ==
        std::vector<bool>{false, true, false, true, false, true});
  CHECK(signbit(tensor({-1, 0, 2})).to_vector<bool>() == std::vector<bool>{true, false, false});
  CHECK(signbit(tensor({true})).to_vector<bool>() == std::vector<bool>{false});
  const Tensor ints = copysign(tensor({1, 2}), -1);
  CHECK(ints.dtype() == kFloat32);
  CHECK(ints.to_vector<float>() == std::vector<float>{-1, -2});
  CHECK(copysign(tensor({1.0f}), tensor({-1.0}).to(kFloat64)).dtype() == kFloat64);
  Tensor t = tensor({2.0f, -3.0f});
  t.copysign_(-1.0);
  CHECK(t.to_vector<float>() == std::vector<float>{-2, -3});
  // The gradient (torch: x.grad [-1, 1, 0], y.grad [0, 0, 0] for y = -1 everywhere).
  const Tensor x = tensor({2.0, -3.0, 0.0}).to(kFloat64).requires_grad_();
  const Tensor y = full({3}, -1.0, kFloat64).requires_grad_();
  copysign(x, y).sum().backward();
  CHECK(doubles(x.grad()) == std::vector<double>{-1, 1, 0});
  CHECK(doubles(y.grad()) == std::vector<double>{0, 0, 0});
}

TEST_CASE("atan2 picks the quadrant from both signs", "[binary_math]") {
  const Tensor y = f64({0.0, -0.0, 0.0, -0.0, 1.0, -1.0, kInf, kInf, -kInf, 1.0, kNan});
  const Tensor x = f64({0.0, 0.0, -0.0, -0.0, 0.0, 0.0, kInf, -kInf, kInf, -kInf, 1.0});
  const double pi = 3.141592653589793;
  // torch.atan2(y, x)
  CHECK(identical(doubles(atan2(y, x)), {0.0, -0.0, pi, -pi, pi / 2, -pi / 2, 0.7853981633974483,
                                         2.356194490192345, -0.7853981633974483, pi, kNan}));
  CHECK(identical(doubles(y.atan2(x)), doubles(atan2(y, x))));
  // Integers and bool give float32: atan2([1, 2], [3, -4]) is [0.32175055146217346,
  // 2.677945137023926]; atan2(True, True) 0.7854.
  const Tensor ints =
      atan2(tensor(std::vector<int64_t>{1, 2}), tensor(std::vector<int64_t>{3, -4}));
  CHECK(ints.dtype() == kFloat32);
  CHECK(doubles(ints) == std::vector<double>{0.32175055146217346, 2.677945137023926});
  const Tensor t = tensor(std::vector<bool>{true});
  CHECK(atan2(t, t).item<float>() == static_cast<float>(pi / 4));
}

TEST_CASE("hypot neither overflows nor underflows in between", "[binary_math]") {
  const Tensor a = f64({3.0, 1e200, 1e-200, kInf, kNan, -5.0});
  const Tensor b = f64({4.0, 1e200, 1e-200, kNan, kInf, 12.0});
  // torch.hypot: [5, 1.414213562373095e+200, 1.414213562373095e-200, inf, inf, 13]
  CHECK(identical(doubles(hypot(a, b)),
                  {5.0, 1.414213562373095e+200, 1.414213562373095e-200, kInf, kInf, 13.0}));
  // float32: [2.8284270461785455e+38, 5.000000015855384e-30] (the squares overflow and
  // underflow float32).
  const Tensor f = tensor({2e38, 3e-30}, kFloat32), g = tensor({2e38, 4e-30}, kFloat32);
  CHECK(doubles(f.hypot(g)) == std::vector<double>{2.8284270461785455e+38, 5.000000015855384e-30});
  // Floating operands only (torch: "hypot_cpu" not implemented for 'Long').
  const Tensor ints = tensor(std::vector<int64_t>{3, 4});
  CHECK_THROWS_AS(hypot(ints, ints), DtypeError);
  CHECK(hypot(tensor({1.5}, kFloat32), tensor(std::vector<int64_t>{2})).item<float>() == 2.5f);
}

TEST_CASE("bfloat16 computes in float32 and rounds once", "[binary_math]") {
  const Tensor a = tensor({5.5, -2.25}, kBFloat16);
  // torch bfloat16: remainder(a, 2) [1.5, 1.75], atan2(a, [1, -3]) [1.390625, -2.5],
  // hypot(a, [1, -3]) [5.59375, 3.75]
  CHECK(doubles(remainder(a, tensor({2.0, 2.0}, kBFloat16))) == std::vector<double>{1.5, 1.75});
  const Tensor c = tensor({1.0, -3.0}, kBFloat16);
  CHECK(doubles(atan2(a, c)) == std::vector<double>{1.390625, -2.5});
  CHECK(doubles(hypot(a, c)) == std::vector<double>{5.59375, 3.75});
}

TEST_CASE("in-place fmod_, remainder_, atan2_, hypot_", "[binary_math]") {
  Tensor t = tensor({5.0, 7.0}, kFloat32);
  t.remainder_(tensor({-3.0, 2.0}, kFloat32));  // torch: [-1, 1]
  CHECK(doubles(t) == std::vector<double>{-1.0, 1.0});
  t.fmod_(0.75);  // fmod([-1, 1], 0.75) [-0.25, 0.25]
  CHECK(doubles(t) == std::vector<double>{-0.25, 0.25});
  t.atan2_(tensor({0.25}, kFloat32));
  CHECK(doubles(t) == doubles(atan2(tensor({-0.25, 0.25}, kFloat32), tensor({0.25}, kFloat32))));
  Tensor h = tensor({3.0, 5.0}, kFloat32);
  h.hypot_(tensor({4.0, 12.0}, kFloat32));
  CHECK(doubles(h) == std::vector<double>{5.0, 13.0});
  // An integer tensor can't hold a float result (torch: "result type Float can't be cast to the
  // desired output type Long"), nor an atan2 one; the failed call leaves it as it was.
  Tensor i = tensor(std::vector<int64_t>{5, 7});
  CHECK_THROWS_AS(i.fmod_(2.5), DtypeError);
  CHECK_THROWS_AS(i.atan2_(i), DtypeError);
  CHECK_THROWS_AS(i.remainder_(0), ValueError);
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{5, 7});
  i.remainder_(-3);
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{-1, -2});
  // A broadcast that doesn't fit self is a ShapeError.
  Tensor row = tensor({1.0, 2.0}, kFloat32);
  CHECK_THROWS_AS(row.fmod_(ones({3, 2})), ShapeError);
}

TEST_CASE("remainder's gradient: the dividend's passes, the divisor's is -g floor(a / b)",
          "[binary_math]") {
  const Tensor x = tensor(std::vector<double>{0.3, -1.2, 2.0}, {1, 3}).requires_grad_(true);
  const Tensor y = tensor(std::vector<double>{0.7, -0.4}, {2, 1}).requires_grad_(true);
  const Tensor w = tensor(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3});
  (remainder(x, y) * w).sum().backward();
  // torch: x.grad [[5, 7, 9]], y.grad [[-2], [24]]
  CHECK(doubles(x.grad()) == std::vector<double>{5.0, 7.0, 9.0});
  CHECK(doubles(y.grad()) == std::vector<double>{-2.0, 24.0});
}
