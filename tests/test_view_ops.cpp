// test_view_ops.cpp: diagonal and unfold (views), where(condition) and unique over a dim,
// against python3-torch 1.13's sizes, strides, offsets, values, gradients and errors (the
// values in the comments are torch's).
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
std::vector<int64_t> ints(const Tensor& t) {
  return t.to(kInt64).contiguous().to_vector<int64_t>();
}
}  // namespace

TEST_CASE("diagonal: sizes, strides and offsets as torch's, and a view", "[views]") {
  const Tensor x = arange(24).to(kFloat32).view({2, 3, 4});
  // x.diagonal(1, 0, 2): [3, 2], strides (4, 13), offset 1, [[1, 14], [5, 18], [9, 22]].
  const Tensor d = x.diagonal(1, 0, 2);
  CHECK(d.sizes() == Shape{3, 2});
  CHECK(d.strides() == Shape{4, 13});
  CHECK(d.storage_offset() == 1);
  CHECK(doubles(d) == std::vector<double>{1, 14, 5, 18, 9, 22});
  CHECK(d.storage() == x.storage());
  // dim1 = 2, dim2 = 0, offset -1 is the same diagonal.
  CHECK(doubles(x.diagonal(-1, 2, 0)) == doubles(d));
  // Past the plane: empty, offset kept (x.diagonal(5): [4, 0], offset 0).
  CHECK(x.diagonal(5).sizes() == Shape{4, 0});
  CHECK(x.diagonal(5).storage_offset() == 0);
  CHECK(x.diagonal(-7, 1, 2).sizes() == Shape{2, 0});
  CHECK(x.diagonal(std::numeric_limits<int64_t>::min()).sizes() == Shape{4, 0});
  CHECK(x.diagonal(std::numeric_limits<int64_t>::max()).sizes() == Shape{4, 0});
  // An empty tensor whose two strides sum past int64: an empty diagonal, no overflow.
  CHECK(zeros({0, 3, int64_t{1} << 61}).diagonal(0, 0, 1).sizes() == Shape{int64_t{1} << 61, 0});
  // The function form, and trace-like use on a square matrix.
  const Tensor m = arange(9).view({3, 3});
  CHECK(ints(diagonal(m)) == std::vector<int64_t>{0, 4, 8});
  CHECK(ints(diagonal(m, -1)) == std::vector<int64_t>{3, 7});
  CHECK(ints(m.t().diagonal(1)) == std::vector<int64_t>{3, 7});
  // Writes through the view reach the base (the fill_diagonal_ idiom).
  Tensor w = zeros({3, 4});
  w.diagonal().fill_(7.0);
  CHECK(doubles(w.sum()) == std::vector<double>{21});
  CHECK(w.select(0, 1).select(0, 1).item<float>() == 7.0f);
  // torch: "diagonal dimensions cannot be identical"; dims out of range; fewer than 2 dims.
  CHECK_THROWS_AS(x.diagonal(0, 1, 1), ValueError);
  CHECK_THROWS_AS(x.diagonal(0, 1, -2), ValueError);
  CHECK_THROWS_AS(x.diagonal(0, 0, 3), IndexError);
  CHECK_THROWS_AS(ones({3}).diagonal(), ShapeError);
  CHECK_THROWS_AS(ones({}).diagonal(), ShapeError);
  // diag of a vector on a diagonal too far out for an int64 size: an error, not an overflow.
  CHECK_THROWS_AS(diag(ones({3}), std::numeric_limits<int64_t>::max()), ShapeError);
  CHECK_THROWS_AS(diag(ones({3}), std::numeric_limits<int64_t>::min()), ShapeError);
  CHECK_THROWS_AS(diag(ones({3}), int64_t{1} << 32), ShapeError);
  // trace and diag of a matrix read the diagonal view.
  CHECK(ints(diag(m, 1)) == std::vector<int64_t>{1, 5});
  CHECK(ints(trace(m)) == std::vector<int64_t>{12});
}

