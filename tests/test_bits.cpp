// test_bits.cpp: the bitwise ops, shifts, gcd, lcm and nextafter against python3-torch 1.13's
// values, dtypes and errors (in the comments), and where 1.13 is undefined (shift counts
// outside [0, 63]) against PyTorch 2.1's rule, which wick follows on both devices.
#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>
#include <wick/wick.hpp>

using namespace wick;

namespace {
std::vector<int64_t> ints(const Tensor& t) { return t.contiguous().to_vector<int64_t>(); }
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
}  // namespace

TEST_CASE("bitwise and, or, xor, not: values and dtypes as torch's", "[bits]") {
  const Tensor a = tensor({12, -7, 0, kMin}), b = tensor({10, 3, -1, -1});
  CHECK(ints(a & b) == std::vector<int64_t>{8, 1, 0, kMin});
  CHECK(ints(a | b) == std::vector<int64_t>{14, -5, -1, -1});
  CHECK(ints(a ^ b) == std::vector<int64_t>{6, -6, -1, ~kMin});
  CHECK(ints(~a) == std::vector<int64_t>{-13, 6, -1, ~kMin});
  CHECK(ints(bitwise_not(b)) == std::vector<int64_t>{-11, -4, 0, 0});
  // Numbers on either side; bool with bool stays bool, bool with a number is int64
  // (torch.bitwise_and(tensor([True]), 3) = tensor([1]), with True: tensor([True])).
  CHECK(ints(a & 6) == std::vector<int64_t>{4, 0, 0, 0});
  CHECK(ints(bitwise_or(1, a)) == std::vector<int64_t>{13, -7, 1, kMin + 1});
  const Tensor t = tensor({true, false, true}), f = tensor({true, true, false});
  CHECK((t & f).dtype() == kBool);
  CHECK(ints((t & f).to(kInt64)) == std::vector<int64_t>{1, 0, 0});
  CHECK(ints((t ^ f).to(kInt64)) == std::vector<int64_t>{0, 1, 1});
  CHECK(ints((~t).to(kInt64)) == std::vector<int64_t>{0, 1, 0});
  CHECK((t & true).dtype() == kBool);
  CHECK((tensor({true}) & 3).dtype() == kInt64);
  CHECK(ints(tensor({true}) & 3) == std::vector<int64_t>{1});
  CHECK((t | a.narrow(0, 0, 3)).dtype() == kInt64);
  // Broadcasting, strided operands, in place.
  const Tensor m = arange(12).view({3, 4});
  CHECK(ints(m.t() & tensor({1, 2, 4})) == ints((m & tensor({1, 2, 4}).unsqueeze(1)).t()));
  Tensor x = arange(6);
  x &= 3;
  CHECK(ints(x) == std::vector<int64_t>{0, 1, 2, 3, 0, 1});
  x |= tensor({8});
  CHECK(ints(x) == std::vector<int64_t>{8, 9, 10, 11, 8, 9});
  x ^= x;
  CHECK(ints(x) == std::vector<int64_t>{0, 0, 0, 0, 0, 0});
  Tensor flags = tensor({true, false});
  flags.bitwise_not_();
  CHECK(ints(flags.to(kInt64)) == std::vector<int64_t>{0, 1});
  // Floating operands (torch's "bitwise_and_cpu" refuses Float), numbers too;
  // an int64 result cannot go into a bool tensor in place.
  CHECK_THROWS_AS(ones({2}) & tensor({1, 2}), DtypeError);
  CHECK_THROWS_AS(a & 2.5, DtypeError);
  CHECK_THROWS_AS(~ones({2}), DtypeError);
  CHECK_THROWS_AS(flags.bitwise_and_(tensor({1, 1})), DtypeError);
  CHECK_THROWS_AS(ones({2}).bitwise_not_(), DtypeError);
  CHECK_THROWS_AS(tensor({1, 2}) & tensor({1, 2, 3}), ShapeError);
}

