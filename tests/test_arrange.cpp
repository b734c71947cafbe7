// test_arrange.cpp: movedim, swapaxes, swapdims, unflatten, atleast_*d, vstack, hstack, dstack,
// column_stack, mv and tensordot against PyTorch 1.13's shapes, strides and values (from
// python3-torch, written beside each check), their errors, and their gradients.
#include <catch2/catch.hpp>

#include "wick/wick.hpp"

using namespace wick;

namespace {

std::vector<int64_t> ints(const Tensor& t) {
  return t.contiguous().reshape({t.numel()}).to(kInt64).to_vector<int64_t>();
}
std::vector<float> floats(const Tensor& t) {
  return t.contiguous().reshape({t.numel()}).to(kFloat32).to_vector<float>();
}

}  // namespace

TEST_CASE("movedim, swapaxes, swapdims: PyTorch's views", "[arrange]") {
  const Tensor x = arange(24, kFloat32).reshape({2, 3, 4});
  // torch: movedim(x, [0, 2], [2, 0]) is [4, 3, 2] with strides (1, 4, 12); movedim(x, 1, -1)
  // [2, 4, 3] with (12, 1, 4); movedim(x, [2, 0], [0, 1]) [4, 2, 3] with (1, 12, 4).
  const Tensor a = movedim(x, {0, 2}, {2, 0});
  CHECK(a.sizes() == Shape{4, 3, 2});
  CHECK(a.strides() == Shape{1, 4, 12});
  CHECK(x.movedim(1, -1).strides() == Shape{12, 1, 4});
  const Tensor b = x.movedim({2, 0}, {0, 1});
  CHECK(b.sizes() == Shape{4, 2, 3});
  CHECK(b.strides() == Shape{1, 12, 4});
  CHECK(b.storage().get() == x.storage().get());  // a view
  CHECK(equal(swapaxes(x, 0, 2), x.transpose(0, 2)));
  CHECK(equal(x.swapdims(-1, 1), x.transpose(1, 2)));
  CHECK_THROWS_WITH(movedim(x, {0, 0}, {1, 2}),
                    Catch::Contains("movedim") && Catch::Contains("repeated dim 0"));
  CHECK_THROWS_AS(movedim(x, {0}, {1, 2}), ShapeError);
  CHECK_THROWS_AS(movedim(x, 3, 0), IndexError);
  // The gradient comes back through the permutation.
  const Tensor leaf = arange(6, kFloat64).reshape({2, 3}).requires_grad_();
  (leaf.movedim(0, 1) * arange(6, kFloat64).reshape({3, 2})).sum().backward();
  CHECK(floats(leaf.grad()) == std::vector<float>{0, 2, 4, 1, 3, 5});
}

TEST_CASE("unflatten and atleast_1d/2d/3d", "[arrange]") {
  const Tensor x = arange(24, kFloat32).reshape({2, 3, 4});
  // torch: x.unflatten(2, (2, -1)) and x.unflatten(-1, (2, 2)) are [2, 3, 2, 2].
  CHECK(x.unflatten(2, {2, -1}).sizes() == Shape{2, 3, 2, 2});
  CHECK(equal(unflatten(x, -1, {2, 2}).reshape({24}), x.reshape({24})));
  // torch: "Provided sizes [2, 2] don't multiply up to the size of dim 1 (3)".
  CHECK_THROWS_WITH(x.unflatten(1, {2, 2}), Catch::Contains("unflatten") &&
                                                Catch::Contains("[2, 2]") &&
                                                Catch::Contains("size 3"));
  CHECK_THROWS_AS(x.unflatten(1, {-1, -1}), ShapeError);
  CHECK_THROWS_AS(x.unflatten(1, {}), ShapeError);
  // torch: atleast_3d([1, 2]) [1, 2, 1]; of [2, 3] [2, 3, 1]; atleast_2d(5.) [1, 1].
  CHECK(atleast_3d(tensor({1, 2})).sizes() == Shape{1, 2, 1});
  CHECK(atleast_3d(ones({2, 3})).sizes() == Shape{2, 3, 1});
  CHECK(atleast_3d(tensor(5.0f)).sizes() == Shape{1, 1, 1});
  CHECK(atleast_2d(tensor(5.0f)).sizes() == Shape{1, 1});
  CHECK(atleast_2d(tensor({1, 2})).sizes() == Shape{1, 2});
  CHECK(atleast_1d(tensor(5.0f)).sizes() == Shape{1});
  CHECK(atleast_1d(ones({2, 2})).sizes() == Shape{2, 2});
}

