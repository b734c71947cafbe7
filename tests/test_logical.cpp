// test_logical.cpp: the composite ops of ops_logical.cpp (isnan, isinf, isfinite, logical
// ops, any and all, masked_fill, tril and triu), logsumexp and amax over several dims
// (ops_reduce.cpp), and split, chunk and unbind (views.cpp): values against float64
// references or torch 1.13's results (in the comments), dtypes, broadcasting, errors naming the
// op, and gradients (gradcheck in float64).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "wick/autograd.hpp"
#include "wick/wick.hpp"

using namespace wick;
using Catch::Matchers::Contains;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
std::vector<bool> bools(const Tensor& t) {
  REQUIRE(t.dtype() == kBool);
  return t.to_vector<bool>();
}
using B = std::vector<bool>;
}  // namespace

TEST_CASE("isnan, isinf and isfinite", "[logical]") {
  for (Dtype d : {kFloat32, kFloat64, kBFloat16}) {
    const Tensor x = tensor({1.0, kNaN, kInf, -kInf, 0.0}).to(d);
    INFO(describe(x));
    CHECK(bools(x.isnan()) == B{false, true, false, false, false});
    CHECK(bools(x.isinf()) == B{false, false, true, true, false});
    CHECK(bools(x.isfinite()) == B{true, false, false, false, true});
    // Strided input, 2-D: the result has the input's shape.
    const Tensor m = x.narrow(0, 0, 4).reshape({2, 2}).t();
    CHECK(m.isnan().sizes() == Shape{2, 2});
    CHECK(bools(m.isnan().contiguous()) == B{false, false, true, false});
  }
  const Tensor ints = tensor({1, -5});
  CHECK(bools(ints.isnan()) == B{false, false});
  CHECK(bools(ints.isinf()) == B{false, false});
  CHECK(bools(ints.isfinite()) == B{true, true});
  CHECK(bools(tensor({true}).isfinite()) == B{true});
  // Not differentiable, and no history is kept for the input.
  Tensor v = tensor({1.0, 2.0}).requires_grad_();
  CHECK_FALSE(v.isnan().requires_grad());
  CHECK_FALSE(v.isinf().requires_grad());
  CHECK_THROWS_WITH(isnan(Tensor()), Contains("isnan"));
}

TEST_CASE("logical_not, logical_and, logical_or, logical_xor", "[logical]") {
  // torch.logical_not([0., 2., nan]) = [True, False, False]: NaN is true.
  CHECK(bools(tensor({0.0, 2.0, kNaN}).logical_not()) == B{true, false, false});
  CHECK(bools(logical_not(tensor({true, false}))) == B{false, true});
  CHECK(bools(logical_not(tensor({0, 3}))) == B{true, false});
  // Mixed dtypes and broadcasting: [2, 1] with [3].
  const Tensor a = tensor({{1}, {0}});
  const Tensor b = tensor({2.0, 0.0, kNaN});
  CHECK(bools(logical_and(a, b)) == B{true, false, true, false, false, false});
  CHECK(bools(logical_or(a, b)) == B{true, true, true, true, false, true});
  CHECK(bools(logical_xor(a, b)) == B{false, true, false, true, false, true});
  CHECK(logical_and(a, b).sizes() == Shape{2, 3});
  CHECK_THROWS_WITH(logical_and(tensor({1, 2}), tensor({1, 2, 3})),
                    Contains("logical_and") && Contains("[2]") && Contains("[3]"));
  CHECK_THROWS_AS(logical_or(tensor({1, 2}), tensor({1, 2, 3})), ShapeError);
}

