// test_conv.cpp: conv2d, max_pool2d, avg_pool2d and their modules. Against a direct float64
// loop (the slow reference, every stride, padding, dilation and group count below), torch 1.13's
// values for one case of each (python3-torch: F.conv2d(x, w, b, stride=(2, 1), padding=(1, 2),
// dilation=(1, 2), groups=2) with x = arange(240).reshape(2, 4, 5, 6).sin() and
// w = arange(72).reshape(6, 2, 3, 2).cos()), gradcheck, errors, and a small CNN that learns.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>

#include "wick/autograd.hpp"
#include "wick/nn.hpp"
#include "wick/optim.hpp"

using namespace wick;
namespace F = wick::nn::functional;
using Catch::Matchers::Contains;

namespace {

// The direct definition: out[n, o, oh, ow] = bias[o] + sum over the group's channels c and the
// kernel (i, j) of x[n, c, oh * s - p + i * d, ow * s - p + j * d] * w[o, c, i, j].
Tensor conv_reference(const Tensor& x, const Tensor& w, const Tensor& b, nn::Size2 s, nn::Size2 p,
                      nn::Size2 d, int64_t groups) {
  const int64_t n_n = x.size(0), c_n = x.size(1), h = x.size(2), wd = x.size(3);
  const int64_t o_n = w.size(0), cg = w.size(1), kh = w.size(2), kw = w.size(3);
  const int64_t oh_n = (h + 2 * p.h - d.h * (kh - 1) - 1) / s.h + 1;
  const int64_t ow_n = (wd + 2 * p.w - d.w * (kw - 1) - 1) / s.w + 1;
  const std::vector<double> xv = x.to(kFloat64).contiguous().to_vector<double>();
  const std::vector<double> wv = w.to(kFloat64).contiguous().to_vector<double>();
  const std::vector<double> bv =
      b.defined() ? b.to(kFloat64).to_vector<double>() : std::vector<double>(o_n, 0.0);
  std::vector<double> out(static_cast<size_t>(n_n * o_n * oh_n * ow_n));
  size_t k = 0;
  for (int64_t n = 0; n < n_n; ++n) {
    for (int64_t o = 0; o < o_n; ++o) {
      const int64_t g = o / (o_n / groups);
      for (int64_t oh = 0; oh < oh_n; ++oh) {
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          double acc = bv[o];
          for (int64_t c = 0; c < cg; ++c) {
            for (int64_t i = 0; i < kh; ++i) {
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t ih = oh * s.h - p.h + i * d.h, iw = ow * s.w - p.w + j * d.w;
                if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
                const int64_t ci = g * cg + c;
                acc +=
                    xv[((n * c_n + ci) * h + ih) * wd + iw] * wv[((o * cg + c) * kh + i) * kw + j];
              }
            }
          }
          out[k++] = acc;
        }
      }
    }
  }
  return tensor(out, Shape{n_n, o_n, oh_n, ow_n});
}

// Max or mean over each window, padding excluded from the max and counted (as zeros) in the
// mean unless count_include_pad is false.
Tensor pool_reference(const Tensor& x, nn::Size2 k, nn::Size2 s, nn::Size2 p, nn::Size2 d,
                      bool is_max, bool count_pad) {
  const int64_t n_n = x.size(0), c_n = x.size(1), h = x.size(2), wd = x.size(3);
  const int64_t oh_n = (h + 2 * p.h - d.h * (k.h - 1) - 1) / s.h + 1;
  const int64_t ow_n = (wd + 2 * p.w - d.w * (k.w - 1) - 1) / s.w + 1;
  const std::vector<double> xv = x.to(kFloat64).contiguous().to_vector<double>();
  std::vector<double> out;
  for (int64_t nc = 0; nc < n_n * c_n; ++nc) {
    for (int64_t oh = 0; oh < oh_n; ++oh) {
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        double best = -std::numeric_limits<double>::infinity(), total = 0;
        int64_t inside = 0;
        for (int64_t i = 0; i < k.h; ++i) {
          for (int64_t j = 0; j < k.w; ++j) {
            const int64_t ih = oh * s.h - p.h + i * d.h, iw = ow * s.w - p.w + j * d.w;
            if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
            const double v = xv[(nc * h + ih) * wd + iw];
            best = std::isnan(best) || v > best || std::isnan(v) ? v : best;
            total += v;
            ++inside;
          }
        }
        out.push_back(is_max ? best : total / static_cast<double>(count_pad ? k.h * k.w : inside));
      }
    }
  }
  return tensor(out, Shape{n_n, c_n, oh_n, ow_n});
}

}  // namespace

