// test_loop_paths.cpp: the CPU elementwise loop (kernels/cpu/loops.hpp) has three paths, every
// operand contiguous (multiversioned: AVX-512, AVX2, baseline), some inputs repeating one
// number (stride 0; multiversioned too) and strided, each over blocks of rows, plus
// add-with-alpha's vec::axpy_rows. Each op must give the same bits on every path: these tests
// run the same values through each.
#include <cmath>
#include <vector>

#include "op_specs.hpp"
#include "reference.hpp"

using namespace wick;
using op_specs::binary_specs;
using op_specs::unary_specs;

TEST_CASE("op sweep: a repeated operand (stride 0) at the CPU loop's chunk edges", "[sweep]") {
  // map() and add-with-alpha take rows with an input of stride 0 by their own loops (map()'s
  // from 64 elements; they once went through a 256-element buffer in chunks): rows of 1, 2,
  // 255, 256, 257 and 513, and enough rows to split over threads, each against the same op on
  // the materialised (contiguous) operand.
  for (int64_t cols : {1, 2, 255, 256, 257, 513}) {
    for (int64_t rows : {int64_t{3}, 40000 / cols + 2}) {
      INFO(rows << " rows of " << cols);
      const Tensor x = randn({rows, cols}), column = randn({rows, 1}), number = randn({});
      const Tensor column_full = column.expand({rows, cols}).contiguous();
      const Tensor number_full = number.expand({rows, cols}).contiguous();
      CHECK(equal(x + column, x + column_full));
      CHECK(equal(x * 0.5, x * full({rows, cols}, 0.5)));
      CHECK(equal(x.add(number, 0.3), x.add(number_full, 0.3)));
      CHECK(equal(column.expand({rows, cols}).sub(x, 0.7), column_full.sub(x, 0.7)));
      CHECK(equal(gt(x, column), gt(x, column_full)));
      const Tensor mask = gt(x, 0.0);
      CHECK(equal(where(mask, Scalar(0.0), x), where(mask, zeros({rows, cols}), x)));
      const Tensor xi = x.mul(100).to(kInt64), ci = column.mul(100).to(kInt64);
      CHECK(equal(xi - ci, xi - ci.expand({rows, cols}).contiguous()));
      const Tensor xb = x.to(kBFloat16), cb = column.to(kBFloat16);
      CHECK(equal(xb * cb, xb * cb.expand({rows, cols}).contiguous()));
      CHECK(equal(mask * gt(column, 0.0), mask * gt(column_full, 0.0)));  // bool: and
    }
  }
}

TEST_CASE("op sweep: blocks of rows through the CPU loop, carried across outer dims", "[sweep]") {
  // for_each_strided hands map() blocks of whole rows along the second-innermost dim, then
  // carries to the dims outside; a thread's chunk may start and end inside a row. 3-d and 4-d
  // broadcasts (no dims merge) and a sliced operand (rows not adjacent), with row lengths on
  // both sides of the clones' and the repeated path's thresholds, on 1 and 2 threads, against
  // the same ops on materialised operands (one contiguous run per chunk).
  const int threads_before = get_num_threads();
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    for (int64_t cols : {int64_t{1}, int64_t{3}, int64_t{31}, int64_t{64}, int64_t{129}}) {
      const int64_t mid = 7, outer = 70000 / (mid * cols) + 3;
      INFO(threads << " threads, [" << outer << ", " << mid << ", " << cols << "]");
      const Tensor a = randn({outer, mid, 1}), b = randn({1, mid, cols});
      const Tensor wide = randn({outer, mid, cols + 5});
      const Tensor x = wide.narrow(2, 2, cols);  // rows cols + 5 apart
      const Shape full_shape{outer, mid, cols};
      const Tensor a_full = a.expand(full_shape).contiguous();
      const Tensor b_full = b.expand(full_shape).contiguous();
      const Tensor x_full = x.contiguous();
      CHECK(equal(a + b, a_full + b_full));
      CHECK(equal(b * a, b_full * a_full));
      CHECK(equal(x - b, x_full - b_full));
      CHECK(equal(x.exp(), x_full.exp()));
      CHECK(equal(maximum(x, a), maximum(x_full, a_full)));
      CHECK(equal(where(gt(x, a), x, b), where(gt(x_full, a_full), x_full, b_full)));
      CHECK(equal(a.expand(full_shape).contiguous(), a_full));
      const Tensor y = randn({2, outer, 1, cols}).select(0, 1).expand({outer, mid, cols});
      CHECK(equal(y + a, y.contiguous() + a_full));
      CHECK(equal(x.to(kFloat64), x_full.to(kFloat64)));
      // add and sub with alpha: vec::axpy_rows' unit-stride, repeated-value and strided rows.
      CHECK(equal(x.add(b, 0.3), x_full.add(b_full, 0.3)));
      CHECK(equal(a.sub(x, 0.7), a_full.sub(x_full, 0.7)));
      CHECK(equal(x.add(a, -1.5), x_full.add(a_full, -1.5)));
      CHECK(equal(y.add(x, 0.3), y.contiguous().add(x_full, 0.3)));
      const Tensor x64 = x.to(kFloat64), a64 = a.to(kFloat64);
      CHECK(equal(x64.add(a64, 0.1), x_full.to(kFloat64).add(a_full.to(kFloat64), 0.1)));
      Tensor in_place = wide.clone();
      in_place.narrow(2, 2, cols).add_(a, 0.3);
      CHECK(equal(in_place.narrow(2, 2, cols), x_full.add(a_full, 0.3)));
    }
  }
  set_num_threads(threads_before);
}

