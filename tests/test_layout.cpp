// test_layout.cpp: the arrangements of wick/ops_layout.hpp against python3-torch 1.13's values,
// shapes and errors (in the comments), with gradients where they are differentiable.
#include <catch2/catch.hpp>
#include <vector>
#include <wick/wick.hpp>

#include "gradcheck_util.hpp"

using namespace wick;

namespace {
std::vector<int64_t> ints(const Tensor& t) {
  return t.to(kInt64).contiguous().to_vector<int64_t>();
}
std::vector<double> doubles(const Tensor& t) {
  return t.to(kFloat64).contiguous().to_vector<double>();
}
std::vector<std::vector<int64_t>> ints_of(const std::vector<Tensor>& pieces) {
  std::vector<std::vector<int64_t>> out;
  for (const Tensor& p : pieces) out.push_back(ints(p));
  return out;
}
using Pieces = std::vector<std::vector<int64_t>>;
}  // namespace

TEST_CASE("tensor_split, hsplit, vsplit, dsplit as torch's", "[layout]") {
  const Tensor x = arange(10);
  // torch.tensor_split(arange(10), 3): [0..3], [4..6], [7..9].
  CHECK(ints_of(tensor_split(x, 3)) == Pieces{{0, 1, 2, 3}, {4, 5, 6}, {7, 8, 9}});
  // indices [2, 5, 20, -1]: [0, 1], [2, 3, 4], [5..9], [], [9]; [7, 3]: [0..6], [], [3..9].
  CHECK(ints_of(tensor_split(x, {2, 5, 20, -1})) ==
        Pieces{{0, 1}, {2, 3, 4}, {5, 6, 7, 8, 9}, {}, {9}});
  CHECK(ints_of(x.tensor_split({7, 3})) ==
        Pieces{{0, 1, 2, 3, 4, 5, 6}, {}, {3, 4, 5, 6, 7, 8, 9}});
  CHECK(tensor_split(x, 12).size() == 12);  // more sections than elements: empty pieces
  CHECK(tensor_split(arange(12).view({3, 4}), 2, 1)[1].sizes() == Shape{3, 2});
  CHECK(tensor_split(x, 3)[0].storage() == x.storage());  // views
  CHECK_THROWS_AS(tensor_split(x, 0), ValueError);
  CHECK_THROWS_AS(tensor_split(ones({}), 2), ShapeError);
  // hsplit(zeros(2, 6), 3): three [2, 2]; of a 1-D tensor along dim 0; 6 is not divisible
  // by 4 (torch's error).
  for (const Tensor& piece : hsplit(zeros({2, 6}), 3)) CHECK(piece.sizes() == Shape{2, 2});
  CHECK(hsplit(zeros({6}), Shape{1})[1].sizes() == Shape{5});
  CHECK_THROWS_AS(hsplit(zeros({2, 6}), 4), ValueError);
  CHECK(vsplit(zeros({4, 3}), 2)[1].sizes() == Shape{2, 3});
  CHECK(dsplit(zeros({1, 2, 6}), Shape{2, 4})[2].sizes() == Shape{1, 2, 2});
  CHECK_THROWS_AS(vsplit(zeros({4}), 2), ShapeError);
  CHECK_THROWS_AS(dsplit(zeros({4, 2}), 2), ShapeError);
}

TEST_CASE("broadcast_to, broadcast_tensors, flips, ravel", "[layout]") {
  const Tensor a = arange(3);
  CHECK(broadcast_to(a, {2, 3}).strides() == Shape{0, 1});
  CHECK(a.broadcast_to({4, -1}).sizes() == Shape{4, 3});
  CHECK_THROWS_AS(broadcast_to(a, {2, 4}), ShapeError);
  const auto both = broadcast_tensors({a.view({3, 1}), arange(4), full({}, 1.0)});
  REQUIRE(both.size() == 3);
  for (const Tensor& t : both) CHECK(t.sizes() == Shape{3, 4});
  CHECK(ints(both[1].select(0, 2)) == std::vector<int64_t>{0, 1, 2, 3});
  CHECK_THROWS_AS(broadcast_tensors({arange(3), arange(4)}), ShapeError);
  // torch.fliplr(arange(4).view(2, 2)) = [[1, 0], [3, 2]]; flipud(arange(3)) = [2, 1, 0].
  CHECK(ints(fliplr(arange(4).view({2, 2}))) == std::vector<int64_t>{1, 0, 3, 2});
  CHECK(ints(arange(3).flipud()) == std::vector<int64_t>{2, 1, 0});
  CHECK_THROWS_AS(fliplr(arange(3)), ShapeError);
  CHECK_THROWS_AS(flipud(ones({})), ShapeError);
  // ravel(arange(6).view(2, 3).t()) = [0, 3, 1, 4, 2, 5]; a contiguous tensor's is a view.
  CHECK(ints(ravel(arange(6).view({2, 3}).t())) == std::vector<int64_t>{0, 3, 1, 4, 2, 5});
  const Tensor c = arange(6).view({2, 3});
  CHECK(c.ravel().storage() == c.storage());
}

