// test_scatter.cpp: scatter, scatter_reduce, index_copy, index_fill and take_along_dim. The op
// sweep's case for the scatter_reduce kernel op (sweep_scatter_reduce: every dtype x shapes x
// every dim x every layout x every mode, with and without self, an index as large as self
// outside dim and smaller ones, repeated targets, against a float64 (int64: wrapping) loop in
// index order), PyTorch 1.13's values and gradients for the same calls, NaN, the errors, the
// in-place forms, and the ops built on the scatter.
#include <cmath>
#include <limits>

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

const char* const kModes[] = {"sum", "prod", "mean", "amax", "amin", "assign"};

// Combines x into acc as the op's mode does: in float64 for floats, wrapping int64 (through
// uint64, never a signed overflow) for integers and bool.
double combine_float(const std::string& mode, double acc, double x) {
  if (mode == "assign") return x;
  if (mode == "sum" || mode == "mean") return acc + x;
  if (mode == "prod") return acc * x;
  if (std::isnan(acc) || std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  return mode == "amax" ? std::max(acc, x) : std::min(acc, x);
}
int64_t combine_int(const std::string& mode, int64_t acc, int64_t x) {
  const auto a = static_cast<uint64_t>(acc), b = static_cast<uint64_t>(x);
  if (mode == "assign") return x;
  if (mode == "sum" || mode == "mean") return static_cast<int64_t>(a + b);
  if (mode == "prod") return static_cast<int64_t>(a * b);
  return mode == "amax" ? std::max(acc, x) : std::min(acc, x);
}

// The op's definition, one target at a time: self's value (or nothing, without self), then
// every src element sent there in index order. Integers accumulate exactly in int64.
std::vector<double> scatter_reference(const Tensor& self, int64_t dim, const Tensor& index,
                                      const Tensor& src, const std::string& mode,
                                      bool include_self) {
  const bool integral = self.dtype() == kInt64 || self.dtype() == kBool;
  std::vector<double> acc = ref::values(self);
  std::vector<int64_t> exact(acc.size());
  for (size_t k = 0; k < acc.size(); ++k) exact[k] = integral ? static_cast<int64_t>(acc[k]) : 0;
  std::vector<int64_t> count(acc.size(), include_self ? 1 : 0);
  const Shape& sizes = self.sizes();
  ref::for_each_index(index.sizes(), [&](const std::vector<int64_t>& j) {
    const std::vector<int64_t> target =
        with_dim(j, dim, static_cast<int64_t>(ref::value(index, j)));
    const auto at = static_cast<size_t>(flat_index(sizes, target));
    const double x = ref::value(src, j);
    const bool first = count[at] == 0 && mode != "assign";
    if (integral) {
      const auto xi = static_cast<int64_t>(x);
      exact[at] = first ? xi : combine_int(mode, exact[at], xi);
    } else {
      acc[at] = first ? x : combine_float(mode, acc[at], x);
    }
    ++count[at];
  });
  for (size_t k = 0; k < acc.size(); ++k) {
    if (integral) {
      // mean rounds down, through float64 as the op does (a target of one value keeps it).
      acc[k] = mode == "mean" && count[k] > 1
                   ? std::floor(static_cast<double>(exact[k]) / static_cast<double>(count[k]))
                   : static_cast<double>(exact[k]);
      if (self.dtype() == kBool) acc[k] = acc[k] != 0 ? 1 : 0;
    } else if (mode == "mean" && count[k] > 0) {
      acc[k] /= static_cast<double>(count[k]);
    }
  }
  return acc;
}

Tensor run_mode(const Tensor& x, int64_t dim, const Tensor& idx, const Tensor& src,
                const std::string& mode, bool include_self) {
  if (mode == "assign") return scatter(x, dim, idx, src);
  return scatter_reduce(x, dim, idx, src, mode, include_self);
}

Tensor f64(std::initializer_list<double> values, const Shape& shape) {
  return tensor(std::vector<double>(values), shape, TensorOptions(kFloat64));
}

std::vector<double> flat(const Tensor& t) {
  return t.contiguous().reshape({t.numel()}).to_vector<double>();
}

}  // namespace

