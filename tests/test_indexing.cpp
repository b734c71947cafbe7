// test_indexing.cpp: Tensor::index and index_put_ with libtorch's index kinds against
// python3-torch 1.13's values (written out below): integers, Slice, None, Ellipsis and "...",
// bools, int64 tensors (alone, side by side, broadcast, negative) and bool masks; views where
// PyTorch gives views; gradients; errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>
#include <wick/wick.hpp>

using namespace wick;
using indexing::Ellipsis;
using indexing::None;
using indexing::Slice;

namespace {
std::vector<int64_t> ints(const Tensor& t) { return t.to(kInt64).to_vector<int64_t>(); }
}  // namespace

TEST_CASE("index: basic indices give torch's values, as views", "[indexing]") {
  const Tensor x = arange(24).reshape({2, 3, 4});
  CHECK(ints(x.index({Slice(), 0})) == std::vector<int64_t>{0, 1, 2, 3, 12, 13, 14, 15});
  CHECK(ints(x.index({"...", Slice(None, 2)})) ==
        std::vector<int64_t>{0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21});
  const Tensor stepped = x.index({1, None, Slice(None, None, 2)});
  CHECK(stepped.sizes() == Shape{1, 2, 4});
  CHECK(ints(stepped) == std::vector<int64_t>{12, 13, 14, 15, 20, 21, 22, 23});
  CHECK(x.index({true}).sizes() == Shape{1, 2, 3, 4});
  CHECK(x.index({false}).sizes() == Shape{0, 2, 3, 4});
  CHECK(ints(x.index({Ellipsis, -1})) == std::vector<int64_t>{3, 7, 11, 15, 19, 23});
  CHECK(x.index({}).sizes() == x.sizes());
  // Basic indices make views: a write through one shows in x.
  Tensor y = zeros({3, 4});
  Tensor row = y.index({1, Slice(1, 3)});
  row.fill_(5.0);
  CHECK(y.to_vector<float>()[5] == 5.0f);
}

TEST_CASE("index: int64 and bool tensor indices as PyTorch's advanced indexing", "[indexing]") {
  const Tensor x = arange(24).reshape({2, 3, 4});
  CHECK(ints(x.index({0, tensor({2, 0})})) == std::vector<int64_t>{8, 9, 10, 11, 0, 1, 2, 3});
  // Two tensors side by side pick elements together.
  CHECK(ints(x.index({Slice(), tensor({0, 2}), tensor({1, 3})})) ==
        std::vector<int64_t>{1, 11, 13, 23});
  // Broadcast and negative: [[0, 1], [1, 0]] with the ints after it.
  const Tensor picked = x.index({tensor({0, 1, 1, 0}).reshape({2, 2}), 0, 0});
  CHECK(picked.sizes() == Shape{2, 2});
  CHECK(ints(picked) == std::vector<int64_t>{0, 12, 12, 0});
  CHECK(ints(x.index({tensor({-1}), 0, -1})) == std::vector<int64_t>{15});
  // A mask over the next dims.
  const Tensor mask = gt(x.index({0}), 5);
  CHECK(ints(x.index({0}).index({mask})) == std::vector<int64_t>{6, 7, 8, 9, 10, 11});
  const Tensor both = x.index({Slice(), mask});
  CHECK(both.sizes() == Shape{2, 6});
  CHECK(ints(both) == std::vector<int64_t>{6, 7, 8, 9, 10, 11, 18, 19, 20, 21, 22, 23});
  // The classifier's pick: logits[arange(n), target], differentiable.
  const Tensor logits = randn({4, 5}, kFloat64).requires_grad_();
  const Tensor target = tensor({4, 0, 2, 2});
  const Tensor chosen = logits.index({arange(4), target});
  CHECK(chosen.sizes() == Shape{4});
  chosen.sum().backward();
  const std::vector<double> g = logits.grad().to_vector<double>();
  CHECK(g[4] == 1.0);
  CHECK(g[5] == 1.0);
  CHECK(g[12] == 1.0);
  CHECK(g[17] == 1.0);
  CHECK(logits.grad().sum().item<double>() == 4.0);
}

