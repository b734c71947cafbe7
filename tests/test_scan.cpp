// test_scan.cpp: cumsum. The op sweep's case (sweep_cumsum: every dtype, bfloat16 included, x
// the sweep shapes x every dim x every layout, against float64 partial sums added in order and
// rounded once to the result's dtype), then PyTorch's rules: the result dtype, the dtype
// argument, 0-d and empty tensors, infinities, int64 wrapping, errors, and the gradient. PyTorch's
// values for the same calls are in the comments (torch 1.13).
#include <cmath>
#include <limits>

#include "sweep_common.hpp"

using namespace wick;
using ref::Domain;
using ref::Layout;

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
    int64_t outer = 1, n = 1, inner = 1;
    for (int64_t d = 0; d < nd; ++d) {
      const int64_t size = shape[static_cast<size_t>(d)];
      (d < dim ? outer : d == dim ? n : inner) *= size;
    }
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = 0; c < inner; ++c) {
        double sum = 0;
        for (int64_t i = 0; i < n; ++i) {
          double& v = want[static_cast<size_t>((o * n + i) * inner + c)];
          sum += v;
          v = dtype == kFloat32 ? static_cast<double>(static_cast<float>(sum))
              : dtype == kBFloat16
                  ? static_cast<double>(static_cast<float>(BFloat16(static_cast<float>(sum))))
                  : sum;
        }
      }
    }
    int64_t flat = 0;
    return ref::check_all(
        y, [&](const std::vector<int64_t>&) { return want[static_cast<size_t>(flat++)]; },
        "cumsum");
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
