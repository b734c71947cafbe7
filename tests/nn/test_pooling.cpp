// test_pooling.cpp: max pooling's indices and max_unpool2d, the 1-D poolings and the adaptive
// max and average poolings (wick/nn/pooling.hpp). Against torch 1.13's values, gradients and
// indices in float64 (window_golden.inc, written by make_window_golden.py: ties inside a window,
// and NaN for the indices), gradcheck, the modules, and the errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include <wick/wick.hpp>

#include "golden_check.hpp"

namespace nn = wick::nn;
namespace F = wick::nn::functional;
using Catch::Matchers::Contains;
using wick::Tensor;

namespace {

#include "window_golden.inc"

using Ts = std::vector<Tensor>;
using Fn = std::function<Tensor(const Ts&)>;

// The generators' images: wave([2, 2, 5, 6], 0.1) with a tie at [0, 0, 1, 1] (and NaN at
// [1, 1, 2, 3] when with_nan), and wave([2, 3, 7], 0.4) with a tie at [1, 2, 3].
Tensor wave(const wick::Shape& shape, double phase) {
  int64_t count = 1;
  for (int64_t size : shape) count *= size;
  std::vector<double> v(static_cast<size_t>(count));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = 2.0 * std::sin(0.37 * static_cast<double>(i) + phase);
  return wick::tensor(v).to(wick::kFloat64).reshape(shape);
}
Tensor image(bool with_nan) {
  Tensor img = wave({2, 2, 5, 6}, 0.1);
  img.index_put_({0, 0, 1, 1}, img.index({0, 0, 1, 2}));
  if (with_nan) img.index_put_({1, 1, 2, 3}, wick::Scalar(NAN));
  return img;
}
Tensor line() {
  Tensor l = wave({2, 3, 7}, 0.4);
  l.index_put_({1, 2, 3}, l.index({1, 2, 4}));
  return l;
}

const std::map<std::string, Fn>& calls() {
  static const std::map<std::string, Fn> c = {
      {"max_pool2d values, kernel 3, stride 2, padding 1",
       [](const Ts& x) {
         return std::get<0>(
             F::max_pool2d_with_indices(x[0], nn::MaxPool2dOptions(3).stride(2).padding(1)));
       }},
      {"max_pool1d, kernel 3, stride 2, padding 1, dilation 2",
       [](const Ts& x) {
         return F::max_pool1d(x[0], nn::MaxPool1dOptions(3).stride(2).padding(1).dilation(2));
       }},
      {"max_pool1d, kernel 2, ceil_mode, unbatched",
       [](const Ts& x) { return nn::MaxPool1d(nn::MaxPool1dOptions(2).ceil_mode(true))(x[0]); }},
      {"avg_pool1d, kernel 3, stride 2, padding 1, count_include_pad false",
       [](const Ts& x) {
         return nn::AvgPool1d(
             nn::AvgPool1dOptions(3).stride(2).padding(1).count_include_pad(false))(x[0]);
       }},
      {"adaptive_avg_pool1d 4", [](const Ts& x) { return nn::AdaptiveAvgPool1d(4)(x[0]); }},
      {"adaptive_max_pool2d (3, 4)",
       [](const Ts& x) { return nn::AdaptiveMaxPool2d(nn::Size2(3, 4))(x[0]); }},
      {"adaptive_max_pool2d (2, 2), unbatched",
       [](const Ts& x) { return F::adaptive_max_pool2d(x[0], 2); }},
      {"adaptive_max_pool1d 3", [](const Ts& x) { return nn::AdaptiveMaxPool1d(3)(x[0]); }},
      {"max_unpool2d, kernel 2",
       [](const Ts& x) {
         const Tensor indices =
             std::get<1>(F::max_pool2d_with_indices(image(false), nn::MaxPool2dOptions(2)));
         return nn::MaxUnpool2d(nn::MaxUnpool2dOptions(2))(x[0], indices);
       }},
      {"max_unpool2d, kernel 3, stride 2, padding 1, output_size (5, 6)",
       [](const Ts& x) {
         const Tensor indices = std::get<1>(F::max_pool2d_with_indices(
             image(false), nn::MaxPool2dOptions(3).stride(2).padding(1)));
         return F::max_unpool2d(x[0], indices,
                                nn::MaxUnpool2dOptions(3).stride(2).padding(1).output_size({5, 6}));
       }},
  };
  return c;
}

}  // namespace

TEST_CASE("1-D, adaptive and unpooling: PyTorch's values and gradients", "[nn][pooling]") {
  REQUIRE(kPoolingCases.size() == calls().size());
  for (const MultiInputCase& c : kPoolingCases) check_multi_input_case(c, calls().at(c.name));
}

