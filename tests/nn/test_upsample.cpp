// test_upsample.cpp: interpolate in every mode, Upsample, PixelShuffle / PixelUnshuffle, PReLU
// and InstanceNorm (wick/nn/upsample.hpp, activation.hpp, instancenorm.hpp). Against torch
// 1.13's values and gradients in float64 (window_golden.inc, written by make_window_golden.py);
// float32 and bfloat16 against float64; gradcheck; the modules and their running statistics;
// the errors.
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
using I = nn::InterpolateFuncOptions;

Fn resize(I options) {
  return [options](const Ts& x) { return F::interpolate(x[0], options); };
}

const std::map<std::string, Fn>& calls() {
  static const std::map<std::string, Fn> c = {
      {"nearest, scale 2", resize(I().scale_factor({2}))},
      {"nearest, size (5, 7)", resize(I().size({5, 7}))},
      {"nearest, 3-D, scale 1.3", resize(I().scale_factor({1.3}))},
      {"nearest, 3-D, size 3 (down)", resize(I().size({3}))},
      {"nearest, 5-D, size (3, 2, 4)", resize(I().size({3, 2, 4}))},
      {"nearest-exact, size (7, 3)", resize(I().size({7, 3}).mode(nn::kNearestExact))},
      {"linear, size 7", resize(I().size({7}).mode(nn::kLinear))},
      {"linear, size 7, align_corners",
       resize(I().size({7}).mode(nn::kLinear).align_corners(true))},
      {"linear, scale 1.2 (same size)", resize(I().scale_factor({1.2}).mode(nn::kLinear))},
      {"linear, scale 0.6 (down)", resize(I().scale_factor({0.6}).mode(nn::kLinear))},
      {"bilinear, scale 1.7", resize(I().scale_factor({1.7}).mode(nn::kBilinear))},
      {"bilinear, size (3, 8), align_corners",
       resize(I().size({3, 8}).mode(nn::kBilinear).align_corners(true))},
      {"bilinear, scale (2, 0.5), recompute_scale_factor",
       resize(I().scale_factor({2, 0.5}).mode(nn::kBilinear).recompute_scale_factor(true))},
      {"bicubic, scale 2", resize(I().scale_factor({2}).mode(nn::kBicubic))},
      {"bicubic, size (6, 3), align_corners",
       resize(I().size({6, 3}).mode(nn::kBicubic).align_corners(true))},
      {"trilinear, size (3, 5, 4)", resize(I().size({3, 5, 4}).mode(nn::kTrilinear))},
      {"area, size (3, 2)", resize(I().size({3, 2}).mode(nn::kArea))},
      {"area, 3-D, size 3", resize(I().size({3}).mode(nn::kArea))},
      {"pixel_shuffle 2", [](const Ts& x) { return nn::PixelShuffle(2)(x[0]); }},
      {"pixel_shuffle 3, 3-D", [](const Ts& x) { return F::pixel_shuffle(x[0], 3); }},
      {"pixel_unshuffle 2", [](const Ts& x) { return nn::PixelUnshuffle(2)(x[0]); }},
      {"prelu, per channel", [](const Ts& x) { return F::prelu(x[0], x[1]); }},
      {"prelu, one weight", [](const Ts& x) { return F::prelu(x[0], x[1]); }},
      {"instance_norm, affine",
       [](const Ts& x) {
         return F::instance_norm(x[0], nn::InstanceNormFuncOptions().weight(x[1]).bias(x[2]));
       }},
      {"instance_norm, 4-D, eps 1e-3",
       [](const Ts& x) { return F::instance_norm(x[0], nn::InstanceNormFuncOptions().eps(1e-3)); }},
      {"instance_norm, running statistics (eval)",
       [](const Ts& x) {
         // The generator's running statistics: wave([3], 0.1, 0.2) and wave([3], 0.3, 0.2, 1).
         auto wave = [](double phase, double scale, double shift) {
           std::vector<double> v;
           for (int i = 0; i < 3; ++i) v.push_back(scale * std::sin(0.37 * i + phase) + shift);
           return wick::tensor(v).to(wick::kFloat64);
         };
         return F::instance_norm(x[0], nn::InstanceNormFuncOptions()
                                           .running_mean(wave(0.1, 0.2, 0.0))
                                           .running_var(wave(0.3, 0.2, 1.0))
                                           .use_input_stats(false));
       }},
  };
  return c;
}

}  // namespace