TEST_CASE("conv2d against the direct loop and torch 1.13", "[nn][conv]") {
  const Tensor x = arange(240, kFloat64).reshape({2, 4, 5, 6}).sin();
  const Tensor w = arange(72, kFloat64).reshape({6, 2, 3, 2}).cos();
  const Tensor b = tensor(std::vector<double>{0.5, -1, 2, 0, 1, -0.25});
  const Tensor y = F::conv2d(
      x, w,
      nn::Conv2dFuncOptions().bias(b).stride({2, 1}).padding({1, 2}).dilation({1, 2}).groups(2));
  REQUIRE(y.sizes() == Shape{2, 6, 3, 8});
  CHECK(y.is_contiguous());
  CHECK(y.sum().item<double>() == Approx(102.86376178045288).epsilon(1e-12));
  CHECK((y * y).sum().item<double>() == Approx(435.8921129570664).epsilon(1e-12));
  CHECK(y.index_select(0, tensor({1}))
            .select(0, 0)
            .select(0, 5)
            .select(0, 2)
            .select(0, 3)
            .item<double>() == Approx(-0.7434489114798924).epsilon(1e-12));
  CHECK(allclose(y, conv_reference(x, w, b, {2, 1}, {1, 2}, {1, 2}, 2), 1e-12, 1e-12));

  // Every combination below against the loop, float32 and float64, strided inputs too.
  for (Dtype dtype : {kFloat32, kFloat64}) {
    for (int64_t groups : {1, 3}) {
      for (nn::Size2 stride : {nn::Size2(1), nn::Size2(2, 3)}) {
        for (nn::Size2 padding : {nn::Size2(0), nn::Size2(2, 1)}) {
          for (nn::Size2 dilation : {nn::Size2(1), nn::Size2(2)}) {
            const Tensor in =
                randn({2, 7, 8, 5}, TensorOptions(dtype)).transpose(2, 3).narrow(1, 0, 6);
            const Tensor wt = randn({9, 6 / groups, 3, 2}, TensorOptions(dtype));
            const Tensor bs = randn({9}, TensorOptions(dtype));
            INFO(describe(in) << " groups " << groups << " stride " << stride.h << "," << stride.w
                              << " padding " << padding.h << "," << padding.w << " dilation "
                              << dilation.h);
            const Tensor got = F::conv2d(in, wt,
                                         nn::Conv2dFuncOptions()
                                             .bias(bs)
                                             .stride(stride)
                                             .padding(padding)
                                             .dilation(dilation)
                                             .groups(groups));
            const Tensor want = conv_reference(in, wt, bs, stride, padding, dilation, groups);
            REQUIRE(got.sizes() == want.sizes());
            CHECK(got.dtype() == dtype);
            const double tol = dtype == kFloat32 ? 1e-5 : 1e-12;
            CHECK(allclose(got.to(kFloat64), want, tol, tol));
          }
        }
      }
    }
  }
  // Unbatched input and no bias.
  const Tensor one = F::conv2d(x.select(0, 1).narrow(0, 0, 2), w.narrow(1, 0, 1).narrow(0, 0, 2),
                               nn::Conv2dFuncOptions().groups(2));
  CHECK(one.sizes() == Shape{2, 3, 5});
  CHECK(allclose(one, conv_reference(x.narrow(0, 1, 1).narrow(1, 0, 2),
                                     w.narrow(1, 0, 1).narrow(0, 0, 2), Tensor(), 1, 0, 1, 2)
                          .squeeze(0)));
}

TEST_CASE("conv2d errors name the op and the operands", "[nn][conv]") {
  const Tensor x = randn({1, 4, 5, 5});
  CHECK_THROWS_WITH(F::conv2d(x, randn({2, 3, 3, 3})),
                    Contains("conv2d") && Contains("[1, 4, 5, 5]") && Contains("[2, 3, 3, 3]"));
  CHECK_THROWS_AS(F::conv2d(x, randn({2, 3, 3, 3})), ShapeError);
  CHECK_THROWS_AS(F::conv2d(randn({4, 5}), randn({2, 4, 3, 3})), ShapeError);
  CHECK_THROWS_AS(F::conv2d(x, randn({2, 4, 3})), ShapeError);
  CHECK_THROWS_AS(F::conv2d(x, randn({3, 2, 3, 3}), nn::Conv2dFuncOptions().groups(2)), ShapeError);
  CHECK_THROWS_AS(F::conv2d(x, randn({2, 4, 3, 3}), nn::Conv2dFuncOptions().bias(randn({3}))),
                  ShapeError);
  CHECK_THROWS_AS(F::conv2d(x, randn({2, 4, 3, 3}), nn::Conv2dFuncOptions().stride(0)), ValueError);
  CHECK_THROWS_AS(F::conv2d(x, randn({2, 4, 3, 3}), nn::Conv2dFuncOptions().padding(-1)),
                  ValueError);
  CHECK_THROWS_WITH(F::conv2d(x, randn({2, 4, 7, 3})), Contains("smaller than the kernel"));
  CHECK_THROWS_AS(F::conv2d(x, randn({2, 4, 3, 3}, TensorOptions(kFloat64))), DtypeError);
  CHECK_THROWS_AS(F::conv2d(x.to(kInt64), randn({2, 4, 3, 3}).to(kInt64)), DtypeError);
  CHECK_THROWS_AS(nn::Conv2d(nn::Conv2dOptions(4, 6, 3).groups(4)), ValueError);
  // After the errors, the op still works.
  CHECK(F::conv2d(x, randn({2, 4, 3, 3})).sizes() == Shape{1, 2, 3, 3});
}

