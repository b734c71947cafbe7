// test_sort.cpp: sort, argsort and topk (one op, OpId::sort). The op sweep's case (sweep_sort:
// every dtype, bfloat16 included, x the sweep shapes x every dim x every layout, ascending and
// descending, full sorts and top-k, with ties, NaN, infinities and -0.0 in the input) against
// std::stable_sort of float64 values, which keeps equal values in position order: a different
// algorithm from the kernels' (which break ties by position inside the comparison). Then
// PyTorch's rules: its errors, 0-d and empty tensors, long lines, thread counts, and autograd.
// PyTorch's values for the same calls are in the comments where a case was checked against
// torch 1.13.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "sweep_common.hpp"
#include "wick/threads.hpp"

using namespace wick;
using ref::Domain;
using ref::Layout;

namespace {

// Equal as stored values: NaN with NaN, and 0.0 apart from -0.0.
bool same_value(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// The same sizes, dtype and bytes (equal() is false for NaN).
bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) return false;
  const Tensor ca = a.contiguous(), cb = b.contiguous();
  return std::memcmp(ca.raw_data(), cb.raw_data(),
                     static_cast<size_t>(ca.numel()) * ca.element_size()) == 0;
}

// Checks sort's (values, positions) of x along dim, keeping the first k, against a stable sort
// of each line's float64 values (NaN above every number; descending reverses the values' order,
// not the order of equal ones).
bool check_sorted(const Tensor& x, int64_t dim, int64_t k, bool descending, const Tensor& values,
                  const Tensor& positions) {
  const Shape& s = x.sizes();
  Shape want_shape = s;
  if (!s.empty()) want_shape[static_cast<size_t>(dim)] = k;
  REQUIRE(values.sizes() == want_shape);
  REQUIRE(positions.sizes() == want_shape);
  REQUIRE(values.dtype() == x.dtype());
  REQUIRE(positions.dtype() == kInt64);
  int64_t outer = 1, inner = 1, n = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
    if (d < dim) outer *= s[static_cast<size_t>(d)];
    if (d > dim) inner *= s[static_cast<size_t>(d)];
    if (d == dim) n = s[static_cast<size_t>(d)];
  }
  const std::vector<double> in = ref::values(x), got = ref::values(values),
                            got_at = ref::values(positions);
  const auto below = [](double a, double b) { return a < b || (std::isnan(b) && !std::isnan(a)); };
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < inner; ++c) {
      const auto at = [&](int64_t i) { return in[static_cast<size_t>((o * n + i) * inner + c)]; };
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return descending ? below(at(b), at(a)) : below(at(a), at(b));
      });
      for (int64_t j = 0; j < k; ++j) {
        const auto out = static_cast<size_t>((o * k + j) * inner + c);
        const int64_t want = order[static_cast<size_t>(j)];
        if (got_at[out] != static_cast<double>(want) || !same_value(got[out], at(want))) {
          FAIL_CHECK("line (" << o << ", " << c << "), place " << j << ": got position "
                              << got_at[out] << " value " << got[out] << ", expected position "
                              << want << " value " << at(want));
          return false;
        }
      }
    }
  }
  return true;
}

// x with a few special values written in (floating dtypes): NaN, +-inf, -0.0 and 0.0.
void add_special_values(const Tensor& x) {
  if (!is_floating(x.dtype()) || x.numel() < 8) return;
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             -0.0,
                             0.0,
                             std::numeric_limits<double>::quiet_NaN()};
  const Shape& s = x.sizes();
  int64_t i = 0;
  for (double v : specials) {
    // Spread over the tensor: element (i * 7919) mod numel, as a multi-index.
    int64_t flat = (i++ * 7919) % x.numel();
    std::vector<int64_t> idx(s.size());
    for (int64_t d = static_cast<int64_t>(s.size()) - 1; d >= 0; --d) {
      idx[static_cast<size_t>(d)] = flat % s[static_cast<size_t>(d)];
      flat /= s[static_cast<size_t>(d)];
    }
    ref::write_at(x, ref::offset_of(x, idx), v);
  }
}

}  // namespace

