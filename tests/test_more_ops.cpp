// test_more_ops.cpp: nansum, nanmean, nan_to_num, count_nonzero, isclose (ops_nan.cpp);
// addcmul, addcdiv, logaddexp, xlogy, logit (ops_pointwise.cpp); kron, rot90, diag_embed,
// baddbmm, histc (ops_matrix.cpp); fmax, fmin, heaviside, frac; isin, argwhere: python3-torch
// 1.13's values (in the comments), gradcheck in float64, errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>
#include <wick/wick.hpp>

#include "gradcheck_util.hpp"

using namespace wick;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> doubles(const Tensor& t) {
  return t.contiguous().to(kFloat64).to_vector<double>();
}
std::vector<int64_t> ints(const Tensor& t) {
  return t.contiguous().to(kInt64).to_vector<int64_t>();
}
// Equal, NaN matching NaN, within rel relative.
bool same(const std::vector<double>& got, const std::vector<double>& want, double rel = 1e-12) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]) != std::isnan(got[i])) return false;
    if (std::isnan(want[i]) || got[i] == want[i]) continue;
    if (std::fabs(got[i] - want[i]) > rel * std::fabs(want[i])) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("nansum and nanmean leave NaNs out", "[more_ops]") {
  const Tensor x = tensor({{1.0, kNan, 3.0}, {kNan, kNan, kNan}, {-2.0, 4.0, kNan}});
  // x.nansum() 6, nansum(1) [4, 0, 2], nansum(0, keepdim) [[-1, 4, 3]]
  CHECK(nansum(x).item<double>() == 6.0);
  CHECK(doubles(nansum(x, {1})) == std::vector<double>{4, 0, 2});
  CHECK(nansum(x, {0}, true).sizes() == Shape{1, 3});
  CHECK(doubles(x.nansum({0}, true)) == std::vector<double>{-1, 4, 3});
  // nanmean 1.5, nanmean(1) [2, nan, 1], nanmean((0, 1)) 1.5
  CHECK(x.nanmean().item<double>() == 1.5);
  CHECK(same(doubles(nanmean(x, {1})), {2, kNan, 1}));
  CHECK(nanmean(x, {0, 1}).item<double>() == 1.5);
  // Integers: nansum is sum (int64); nanmean refuses them, as PyTorch.
  CHECK(nansum(tensor({1, 2, 3})).item<int64_t>() == 6);
  CHECK_THROWS_AS(nanmean(tensor({1, 2})), DtypeError);
  CHECK(passes([](const std::vector<Tensor>& v) { return nanmean(v[0], {1}); }, {f64({3, 4}, 1)}));
  CHECK(passes([](const std::vector<Tensor>& v) { return nansum(v[0]); }, {f64({5}, 2)}));
}

TEST_CASE("nan_to_num, count_nonzero", "[more_ops]") {
  const Tensor y = tensor({kNan, kInf, -kInf, 1.5, -0.0}, kFloat32);
  // [0, 3.4028234663852886e+38, -3.4028234663852886e+38, 1.5, -0]; with (2, 3, -4): [2, 3, -4, ...]
  CHECK(doubles(y.nan_to_num()) ==
        std::vector<double>{0, 3.4028234663852886e+38, -3.4028234663852886e+38, 1.5, 0});
  CHECK(std::signbit(doubles(nan_to_num(y))[4]));
  CHECK(doubles(nan_to_num(y, 2.0, 3.0, -4.0)) == std::vector<double>{2, 3, -4, 1.5, 0});
  // bfloat16's largest: 3.3895313892515355e+38
  CHECK(doubles(nan_to_num(y.to(kBFloat16)))[1] == 3.3895313892515355e+38);
  CHECK(ints(nan_to_num(tensor({1, 2}))) == std::vector<int64_t>{1, 2});
  CHECK(passes([](const std::vector<Tensor>& v) { return nan_to_num(v[0]); }, {f64({4}, 3)}));
  // count_nonzero: 3, over dim 0 [0, 1, 2]; NaN counts, -0 does not: [1, 1]
  const Tensor c = tensor({{0, 1, 2}, {0, 0, 3}});
  CHECK(c.count_nonzero().item<int64_t>() == 3);
  CHECK(ints(count_nonzero(c, {0})) == std::vector<int64_t>{0, 1, 2});
  CHECK(ints(count_nonzero(tensor({{0.0, kNan}, {-0.0, 1.0}}), {1})) == std::vector<int64_t>{1, 1});
  CHECK(count_nonzero(tensor({true, false, true})).item<int64_t>() == 2);
}