TEST_CASE("shifts: torch's values in range, PyTorch 2.1's rule outside it", "[bits]") {
  // torch.bitwise_left_shift([5, -5, 1, -1, 2**62, -2**63], [1, 1, 63, 63, 2, 0]) =
  // [10, -10, -2**63, -2**63, 0, -2**63]; right shift: [2, -3, 0, -1, 2**60, -2**63].
  const Tensor a = tensor({5, -5, 1, -1, int64_t{1} << 62, kMin});
  const Tensor b = tensor({1, 1, 63, 63, 2, 0});
  CHECK(ints(a << b) == std::vector<int64_t>{10, -10, kMin, kMin, 0, kMin});
  CHECK(ints(a >> b) == std::vector<int64_t>{2, -3, 0, -1, int64_t{1} << 60, kMin});
  // Counts below 0 or past 63 shift every bit out (1.13's CPU kernel took them mod 64).
  for (int64_t count : {int64_t{-1}, int64_t{64}, int64_t{1000}, kMin}) {
    INFO("count " << count);
    CHECK(ints(a << count) == std::vector<int64_t>{0, 0, 0, 0, 0, 0});
    CHECK(ints(a >> count) == std::vector<int64_t>{0, -1, 0, -1, 0, -1});
  }
  // 2 << tensor([3]) = 16 (torch); in place; a bool count counts as int64 (torch: 3 << True
  // = 6), bool shifted is refused (torch's "lshift_cpu" refuses Bool).
  CHECK(ints(bitwise_left_shift(2, tensor({3}))) == std::vector<int64_t>{16});
  CHECK(ints(bitwise_right_shift(-16, tensor({2, 70}))) == std::vector<int64_t>{-4, -1});
  CHECK(ints(tensor({3}) << tensor({true})) == std::vector<int64_t>{6});
  Tensor x = tensor({1, 2, 3});
  x <<= 4;
  CHECK(ints(x) == std::vector<int64_t>{16, 32, 48});
  x >>= tensor({1, 2, 3});
  CHECK(ints(x) == std::vector<int64_t>{8, 8, 6});
  CHECK_THROWS_AS(tensor({true}) << tensor({true}), DtypeError);
  CHECK_THROWS_AS(tensor({5}) << 1.5, DtypeError);
  CHECK_THROWS_AS(ones({2}) >> tensor({1, 1}), DtypeError);
}

TEST_CASE("gcd and lcm: torch's values, the wrapping cases included", "[bits]") {
  // torch.gcd([0, 12, -12, -2**63, -2**63, 5, 0], [0, 18, 18, 0, -2**63, -2**63, -7]) =
  // [0, 6, 6, -2**63, -2**63, -1, 7].
  const Tensor a = tensor({0, 12, -12, kMin, kMin, 5, 0});
  const Tensor b = tensor({0, 18, 18, 0, kMin, kMin, -7});
  CHECK(ints(gcd(a, b)) == std::vector<int64_t>{0, 6, 6, kMin, kMin, -1, 7});
  // torch.lcm([0, 4, -4, 2**62, -2**63, 3], [5, 6, 6, 3, 1, -2**63]) =
  // [0, 12, 12, 2**62, -2**63, -2**63]; lcm(-2**63, 5) divides INT64_MIN by -1 (torch: SIGFPE).
  const Tensor c = tensor({0, 4, -4, int64_t{1} << 62, kMin, 3, kMin});
  const Tensor d = tensor({5, 6, 6, 3, 1, kMin, 5});
  CHECK(ints(lcm(c, d)) == std::vector<int64_t>{0, 12, 12, int64_t{1} << 62, kMin, kMin, kMin});
  // Against std::gcd and std::lcm on values where nothing wraps, broadcast.
  const Tensor p = randint(-500, 500, {40, 1}), q = randint(-500, 500, {1, 30});
  const Tensor g = gcd(p, q), l = p.lcm(q);
  const auto pv = ints(p), qv = ints(q), gv = ints(g), lv = ints(l);
  bool all_match = true;
  for (size_t i = 0; i < 40; ++i) {
    for (size_t j = 0; j < 30; ++j) {
      all_match = all_match && gv[i * 30 + j] == std::gcd(pv[i], qv[j]) &&
                  lv[i * 30 + j] == std::lcm(pv[i], qv[j]);
    }
  }
  CHECK(all_match);
  Tensor x = tensor({4, 9});
  x.gcd_(tensor({6}));
  CHECK(ints(x) == std::vector<int64_t>{2, 3});
  // torch's "gcd_cpu" refuses Bool and Float.
  CHECK_THROWS_AS(gcd(tensor({true}), tensor({true})), DtypeError);
  CHECK_THROWS_AS(lcm(ones({1}), ones({1})), DtypeError);
}

