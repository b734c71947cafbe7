// test_conv_transpose.cpp: conv_transpose1d/2d, unfold and fold (wick/nn/conv_transpose.hpp).
// Against torch 1.13's values and gradients in float64 (window_golden.inc, written by
// make_window_golden.py), a direct float64 loop (the slow reference) over strides, paddings,
// output paddings, dilations and groups, the adjoint identities that define them
// (<conv2d(x, w), y> = <x, conv_transpose2d(y, w)> and <unfold(x), c> = <x, fold(c)>),
// gradcheck, the modules, and the errors.
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

const std::map<std::string, Fn>& calls() {
  using O = nn::ConvTranspose2dFuncOptions;
  static const std::map<std::string, Fn> c = {
      {"conv_transpose2d",
       [](const Ts& x) { return F::conv_transpose2d(x[0], x[1], O().bias(x[2])); }},
      {"conv_transpose2d, stride 2, padding 1, output_padding 1",
       [](const Ts& x) {
         return F::conv_transpose2d(x[0], x[1],
                                    O().bias(x[2]).stride(2).padding(1).output_padding(1));
       }},
      {"conv_transpose2d, groups 2, dilation 2, stride (2, 1), padding (1, 0)",
       [](const Ts& x) {
         return F::conv_transpose2d(
             x[0], x[1],
             O().stride({2, 1}).padding({1, 0}).output_padding(1).groups(2).dilation(2));
       }},
      {"conv_transpose2d, unbatched, padding past the kernel",
       [](const Ts& x) { return F::conv_transpose2d(x[0], x[1], O().bias(x[2]).padding(2)); }},
      {"conv_transpose1d, stride 2, padding 1, output_padding 1, groups 2",
       [](const Ts& x) {
         return F::conv_transpose1d(x[0], x[1],
                                    nn::ConvTranspose1dFuncOptions()
                                        .bias(x[2])
                                        .stride(2)
                                        .padding(1)
                                        .output_padding(1)
                                        .groups(2));
       }},
      {"conv_transpose1d, unbatched, dilation 3",
       [](const Ts& x) {
         return F::conv_transpose1d(x[0], x[1], nn::ConvTranspose1dFuncOptions().dilation(3));
       }},
      {"unfold, kernel (2, 3), dilation (1, 2), padding 1, stride (2, 1)",
       [](const Ts& x) {
         return F::unfold(x[0],
                          nn::UnfoldOptions({2, 3}).dilation({1, 2}).padding(1).stride({2, 1}));
       }},
      {"unfold, unbatched", [](const Ts& x) { return nn::Unfold(nn::UnfoldOptions(2))(x[0]); }},
      {"fold, kernel 2",
       [](const Ts& x) {
         return F::fold(x[0], nn::FoldOptions({4, 5}, 2));
       }},
      {"fold, kernel (3, 2), stride 2, padding 1, dilation (1, 2)",
       [](const Ts& x) {
         return F::fold(x[0],
                        nn::FoldOptions({5, 6}, {3, 2}).dilation({1, 2}).padding(1).stride(2));
       }},
      {"fold, unbatched",
       [](const Ts& x) {
         return nn::Fold(nn::FoldOptions({3, 3}, 2))(x[0]);
       }},
      {"conv2d, padding same, kernel (3, 4), dilation (1, 2)",
       [](const Ts& x) {
         return F::conv2d(x[0], x[1],
                          nn::Conv2dFuncOptions().bias(x[2]).padding(nn::kSame).dilation({1, 2}));
       }},
      {"conv2d, padding valid",
       [](const Ts& x) {
         return F::conv2d(x[0], x[1], nn::Conv2dFuncOptions().padding(nn::kValid));
       }},
      {"conv1d, padding same, kernel 4, groups 2",
       [](const Ts& x) {
         return F::conv1d(x[0], x[1], nn::Conv1dFuncOptions().padding(nn::kSame).groups(2));
       }},
  };
  return c;
}