void sweep_sort() {
  std::vector<Shape> shapes = kShapes;
  shapes.push_back({5, 3});
  shapes.push_back({2, 5, 3});
  for_each_dim_case(shapes, [](Dtype dtype, const Shape& shape, int64_t dim, Layout layout) {
    // Small integers and quarters: many ties.
    const Tensor x = ref::make_input(shape, dtype, layout, Domain::SmallInt);
    add_special_values(x);
    const int64_t n = shape.empty() ? 1 : shape[static_cast<size_t>(dim)];
    for (bool descending : {false, true}) {
      INFO("sort of " << label(x, layout) << " along dim " << dim
                      << (descending ? ", descending" : ""));
      ref::PoisonScope poison;
      const auto [values, positions] = sort(x, dim, descending);
      if (!check_sorted(x, dim, n, descending, values, positions)) return false;
      if (dtype == kBool) continue;
      // topk: the first few, and half, of the same order.
      for (int64_t k : {std::min<int64_t>(n, 3), n / 2}) {
        INFO("topk with k = " << k);
        const auto [top, top_at] = topk(x, k, dim, /*largest=*/descending);
        if (!shape.empty() && !check_sorted(x, dim, k, descending, top, top_at)) return false;
      }
    }
    return true;
  });
}

TEST_CASE("sort and topk: PyTorch's values, NaN and ties", "[sort]") {
  const double nan = std::numeric_limits<double>::quiet_NaN(),
               inf = std::numeric_limits<double>::infinity();
  const Tensor y = tensor({3.0f, float(nan), 1.0f, 3.0f, -0.0f, 0.0f, float(inf)});
  // torch.sort(y, stable=True): [-0., 0., 1., 3., 3., inf, nan] at [4, 5, 2, 0, 3, 6, 1].
  auto [v, i] = sort(y);
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{4, 5, 2, 0, 3, 6, 1});
  CHECK(std::signbit(v.to_vector<float>()[0]));
  CHECK(std::isnan(v.to_vector<float>()[6]));
  // Descending: [nan, inf, 3., 3., 1., -0., 0.] at [1, 6, 0, 3, 2, 4, 5].
  std::tie(v, i) = y.sort(-1, true);
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{1, 6, 0, 3, 2, 4, 5});
  CHECK(v.narrow(0, 1, 6).to_vector<float>() == std::vector<float>{float(inf), 3, 3, 1, -0.0f, 0});
  // torch.topk(y, 3): [nan, inf, 3.] at [1, 6, 3]; wick takes the first of the tied 3s (0).
  std::tie(v, i) = topk(y, 3);
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{1, 6, 0});
  // torch.topk(y, 3, largest=False): [0., -0., 1.] at [5, 4, 2]; wick: position order.
  std::tie(v, i) = y.topk(3, 0, false);
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{4, 5, 2});
  // Integers and bool (torch: argsort [1, 3, 0, 2]; topk 2 of [2, 1, 2, 1]: [2, 2] at [0, 2];
  // sort of [True, False, True]: [False, True, True] at [1, 0, 2]).
  CHECK(argsort(tensor({2, 1, 2, 1})).to_vector<int64_t>() == std::vector<int64_t>{1, 3, 0, 2});
  std::tie(v, i) = topk(tensor({2, 1, 2, 1}), 2);
  CHECK(v.to_vector<int64_t>() == std::vector<int64_t>{2, 2});
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{0, 2});
  std::tie(v, i) = sort(tensor({true, false, true}));
  CHECK(v.to_vector<bool>() == std::vector<bool>{false, true, true});
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{1, 0, 2});
  // int64 beyond double's integers: compared as int64 (2^53 + 1 > 2^53).
  const int64_t big = (int64_t{1} << 53) + 1;
  CHECK(argsort(tensor({big, big - 1})).to_vector<int64_t>() == std::vector<int64_t>{1, 0});
  // bfloat16 (torch: [1., 2.] at [0, 1]; topk 1: [2.] at [1]).
  const Tensor b = tensor({2.0, 1.0, 2.0}).to(kBFloat16);
  std::tie(v, i) = sort(b);
  CHECK(v.dtype() == kBFloat16);
  CHECK(v.to(kFloat32).to_vector<float>() == std::vector<float>{1, 2, 2});
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{1, 0, 2});
  // Along dim 0 of a matrix, the stable overload, and a transposed input.
  const Tensor m = tensor({{3.0, 1.0}, {1.0, 2.0}, {2.0, 0.0}});
  std::tie(v, i) = sort(m, std::optional<bool>(true), 0, false);
  CHECK(v.to_vector<double>() == std::vector<double>{1, 0, 2, 1, 3, 2});
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{1, 2, 2, 0, 0, 1});
  // libtorch's argsort with `stable` first: argsort(m, true, 0) sorts along dim 0 (and
  // argsort(m, 1) along dim 1).
  CHECK(argsort(m, true, 0).to_vector<int64_t>() == std::vector<int64_t>{1, 2, 2, 0, 0, 1});
  CHECK(m.argsort(true).to_vector<int64_t>() == std::vector<int64_t>{1, 0, 0, 1, 1, 0});
  CHECK(argsort(m, 0).to_vector<int64_t>() == std::vector<int64_t>{1, 2, 2, 0, 0, 1});
  std::tie(v, i) = m.t().topk(1, 1);
  CHECK(v.to_vector<double>() == std::vector<double>{3, 2});
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{0, 1});
}