TEST_CASE("index_put_: basic indices and a mask, as PyTorch's setitem", "[indexing]") {
  Tensor y = zeros({3, 4});
  y.index_put_({1, Slice(1, 3)}, 5.0);
  y.index_put_({Slice(), -1}, tensor({1.0f, 2.0f, 3.0f}));
  CHECK(y.to_vector<float>() == std::vector<float>{0, 0, 0, 1, 0, 5, 5, 2, 0, 0, 0, 3});
  Tensor z = arange(6, kFloat32).reshape({2, 3});
  z.index_put_({gt(z, 2.0)}, 0.0);
  CHECK(z.to_vector<float>() == std::vector<float>{0, 1, 2, 0, 0, 0});
  // Tensor indices: rows, element pairs, a mask with one value per picked element; torch:
  //   w = torch.zeros(3, 4); w[torch.tensor([2, 0])] = torch.tensor([1., 2, 3, 4])
  //   w[torch.tensor([1, 1]), torch.tensor([0, 3])] = 7; w[w == 0] = torch.arange(2.)
  Tensor w = zeros({3, 4});
  w.index_put_({tensor({2, 0})}, tensor({1.0f, 2.0f, 3.0f, 4.0f}));
  w.index_put_({tensor({1, 1}), tensor({0, 3})}, 7.0);
  w.index_put_({eq(w, 0.0)}, arange(2, kFloat32));
  CHECK(w.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 7, 0, 1, 7, 1, 2, 3, 4});
  // A transposed (non-contiguous) target, a bool target, and the gradient of the values.
  Tensor t = zeros({4, 3}).t();
  t.index_put_({Slice(), tensor({1, 3})}, 9.0);
  CHECK(t.contiguous().to_vector<float>() ==
        std::vector<float>{0, 9, 0, 9, 0, 9, 0, 9, 0, 9, 0, 9});
  Tensor flags = zeros({4}, kBool);
  flags.index_put_({tensor({1, 2})}, true);
  CHECK(ints(flags) == std::vector<int64_t>{0, 1, 1, 0});
  const Tensor values = tensor({2.0, 3.0}, kFloat64).requires_grad_();
  Tensor base = zeros({5}, kFloat64);
  base.index_put_({tensor({4, 0})}, values);
  (base * tensor({1.0, 2.0, 3.0, 4.0, 5.0}, kFloat64)).sum().backward();
  CHECK(values.grad().to_vector<double>() == std::vector<double>{5.0, 1.0});
}

TEST_CASE("index_put_: repeated positions, and accumulate", "[indexing]") {
  // torch: x = zeros(5); x.index_put_((tensor([0, 2, 0]),), tensor([1., 2, 3]),
  // accumulate=True) gives [4, 0, 2, 0, 0]; without accumulate on ones(5), [3, 1, 2, 1, 1]
  // (the last write wins; PyTorch calls it undefined).
  Tensor x = zeros({5});
  x.index_put_({tensor({0, 2, 0})}, tensor({1.0f, 2.0f, 3.0f}), /*accumulate=*/true);
  CHECK(x.to_vector<float>() == std::vector<float>{4, 0, 2, 0, 0});
  Tensor y = ones({5});
  y.index_put_({tensor({0, 2, 0})}, tensor({1.0f, 2.0f, 3.0f}));
  CHECK(y.to_vector<float>() == std::vector<float>{3, 1, 2, 1, 1});
  Tensor many = zeros({3});
  many.index_put_({tensor({1, 1, 1, 0, 1})}, tensor({1.0f, 2.0f, 3.0f, 4.0f, 5.0f}));
  CHECK(many.to_vector<float>() == std::vector<float>{4, 5, 0});
  // Element pairs, a scalar value broadcast: m[[1, 1], [0, 0]] += 10 twice -> 23 (torch).
  Tensor m = arange(6, kFloat32).reshape({2, 3});
  m.index_put_({tensor({1, 1}), tensor({0, 0})}, tensor(10.0f), true);
  CHECK(m.to_vector<float>() == std::vector<float>{0, 1, 2, 23, 4, 5});
  // A mask (torch: [[1, 1, 3], [3, 4, 6]]) and basic indices (a view, added in place).
  Tensor k = arange(6, kFloat32).reshape({2, 3});
  k.index_put_({tensor({{true, false, true}, {false, false, true}})}, tensor(1.0f), true);
  CHECK(k.to_vector<float>() == std::vector<float>{1, 1, 3, 3, 4, 6});
  Tensor b = zeros({2, 3});
  b.index_put_({Slice(), 1}, tensor({1.0f, 2.0f}), true);
  b.index_put_({Slice(), 1}, tensor({1.0f, 2.0f}), true);
  CHECK(b.to_vector<float>() == std::vector<float>{0, 2, 0, 0, 4, 0});
  // int64 accumulates exactly; the gradient reaches every accumulated value (torch: v.grad of
  // y.index_put_((tensor([0, 0, 1]),), v * v, accumulate=True); y.sum() is 2v).
  Tensor counts = zeros({3}, kInt64);
  counts.index_put_({tensor({2, 2, 0, 2})}, ones({4}, kInt64), true);
  CHECK(counts.to_vector<int64_t>() == std::vector<int64_t>{1, 0, 3});
  const Tensor v = tensor({1.0, 2.0, 3.0}, kFloat64).requires_grad_();
  Tensor acc = zeros({3}, kFloat64);
  acc.index_put_({tensor({0, 0, 1})}, v * v, true);
  acc.sum().backward();
  CHECK(v.grad().to_vector<double>() == std::vector<double>{2, 4, 6});
  CHECK_THROWS_AS(zeros({3}).index_put_({tensor({0, 1})}, ones({3}), true), ShapeError);
}