// The direct definition: every input element x[n, c, h, w] adds x * weight[c, o', i, j] to
// out[n, g * O' + o', h * s - p + i * d, w * s - p + j * d], g the group of c.
Tensor transpose_reference(const Tensor& x, const Tensor& wt, const Tensor& b, nn::Size2 s,
                           nn::Size2 p, nn::Size2 extra, nn::Size2 d, int64_t groups) {
  const int64_t n_n = x.size(0), c_n = x.size(1), h_n = x.size(2), w_n = x.size(3);
  const int64_t og = wt.size(1), kh = wt.size(2), kw = wt.size(3), o_n = og * groups;
  const int64_t oh_n = (h_n - 1) * s.h - 2 * p.h + d.h * (kh - 1) + extra.h + 1;
  const int64_t ow_n = (w_n - 1) * s.w - 2 * p.w + d.w * (kw - 1) + extra.w + 1;
  const std::vector<double> xv = x.to(wick::kFloat64).contiguous().to_vector<double>();
  const std::vector<double> wv = wt.to(wick::kFloat64).contiguous().to_vector<double>();
  std::vector<double> out(static_cast<size_t>(n_n * o_n * oh_n * ow_n), 0.0);
  const int64_t cg = c_n / groups;
  for (int64_t n = 0; n < n_n; ++n) {
    for (int64_t c = 0; c < c_n; ++c) {
      const int64_t g = c / cg;
      for (int64_t h = 0; h < h_n; ++h) {
        for (int64_t w = 0; w < w_n; ++w) {
          const double v = xv[static_cast<size_t>(((n * c_n + c) * h_n + h) * w_n + w)];
          for (int64_t o = 0; o < og; ++o) {
            for (int64_t i = 0; i < kh; ++i) {
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t oh = h * s.h - p.h + i * d.h, ow = w * s.w - p.w + j * d.w;
                if (oh < 0 || oh >= oh_n || ow < 0 || ow >= ow_n) continue;
                const int64_t oc = g * og + o;
                out[static_cast<size_t>(((n * o_n + oc) * oh_n + oh) * ow_n + ow)] +=
                    v * wv[static_cast<size_t>(((c * og + o) * kh + i) * kw + j)];
              }
            }
          }
        }
      }
    }
  }
  Tensor result = wick::tensor(out, wick::Shape{n_n, o_n, oh_n, ow_n});
  if (b.defined()) result = result + b.to(wick::kFloat64).reshape({1, o_n, 1, 1});
  return result;
}

double max_difference(const Tensor& a, const Tensor& b) {
  return (a.to(wick::kFloat64) - b.to(wick::kFloat64)).abs().max().item<double>();
}

}  // namespace

TEST_CASE("conv_transpose, unfold and fold: PyTorch's values and gradients",
          "[nn][conv_transpose]") {
  REQUIRE(kConvTransposeCases.size() == calls().size());
  for (const MultiInputCase& c : kConvTransposeCases) check_multi_input_case(c, calls().at(c.name));
}

TEST_CASE("conv_transpose2d matches the direct loop over strides, paddings and groups",
          "[nn][conv_transpose]") {
  wick::manual_seed(11);
  struct Geometry {
    nn::Size2 stride, padding, output_padding, dilation;
    int64_t groups;
  };
  const std::vector<Geometry> cases = {
      {1, 0, 0, 1, 1},           {2, 0, 1, 1, 1},      {{3, 2}, {1, 2}, {2, 1}, 1, 1},
      {1, 1, 0, 2, 2},           {2, 1, 0, {1, 3}, 3}, {{1, 2}, 0, {0, 1}, {2, 1}, 6},
      {4, {0, 3}, {3, 0}, 1, 2},
  };
  for (const auto& g : cases) {
    for (const wick::Dtype dtype : {wick::kFloat64, wick::kFloat32}) {
      INFO("stride (" << g.stride.h << ", " << g.stride.w << "), groups " << g.groups << ", dtype "
                      << wick::dtype_name(dtype));
      const Tensor x = wick::randn({2, 6, 4, 5}).to(dtype);
      const Tensor w = wick::randn({6, 12 / g.groups, 3, 2}).to(dtype);
      const Tensor b = wick::randn({12}).to(dtype);
      const Tensor got = F::conv_transpose2d(x, w,
                                             nn::ConvTranspose2dFuncOptions()
                                                 .bias(b)
                                                 .stride(g.stride)
                                                 .padding(g.padding)
                                                 .output_padding(g.output_padding)
                                                 .dilation(g.dilation)
                                                 .groups(g.groups));
      const Tensor want =
          transpose_reference(x, w, b, g.stride, g.padding, g.output_padding, g.dilation, g.groups);
      REQUIRE(got.sizes() == want.sizes());
      CHECK(got.dtype() == dtype);
      CHECK(max_difference(got, want) <= (dtype == wick::kFloat64 ? 1e-12 : 1e-4));
    }
  }
}