void sweep_scatter_reduce() {
  const std::vector<Shape> shapes = {{0}, {1, 0, 3}, {20}, {5, 3}, {2, 5, 3}, {67, 45}};
  for (Dtype dtype : ref::all_dtypes()) {
    for (const Shape& shape : shapes) {
      const auto nd = static_cast<int64_t>(shape.size());
      for (int64_t dim = 0; dim < nd; ++dim) {
        for (int shrink : {0, 1, 2}) {
          for (Layout layout : kLayouts) {
            const Domain domain = dtype == kInt64 ? Domain::SmallInt : Domain::Any;
            const Tensor x = ref::make_input(shape, dtype, layout, domain);
            const int64_t size = shape[static_cast<size_t>(dim)];
            const Tensor idx =
                draw_gather_index(shape, dim, size > 40 ? 29 : 7, shrink, uint64_t(dim * 31 + nd));
            const Tensor src = ref::make_input(idx.sizes(), dtype, layout, domain);
            for (const std::string mode : kModes) {
              if (mode == "mean" && dtype == kBool) continue;
              for (bool include_self : {true, false}) {
                if (mode == "assign" && !include_self) continue;
                INFO(mode << (include_self ? "" : " without self") << " of " << label(x, layout)
                          << " along dim " << dim << " with an index " << describe(idx));
                ref::PoisonScope poison;
                const Tensor y = run_mode(x, dim, idx, src, mode, include_self);
                CHECK(y.dtype() == dtype);
                REQUIRE(y.sizes() == shape);
                const std::vector<double> want =
                    scatter_reference(x, dim, idx, src, mode, include_self);
                ref::check_all(
                    y,
                    [&](const std::vector<int64_t>& i) {
                      return want[static_cast<size_t>(flat_index(shape, i))];
                    },
                    "scatter_reduce", 10.0);
              }
            }
          }
        }
      }
    }
  }
}