TEST_CASE("index_put_ writes the values bit for bit, whatever was there", "[indexing]") {
  // torch 1.13: each write below lands exactly (an earlier x + (v - x) gave 0 for 1e20, NaN for
  // an infinity, kept a NaN, lost 1e-8 beside 1, and turned -0.0 into +0.0).
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  Tensor x = tensor({1e20f, inf, nan, 1.0f, -0.0f, 7.0f});
  x.index_put_({tensor({0, 1, 2})}, 1.0);
  x.index_put_({tensor({3})}, tensor({1e-8f}));
  x.index_put_({tensor({5, 4, 5})}, tensor({3.0f, -0.0f, 2.0f}));  // last of 5 wins
  const std::vector<float> got = x.to_vector<float>();
  CHECK(got == std::vector<float>{1, 1, 1, 1e-8f, 0, 2});
  CHECK(std::signbit(got[4]));
  // A mask of fewer dims than x (rows), a value per picked row.
  Tensor rows = full({3, 2}, inf);
  rows.index_put_({tensor({true, false, true})}, tensor({{1e-8f, -0.0f}, {5.0f, 6.0f}}));
  CHECK(rows.to_vector<float>() == std::vector<float>{1e-8f, -0.0f, inf, inf, 5, 6});
  CHECK(std::signbit(rows.to_vector<float>()[1]));
  // int64 and bool too.
  Tensor big = full({2}, int64_t{1} << 62, kInt64);
  big.index_put_({tensor({1})}, -7);
  CHECK(big.to_vector<int64_t>() == std::vector<int64_t>{int64_t{1} << 62, -7});
  Tensor flags = ones({3}, kBool);
  flags.index_put_({tensor({2, 0})}, false);
  CHECK(ints(flags) == std::vector<int64_t>{0, 1, 0});
}

TEST_CASE("index_put_ into a non-leaf tensor that autograd records", "[indexing]") {
  // torch: a = ones(3, requires_grad); x = a * 1; x[[0]] = 9; x[mask] = v; the gradient flows
  // to a at the positions not overwritten, and to v. (The put was refused: a reshape of x
  // itself, a recorded view, made copy_ see a view of a graph.)
  const Tensor a = ones({3}, kFloat64).requires_grad_();
  const Tensor v = tensor({5.0}, kFloat64).requires_grad_();
  Tensor x = a * 1.0;
  x.index_put_({tensor({0})}, 9.0);
  x.index_put_({tensor({false, true, false})}, v);
  CHECK(x.to_vector<double>() == std::vector<double>{9, 5, 1});
  (x * tensor({1.0, 2.0, 3.0}, kFloat64)).sum().backward();
  CHECK(a.grad().to_vector<double>() == std::vector<double>{0, 0, 3});
  CHECK(v.grad().to_vector<double>() == std::vector<double>{2});
}

TEST_CASE("index and index_put_ reject what they cannot do, with clear errors", "[indexing]") {
  const Tensor x = arange(24).reshape({2, 3, 4});
  CHECK_THROWS_WITH(x.index({0, 0, 0, 0}),
                    Catch::Contains("index") && Catch::Contains("too many indices"));
  CHECK_THROWS_AS(x.index({Ellipsis, "...", 0}), IndexError);
  CHECK_THROWS_AS(x.index({"..x"}), ValueError);
  CHECK_THROWS_WITH(x.index({tensor({0}), Slice(), tensor({1})}),
                    Catch::Contains("separated by other indices"));
  CHECK_THROWS_WITH(x.index({tensor({1, -1, 5, 7})}),
                    Catch::Contains("index 5 is out of range") && Catch::Contains("size 2"));
  CHECK_THROWS_AS(x.index({tensor({0.5})}), DtypeError);
  CHECK_THROWS_AS(x.index({ones({3}, kBool)}), IndexError);  // the mask's shape is wrong
  CHECK_THROWS_AS(x.index({Slice(None, None, -1)}), ValueError);
  Tensor y = zeros({3, 4});
  CHECK_THROWS_AS(y.index_put_({tensor({0, 5})}, 1.0), IndexError);
  CHECK_THROWS_WITH(y.index_put_({tensor({0, 1})}, ones({3})),
                    Catch::Contains("index_put_") && Catch::Contains("does not broadcast"));
  CHECK_THROWS_AS(y.index_put_({ones({4}, kBool)}, 1.0), IndexError);
  CHECK_THROWS_AS(y.index_put_({1}, ones({5})), ShapeError);
  // A tensor value of another dtype, as torch's "Index put requires the source and destination
  // dtypes match"; a number is cast.
  CHECK_THROWS_WITH(y.index_put_({tensor({0})}, ones({4}, kFloat64)),
                    Catch::Contains("index_put_") && Catch::Contains("float64"));
  CHECK_THROWS_AS(y.index_put_({ones({3, 4}, kBool)}, tensor(int64_t{1})), DtypeError);
  CHECK(y.sum().item<float>() == 0.0f);  // nothing was written by the refused calls
}
