// test_gather.cpp: gather and scatter_add. The op sweep's case (sweep_gather: every dtype x the
// sweep shapes x every dim x every layout, with an index as large as self outside dim and one
// smaller, repeated targets, against a float64 loop), and their rules: errors with PyTorch's
// wording, 0-d operands, a src larger than the index, bfloat16, the order of repeated indices,
// and autograd (saving only the index; a larger src's gradient padded with zeros). PyTorch's
// values for the same calls are in the comments where a case was checked against torch 1.13.
#include "index_cases.hpp"
#include "reference.hpp"
#include "sweep_common.hpp"

using namespace wick;
using ref::Domain;
using ref::Layout;

using index_cases::draw_gather_index;
using index_cases::flat_index;

using index_cases::with_dim;

namespace {

// self + src scattered along dim by index, in float64: the definition, one position at a time.
std::vector<double> scatter_add_reference(const Tensor& self, int64_t dim, const Tensor& index,
                                          const Tensor& src) {
  std::vector<double> want = ref::values(self);
  const Shape& sizes = self.sizes();
  ref::for_each_index(index.sizes(), [&](const std::vector<int64_t>& j) {
    const std::vector<int64_t> target =
        with_dim(j, dim, ref::value(index, j) > 0 ? static_cast<int64_t>(ref::value(index, j)) : 0);
    want[static_cast<size_t>(flat_index(sizes, target))] += ref::value(src, j);
  });
  return want;
}

}  // namespace

void sweep_gather(OpId op) {
  const bool add = op == OpId::scatter_add;
  for (Dtype dtype : ref::all_dtypes()) {
    if (add && dtype == kBool) continue;
    std::vector<Shape> shapes = kShapes;
    shapes.push_back({5, 3});
    shapes.push_back({2, 5, 3});
    for (const Shape& shape : shapes) {
      const auto nd = static_cast<int64_t>(shape.size());
      for (int64_t dim = 0; dim < nd; ++dim) {
        for (int shrink : {0, 1, 2}) {
          for (Layout layout : kLayouts) {
            const Domain domain = dtype == kInt64 ? Domain::SmallInt : Domain::Any;
            const Tensor x = ref::make_input(shape, dtype, layout, domain);
            const int64_t size = shape[static_cast<size_t>(dim)];
            Tensor idx =
                draw_gather_index(shape, dim, size > 100 ? 37 : 7, shrink, uint64_t(dim * 31 + nd));
            if (layout == Layout::Transposed && idx.dim() >= 2) {
              idx = idx.transpose(0, -1).contiguous().transpose(0, -1);  // same values, transposed
            }
            INFO(op_name(op) << " of " << label(x, layout) << " along dim " << dim
                             << " with an index " << describe(idx));
            ref::PoisonScope poison;
            if (!add) {
              const Tensor y = gather(x, dim, idx);
              CHECK(y.dtype() == dtype);
              REQUIRE(y.sizes() == idx.sizes());
              ref::check_all(
                  y,
                  [&](const std::vector<int64_t>& i) {
                    return ref::value(x,
                                      with_dim(i, dim, static_cast<int64_t>(ref::value(idx, i))));
                  },
                  "gather");
              continue;
            }
            // src as large as the index, transposed or sliced as self is.
            const Tensor src = ref::make_input(idx.sizes(), dtype, layout, domain);
            const Tensor y = scatter_add(x, dim, idx, src);
            CHECK(y.dtype() == dtype);
            REQUIRE(y.sizes() == shape);
            const std::vector<double> want = scatter_add_reference(x, dim, idx, src);
            ref::check_all(
                y,
                [&](const std::vector<int64_t>& i) {
                  return want[static_cast<size_t>(flat_index(shape, i))];
                },
                "scatter_add", 10.0);
          }
        }
      }
    }
  }
}