namespace {

// Equal as bits go for these tests: the same value and sign of zero, or both NaN.
bool same_values(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = a.to(kFloat64).to_vector<double>();
  const std::vector<double> y = b.to(kFloat64).to_vector<double>();
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    const bool both_nan = std::isnan(x[i]) && std::isnan(y[i]);
    if (!both_nan && (x[i] != y[i] || std::signbit(x[i]) != std::signbit(y[i]))) return false;
  }
  return true;
}

// The same values laid out with stride 2: the strided loop, compiled once for the baseline.
Tensor strided_copy(const Tensor& t) {
  Tensor wide = zeros({t.numel(), 2}, t.dtype());
  wide.select(1, 0).copy_(t);
  return wide.select(1, 0);
}

// 4099 values: special ones (signed zeros, NaN, infinities, subnormals, huge) between normal
// draws, so every vector width meets each of them in its main loop and in its tail.
Tensor special_values(Dtype dtype, uint64_t seed) {
  manual_seed(seed);
  std::vector<double> v = randn({4099}, kFloat64).to_vector<double>();
  const double specials[] = {-0.0, 0.0,   std::nan(""), INFINITY, -INFINITY, 1e-45, -1e-40,
                             3e38, -3e38, 1.0,          -1.0,     0.5,       2.0};
  for (size_t i = 0; i < v.size(); i += 7) v[i] = specials[(i / 7) % std::size(specials)];
  return tensor(v).to(dtype);
}

}  // namespace

