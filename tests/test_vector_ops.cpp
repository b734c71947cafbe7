// test_vector_ops.cpp: diff, cross, meshgrid, cdist, var_mean/std_mean (ops_vector.cpp) and
// bincount, unique, unique_consecutive (ops_unique.cpp): python3-torch 1.13's values (in the
// comments), float64 loops written here, gradcheck, errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>
#include <wick/wick.hpp>

#include "gradcheck_util.hpp"

using namespace wick;

namespace {

std::vector<double> doubles(const Tensor& t) {
  return t.contiguous().to(kFloat64).to_vector<double>();
}
std::vector<int64_t> ints(const Tensor& t) {
  return t.contiguous().to(kInt64).to_vector<int64_t>();
}

}  // namespace

TEST_CASE("diff: PyTorch's values, orders, prepend and append", "[vector_ops]") {
  const Tensor x = tensor({{1.0, 4.0, 9.0, 16.0}, {2.0, 3.0, 5.0, 8.0}});
  // torch.diff(x): [[3, 5, 7], [1, 2, 3]]; n=2 along 1: [[2, 2], [1, 1]]; dim 0: [[1, -1, -4, -8]]
  CHECK(doubles(diff(x)) == std::vector<double>{3, 5, 7, 1, 2, 3});
  CHECK(doubles(diff(x, 2, 1)) == std::vector<double>{2, 2, 1, 1});
  CHECK(doubles(diff(x, 1, 0)) == std::vector<double>{1, -1, -4, -8});
  // prepend zeros: [[1, 3, 5, 7], [2, 1, 2, 3]]
  CHECK(doubles(diff(x, 1, -1, zeros({2, 1}, kFloat64))) ==
        std::vector<double>{1, 3, 5, 7, 2, 1, 2, 3});
  CHECK(diff(x, 1, -1, std::nullopt, zeros({2, 2}, kFloat64)).sizes() == Shape{2, 5});
  // bool: "differs" ([True, False, False] -> [True, False]); n past the length: empty.
  CHECK(ints(diff(tensor({true, false, false}))) == std::vector<int64_t>{1, 0});
  CHECK(diff(tensor({1.0, 2.0}), 3).sizes() == Shape{0});
  CHECK(diff(x, 0).sizes() == Shape{2, 4});
  CHECK_THROWS_AS(diff(tensor(1.0)), ShapeError);
  CHECK_THROWS_AS(diff(x, -1), ValueError);
  CHECK_THROWS_AS(diff(x, 1, 2), IndexError);
  CHECK_THROWS_AS(diff(x, 1, -1, zeros({2})), ShapeError);
  CHECK(passes([](const std::vector<Tensor>& v) { return diff(v[0], 2, 0); }, {f64({4, 3}, 1)}));
}

TEST_CASE("cross and linalg_cross", "[vector_ops]") {
  // torch.cross([[1, 0, 0], [0, 1, 0]], [[0, 1, 0], [0, 0, 1]], dim=1) = [[0, 0, 1], [1, 0, 0]]
  const Tensor a = tensor({{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}});
  const Tensor b = tensor({{0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}});
  CHECK(doubles(cross(a, b, 1)) == std::vector<double>{0, 0, 1, 1, 0, 0});
  CHECK(doubles(linalg_cross(a, b)) == std::vector<double>{0, 0, 1, 1, 0, 0});
  // Against the formula on random vectors along dim 0 of a [3, 5] (cross's default: the first
  // dim of size 3), broadcast against one vector.
  const Tensor u = f64({3, 5}, 2), w = f64({3, 1}, 3);
  const std::vector<double> got = doubles(cross(u, w));
  const std::vector<double> uv = doubles(u), wv = doubles(w);
  for (int64_t j = 0; j < 5; ++j) {
    const double x0 = uv[static_cast<size_t>(j)], x1 = uv[static_cast<size_t>(5 + j)],
                 x2 = uv[static_cast<size_t>(10 + j)];
    CHECK(got[static_cast<size_t>(j)] == Approx(x1 * wv[2] - x2 * wv[1]));
    CHECK(got[static_cast<size_t>(5 + j)] == Approx(x2 * wv[0] - x0 * wv[2]));
    CHECK(got[static_cast<size_t>(10 + j)] == Approx(x0 * wv[1] - x1 * wv[0]));
  }
  CHECK_THROWS_AS(linalg_cross(f64({2, 4}, 4), f64({2, 4}, 5)), ShapeError);
  CHECK_THROWS_AS(cross(f64({2, 4}, 4), f64({2, 4}, 5)), ShapeError);
  CHECK_THROWS_AS(linalg_cross(f64({3}, 4), f64({2, 3}, 5)), ShapeError);
  CHECK(passes([](const std::vector<Tensor>& v) { return linalg_cross(v[0], v[1]); },
               {f64({2, 3}, 6), f64({2, 3}, 7)}));
}