TEST_CASE("interpolate, pixel shuffle, prelu, instance_norm: PyTorch's values and gradients",
          "[nn][upsample]") {
  REQUIRE(kUpsampleCases.size() == calls().size());
  for (const MultiInputCase& c : kUpsampleCases) check_multi_input_case(c, calls().at(c.name));
}

TEST_CASE("interpolate in float32 and bfloat16 follows float64", "[nn][upsample]") {
  wick::manual_seed(4);
  const Tensor x = wick::randn({2, 3, 5, 6}).to(wick::kFloat64);
  for (const nn::InterpolateMode mode :
       {nn::kNearest, nn::kNearestExact, nn::kBilinear, nn::kBicubic, nn::kArea}) {
    for (const bool align : {false, true}) {
      if (align && (mode == nn::kNearest || mode == nn::kNearestExact || mode == nn::kArea)) {
        continue;
      }
      INFO("mode " << static_cast<int>(mode) << ", align_corners " << align);
      I options = I().size({9, 4}).mode(mode);
      if (align) options.align_corners(true);
      const Tensor want = F::interpolate(x, options);
      const Tensor single = F::interpolate(x.to(wick::kFloat32), options);
      CHECK(single.dtype() == wick::kFloat32);
      CHECK((single.to(wick::kFloat64) - want).abs().max().item<double>() <= 1e-5);
      const Tensor half = F::interpolate(x.to(wick::kBFloat16), options);
      CHECK(half.dtype() == wick::kBFloat16);
      CHECK((half.to(wick::kFloat64) - want).abs().max().item<double>() <= 0.05);
    }
  }
}

TEST_CASE("interpolate: identities and gradcheck", "[nn][upsample][gradcheck]") {
  wick::manual_seed(8);
  const Tensor x = wick::randn({1, 2, 4, 3}).to(wick::kFloat64);
  // The same size is a copy in every interpolating mode; nearest at scale 2 repeats pixels.
  for (const nn::InterpolateMode mode : {nn::kNearest, nn::kBilinear, nn::kBicubic, nn::kArea}) {
    CHECK(wick::equal(F::interpolate(x, I().size({4, 3}).mode(mode)), x));
  }
  const Tensor twice = F::interpolate(x, I().scale_factor({2}));
  CHECK(twice.sizes() == wick::Shape{1, 2, 8, 6});
  CHECK(twice.index({0, 1, 5, 3}).item<double>() == x.index({0, 1, 2, 1}).item<double>());
  // align_corners keeps the corners.
  const Tensor corners = F::interpolate(x, I().size({7, 9}).mode(nn::kBicubic).align_corners(true));
  CHECK(corners.index({0, 0, 6, 8}).item<double>() == Approx(x.index({0, 0, 3, 2}).item<double>()));
  const Ts inputs = {x.clone().requires_grad_()};
  for (const nn::InterpolateMode mode : {nn::kBilinear, nn::kBicubic, nn::kNearest}) {
    CHECK(wick::autograd::gradcheck(
              [mode](const Ts& in) {
                return F::interpolate(in[0], I().scale_factor({1.5, 2.5}).mode(mode));
              },
              inputs) == "");
  }
}