TEST_CASE("max pooling returns PyTorch's indices: first of ties, NaN wins", "[nn][pooling]") {
  const Tensor img = image(true), l = line();
  const std::map<std::string, std::function<Tensor()>> indices = {
      {"max_pool2d, kernel 3, stride 2, padding 1",
       [&] {
         return std::get<1>(
             F::max_pool2d_with_indices(img, nn::MaxPool2dOptions(3).stride(2).padding(1)));
       }},
      {"max_pool2d, kernel 2",
       [&] { return std::get<1>(F::max_pool2d_with_indices(img, nn::MaxPool2dOptions(2))); }},
      {"max_pool1d, kernel 3, stride 2, padding 1, dilation 2",
       [&] {
         return std::get<1>(nn::MaxPool1d(nn::MaxPool1dOptions(3).stride(2).padding(1).dilation(2))
                                ->forward_with_indices(l));
       }},
      {"adaptive_max_pool2d (3, 4)",
       [&] { return std::get<1>(F::adaptive_max_pool2d_with_indices(img, nn::Size2(3, 4))); }},
      {"adaptive_max_pool1d 3",
       [&] { return std::get<1>(F::adaptive_max_pool1d_with_indices(l, 3)); }},
  };
  REQUIRE(kPoolIndices.size() == indices.size());
  for (const PoolIndices& want : kPoolIndices) {
    INFO(want.name);
    const Tensor got = indices.at(want.name)();
    CHECK(got.dtype() == wick::kInt64);
    CHECK(got.sizes() == wick::Shape(want.shape));
    CHECK(got.to_vector<int64_t>() == want.indices);
  }
  // The values at the indices are the pooled values (NaN included).
  const auto [values, where_from] = F::max_pool2d_with_indices(img, nn::MaxPool2dOptions(2));
  const Tensor read = wick::gather(img.reshape({2, 2, 30}), 2, where_from.reshape({2, 2, 6}));
  CHECK(
      wick::isclose(read, values.reshape({2, 2, 6}), 0, 0, /*equal_nan=*/true).all().item<bool>());
}

TEST_CASE("pooling gradients pass gradcheck; max_unpool2d inverts max_pool2d's choice",
          "[nn][pooling][gradcheck]") {
  wick::manual_seed(2);
  const Ts inputs = {wick::randn({2, 2, 5, 7}).to(wick::kFloat64).requires_grad_()};
  CHECK(wick::autograd::gradcheck(
            [](const Ts& in) { return F::adaptive_max_pool2d(in[0], nn::Size2(2, 3)); }, inputs) ==
        "");
  CHECK(wick::autograd::gradcheck(
            [](const Ts& in) {
              const auto [v, i] = F::max_pool2d_with_indices(in[0], nn::MaxPool2dOptions(2));
              return F::max_unpool2d(v, i, nn::MaxUnpool2dOptions(2).output_size({5, 7}));
            },
            inputs) == "");
  CHECK(wick::autograd::gradcheck(
            [](const Ts& in) {
              return F::avg_pool1d(in[0].reshape({4, 5, 7}), 3);
            },
            inputs) == "");
  // Unpooling writes each maximum back where it was; pooling that again gives the same maxima.
  // Positive values, so that the zeros unpooling leaves around them never win a window.
  const Tensor x = inputs[0].detach().abs() + 0.5;
  const auto [v, i] = F::max_pool2d_with_indices(x, nn::MaxPool2dOptions(2));
  const Tensor restored = F::max_unpool2d(v, i, nn::MaxUnpool2dOptions(2).output_size({5, 7}));
  CHECK(restored.sizes() == x.sizes());
  CHECK(wick::equal(F::max_pool2d(restored, nn::MaxPool2dOptions(2)), v));
}

TEST_CASE("pooling modules print as PyTorch's; errors name the op", "[nn][pooling][errors]") {
  std::ostringstream printed;
  printed << nn::MaxPool1d(3) << " " << nn::AvgPool1d(3) << " "
          << nn::MaxUnpool2d(nn::MaxUnpool2dOptions(2)) << " "
          << nn::AdaptiveMaxPool2d(nn::Size2(2, 3)) << " " << nn::AdaptiveAvgPool1d(4);
  CHECK(printed.str() ==
        "MaxPool1d(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=False) "
        "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,)) "
        "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0)) "
        "AdaptiveMaxPool2d(output_size=(2, 3)) AdaptiveAvgPool1d(output_size=4)");
  const Tensor l = wick::randn({2, 3, 7});
  CHECK_THROWS_AS(F::max_pool1d(wick::randn({7}), 2), wick::ShapeError);
  CHECK_THROWS_WITH(F::max_pool1d(l, nn::MaxPool1dOptions(2).padding(2)),
                    Contains("max_pool1d") && Contains("half"));
  CHECK_THROWS_AS(F::avg_pool1d(l, nn::AvgPool1dOptions(3).dilation(2)), wick::ValueError);
  CHECK_THROWS_AS(F::adaptive_max_pool2d(l, 0), wick::ValueError);
  CHECK_THROWS_AS(F::adaptive_avg_pool1d(wick::randn({2, 3, 4, 5}), 2), wick::ShapeError);
  const Tensor img = wick::randn({1, 1, 4, 4});
  const auto [v, i] = F::max_pool2d_with_indices(img, nn::MaxPool2dOptions(2));
  CHECK_THROWS_AS(F::max_unpool2d(v, i, nn::MaxUnpool2dOptions(2).output_size({7, 7})),
                  wick::ValueError);
  CHECK_THROWS_WITH(F::max_unpool2d(v, i + 100, nn::MaxUnpool2dOptions(2)),
                    Contains("max_unpool2d") && Contains("outside"));
  CHECK_THROWS_AS(F::max_unpool2d(v, i.to(wick::kFloat32), nn::MaxUnpool2dOptions(2)),
                  wick::ShapeError);
  // After the errors, pooling still works.
  CHECK(F::max_pool1d(l, 2).sizes() == wick::Shape{2, 3, 3});
}