TEST_CASE("gather and scatter_add: PyTorch's errors, and the engine works after them", "[gather]") {
  const Tensor x = arange(12, kFloat32).reshape({3, 4});
  CHECK_THROWS_WITH(gather(x, 1, tensor({{0, 4}})),
                    Catch::Contains("gather") && Catch::Contains("out of range") &&
                        Catch::Contains("[3, 4]") && Catch::Contains("from 0 to 4"));
  CHECK_THROWS_AS(gather(x, 0, tensor({{-1}})), IndexError);
  CHECK_THROWS_AS(gather(x, 2, tensor({{0}})), IndexError);
  CHECK_THROWS_WITH(gather(x, 0, tensor({{1.0}})),
                    Catch::Contains("int64") && Catch::Contains("float32"));
  // The index's rank must be self's; outside dim it may not be larger (torch: "Size does not
  // match at dimension 0 expected index [4, 1] to be smaller than self [3, 4]").
  CHECK_THROWS_WITH(gather(x, 1, tensor({0, 1})),
                    Catch::Contains("as many dims") && Catch::Contains("[3, 4]"));
  CHECK_THROWS_WITH(gather(x, 1, zeros({4, 1}, kInt64)),
                    Catch::Contains("dim 0") && Catch::Contains("[4, 1]"));
  CHECK(gather(x, 0, zeros({5, 4}, kInt64)).sizes() == Shape{5, 4});  // larger along dim
  CHECK_THROWS_AS(gather(x, 0, Tensor()), ValueError);
  // scatter_add: src's dtype and rank, src smaller than the index, bool.
  const Tensor idx = tensor({{2, 0}});
  CHECK_THROWS_AS(scatter_add(x, 0, idx, ones({1, 2}, kFloat64)), DtypeError);
  CHECK_THROWS_WITH(scatter_add(x, 0, idx, ones({1, 1})),
                    Catch::Contains("scatter_add") && Catch::Contains("larger than src"));
  CHECK_THROWS_AS(scatter_add(x, 0, idx, ones({2})), ShapeError);
  CHECK_THROWS_AS(scatter_add(ones({3}, kBool), 0, tensor({0}), ones({1}, kBool)), DtypeError);
  CHECK_THROWS_AS(scatter_add(x, 0, tensor({{3, 0}}), ones({1, 2})), IndexError);
  // After the errors: 0-d operands are vectors of one, as in PyTorch.
  CHECK(gather(tensor(3.0), 0, tensor(int64_t{0}, kInt64).reshape({})).sizes() == Shape{});
  CHECK(gather(tensor(3.0f), -1, tensor({0, 0, 0})).to_vector<float>() ==
        std::vector<float>{3, 3, 3});
  CHECK(gather(tensor({1.0f, 2.0f}), 0, tensor(int64_t{1}, kInt64).reshape({})).item<float>() ==
        2.0f);
  CHECK_THROWS_AS(gather(tensor(3.0), 0, tensor({1})), IndexError);
  CHECK_THROWS_AS(gather(tensor(3.0), 1, tensor({0})), IndexError);
  CHECK(scatter_add(tensor(5.0f), 0, tensor({0, 0}), ones({2})).item<float>() == 7.0f);
  CHECK(scatter_add(tensor(5.0f), 0, tensor({0, 0}), ones({2})).sizes() == Shape{});
  // Empty indices skip the shape checks, as PyTorch's (torch: [0], [7, 0], x itself); the dim
  // and dtypes are still checked.
  CHECK(gather(x, 0, zeros({0}, kInt64)).sizes() == Shape{0});
  CHECK(gather(x, 1, zeros({7, 0}, kInt64)).sizes() == Shape{7, 0});
  CHECK(equal(scatter_add(x, 0, zeros({0}, kInt64), ones({2, 2, 2})), x));
  CHECK_THROWS_AS(gather(x, 5, zeros({0}, kInt64)), IndexError);
  CHECK_THROWS_AS(scatter_add(x, 0, zeros({0}, kInt64), ones({4}, kFloat64)), DtypeError);
  {
    Tensor leaf = ones({3, 4}).requires_grad_();
    Tensor s = ones({2, 2}).requires_grad_();
    (gather(leaf, 0, zeros({0}, kInt64)).sum() + scatter_add(leaf, 1, zeros({0}, kInt64), s).sum())
        .backward();
    CHECK(leaf.grad().sizes() == Shape{3, 4});
    CHECK(s.grad().sizes() == Shape{2, 2});
    CHECK(s.grad().sum().item<float>() == 0.0f);
  }
  CHECK(gather(x, 1, zeros({3, 0}, kInt64)).sizes() == Shape{3, 0});
  CHECK(equal(scatter_add(x, 1, zeros({3, 0}, kInt64), zeros({3, 0})), x));
  CHECK(equal(scatter_add(x, 1, zeros({0, 2}, kInt64), zeros({0, 2})), x));
  // The usual use: pick one class per row (torch: [[1.], [4.], [10.]]).
  CHECK(x.gather(1, tensor({{1}, {0}, {2}})).to_vector<float>() == std::vector<float>{1, 4, 10});
}

