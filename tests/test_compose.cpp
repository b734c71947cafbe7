// test_compose.cpp: the ops of ops_compose.cpp and ops_sample.cpp: values against python3-torch
// 1.13's (written out below), gradcheck where they are differentiable, the 2-norm's zero
// gradient at zero, the random ops' ranges and frequencies for a fixed seed, and errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <vector>
#include <wick/wick.hpp>

using namespace wick;

namespace {

std::vector<int64_t> ints(const Tensor& t) { return t.to(kInt64).to_vector<int64_t>(); }
std::vector<double> doubles(const Tensor& t) { return t.to(kFloat64).to_vector<double>(); }

Tensor f64(const Shape& shape, uint64_t seed) {
  manual_seed(seed);
  return randn(shape, kFloat64).requires_grad_();
}

bool passes(const std::function<Tensor(const std::vector<Tensor>&)>& f,
            const std::vector<Tensor>& inputs) {
  const std::string failure = autograd::gradcheck(
      [&](const std::vector<Tensor>& in) { return f(in).reshape({-1}); }, inputs);
  INFO(failure);
  return failure.empty();
}

}  // namespace

TEST_CASE("flip, roll, repeat, tile, repeat_interleave, diag, trace: torch's values", "[compose]") {
  const Tensor x = arange(6).reshape({2, 3});
  CHECK(ints(x.flip({0})) == std::vector<int64_t>{3, 4, 5, 0, 1, 2});
  CHECK(ints(x.flip({0, -1})) == std::vector<int64_t>{5, 4, 3, 2, 1, 0});
  CHECK(ints(x.roll({1})) == std::vector<int64_t>{5, 0, 1, 2, 3, 4});
  CHECK(ints(x.roll({-1}, {1})) == std::vector<int64_t>{1, 2, 0, 4, 5, 3});
  CHECK(ints(x.roll({1, 2}, {0, 1})) == std::vector<int64_t>{4, 5, 3, 1, 2, 0});
  const Tensor r = tensor({1, 2}).repeat({2, 2});
  CHECK(r.sizes() == Shape{2, 4});
  CHECK(ints(r) == std::vector<int64_t>{1, 2, 1, 2, 1, 2, 1, 2});
  CHECK(ints(x.repeat({1, 2})) == std::vector<int64_t>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5});
  CHECK(ints(x.tile({2})) == ints(x.repeat({1, 2})));
  CHECK(x.repeat({0, 1}).sizes() == Shape{0, 3});
  CHECK(ints(x.repeat_interleave(2)) == std::vector<int64_t>{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5});
  CHECK(ints(x.repeat_interleave(2, 0)) ==
        std::vector<int64_t>{0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5});
  CHECK(ints(diag(tensor({1, 2}), 1)) == std::vector<int64_t>{0, 1, 0, 0, 0, 2, 0, 0, 0});
  CHECK(ints(diag(tensor({1, 2}), -1)) == std::vector<int64_t>{0, 0, 0, 1, 0, 0, 0, 2, 0});
  const Tensor y = arange(12).reshape({3, 4});
  CHECK(ints(y.diag()) == std::vector<int64_t>{0, 5, 10});
  CHECK(ints(y.diag(1)) == std::vector<int64_t>{1, 6, 11});
  CHECK(ints(y.diag(-2)) == std::vector<int64_t>{8});
  CHECK(y.diag(4).numel() == 0);
  CHECK(y.trace().item<int64_t>() == 15);
  CHECK(x[1][2].item<int64_t>() == 5);  // libtorch's t[i]
  // Errors name the op and the shapes.
  CHECK_THROWS_WITH(x.flip({0, 0}), Catch::Contains("flip") && Catch::Contains("more than once"));
  CHECK_THROWS_AS(x.flip({2}), IndexError);
  CHECK_THROWS_AS(x.roll({1, 2}, {0}), ValueError);
  CHECK_THROWS_WITH(x.repeat({2}), Catch::Contains("repeat") && Catch::Contains("[2, 3]"));
  CHECK_THROWS_AS(x.repeat({1, -1}), ValueError);
  CHECK_THROWS_AS(diag(zeros({2, 2, 2})), ShapeError);
  CHECK_THROWS_AS(trace(zeros({3})), ShapeError);
}

