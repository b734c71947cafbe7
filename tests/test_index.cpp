// test_index.cpp: index_select and index_add. The op sweep's case (sweep_index: every dtype x
// the sweep shapes x every dim x every layout, repeated indices, against a float64 loop), and
// their rules: errors with PyTorch's wording, bfloat16, the order of repeated indices, autograd
// saving only the index.
#include <random>

#include "index_cases.hpp"
#include "reference.hpp"
#include "sweep_common.hpp"

using namespace wick;
using ref::Domain;
using ref::Layout;

using index_cases::draw_index;

using index_cases::with_dim;

void sweep_index(OpId op) {
  const bool add = op == OpId::index_add;
  for (Dtype dtype : ref::all_dtypes()) {
    if (add && dtype == kBool) continue;
    for (const Shape& shape : kShapes) {
      const auto nd = static_cast<int64_t>(shape.size());
      for (int64_t dim = 0; dim < nd; ++dim) {
        for (Layout layout : kLayouts) {
          const Domain domain = dtype == kInt64 ? Domain::SmallInt : Domain::Any;
          const Tensor x = ref::make_input(shape, dtype, layout, domain);
          const int64_t size = shape[static_cast<size_t>(dim)];
          const Tensor idx = draw_index(size, size > 100 ? 37 : 7, uint64_t(dim * 31 + nd));
          const std::vector<int64_t> picks = idx.to_vector<int64_t>();
          INFO(op_name(op) << " of " << label(x, layout) << " along dim " << dim << " with "
                           << picks.size() << " indices");
          ref::PoisonScope poison;
          if (!add) {
            const Tensor y = index_select(x, dim, idx);
            CHECK(y.dtype() == dtype);
            Shape want = shape;
            want[static_cast<size_t>(dim)] = idx.numel();
            REQUIRE(y.sizes() == want);
            ref::check_all(
                y,
                [&](const std::vector<int64_t>& i) {
                  return ref::value(x, with_dim(i, dim, picks[static_cast<size_t>(i[dim])]));
                },
                "index_select");
            continue;
          }
          Shape source_shape = shape;
          source_shape[static_cast<size_t>(dim)] = idx.numel();
          const Tensor source = ref::make_input(source_shape, dtype, layout, domain);
          const Scalar alpha = is_floating(dtype) ? Scalar(0.5) : Scalar(3);
          const Tensor y = index_add(x, dim, idx, source, alpha);
          CHECK(y.dtype() == dtype);
          REQUIRE(y.sizes() == shape);
          ref::check_all(
              y,
              [&](const std::vector<int64_t>& i) {
                double want = ref::value(x, i);
                for (size_t k = 0; k < picks.size(); ++k) {
                  if (picks[k] == i[dim]) {
                    want += alpha.to_double() *
                            ref::value(source, with_dim(i, dim, static_cast<int64_t>(k)));
                  }
                }
                return want;
              },
              "index_add", 10.0);
        }
      }
    }
  }
}