TEST_CASE("scatter_add: a src larger than the index, a smaller self block, repeats in order",
          "[gather]") {
  // torch.zeros(3, 4).scatter_add(0, [[2, 0], [2, 2]], arange(1., 13.).reshape(3, 4)) is
  // [[0, 2, 0, 0], [0, 0, 0, 0], [6, 6, 0, 0]]: src's extra row and columns are not read, and
  // self's columns 2 and 3 are not touched.
  const Tensor src = arange(1, 13, 1, kFloat32).reshape({3, 4});
  const Tensor y = scatter_add(zeros({3, 4}), 0, tensor({{2, 0}, {2, 2}}), src);
  CHECK(y.to_vector<float>() == std::vector<float>{0, 2, 0, 0, 0, 0, 0, 0, 6, 6, 0, 0});
  // Along dim 1 into a transposed self (torch: [[3, 2, 5.5], [1, 3, 5]]).
  const Tensor base = arange(6, kFloat32).reshape({3, 2}).t();  // [[0, 2, 4], [1, 3, 5]]
  const Tensor z = scatter_add(base, 1, tensor({{2, 0, 2}}), tensor({{1.0f, 3.0f, 0.5f}}));
  CHECK(z.to_vector<float>() == std::vector<float>{3, 2, 5.5f, 1, 3, 5});
  CHECK(base.to_vector<float>() == std::vector<float>{0, 2, 4, 1, 3, 5});  // not changed
  // 1e8 - 1e8 + 1 in float32 is 1 in index order and 0 in reverse, along a column (the column
  // kernel) and along a 1-D tensor (index_add's kernel).
  const Tensor big = tensor({1e8f, -1e8f, 1.0f});
  CHECK(scatter_add(zeros({2}), 0, tensor({1, 1, 1}), big).to_vector<float>() ==
        std::vector<float>{0, 1});
  const Tensor columns = stack({big, big}, 1);  // [3, 2]
  CHECK(
      scatter_add(zeros({2, 2}), 0, tensor({{1, 0}, {1, 0}, {1, 0}}), columns).to_vector<float>() ==
      std::vector<float>{0, 1, 1, 0});
  // An expanded index (stride 0) and a transposed one, packed by the boundary.
  const Tensor table = arange(12, kFloat32).reshape({3, 4});
  CHECK(gather(table, 0, tensor({{0, 1, 2, 0}}).expand({2, 4})).to_vector<float>() ==
        std::vector<float>{0, 5, 10, 3, 0, 5, 10, 3});
  CHECK(gather(table, 1, tensor({{2, 0, 1}, {1, 3, 3}}).t().contiguous().t()).to_vector<float>() ==
        std::vector<float>{2, 0, 1, 5, 7, 7});
  CHECK(scatter_add(zeros({3, 4}), 0, tensor({{1, 1, 1, 1}}).expand({2, 4}), ones({2, 4}))
            .to_vector<float>() == std::vector<float>{0, 0, 0, 0, 2, 2, 2, 2, 0, 0, 0, 0});
  // bfloat16: added in float32 and rounded once; gather moves bits.
  const Tensor b = tensor({1.0, 2.0, 3.0, 4.0}).to(kBFloat16).reshape({2, 2});
  CHECK(gather(b, 1, tensor({{1, 1}, {0, 1}})).to(kFloat32).to_vector<float>() ==
        std::vector<float>{2, 2, 3, 4});
  CHECK(scatter_add(b, 0, tensor({{1, 1}}), ones({1, 2}, kBFloat16))
            .to(kFloat32)
            .to_vector<float>() == std::vector<float>{1, 2, 4, 5});
  // int64 wraps, as PyTorch's.
  const int64_t top = std::numeric_limits<int64_t>::max();
  CHECK(scatter_add(tensor({top}), 0, tensor({0}), tensor({int64_t{1}})).item<int64_t>() ==
        std::numeric_limits<int64_t>::min());
}