TEST_CASE("conv_transpose2d and fold are the adjoints of conv2d and unfold",
          "[nn][conv_transpose]") {
  wick::manual_seed(5);
  const Tensor x = wick::randn({2, 4, 7, 6}).to(wick::kFloat64);
  const Tensor w = wick::randn({6, 2, 3, 2}).to(wick::kFloat64);
  const auto conv = nn::Conv2dFuncOptions().stride({2, 1}).padding({1, 2}).dilation(2).groups(2);
  const Tensor y = wick::randn_like(F::conv2d(x, w, conv));
  // The output padding that gives back x's size: (7 - 1 + 2 - 4 - 1) mod 2 = 0 rows, 0 cols.
  const Tensor back = F::conv_transpose2d(
      y, w, nn::ConvTranspose2dFuncOptions().stride({2, 1}).padding({1, 2}).dilation(2).groups(2));
  REQUIRE(back.sizes() == x.sizes());
  const double lhs = (F::conv2d(x, w, conv) * y).sum().item<double>();
  const double rhs = (x * back).sum().item<double>();
  CHECK(std::abs(lhs - rhs) <= 1e-11 * std::abs(lhs));

  const auto blocks = nn::UnfoldOptions({3, 2}).stride(2).padding(1).dilation({1, 2});
  const Tensor cols = wick::randn_like(F::unfold(x, blocks));
  const Tensor folded =
      F::fold(cols, nn::FoldOptions({7, 6}, {3, 2}).stride(2).padding(1).dilation({1, 2}));
  const double a = (F::unfold(x, blocks) * cols).sum().item<double>();
  const double b = (x * folded).sum().item<double>();
  CHECK(std::abs(a - b) <= 1e-11 * std::abs(a));
  // fold(unfold(x)) counts each pixel once per block that holds it.
  const Tensor counts =
      F::fold(F::unfold(wick::ones_like(x), blocks),
              nn::FoldOptions({7, 6}, {3, 2}).stride(2).padding(1).dilation({1, 2}));
  CHECK(
      max_difference(F::fold(F::unfold(x, blocks),
                             nn::FoldOptions({7, 6}, {3, 2}).stride(2).padding(1).dilation({1, 2})),
                     x * counts) <= 1e-12);
}

TEST_CASE("conv_transpose and fold gradients pass gradcheck", "[nn][conv_transpose][gradcheck]") {
  wick::manual_seed(3);
  const auto opts = [](const Ts& in) {
    return nn::ConvTranspose2dFuncOptions().bias(in[2]).stride({2, 1}).padding(1).output_padding(
        {1, 0});
  };
  const Ts inputs = {wick::randn({2, 2, 3, 3}).to(wick::kFloat64).requires_grad_(),
                     wick::randn({2, 3, 2, 3}).to(wick::kFloat64).requires_grad_(),
                     wick::randn({3}).to(wick::kFloat64).requires_grad_()};
  CHECK(wick::autograd::gradcheck(
            [&](const Ts& in) { return F::conv_transpose2d(in[0], in[1], opts(in)); }, inputs) ==
        "");
  const Tensor cols = wick::randn({1, 8, 10}).to(wick::kFloat64).requires_grad_();
  CHECK(wick::autograd::gradcheck(
            [](const Ts& in) {
              return F::fold(in[0], nn::FoldOptions({3, 4}, 2).padding({0, 1}));
            },
            {cols}) == "");
}