TEST_CASE("unfold: windows as torch's, overlapping or not", "[views]") {
  // arange(7).unfold(0, 3, 2): [[0, 1, 2], [2, 3, 4], [4, 5, 6]], strides (2, 1).
  const Tensor u = arange(7).unfold(0, 3, 2);
  CHECK(u.sizes() == Shape{3, 3});
  CHECK(u.strides() == Shape{2, 1});
  CHECK(ints(u) == std::vector<int64_t>{0, 1, 2, 2, 3, 4, 4, 5, 6});
  // arange(12).view(3, 4).unfold(1, 2, 1): [3, 3, 2], strides (4, 1, 1).
  const Tensor m = arange(12).view({3, 4}).unfold(1, 2, 1);
  CHECK(m.sizes() == Shape{3, 3, 2});
  CHECK(m.strides() == Shape{4, 1, 1});
  CHECK(ints(m.select(0, 2)) == std::vector<int64_t>{8, 9, 9, 10, 10, 11});
  // Of a transposed view: the windows follow the view's strides.
  const Tensor t = arange(6).view({2, 3}).t().unfold(0, 2, 1);  // [2, 2, 2]
  CHECK(ints(t) == std::vector<int64_t>{0, 1, 3, 4, 1, 2, 4, 5});
  // Sizes 0 and the whole dim; a 0-d tensor unfolds as one element (torch: [5.] and [0]).
  CHECK(arange(7).unfold(0, 7, 1).sizes() == Shape{1, 7});
  CHECK(arange(7).unfold(0, 0, 1).sizes() == Shape{8, 0});
  CHECK(zeros({0, 3}).unfold(0, 0, 1).sizes() == Shape{1, 3, 0});
  CHECK(doubles(full({}, 5.0).unfold(0, 1, 1)) == std::vector<double>{5});
  CHECK(full({}, 5.0).unfold(-1, 0, 3).sizes() == Shape{0});
  // torch: "maximum size for tensor at dimension 0 is 7 but size is 8"; "step is 0".
  CHECK_THROWS_AS(arange(7).unfold(0, 8, 1), ShapeError);
  CHECK_THROWS_AS(arange(7).unfold(0, -1, 1), ShapeError);
  CHECK_THROWS_AS(full({}, 5.0).unfold(0, 2, 1), ShapeError);
  CHECK_THROWS_AS(arange(7).unfold(0, 2, 0), ValueError);
  CHECK_THROWS_AS(arange(7).unfold(1, 2, 1), IndexError);
  // A 16-dim tensor has no room for the windows' dim (found by fuzz_ops).
  CHECK_THROWS_AS(ones(Shape::filled(16, 1)).unfold(0, 1, 1), ShapeError);
  // Sliding sums by a view: no copy until the sum.
  CHECK(ints(arange(6).unfold(0, 3, 1).sum(1)) == std::vector<int64_t>{3, 6, 9, 12});
}

TEST_CASE("diagonal and unfold: gradients as torch's", "[views][autograd]") {
  // x = arange(12.).view(3, 4); (x.unfold(1, 3, 1) ** 2).sum() -> 2x times the windows that
  // hold each column: 1, 2, 2, 1.
  Tensor x = arange(12).to(kFloat32).view({3, 4}).requires_grad_(true);
  Tensor u = x.unfold(1, 3, 1);
  (u * u).sum().backward();
  std::vector<double> want;
  for (int i = 0; i < 12; ++i) want.push_back(2.0 * i * (i % 4 == 0 || i % 4 == 3 ? 1 : 2));
  CHECK(doubles(x.grad()) == want);
  // Windows longer than their count (size 3 of 4: 2 windows), added one window at a time,
  // and disjoint ones (step 3 past size 2: columns 0, 1 only).
  Tensor y = arange(4).to(kFloat64).requires_grad_(true);
  (y.unfold(0, 3, 1).sum() + 10.0 * y.unfold(0, 2, 3).sum()).backward();
  CHECK(doubles(y.grad()) == std::vector<double>{11, 12, 2, 1});
  // diagonal: the gradient on the diagonal only, of each batch (torch: eye-like).
  Tensor z = ones({2, 3, 3}).requires_grad_(true);
  (z.diagonal(0, 1, 2) * 3.0).sum().backward();
  CHECK(doubles(z.grad().sum({0})) == std::vector<double>{6, 0, 0, 0, 6, 0, 0, 0, 6});
  // An in-place write through a view of a tensor that needs a gradient is refused.
  Tensor leaf = ones({3, 3}).requires_grad_(true);
  Tensor view = leaf.diagonal();
  CHECK_THROWS(view.fill_(0.0));
}

TEST_CASE("where(condition): nonzero's columns", "[views]") {
  // torch.where([[0, 1], [1, 1]]) = ([0, 1, 1], [1, 0, 1]); of True: ([0],).
  const auto positions = where(tensor({0, 1, 1, 1}).view({2, 2}));
  REQUIRE(positions.size() == 2);
  CHECK(ints(positions[0]) == std::vector<int64_t>{0, 1, 1});
  CHECK(ints(positions[1]) == std::vector<int64_t>{1, 0, 1});
  CHECK(positions[0].dtype() == kInt64);
  const auto scalar = where(full({}, 1.0).to(kBool));
  REQUIRE(scalar.size() == 1);
  CHECK(ints(scalar[0]) == std::vector<int64_t>{0});
  CHECK(where(full({}, 0.0)).at(0).numel() == 0);
  CHECK(where(zeros({2, 0, 3})).size() == 3);
}