TEST_CASE("any and all, over everything and over a dim", "[logical]") {
  // torch: any([0., nan]) = True; all([[1, 0], [1, 1]], 1) = [False, True];
  // any([[1, 0], [0, 0]], 1, keepdim=True) = [[True], [False]]; all([]) = True, any([]) = False.
  CHECK(bools(tensor({0.0, kNaN}).any()) == B{true});
  CHECK(bools(tensor({0.0, 0.0}).any()) == B{false});
  const Tensor m = tensor({{1, 0}, {1, 1}});
  CHECK(bools(m.all(1)) == B{false, true});
  CHECK(bools(m.all(0)) == B{true, false});
  CHECK(bools(m.all()) == B{false});
  const Tensor k = tensor({{1, 0}, {0, 0}}).any(1, true);
  CHECK(k.sizes() == Shape{2, 1});
  CHECK(bools(k) == B{true, false});
  CHECK(any(m).dim() == 0);
  const Tensor empty = zeros({0});
  CHECK(bools(empty.all()) == B{true});
  CHECK(bools(empty.any()) == B{false});
  CHECK(bools(zeros({2, 0}).any(1)) == B{false, false});
  CHECK(bools(tensor({true, true}).all()) == B{true});
  CHECK_THROWS_AS(m.any(2), IndexError);
}

TEST_CASE("masked_fill", "[logical]") {
  const Tensor a = arange(12, kFloat32).reshape({3, 4});
  const Tensor mask = tensor({true, false, false, true});
  // torch: a.masked_fill(mask, -inf): columns 0 and 3 become -inf.
  const Tensor filled = a.masked_fill(mask, -kInf);
  CHECK(filled.dtype() == kFloat32);
  const std::vector<float> got = filled.to_vector<float>();
  for (int64_t i = 0; i < 12; ++i) {
    const bool masked = i % 4 == 0 || i % 4 == 3;
    CHECK(got[i] == (masked ? -std::numeric_limits<float>::infinity() : static_cast<float>(i)));
  }
  // The value becomes a's dtype, as fill_: torch.arange(3).masked_fill(m, 1.5) = [1, 1, 1].
  const Tensor ints = arange(3).masked_fill(tensor({true, false, true}), 1.5);
  CHECK(ints.dtype() == kInt64);
  CHECK(ints.to_vector<int64_t>() == std::vector<int64_t>{1, 1, 1});
  // The result takes the broadcast shape (torch 1.13): [1] with a [1, 2] mask is [1, 2].
  CHECK(tensor({1.0}).masked_fill(tensor({{true, false}}), 5.0).to_vector<float>() ==
        std::vector<float>{5, 1});
  // A 0-d tensor value; its gradient is the sum over the masked elements.
  Tensor x = tensor({1.0, 2.0, 3.0}).requires_grad_();
  Tensor v = tensor(7.0).requires_grad_();
  const Tensor y = x.masked_fill(tensor({true, false, true}), v);
  CHECK(y.to_vector<float>() == std::vector<float>{7, 2, 7});
  (y * tensor({1.0, 2.0, 3.0})).sum().backward();
  CHECK(x.grad().to_vector<float>() == std::vector<float>{0, 2, 0});
  CHECK(v.grad().item<float>() == 4.0f);
  // In place.
  Tensor z = zeros({2, 2});
  z.masked_fill_(tensor({true, false}), 3.0);
  CHECK(z.to_vector<float>() == std::vector<float>{3, 0, 3, 0});
  // Errors: a non-bool mask, shapes that do not broadcast, a value tensor with dims, an
  // in-place mask that would grow self, a value past the dtype's range.
  CHECK_THROWS_WITH(a.masked_fill(tensor({1, 0, 0, 1}), 1.0),
                    Contains("masked_fill") && Contains("bool") && Contains("int64"));
  CHECK_THROWS_AS(a.masked_fill(tensor({1, 0, 0, 1}), 1.0), DtypeError);
  CHECK_THROWS_WITH(a.masked_fill(tensor({true, false}), 1.0),
                    Contains("masked_fill") && Contains("[3, 4]") && Contains("[2]"));
  CHECK_THROWS_AS(a.masked_fill(mask, tensor({2.0})), ShapeError);
  CHECK_THROWS_AS(zeros({2}).masked_fill_(tensor({{true}, {false}}), 1.0), ShapeError);
  CHECK_THROWS_AS(arange(3).masked_fill(tensor({true, false, true}), 1e30), ValueError);
}