TEST_CASE("ConvTranspose modules: parameters, output_size, printing", "[nn][conv_transpose]") {
  wick::manual_seed(0);
  nn::ConvTranspose2d up(
      nn::ConvTranspose2dOptions(4, 6, 3).stride(2).padding(1).groups(2).bias(true));
  CHECK(up->weight.sizes() == wick::Shape{4, 3, 3, 3});
  CHECK(up->bias.sizes() == wick::Shape{6});
  // U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with PyTorch's fan_in, weight.size(1) * 3 * 3 = 27.
  CHECK(up->weight.abs().max().item<float>() <= 1.0f / std::sqrt(27.0f));
  CHECK(up->named_parameters().size() == 2);
  const Tensor x = wick::randn({1, 4, 5, 5});
  CHECK(up(x).sizes() == wick::Shape{1, 6, 9, 9});
  // output_size picks the output padding: 9 and 10 are the sizes stride 2 allows.
  CHECK(up->forward(x, {10, 9}).sizes() == wick::Shape{1, 6, 10, 9});
  CHECK(up->forward(x, {1, 6, 10, 10}).sizes() == wick::Shape{1, 6, 10, 10});
  CHECK_THROWS_AS(up->forward(x, {11, 9}), wick::ValueError);
  CHECK_THROWS_WITH(up->forward(x, {11, 9}), Contains("range from 9 to 10"));
  CHECK(up->forward(x.squeeze(0)).sizes() == wick::Shape{6, 9, 9});
  std::ostringstream printed;
  printed << *up;
  CHECK(printed.str() ==
        "ConvTranspose2d(4, 6, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), groups=2)");

  nn::ConvTranspose1d line(nn::ConvTranspose1dOptions(2, 4, 3).stride(3).bias(false));
  CHECK(line->weight.sizes() == wick::Shape{2, 4, 3});
  CHECK_FALSE(line->bias.defined());
  CHECK(line(wick::randn({3, 2, 4})).sizes() == wick::Shape{3, 4, 12});
  CHECK(line->forward(wick::randn({2, 4}), {14}).sizes() == wick::Shape{4, 14});
  CHECK(line->extra_repr() == "2, 4, kernel_size=(3,), stride=(3,), bias=False");
  CHECK(nn::Unfold(nn::UnfoldOptions(2).stride({1, 2}))->extra_repr() ==
        "kernel_size=2, dilation=1, padding=0, stride=(1, 2)");
  CHECK(nn::Fold(nn::FoldOptions({4, 4}, 2))->extra_repr() ==
        "output_size=(4, 4), kernel_size=2, dilation=1, padding=0, stride=1");
}