TEST_CASE("block_diag, cartesian_prod, combinations, triangle indices, diagflat", "[layout]") {
  // torch.block_diag(tensor(2), tensor([1, 2]), tensor([[1.5, 2], [3, 4]])): [4, 5] float32,
  // [[2,0,0,0,0], [0,1,2,0,0], [0,0,0,1.5,2], [0,0,0,3,4]].
  const Tensor b = block_diag(
      {full({}, int64_t{2}), tensor({1, 2}), tensor({1.5f, 2.0f, 3.0f, 4.0f}).view({2, 2})});
  CHECK(b.dtype() == kFloat32);
  CHECK(doubles(b) ==
        std::vector<double>{2, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 1.5, 2, 0, 0, 0, 3, 4});
  CHECK(block_diag({tensor({1, 2})}).dtype() == kInt64);
  CHECK(block_diag({}).sizes() == Shape{1, 0});
  CHECK_THROWS_AS(block_diag({ones({1, 1, 1})}), ShapeError);
  // cartesian_prod([1, 2], [3, 4, 5]) = [[1,3],[1,4],[1,5],[2,3],[2,4],[2,5]]; one tensor: itself.
  CHECK(ints(cartesian_prod({tensor({1, 2}), tensor({3, 4, 5})})) ==
        std::vector<int64_t>{1, 3, 1, 4, 1, 5, 2, 3, 2, 4, 2, 5});
  CHECK(ints(cartesian_prod({tensor({1, 2})})) == std::vector<int64_t>{1, 2});
  CHECK_THROWS_AS(cartesian_prod({ones({2, 2})}), ShapeError);
  // combinations([1, 2, 3]) = [[1,2],[1,3],[2,3]]; with replacement
  // [[1,1],[1,2],[1,3],[2,2],[2,3],[3,3]]; r = 0: []; r = 4: [0, 4].
  const Tensor v = tensor({1, 2, 3});
  CHECK(ints(combinations(v)) == std::vector<int64_t>{1, 2, 1, 3, 2, 3});
  CHECK(ints(combinations(v, 2, true)) == std::vector<int64_t>{1, 1, 1, 2, 1, 3, 2, 2, 2, 3, 3, 3});
  CHECK(combinations(v, 0).sizes() == Shape{0});
  CHECK(combinations(v, 4).sizes() == Shape{0, 4});
  CHECK(combinations(v, 3).sizes() == Shape{1, 3});
  // tril_indices(3, 4, 1) = [[0,0,1,1,1,2,2,2,2], [0,1,0,1,2,0,1,2,3]];
  // triu_indices(3, 3, -1) = [[0,0,0,1,1,1,2,2], [0,1,2,0,1,2,1,2]]; (0, 3): [2, 0].
  CHECK(ints(tril_indices(3, 4, 1)) ==
        std::vector<int64_t>{0, 0, 1, 1, 1, 2, 2, 2, 2, 0, 1, 0, 1, 2, 0, 1, 2, 3});
  CHECK(ints(triu_indices(3, 3, -1)) ==
        std::vector<int64_t>{0, 0, 0, 1, 1, 1, 2, 2, 0, 1, 2, 0, 1, 2, 1, 2});
  CHECK(tril_indices(0, 3).sizes() == Shape{2, 0});
  CHECK(tril_indices(2, 2).dtype() == kInt64);
  CHECK_THROWS_AS(tril_indices(-1, 2), ValueError);
  // diagflat([[1, 2], [3, 4]], 1): [5, 5] with 1..4 above the diagonal.
  const Tensor f = diagflat(tensor({1, 2, 3, 4}).view({2, 2}), 1);
  CHECK(f.sizes() == Shape{5, 5});
  CHECK(ints(f.diagonal(1)) == std::vector<int64_t>{1, 2, 3, 4});
  CHECK(ints(f.sum()) == std::vector<int64_t>{10});
}

TEST_CASE("select_scatter, slice_scatter, diagonal_scatter: values and gradients", "[layout]") {
  const Tensor a = arange(12).to(kFloat32).view({3, 4});
  // select_scatter(a, [9, 9, 9], 1, 2): column 2 set to 9 (an int64 src is cast, as torch).
  CHECK(doubles(select_scatter(a, tensor({9, 9, 9}), 1, 2)) ==
        std::vector<double>{0, 1, 9, 3, 4, 5, 9, 7, 8, 9, 9, 11});
  // slice_scatter(a, zeros(3, 2), 1, 0, 4, 2): columns 0 and 2 zeroed.
  CHECK(doubles(slice_scatter(a, zeros({3, 2}), 1, 0, 4, 2)) ==
        std::vector<double>{0, 1, 0, 3, 0, 5, 0, 7, 0, 9, 0, 11});
  // diagonal_scatter(a, [7, 7, 7], 1): (0, 1), (1, 2), (2, 3) set to 7.
  CHECK(doubles(diagonal_scatter(a, full({3}, 7.0), 1)) ==
        std::vector<double>{0, 7, 2, 3, 4, 5, 7, 7, 8, 9, 10, 7});
  CHECK(doubles(a.sum()) == std::vector<double>{66});  // a itself unchanged
  // torch: "expected src to have a size equal to the slice of self".
  CHECK_THROWS_AS(select_scatter(a, ones({2}), 1, 2), ShapeError);
  CHECK_THROWS_WITH(select_scatter(a, ones({3}), 1, 4), Catch::Contains("select_scatter") &&
                                                            Catch::Contains("index 4") &&
                                                            Catch::Contains(describe(a)));
  CHECK_THROWS_AS(select_scatter(a, ones({3}), 1, 4), IndexError);
  CHECK_THROWS_AS(diagonal_scatter(a, ones({3}), 0, 1, 1), ValueError);
  // Gradients: a's where it was not overwritten, src's where it went (gradcheck).
  auto fn = [](const std::vector<Tensor>& in) {
    return select_scatter(in[0], in[1], 0, 1) * 2.0 + diagonal_scatter(in[0], in[2], -1).exp() +
           slice_scatter(in[0], in[1].unsqueeze(0).expand({2, 4}), 0, 0, 3, 2);
  };
  std::vector<Tensor> inputs{randn({3, 4}, kFloat64).requires_grad_(true),
                             randn({4}, kFloat64).requires_grad_(true),
                             randn({2}, kFloat64).requires_grad_(true)};
  CHECK(autograd::gradcheck(fn, inputs) == "");
}