TEST_CASE("isclose and allclose", "[more_ops]") {
  const Tensor a = tensor({1.0, kInf, kNan, 1.0, -kInf, 1e-9, 100.0}, kFloat32);
  const Tensor b = tensor({1.0 + 1e-6, kInf, kNan, 1.1, kInf, 0.0, 100.001}, kFloat32);
  // [T, T, F, F, F, T, T]; equal_nan [T, T, T, F, F, T, T]; rtol 0.1 atol 0 [T, T, F, T, F, F, T]
  CHECK(ints(isclose(a, b)) == std::vector<int64_t>{1, 1, 0, 0, 0, 1, 1});
  CHECK(ints(a.isclose(b, 1e-5, 1e-8, true)) == std::vector<int64_t>{1, 1, 1, 0, 0, 1, 1});
  CHECK(ints(isclose(a, b, 0.1, 0.0)) == std::vector<int64_t>{1, 1, 0, 1, 0, 0, 1});
  // int64 [1, 2, 100] vs [1, 3, 101], rtol 0.01 atol 0: [T, F, T]
  CHECK(ints(isclose(tensor({1, 2, 100}), tensor({1, 3, 101}), 0.01, 0.0)) ==
        std::vector<int64_t>{1, 0, 1});
  CHECK(ints(isclose(tensor({true, false}), tensor({true, true}))) == std::vector<int64_t>{1, 0});
  CHECK_THROWS_AS(isclose(a, b.to(kFloat64)), DtypeError);
  CHECK_THROWS_AS(isclose(a, b, -1.0), ValueError);
  CHECK_THROWS_AS(isclose(a, zeros({2})), ShapeError);
  CHECK(allclose(tensor({1.0, 2.0}), tensor({1.0, 2.0 + 1e-9})));
  CHECK_FALSE(allclose(tensor({1.0, kNan}), tensor({1.0, kNan})));
  CHECK_FALSE(allclose(a, b));
}

TEST_CASE("addcmul and addcdiv, in and out of place", "[more_ops]") {
  const Tensor s = tensor({1.0, 2.0, 3.0}, kFloat32), t1 = tensor({{0.5}, {2.0}}, kFloat32),
               t2 = tensor({3.0, -1.0, 0.25}, kFloat32);
  // addcmul(value 0.5): [[1.75, 1.75, 3.0625], [4, 1, 3.25]]
  CHECK(doubles(addcmul(s, t1, t2, 0.5)) == std::vector<double>{1.75, 1.75, 3.0625, 4, 1, 3.25});
  // addcdiv(value -2): [[0.6666666269302368, 3, -1], [-0.3333333730697632, 6, -13]] (float32)
  CHECK(doubles(s.addcdiv(t1, t2, -2)) ==
        std::vector<double>{0.6666666269302368, 3, -1, -0.3333333730697632, 6, -13});
  // int64: addcmul([1, 2], [3, 4], [5, 6], value=2) = [31, 50]; addcdiv refuses integers.
  CHECK(ints(addcmul(tensor({1, 2}), tensor({3, 4}), tensor({5, 6}), 2)) ==
        std::vector<int64_t>{31, 50});
  CHECK_THROWS_AS(addcmul(tensor({1, 2}), tensor({3, 4}), tensor({5, 6}), 0.5), ValueError);
  CHECK_THROWS_AS(addcdiv(tensor({1, 2}), tensor({3, 4}), tensor({5, 6})), DtypeError);
  CHECK_THROWS_AS(addcmul(s, t1, zeros({4})), ShapeError);
  // In place: the same values, into the target.
  Tensor target = tensor({{1.0, 2.0, 3.0}, {1.0, 2.0, 3.0}}, kFloat32);
  target.addcmul_(t1, t2, 0.5);
  CHECK(doubles(target) == std::vector<double>{1.75, 1.75, 3.0625, 4, 1, 3.25});
  target.addcdiv_(t1, t2, 2);
  CHECK(same(doubles(target), {1.75 + 1.0 / 3, 1.75 - 1, 3.0625 + 4, 4 + 4.0 / 3, 1 - 4, 3.25 + 16},
             1e-6));
  CHECK(passes(
      [](const std::vector<Tensor>& v) { return addcdiv(v[0], v[1], v[2] * v[2] + 1.0, 0.3); },
      {f64({2, 3}, 4), f64({3}, 5), f64({2, 1}, 6)}));
  CHECK(passes([](const std::vector<Tensor>& v) { return addcmul(v[0], v[1], v[2], -1.5); },
               {f64({3}, 7), f64({2, 1}, 8), f64({2, 3}, 9)}));
}

