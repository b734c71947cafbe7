// test_scan.cpp: cumsum, cumprod and prod. The op sweep's cases (sweep_cumsum, sweep_cumprod,
// sweep_prod: every dtype, bfloat16 included, x the sweep shapes x every dim x every layout,
// against float64 sums and products along each line in order, rounded once to the result's
// dtype; int64 products wrap), then PyTorch's rules: the result dtype, the dtype argument, 0-d
// and empty tensors, infinities, int64 wrapping, errors, and the gradients (zeros included).
// PyTorch's values for the same calls are in the comments (torch 1.13).
#include <cmath>
#include <cstdint>
#include <limits>

#include "sweep_common.hpp"

using namespace wick;
using ref::Domain;
using ref::Layout;

namespace {

// The product of the values in order, in float64 or (int64) wrapping uint64.
struct Product {
  bool integral;
  double f = 1;
  uint64_t u = 1;
  void times(double v) {
    if (integral) {
      u *= static_cast<uint64_t>(static_cast<int64_t>(v));
    } else {
      f *= v;
    }
  }
  double value(Dtype dtype) const {
    return integral ? static_cast<double>(static_cast<int64_t>(u)) : rounded_to_dtype(f, dtype);
  }
};

}  // namespace

void sweep_cumsum() {
  std::vector<Shape> shapes = kShapes;
  shapes.push_back({2, 5, 3});
  for_each_dim_case(shapes, [](Dtype dtype, const Shape& shape, int64_t dim, Layout layout) {
    const auto nd = static_cast<int64_t>(shape.size());
    const Tensor x = ref::make_input(shape, dtype, layout);
    INFO("cumsum of " << label(x, layout) << " along dim " << dim);
    ref::PoisonScope poison;
    const Tensor y = cumsum(x, dim);
    const Dtype want_dtype = is_floating(dtype) ? dtype : kInt64;
    CHECK(y.dtype() == want_dtype);
    REQUIRE(y.sizes() == shape);
    // Partial sums in float64 along each line, in order; float32 and bfloat16 round once.
    std::vector<double> want = ref::values(x);
    const Lines l(shape, nd == 0 ? 0 : dim);
    for (int64_t o = 0; o < l.outer; ++o) {
      for (int64_t c = 0; c < l.inner; ++c) {
        double sum = 0;
        for (int64_t i = 0; i < l.n; ++i) {
          double& v = want[static_cast<size_t>((o * l.n + i) * l.inner + c)];
          sum += v;
          v = rounded_to_dtype(sum, dtype);
        }
      }
    }
    int64_t flat = 0;
    return ref::check_all(
        y, [&](const std::vector<int64_t>&) { return want[static_cast<size_t>(flat++)]; },
        "cumsum");
  });
}

void sweep_cumprod() {
  std::vector<Shape> shapes = kShapes;
  shapes.push_back({2, 5, 3});
  for_each_dim_case(shapes, [](Dtype dtype, const Shape& shape, int64_t dim, Layout layout) {
    const Tensor x = ref::make_input(shape, dtype, layout);
    INFO("cumprod of " << label(x, layout) << " along dim " << dim);
    ref::PoisonScope poison;
    const Tensor y = cumprod(x, dim);
    const Dtype want_dtype = is_floating(dtype) ? dtype : kInt64;
    CHECK(y.dtype() == want_dtype);
    REQUIRE(y.sizes() == shape);
    std::vector<double> want = ref::values(x);
    const Lines l(shape, shape.empty() ? 0 : dim);
    for (int64_t o = 0; o < l.outer; ++o) {
      for (int64_t c = 0; c < l.inner; ++c) {
        Product p{!is_floating(dtype)};
        for (int64_t i = 0; i < l.n; ++i) {
          double& v = want[static_cast<size_t>((o * l.n + i) * l.inner + c)];
          p.times(v);
          v = p.value(dtype);
        }
      }
    }
    int64_t flat = 0;
    return ref::check_all(
        y, [&](const std::vector<int64_t>&) { return want[static_cast<size_t>(flat++)]; },
        "cumprod");
  });
}