TEST_CASE("padding same in the modules, every padding mode", "[nn][conv_transpose]") {
  wick::manual_seed(9);
  nn::Conv2d conv(nn::Conv2dOptions(2, 3, {3, 4}).padding(nn::kSame).padding_mode(nn::kReflect));
  const Tensor x = wick::randn({1, 2, 5, 6});
  const Tensor y = conv(x);
  CHECK(y.sizes() == wick::Shape{1, 3, 5, 6});
  // Reflect padding of d (k - 1) = (2, 3): rows 1 and 1, columns 1 left and 2 right.
  const Tensor want = F::conv2d(F::pad(x, nn::PadFuncOptions({1, 2, 1, 1}).mode(nn::kReflect)),
                                conv->weight, nn::Conv2dFuncOptions().bias(conv->bias));
  CHECK(wick::allclose(y, want, 1e-6, 1e-6));
  std::ostringstream printed;
  printed << *conv;
  CHECK(printed.str() ==
        "Conv2d(2, 3, kernel_size=(3, 4), stride=(1, 1), padding=same, padding_mode=reflect)");
  nn::Conv1d line(nn::Conv1dOptions(2, 2, 4).padding(nn::kSame).dilation(2));
  CHECK(line(wick::randn({3, 2, 9})).sizes() == wick::Shape{3, 2, 9});
  CHECK(line->extra_repr() == "2, 2, kernel_size=(4,), stride=(1,), padding=same, dilation=(2,)");
  nn::Conv1d circular(
      nn::Conv1dOptions(2, 2, 3).padding(nn::kSame).padding_mode(nn::kCircular).bias(false));
  CHECK(circular(wick::randn({2, 7})).sizes() == wick::Shape{2, 7});
  CHECK_THROWS_WITH(nn::Conv2d(nn::Conv2dOptions(2, 3, 3).padding(nn::kSame).stride(2)),
                    Contains("same") && Contains("strided"));
  CHECK_THROWS_AS(F::conv1d(wick::randn({1, 2, 5}), wick::randn({2, 2, 3}),
                            nn::Conv1dFuncOptions().padding(nn::kSame).stride(2)),
                  wick::ValueError);
  // A size after a name replaces it.
  CHECK_FALSE(nn::Conv2dOptions(2, 3, 3).padding(nn::kSame).padding(1).padding_by_name());
}

TEST_CASE("conv_transpose, unfold and fold: errors name the op and the shapes",
          "[nn][conv_transpose][errors]") {
  const Tensor x = wick::randn({1, 4, 3, 3});
  const Tensor w = wick::randn({4, 3, 3, 3});
  using O = nn::ConvTranspose2dFuncOptions;
  CHECK_THROWS_AS(F::conv_transpose2d(x, wick::randn({3, 3, 3, 3})), wick::ShapeError);
  CHECK_THROWS_WITH(F::conv_transpose2d(x, wick::randn({3, 3, 3, 3})),
                    Contains("conv_transpose2d") && Contains("[1, 4, 3, 3]"));
  CHECK_THROWS_AS(F::conv_transpose2d(x, w, O().stride(2).output_padding(2)), wick::ValueError);
  CHECK_THROWS_WITH(F::conv_transpose2d(x, w, O().stride(2).output_padding(2)),
                    Contains("output_padding 2"));
  CHECK_THROWS_AS(F::conv_transpose2d(x, w, O().groups(3)), wick::ShapeError);
  CHECK_THROWS_AS(F::conv_transpose2d(x, w, O().bias(wick::randn({4}))), wick::ShapeError);
  CHECK_THROWS_AS(F::conv_transpose2d(x, w.to(wick::kFloat64)), wick::DtypeError);
  CHECK_THROWS_AS(F::conv_transpose2d(x, w, O().padding(3)), wick::ShapeError);  // size 0
  CHECK_THROWS_AS(F::conv_transpose2d(x.to(wick::kInt64), w), wick::DtypeError);
  CHECK_THROWS_WITH(F::conv_transpose1d(wick::randn({1, 4, 3}), wick::randn({4, 2, 2}),
                                        nn::ConvTranspose1dFuncOptions().stride(0)),
                    Contains("conv_transpose1d"));
  CHECK_THROWS_AS(F::unfold(wick::randn({2, 2}), nn::UnfoldOptions(2)), wick::ShapeError);
  CHECK_THROWS_AS(F::unfold(x, nn::UnfoldOptions(4)), wick::ShapeError);
  CHECK_THROWS_WITH(F::fold(wick::randn({1, 12, 15}), nn::FoldOptions({5, 5}, 2)),
                    Contains("fold") && Contains("15 blocks") && Contains("16"));
  CHECK_THROWS_AS(F::fold(wick::randn({1, 10, 16}), nn::FoldOptions({5, 5}, 2)), wick::ShapeError);
  CHECK_THROWS_AS(nn::ConvTranspose2d(nn::ConvTranspose2dOptions(4, 6, 3).groups(4)),
                  wick::ValueError);
  // After the errors, the op still works.
  CHECK(F::conv_transpose2d(x, w).sizes() == wick::Shape{1, 3, 5, 5});
}