TEST_CASE("scatter_reduce: PyTorch 1.13's values and gradients for every mode", "[scatter]") {
  // torch: x.scatter_reduce(0, idx, src, mode, include_self=...), then (y * w).sum().backward()
  // with w = 1..12 (tests the rules of FunctionsManual.cpp value for value).
  const Tensor x = f64({1.5, -2, 3, 0.5, 4, 0, -1, 2, -3, 2.5, 1, -0.5}, {3, 4});
  const Tensor idx = tensor({{2, 0, 2, 1}, {2, 2, 0, 1}});
  const Tensor src = f64({0.25, 3, -2, 5, -4, 1.5, 0, -1}, {2, 4});
  const Tensor w = arange(12, kFloat64).reshape({3, 4}) + 1;
  struct Golden {
    const char* mode;
    bool include_self;
    std::vector<double> y, x_grad, src_grad;
  };
  const std::vector<Golden> golden = {
      {"sum",
       true,
       {1.5, 1, 3, 0.5, 4, 0, -1, 6, -6.75, 4, -1, -0.5},
       {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
       {9, 2, 11, 8, 9, 10, 3, 8}},
      {"sum",
       false,
       {1.5, 3, 0, 0.5, 4, 0, -1, 4, -3.75, 1.5, -2, -0.5},
       {1, 0, 0, 4, 5, 6, 7, 0, 0, 0, 0, 12},
       {9, 2, 11, 8, 9, 10, 3, 8}},
      {"prod",
       true,
       {1.5, -6, 0, 0.5, 4, 0, -1, -10, 3, 3.75, -2, -0.5},
       {1, 6, 0, 4, 5, 6, 7, -40, -9, 15, -22, 12},
       {108, -4, 11, -16, -6.75, 25, 9, 80}},
      {"prod",
       false,
       {1.5, 3, 0, 0.5, 4, 0, -1, -5, -1, 1.5, -2, -0.5},
       {1, 0, 0, 4, 5, 6, 7, 0, 0, 0, 0, 12},
       {-36, 2, 11, -8, 2.25, 10, 3, 40}},
      {"mean",
       true,
       {1.5, 0.5, 1.5, 0.5, 4, 0, -1, 2, -2.25, 2, -0.5, -0.5},
       {1, 1, 1.5, 4, 5, 6, 7, 8.0 / 3, 3, 5, 5.5, 12},
       {3, 1, 5.5, 8.0 / 3, 3, 5, 1.5, 8.0 / 3}},
      {"mean",
       false,
       {1.5, 3, 0, 0.5, 4, 0, -1, 2, -1.875, 1.5, -2, -0.5},
       {1, 0, 0, 4, 5, 6, 7, 0, 0, 0, 0, 12},
       {4.5, 2, 11, 4, 4.5, 10, 3, 4}},
      {"amax",
       true,
       {1.5, 3, 3, 0.5, 4, 0, -1, 5, 0.25, 2.5, 1, -0.5},
       {1, 0, 3, 4, 5, 6, 7, 0, 0, 10, 11, 12},
       {9, 2, 0, 8, 0, 0, 0, 0}},
      {"amax",
       false,
       {1.5, 3, 0, 0.5, 4, 0, -1, 5, 0.25, 1.5, -2, -0.5},
       {1, 0, 0, 4, 5, 6, 7, 0, 0, 0, 0, 12},
       {9, 2, 11, 8, 0, 10, 3, 0}},
      {"amin",
       true,
       {1.5, -2, 0, 0.5, 4, 0, -1, -1, -4, 1.5, -2, -0.5},
       {1, 2, 0, 4, 5, 6, 7, 0, 0, 0, 0, 12},
       {0, 0, 11, 0, 9, 10, 3, 8}},
      {"amin",
       false,
       {1.5, 3, 0, 0.5, 4, 0, -1, -1, -4, 1.5, -2, -0.5},
       {1, 0, 0, 4, 5, 6, 7, 0, 0, 0, 0, 12},
       {0, 2, 11, 0, 9, 10, 3, 8}},
  };
  for (const Golden& g : golden) {
    INFO(g.mode << " include_self " << g.include_self);
    const Tensor xs = x.clone().requires_grad_(), ss = src.clone().requires_grad_();
    const Tensor y = xs.scatter_reduce(0, idx, ss, g.mode, g.include_self);
    (y * w).sum().backward();
    const auto near = [](const std::vector<double>& got, const std::vector<double>& want) {
      REQUIRE(got.size() == want.size());
      for (size_t k = 0; k < got.size(); ++k) CHECK(got[k] == Approx(want[k]).margin(1e-12));
    };
    near(flat(y), g.y);
    near(flat(xs.grad()), g.x_grad);
    near(flat(ss.grad()), g.src_grad);
  }
  // int64 along dim 1; mean rounds down (torch: (5 - 7 + 2) ... [1, 1, 2, -2, 4, -4]).
  const Tensor xi = tensor({{5, -7, 2}, {3, 1, -4}});
  const Tensor ii = tensor({{1, 1, 0}, {0, 1, 1}});
  const Tensor si = tensor({{2, 9, -3}, {-6, 4, 8}});
  const std::vector<std::pair<const char*, std::vector<int64_t>>> ints_with_self = {
      {"sum", {2, 4, 2, -3, 13, -4}},
      {"prod", {-15, -126, 2, -18, 32, -4}},
      {"mean", {1, 1, 2, -2, 4, -4}},
      {"amax", {5, 9, 2, 3, 8, -4}},
      {"amin", {-3, -7, 2, -6, 1, -4}}};
  const std::vector<std::vector<int64_t>> ints_without_self = {{-3, 11, 2, -6, 12, -4},
                                                               {-3, 18, 2, -6, 32, -4},
                                                               {-3, 5, 2, -6, 6, -4},
                                                               {-3, 9, 2, -6, 8, -4},
                                                               {-3, 2, 2, -6, 4, -4}};
  for (size_t m = 0; m < ints_with_self.size(); ++m) {
    const char* mode = ints_with_self[m].first;
    INFO(mode);
    CHECK(xi.scatter_reduce(1, ii, si, mode).reshape({6}).to_vector<int64_t>() ==
          ints_with_self[m].second);
    CHECK(xi.scatter_reduce(1, ii, si, mode, false).reshape({6}).to_vector<int64_t>() ==
          ints_without_self[m]);
  }
}

TEST_CASE("scatter_reduce: NaN, bool, bfloat16, 0-d and empty operands", "[scatter]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // torch: [nan, 2, 7, 4] for amax and [nan, 2, -1, 4] for amin, NaN first or second.
  const Tensor x = f64({1, 2, 3, 4}, {4});
  const Tensor idx = tensor({0, 0, 2, 2});
  for (const Tensor& s : {f64({nan, 5, -1, 7}, {4}), f64({5, nan, -1, 7}, {4})}) {
    const std::vector<double> hi = flat(x.scatter_reduce(0, idx, s, "amax"));
    const std::vector<double> lo = flat(x.scatter_reduce(0, idx, s, "amin", false));
    CHECK(std::isnan(hi[0]));
    CHECK(std::isnan(lo[0]));
    CHECK(hi[2] == 7);
    CHECK(lo[2] == -1);
  }
  // bool: sum and amax are or, prod and amin are and (torch gives the same); mean refuses it.
  const Tensor b = tensor({true, false, true});
  const Tensor bi = tensor({1, 1, 2});
  const Tensor bs = tensor({true, false, false});
  CHECK(b.scatter_reduce(0, bi, bs, "sum").to_vector<bool>() ==
        std::vector<bool>{true, true, true});
  CHECK(b.scatter_reduce(0, bi, bs, "prod").to_vector<bool>() ==
        std::vector<bool>{true, false, false});
  CHECK(b.scatter_reduce(0, bi, bs, "amin", false).to_vector<bool>() ==
        std::vector<bool>{true, false, false});
  CHECK(b.scatter(0, tensor({2}), tensor({false})).to_vector<bool>() ==
        std::vector<bool>{true, false, false});
  CHECK_THROWS_AS(b.scatter_reduce(0, bi, bs, "mean"), DtypeError);
  // bfloat16 is reduced in float32 and rounded once: 256 + 1 + 1 is 258 (torch's CPU kernel
  // rounds each add: 256).
  const Tensor h = zeros({1}, kBFloat16);
  const Tensor hs = tensor({256.0f, 1.0f, 1.0f}).to(kBFloat16);
  CHECK(h.scatter_reduce(0, tensor({0, 0, 0}), hs, "sum").to(kFloat32).item<float>() == 258.0f);
  CHECK(h.scatter_reduce(0, tensor({0, 0, 0}), hs, "amax").to(kFloat32).item<float>() == 256.0f);
  // 0-d operands are vectors of one; an empty index changes nothing.
  CHECK(f64({2}, {}).scatter_reduce(0, tensor({0, 0}), f64({3, 4}, {2}), "prod").item<double>() ==
        24.0);
  CHECK(tensor(2.0).scatter(0, tensor({0}), 9.0).sizes() == Shape{});
  CHECK(equal(x.scatter_reduce(0, zeros({0}, kInt64), f64({}, {0}), "amin", false), x));
}

TEST_CASE("scatter: the last of repeated targets wins; value and in-place forms", "[scatter]") {
  // torch: tensor([1, 2, 3]).scatter(0, [0, 0], [5, 6]) is [6, 2, 3] (unspecified there).
  CHECK(tensor({1, 2, 3}).scatter(0, tensor({0, 0}), tensor({5, 6})).to_vector<int64_t>() ==
        std::vector<int64_t>{6, 2, 3});
  // torch: zeros(2, 3).scatter(1, [[2], [0]], 4.) is [[0, 0, 4], [4, 0, 0]].
  CHECK(flat(zeros({2, 3}, kFloat64).scatter(1, tensor({{2}, {0}}), 4.0)) ==
        std::vector<double>{0, 0, 4, 4, 0, 0});
  CHECK_THROWS_AS(zeros({2}, kInt64).scatter(0, tensor({0}), 1e30), ValueError);
  Tensor t = zeros({2, 3});
  t.scatter_(0, tensor({{1, 0, 1}}), ones({1, 3}));
  t.scatter_(1, tensor({{2}}), 7.0);
  t.scatter_reduce_(1, tensor({{0, 0}}), tensor({{3.0f, 5.0f}}), "amax");
  CHECK(t.to_vector<float>() == std::vector<float>{5, 1, 7, 1, 0, 1});
  t.index_fill_(1, tensor({-1}), -2.0);
  t.index_copy_(0, tensor({1}), full({1, 3}, 9.0f));
  CHECK(t.to_vector<float>() == std::vector<float>{5, 1, -2, 9, 9, 9});
  // Autograd through the in-place forms: the overwritten elements get no gradient.
  const Tensor leaf = ones({3}, kFloat64).requires_grad_();
  Tensor y = leaf * 2;
  y.scatter_(0, tensor({1}), 0.0);
  y.sum().backward();
  CHECK(flat(leaf.grad()) == std::vector<double>{2, 0, 2});
}

TEST_CASE("scatter and scatter_reduce: errors name the op and operands; the engine goes on",
          "[scatter]") {
  const Tensor x = arange(12, kFloat32).reshape({3, 4});
  const Tensor idx = tensor({{2, 0}});
  CHECK_THROWS_WITH(
      x.scatter_reduce(0, idx, ones({1, 2}), "max"),
      Catch::Contains("scatter_reduce") && Catch::Contains("\"max\"") && Catch::Contains("amax"));
  CHECK_THROWS_AS(x.scatter_reduce(0, idx, ones({1, 2}), "max"), ValueError);
  CHECK_THROWS_WITH(x.scatter(0, idx, ones({1, 2}, kFloat64)),
                    Catch::Contains("scatter") && Catch::Contains("float64"));
  CHECK_THROWS_WITH(x.scatter(0, tensor({{3, 0}}), ones({1, 2})),
                    Catch::Contains("scatter") && Catch::Contains("out of range"));
  CHECK_THROWS_WITH(x.scatter_reduce(0, idx, ones({1, 1}), "amin"),
                    Catch::Contains("scatter_reduce") && Catch::Contains("larger than src"));
  CHECK_THROWS_AS(x.scatter(1, tensor({0, 1}), ones({2})), ShapeError);
  CHECK_THROWS_AS(x.scatter(0, tensor({{0.0}}), 1.0), DtypeError);
  // A failed in-place call changes nothing.
  Tensor t = x.clone();
  CHECK_THROWS_AS(t.scatter_(0, tensor({{5}}), 1.0), IndexError);
  CHECK(equal(t, x));
  CHECK(x.scatter(0, idx, 1.0).sum().item<float>() == 59.0f);  // 66 - 8 + 1 - 1 + 1
}

TEST_CASE("index_fill: a tensor value's gradient counts each filled row once", "[scatter]") {
  // torch 1.13: x = [1, 2, 3]; y = x.index_fill(0, [1, 2, 1], v); (y * [1, 2, 3]).sum()
  // gives v.grad 5 (rows 1 and 2, once each), and with dim 1 of zeros(2, 2), index [0, 0] and
  // weights [[1, 2], [3, 4]], 4 (column 0 once).
  const Tensor v = tensor(7.0, kFloat64).requires_grad_();
  const Tensor y = index_fill(tensor({1.0, 2.0, 3.0}, kFloat64), 0, tensor({1, 2, 1}), v);
  CHECK(y.to_vector<double>() == std::vector<double>{1, 7, 7});
  (y * tensor({1.0, 2.0, 3.0}, kFloat64)).sum().backward();
  CHECK(v.grad().item<double>() == 5);
  const Tensor w = tensor(1.0, kFloat64).requires_grad_();
  const Tensor z = index_fill(zeros({2, 2}, kFloat64), 1, tensor({0, 0}), w);
  (z * tensor({1.0, 2.0, 3.0, 4.0}, kFloat64).reshape({2, 2})).sum().backward();
  CHECK(w.grad().item<double>() == 4);
}

TEST_CASE("index_copy and index_fill: PyTorch's values, negative fill indices, errors",
          "[scatter]") {
  const Tensor x = zeros({3, 4});
  // torch: x.index_fill(1, [0, 3, 0], 2.5): columns 0 and 3 hold 2.5.
  CHECK(x.index_fill(1, tensor({0, 3, 0}), 2.5).to_vector<float>() ==
        std::vector<float>{2.5, 0, 0, 2.5, 2.5, 0, 0, 2.5, 2.5, 0, 0, 2.5});
  // Negative indices count from the end in index_fill (torch: [0, 0, 5]), not in index_copy.
  CHECK(zeros({3}).index_fill(0, tensor({-1}), 5).to_vector<float>() ==
        std::vector<float>{0, 0, 5});
  CHECK_THROWS_AS(zeros({3}).index_fill(0, tensor({-4}), 5), IndexError);
  CHECK_THROWS_AS(zeros({3}).index_copy(0, tensor({-1}), ones({1})), IndexError);
  // torch: ones(3, int64).index_fill(0, [1], 2.7) is [1, 2, 1]; 0-d self and index.
  CHECK(ones({3}, kInt64).index_fill(0, tensor({1}), 2.7).to_vector<int64_t>() ==
        std::vector<int64_t>{1, 2, 1});
  CHECK(tensor(3.0f).index_fill(0, tensor(int64_t{0}, kInt64).reshape({}), 5).item<float>() == 5);
  // torch: x.index_copy(0, [2, 0], ones(2, 4)): rows 2 and 0 are ones.
  CHECK(x.index_copy(0, tensor({2, 0}), ones({2, 4})).sum(1).to_vector<float>() ==
        std::vector<float>{4, 0, 4});
  CHECK(tensor(3.0).index_copy(0, tensor({0}), tensor(5.0)).item<double>() == 5.0);
  // A repeated index: the last row wins.
  CHECK(zeros({2}).index_copy(0, tensor({1, 1}), tensor({4.0f, 6.0f})).to_vector<float>() ==
        std::vector<float>{0, 6});
  // torch: "index_copy_(): Source/destination tensor must have same slice shapes".
  CHECK_THROWS_WITH(x.index_copy(0, tensor({2, 0}), ones({2, 3})), Catch::Contains("index_copy") &&
                                                                       Catch::Contains("[2, 4]") &&
                                                                       Catch::Contains("[2, 3]"));
  CHECK_THROWS_AS(x.index_copy(0, tensor({{0}}), ones({1, 4})), ShapeError);
  CHECK_THROWS_AS(x.index_copy(0, tensor({0}), ones({1, 4}, kFloat64)), DtypeError);
  CHECK_THROWS_AS(x.index_fill(0, tensor({0.0}), 1), DtypeError);
  CHECK_THROWS_AS(x.index_fill(0, tensor({0}), ones({1})), ShapeError);
  CHECK_THROWS_AS(x.index_fill(2, tensor({0}), 1), IndexError);
  // Gradients: index_copy's source gets its rows, self the rest; a 0-d value the filled sum.
  const Tensor self = ones({3, 2}, kFloat64).requires_grad_();
  const Tensor source = ones({1, 2}, kFloat64).requires_grad_();
  const Tensor value = tensor(2.0).requires_grad_();
  const Tensor w = arange(6, kFloat64).reshape({3, 2});
  ((self.index_copy(0, tensor({1}), source) * w).sum() +
   (self.index_fill(1, tensor({0}), value) * w).sum())
      .backward();
  CHECK(flat(source.grad()) == std::vector<double>{2, 3});
  CHECK(flat(self.grad()) == std::vector<double>{0, 2, 0, 3, 4, 10});
  CHECK(value.grad().item<double>() == 6.0);
}

TEST_CASE("take_along_dim: PyTorch's values, broadcasting, flattening, errors", "[scatter]") {
  const Tensor a = arange(6, kFloat32).reshape({2, 3});
  // torch: [[0], [5]], [[0, 2], [3, 5]] (the index's rows broadcast), and [5, 0] flattened.
  CHECK(take_along_dim(a, tensor({{0}, {2}}), 1).to_vector<float>() == std::vector<float>{0, 5});
  CHECK(take_along_dim(a, tensor({{0, 2}}), 1).to_vector<float>() ==
        std::vector<float>{0, 2, 3, 5});
  CHECK(a.take_along_dim(tensor({5, 0})).to_vector<float>() == std::vector<float>{5, 0});
  CHECK(a.take_along_dim(tensor({5, 0})).sizes() == Shape{2});
  // self broadcasts too: [1, 3] against indices [2, 1] along dim 1.
  CHECK(take_along_dim(a.narrow(0, 1, 1), tensor({{0}, {2}}), 1).to_vector<float>() ==
        std::vector<float>{3, 5});
  // argsort's use: the sorted values.
  const Tensor v = tensor({{3.0f, 1.0f, 2.0f}});
  CHECK(take_along_dim(v, argsort(v, 1), 1).to_vector<float>() == std::vector<float>{1, 2, 3});
  CHECK_THROWS_WITH(take_along_dim(a, tensor({{-1}}), 1), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(take_along_dim(a, tensor({0, 1}), 1),
                    Catch::Contains("take_along_dim") && Catch::Contains("as many dims"));
  CHECK_THROWS_WITH(take_along_dim(a, tensor({{0.0}}), 1),
                    Catch::Contains("take_along_dim") && Catch::Contains("int64"));
  CHECK_THROWS_WITH(take_along_dim(a, zeros({3, 1}, kInt64), 1),
                    Catch::Contains("take_along_dim") && Catch::Contains("broadcast"));
  // The gradient goes back through the broadcast.
  const Tensor leaf = ones({1, 3}, kFloat64).requires_grad_();
  take_along_dim(leaf, tensor({{0}, {0}, {2}}), 1).sum().backward();
  CHECK(flat(leaf.grad()) == std::vector<double>{2, 0, 1});
}