void sweep_prod() {
  std::vector<Shape> shapes = kShapes;
  shapes.push_back({2, 5, 3});
  for_each_dim_case(shapes, [](Dtype dtype, const Shape& shape, int64_t dim, Layout layout) {
    const Tensor x = ref::make_input(shape, dtype, layout);
    INFO("prod of " << label(x, layout) << " along dim " << dim);
    ref::PoisonScope poison;
    const Dtype want_dtype = is_floating(dtype) ? dtype : kInt64;
    const std::vector<double> in = ref::values(x);
    // Over one dim, kept and not.
    const Lines l(shape, shape.empty() ? 0 : dim);
    std::vector<double> want;
    for (int64_t o = 0; o < l.outer; ++o) {
      for (int64_t c = 0; c < l.inner; ++c) {
        Product p{!is_floating(dtype)};
        for (int64_t i = 0; i < l.n; ++i)
          p.times(in[static_cast<size_t>((o * l.n + i) * l.inner + c)]);
        want.push_back(p.value(dtype));
      }
    }
    const Tensor kept = prod(x, dim, /*keepdim=*/true);
    const Tensor y = x.prod(dim);
    CHECK(y.dtype() == want_dtype);
    Shape kept_shape = shape;
    if (!shape.empty()) kept_shape[static_cast<size_t>(dim)] = 1;
    REQUIRE(kept.sizes() == kept_shape);
    REQUIRE(y.numel() == kept.numel());
    REQUIRE(y.dim() == std::max<int64_t>(0, static_cast<int64_t>(shape.size()) - 1));
    int64_t flat = 0;
    if (!ref::check_all(
            kept, [&](const std::vector<int64_t>&) { return want[static_cast<size_t>(flat++)]; },
            "prod keepdim")) {
      return false;
    }
    flat = 0;
    if (!ref::check_all(
            y, [&](const std::vector<int64_t>&) { return want[static_cast<size_t>(flat++)]; },
            "prod")) {
      return false;
    }
    if (dim > 0 || layout != Layout::Contiguous) return true;
    // Over everything (once per dtype and shape).
    Product all{!is_floating(dtype)};
    for (double v : in) all.times(v);
    const Tensor total = prod(x);
    CHECK(total.dim() == 0);
    CHECK(total.dtype() == want_dtype);
    return ref::check_all(
        total, [&](const std::vector<int64_t>&) { return all.value(dtype); }, "prod of all",
        // Blocks and lanes multiply in another order than the reference's.
        dtype == kFloat64 ? 100.0 : 1.0);
  });
}

TEST_CASE("cumsum: PyTorch's values, dtypes and errors", "[scan]") {
  // torch.cumsum([True, True, False], 0) is [1, 2, 2] (int64); [1, 2, 3] stays int64; with
  // dtype=float32, [1., 3., 6.]; [1.5, 2.25] with dtype=int64 casts first: [1, 3].
  Tensor y = cumsum(tensor({true, true, false}), 0);
  CHECK(y.dtype() == kInt64);
  CHECK(y.to_vector<int64_t>() == std::vector<int64_t>{1, 2, 2});
  CHECK(tensor({1, 2, 3}).cumsum(0).dtype() == kInt64);
  CHECK(cumsum(tensor({1, 2, 3}), 0, kFloat32).to_vector<float>() == std::vector<float>{1, 3, 6});
  CHECK(cumsum(tensor({1.5, 2.25}), 0, kInt64).to_vector<int64_t>() == std::vector<int64_t>{1, 3});
  // 0-d: dim -1 or 0 (torch: tensor(5.)); empty: its shape.
  CHECK(cumsum(tensor(5.0f), -1).item<float>() == 5.0f);
  CHECK(cumsum(tensor(5.0f), 0).sizes() == Shape{});
  CHECK_THROWS_AS(cumsum(tensor(5.0f), 1), IndexError);
  CHECK(cumsum(zeros({0, 3}), 0).sizes() == Shape{0, 3});
  // inf - inf is NaN from there on (torch: [1, inf, nan, nan]).
  const std::vector<float> s = cumsum(tensor({1.0f, std::numeric_limits<float>::infinity(),
                                              -std::numeric_limits<float>::infinity(), 2.0f}),
                                      0)
                                   .to_vector<float>();
  CHECK(s[0] == 1.0f);
  CHECK(std::isinf(s[1]));
  CHECK(std::isnan(s[2]));
  CHECK(std::isnan(s[3]));
  // int64 wraps (torch: [2^62, -2^63, -2^62]).
  const int64_t q = int64_t{1} << 62;
  CHECK(cumsum(tensor({q, q, q}), 0).to_vector<int64_t>() ==
        std::vector<int64_t>{q, std::numeric_limits<int64_t>::min(), -q});
  // float32 accumulates in float64: 2^24 + 1 + 1 is 2^24 + 2, where float32 steps give 2^24.
  const float big = 16777216.0f;
  CHECK(cumsum(tensor({big, 1.0f, 1.0f}), 0).to_vector<float>()[2] == big + 2.0f);
  // bfloat16 (torch: [1., 3.]).
  CHECK(cumsum(tensor({1.0, 2.0}).to(kBFloat16), 0).to(kFloat32).to_vector<float>() ==
        std::vector<float>{1, 3});
  // Along dim 0 of a matrix and of a transposed one.
  const Tensor m = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  CHECK(m.cumsum(0).to_vector<double>() == std::vector<double>{1, 2, 3, 5, 7, 9});
  CHECK(m.t().cumsum(1).to_vector<double>() == std::vector<double>{1, 5, 2, 7, 3, 9});
  CHECK_THROWS_AS(cumsum(m, 2), IndexError);
  CHECK_THROWS_AS(cumsum(m, 0, kBool), DtypeError);
  CHECK_THROWS_AS(cumsum(Tensor(), 0), ValueError);
}