TEST_CASE("nextafter: one step of each dtype, bit for bit", "[bits]") {
  // float32: against std::nextafter of floats, over random pairs, equal pairs, zeros, NaN and
  // infinities; float64 likewise.
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  std::vector<float> xs{0.0f, -0.0f, 1.0f, 1.0f, nan, 1.0f, -0.0f, inf, -inf, 1e-45f, 3.4e38f};
  std::vector<float> ys{1.0f, 1.0f, 1.0f, 2.0f, 0.0f, nan, 0.0f, 0.0f, 0.0f, 0.0f, inf};
  const Tensor r = randn({1000}), s = randn({1000});
  for (float v : r.to_vector<float>()) xs.push_back(v);
  for (float v : s.to_vector<float>()) ys.push_back(v);
  const Tensor a = tensor(xs), b = tensor(ys);
  const std::vector<float> got = nextafter(a, b).to_vector<float>();
  bool all_match = true;
  for (size_t i = 0; i < xs.size(); ++i) {
    const float want = std::nextafter(xs[i], ys[i]);
    all_match = all_match && (std::isnan(want) ? std::isnan(got[i])
                                               : std::bit_cast<uint32_t>(got[i]) ==
                                                     std::bit_cast<uint32_t>(want));
  }
  CHECK(all_match);
  // torch: nextafter(0, 1) = 1.4e-45 (a subnormal); nextafter(-0., 0.) = 0.
  CHECK(got[0] == std::numeric_limits<float>::denorm_min());
  CHECK_FALSE(std::signbit(got[6]));
  const std::vector<double> wide = nextafter(a.to(kFloat64), b.to(kFloat64)).to_vector<double>();
  CHECK(wide[2] == 1.0);
  CHECK(wide[3] == 1.0 + std::numeric_limits<double>::epsilon());
  // Mixed float32 and float64: float64 (torch: 1.0000000000000002).
  CHECK(nextafter(ones({1}), full({1}, 2.0, kFloat64)).item<double>() ==
        1.0 + std::numeric_limits<double>::epsilon());
  // bfloat16 steps by its own ulp: nextafter(1, 2) = 1.0078125 (torch), and back down.
  const Tensor one = ones({3}, kBFloat16);
  const Tensor up = nextafter(one, full({3}, 2.0, kBFloat16));
  CHECK(up.dtype() == kBFloat16);
  CHECK(up.to(kFloat64).to_vector<double>() ==
        std::vector<double>{1.0078125, 1.0078125, 1.0078125});
  CHECK(nextafter(one, zeros({3}, kBFloat16)).to(kFloat64).to_vector<double>()[0] ==
        1.0 - 1.0 / 256);
  CHECK(nextafter(zeros({1}, kBFloat16), full({1}, -1.0, kBFloat16)).to(kFloat64).item<double>() ==
        -std::ldexp(1.0, -133));
  CHECK(std::isnan(nextafter(one, full({3}, nan, kBFloat16)).to(kFloat32).to_vector<float>()[0]));
  // In place; integers are refused (torch's "nextafter_cpu" refuses Long).
  Tensor x = ones({2});
  x.nextafter_(zeros({2}));
  CHECK(x.to_vector<float>()[0] == std::nextafter(1.0f, 0.0f));
  CHECK_THROWS_AS(nextafter(tensor({1}), tensor({2})), DtypeError);
  CHECK_THROWS_AS(nextafter(tensor({true}), tensor({true})), DtypeError);
}

TEST_CASE("the bit ops are not differentiable", "[bits][autograd]") {
  Tensor x = ones({2}).requires_grad_(true);
  const Tensor y = nextafter(x, zeros({2}));
  CHECK_FALSE(y.requires_grad());
}