TEST_CASE("logaddexp, xlogy and logit", "[more_ops]") {
  const Tensor la = tensor({0.0, 1000.0, -kInf, kInf, -kInf, kNan, -5.0}, kFloat64);
  const Tensor lb = tensor({0.0, 999.0, -kInf, kInf, 3.0, 1.0, -5.0}, kFloat64);
  // [0.6931471805599453, 1000.3132616875182, -inf, inf, 3, nan, -4.306852819440055]
  CHECK(same(doubles(logaddexp(la, lb)),
             {0.6931471805599453, 1000.3132616875182, -kInf, kInf, 3, kNan, -4.306852819440055}));
  CHECK_THROWS_AS(logaddexp(tensor({1, 2}), tensor({1, 2})), DtypeError);
  CHECK(passes([](const std::vector<Tensor>& v) { return logaddexp(v[0], v[1]); },
               {f64({5}, 10), f64({5}, 11)}));
  const Tensor xa = tensor({0.0, 0.0, 2.0, 0.0, 3.0, -1.0}, kFloat64);
  const Tensor xb = tensor({0.0, kNan, 3.0, kInf, 0.0, 2.0}, kFloat64);
  // [0, nan, 2.1972245773362196, 0, -inf, -0.6931471805599453]
  CHECK(same(doubles(xlogy(xa, xb)), {0, kNan, 2.1972245773362196, 0, -kInf, -0.6931471805599453}));
  // int64 inputs give float32: [0, 2.1972246170043945]
  const Tensor xi = tensor({0, 2}).xlogy(tensor({5, 3}));
  CHECK(xi.dtype() == kFloat32);
  CHECK(doubles(xi) == std::vector<double>{0, 2.1972246170043945});
  CHECK(passes([](const std::vector<Tensor>& v) { return xlogy(v[0], v[1] * v[1] + 0.5); },
               {f64({4}, 12), f64({4}, 13)}));
  // A zero a: a zero gradient for both, not 0 * log(0) = NaN.
  const Tensor za = tensor({0.0}).requires_grad_(), zb = tensor({0.0}).requires_grad_();
  xlogy(za, zb).sum().backward();
  CHECK(doubles(za.grad()) == std::vector<double>{0});
  const Tensor p = tensor({0.0, 0.25, 0.5, 0.9, 1.0}, kFloat64);
  // logit: [-inf, -1.0986122886681098, 0, 2.1972245773362196, inf]; eps 0.1: ends at -+2.197...
  CHECK(same(doubles(logit(p)), {-kInf, -1.0986122886681098, 0, 2.1972245773362196, kInf}));
  CHECK(same(doubles(p.logit(0.1)),
             {-2.197224577336219, -1.0986122886681098, 0, 2.1972245773362196, 2.1972245773362196}));
  CHECK(passes([](const std::vector<Tensor>& v) { return logit(sigmoid(v[0]), 0.01); },
               {f64({6}, 14)}));
}