TEST_CASE("tril and triu", "[logical]") {
  const Tensor a = arange(12, kFloat64).reshape({3, 4});
  auto values = [](const Tensor& t) { return t.to_vector<double>(); };
  // torch.tril(a, -1) and torch.triu(a, 1).
  CHECK(values(a.tril(-1)) == std::vector<double>{0, 0, 0, 0, 4, 0, 0, 0, 8, 9, 0, 0});
  CHECK(values(a.triu(1)) == std::vector<double>{0, 1, 2, 3, 0, 0, 6, 7, 0, 0, 0, 11});
  // Every diagonal against the definition, on a transposed (strided) batch.
  const Tensor batch = arange(2 * 4 * 3, kFloat32).reshape({2, 4, 3}).transpose(1, 2);
  for (int64_t k = -5; k <= 5; ++k) {
    const std::vector<float> lo = tril(batch, k).contiguous().to_vector<float>();
    const std::vector<float> hi = triu(batch, k).contiguous().to_vector<float>();
    const std::vector<float> all = batch.contiguous().to_vector<float>();
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t r = 0; r < 3; ++r) {
        for (int64_t c = 0; c < 4; ++c) {
          const size_t i = static_cast<size_t>((b * 3 + r) * 4 + c);
          INFO("k " << k << " at " << b << ", " << r << ", " << c);
          CHECK(lo[i] == (c - r <= k ? all[i] : 0.0f));
          CHECK(hi[i] == (c - r >= k ? all[i] : 0.0f));
        }
      }
    }
  }
  // Diagonals far past the matrix (no overflow in row + diagonal).
  const int64_t big = std::numeric_limits<int64_t>::max();
  CHECK(equal(a.tril(big), a));
  CHECK(equal(a.triu(-big - 1), a));
  CHECK(equal(a.triu(big), zeros_like(a)));
  CHECK(equal(a.tril(-big - 1), zeros_like(a)));
  // dtypes are kept; a causal mask from ones.
  const Tensor causal = ones({3, 3}, TensorOptions(kBool)).tril();
  CHECK(bools(causal) == B{true, false, false, true, true, false, true, true, true});
  CHECK(arange(4).reshape({2, 2}).triu().dtype() == kInt64);
  CHECK_THROWS_WITH(tril(arange(3)), Contains("tril") && Contains("2 dims"));
  CHECK_THROWS_AS(triu(tensor(1.0)), ShapeError);
  // The gradient passes where the element is kept.
  Tensor x = ones({2, 2}).requires_grad_();
  (x.tril() * 3.0).sum().backward();
  CHECK(x.grad().to_vector<float>() == std::vector<float>{3, 0, 3, 3});
}

TEST_CASE("logsumexp", "[logical]") {
  // Against float64 log(sum(exp)) on values where that does not overflow.
  const Tensor x = randn({4, 5, 6}, TensorOptions(kFloat64));
  for (const Shape& dims : {Shape{0}, Shape{2}, Shape{-1, 0}, Shape{}}) {
    for (bool keepdim : {false, true}) {
      INFO("dims " << dims << " keepdim " << keepdim);
      const Tensor want = log(sum(exp(x), dims, keepdim));
      const Tensor got = logsumexp(x, dims, keepdim);
      REQUIRE(got.sizes() == want.sizes());
      CHECK(allclose(got, want, 1e-14, 0));
    }
  }
  // Large values (exp overflows there), infinities and NaN: torch gives
  // logsumexp([[1, 2], [-inf, -inf], [inf, 1], [1000, 1000]], 1) = [2.3133, -inf, inf, 1000.6931].
  const Tensor e = tensor({{1.0, 2.0}, {-kInf, -kInf}, {kInf, 1.0}, {1000.0, 1000.0}, {kNaN, 1.0}});
  const std::vector<float> r = e.logsumexp(1).to_vector<float>();
  CHECK(r[0] == Approx(2.3132617).epsilon(1e-6));
  CHECK(r[1] == -std::numeric_limits<float>::infinity());
  CHECK(r[2] == std::numeric_limits<float>::infinity());
  CHECK(r[3] == Approx(1000.6931472).epsilon(1e-7));
  CHECK(std::isnan(r[4]));
  // Integers compute in float32; a zero-size reduced dim gives -inf.
  CHECK(tensor({1, 2}).logsumexp(0).dtype() == kFloat32);
  CHECK(tensor({1, 2}).logsumexp(0).item<float>() == Approx(2.3132617f));
  const Tensor none = logsumexp(zeros({0, 3}), 0);
  CHECK(none.sizes() == Shape{3});
  CHECK(none.to_vector<float>() == std::vector<float>(3, -std::numeric_limits<float>::infinity()));
  CHECK_THROWS_AS(logsumexp(x, 3), IndexError);
  CHECK_THROWS_WITH(logsumexp(x, Shape{1, 1}), Contains("logsumexp"));
  // The gradient is softmax along the dims.
  Tensor p = tensor({{1.0, 2.0}, {3.0, 4.0}}).requires_grad_();
  p.logsumexp(1).sum().backward();
  CHECK(allclose(p.grad(), softmax(p.detach(), 1)));
  const std::string err = autograd::gradcheck(
      [](const std::vector<Tensor>& in) {
        return logsumexp(in[0], Shape{0, 2}, true);
      },
      {randn({3, 2, 4}, TensorOptions(kFloat64)).requires_grad_()});
  CHECK(err == "");
  // amax and amin over several dims.
  CHECK(allclose(amax(x, Shape{0, 2}), std::get<0>(x.max(2)).amax(0)));
  CHECK(allclose(amin(x, Shape{}, true), min(x).reshape({1, 1, 1})));
}