TEST_CASE("max_pool2d and avg_pool2d against the loop and torch 1.13", "[nn][conv]") {
  const Tensor x = arange(240, kFloat64).reshape({2, 4, 5, 6}).sin();
  const Tensor mp =
      F::max_pool2d(x, nn::MaxPool2dOptions({3, 2}).stride(2).padding(1).dilation({1, 2}));
  REQUIRE(mp.sizes() == Shape{2, 4, 3, 3});
  CHECK(mp.sum().item<double>() == Approx(32.82342072976385).epsilon(1e-12));
  const Tensor ap = F::avg_pool2d(x, nn::AvgPool2dOptions(3).stride(2).padding(1));
  REQUIRE(ap.sizes() == Shape{2, 4, 3, 3});
  CHECK(ap.sum().item<double>() == Approx(-0.2372070522932201).epsilon(1e-12));
  const Tensor ap2 =
      F::avg_pool2d(x, nn::AvgPool2dOptions(3).stride(2).padding(1).count_include_pad(false));
  CHECK(ap2.sum().item<double>() == Approx(-0.9936688576202704).epsilon(1e-12));
  // torch: max_pool2d(arange(16).reshape(1, 1, 4, 4), 2) = [5, 7, 13, 15]; the stride defaults
  // to the kernel.
  CHECK(F::max_pool2d(arange(16, kFloat32).reshape({1, 1, 4, 4}), nn::MaxPool2dOptions(2))
            .to_vector<float>() == std::vector<float>{5, 7, 13, 15});
  for (nn::Size2 k : {nn::Size2(2), nn::Size2(3, 2)}) {
    for (nn::Size2 s : {nn::Size2(1), nn::Size2(2, 1)}) {
      for (nn::Size2 p : {nn::Size2(0), nn::Size2(1)}) {
        const Tensor in = randn({2, 3, 7, 5}, TensorOptions(kFloat64)).transpose(2, 3);
        INFO("kernel " << k.h << "," << k.w << " stride " << s.h << "," << s.w << " padding "
                       << p.h);
        CHECK(allclose(F::max_pool2d(in, nn::MaxPool2dOptions(k).stride(s).padding(p)),
                       pool_reference(in, k, s, p, 1, true, true)));
        CHECK(allclose(F::max_pool2d(in, nn::MaxPool2dOptions(k).stride(s).padding(p).dilation(2)),
                       pool_reference(in, k, s, p, 2, true, true)));
        for (bool count_pad : {true, false}) {
          CHECK(allclose(
              F::avg_pool2d(
                  in, nn::AvgPool2dOptions(k).stride(s).padding(p).count_include_pad(count_pad)),
              pool_reference(in, k, s, p, 1, false, count_pad)));
        }
      }
    }
  }
  // NaN wins a max window; unbatched input.
  Tensor withnan = zeros({1, 2, 2});
  withnan.select(0, 0).select(0, 1).select(0, 1).fill_(std::numeric_limits<double>::quiet_NaN());
  CHECK(std::isnan(F::max_pool2d(withnan, nn::MaxPool2dOptions(2)).item<float>()));
  CHECK(F::max_pool2d(withnan, nn::MaxPool2dOptions(2)).sizes() == Shape{1, 1, 1});
  // Gradients: to one element per window (the first largest), as torch.
  Tensor xr = arange(16, kFloat64).reshape({1, 1, 4, 4}).requires_grad_();
  F::max_pool2d(xr, nn::MaxPool2dOptions(2).stride(1)).sum().backward();
  CHECK(xr.grad().to_vector<double>() ==
        std::vector<double>{0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1});
  Tensor tie = ones({1, 1, 2, 2}, TensorOptions(kFloat64)).requires_grad_();
  F::max_pool2d(tie, nn::MaxPool2dOptions(2)).sum().backward();
  CHECK(tie.grad().to_vector<double>() == std::vector<double>{1, 0, 0, 0});
  // Errors.
  CHECK_THROWS_WITH(F::max_pool2d(x, nn::MaxPool2dOptions(2).padding(2)),
                    Contains("max_pool2d") && Contains("half"));
  CHECK_THROWS_AS(F::avg_pool2d(x, nn::AvgPool2dOptions(0)), ValueError);
  CHECK_THROWS_AS(F::max_pool2d(randn({5, 6}), nn::MaxPool2dOptions(2)), ShapeError);
}