TEST_CASE("kron, rot90 and diag_embed", "[more_ops]") {
  // kron([[1, 2], [3, 4]], [[0, 1], [1, 0]])
  CHECK(ints(kron(tensor({{1, 2}, {3, 4}}), tensor({{0, 1}, {1, 0}}))) ==
        std::vector<int64_t>{0, 1, 0, 2, 1, 0, 2, 0, 0, 3, 0, 4, 3, 0, 4, 0});
  // kron([1, 2], [[1], [10]]) = [[1, 2], [10, 20]]
  const Tensor k = kron(tensor({1.0, 2.0}), tensor({{1.0}, {10.0}}));
  CHECK(k.sizes() == Shape{2, 2});
  CHECK(doubles(k) == std::vector<double>{1, 2, 10, 20});
  CHECK(passes([](const std::vector<Tensor>& v) { return kron(v[0], v[1]); },
               {f64({2, 3}, 15), f64({3, 2}, 16)}));
  const Tensor r = arange(6).reshape({2, 3});
  // rot90: [[2, 5], [1, 4], [0, 3]]; k 2: [[5, 4, 3], [2, 1, 0]]; k -1 and dims (1, 0):
  // [[3, 0], [4, 1], [5, 2]]
  CHECK(r.rot90().sizes() == Shape{3, 2});
  CHECK(ints(r.rot90()) == std::vector<int64_t>{2, 5, 1, 4, 0, 3});
  CHECK(ints(rot90(r, 2)) == std::vector<int64_t>{5, 4, 3, 2, 1, 0});
  CHECK(ints(rot90(r, -1)) == std::vector<int64_t>{3, 0, 4, 1, 5, 2});
  CHECK(ints(rot90(r, 1, {1, 0})) == std::vector<int64_t>{3, 0, 4, 1, 5, 2});
  CHECK(ints(rot90(r, 4)) == ints(r));
  CHECK_THROWS_AS(rot90(r, 1, {0, 0}), ValueError);
  CHECK_THROWS_AS(rot90(r, 1, {0}), ValueError);
  CHECK_THROWS_AS(rot90(arange(3)), ShapeError);
  CHECK_THROWS_AS(rot90(r, 1, {0, 2}), IndexError);
  CHECK(passes([](const std::vector<Tensor>& v) { return rot90(v[0], 3); }, {f64({2, 3, 2}, 17)}));
  const Tensor d = tensor({{1, 2}, {3, 4}});
  // diag_embed(d): [[[1, 0], [0, 2]], [[3, 0], [0, 4]]]
  CHECK(ints(diag_embed(d)) == std::vector<int64_t>{1, 0, 0, 2, 3, 0, 0, 4});
  // diag_embed([1, 2], 1): [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
  CHECK(ints(tensor({1, 2}).diag_embed(1)) == std::vector<int64_t>{0, 1, 0, 0, 0, 2, 0, 0, 0});
  // diag_embed(d, -1, 0, 2): [[[0,0,0],[0,0,0]], [[1,0,0],[3,0,0]], [[0,2,0],[0,4,0]]]
  const Tensor e = diag_embed(d, -1, 0, 2);
  CHECK(e.sizes() == Shape{3, 2, 3});
  CHECK(ints(e) == std::vector<int64_t>{0, 0, 0, 0, 0, 0, 1, 0, 0, 3, 0, 0, 0, 2, 0, 0, 4, 0});
  // Keeps the dtype, bool included (torch.diag_embed(torch.tensor([True, False])).dtype: bool)
  const Tensor eb = diag_embed(tensor({true, false}));
  CHECK(eb.dtype() == kBool);
  CHECK(ints(eb) == std::vector<int64_t>{1, 0, 0, 0});
  CHECK(diag_embed(tensor({1.0, 2.0}, kBFloat16)).dtype() == kBFloat16);
  CHECK_THROWS_AS(diag_embed(d, 0, 1, -2), ValueError);
  CHECK_THROWS_AS(diag_embed(tensor(1.0)), ShapeError);
  CHECK(passes([](const std::vector<Tensor>& v) { return diag_embed(v[0], -2, 0, 1); },
               {f64({2, 3}, 18)}));
}