TEST_CASE("unique over a dim and unique_consecutive over a dim", "[vector_ops]") {
  const Tensor a = tensor({1, 2, 3, 0, 5, 1, 1, 2, 3, 0, 5, 0, 1, 2, 3}).view({5, 3});
  // torch.unique(a, dim=0, return_inverse=True, return_counts=True):
  // ([[0, 5, 0], [0, 5, 1], [1, 2, 3]], [2, 1, 2, 0, 2], [1, 1, 3]).
  auto [v, i, c] = unique_dim(a, 0, true, true, true);
  CHECK(v.sizes() == Shape{3, 3});
  CHECK(ints(v) == std::vector<int64_t>{0, 5, 0, 0, 5, 1, 1, 2, 3});
  CHECK(ints(i) == std::vector<int64_t>{2, 1, 2, 0, 2});
  CHECK(ints(c) == std::vector<int64_t>{1, 1, 3});
  // dim=1: the columns are all distinct and already in order: a itself, [0, 1, 2], ones.
  auto [v1, i1, c1] = unique_dim(a, -1, true, true, true);
  CHECK(ints(v1) == ints(a));
  CHECK(ints(i1) == std::vector<int64_t>{0, 1, 2});
  CHECK(ints(c1) == std::vector<int64_t>{1, 1, 1});
  // unique_consecutive(a, dim=0): no neighbours equal: a, [0..4], ones.
  auto [cv, ci, cc] = unique_consecutive(a, true, true, 0);
  CHECK(ints(cv) == ints(a));
  CHECK(ints(ci) == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(ints(cc) == std::vector<int64_t>{1, 1, 1, 1, 1});
  auto [rv, ri, rc] = unique_consecutive(tensor({1, 1, 2, 2, 1, 1}).view({3, 2}), true, true, 0);
  CHECK(ints(rv) == std::vector<int64_t>{1, 1, 2, 2, 1, 1});
  CHECK(ints(ri) == std::vector<int64_t>{0, 1, 2});
  // (arange(24) % 3).view(2, 3, 4), dim=2: columns [[0, 1, 2], [1, 2, 0], [2, 0, 1]] of each
  // batch, inverse [0, 1, 2, 0], counts [2, 1, 1].
  const Tensor b = remainder(arange(24), 3).view({2, 3, 4});
  auto [bv, bi, bc] = unique_dim(b, 2, true, true, true);
  CHECK(bv.sizes() == Shape{2, 3, 3});
  CHECK(ints(bv.select(0, 1)) == std::vector<int64_t>{0, 1, 2, 1, 2, 0, 2, 0, 1});
  CHECK(ints(bi) == std::vector<int64_t>{0, 1, 2, 0});
  CHECK(ints(bc) == std::vector<int64_t>{2, 1, 1});
  // bool: ([[False, False], [True, False]], [1, 0, 1], [1, 2]).
  const Tensor flags = tensor({true, false, false, false, true, false}).view({3, 2});
  auto [fv, fi, fc] = unique_dim(flags, 0, true, true, true);
  CHECK(fv.dtype() == kBool);
  CHECK(ints(fv) == std::vector<int64_t>{0, 0, 1, 0});
  CHECK(ints(fi) == std::vector<int64_t>{1, 0, 1});
  // NaN rows are each distinct and sort last; -0 equals 0:
  // [[1, nan], [1, nan], [-0, 2]] -> ([[-0, 2], [1, nan], [1, nan]], [1, 2, 0], [1, 1, 1]).
  const double nan = std::nan("");
  const Tensor f = tensor({1.0, nan, 1.0, nan, -0.0, 2.0}).to(kFloat64).view({3, 2});
  auto [nv, ni, nc] = unique_dim(f, 0, true, true, true);
  CHECK(nv.sizes() == Shape{3, 2});
  CHECK(ints(ni) == std::vector<int64_t>{1, 2, 0});
  CHECK(ints(nc) == std::vector<int64_t>{1, 1, 1});
  CHECK(std::signbit(doubles(nv)[0]));
  CHECK(ints(std::get<2>(unique_dim(tensor({0.0, 1.0, -0.0, 1.0}).view({2, 2}), 0, true, false,
                                    true))) == std::vector<int64_t>{2});
  // Not asked for: empty. Nothing along dim: an empty result of a's other sizes.
  auto [ev, ei, ec] = unique_dim(zeros({0, 3}), 0, true, true, true);
  CHECK(ev.sizes() == Shape{0, 3});
  CHECK(ei.numel() == 0);
  CHECK(ec.numel() == 0);
  CHECK(std::get<1>(unique_dim(a, 0)).numel() == 0);
  CHECK(std::get<0>(unique_dim(zeros({3, 0}), 1)).sizes() == Shape{3, 0});
  // torch: "There are 0 sized dimensions, and they aren't selected"; 0-d; dim out of range.
  CHECK_THROWS_AS(unique_dim(zeros({3, 0}), 0), ValueError);
  CHECK_THROWS_AS(unique_consecutive(zeros({3, 0}), false, false, 0), ValueError);
  CHECK_THROWS_AS(unique_dim(full({}, 3.0), 0), IndexError);
  CHECK_THROWS_AS(unique_dim(a, 2), IndexError);
  // The inverse rebuilds a: v.index_select(0, i) == a, for random rows with repeats.
  const Tensor r = randint(0, 2, {40, 3});
  auto [rv2, ri2, rc2] = unique_dim(r, 0, true, true, true);
  CHECK(ints(rv2.index_select(0, ri2)) == ints(r));
  CHECK(ints(rc2.sum()) == std::vector<int64_t>{40});
  CHECK(rv2.size(0) <= 8);
}

TEST_CASE("layout ops at their edges, as torch's (found by review)", "[views]") {
  const auto doubles = [](const Tensor& t) {
    return t.to(kFloat64).contiguous().to_vector<double>();
  };
  // movedim of a 0-d tensor: the tensor (dim 0 or -1 named), not a read out of bounds.
  const Tensor scalar = tensor(3.0);
  CHECK(movedim(scalar, Shape{0}, Shape{0}).item<float>() == 3);
  CHECK(movedim(scalar, Shape{-1}, Shape{0}).dim() == 0);
  // repeat_interleave along a dim of a 0-d tensor: an error, as torch's; without a dim, fine.
  CHECK_THROWS_AS(repeat_interleave(scalar, 2, 0), IndexError);
  CHECK(doubles(repeat_interleave(scalar, 2)) == std::vector<double>{3, 3});
  // Counts of 1 still make a new tensor: writing to it leaves the input alone.
  const Tensor base = arange(3, kFloat32);
  for (Tensor copy : {base.repeat({1}), tile(base, {1}), repeat_interleave(base, 1, 0),
                      repeat_interleave(base, 1)}) {
    copy.fill_(-1.0);
    CHECK(doubles(base) == std::vector<double>{0, 1, 2});
  }
  {  // and a recorded one can be changed in place (torch: grad [2, 2, 2])
    const Tensor leaf = ones({3}).requires_grad_();
    Tensor y = (leaf * 1.0).repeat({1});
    y.mul_(2.0);
    y.sum().backward();
    CHECK(doubles(leaf.grad()) == std::vector<double>{2, 2, 2});
  }
  // Beyond 8 dims repeat's paired shape would pass 16 dims; 16-d repeat_interleave too.
  CHECK(ones(Shape::filled(9, 1)).repeat(Shape::filled(9, 2)).sum().item<float>() == 512);
  Shape sixteen = Shape::filled(16, 1);
  sixteen[3] = 2;
  const Tensor wide = repeat_interleave(arange(2, kFloat32).reshape(sixteen), 2, 3);
  CHECK(wide.size(3) == 4);
  CHECK(doubles(wide) == std::vector<double>{0, 0, 1, 1});
  // roll over a dim named twice rolls twice: torch gives [3, 4, 0, 1, 2] and
  // [[3, 4, 5], [0, 1, 2]] for shifts (1, 2, -1) over dims (1, 1, 0) of arange(6) as [2, 3].
  CHECK(doubles(roll(arange(5), {1, 1}, {0, 0})) == std::vector<double>{3, 4, 0, 1, 2});
  CHECK(doubles(roll(arange(6).reshape({2, 3}), {1, 2, -1}, {1, 1, 0})) ==
        std::vector<double>{3, 4, 5, 0, 1, 2});
  // diag of a bool vector (index_add has no bool): torch.diag([True, True], 1).
  const Tensor d = diag(tensor({true, true}), 1);
  CHECK(d.dtype() == kBool);
  CHECK(doubles(d) == std::vector<double>{0, 1, 0, 0, 0, 1, 0, 0, 0});
}