TEST_CASE("index_select and index_add: PyTorch's errors, and the engine works after them",
          "[index]") {
  const Tensor x = arange(12, kFloat32).reshape({3, 4});
  const Tensor idx = tensor({2, 0});
  CHECK_THROWS_WITH(index_select(x, 0, tensor({0, 3})),
                    Catch::Contains("index_select") && Catch::Contains("out of range") &&
                        Catch::Contains("[3, 4]") && Catch::Contains("from 0 to 3"));
  CHECK_THROWS_AS(index_select(x, 1, tensor({-1})), IndexError);
  CHECK_THROWS_AS(index_select(x, 2, idx), IndexError);
  CHECK_THROWS_WITH(index_select(x, 0, tensor({1.0, 0.0})),
                    Catch::Contains("int64") && Catch::Contains("float32"));
  CHECK_THROWS_AS(index_select(x, 0, tensor({{1, 0}})), ShapeError);
  // A 0-d self is one row along dim 0 or -1, and gives a 0-d result, as in PyTorch.
  CHECK(index_select(tensor(3.0), 0, tensor({0})).sizes() == Shape{});
  CHECK(index_select(tensor(3.0), -1, tensor({0})).item<float>() == 3.0f);
  CHECK_THROWS_AS(index_select(tensor(3.0), 0, tensor({1})), IndexError);
  CHECK_THROWS_AS(index_select(tensor(3.0), 0, tensor({0, 0})), ShapeError);
  CHECK_THROWS_AS(index_select(tensor(3.0), 1, tensor({0})), IndexError);
  CHECK(index_add(tensor(5.0), 0, tensor({0, 0}), ones({2})).item<float>() == 7.0f);
  CHECK(index_add(tensor(5.0), 0, tensor({0}), tensor(2.0)).sizes() == Shape{});
  // A 1-D self takes a 0-d source for a 0-d index (torch: [0, 3, 2]).
  CHECK(index_add(arange(3, kFloat32), 0, tensor(int64_t{1}, kInt64).reshape({}), tensor(2.0f))
            .to_vector<float>() == std::vector<float>{0, 3, 2});
  CHECK_THROWS_AS(index_select(x, 0, Tensor()), ValueError);
  // index_add: source's shape and dtype, bool, alpha.
  CHECK_THROWS_WITH(index_add(x, 0, idx, ones({3, 4})),
                    Catch::Contains("index_add") && Catch::Contains("[2, 4]"));
  CHECK_THROWS_AS(index_add(x, 0, idx, ones({2, 4}, kFloat64)), DtypeError);
  CHECK_THROWS_AS(index_add(ones({3}, kBool), 0, tensor({0}), ones({1}, kBool)), DtypeError);
  CHECK_THROWS_AS(index_add(ones({3}, kInt64), 0, tensor({0}), ones({1}, kInt64), 0.5), DtypeError);
  CHECK_THROWS_AS(index_add(x, 0, tensor({5, 0}), ones({2, 4})), IndexError);
  // A 0-d index is one index, as in PyTorch; an empty index selects nothing.
  CHECK(index_select(x, 1, tensor(int64_t{2}, kInt64).reshape({})).sizes() == Shape{3, 1});
  CHECK(index_select(x, 0, zeros({0}, kInt64)).sizes() == Shape{0, 4});
  CHECK(equal(index_add(x, 1, zeros({0}, kInt64), zeros({3, 0})), x));
  CHECK(x.index_select(-1, tensor({3, 3})).to_vector<float>() ==
        std::vector<float>{3, 3, 7, 7, 11, 11});
}

TEST_CASE("index_add sums repeated indices in index order, on bfloat16 too", "[index]") {
  // 1e8 - 1e8 + 1 in float32 depends on the order: index order gives 1; the reverse order
  // gives (1 - 1e8) + 1e8 = 0, since 1 - 1e8 rounds to -1e8.
  const Tensor base = zeros({2});
  const Tensor source = tensor({1e8f, -1e8f, 1.0f});
  const Tensor y = index_add(base, 0, tensor({1, 1, 1}), source);
  CHECK(y.to_vector<float>() == std::vector<float>{0.0f, 1.0f});
  const Tensor b = tensor({1.0, 2.0, 3.0, 4.0}).to(kBFloat16).reshape({2, 2});
  CHECK(index_select(b, 0, tensor({1, 1, 0})).to(kFloat32).to_vector<float>() ==
        std::vector<float>{3, 4, 3, 4, 1, 2});
  CHECK(index_add(b, 1, tensor({0}), ones({2, 1}, kBFloat16)).to(kFloat32).to_vector<float>() ==
        std::vector<float>{2, 2, 4, 4});
  // int64 wraps, as PyTorch's.
  const int64_t big = std::numeric_limits<int64_t>::max();
  CHECK(index_add(tensor({big}), 0, tensor({0}), tensor({int64_t{1}})).item<int64_t>() ==
        std::numeric_limits<int64_t>::min());
}

TEST_CASE("index_select's gradient: only the index is saved", "[index][autograd]") {
  Tensor table = arange(6, kFloat64).reshape({3, 2}).requires_grad_();
  const Tensor rows = index_select(table, 0, tensor({2, 0, 2}));
  {
    // An optimizer-like in-place step on the table between forward and backward is allowed,
    // as in PyTorch (the backward reads only the index and the table's sizes).
    NoGradGuard no_grad;
    table.add_(1.0);
  }
  (rows * tensor({1.0, 2.0}, kFloat64)).sum().backward();
  CHECK(table.grad().to_vector<double>() == std::vector<double>{1, 2, 0, 0, 2, 4});
  // Changing the index in place after the forward is a version error, as for any saved input.
  Tensor index = tensor({1});
  Tensor picked = index_select(table, 0, index);
  index.fill_(0);
  CHECK_THROWS_AS(picked.sum().backward(), AutogradError);
  // index_add's gradients: the base gets g; the source gets alpha * g's rows.
  Tensor a = zeros({3, 2}, kFloat64).requires_grad_();
  Tensor s = ones({2, 2}, kFloat64).requires_grad_();
  (index_add(a, 0, tensor({1, 1}), s, 2.0) * arange(6, kFloat64).reshape({3, 2})).sum().backward();
  CHECK(a.grad().to_vector<double>() == std::vector<double>{0, 1, 2, 3, 4, 5});
  CHECK(s.grad().to_vector<double>() == std::vector<double>{4, 6, 4, 6});
}