TEST_CASE("dot, outer, bmm, addmm, norm, lerp, square: values and errors", "[compose]") {
  const Tensor a = tensor({1.0, 2.0, 3.0}, kFloat64), b = tensor({4.0, -5.0, 6.0}, kFloat64);
  CHECK(a.dot(b).item<double>() == 12.0);
  CHECK(doubles(a.outer(b.narrow(0, 0, 2))) == std::vector<double>{4, -5, 8, -10, 12, -15});
  const Tensor m = tensor({1.0, 2.0, 3.0, 4.0}, kFloat64).reshape({2, 2});
  CHECK(doubles(addmm(ones({2}, kFloat64), m, m, 0.5, 2.0)) ==
        std::vector<double>{14.5, 20.5, 30.5, 44.5});
  // beta 0 ignores c, NaN included.
  CHECK(doubles(addmm(full({2, 2}, NAN, kFloat64), m, m, 0.0)) ==
        std::vector<double>{7, 10, 15, 22});
  CHECK(bmm(m.unsqueeze(0), m.unsqueeze(0)).sizes() == Shape{1, 2, 2});
  const Tensor n = tensor({1.0, -2.0, 3.0, 4.0}).reshape({2, 2});
  CHECK(tensor({1.0f, 2.0f, 3.0f, 4.0f}).norm().item<float>() == Approx(5.4772257804870605));
  CHECK(doubles(n.norm(1, {1})) == std::vector<double>{3, 7});
  CHECK(n.norm(3).item<float>() == Approx(4.641589164733887));
  CHECK(doubles(n.norm(INFINITY, {0})) == std::vector<double>{3, 4});
  CHECK(tensor({0.0, -2.0, 3.0, 0.0}).norm(0).item<double>() == 2.0);
  CHECK(doubles(lerp(tensor({1.0, 2.0}), tensor({5.0, 10.0}), 0.75)) == std::vector<double>{4, 8});
  CHECK(doubles(lerp(tensor({1.0, 2.0}), tensor({5.0, 10.0}), 1.0)) == std::vector<double>{5, 10});
  CHECK(ints(square(tensor({-3, 4}))) == std::vector<int64_t>{9, 16});
  CHECK_THROWS_WITH(dot(a, b.narrow(0, 0, 2)), Catch::Contains("dot") && Catch::Contains("[2]"));
  CHECK_THROWS_AS(dot(a, b.to(kFloat32)), DtypeError);
  CHECK_THROWS_AS(bmm(m, m), ShapeError);
  CHECK_THROWS_AS(addmm(ones({3}), m.to(kFloat32), m.to(kFloat32)), ShapeError);
  CHECK_THROWS_AS(norm(tensor({1, 2})), DtypeError);
  CHECK_THROWS_AS(norm(a, -1.0), ValueError);
}

TEST_CASE("the composite ops pass gradcheck; the 2-norm's gradient at zero is 0", "[compose]") {
  const Tensor x = f64({3, 4}, 1), v = f64({3}, 2), w = f64({4}, 3);
  CHECK(passes([](const auto& in) { return in[0].flip({0, 1}); }, {x}));
  CHECK(passes([](const auto& in) { return in[0].roll({2, -1}, {1, 0}); }, {x}));
  CHECK(passes([](const auto& in) { return in[0].repeat({2, 1, 3}); }, {x}));
  CHECK(passes([](const auto& in) { return in[0].repeat_interleave(3, 1); }, {x}));
  CHECK(passes([](const auto& in) { return diag(in[0], -1); }, {v}));
  CHECK(passes([](const auto& in) { return diag(in[0], 1); }, {x}));
  CHECK(passes([](const auto& in) { return in[0].trace(); }, {x}));
  CHECK(passes([](const auto& in) { return outer(in[0], in[1]); }, {v, w}));
  CHECK(passes([](const auto& in) { return dot(in[0], in[0]); }, {w}));
  CHECK(passes([](const auto& in) { return addmm(in[2], in[0], in[1], 0.5, 2.0); },
               {f64({4, 3}, 5), x, w}));
  const double inf = std::numeric_limits<double>::infinity();
  for (double p : {2.0, 1.0, 3.0, 0.5, inf, -inf}) {
    INFO("p " << p);
    CHECK(passes([p](const auto& in) { return norm(in[0], p, {1}); }, {x}));
  }
  CHECK(passes([](const auto& in) { return lerp(in[0], in[1], 0.3); }, {v, v * 2}));
  CHECK(passes([](const auto& in) { return lerp(in[0], in[1], in[2]); },
               {v, f64({3}, 4), tensor({0.2, 0.7, 1.1}, kFloat64).requires_grad_()}));
  const Tensor mask = gt(x.detach(), 0.0);
  CHECK(passes([&](const auto& in) { return masked_select(in[0], mask); }, {x}));
  // PyTorch: the 2-norm's gradient at the zero vector is 0.
  const Tensor zero = zeros({3}, kFloat64).requires_grad_();
  zero.norm().backward();
  CHECK(doubles(zero.grad()) == std::vector<double>{0, 0, 0});
}