TEST_CASE("conv2d and pooling gradients pass gradcheck", "[nn][conv][gradcheck]") {
  const TensorOptions f64(kFloat64);
  const std::string conv = autograd::gradcheck(
      [](const std::vector<Tensor>& in) {
        return F::conv2d(
            in[0], in[1],
            nn::Conv2dFuncOptions().bias(in[2]).stride({2, 1}).padding(1).dilation({1, 2}).groups(
                2));
      },
      {randn({2, 4, 5, 5}, f64).requires_grad_(), randn({4, 2, 2, 2}, f64).requires_grad_(),
       randn({4}, f64).requires_grad_()});
  CHECK(conv == "");
  const std::string pools = autograd::gradcheck(
      [](const std::vector<Tensor>& in) {
        return F::max_pool2d(in[0], nn::MaxPool2dOptions(2).stride(1).padding(1)).sum() +
               F::avg_pool2d(in[0],
                             nn::AvgPool2dOptions(3).stride(2).padding(1).count_include_pad(false))
                       .sum() *
                   2.0;
      },
      {randn({1, 2, 5, 4}, f64).requires_grad_()});
  CHECK(pools == "");
}

TEST_CASE("nn::Conv2d, MaxPool2d and AvgPool2d modules", "[nn][conv]") {
  manual_seed(3);
  nn::Conv2d conv(nn::Conv2dOptions(4, 6, {3, 2}).stride(2).padding(1).groups(2));
  CHECK(conv->weight.sizes() == Shape{6, 2, 3, 2});
  CHECK(conv->bias.sizes() == Shape{6});
  const double bound = 1.0 / std::sqrt(2.0 * 3 * 2);
  CHECK(conv->weight.abs().max().item<double>() <= bound);
  CHECK(conv->weight.abs().max().item<double>() > 0.5 * bound);
  CHECK(conv->bias.abs().max().item<double>() <= bound);
  CHECK(conv->parameters().size() == 2);
  CHECK(conv->extra_repr() == "4, 6, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1), groups=2");
  CHECK(nn::Conv2d(1, 2, 3)->extra_repr() == "1, 2, kernel_size=(3, 3), stride=(1, 1)");
  CHECK_FALSE(nn::Conv2d(nn::Conv2dOptions(1, 2, 3).bias(false))->bias.defined());
  const Tensor x = randn({2, 4, 7, 6});
  const Tensor y = conv(x);
  CHECK(y.sizes() == Shape{2, 6, 4, 4});
  CHECK(allclose(y, conv_reference(x, conv->weight, conv->bias, 2, 1, 1, 2).to(kFloat32), 1e-5,
                 1e-5));
  nn::MaxPool2d pool(nn::MaxPool2dOptions(2));
  CHECK(pool(y).sizes() == Shape{2, 6, 2, 2});
  CHECK(pool->extra_repr() == "kernel_size=(2, 2), stride=(2, 2), padding=(0, 0), dilation=(1, 1)");
  nn::AvgPool2d avg(nn::AvgPool2dOptions({2, 1}).stride(1));
  CHECK(avg(y).sizes() == Shape{2, 6, 3, 4});
}

TEST_CASE("a small CNN learns to tell two patterns apart", "[nn][conv]") {
  // Images of 8x8: class 0 has a vertical bar, class 1 a horizontal one, at random places,
  // with noise. conv -> relu -> max pool -> linear; SGD must fit them.
  manual_seed(7);
  const int64_t n = 64;
  Tensor images = randn({n, 1, 8, 8}) * 0.1;
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t at = 1 + (i * 5) % 6;
    Tensor img = images.select(0, i).select(0, 0);
    if (i % 2 == 0) {
      img.select(1, at).add_(1.0);
    } else {
      img.select(0, at).add_(1.0);
    }
    labels.push_back(i % 2);
  }
  const Tensor target = tensor(labels);
  nn::Conv2d conv(nn::Conv2dOptions(1, 4, 3).padding(1));
  nn::Linear head(4 * 4 * 4, 2);
  std::vector<Tensor> params = conv->parameters();
  for (const Tensor& p : head->parameters()) params.push_back(p);
  optim::SGD opt(params, optim::SGDOptions(0.1).momentum(0.9));
  double first = 0, last = 0;
  for (int step = 0; step < 60; ++step) {
    opt.zero_grad();
    const Tensor h = F::max_pool2d(relu(conv(images)), nn::MaxPool2dOptions(2)).reshape({n, -1});
    const Tensor loss = F::cross_entropy(head(h), target);
    loss.backward();
    opt.step();
    if (step == 0) first = loss.item<double>();
    last = loss.item<double>();
  }
  CHECK(last < 0.1 * first);
}

