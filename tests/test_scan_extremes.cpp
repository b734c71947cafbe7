// test_scan_extremes.cpp: cummax, cummin and logcumsumexp (core/src/ops_scan.cpp). The op
// sweep's cases (every dtype, bfloat16 included, x the sweep shapes x every dim x every layout:
// the running extreme and its position found by a plain walk of each line; logcumsumexp against
// a long double running sum of exponentials, rounded to the dtype), then PyTorch's values (in
// the comments, python3-torch 1.13): ties, NaN, infinities, bool, 0-d and empty tensors,
// errors, and the gradients.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "sweep_common.hpp"

using namespace wick;
using ref::Layout;

namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

using Ints = std::vector<int64_t>;
Ints ints(const Tensor& t) { return t.contiguous().to_vector<int64_t>(); }

// float results compared as bits, so that NaN equals NaN.
bool same_floats(const Tensor& t, const std::vector<float>& want) {
  const std::vector<float> got = t.contiguous().to_vector<float>();
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == want[i] || (std::isnan(got[i]) && std::isnan(want[i])))) return false;
  }
  return true;
}

}  // namespace

namespace {

// One case of sweep_cum_extreme. Not inlined into the sweep: GCC 12 then warns falsely
// (free-nonheap-object) about check_all's index vector.
[[gnu::noinline]] bool check_cum_extreme(OpId op, Dtype dtype, const Shape& shape, int64_t dim,
                                         Layout layout) {
  const bool is_min = op == OpId::cummin;
  // Small integers and quarters, so that lines hold ties.
  const Tensor x = ref::make_input(shape, dtype, layout, ref::Domain::SmallInt);
  INFO(op_name(op) << " of " << label(x, layout) << " along dim " << dim);
  ref::PoisonScope poison;
  const auto [values, indices] = is_min ? cummin(x, dim) : cummax(x, dim);
  CHECK(values.dtype() == dtype);
  CHECK(indices.dtype() == kInt64);
  REQUIRE(values.sizes() == shape);
  REQUIRE(indices.sizes() == shape);
  // Walk each line: a value replaces the extreme when it is at least as large (small), or NaN.
  const std::vector<double> in = ref::values(x);
  std::vector<double> want_values(in.size());
  Ints want_indices(in.size());
  const Lines l(shape, shape.empty() ? 0 : dim);
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t c = 0; c < l.inner; ++c) {
      double best = 0;
      int64_t best_at = -1;
      for (int64_t i = 0; i < l.n; ++i) {
        const auto at = static_cast<size_t>((o * l.n + i) * l.inner + c);
        if (best_at < 0 || std::isnan(in[at]) || (is_min ? in[at] <= best : in[at] >= best)) {
          best = in[at];
          best_at = i;
        }
        want_values[at] = best;
        want_indices[at] = best_at;
      }
    }
  }
  int64_t flat = 0;
  if (!ref::check_all(
          values,
          [&](const std::vector<int64_t>&) { return want_values[static_cast<size_t>(flat++)]; },
          "values")) {
    return false;
  }
  const bool same_indices = ints(indices) == want_indices;
  CHECK(same_indices);
  return same_indices;
}

}  // namespace

void sweep_cum_extreme(OpId op) {
  std::vector<Shape> shapes = kShapes;
  shapes.push_back({2, 5, 3});
  for_each_dim_case(shapes, [op](Dtype dtype, const Shape& shape, int64_t dim, Layout layout) {
    return check_cum_extreme(op, dtype, shape, dim, layout);
  });
}