TEST_CASE("op sweep: unit-stride and strided loops give the same bits", "[sweep]") {
  // map()'s unit-stride loops are multiversioned (AVX-512, AVX2, baseline: loops.hpp), its
  // strided loop is not; each clone must round as the scalar code, whatever CPU the test runs
  // on. Each elementwise op on contiguous inputs against the same op on the same values laid
  // out with stride 2. tanh_backward's lambda asks for std::fma (vfmadd in the AVX2 and AVX-512
  // clones, libm's exact fma in the baseline one: the same bits); no other lambda multiplies
  // and adds, and the flag in kernels/CMakeLists.txt keeps the compiler from contracting them.
  // A bfloat16 op computes on float32 copies, contiguous either way: its leg checks the
  // widening and the rounding back, not two loops.
  for (Dtype dtype : {kFloat32, kFloat64, kBFloat16, kInt64}) {
    const Tensor x =
        dtype == kInt64 ? randn({4099}).mul(1000).to(kInt64) : special_values(dtype, 1);
    const Tensor y =
        dtype == kInt64 ? randn({4099}).mul(1000).to(kInt64) : special_values(dtype, 2);
    const Tensor xs = strided_copy(x), ys = strided_copy(y);
    REQUIRE(!xs.is_contiguous());
    for (const auto& [op, spec] : unary_specs()) {
      if (dtype == kInt64 && (op == OpId::exp || op == OpId::log || op == OpId::sqrt ||
                              op == OpId::sigmoid || op == OpId::tanh)) {
        continue;  // int64 in, float32 out: covered by the sweep above
      }
      INFO(op_name(op) << " of " << describe(x));
      CHECK(same_values(spec.run(x), spec.run(xs)));
    }
    // An integer divisor holds no 0 (fmod and remainder refuse one).
    const Tensor y_divisor = dtype == kInt64 ? where(eq(y, 0), Scalar(int64_t{3}), y) : y;
    const Tensor ys_divisor = strided_copy(y_divisor);
    for (const auto& [op, spec] : binary_specs()) {
      if (dtype == kInt64 && (op == OpId::pow || op == OpId::div || spec.floating_only)) continue;
      if (is_floating(dtype) && spec.integer_only) continue;
      const bool divides = op == OpId::fmod || op == OpId::remainder || op == OpId::floor_divide ||
                           op == OpId::trunc_divide;
      const Tensor& yy = divides ? y_divisor : y;
      const Tensor& yys = divides ? ys_divisor : ys;
      INFO(op_name(op) << " of " << describe(x));
      CHECK(same_values(spec.run(x, yy), spec.run(xs, yys)));
      // A 0-d operand: stride 0 (the repeated-input loop, multiversioned too).
      CHECK(same_values(spec.run(x, yy.select(0, 7)), spec.run(xs, yys.select(0, 7))));
    }
    INFO("where, add with alpha of " << describe(x));
    const Tensor mask = gt(y, 0.0), mask_s = strided_copy(mask);
    CHECK(same_values(where(mask, x, y), where(mask_s, xs, ys)));
    CHECK(same_values(where(mask, Scalar(0.0), x), where(mask_s, Scalar(0.0), xs)));
    if (dtype != kInt64) CHECK(same_values(x.add(y, 0.3), xs.add(ys, 0.3)));
  }
}

TEST_CASE("max and min over the last dim: the vectorised lanes find the first extreme",
          "[sweep][reduce]") {
  // vec::extreme_f32/f64 fold blocks of 64 (32) elements into lanes and combine them; rows of
  // every length around those blocks and the 16384-element reduction blocks, with ties placed
  // in different lanes and blocks, NaNs (the first one wins), infinities and constant rows,
  // against a scalar walk of the same values.
  std::mt19937 g(5);
  for (Dtype dtype : {kFloat32, kFloat64}) {
    for (int64_t n :
         {int64_t{1}, int64_t{63}, int64_t{64}, int64_t{65}, int64_t{127}, int64_t{128},
          int64_t{129}, int64_t{1000}, int64_t{16384}, int64_t{16385}, int64_t{40000}}) {
      for (int pattern = 0; pattern < 5; ++pattern) {
        std::vector<double> v(static_cast<size_t>(n));
        for (double& x : v) x = static_cast<double>(g() % 7) - 3.0;  // ties everywhere
        if (pattern == 1) v[g() % v.size()] = NAN;
        if (pattern == 2) {
          for (int k = 0; k < 3; ++k) v[g() % v.size()] = NAN;
        }
        if (pattern == 3) {
          v[g() % v.size()] = INFINITY;
          v[g() % v.size()] = -INFINITY;
        }
        if (pattern == 4) std::fill(v.begin(), v.end(), -INFINITY);
        const Tensor x = tensor(v, {1, n}).to(dtype);
        for (bool is_max : {true, false}) {
          INFO(dtype_name(dtype) << " n " << n << " pattern " << pattern << " max " << is_max);
          int64_t want = 0;
          for (int64_t i = 1; i < n; ++i) {
            const double c = v[static_cast<size_t>(i)], b = v[static_cast<size_t>(want)];
            if (std::isnan(b)) break;
            if (std::isnan(c) || (is_max ? c > b : c < b)) want = i;
          }
          const auto [values, indices] = is_max ? max(x, 1) : min(x, 1);
          CHECK(indices.item<int64_t>() == want);
          CHECK((is_max ? argmax(x, 1) : argmin(x, 1)).item<int64_t>() == want);
          const double got = values.to(kFloat64).item<double>(), w = v[static_cast<size_t>(want)];
          CHECK((got == w || (std::isnan(got) && std::isnan(w))));
          const double all = (is_max ? max(x) : min(x)).to(kFloat64).item<double>();
          CHECK((all == w || (std::isnan(all) && std::isnan(w))));
        }
      }
    }
  }
}