TEST_CASE("functional::pad in its four modes, and Conv2d's padding_mode", "[nn][conv]") {
  const Tensor x = arange(6, kFloat32).reshape({1, 2, 3});
  auto values = [](const Tensor& t) { return t.contiguous().to_vector<float>(); };
  using V = std::vector<float>;
  // torch 1.13, F.pad(x, ...) on arange(6).reshape(1, 2, 3):
  CHECK(values(F::pad(x, nn::PadFuncOptions({1, 2}))) == V{0, 0, 1, 2, 0, 0, 0, 3, 4, 5, 0, 0});
  CHECK(values(F::pad(x, nn::PadFuncOptions({2, 1}).mode(nn::kReflect))) ==
        V{2, 1, 0, 1, 2, 1, 5, 4, 3, 4, 5, 4});
  CHECK(values(F::pad(x, nn::PadFuncOptions({2, 1}).mode(nn::kReplicate))) ==
        V{0, 0, 0, 1, 2, 2, 3, 3, 3, 4, 5, 5});
  CHECK(values(F::pad(x, nn::PadFuncOptions({2, 1}).mode(nn::kCircular))) ==
        V{1, 2, 0, 1, 2, 0, 4, 5, 3, 4, 5, 3});
  // Negative amounts crop; two dims; a value.
  const Tensor cropped = F::pad(x, nn::PadFuncOptions({-1, 1, 1, 0}).value(9));
  CHECK(cropped.sizes() == Shape{1, 3, 3});
  CHECK(values(cropped) == V{9, 9, 9, 1, 2, 9, 4, 5, 9});
  CHECK(F::pad(x, nn::PadFuncOptions({0, 0, 0, 0, 1, 1})).sizes() == Shape{3, 2, 3});
  // The gradient of a mirrored element is the sum of its copies'.
  Tensor leaf = arange(3, kFloat64).reshape({1, 3}).requires_grad_();
  F::pad(leaf, nn::PadFuncOptions({2, 2}).mode(nn::kReflect)).sum().backward();
  CHECK(leaf.grad().to_vector<double>() == std::vector<double>{2, 3, 2});
  const std::string grads = autograd::gradcheck(
      [](const std::vector<Tensor>& in) {
        return F::pad(in[0], nn::PadFuncOptions({1, 2, 2, 1}).mode(nn::kCircular)) +
               F::pad(in[0], nn::PadFuncOptions({1, 2, 2, 1}).mode(nn::kReplicate));
      },
      {randn({2, 3, 4}, TensorOptions(kFloat64)).requires_grad_()});
  CHECK(grads == "");
  // Errors, as PyTorch's.
  CHECK_THROWS_WITH(F::pad(x, nn::PadFuncOptions({3, 0}).mode(nn::kReflect)),
                    Contains("pad") && Contains("reflect") && Contains("[1, 2, 3]"));
  CHECK_THROWS_AS(F::pad(x, nn::PadFuncOptions({1})), ValueError);
  CHECK_THROWS_AS(F::pad(arange(3, kFloat32), nn::PadFuncOptions({1, 1}).mode(nn::kReflect)),
                  ValueError);
  CHECK_THROWS_AS(F::pad(x, nn::PadFuncOptions({-4, 0})), ValueError);
  CHECK_THROWS_AS(F::pad(x, nn::PadFuncOptions({-1, 0}).mode(nn::kReplicate)), ValueError);
  CHECK_THROWS_AS(F::pad(x, nn::PadFuncOptions({1, 1, 1, 1, 1, 1, 1, 1})), ValueError);

  // Conv2d with a padding mode pads first, then convolves without padding.
  manual_seed(5);
  nn::Conv2d conv(nn::Conv2dOptions(2, 3, 3).padding({1, 2}).padding_mode(nn::kCircular));
  const Tensor img = randn({2, 2, 5, 6});
  const Tensor want = F::conv2d(F::pad(img, nn::PadFuncOptions({2, 2, 1, 1}).mode(nn::kCircular)),
                                conv->weight, nn::Conv2dFuncOptions().bias(conv->bias));
  CHECK(equal(conv(img), want));
  CHECK(conv(img).sizes() == Shape{2, 3, 5, 8});
  CHECK(conv->extra_repr() ==
        "2, 3, kernel_size=(3, 3), stride=(1, 1), padding=(1, 2), padding_mode=circular");
}