TEST_CASE("Upsample, PixelShuffle, PReLU and InstanceNorm modules", "[nn][upsample]") {
  std::ostringstream printed;
  printed << nn::Upsample(nn::UpsampleOptions().scale_factor({2}).mode(nn::kBilinear));
  CHECK(printed.str() == "Upsample(scale_factor=2.0, mode=bilinear)");
  CHECK(nn::Upsample(nn::UpsampleOptions().size({4, 5}))->extra_repr() ==
        "size=(4, 5), mode=nearest");
  CHECK(nn::PixelShuffle(3)->extra_repr() == "upscale_factor=3");
  const Tensor image = wick::randn({2, 3, 4, 6});
  CHECK(wick::equal(F::pixel_shuffle(F::pixel_unshuffle(image, 2), 2), image));

  nn::PReLU prelu(nn::PReLUOptions().num_parameters(3).init(0.1));
  CHECK(prelu->weight.sizes() == wick::Shape{3});
  CHECK(prelu->weight.sum().item<float>() == Approx(0.3f));
  CHECK(prelu->extra_repr() == "num_parameters=3");
  const Tensor y = prelu(wick::tensor({-1.0f, 2.0f, -3.0f}).reshape({1, 3}));
  CHECK(y.to_vector<float>() == std::vector<float>{-0.1f, 2.0f, -0.3f});
  CHECK(std::isnan(F::prelu(wick::tensor({NAN}), wick::tensor({0.5f})).item<float>()));

  // InstanceNorm2d with running statistics: training updates them by momentum towards the mean
  // over the batch of each instance's mean and unbiased variance; eval uses them.
  nn::InstanceNorm2d norm(nn::InstanceNormOptions(2).track_running_stats(true).momentum(0.5));
  CHECK(norm->named_buffers().size() == 3);
  CHECK(norm->named_parameters().empty());
  const Tensor x = wick::randn({3, 2, 4, 5}).to(wick::kFloat64);
  norm->to(wick::kFloat64);
  const Tensor out = norm(x);
  const Tensor per_instance_mean = x.mean({2, 3});
  const Tensor per_instance_var = x.var({2, 3}, /*unbiased=*/true);
  const Tensor want_mean = per_instance_mean.mean(0) * 0.5;
  const Tensor want_var = per_instance_var.mean(0) * 0.5 + 0.5;
  CHECK((norm->running_mean - want_mean).abs().max().item<double>() <= 1e-14);
  CHECK((norm->running_var - want_var).abs().max().item<double>() <= 1e-14);
  CHECK(out.mean({2, 3}).abs().max().item<double>() <= 1e-14);
  norm->eval();
  const Tensor evaluated = norm(x);
  const Tensor want =
      (x - want_mean.reshape({1, 2, 1, 1})) / (want_var.reshape({1, 2, 1, 1}) + 1e-5).sqrt();
  CHECK((evaluated - want).abs().max().item<double>() <= 1e-12);
  CHECK(norm(x[0]).sizes() == wick::Shape{2, 4, 5});  // unbatched
  printed.str("");
  printed << norm;
  CHECK(printed.str() ==
        "InstanceNorm2d(2, eps=1e-05, momentum=0.5, affine=False, track_running_stats=True)");
  nn::InstanceNorm1d affine(nn::InstanceNormOptions(3).affine(true));
  CHECK(affine->named_parameters().size() == 2);
  CHECK(affine(wick::randn({2, 3, 7})).sizes() == wick::Shape{2, 3, 7});
}

TEST_CASE("interpolate, pixel_shuffle, prelu, instance_norm: errors", "[nn][upsample][errors]") {
  const Tensor image = wick::randn({1, 2, 4, 4});
  CHECK_THROWS_AS(F::interpolate(image, I()), wick::ValueError);
  CHECK_THROWS_AS(F::interpolate(image, I().size({4}).scale_factor({2})), wick::ValueError);
  CHECK_THROWS_WITH(F::interpolate(image, I().size({4, 4, 4})),
                    Contains("interpolate") && Contains("[1, 2, 4, 4]"));
  CHECK_THROWS_AS(F::interpolate(image, I().size({4}).mode(nn::kLinear)), wick::ShapeError);
  CHECK_THROWS_AS(F::interpolate(image, I().size({4}).mode(nn::kTrilinear)), wick::ShapeError);
  CHECK_THROWS_WITH(F::interpolate(image, I().size({8}).align_corners(true)),
                    Contains("align_corners"));
  CHECK_THROWS_AS(F::interpolate(image, I().scale_factor({0.1})), wick::ValueError);
  CHECK_THROWS_AS(F::interpolate(image, I().scale_factor({-2})), wick::ValueError);
  CHECK_THROWS_AS(F::interpolate(wick::randn({2, 4}), I().size({3})), wick::ShapeError);
  CHECK_THROWS_AS(F::interpolate(image.to(wick::kInt64), I().size({3})), wick::DtypeError);
  CHECK_THROWS_AS(F::pixel_shuffle(wick::randn({1, 6, 2, 2}), 2), wick::ShapeError);
  CHECK_THROWS_AS(F::pixel_unshuffle(wick::randn({1, 1, 3, 2}), 2), wick::ShapeError);
  CHECK_THROWS_AS(F::prelu(image, wick::ones({3})), wick::ShapeError);
  CHECK_THROWS_WITH(F::prelu(image, wick::ones({3})), Contains("prelu") && Contains("[3]"));
  CHECK_THROWS_AS(F::instance_norm(wick::randn({2, 3})), wick::ShapeError);
  CHECK_THROWS_WITH(F::instance_norm(wick::randn({2, 3, 1})),
                    Contains("instance_norm") && Contains("more than 1 spatial element"));
  CHECK_THROWS_AS(nn::InstanceNorm2d(nn::InstanceNormOptions(3))(image), wick::ShapeError);
  // After the errors, everything still works.
  CHECK(F::interpolate(image, I().size({3})).sizes() == wick::Shape{1, 2, 3, 3});
}