TEST_CASE("nonzero, masked_select, linspace, logspace: torch's values", "[compose]") {
  const Tensor t = tensor({0.0, 1.5, NAN, 0.0}).reshape({2, 2});
  CHECK(ints(t.nonzero()) == std::vector<int64_t>{0, 1, 1, 0});
  CHECK(t.nonzero().sizes() == Shape{2, 2});
  CHECK(zeros({3}).nonzero().sizes() == Shape{0, 1});
  const Tensor x = arange(6).reshape({2, 3});
  CHECK(ints(x.masked_select(tensor({true, false, true}))) == std::vector<int64_t>{0, 2, 3, 5});
  CHECK_THROWS_AS(x.masked_select(tensor({1, 0, 1})), DtypeError);
  CHECK_THROWS_AS(x.masked_select(tensor({true, false})), ShapeError);
  CHECK(doubles(linspace(-1, 1, 5)) == std::vector<double>{-1, -0.5, 0, 0.5, 1});
  CHECK(doubles(linspace(0, 1, 4, kFloat64)) ==
        std::vector<double>{0.0, 0.3333333333333333, 0.6666666666666667, 1.0});
  CHECK(linspace(3, 9, 0).numel() == 0);
  CHECK(doubles(linspace(3, 9, 1)) == std::vector<double>{3});
  CHECK(doubles(logspace(0, 2, 3)) == std::vector<double>{1, 10, 100});
  CHECK(doubles(logspace(0, 3, 4, 2.0)) == std::vector<double>{1, 2, 4, 8});
  CHECK_THROWS_AS(linspace(0, 1, -1), ValueError);
}

TEST_CASE("randint, randperm, multinomial at their edges (review)", "[compose]") {
  manual_seed(5);
  // Far from 0: low added in int64 (torch gives distinct values in range).
  const int64_t big = int64_t{1} << 62;
  const std::vector<int64_t> near = randint(big, big + 10, {64}).to_vector<int64_t>();
  std::set<int64_t> distinct(near.begin(), near.end());
  CHECK(distinct.size() > 5);
  for (int64_t v : near) CHECK((v >= big && v < big + 10));
  const int64_t top = std::numeric_limits<int64_t>::max();
  for (int64_t v : randint(top - 5, top, {32}).to_vector<int64_t>())
    CHECK((v >= top - 5 && v < top));
  const int64_t bottom = std::numeric_limits<int64_t>::min();
  std::set<int64_t> low_end;
  for (int64_t v : randint(bottom, bottom + 5, {64}).to_vector<int64_t>()) low_end.insert(v);
  CHECK(low_end.size() == 5);
  // Spans above 2^32 use 64 random bits: values of 2^40 are not all multiples of 256.
  int64_t low_bits = 0;
  for (int64_t v : randint(0, int64_t{1} << 40, {1000}).to_vector<int64_t>()) low_bits |= v & 255;
  CHECK(low_bits == 255);
  // Options naming only a device keep int64, as torch's randint(..., device=) and randperm.
  CHECK(randint(0, 10, {3}, TensorOptions(kCPU)).dtype() == kInt64);
  CHECK(randperm(5, TensorOptions(kCPU)).dtype() == kInt64);
  CHECK(randperm(5, TensorOptions(kFloat32)).dtype() == kFloat32);
  // A large permutation: every value once.
  const std::vector<int64_t> perm = randperm(100000).to_vector<int64_t>();
  CHECK(std::set<int64_t>(perm.begin(), perm.end()).size() == 100000);
  // Subnormal weights never lose to a zero weight without replacement.
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<int64_t> picked =
        multinomial(tensor({1e-320, 0.0, 1e-320}, kFloat64), 2, false).to_vector<int64_t>();
    CHECK(std::find(picked.begin(), picked.end(), 1) == picked.end());
  }
  // With replacement, many draws over many classes (a binary search, not a [k, C] table).
  const Tensor counts = bincount(multinomial(ones({10000}), 200000, true), std::nullopt, 10000);
  CHECK(counts.sum().item<int64_t>() == 200000);
  CHECK(counts.max().item<int64_t>() < 60);
}