TEST_CASE("split, chunk and unbind", "[logical]") {
  const Tensor a = arange(10);
  auto sizes_of = [](const std::vector<Tensor>& pieces, int64_t dim) {
    std::vector<int64_t> s;
    for (const Tensor& p : pieces) s.push_back(p.size(dim));
    return s;
  };
  using S = std::vector<int64_t>;
  // torch: arange(10).chunk(3) -> 4, 4, 2; chunk(4) -> 3, 3, 3, 1; arange(5).chunk(4) -> 2, 2, 1;
  // split(3) -> 3, 3, 3, 1; split([2, 8]); arange(5).split(10) -> 5; arange(0).chunk(3) -> three
  // empty pieces, arange(0).split(2) -> one.
  CHECK(sizes_of(a.chunk(3), 0) == S{4, 4, 2});
  CHECK(sizes_of(a.chunk(4), 0) == S{3, 3, 3, 1});
  CHECK(sizes_of(arange(5).chunk(4), 0) == S{2, 2, 1});
  CHECK(sizes_of(a.split(3), 0) == S{3, 3, 3, 1});
  CHECK(sizes_of(a.split(Shape{2, 8}), 0) == S{2, 8});
  CHECK(sizes_of(arange(5).split(10), 0) == S{5});
  CHECK(sizes_of(arange(0).chunk(3), 0) == S{0, 0, 0});
  CHECK(sizes_of(arange(0).split(2), 0) == S{0});
  CHECK(sizes_of(arange(0).split(0), 0) == S{0});
  // The pieces are views with the right values, along a negative dim.
  const Tensor m = arange(12).reshape({3, 4});
  const std::vector<Tensor> cols = m.split(Shape{1, 3}, -1);
  CHECK(cols[1].to_vector<int64_t>() == std::vector<int64_t>{1, 2, 3, 5, 6, 7, 9, 10, 11});
  CHECK(cols[1].storage().get() == m.storage().get());
  const std::vector<Tensor> rows = unbind(m, 1);
  REQUIRE(rows.size() == 4);
  CHECK(rows[2].to_vector<int64_t>() == std::vector<int64_t>{2, 6, 10});
  CHECK(unbind(zeros({0, 2})).empty());
  // Errors name the op.
  CHECK_THROWS_WITH(a.chunk(0), Contains("chunk") && Contains("positive"));
  CHECK_THROWS_WITH(a.split(0), Contains("split") && Contains("[10]"));
  CHECK_THROWS_WITH(a.split(Shape{2, 7}), Contains("split") && Contains("sum to 9"));
  CHECK_THROWS_AS(a.split(Shape{-1, 11}), ValueError);
  CHECK_THROWS_AS(tensor(1.0).chunk(2), IndexError);
  CHECK_THROWS_AS(m.unbind(2), IndexError);
  // Gradients flow back through each piece.
  Tensor x = arange(6, kFloat64).requires_grad_();
  const std::vector<Tensor> parts = x.chunk(3);
  (parts[0] * 1.0 + parts[2] * 3.0).sum().backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{1, 1, 0, 0, 3, 3});
}