void sweep_logcumsumexp() {
  std::vector<Shape> shapes = kShapes;
  shapes.push_back({2, 5, 3});
  for_each_dim_case(shapes, [](Dtype dtype, const Shape& shape, int64_t dim, Layout layout) {
    const Tensor x = ref::make_input(shape, dtype, layout);
    INFO("logcumsumexp of " << label(x, layout) << " along dim " << dim);
    if (!is_floating(dtype)) {
      CHECK_THROWS_AS(logcumsumexp(x, dim), DtypeError);
      return true;
    }
    ref::PoisonScope poison;
    const Tensor y = logcumsumexp(x, dim);
    CHECK(y.dtype() == dtype);
    REQUIRE(y.sizes() == shape);
    // The inputs lie in [-3, 3): their exponentials sum without overflow in long double.
    std::vector<double> want = ref::values(x);
    const Lines l(shape, shape.empty() ? 0 : dim);
    for (int64_t o = 0; o < l.outer; ++o) {
      for (int64_t c = 0; c < l.inner; ++c) {
        long double sum = 0;
        for (int64_t i = 0; i < l.n; ++i) {
          double& v = want[static_cast<size_t>((o * l.n + i) * l.inner + c)];
          sum += std::exp(static_cast<long double>(v));
          v = rounded_to_dtype(static_cast<double>(std::log(sum)), dtype);
        }
      }
    }
    int64_t flat = 0;
    // float64: one rounding per step, up to 1029 steps along a line.
    return ref::check_all(
        y, [&](const std::vector<int64_t>&) { return want[static_cast<size_t>(flat++)]; },
        "logcumsumexp", dtype == kFloat64 ? 10.0 : 1.0);
  });
}

TEST_CASE("cummax and cummin: PyTorch's values", "[scan]") {
  // torch.cummax(tensor([1., 3., 3., nan, 2., nan, 5.]), 0): values [1, 3, 3, nan, nan, nan,
  // nan], indices [0, 1, 2, 3, 3, 5, 5]; cummin: [1, 1, 1, nan, ...], [0, 0, 0, 3, 3, 5, 5].
  // A tie moves the index forward; a NaN stays, its index following each later NaN.
  const Tensor x = tensor({1.0f, 3.0f, 3.0f, kNan, 2.0f, kNan, 5.0f});
  const auto [hi, hi_at] = cummax(x, 0);
  CHECK(same_floats(hi, {1, 3, 3, kNan, kNan, kNan, kNan}));
  CHECK(ints(hi_at) == Ints{0, 1, 2, 3, 3, 5, 5});
  const auto [lo, lo_at] = x.cummin(0);
  CHECK(same_floats(lo, {1, 1, 1, kNan, kNan, kNan, kNan}));
  CHECK(ints(lo_at) == Ints{0, 0, 0, 3, 3, 5, 5});
  // int64: cummax([1, 3, 3, 2, 5]) is [1, 3, 3, 3, 5] at [0, 1, 2, 2, 4].
  const auto [iv, ii] = cummax(tensor({1, 3, 3, 2, 5}), 0);
  CHECK(iv.dtype() == kInt64);
  CHECK(ints(iv) == Ints{1, 3, 3, 3, 5});
  CHECK(ints(ii) == Ints{0, 1, 2, 2, 4});
  // int64's extremes are values, not sentinels.
  const int64_t least = std::numeric_limits<int64_t>::min();
  const int64_t most = std::numeric_limits<int64_t>::max();
  CHECK(ints(std::get<1>(cummax(tensor({least, least}), 0))) == Ints{0, 1});
  CHECK(ints(std::get<1>(cummin(tensor({most, most}), 0))) == Ints{0, 1});
  // bool: cummax([True, False, True]) is [True, True, True] at [0, 0, 2].
  const auto [bv, bi] = cummax(tensor({true, false, true}), 0);
  CHECK(bv.dtype() == kBool);
  CHECK(bv.to_vector<bool>() == std::vector<bool>{true, true, true});
  CHECK(ints(bi) == Ints{0, 0, 2});
  CHECK(ints(std::get<1>(cummin(tensor({true, false, false}), 0))) == Ints{0, 1, 2});
  // Infinities are numbers: cummax([-inf, -inf, inf, 1]) at [0, 1, 2, 2].
  CHECK(ints(std::get<1>(cummax(tensor({-kInf, -kInf, kInf, 1.0f}), 0))) == Ints{0, 1, 2, 2});
  // -0 and 0 tie (torch: values [-0., 0., -0.], indices [0, 1, 2]).
  const auto [zv, zi] = cummax(tensor({-0.0f, 0.0f, -0.0f}), 0);
  CHECK(std::signbit(zv.to_vector<float>()[2]));
  CHECK(ints(zi) == Ints{0, 1, 2});
  // Along dim 0 of [[1, 0], [0, 2]]: values [[1, 0], [1, 2]], indices [[0, 0], [0, 1]]; along
  // dim 0 of its transpose, and of a bfloat16 copy.
  const Tensor m = tensor({{1.0, 0.0}, {0.0, 2.0}});
  CHECK(std::get<0>(m.cummax(0)).to_vector<double>() == std::vector<double>{1, 0, 1, 2});
  CHECK(ints(std::get<1>(m.cummax(0))) == Ints{0, 0, 0, 1});
  CHECK(ints(std::get<1>(m.t().cummax(-1))) == Ints{0, 0, 0, 1});
  const auto [b16, b16_at] = cummin(m.to(kBFloat16), 1);
  CHECK(b16.dtype() == kBFloat16);
  CHECK(b16.to(kFloat64).to_vector<double>() == std::vector<double>{1, 0, 0, 0});
  CHECK(ints(b16_at) == Ints{0, 1, 0, 0});
  // 0-d (torch: values tensor(3.), indices tensor(0)) and empty.
  const auto [sv, si] = cummax(tensor(3.0f), -1);
  CHECK(sv.dim() == 0);
  CHECK(sv.item<float>() == 3.0f);
  CHECK(si.item<int64_t>() == 0);
  CHECK(std::get<1>(cummin(zeros({0, 4}), 1)).sizes() == Shape{0, 4});
}