TEST_CASE("sort and topk: PyTorch's errors, 0-d and empty tensors", "[sort]") {
  const Tensor x = arange(6, kFloat32).reshape({2, 3});
  // torch: "selected index k out of range".
  CHECK_THROWS_WITH(topk(x, 4), Catch::Contains("topk") && Catch::Contains("out of range") &&
                                    Catch::Contains("k = 4") && Catch::Contains("[2, 3]"));
  CHECK_THROWS_AS(topk(x, -1), IndexError);
  CHECK_THROWS_AS(topk(x, 3, 0), IndexError);
  CHECK_THROWS_AS(sort(x, 2), IndexError);
  CHECK_THROWS_AS(topk(x, 1, -3), IndexError);
  // As PyTorch, whose message is: "topk_cpu" not implemented for 'Bool'.
  CHECK_THROWS_WITH(topk(ones({3}, kBool), 1), Catch::Contains("topk") && Catch::Contains("bool"));
  CHECK_THROWS_AS(sort(Tensor()), ValueError);
  CHECK_THROWS_AS(argsort(Tensor()), ValueError);
  // After the errors, 0-d: one line of one element (torch: topk of a 0-d tensor with k = 0
  // returns the value, as with k = 1); dim must be -1 or 0.
  auto [v, i] = sort(tensor(5.0f));
  CHECK(v.sizes() == Shape{});
  CHECK(v.item<float>() == 5.0f);
  CHECK(i.item<int64_t>() == 0);
  std::tie(v, i) = topk(tensor(5.0f), 0);
  CHECK(v.sizes() == Shape{});
  CHECK(v.item<float>() == 5.0f);
  CHECK_THROWS_AS(sort(tensor(5.0f), 1), IndexError);
  CHECK_THROWS_AS(topk(tensor(5.0f), 2), IndexError);
  // Empty (torch: sort of [0, 3] along dim 0 is [0, 3]; topk(zeros(0, 3), 2, dim=1) is [0, 2]).
  std::tie(v, i) = sort(zeros({0, 3}), 0);
  CHECK(v.sizes() == Shape{0, 3});
  std::tie(v, i) = topk(zeros({0, 3}), 2, 1);
  CHECK(v.sizes() == Shape{0, 2});
  CHECK(i.sizes() == Shape{0, 2});
  std::tie(v, i) = topk(x, 0, 1);
  CHECK(v.sizes() == Shape{2, 0});
}