TEST_CASE("gather and scatter_add gradients", "[gather][autograd]") {
  // torch: x = arange(6.).reshape(2, 3) (requires grad); x.gather(1, [[2, 2], [0, 1]]) times
  // [[1, 2], [3, 4]], summed: x.grad = [[0, 0, 3], [3, 4, 0]].
  Tensor x = arange(6, kFloat64).reshape({2, 3}).requires_grad_();
  const Tensor picked = gather(x, 1, tensor({{2, 2}, {0, 1}}));
  {
    NoGradGuard no_grad;
    x.add_(1.0);  // only the index is saved: an in-place step between is allowed, as in PyTorch
  }
  (picked * tensor({{1.0, 2.0}, {3.0, 4.0}}, kFloat64)).sum().backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{0, 0, 3, 3, 4, 0});
  // scatter_add: self gets g; src gets g gathered, zeros where src is larger than the index
  // (torch 1.13 raises "ScatterAddBackward0 returned an invalid gradient" for this src).
  Tensor a = zeros({2, 3}, kFloat64).requires_grad_();
  Tensor s = ones({2, 2}, kFloat64).requires_grad_();
  const Tensor w = arange(6, kFloat64).reshape({2, 3});
  (scatter_add(a, 1, tensor({{2}, {0}}), s) * w).sum().backward();
  CHECK(a.grad().to_vector<double>() == std::vector<double>{0, 1, 2, 3, 4, 5});
  CHECK(s.grad().to_vector<double>() == std::vector<double>{2, 0, 3, 0});
  // The index changed in place after the forward is a version error, as for any saved input.
  Tensor index = tensor({{1}});
  Tensor y = gather(x, 0, index);
  index.fill_(0);
  CHECK_THROWS_AS(y.sum().backward(), AutogradError);
}