TEST_CASE("baddbmm and histc", "[more_ops]") {
  const Tensor inp = tensor({{1.0, 2.0}}), b1 = arange(8.0).reshape({2, 2, 2}),
               b2 = ones({2, 2, 2});
  // baddbmm(beta 0.5, alpha 2): [[[2.5, 3], [10.5, 11]], [[18.5, 19], [26.5, 27]]]
  CHECK(doubles(baddbmm(inp, b1, b2, 0.5, 2)) ==
        std::vector<double>{2.5, 3, 10.5, 11, 18.5, 19, 26.5, 27});
  // beta 0 ignores NaNs in the input: [[[1, 1], [5, 5]], [[9, 9], [13, 13]]]
  CHECK(doubles(baddbmm(full({2, 2, 2}, kNan), b1, b2, 0)) ==
        std::vector<double>{1, 1, 5, 5, 9, 9, 13, 13});
  CHECK_THROWS_AS(baddbmm(zeros({3, 2, 2}), b1, b2), ShapeError);
  CHECK(passes([](const std::vector<Tensor>& v) { return baddbmm(v[0], v[1], v[2], 0.5, -1.0); },
               {f64({1, 3}, 19), f64({2, 2, 4}, 20), f64({2, 4, 3}, 21)}));
  const Tensor h = tensor({1.0, 2.0, 1.0, 2.5, 4.0, kNan, -1.0, 3.0, 0.7}, kFloat32);
  // histc(h, 4, 1, 3) [3, 0, 1, 2] in python3-torch 1.13, whose CPU kernel counts the NaN in the
  // first bin (torch.histc(torch.tensor([nan]), 4, 1, 3) is [1, 0, 0, 0]); wick leaves NaN out,
  // as it does values outside the range: [2, 0, 1, 2]. histc([1, 2, 1, 4], 3) [2, 1, 1];
  // histc([2, 2], 4) [0, 0, 2, 0]
  CHECK(doubles(histc(h, 4, 1, 3)) == std::vector<double>{2, 0, 1, 2});
  CHECK(doubles(tensor({1.0, 2.0, 1.0, 4.0}, kFloat32).histc(3)) == std::vector<double>{2, 1, 1});
  CHECK(doubles(histc(tensor({2.0, 2.0}, kFloat32), 4)) == std::vector<double>{0, 0, 2, 0});
  // Bin edges rounded as in float32: [0.1, 0.2, 0.3, 0.7, 0.9, 1.0] in 10 bins of [0, 1]:
  // [0, 1, 1, 1, 0, 0, 0, 1, 0, 2]
  CHECK(doubles(histc(tensor({0.1, 0.2, 0.3, 0.7, 0.9, 1.0}, kFloat32), 10, 0, 1)) ==
        std::vector<double>{0, 1, 1, 1, 0, 0, 0, 1, 0, 2});
  CHECK(histc(h, 4, 1, 3).dtype() == kFloat32);
  CHECK_THROWS_AS(histc(tensor({1, 2}), 4), DtypeError);
  CHECK_THROWS_AS(histc(h, 0), ValueError);
  CHECK_THROWS_AS(histc(h, 4, 3, 1), ValueError);
  CHECK_THROWS_AS(histc(tensor({1.0, kInf}, kFloat32), 4), ValueError);
}