TEST_CASE("sort and topk: long lines, every thread count gives the same bits", "[sort]") {
  // 100003 floats with many ties (multiples of 1/8 in [-64, 64)), a NaN and a -0.0: the full
  // sort (radix), a top-10 (heap) and a top-12500 (nth_element) against the stable float64
  // sort; then 64 lines of 5000 along dim 0 (strided lines). The runs on 1 and 2 threads must
  // give the same bits (the 64 lines are split over the threads; a single line is not split).
  manual_seed(7);
  const Tensor x = ((rand({100003}) * 1024.0).to(kInt64).to(kFloat32) - 512.0) / 8.0;
  ref::write_at(x, 17, std::numeric_limits<double>::quiet_NaN());
  ref::write_at(x, 99999, -0.0);
  const Tensor m = ((rand({5000, 64}) * 64.0).to(kInt64) - 32).to(kFloat64);
  const int threads = get_num_threads();
  std::vector<std::vector<Tensor>> runs;
  for (int t : {1, 2}) {
    set_num_threads(t);
    auto [v, i] = sort(x, 0, true);
    auto [tv, ti] = topk(x, 10, 0, false);
    auto [mv, mi] = sort(m, 0);
    auto [nv, ni] = topk(x, 12500);
    runs.push_back({v, i, tv, ti, mv, mi, nv, ni});
  }
  set_num_threads(threads);
  CHECK(check_sorted(x, 0, x.numel(), true, runs[0][0], runs[0][1]));
  CHECK(check_sorted(x, 0, 10, false, runs[0][2], runs[0][3]));
  CHECK(check_sorted(m, 0, 5000, false, runs[0][4], runs[0][5]));
  CHECK(check_sorted(x, 0, 12500, true, runs[0][6], runs[0][7]));
  for (size_t j = 0; j < runs[0].size(); ++j) CHECK(same_bits(runs[0][j], runs[1][j]));
}

TEST_CASE("sort and topk gradients", "[sort][autograd]") {
  // torch: x = [3., 1., 2.] (requires grad); (x.sort().values * [1, 2, 3]).sum() gives
  // x.grad = [3, 1, 2]; (x.topk(2).values * [10, 20]).sum() gives [10, 0, 20].
  Tensor x = tensor({3.0, 1.0, 2.0}).requires_grad_();
  const Tensor sorted = std::get<0>(sort(x));
  {
    NoGradGuard no_grad;
    x.add_(1.0);  // only the indices are saved: an in-place step between is allowed, as in torch
  }
  (sorted * tensor({1.0, 2.0, 3.0})).sum().backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{3, 1, 2});
  Tensor z = tensor({3.0, 1.0, 2.0}).requires_grad_();
  (std::get<0>(z.topk(2)) * tensor({10.0, 20.0})).sum().backward();
  CHECK(z.grad().to_vector<double>() == std::vector<double>{10, 0, 20});
  // Along dim 0 of a matrix, and a 0-d input.
  Tensor w = tensor({{1.0, 5.0}, {4.0, 2.0}, {3.0, 0.0}}).requires_grad_();
  (std::get<0>(w.topk(2, 0)) * tensor({{1.0, 2.0}, {3.0, 4.0}})).sum().backward();
  CHECK(w.grad().to_vector<double>() == std::vector<double>{0, 2, 1, 4, 3, 0});
  Tensor s = tensor(2.0).requires_grad_();
  (std::get<0>(sort(s)) * 3.0).backward();
  CHECK(s.grad().item<double>() == 3.0);
  // The indices carry no gradient.
  CHECK_FALSE(std::get<1>(sort(w)).requires_grad());
}
