// test_resample.cpp: resample and resample_backward, the fused separable step of interpolate.
// The op sweep's case (sweep_resample: float32 and float64 x the sweep shapes x every dim x
// every layout, repeated taps, against a float64 loop), then the order of the sums (bit-equal
// to the index_select-multiply-add composite they replaced, -0 kept), bfloat16, the errors with
// the op's name, and the gradients (the weight's included).
#include <random>

#include "index_cases.hpp"
#include "reference.hpp"
#include "sweep_common.hpp"

using namespace wick;
using ref::Domain;
using ref::Layout;

using index_cases::with_dim;

namespace {

// K taps for R outputs into a dim of `size`: index [K, R] in [0, size), weight [K, R] of dtype.
struct Taps {
  Tensor index, weight;
  std::vector<int64_t> picks;
  std::vector<double> weights;
};

Taps draw_taps(int64_t size, int64_t taps, int64_t outputs, Dtype dtype, uint64_t seed) {
  Taps t;
  std::mt19937_64 gen(seed);
  if (size == 0) taps = 0;
  for (int64_t p = 0; p < taps * outputs; ++p) {
    t.picks.push_back(static_cast<int64_t>(gen() % static_cast<uint64_t>(size)));
  }
  if (t.picks.size() >= 2) t.picks[1] = t.picks[0];  // a repeated source
  t.index = tensor(t.picks, Shape{taps, outputs}, kInt64);
  t.weight = ref::make_input({taps, outputs}, dtype, Layout::Contiguous);
  t.weights = ref::values(t.weight);
  return t;
}

}  // namespace

void sweep_resample(OpId op) {
  const bool backward = op == OpId::resample_backward;
  for (Dtype dtype : {kFloat32, kFloat64}) {
    for (const Shape& shape : kShapes) {
      const auto nd = static_cast<int64_t>(shape.size());
      for (int64_t dim = 0; dim < nd; ++dim) {
        for (Layout layout : kLayouts) {
          const int64_t size = shape[static_cast<size_t>(dim)];
          const int64_t outputs = size > 100 ? 37 : 7;
          const int64_t count = 1 + (dim + nd + static_cast<int64_t>(layout)) % 3;
          const Taps t = draw_taps(size, count, outputs, dtype, uint64_t(dim * 31 + nd));
          const int64_t k_count = t.index.size(0);
          ref::PoisonScope poison;
          if (!backward) {
            const Tensor x = ref::make_input(shape, dtype, layout);
            INFO("resample of " << label(x, layout) << " along dim " << dim << " with " << k_count
                                << " taps");
            const Tensor y = resample(x, dim, t.index, t.weight);
            CHECK(y.dtype() == dtype);
            Shape want = shape;
            want[static_cast<size_t>(dim)] = outputs;
            REQUIRE(y.sizes() == want);
            ref::check_all(
                y,
                [&](const std::vector<int64_t>& i) {
                  double sum = 0;
                  for (int64_t k = 0; k < k_count; ++k) {
                    const auto p = static_cast<size_t>(k * outputs + i[dim]);
                    sum += t.weights[p] * ref::value(x, with_dim(i, dim, t.picks[p]));
                  }
                  return sum;
                },
                "resample", 10.0);
            continue;
          }
          Shape grad_shape = shape;
          grad_shape[static_cast<size_t>(dim)] = outputs;
          const Tensor g = ref::make_input(grad_shape, dtype, layout);
          INFO("resample_backward of " << label(g, layout) << " along dim " << dim << " with "
                                       << k_count << " taps into size " << size);
          const Tensor y = resample_backward(g, dim, t.index, t.weight, size);
          CHECK(y.dtype() == dtype);
          REQUIRE(y.sizes() == shape);
          ref::check_all(
              y,
              [&](const std::vector<int64_t>& i) {
                double sum = 0;
                for (size_t p = 0; p < t.picks.size(); ++p) {
                  if (t.picks[p] != i[dim]) continue;
                  const auto r = static_cast<int64_t>(p) % outputs;
                  sum += t.weights[p] * ref::value(g, with_dim(i, dim, r));
                }
                return sum;
              },
              "resample_backward", 10.0);
        }
      }
    }
  }
}