TEST_CASE("vstack, hstack, dstack, column_stack: PyTorch's values", "[arrange]") {
  const Tensor v = tensor({1, 2});
  const Tensor m = tensor({{3, 4}, {5, 6}});
  // torch: vstack [[1, 2], [3, 4], [5, 6]]; hstack of [1, 2] and [3] is [1, 2, 3]; of ones(2, 1)
  // and zeros(2, 2) [[1, 0, 0], [1, 0, 0]]; dstack [[[1, 3], [2, 4]]] of shape [1, 2, 2];
  // column_stack of [1, 2], m, [7, 8] is [[1, 3, 4, 7], [2, 5, 6, 8]].
  CHECK(ints(vstack({v, m})) == std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  CHECK(vstack({v, m}).sizes() == Shape{3, 2});
  CHECK(ints(hstack({v, tensor({3})})) == std::vector<int64_t>{1, 2, 3});
  CHECK(floats(hstack({ones({2, 1}), zeros({2, 2})})) == std::vector<float>{1, 0, 0, 1, 0, 0});
  const Tensor d = dstack({v, tensor({3, 4})});
  CHECK(d.sizes() == Shape{1, 2, 2});
  CHECK(ints(d) == std::vector<int64_t>{1, 3, 2, 4});
  const Tensor c = column_stack({v, m, tensor({7, 8})});
  CHECK(c.sizes() == Shape{2, 4});
  CHECK(ints(c) == std::vector<int64_t>{1, 3, 4, 7, 2, 5, 6, 8});
  CHECK_THROWS_AS(vstack({}), ValueError);
  CHECK_THROWS_AS(hstack({ones({2, 1}), ones({3, 1})}), ShapeError);
  // Gradients flow back to each piece.
  const Tensor p = ones({2}, kFloat64).requires_grad_();
  const Tensor q = ones({1, 2}, kFloat64).requires_grad_();
  (vstack({p, q}) * tensor({{1.0, 2.0}, {3.0, 4.0}}).to(kFloat64)).sum().backward();
  CHECK(floats(p.grad()) == std::vector<float>{1, 2});
  CHECK(floats(q.grad()) == std::vector<float>{3, 4});
}

TEST_CASE("mv and tensordot: PyTorch's values and errors", "[arrange]") {
  const Tensor m = arange(6, kFloat32).reshape({2, 3});
  CHECK(floats(mv(m, tensor({1.0f, 0.0f, 2.0f}))) == std::vector<float>{4, 13});
  CHECK(floats(m.mv(ones({3}))) == std::vector<float>{3, 12});
  CHECK_THROWS_WITH(mv(ones({2, 3}), ones({4})),
                    Catch::Contains("mv") && Catch::Contains("[2, 3]") && Catch::Contains("[4]"));
  CHECK_THROWS_AS(mv(ones({3}), ones({3})), ShapeError);
  // torch: tensordot(arange(24).view(2, 3, 4), arange(12).view(4, 3), ([1, 2], [1, 0])) is
  // [440, 1232]; dims=1 of [2, 3] and [3, 2] [[10, 13], [28, 40]]; dims=0 an outer product of
  // shape [2, 3, 2, 3]; dims=2 of [2, 3] with itself 55.
  const Tensor a = arange(24, kFloat32).reshape({2, 3, 4});
  const Tensor b = arange(12, kFloat32).reshape({4, 3});
  CHECK(floats(tensordot(a, b, {1, 2}, {1, 0})) == std::vector<float>{440, 1232});
  const Tensor s = arange(6, kFloat32).reshape({2, 3});
  CHECK(floats(tensordot(s, s.reshape({3, 2}), 1)) == std::vector<float>{10, 13, 28, 40});
  CHECK(tensordot(s, s, 0).sizes() == Shape{2, 3, 2, 3});
  CHECK(tensordot(s, s).item<float>() == 55.0f);
  // torch: "contracted dimensions need to match, but first has size 3 in dim 1 and second has
  // size 2 in dim 0".
  CHECK_THROWS_WITH(
      tensordot(ones({2, 3}), ones({2, 3}), {1}, {0}),
      Catch::Contains("tensordot") && Catch::Contains("size 3") && Catch::Contains("size 2"));
  CHECK_THROWS_AS(tensordot(ones({2, 3}), ones({3, 3}), {1}, {0, 1}), ShapeError);
  CHECK_THROWS_AS(tensordot(ones({2, 3}), ones({3}), 2), ShapeError);
  // The gradient through permute, reshape and mm.
  const Tensor leaf = ones({2, 3}, kFloat64).requires_grad_();
  tensordot(leaf, arange(6, kFloat64).reshape({3, 2}), 1).sum().backward();
  CHECK(floats(leaf.grad()) == std::vector<float>{1, 5, 9, 1, 5, 9});
}