TEST_CASE("randint, randperm, bernoulli, multinomial: ranges, frequencies, seeds", "[compose]") {
  manual_seed(7);
  const Tensor r = randint(-3, 5, {20000});
  CHECK(r.dtype() == kInt64);
  CHECK(r.min().item<int64_t>() == -3);
  CHECK(r.max().item<int64_t>() == 4);
  // Each of the 8 values about 2500 times (5 sigma: 2500 +- 234).
  for (int64_t value = -3; value < 5; ++value) {
    const int64_t count = eq(r, value).sum().item<int64_t>();
    CHECK(std::abs(count - 2500) < 234);
  }
  CHECK(randint(10, {4}, TensorOptions(kFloat32)).dtype() == kFloat32);
  manual_seed(11);
  const Tensor first = randperm(1000);
  manual_seed(11);
  CHECK(equal(randperm(1000), first));
  CHECK(ints(std::get<0>(first.sort())) == ints(arange(1000)));
  CHECK_FALSE(equal(first, arange(1000)));
  const Tensor p = tensor({0.0, 0.25, 1.0}).repeat({10000, 1});
  const Tensor drawn = bernoulli(p);
  CHECK(drawn.dtype() == kFloat32);
  const std::vector<double> rate = doubles(drawn.mean(0));
  CHECK(rate[0] == 0.0);
  CHECK(std::abs(rate[1] - 0.25) < 5 * std::sqrt(0.25 * 0.75 / 10000));
  CHECK(rate[2] == 1.0);
  CHECK_THROWS_AS(bernoulli(tensor({0.5, 1.5})), ValueError);
  // With replacement: frequencies follow the weights (unnormalised), zero weights never drawn.
  const Tensor weights = tensor({1.0, 0.0, 3.0, 4.0});
  const Tensor samples = multinomial(weights, 40000, true);
  CHECK(samples.sizes() == Shape{40000});
  const std::vector<double> want{0.125, 0.0, 0.375, 0.5};
  for (int64_t c = 0; c < 4; ++c) {
    const double got = eq(samples, c).to(kFloat64).mean().item<double>();
    const double w = want[static_cast<size_t>(c)];
    CHECK(std::abs(got - w) <= 5 * std::sqrt(w * (1 - w) / 40000) + 1e-12);
  }
  // Without replacement: distinct indices, never a zero weight; the first draw follows the
  // weights, and drawing every nonzero class gives each once.
  const Tensor rows = tensor({1.0, 0.0, 3.0, 4.0}).repeat({20000, 1});
  const Tensor three = multinomial(rows, 3, false);
  CHECK(three.sizes() == Shape{20000, 3});
  CHECK(eq(three, 1).sum().item<int64_t>() == 0);
  CHECK(ints(std::get<0>(three.sort(1)).select(0, 0)) == std::vector<int64_t>{0, 2, 3});
  const double first_is_3 = eq(three.select(1, 0), 3).to(kFloat64).mean().item<double>();
  CHECK(std::abs(first_is_3 - 0.5) < 5 * std::sqrt(0.25 / 20000));
  CHECK_THROWS_WITH(multinomial(weights, 4, false), Catch::Contains("without replacement"));
  CHECK_THROWS_AS(multinomial(tensor({1.0, -1.0}), 1, true), ValueError);
  CHECK_THROWS_AS(multinomial(tensor({0.0, 0.0}), 1, true), ValueError);
  CHECK_THROWS_AS(multinomial(tensor({1, 2}), 1, true), DtypeError);
  CHECK_THROWS_AS(randint(5, 5, {2}), ValueError);
  CHECK_THROWS_AS(randperm(-1), ValueError);
}