TEST_CASE("resample: the composite's bits, -0 kept, an empty tap list, bfloat16", "[resample]") {
  // float32 products rounded, then added left to right from the first: exactly what K
  // index_selects, multiplies and adds gave (interpolate's values before this op).
  for (int64_t dim : {0, 1, 2}) {
    const Tensor x = ref::make_input({5, 6, 7}, kFloat32, Layout::Transposed);
    const int64_t size = x.size(dim);
    const Taps t = draw_taps(size, 4, 9, kFloat32, uint64_t(dim + 5));
    Tensor composite;
    for (int64_t k = 0; k < 4; ++k) {
      Shape column = Shape::filled(3, 1);
      column[static_cast<size_t>(dim)] = 9;
      const Tensor term = index_select(x, dim, t.index[k]) * t.weight[k].reshape(column);
      composite = k == 0 ? term : composite + term;
    }
    INFO("dim " << dim);
    CHECK(equal(resample(x, dim, t.index, t.weight), composite));
  }
  // One tap of weight 1 copies, -0 and infinities included (no 0 is added first).
  const Tensor special = tensor({-0.0f, 2.0f, -INFINITY, NAN});
  const Tensor copied = resample(special, 0, tensor({3, 2, 1, 0}).reshape({1, 4}), ones({1, 4}));
  const std::vector<float> got = copied.to_vector<float>();
  CHECK(std::isnan(got[0]));
  CHECK(got[1] == -INFINITY);
  CHECK(got[2] == 2.0f);
  CHECK((got[3] == 0.0f && std::signbit(got[3])));
  // No taps: zeros, forward and backward.
  CHECK(equal(resample(ones({2, 3}), 1, zeros({0, 4}, kInt64), zeros({0, 4})), zeros({2, 4})));
  CHECK(equal(resample_backward(ones({2, 4}), 1, zeros({0, 4}, kInt64), zeros({0, 4}), 3),
              zeros({2, 3})));
  // A position no tap names gets +0 in the backward.
  const Tensor back =
      resample_backward(full({1, 2}, -1.0), 1, tensor({0, 0}).reshape({1, 2}), ones({1, 2}), 3);
  CHECK(back.to_vector<float>() == std::vector<float>{-2, 0, 0});
  CHECK(!std::signbit(back.to_vector<float>()[2]));
  // bfloat16: computed in float32, rounded once.
  const Tensor xb = ref::make_input({4, 5}, kFloat32, Layout::Contiguous).to(kBFloat16);
  const Taps tb = draw_taps(5, 2, 3, kFloat32, 77);
  const Tensor yb = resample(xb, 1, tb.index, tb.weight.to(kBFloat16));
  CHECK(yb.dtype() == kBFloat16);
  CHECK(equal(
      yb,
      resample(xb.to(kFloat32), 1, tb.index, tb.weight.to(kBFloat16).to(kFloat32)).to(kBFloat16)));
}

TEST_CASE("resample: errors name the op and the operands; the engine works after them",
          "[resample]") {
  const Tensor x = ones({3, 4});
  const Tensor index = tensor({0, 3}).reshape({1, 2});
  const Tensor weight = ones({1, 2});
  CHECK_THROWS_WITH(
      resample(x, 1, tensor({0, 4}).reshape({1, 2}), weight),
      Catch::Contains("resample") && Catch::Contains("out of range") && Catch::Contains("[3, 4]"));
  CHECK_THROWS_AS(resample(x, 0, index, weight), IndexError);  // 3 is past dim 0's size
  CHECK_THROWS_AS(resample(x, 2, index, weight), IndexError);
  CHECK_THROWS_WITH(resample(x, 1, index, ones({1, 2}, kFloat64)), Catch::Contains("resample") &&
                                                                       Catch::Contains("float64") &&
                                                                       Catch::Contains("float32"));
  CHECK_THROWS_AS(resample(x, 1, index.to(kFloat32), weight), DtypeError);
  CHECK_THROWS_AS(resample(ones({3, 4}, kInt64), 1, index, ones({1, 2}, kInt64)), DtypeError);
  CHECK_THROWS_WITH(resample(x, 1, index, ones({2, 2})), Catch::Contains("resample") &&
                                                             Catch::Contains("[1, 2]") &&
                                                             Catch::Contains("[2, 2]"));
  CHECK_THROWS_AS(resample(x, 1, tensor({0, 3}), ones({2})), ShapeError);
  CHECK_THROWS_AS(resample(tensor(1.0f), 0, index, weight), ShapeError);
  CHECK_THROWS_AS(resample(x, 1, Tensor(), weight), ValueError);
  CHECK_THROWS_WITH(resample_backward(ones({3, 5}), 1, index, weight, 4),
                    Catch::Contains("resample_backward") && Catch::Contains("[3, 5]"));
  CHECK_THROWS_WITH(resample_backward(ones({3, 2}), 1, index, weight, 3),
                    Catch::Contains("resample_backward") && Catch::Contains("out of range"));
  CHECK_THROWS_AS(resample_backward(ones({3, 2}), 1, index, weight, -1), ValueError);
  CHECK(equal(resample(x, -1, index, weight), full({3, 2}, 1.0)));
}

TEST_CASE("resample: gradients for the input and the weight, along every dim", "[resample]") {
  for (int64_t dim : {0, 1, 2}) {
    const Tensor x = ref::make_input({3, 4, 5}, kFloat64, Layout::Transposed).requires_grad_(true);
    const int64_t size = x.size(dim);
    const Taps t = draw_taps(size, 3, 6, kFloat64, uint64_t(dim + 11));
    const Tensor w = t.weight.detach().requires_grad_(true);
    INFO("dim " << dim);
    CHECK(autograd::gradcheck(
              [&](const std::vector<Tensor>& v) { return resample(v[0], dim, t.index, v[1]); },
              {x, w}) == "");
  }
}