TEST_CASE("meshgrid: ij and xy, as views", "[vector_ops]") {
  const Tensor x = tensor({1, 2, 3}), y = tensor({4, 5});
  // torch "ij": X [3, 2] with strides (1, 0); Y [[4, 5], [4, 5], [4, 5]].
  std::vector<Tensor> ij = meshgrid({x, y});
  REQUIRE(ij.size() == 2);
  CHECK(ij[0].sizes() == Shape{3, 2});
  CHECK(ij[0].strides() == Shape{1, 0});
  CHECK(ints(ij[0]) == std::vector<int64_t>{1, 1, 2, 2, 3, 3});
  CHECK(ints(ij[1]) == std::vector<int64_t>{4, 5, 4, 5, 4, 5});
  // "xy": [2, 3], X = [[1, 2, 3], [1, 2, 3]].
  std::vector<Tensor> xy = meshgrid({x, y}, "xy");
  CHECK(xy[0].sizes() == Shape{2, 3});
  CHECK(ints(xy[0]) == std::vector<int64_t>{1, 2, 3, 1, 2, 3});
  CHECK(ints(xy[1]) == std::vector<int64_t>{4, 4, 4, 5, 5, 5});
  // A 0-d input is a dim of size 1 (torch: [[3, 3]] and [[1, 2]]).
  std::vector<Tensor> scalar = meshgrid({tensor(int64_t{3}), tensor({1, 2})});
  CHECK(scalar[0].sizes() == Shape{1, 2});
  CHECK_THROWS_AS(meshgrid({}), ValueError);
  CHECK_THROWS_AS(meshgrid({x}, "ji"), ValueError);
  CHECK_THROWS_AS(meshgrid({zeros({2, 2})}), ShapeError);
  CHECK_THROWS_AS(meshgrid({x, y.to(kFloat32)}), ValueError);
}

TEST_CASE("cdist: every p, both Euclidean paths, zero-distance gradient", "[vector_ops]") {
  // torch.cdist([[0, 0], [3, 4]], [[0, 0], [1, 1], [6, 8]]) and p = 1, inf, 0.
  const Tensor p = tensor({{0.0, 0.0}, {3.0, 4.0}}),
               q = tensor({{0.0, 0.0}, {1.0, 1.0}, {6.0, 8.0}});
  const std::vector<double> d2 = doubles(cdist(p, q));
  const std::vector<double> want2{0, std::sqrt(2.0), 10, 5, std::sqrt(13.0), 5};
  for (size_t i = 0; i < want2.size(); ++i) CHECK(d2[i] == Approx(want2[i]));
  CHECK(doubles(cdist(p, q, 1)) == std::vector<double>{0, 2, 14, 7, 5, 7});
  CHECK(doubles(cdist(p, q, std::numeric_limits<double>::infinity())) ==
        std::vector<double>{0, 1, 8, 4, 3, 4});
  CHECK(doubles(cdist(p, q, 0)) == std::vector<double>{0, 2, 2, 2, 2, 2});
  // The matmul path (P, R > 25) against the difference path, batch dims broadcast.
  const Tensor a = f64({2, 40, 5}, 1), b = f64({30, 5}, 2);
  const Tensor fast = cdist(a, b);
  CHECK(fast.sizes() == Shape{2, 40, 30});
  const Tensor direct = (a.unsqueeze(-2) - b.unsqueeze(-3)).square().sum(-1).sqrt();
  CHECK(allclose(fast, direct, 1e-10, 1e-10));
  // torch: x = [[0, 0], [3, 4]] against [[0, 0], [1, 1]], cdist(x, y).sum() gives
  // x.grad = [[-0.7071, -0.7071], [1.1547, 1.6321]] (the zero distance contributes 0): row 1 is
  // (3, 4) / 5 + (2, 3) / sqrt(13).
  Tensor x = tensor({{0.0, 0.0}, {3.0, 4.0}}, kFloat64).requires_grad_();
  cdist(x, tensor({{0.0, 0.0}, {1.0, 1.0}}, kFloat64)).sum().backward();
  const std::vector<double> g = doubles(x.grad());
  CHECK(g[0] == Approx(-0.70710678));
  CHECK(g[1] == Approx(-0.70710678));
  CHECK(g[2] == Approx(0.6 + 2.0 / std::sqrt(13.0)));
  CHECK(g[3] == Approx(0.8 + 3.0 / std::sqrt(13.0)));
  Tensor y = f64({30, 3}, 3).requires_grad_();
  cdist(y, y.detach()).sum().backward();  // the matmul path: zeros on the diagonal
  for (double v : doubles(y.grad())) CHECK(std::isfinite(v));
  CHECK(passes([](const std::vector<Tensor>& v) { return cdist(v[0], v[1], 1.5); },
               {f64({3, 2}, 4), f64({4, 2}, 5)}));
  CHECK(passes([](const std::vector<Tensor>& v) { return cdist(v[0], v[1]); },
               {f64({26, 2}, 6), f64({27, 2}, 7)}));
  CHECK_THROWS_AS(cdist(f64({3}, 1), f64({3, 3}, 2)), ShapeError);
  CHECK_THROWS_AS(cdist(f64({3, 2}, 1), f64({3, 3}, 2)), ShapeError);
  CHECK_THROWS_AS(cdist(f64({3, 2}, 1), f64({3, 2}, 2), -1), ValueError);
  CHECK_THROWS_AS(cdist(ones({3, 2}, kInt64), ones({3, 2}, kInt64)), DtypeError);
}