TEST_CASE("the addmm family: torch's dtypes, integer scalars, beta = 0, errors (review)",
          "[compose]") {
  const auto values = [](const Tensor& t) {
    return t.to(kFloat64).contiguous().to_vector<double>();
  };
  // torch 1.13, int64: alpha and beta are truncated to integers (0.5 -> 0, 1.7 -> 1), the
  // result stays int64; addr refuses a fractional one.
  const Tensor c = tensor({{4, 3}, {1, 2}}), a = tensor({{1, 2}, {3, 0}}),
               b = tensor({{1, 0}, {1, 1}});
  CHECK(addmm(c, a, b, 0.5, 3).dtype() == kInt64);
  CHECK(values(addmm(c, a, b, 0.5, 3)) == std::vector<double>{9, 6, 9, 0});
  CHECK(values(addmm(c, a, b, 2, 0.5)) == std::vector<double>{8, 6, 2, 4});
  CHECK(values(addmm(c, a, b, 1.7, 2)) == std::vector<double>{10, 7, 7, 2});
  CHECK(values(addmv(c.select(0, 0), a, b.select(0, 0), 0.5, 1)) == std::vector<double>{1, 3});
  CHECK(values(baddbmm(c.unsqueeze(0), a.unsqueeze(0), b.unsqueeze(0), 0.5, 1)) ==
        std::vector<double>{3, 2, 3, 0});
  CHECK_THROWS_AS(addr(c, a.select(0, 0), b.select(0, 0), 0.5, 1), DtypeError);
  // A c of another dtype: addmm refuses it (torch: "self and mat2 must have the same dtype"),
  // addmv and baddbmm cast it to the product's dtype; linear refuses a bias of another dtype.
  const Tensor f = randn({2, 2}), c64 = randn({2, 2}, kFloat64);
  CHECK_THROWS_AS(addmm(c64, f, f), DtypeError);
  CHECK(addmv(c64.select(0, 0), f, f.select(0, 0)).dtype() == kFloat32);
  CHECK(baddbmm(c64.unsqueeze(0), f.unsqueeze(0), f.unsqueeze(0)).dtype() == kFloat32);
  CHECK(baddbmm(c64.unsqueeze(0), f.unsqueeze(0), f.unsqueeze(0), 0.0).dtype() == kFloat32);
  CHECK_THROWS_WITH(nn::functional::linear(f, f, ones({2}, kFloat64)), Catch::Contains("linear"));
  CHECK_THROWS_WITH(nn::functional::linear(f, f, ones({3})), Catch::Contains("linear"));
  // Shape errors name the op, not broadcast.
  CHECK_THROWS_WITH(addmm(zeros({3}), f, f), Catch::StartsWith("addmm:"));
  CHECK_THROWS_WITH(addmv(zeros({3}), f, f.select(0, 0)), Catch::StartsWith("addmv:"));
  // beta = 0 ignores c's values (NaN too) but gives it a zero gradient, as torch's.
  const Tensor with_nan = tensor({{NAN, 1.0f}, {2.0f, 3.0f}}).requires_grad_();
  const Tensor r = addmm(with_nan, f, f, 0.0, 1.0);
  CHECK_FALSE(isnan(r).any().item<bool>());
  r.sum().backward();
  REQUIRE(with_nan.grad().defined());
  CHECK(values(with_nan.grad()) == std::vector<double>{0, 0, 0, 0});
  // norm p = 0 (and cdist with it) stays in the graph with a zero gradient.
  const Tensor x1 = randn({3, 2}).requires_grad_();
  cdist(x1, randn({4, 2}), 0.0).sum().backward();
  REQUIRE(x1.grad().defined());
  CHECK(values(x1.grad()) == std::vector<double>(6, 0.0));
}

TEST_CASE("a vector times a row-major matrix keeps float32 accuracy at large k", "[compose]") {
  // [k] @ [k, 3]: each output was one float32 running sum over k (relative error 1.9e-3 at
  // k = 4e6; torch 7e-7). Now blocks of 1024 k's add up in double.
  manual_seed(1);
  const int64_t k = 1 << 20;
  const Tensor v = rand({k}), m = rand({k, 3});
  const Tensor want = matmul(v.to(kFloat64), m.to(kFloat64));
  const double error = ((matmul(v, m).to(kFloat64) - want).abs() / want).max().item<double>();
  CHECK(error < 2e-7);
  // The blocks fall at fixed k: the bits do not depend on the thread count.
  const int before = get_num_threads();
  set_num_threads(1);
  const Tensor one_thread = matmul(v, m);
  set_num_threads(2);
  const Tensor two_threads = matmul(v, m);
  set_num_threads(before);
  CHECK(equal(one_thread, two_threads));
}