TEST_CASE("cummax and cummin: errors", "[scan]") {
  const Tensor m = zeros({2, 3});
  CHECK_THROWS_AS(cummax(m, 2), IndexError);
  CHECK_THROWS_AS(cummin(m, -3), IndexError);
  CHECK_THROWS_AS(cummax(tensor(1.0f), 1), IndexError);
  CHECK_THROWS_AS(cummax(Tensor(), 0), ValueError);
  try {
    cummin(m, 5);
    FAIL("no error");
  } catch (const IndexError& e) {
    CHECK_THAT(e.what(), Catch::Contains("cummin"));
  }
}

TEST_CASE("logcumsumexp: PyTorch's values", "[scan]") {
  // torch.logcumsumexp(tensor([1., -inf, inf, 2., nan, 1.]), 0) is [1, 1, inf, inf, nan, nan];
  // of [-inf, -inf, 0.], [-inf, -inf, 0]; of [inf, -inf], [inf, inf]; of [inf, inf], [inf, inf].
  CHECK(same_floats(logcumsumexp(tensor({1.0f, -kInf, kInf, 2.0f, kNan, 1.0f}), 0),
                    {1, 1, kInf, kInf, kNan, kNan}));
  CHECK(same_floats(logcumsumexp(tensor({-kInf, -kInf, 0.0f}), 0), {-kInf, -kInf, 0}));
  CHECK(same_floats(logcumsumexp(tensor({kInf, -kInf}), 0), {kInf, kInf}));
  CHECK(same_floats(tensor({kInf, kInf}).logcumsumexp(0), {kInf, kInf}));
  // No overflow where exp would: [1000, 1000] is [1000, 1000 + log 2]; float32 adds in float64.
  const std::vector<double> big =
      logcumsumexp(tensor({1000.0, 1000.0}).to(kFloat64), 0).to_vector<double>();
  CHECK(big[0] == 1000.0);
  CHECK(big[1] == Approx(1000.0 + std::log(2.0)).epsilon(1e-15));
  CHECK(logcumsumexp(tensor({-1000.0f, -1000.0f}), 0).to_vector<float>()[1] ==
        static_cast<float>(-1000.0 + std::log(2.0)));
  // [[0, 1], [2, 3]] along dim 0: [[0, 1], [log(1 + e^2), log(e + e^3)]], also through a
  // transposed view along dim 1.
  const Tensor m = tensor({{0.0, 1.0}, {2.0, 3.0}}).to(kFloat64);
  const std::vector<double> want{0, 1, std::log(1 + std::exp(2.0)),
                                 std::log(std::exp(1.0) + std::exp(3.0))};
  const std::vector<double> got = m.logcumsumexp(0).to_vector<double>();
  const std::vector<double> got_t = m.t().logcumsumexp(1).t().contiguous().to_vector<double>();
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(got[i] == Approx(want[i]).epsilon(1e-15));
    CHECK(got_t[i] == got[i]);
  }
  // bfloat16: [1, 2] is [1, 2.3125] (torch, bfloat16).
  const Tensor b = logcumsumexp(tensor({1.0, 2.0}).to(kBFloat16), 0);
  CHECK(b.dtype() == kBFloat16);
  CHECK(b.to(kFloat32).to_vector<float>() == std::vector<float>{1.0f, 2.3125f});
  // 0-d and empty.
  CHECK(logcumsumexp(tensor(2.5f), 0).item<float>() == 2.5f);
  CHECK(logcumsumexp(zeros({3, 0}), 1).sizes() == Shape{3, 0});
}