TEST_CASE("pooling with ceil_mode keeps the last partial window, as torch 1.13", "[nn][conv]") {
  const Tensor x = arange(2 * 3 * 7 * 6, kFloat64).reshape({2, 3, 7, 6}).sin();
  // torch: F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True) etc. on this x.
  const Tensor m1 = F::max_pool2d(x, nn::MaxPool2dOptions(3).stride(2).padding(1).ceil_mode(true));
  CHECK(m1.sizes() == Shape{2, 3, 4, 4});
  CHECK(m1.sum().item<double>() == Approx(47.26763882252482).epsilon(1e-12));
  const Tensor m2 = F::max_pool2d(x, nn::MaxPool2dOptions({2, 3}).stride(2).ceil_mode(true));
  CHECK(m2.sizes() == Shape{2, 3, 4, 3});
  CHECK(m2.sum().item<double>() == Approx(40.031469560619044).epsilon(1e-12));
  const Tensor a1 = F::avg_pool2d(x, nn::AvgPool2dOptions(3).stride(2).padding(1).ceil_mode(true));
  CHECK(a1.sizes() == Shape{2, 3, 4, 4});
  CHECK(a1.sum().item<double>() == Approx(0.13891644455055296).epsilon(1e-12));
  const Tensor a2 = F::avg_pool2d(
      x, nn::AvgPool2dOptions(3).stride(2).padding(1).ceil_mode(true).count_include_pad(false));
  CHECK(a2.sum().item<double>() == Approx(0.3200688673520695).epsilon(1e-12));
  const Tensor a3 = F::avg_pool2d(x, nn::AvgPool2dOptions({2, 3}).stride(2).ceil_mode(true));
  CHECK(a3.sizes() == Shape{2, 3, 4, 3});
  CHECK(a3.sum().item<double>() == Approx(0.4471390658792721).epsilon(1e-12));
  // One row of 5 with windows of 2: [1, 3, 4] and [0.5, 2.5, 4] (the last window holds one
  // element, and is divided by one); with padding 1 the windows start at -1, 1, 3.
  const Tensor row = arange(5, kFloat32).reshape({1, 1, 1, 5});
  CHECK(F::max_pool2d(row, nn::MaxPool2dOptions({1, 2}).ceil_mode(true)).to_vector<float>() ==
        std::vector<float>{1, 3, 4});
  CHECK(F::avg_pool2d(row, nn::AvgPool2dOptions({1, 2}).ceil_mode(true)).to_vector<float>() ==
        std::vector<float>{0.5f, 2.5f, 4});
  CHECK(F::max_pool2d(row,
                      nn::MaxPool2dOptions({1, 2}).stride({1, 2}).padding({0, 1}).ceil_mode(true))
            .to_vector<float>() == std::vector<float>{0, 2, 4});
  const std::string grads = autograd::gradcheck(
      [](const std::vector<Tensor>& in) {
        return F::avg_pool2d(in[0], nn::AvgPool2dOptions(2).padding(1).stride(3).ceil_mode(true));
      },
      {randn({1, 2, 5, 4}, TensorOptions(kFloat64)).requires_grad_()});
  CHECK(grads == "");
}