TEST_CASE("cumsum gradient", "[scan][autograd]") {
  // torch: x = [[1, 2, 3], [4, 5, 6]] (requires grad); (x.cumsum(1) * x.detach()).sum() gives
  // x.grad = [[6, 5, 3], [15, 11, 6]].
  const Tensor w = tensor({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  Tensor x = w.clone().requires_grad_();
  (x.cumsum(1) * w).sum().backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{6, 5, 3, 15, 11, 6});
  // Through the cast of the dtype argument, and along dim 0.
  Tensor f = tensor({{1.0f, 2.0f}, {3.0f, 4.0f}}).requires_grad_();
  (f.cumsum(0, kFloat64) * tensor({{1.0, 2.0}, {3.0, 4.0}})).sum().backward();
  CHECK(f.grad().dtype() == kFloat32);
  CHECK(f.grad().to_vector<float>() == std::vector<float>{4, 6, 3, 4});
}

TEST_CASE("cumprod and prod: PyTorch's values, dtypes and errors", "[scan]") {
  // torch.cumprod(tensor([True, True, False]), 0) is [1, 1, 0] (int64); torch.prod of
  // [[1, 2], [3, 4]] is 24 (int64), along dim 0 [3, 8], along dim 1 keepdim [[2], [12]].
  CHECK(cumprod(tensor({true, true, false}), 0).to_vector<int64_t>() ==
        std::vector<int64_t>{1, 1, 0});
  const Tensor m = tensor({{1, 2}, {3, 4}});
  CHECK(prod(m).dtype() == kInt64);
  CHECK(prod(m).item<int64_t>() == 24);
  CHECK(m.prod(0).to_vector<int64_t>() == std::vector<int64_t>{3, 8});
  CHECK(m.prod(1, true).sizes() == Shape{2, 1});
  CHECK(m.prod(-1, true).to_vector<int64_t>() == std::vector<int64_t>{2, 12});
  CHECK(m.t().prod(1).to_vector<int64_t>() == std::vector<int64_t>{3, 8});
  CHECK(m.cumprod(1).to_vector<int64_t>() == std::vector<int64_t>{1, 2, 3, 12});
  // dtype: the result's, a cast first. torch.prod(tensor([1.5, 2.5]), dtype=torch.int64) is 2.
  CHECK(prod(tensor({1.5, 2.5}), kInt64).item<int64_t>() == 2);
  CHECK(prod(m, kFloat32).dtype() == kFloat32);
  CHECK(cumprod(m, 0, kFloat64).to_vector<double>() == std::vector<double>{1, 2, 3, 8});
  CHECK(prod(tensor({true, false})).item<int64_t>() == 0);
  // Empty: torch.prod(zeros(0)) is 1; torch.zeros(2, 0).prod(1) is [1, 1], .prod(0) is [].
  CHECK(prod(zeros({0})).item<float>() == 1.0f);
  CHECK(zeros({2, 0}).prod(1).to_vector<float>() == std::vector<float>{1, 1});
  CHECK(zeros({2, 0}).prod(0).sizes() == Shape{0});
  CHECK(cumprod(zeros({0, 3}), 1).sizes() == Shape{0, 3});
  // 0-d: one element.
  CHECK(prod(tensor(5.0f), 0).item<float>() == 5.0f);
  CHECK(prod(tensor(5.0f), -1, true).sizes() == Shape{});
  CHECK(cumprod(tensor(3.0), 0).item<double>() == 3.0);
  // int64 wraps: 2^62 * 4 is 0 (mod 2^64), and torch.tensor([3] * 41).prod() is
  // -420491770248316829 (3^41 mod 2^64 as int64).
  CHECK(prod(tensor({int64_t{1} << 62, int64_t{4}})).item<int64_t>() == 0);
  CHECK(prod(full({41}, 3, kInt64)).item<int64_t>() == -420491770248316829LL);
  // dtype bool: true where every element is nonzero. torch.prod(tensor([2**32, 2**32]),
  // dtype=torch.bool) is True (no wrap to 0), of [[1, 2], [0, 4]] along 0 [False, True].
  const Tensor p_all = prod(tensor({int64_t{1} << 32, int64_t{1} << 32}), kBool);
  CHECK(p_all.dtype() == kBool);
  CHECK(p_all.item<bool>());
  CHECK(prod(tensor({{1, 2}, {0, 4}}), 0, false, kBool).to_vector<bool>() ==
        std::vector<bool>{false, true});
  CHECK_FALSE(prod(tensor({0.5, 0.0}), kBool).item<bool>());
  // float32 multiplies in float64: 1e30 * 1e30 * 1e-30 is 1e30, where float32 steps would give
  // inf (PyTorch's CPU prod gives inf here; its CUDA prod, 1e30).
  CHECK(prod(tensor({1e30f, 1e30f, 1e-30f})).item<float>() == 1e30f);
  // inf and NaN: inf * 0 is NaN.
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(std::isnan(prod(tensor({inf, 0.0f})).item<float>()));
  CHECK(prod(tensor({inf, -2.0f})).item<float>() == -inf);
  // bfloat16 multiplies in float32 (in float64) and rounds once.
  CHECK(prod(tensor({1.5, 3.0}).to(kBFloat16)).to(kFloat32).item<float>() == 4.5f);
  // Errors: a dim out of range, a bool result, an undefined tensor.
  CHECK_THROWS_AS(prod(m, 2), IndexError);
  CHECK_THROWS_AS(cumprod(m, -3), IndexError);
  CHECK_THROWS_AS(prod(tensor(5.0f), 1), IndexError);
  CHECK_THROWS_AS(cumprod(m, 0, kBool), DtypeError);
  CHECK_THROWS_AS(prod(Tensor()), ValueError);
  CHECK_THROWS_AS(cumprod(Tensor(), 0), ValueError);
  try {
    cumprod(m, 0, kBool);
    FAIL("no error");
  } catch (const DtypeError& e) {
    CHECK_THAT(e.what(), Catch::Contains("cumprod") && Catch::Contains("multiply into bool") &&
                             Catch::Contains("int64"));
  }
}

TEST_CASE("prod gradient, zeros included", "[scan][autograd]") {
  // torch: x = [[2, 3, 4], [0, 5, 6], [0, 7, 0]] (float64, requires grad);
  // (x.prod(1) * tensor([1, 2, 3])).sum().backward() gives x.grad =
  // [[12, 8, 6], [60, 0, 0], [0, 0, 0]].
  Tensor x = tensor({{2.0, 3.0, 4.0}, {0.0, 5.0, 6.0}, {0.0, 7.0, 0.0}}).requires_grad_();
  (x.prod(1) * tensor({1.0, 2.0, 3.0})).sum().backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{12, 8, 6, 60, 0, 0, 0, 0, 0});
  // Over everything: x = [2, 0, 3] gives grad [0, 6, 0]; [2, 4] gives [4, 2].
  Tensor a = tensor({2.0, 0.0, 3.0}).requires_grad_();
  a.prod().backward();
  CHECK(a.grad().to_vector<double>() == std::vector<double>{0, 6, 0});
  Tensor b = tensor({{2.0f}, {4.0f}}).requires_grad_();
  b.prod().backward();
  CHECK(b.grad().to_vector<float>() == std::vector<float>{4, 2});
  // keepdim along dim 0 of a transposed view, through the dtype cast.
  Tensor c = tensor({{1.0f, 2.0f}, {3.0f, 4.0f}}).requires_grad_();
  (c.t().prod(0, true, kFloat64) * tensor({{1.0, 10.0}})).sum().backward();
  CHECK(c.grad().dtype() == kFloat32);
  CHECK(c.grad().to_vector<float>() == std::vector<float>{2, 1, 40, 30});
  // A zero-length line: the gradient is empty.
  Tensor e = zeros({2, 0}).requires_grad_();
  e.prod(1).sum().backward();
  CHECK(e.grad().sizes() == Shape{2, 0});
  CHECK(autograd::gradcheck([](const std::vector<Tensor>& v) { return v[0].prod(1); },
                            {tensor({{0.5, -1.5, 2.0}, {0.0, 1.25, 3.0}, {0.0, 2.0, 0.0}})
                                 .to(kFloat64)
                                 .requires_grad_()}) == "");
  CHECK(autograd::gradcheck([](const std::vector<Tensor>& v) { return v[0].t().prod(); },
                            {tensor({{0.5, -1.5}, {0.0, 1.25}}).to(kFloat64).requires_grad_()}) ==
        "");
}