TEST_CASE("logcumsumexp: errors", "[scan]") {
  // torch refuses integers too (its CPU kernel has no int64 case).
  try {
    logcumsumexp(tensor({1, 2}), 0);
    FAIL("no error");
  } catch (const DtypeError& e) {
    CHECK_THAT(e.what(), Catch::Contains("logcumsumexp") && Catch::Contains("int64"));
  }
  CHECK_THROWS_AS(logcumsumexp(tensor({true}), 0), DtypeError);
  CHECK_THROWS_AS(logcumsumexp(zeros({2}), 1), IndexError);
  CHECK_THROWS_AS(logcumsumexp(Tensor(), 0), ValueError);
}

TEST_CASE("cummax, cummin and logcumsumexp gradients", "[scan][autograd]") {
  // torch: x = [1, 3, 2, 3] (requires grad); cummax's values [1, 3, 3, 3] at [0, 1, 1, 3];
  // values.backward([1, 10, 100, 1000]) gives x.grad = [1, 110, 0, 1000].
  Tensor x = tensor({1.0f, 3.0f, 2.0f, 3.0f}).requires_grad_();
  std::get<0>(x.cummax(0)).backward(tensor({1.0f, 10.0f, 100.0f, 1000.0f}));
  CHECK(x.grad().to_vector<float>() == std::vector<float>{1, 110, 0, 1000});
  // Along dim 0 of a transposed view, cummin.
  Tensor m = tensor({{3.0, 1.0}, {2.0, 4.0}}).requires_grad_();
  std::get<0>(m.t().cummin(0)).sum().backward();  // columns [3, 1] and [2, 4]: [3, 1], [2, 2]
  CHECK(m.grad().to_vector<double>() == std::vector<double>{1, 1, 2, 0});
  // logcumsumexp: torch gives x.grad = [1.1963025704244028, 0.533605710064456, 0.27009171951114136]
  // for x = [0., 1., -1.] (float64) and (logcumsumexp(x, 0) * [1., -2., 3.]).sum().backward(); a
  // negative g goes through the formula's second part.
  Tensor v = tensor({0.0, 1.0, -1.0}).to(kFloat64).requires_grad_();
  (logcumsumexp(v, 0) * tensor({1.0, -2.0, 3.0}).to(kFloat64)).sum().backward();
  const std::vector<double> g = v.grad().to_vector<double>();
  CHECK(g[0] == Approx(1.1963025704244028).epsilon(1e-14));
  CHECK(g[1] == Approx(0.533605710064456).epsilon(1e-14));
  CHECK(g[2] == Approx(0.27009171951114136).epsilon(1e-14));
  const auto in = [](std::vector<double> v) { return tensor(v).reshape({2, 3}).requires_grad_(); };
  CHECK(autograd::gradcheck([](const std::vector<Tensor>& t) { return t[0].logcumsumexp(1); },
                            {in({0.5, -1.5, 2.0, 0.0, 1.25, -3.0})}) == "");
  CHECK(autograd::gradcheck(
            [](const std::vector<Tensor>& t) { return t[0].t().logcumsumexp(1) * t[0].t(); },
            {in({0.5, -1.5, 2.0, 0.0, 1.25, -3.0})}) == "");
  // Distinct values: the extreme's position does not move under gradcheck's perturbation.
  CHECK(autograd::gradcheck(
            [](const std::vector<Tensor>& t) { return std::get<0>(t[0].cummax(1)) * t[0]; },
            {in({0.5, -1.5, 2.0, 0.0, 1.25, -3.0})}) == "");
  CHECK(
      autograd::gradcheck([](const std::vector<Tensor>& t) { return std::get<0>(t[0].cummin(0)); },
                          {in({0.5, -1.5, 2.0, 0.0, 1.25, -3.0})}) == "");
}