TEST_CASE("conv1d against a direct float64 loop; Conv1d, AdaptiveAvgPool2d, Identity", "[nn]") {
  namespace F = wick::nn::functional;
  wick::manual_seed(61);
  const Tensor x = wick::randn({2, 4, 9}, wick::kFloat64);
  const Tensor w = wick::randn({6, 2, 3}, wick::kFloat64), b = wick::randn({6}, wick::kFloat64);
  const int64_t stride = 2, pad = 1, dil = 2, groups = 2;
  const Tensor y = F::conv1d(
      x, w,
      wick::nn::Conv1dFuncOptions().bias(b).stride(stride).padding(pad).dilation(dil).groups(
          groups));
  const int64_t out_len = (9 + 2 * pad - dil * 2 - 1) / stride + 1;
  REQUIRE(y.sizes() == wick::Shape{2, 6, out_len});
  const auto xv = x.to_vector<double>(), wv = w.to_vector<double>(), bv = b.to_vector<double>();
  const auto yv = y.to_vector<double>();
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t o = 0; o < 6; ++o) {
      for (int64_t t = 0; t < out_len; ++t) {
        double want = bv[static_cast<size_t>(o)];
        const int64_t g = o / 3;  // 3 outputs per group, 2 inputs per group
        for (int64_t c = 0; c < 2; ++c) {
          for (int64_t j = 0; j < 3; ++j) {
            const int64_t at = t * stride - pad + j * dil;
            if (at < 0 || at >= 9) continue;
            want += wv[static_cast<size_t>((o * 2 + c) * 3 + j)] *
                    xv[static_cast<size_t>((n * 4 + g * 2 + c) * 9 + at)];
          }
        }
        CHECK(yv[static_cast<size_t>((n * 6 + o) * out_len + t)] == Approx(want).epsilon(1e-12));
      }
    }
  }
  CHECK(wick::autograd::gradcheck(
            [](const std::vector<Tensor>& in) {
              return F::conv1d(in[0], in[1], wick::nn::Conv1dFuncOptions().padding(2).bias(in[2]))
                  .reshape({-1});
            },
            {wick::randn({2, 3, 5}, wick::kFloat64).requires_grad_(),
             wick::randn({2, 3, 2}, wick::kFloat64).requires_grad_(),
             wick::randn({2}, wick::kFloat64).requires_grad_()}) == "");
  // The module: shapes, unbatched input, reflect padding, printing as PyTorch's.
  wick::nn::Conv1d conv(
      wick::nn::Conv1dOptions(4, 6, 3).stride(2).padding(1).dilation(2).groups(2));
  std::ostringstream printed;
  printed << conv;
  CHECK(printed.str() ==
        "Conv1d(4, 6, kernel_size=(3,), stride=(2,), padding=(1,), dilation=(2,), groups=2)");
  CHECK(conv(wick::randn({4, 9})).sizes() == wick::Shape{6, 4});
  wick::nn::Conv1d reflect(
      wick::nn::Conv1dOptions(1, 1, 3).padding(1).padding_mode(wick::nn::kReflect).bias(false));
  {
    wick::NoGradGuard no_grad;
    reflect->weight.fill_(1.0);
  }
  // [1, 2, 3, 4] reflected to [2, 1, 2, 3, 4, 3]: window sums 5, 6, 9, 10.
  CHECK(reflect(wick::tensor({1.0f, 2.0f, 3.0f, 4.0f}).reshape({1, 1, 4})).to_vector<float>() ==
        std::vector<float>{5, 6, 9, 10});
  CHECK_THROWS_WITH(F::conv1d(wick::zeros({2, 3, 5}), wick::zeros({2, 2, 3})),
                    Catch::Contains("conv1d") && Catch::Contains("3 channels"));
  // A kernel longer than the padded input: named as conv1d, with the caller's shapes.
  CHECK_THROWS_WITH(
      F::conv1d(wick::zeros({1, 2, 3}), wick::zeros({4, 2, 5})),
      Catch::Contains("conv1d") && Catch::Contains("[1, 2, 3]") && Catch::Contains("[4, 2, 5]"));
  CHECK_THROWS_AS(F::conv1d(wick::zeros({2, 3, 5, 1}), wick::zeros({2, 3, 3})), wick::ShapeError);
  CHECK_THROWS_AS(wick::nn::Conv1d(wick::nn::Conv1dOptions(3, 4, 3).groups(2)), wick::ValueError);
  // AdaptiveAvgPool2d: torch 1.13's values for 5 x 6 -> 3 x 4 (uneven bins), and the global pool.
  const Tensor grid = wick::arange(30, wick::kFloat32).reshape({1, 1, 5, 6});
  wick::nn::AdaptiveAvgPool2d pool(wick::nn::Size2(3, 4));
  const std::vector<float> pooled = pool(grid).to_vector<float>();
  const std::vector<float> torch_pooled{3.5,  4.5,  6.5,  7.5,  12.5, 13.5,
                                        15.5, 16.5, 21.5, 22.5, 24.5, 25.5};
  REQUIRE(pooled.size() == torch_pooled.size());
  for (size_t i = 0; i < pooled.size(); ++i)
    CHECK(pooled[i] == Approx(torch_pooled[i]).epsilon(1e-6));
  CHECK(wick::nn::AdaptiveAvgPool2d(1)(grid).item<float>() == Approx(14.5));
  CHECK(wick::autograd::gradcheck(
            [](const std::vector<Tensor>& in) {
              return F::adaptive_avg_pool2d(in[0], wick::nn::Size2(2, 3)).reshape({-1});
            },
            {wick::randn({2, 5, 7}, wick::kFloat64).requires_grad_()}) == "");
  CHECK_THROWS_AS(F::adaptive_avg_pool2d(wick::zeros({4, 4}), 2), wick::ShapeError);
  CHECK_THROWS_AS(F::adaptive_avg_pool2d(wick::zeros({1, 4, 4}), 0), wick::ValueError);
  wick::nn::Identity identity;
  const Tensor same = wick::randn({3});
  CHECK(identity(same).is_same(same));
}