TEST_CASE("fmax, fmin, heaviside, frac, isin, argwhere", "[more_ops]") {
  // torch: fmax([1, nan, nan, 2], [nan, 3, nan, 2]) [1, 3, nan, 2]; fmin the same here; an int64
  // and a float32 tensor promote (fmax([1, 5], [2., 1.]) [2, 5]).
  const Tensor a = tensor({1.0, kNan, kNan, 2.0}), b = tensor({kNan, 3.0, kNan, 2.0});
  CHECK(same(doubles(fmax(a, b)), {1, 3, kNan, 2}));
  CHECK(same(doubles(a.fmin(b)), {1, 3, kNan, 2}));
  CHECK(same(doubles(fmin(tensor({1.0, 4.0}), tensor({2.0, -1.0}))), {1, -1}));
  CHECK(fmax(tensor({1, 5}), tensor({2.0f, 1.0f})).dtype() == kFloat32);
  CHECK(doubles(fmax(tensor({1, 5}), tensor({2.0f, 1.0f}))) == std::vector<double>{2, 5});
  CHECK(passes([](const std::vector<Tensor>& v) { return fmax(v[0], v[1]) + fmin(v[0], v[1]); },
               {f64({2, 3}, 31), f64({3}, 32)}));
  // A tie gives a the whole gradient, as PyTorch's.
  const Tensor x = tensor({2.0}).to(kFloat64).requires_grad_(),
               y = tensor({2.0}).to(kFloat64).requires_grad_();
  fmax(x, y).sum().backward();
  CHECK(x.grad().item<double>() == 1.0);
  CHECK(y.grad().item<double>() == 0.0);
  // torch: heaviside([-1, 0, nan, 3], [0.5]) [0, 0.5, 0, 1]; of int64 [-1, 0, 2] with [5]
  // [0, 5, 1]; of bool [T, F] with [F, T] [T, T]; different dtypes refused.
  CHECK(doubles(heaviside(tensor({-1.0, 0.0, kNan, 3.0}), tensor({0.5}))) ==
        std::vector<double>{0, 0.5, 0, 1});
  CHECK(ints(tensor({-1, 0, 2}).heaviside(tensor({5}))) == std::vector<int64_t>{0, 5, 1});
  CHECK(heaviside(tensor({true, false}), tensor({false, true})).to_vector<bool>() ==
        std::vector<bool>{true, true});
  CHECK_THROWS_AS(heaviside(tensor({1.0}), tensor({1})), DtypeError);
  // torch: frac([-2.5, 3.75, inf]) [-0.5, 0.75, nan]; integers refused.
  CHECK(same(doubles(frac(tensor({-2.5, 3.75, kInf}))), {-0.5, 0.75, kNan}));
  CHECK_THROWS_AS(frac(tensor({1, 2})), DtypeError);
  CHECK(passes([](const std::vector<Tensor>& v) { return frac(v[0] * 3.0); }, {f64({2, 3}, 33)}));
  // torch: isin([1, nan, 3, -0.], [3, nan, 0]) [F, F, T, T]; isin([1, 2, 3], [2.5, 3.0],
  // invert=True) [T, T, F]; isin([[1, 2], [3, 4]], 3) [[F, F], [T, F]]; isin(5, [5, 6]) True.
  CHECK(isin(tensor({1.0, kNan, 3.0, -0.0}), tensor({3.0, kNan, 0.0})).to_vector<bool>() ==
        std::vector<bool>{false, false, true, true});
  CHECK(tensor({1, 2, 3}).isin(tensor({2.5, 3.0}), true).to_vector<bool>() ==
        std::vector<bool>{true, true, false});
  CHECK(isin(tensor({{1, 2}, {3, 4}}), 3).reshape({4}).to_vector<bool>() ==
        std::vector<bool>{false, false, true, false});
  CHECK(isin(tensor({{1, 2}, {3, 4}}), 3).sizes() == Shape{2, 2});
  CHECK(isin(Scalar(5), tensor({5, 6})).item<bool>());
  CHECK(isin(tensor({int64_t{1} << 60}), tensor({(int64_t{1} << 60) + 1})).item<bool>() == false);
  CHECK(isin(tensor({1, 2}), zeros({0})).to_vector<bool>() == std::vector<bool>{false, false});
  CHECK(isin(tensor({true, false}), tensor({true})).to_vector<bool>() ==
        std::vector<bool>{true, false});
  // argwhere is nonzero: [[0, 1], [1, 0]].
  CHECK(ints(argwhere(tensor({{0, 2}, {3, 0}}))) == std::vector<int64_t>{0, 1, 1, 0});
  CHECK(tensor({0.0, 1.0}).argwhere().sizes() == Shape{1, 1});
}