TEST_CASE("cumprod gradient, zeros included", "[scan][autograd]") {
  // x = [2, 3, 0, 4, 0, 5] (float64, requires grad), w = [1, 2, 3, 4, 5, 6]:
  // (x.cumprod(0) * w).sum().backward() gives x.grad = [7, 4, 114, 0, 0, 0] (checked with
  // torch). Before the zero, only y_0 and y_1 are nonzero: 1 + 2 * 3 and 2 * 2. At the first
  // zero, d y_2 / d x_2 = 6 and d y_3 / d x_2 = 6 * 4 (y_4, y_5 hold x_4 = 0): 3 * 6 + 4 * 24.
  Tensor x = tensor({2.0, 3.0, 0.0, 4.0, 0.0, 5.0}).requires_grad_();
  (x.cumprod(0) * tensor({1.0, 2.0, 3.0, 4.0, 5.0, 6.0})).sum().backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{7, 4, 114, 0, 0, 0});
  // Along dim 1 of a 2-D tensor with a zero first and none.
  Tensor m = tensor({{0.0, 2.0, 3.0}, {1.0, 2.0, 3.0}}).requires_grad_();
  m.cumprod(1).sum().backward();
  // Row 0: y = [0, 0, 0]; d/dx0 = 1 + 2 + 6 = 9, the rest 0. Row 1: y = [1, 2, 6]:
  // d/dx0 = 1 + 2 + 6 = 9, d/dx1 = 1 + 3 = 4, d/dx2 = 2.
  CHECK(m.grad().to_vector<double>() == std::vector<double>{9, 0, 0, 9, 4, 2});
  CHECK(autograd::gradcheck([](const std::vector<Tensor>& v) { return v[0].cumprod(0) * v[0]; },
                            {tensor({{0.5, 0.0}, {-1.5, 2.0}, {0.0, 1.25}, {3.0, 0.0}})
                                 .to(kFloat64)
                                 .requires_grad_()}) == "");
  CHECK(autograd::gradcheck(
            [](const std::vector<Tensor>& v) { return v[0].t().cumprod(1); },
            {tensor({{0.5, 1.0, 2.0}, {-1.5, 0.0, 3.0}}).to(kFloat64).requires_grad_()}) == "");
}