TEST_CASE(
    "index_add_ and scatter_add_ write in place, with autograd; a failed call changes nothing",
    "[gather][index][autograd]") {
  Tensor x = arange(6, kFloat32).reshape({2, 3});
  Tensor view = x.t();  // [3, 2], not contiguous: the writes reach x
  view.index_add_(0, tensor({2, 2}), ones({2, 2}), 0.5);
  CHECK(x.to_vector<float>() == std::vector<float>{0, 1, 3, 3, 4, 6});
  x.scatter_add_(1, tensor({{0, 0}, {2, 1}}), full({2, 2}, 10.0));
  CHECK(x.to_vector<float>() == std::vector<float>{20, 1, 3, 3, 14, 16});
  CHECK(x.scatter_add_(0, tensor({{1}}), ones({1, 1})).data_ptr<float>() == x.data_ptr<float>());
  // A source that is the target reads its old values (the result is computed first).
  Tensor y = tensor({1.0f, 2.0f});
  y.index_add_(0, tensor({1, 0}), y);
  CHECK(y.to_vector<float>() == std::vector<float>{3, 3});
  // Bad calls change nothing.
  const std::vector<float> before = x.to_vector<float>();
  CHECK_THROWS_AS(x.index_add_(0, tensor({2}), ones({1, 3})), IndexError);
  CHECK_THROWS_AS(x.scatter_add_(1, tensor({{0}}), ones({1, 1}, kFloat64)), DtypeError);
  CHECK_THROWS_AS(zeros({2}).expand({3, 2}).index_add_(0, tensor({0}), ones({1, 2})), ValueError);
  CHECK(x.to_vector<float>() == before);
  // Autograd: the same gradients as the out-of-place op; a leaf that requires grad is refused.
  Tensor leaf = arange(6, kFloat64).reshape({2, 3}).requires_grad_();
  Tensor s = ones({2, 2}, kFloat64).requires_grad_();
  CHECK_THROWS_AS(leaf.scatter_add_(1, tensor({{0, 1}, {1, 2}}), s), AutogradError);
  const Tensor w = arange(6, kFloat64).reshape({2, 3}) + 1.0;
  Tensor inner = leaf * 2.0;
  inner.scatter_add_(1, tensor({{0, 1}, {1, 2}}), s * 3.0);
  (inner * w).sum().backward();
  CHECK(leaf.grad().to_vector<double>() == std::vector<double>{2, 4, 6, 8, 10, 12});
  CHECK(s.grad().to_vector<double>() == std::vector<double>{3, 6, 15, 18});
}

TEST_CASE("backward rules and cross_entropy do not check an index twice", "[gather][index]") {
  // Each range check is two reductions and, on a GPU, a synchronisation. cross_entropy's pick
  // trusts the targets it has just checked (on every device); the backward rules trust device
  // indices only (tests/cuda/test_index.cpp), so on the CPU they check again: a write through
  // data_ptr between the forward and the backward is not a version change.
  Tensor x = arange(20, kFloat64).reshape({4, 5}).requires_grad_();
  uint64_t before = detail::index_range_checks();
  const Tensor picked = x.gather(1, tensor({{1}, {0}, {4}, {2}}));
  const Tensor rows = x.index_select(0, tensor({3, 3, 0}));
  auto [sorted, positions] = x.sort(1);
  CHECK(detail::index_range_checks() == before + 2);
  positions.data_ptr<int64_t>()[0] = 40;  // not seen by the version counter
  CHECK_THROWS_AS(sorted.sum().backward(), IndexError);
  positions.data_ptr<int64_t>()[0] = 0;
  before = detail::index_range_checks();
  (picked.sum() + rows.sum() + (sorted * sorted).sum()).backward();
  CHECK(detail::index_range_checks() == before + 3);
  // Row 3 of x ([15, ..., 19]): selected twice (+2 each), its column 2 picked (+1), and 2 x
  // from the squares of the sorted values.
  CHECK(x.grad().select(0, 3).to_vector<double>() == std::vector<double>{32, 34, 37, 38, 40});
  before = detail::index_range_checks();
  Tensor logits = arange(12, kFloat32).reshape({4, 3}).requires_grad_();
  const Tensor loss = nn::functional::cross_entropy(logits, tensor({2, 0, 1, 1}));
  CHECK(detail::index_range_checks() == before);
  loss.backward();
  CHECK(detail::index_range_checks() == before + 1);
  // The scopes end with their owners: a user's index is checked again.
  CHECK_THROWS_AS(x.gather(1, tensor({{5}})), IndexError);
  {
    const detail::IndexesInRange device_only;
    CHECK_THROWS_AS(x.gather(1, tensor({{5}})), IndexError);  // a CPU index: still checked
    const detail::IndexesInRange everything(/*host_tensors_too=*/true);
  }
  CHECK_THROWS_AS(x.index_select(0, tensor({-1})), IndexError);
}