TEST_CASE("pooling: NaN and infinities stay in their windows, torch's gradients",
          "[nn][conv][regress]") {
  // adaptive_avg_pool2d was two matmuls with averaging matrices, whose zero weights spread a
  // NaN or inf to every output. torch: [[nan, 4.5], [10.5, inf]]; at 3 x 3 seven finite cells.
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  v[0] = NAN;
  v[15] = INFINITY;
  const Tensor image = tensor(v, Shape{1, 1, 4, 4});
  const std::vector<float> two = F::adaptive_avg_pool2d(image, {2, 2}).to_vector<float>();
  CHECK(std::isnan(two[0]));
  CHECK(two[1] == 4.5f);
  CHECK(two[2] == 10.5f);
  CHECK(std::isinf(two[3]));
  const std::vector<float> three = F::adaptive_avg_pool2d(image, {3, 3}).to_vector<float>();
  CHECK(std::isnan(three[0]));
  CHECK(std::isinf(three[8]));
  for (size_t i = 1; i < 8; ++i) CHECK(std::isfinite(three[i]));
  CHECK(three[4] == 7.5f);
  // Its gradient: each window shares its upstream value equally (gradcheck), unequal windows.
  manual_seed(41);
  auto pool_fn = [](const std::vector<Tensor>& in) {
    return F::adaptive_avg_pool2d(in[0], {3, 2}) * 1.5;
  };
  CHECK(autograd::gradcheck(pool_fn, {randn({2, 3, 5, 7}, kFloat64).requires_grad_(true)}) == "");
  // max_pool2d's gradient: never to the padding; an all -inf window gives its first element
  // inside the input (torch: [2, 1, 0], was [1, 1, 0]); of several NaNs the last one (torch
  // [1, 5, 0, 9] for [nan, nan, 1, 2], kernel (1, 2), stride 1, padding (0, 1), upstream 1..5).
  Tensor z = full({1, 1, 1, 3}, -INFINITY, kFloat64).requires_grad_(true);
  F::max_pool2d(z, nn::MaxPool2dOptions({1, 3}).stride(1).padding({0, 1})).sum().backward();
  CHECK(z.grad().to_vector<double>() == std::vector<double>{2, 1, 0});
  Tensor q =
      tensor(std::vector<double>{NAN, NAN, 1, 2}, Shape{1, 1, 1, 4}, kFloat64).requires_grad_(true);
  const Tensor pooled = F::max_pool2d(q, nn::MaxPool2dOptions({1, 2}).stride(1).padding({0, 1}));
  pooled.backward(arange(1, 6, 1, kFloat64).reshape({1, 1, 1, 5}));
  CHECK(q.grad().to_vector<double>() == std::vector<double>{1, 5, 0, 9});
  const std::vector<double> out = pooled.detach().to_vector<double>();
  CHECK((std::isnan(out[0]) && std::isnan(out[2]) && out[3] == 2 && out[4] == 2));
  // Unrecorded, the same values.
  CHECK(
      all(isclose(F::max_pool2d(q.detach(), nn::MaxPool2dOptions({1, 2}).stride(1).padding({0, 1})),
                  pooled.detach(), 0, 0, true))
          .item<bool>());
}

TEST_CASE("pooling: ceil_mode takes an input smaller than the kernel", "[nn][conv][regress]") {
  // torch: max_pool2d and avg_pool2d of [1, 1, 1, 5] with kernel 2 and ceil_mode give
  // [1, 1, 1, 3]; of arange(5): [1, 3, 4] and [0.5, 2.5, 4] (the last window holds 4 alone).
  const Tensor in = arange(5, kFloat32).reshape({1, 1, 1, 5});
  const Tensor m = F::max_pool2d(in, nn::MaxPool2dOptions({2, 2}).ceil_mode(true));
  CHECK(m.sizes() == Shape{1, 1, 1, 3});
  CHECK(m.to_vector<float>() == std::vector<float>{1, 3, 4});
  const Tensor a = F::avg_pool2d(in, nn::AvgPool2dOptions({2, 2}).ceil_mode(true));
  CHECK(a.to_vector<float>() == std::vector<float>{0.5f, 2.5f, 4});
  // Without ceil_mode, or when no window would start inside the input: the error.
  CHECK_THROWS_AS(F::max_pool2d(in, nn::MaxPool2dOptions({2, 2})), ShapeError);
  CHECK_THROWS_AS(F::max_pool2d(in, nn::MaxPool2dOptions({3, 3}).stride(1).ceil_mode(true)),
                  ShapeError);
}

TEST_CASE("conv1d: its errors name conv1d and the caller's shapes", "[nn][conv][regress]") {
  const Tensor x = randn({1, 2, 5});
  auto message = [](const std::function<void()>& fn) -> std::string {
    try {
      fn();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string bias = message([&] {
    F::conv1d(x, randn({2, 2, 3}), nn::Conv1dFuncOptions().bias(randn({3})));
  });
  CHECK_THAT(bias, Contains("conv1d:") && Contains("[3] float32") && Contains("[2, 2, 3]"));
  const std::string dtype = message([&] { F::conv1d(x, randn({2, 2, 3}, kFloat64)); });
  CHECK_THAT(dtype, Contains("conv1d:") && Contains("[1, 2, 5] float32"));
  const std::string groups = message([&] {
    F::conv1d(randn({1, 2, 5}), randn({3, 1, 3}), nn::Conv1dFuncOptions().groups(2));
  });
  CHECK_THAT(groups, Contains("conv1d:") && Contains("divisible by groups 2"));
  const std::string ints = message([&] { F::conv1d(x.to(kInt64), randn({2, 2, 3})); });
  CHECK_THAT(ints, Contains("conv1d:") && Contains("[1, 2, 5] int64"));
  for (const std::string& m : {bias, dtype, groups, ints}) CHECK_THAT(m, !Contains("conv2d"));
}