TEST_CASE("var_mean and std_mean", "[vector_ops]") {
  // torch.var_mean(x, 1): ([43, 7], [7.5, 4.5]); torch.std_mean(x): (4.8990, 6).
  const Tensor x = tensor({{1.0, 4.0, 9.0, 16.0}, {2.0, 3.0, 5.0, 8.0}});
  auto [v, m] = var_mean(x, {1});
  CHECK(doubles(v) == std::vector<double>{43, 7});
  CHECK(doubles(m) == std::vector<double>{7.5, 4.5});
  auto [s, mm] = std_mean(x);
  CHECK(s.item<double>() == Approx(4.8989795));
  CHECK(mm.item<double>() == 6.0);
}

TEST_CASE("bincount, unique and unique_consecutive", "[vector_ops]") {
  // torch.bincount([0, 1, 1, 3]) = [1, 2, 0, 1]; weights [.5, 1, 1, 2] -> [0.5, 2, 0, 2]
  // (float32); of nothing with minlength 3: [0, 0, 0].
  const Tensor idx = tensor({0, 1, 1, 3});
  CHECK(ints(bincount(idx)) == std::vector<int64_t>{1, 2, 0, 1});
  const Tensor weighted = bincount(idx, tensor({0.5f, 1.0f, 1.0f, 2.0f}));
  // Only float32 weights keep their dtype; bfloat16 ones give float64, as torch's.
  CHECK(bincount(idx, tensor({0.5f, 1.0f, 1.0f, 2.0f}).to(kBFloat16)).dtype() == kFloat64);
  CHECK(weighted.dtype() == kFloat32);
  CHECK(doubles(weighted) == std::vector<double>{0.5, 2, 0, 2});
  CHECK(bincount(idx, tensor({1, 2, 3, 4})).dtype() == kFloat64);
  CHECK(ints(bincount(empty({0}, kInt64), std::nullopt, 3)) == std::vector<int64_t>{0, 0, 0});
  CHECK(bincount(idx, std::nullopt, 6).sizes() == Shape{6});
  CHECK_THROWS_AS(bincount(tensor({-1, 2})), ValueError);  // torch: "non-negative"
  CHECK_THROWS_AS(bincount(tensor({1.0, 2.0})), ValueError);
  CHECK_THROWS_AS(bincount(zeros({2, 2}, kInt64)), ValueError);
  CHECK_THROWS_AS(bincount(idx, ones({3})), ShapeError);
  // torch.unique([3, 1, 3, 2, 1], return_inverse, return_counts):
  // ([1, 2, 3], [2, 0, 2, 1, 0], [2, 1, 2]).
  auto [values, inverse, counts] = unique(tensor({3, 1, 3, 2, 1}), true, true, true);
  CHECK(ints(values) == std::vector<int64_t>{1, 2, 3});
  CHECK(ints(inverse) == std::vector<int64_t>{2, 0, 2, 1, 0});
  CHECK(ints(counts) == std::vector<int64_t>{2, 1, 2});
  // The inverse has the input's shape; values[inverse] rebuilds the input.
  const Tensor m = randint(0, 5, {4, 6});
  auto [mv, mi, mc] = unique(m, true, true, true);
  CHECK(mi.sizes() == Shape{4, 6});
  CHECK(ints(mv.index_select(0, mi.reshape({-1})).reshape({4, 6})) == ints(m));
  CHECK(ints(mc.sum()) == std::vector<int64_t>{24});
  // NaNs are each distinct and last (torch: [1, nan, nan]); bool; not asked: empty tensors.
  auto [fv, fi, fc] = unique(tensor({std::nan(""), 1.0, std::nan("")}));
  CHECK(fv.numel() == 3);
  CHECK(doubles(fv)[0] == 1.0);
  CHECK(std::isnan(doubles(fv)[2]));
  CHECK(fi.numel() == 0);
  CHECK(fc.numel() == 0);
  auto [bv, bi, bc] = unique(tensor({true, false, true}), true, false, true);
  CHECK(ints(bv) == std::vector<int64_t>{0, 1});
  CHECK(ints(bc) == std::vector<int64_t>{1, 2});
  CHECK(std::get<0>(unique(empty({0}))).numel() == 0);
  // torch.unique_consecutive([1, 1, 2, 2, 3, 1, 1], return_counts=True): ([1, 2, 3, 1],
  // [2, 2, 1, 2]).
  auto [cv, ci, cc] = unique_consecutive(tensor({1, 1, 2, 2, 3, 1, 1}), true, true);
  CHECK(ints(cv) == std::vector<int64_t>{1, 2, 3, 1});
  CHECK(ints(ci) == std::vector<int64_t>{0, 0, 1, 1, 2, 3, 3});
  CHECK(ints(cc) == std::vector<int64_t>{2, 2, 1, 2});
}
