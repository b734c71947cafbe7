// test_layer_norm.cpp: layer_norm and layer_norm_backward against a long double model of their
// formulas, written here from the definitions (mean, biased variance, PyTorch's backward
// formula), for every dtype, layout, normalized rank and affine combination, with poisoned
// outputs; plus the edge cases (constant rows, NaN, a mean far from the spread, empty
// shapes), thread-count invariance of d weight / d bias, bfloat16, and errors. The op sweep
// (test_op_sweep.cpp) calls sweep_layer_norm for both ops.
#include <cmath>
#include <vector>

#include "reference.hpp"
#include "sweep_common.hpp"

using namespace wick;
using ref::Layout;

namespace {

using Real = long double;

struct Model {
  std::vector<double> y, dx, dw, db;
};

// The model over row-major values: rows of n elements, w and b of n values or empty.
Model model(const std::vector<double>& x, const std::vector<double>& g,
            const std::vector<double>& w, const std::vector<double>& b, int64_t n, double eps) {
  const size_t rows = n == 0 ? 0 : x.size() / static_cast<size_t>(n), len = static_cast<size_t>(n);
  Model m;
  m.y.resize(x.size());
  m.dx.resize(x.size());
  m.dw.assign(len, 0.0);
  m.db.assign(len, 0.0);
  std::vector<Real> dw(len, 0), db(len, 0);
  for (size_t r = 0; r < rows; ++r) {
    const double* xr = x.data() + r * len;
    Real mean = 0, var = 0;
    for (size_t i = 0; i < len; ++i) mean += xr[i];
    mean /= static_cast<Real>(n);
    for (size_t i = 0; i < len; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    var /= static_cast<Real>(n);
    const Real rstd = 1 / std::sqrt(var + static_cast<Real>(eps));
    Real sum_gw = 0, sum_gw_xhat = 0;
    for (size_t i = 0; i < len; ++i) {
      const Real xhat = (xr[i] - mean) * rstd;
      const Real wi = w.empty() ? 1 : w[i];
      m.y[r * len + i] = static_cast<double>(xhat * wi + (b.empty() ? 0 : b[i]));
      if (g.empty()) continue;
      const Real gw = g[r * len + i] * wi;
      sum_gw += gw;
      sum_gw_xhat += gw * xhat;
      dw[i] += g[r * len + i] * xhat;
      db[i] += g[r * len + i];
    }
    if (g.empty()) continue;
    for (size_t i = 0; i < len; ++i) {
      const Real xhat = (xr[i] - mean) * rstd;
      const Real gw = g[r * len + i] * (w.empty() ? 1 : w[i]);
      m.dx[r * len + i] = static_cast<double>(
          rstd * (gw - sum_gw / static_cast<Real>(n) - xhat * sum_gw_xhat / static_cast<Real>(n)));
    }
  }
  for (size_t i = 0; i < len; ++i) {
    m.dw[i] = static_cast<double>(dw[i]);
    m.db[i] = static_cast<double>(db[i]);
  }
  return m;
}

// got against row-major `want`, to the dtype's rounding times `scale` (ref::close); the first
// mismatch fails the check with its flat index.
bool check_values(const Tensor& got, const std::vector<double>& want, const std::string& what,
                  double scale) {
  const std::vector<double> values = ref::values(got);
  REQUIRE(values.size() == want.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (!ref::close(values[i], want[i], got.dtype(), scale)) {
      FAIL_CHECK(what << ": element " << i << " (row-major) is " << values[i] << ", expected "
                      << want[i]);
      return false;
    }
  }
  return true;
}

Shape trailing(const Shape& s, int64_t k) { return Shape(s.end() - k, s.end()); }

struct Case {
  Shape shape;
  int64_t k;  // normalized dims
};

void run_case(OpId op, const Case& c, Dtype dtype, Layout layout, bool with_weight, bool with_bias,
              double eps = 1e-5) {
  const Shape norm = trailing(c.shape, c.k);
  Tensor x = ref::make_input(c.shape, dtype, layout);
  // Parameters transposed where they have 2 dims and the input is, strided where it is.
  Tensor w = with_weight ? ref::make_input(norm, dtype, layout) : Tensor();
  Tensor b = with_bias ? ref::make_input(norm, dtype, layout) : Tensor();
  const int64_t n = ref::numel(norm);
  const std::vector<double> xv = ref::values(x);
  const std::vector<double> wv = with_weight ? ref::values(w) : std::vector<double>();
  const std::vector<double> bv = with_bias ? ref::values(b) : std::vector<double>();
  INFO(op_name(op) << " of " << describe(x) << " " << ref::layout_name(layout) << ", normalized "
                   << norm << (with_weight ? ", weight" : "") << (with_bias ? ", bias" : ""));
  const bool f32 = dtype == kFloat32;
  if (op == OpId::layer_norm) {
    ref::PoisonScope poison;
    Tensor y = layer_norm(x, norm, w, b, eps);
    CHECK(y.sizes() == c.shape);
    // float32: (x - hi) - lo, * rstd, * w, + b, each rounded: a few ulp of |xhat w| + |b|.
    check_values(y, model(xv, {}, wv, bv, n, eps).y, "layer_norm", f32 ? 4 : 1);
    return;
  }
  Tensor g = ref::make_input(c.shape, dtype, layout);
  const Model m = model(xv, ref::values(g), wv, bv, n, eps);
  for (const std::array<bool, 3> mask : {std::array<bool, 3>{true, true, true},
                                         {true, false, false},
                                         {false, true, true},
                                         {false, false, true}}) {
    INFO("mask " << mask[0] << mask[1] << mask[2]);
    ref::PoisonScope poison;
    auto [dx, dw, db] = layer_norm_backward(g, x, norm, w, eps, mask);
    CHECK(dx.defined() == mask[0]);
    CHECK(dw.defined() == mask[1]);
    CHECK(db.defined() == mask[2]);
    // dx cancels (gw - mean(gw) - xhat mean(gw xhat)); the kernel rounds each step in the
    // element type (the means are double sums), the model works in long double.
    if (mask[0]) check_values(dx, m.dx, "d input", f32 ? 2 : 100);
    // Column sums over up to 1029 rows: double against long double.
    if (mask[1]) check_values(dw, m.dw, "d weight", f32 ? 2 : 1000);
    if (mask[2]) check_values(db, m.db, "d bias", f32 ? 2 : 1000);
  }
}

}  // namespace

// Called by the op sweep for layer_norm and layer_norm_backward.
void sweep_layer_norm(OpId op) {
  const std::vector<Case> small = {{{20}, 1},      {{7, 33}, 1},   {{7, 33}, 2}, {{4, 3, 5}, 2},
                                   {{3, 0, 5}, 1}, {{3, 0, 5}, 2}, {{0, 4}, 1},  {{2, 1}, 1}};
  for (Dtype dtype : ref::all_dtypes()) {
    if (!is_floating(dtype)) {
      Tensor x = ref::make_input({2, 3}, dtype, Layout::Contiguous);
      if (op == OpId::layer_norm) {
        CHECK_THROWS_AS(layer_norm(x, {3}), DtypeError);
      } else {
        CHECK_THROWS_AS(layer_norm_backward(x, x, {3}, {}, 1e-5, {true, true, true}), DtypeError);
      }
      continue;
    }
    for (const Case& c : small) {
      for (Layout layout :
           {Layout::Contiguous, Layout::Transposed, Layout::Strided, Layout::Expanded}) {
        for (int affine = 0; affine < 4; ++affine) {
          run_case(op, c, dtype, layout, (affine & 1) != 0, (affine & 2) != 0);
        }
      }
    }
    // Rows longer than a vector's lanes, many of them (the backward's blocks of rows), in
    // the two layouts the kernels see (the boundary packs any other).
    for (Layout layout : {Layout::Contiguous, Layout::Transposed}) {
      run_case(op, {{1029, 917}, 1}, dtype, layout, true, true);
    }
    run_case(op, {{129, 3, 67}, 2}, dtype, Layout::Contiguous, true, false, 1e-3);
  }
}

TEST_CASE("layer_norm: rows the statistics find hard", "[layer_norm]") {
  // A constant row: variance 0, so xhat = 0 and y = b (the rstd of eps is finite).
  Tensor b = tensor({0.5, -1.0, 2.0});
  CHECK(layer_norm(full({2, 3}, 7.25), {3}, ones({3}), b).to_vector<float>() ==
        std::vector<float>{0.5f, -1.0f, 2.0f, 0.5f, -1.0f, 2.0f});
  // A NaN makes its row NaN and leaves the other rows alone; an inf gives NaN (inf - inf).
  Tensor x = tensor({1.0, NAN, 3.0, 1.0, 2.0, 3.0, 1.0, INFINITY, 3.0}).reshape({3, 3});
  const std::vector<float> y = layer_norm(x, {3}).to_vector<float>();
  for (int i : {0, 1, 2, 6, 7, 8}) CHECK(std::isnan(y[static_cast<size_t>(i)]));
  CHECK(y[3] == Approx(-1.2247357).epsilon(1e-6));
  CHECK(y[4] == 0.0f);
  // float32 values near 1000 with a spread of 0.01: the mean is taken in double and x - mean
  // too, so xhat keeps float32 accuracy (a float32 mean would be off by up to 3e-5, that is
  // 3e-3 of the spread).
  std::vector<double> values;
  for (int i = 0; i < 1000; ++i) values.push_back(1000.0 + 0.01 * std::sin(i * 0.37));
  Tensor rows = tensor(values, TensorOptions(kFloat32)).reshape({4, 250});
  const Model m = model(ref::values(rows), {}, {}, {}, 250, 1e-12);
  check_values(layer_norm(rows, {250}, {}, {}, 1e-12), m.y, "layer_norm near 1000", 1);
  // The backward's mean(g w) is split the same way: g near 1000 with a spread of 0.01 keeps
  // dx at float32 accuracy (one float for the mean shifted dx by 3e-3 of itself).
  std::vector<double> offset_g;
  for (int i = 0; i < 1000; ++i) offset_g.push_back(1000.0 + 0.01 * std::cos(i * 0.71));
  Tensor g_rows = tensor(offset_g, TensorOptions(kFloat32)).reshape({4, 250});
  Tensor x_rows = tensor(values, TensorOptions(kFloat32)).reshape({4, 250}) - 1000.0;
  const Model mg = model(ref::values(x_rows), ref::values(g_rows), {}, {}, 250, 1e-5);
  check_values(layer_norm_backward(g_rows, x_rows, {250}, {}, 1e-5, {true, false, false})[0], mg.dx,
               "d input with g near 1000", 1);
  // A huge eps: rstd below float32's normal range takes xhat in double.
  Tensor wide = tensor({0.0, 2e36, -1e36, 5e35}, TensorOptions(kFloat32)).reshape({1, 4});
  const Model mw = model(ref::values(wide), {}, {}, {}, 4, 1e84);
  check_values(layer_norm(wide, {4}, {}, {}, 1e84), mw.y, "layer_norm with eps 1e84", 1);
  // Rows near float32's range (x - mean overflows float32), and a constant row with eps far
  // below float32's smallest (rstd overflows float32): finite xhat all the same, as in double.
  Tensor edge = tensor({3e38, -3e38, 1e38, -2e38, 5.0, 5.0, 5.0, 5.0}, TensorOptions(kFloat32))
                    .reshape({2, 4});
  Tensor g =
      tensor({1.0, -2.0, 0.5, 3.0, 1.0, 2.0, -1.0, 0.25}, TensorOptions(kFloat32)).reshape({2, 4});
  for (double eps : {1e-5, 1e-90}) {
    INFO("eps " << eps);
    const Model e = model(ref::values(edge), ref::values(g), {}, {}, 4, eps);
    check_values(layer_norm(edge, {4}, {}, {}, eps), e.y, "layer_norm near float32's range", 1);
    // (With eps 1e-90 the constant row's dx is rstd * (g - mean(g)), about 1e45: inf in float32.)
    if (eps > 1e-30) {
      check_values(layer_norm_backward(g, edge, {4}, {}, eps, {true, false, false})[0], e.dx,
                   "d input near float32's range", 1);
    }
  }
}

TEST_CASE("layer_norm_backward: d weight and d bias have the same bits for any thread count",
          "[layer_norm]") {
  manual_seed(3);
  Tensor x = randn({3001, 129}), g = randn({3001, 129}), w = randn({129});
  const int threads = get_num_threads();
  std::vector<std::vector<float>> results;
  for (int t : {1, 2, 3}) {
    set_num_threads(t);
    auto grads = layer_norm_backward(g, x, {129}, w, 1e-5, {true, true, true});
    std::vector<float> all = grads[0].flatten().to_vector<float>();
    for (int i : {1, 2}) {
      const std::vector<float> p = grads[i].to_vector<float>();
      all.insert(all.end(), p.begin(), p.end());
    }
    results.push_back(all);
  }
  set_num_threads(threads);
  CHECK(results[0] == results[1]);
  CHECK(results[0] == results[2]);
}

TEST_CASE("layer_norm: bfloat16 is the float32 result rounded once", "[layer_norm]") {
  manual_seed(5);
  Tensor x = randn({33, 70}).to(kBFloat16), w = randn({70}).to(kBFloat16);
  Tensor b = randn({70}).to(kBFloat16);
  Tensor want = layer_norm(x.to(kFloat32), {70}, w.to(kFloat32), b.to(kFloat32)).to(kBFloat16);
  CHECK(equal(layer_norm(x, {70}, w, b), want));
  Tensor g = randn({33, 70}).to(kBFloat16);
  auto got = layer_norm_backward(g, x, {70}, w, 1e-5, {true, true, true});
  auto ref32 = layer_norm_backward(g.to(kFloat32), x.to(kFloat32), {70}, w.to(kFloat32), 1e-5,
                                   {true, true, true});
  for (int i = 0; i < 3; ++i) CHECK(equal(got[i], ref32[i].to(kBFloat16)));
}

TEST_CASE("layer_norm: errors name the op and the operands", "[layer_norm][errors]") {
  Tensor x = ones({2, 4});
  CHECK_THROWS_WITH(layer_norm(x, {3}),
                    Catch::Contains("layer_norm") && Catch::Contains("normalized_shape=[3]") &&
                        Catch::Contains("[*, 3]") && Catch::Contains("[2, 4] float32 cpu"));
  CHECK_THROWS_AS(layer_norm(x, {}), ShapeError);
  CHECK_THROWS_AS(layer_norm(x, {2, 2}), ShapeError);
  CHECK_THROWS_AS(layer_norm(ones({4}), {2, 4}), ShapeError);
  CHECK_THROWS_WITH(layer_norm(x, {4}, ones({2, 2})),
                    Catch::Contains("layer_norm") && Catch::Contains("[2, 2] float32 cpu"));
  CHECK_THROWS_WITH(layer_norm(x, {4}, ones({4}), ones({4}, kFloat64)),
                    Catch::Contains("layer_norm") && Catch::Contains("float64"));
  CHECK_THROWS_AS(layer_norm(x, {4}, ones({4}), ones({4}, kFloat64)), DtypeError);
  CHECK_THROWS_AS(layer_norm(Tensor(), {4}), ValueError);
  CHECK_THROWS_AS(layer_norm_backward(ones({2, 3}), x, {4}, {}, 1e-5, {true, false, false}),
                  ShapeError);
  CHECK_THROWS_AS(
      layer_norm_backward(ones({2, 4}, kFloat64), x, {4}, {}, 1e-5, {true, false, false}),
      DtypeError);
  // Not differentiable: refused under grad mode when an operand requires grad, fine without.
  Tensor leaf = ones({2, 4}).requires_grad_();
  CHECK_THROWS_WITH(
      layer_norm_backward(ones({2, 4}), leaf, {4}, {}, 1e-5, {true, false, false}),
      Catch::Contains("layer_norm_backward") && Catch::Contains("not differentiable"));
  {
    NoGradGuard no_grad;
    CHECK(
        layer_norm_backward(ones({2, 4}), leaf, {4}, {}, 1e-5, {true, false, false})[0].defined());
  }
  // After the errors, the op still works.
  CHECK(layer_norm(x, {4}).sizes() == Shape{2, 4});
}
