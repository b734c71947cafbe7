// test_pytorch_edges.cpp: core ops at the edges PyTorch 1.13 defines and wick got wrong until a
// review compared them (python3-torch; each expected value is PyTorch's): NaN clamp bounds,
// numbers that do not fit the dtype they become, bool operands of sub, negative integer powers,
// argmax of bool, arange's integer arithmetic, allclose with infinities and broadcasting, the
// *_like options (how an empty tensor prints: test_print.cpp), relu of -0 and NaN.
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "reference.hpp"

using namespace wick;
using Catch::Matchers::Contains;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("pytorch edges: clamp with a NaN bound", "[pytorch]") {
  // clamp([0, 1, 2], 0, nan) and clamp(.., nan, 5): all NaN; one NaN bound alone is ignored.
  for (Dtype d : {kFloat32, kFloat64, kBFloat16}) {
    Tensor x = tensor({0.0, 1.0, 2.0}).to(d);
    for (auto [lo, hi] : {std::pair{0.0, kNaN}, std::pair{kNaN, 5.0}, std::pair{kNaN, kNaN}}) {
      std::vector<double> got = clamp(x, lo, hi).to(kFloat64).to_vector<double>();
      for (double v : got) CHECK(std::isnan(v));
    }
    // clamp with one NaN bound ignores it; clamp_min and clamp_max with a NaN bound fill the
    // result with NaN (torch.clamp(x, nan) is x, torch.clamp_min(x, nan) all nan).
    CHECK(clamp(x, kNaN).to(kFloat64).to_vector<double>() == std::vector<double>{0, 1, 2});
    CHECK(clamp(x, std::nullopt, kNaN).to(kFloat64).to_vector<double>() ==
          std::vector<double>{0, 1, 2});
    for (double v : clamp_min(x, kNaN).to(kFloat64).to_vector<double>()) CHECK(std::isnan(v));
    for (double v : clamp_max(x, kNaN).to(kFloat64).to_vector<double>()) CHECK(std::isnan(v));
    CHECK(clamp_min(x, kNaN).dtype() == d);
  }
  // An int64 tensor with a float bound computes in float32: clamp([1, 2], 0, nan) -> [nan, nan],
  // and torch.clamp_min(tensor([1, 2]), nan) is a float32 [nan, nan].
  Tensor i = tensor(std::vector<int64_t>{1, 2});
  for (float v : clamp(i, 0, kNaN).to_vector<float>()) CHECK(std::isnan(v));
  CHECK(clamp_min(i, kNaN).dtype() == kFloat32);
  for (float v : clamp_min(i, kNaN).to_vector<float>()) CHECK(std::isnan(v));
  // The gradient through a NaN bound is zero (x >= nan is false), as PyTorch's.
  Tensor leaf = tensor({1.0, 2.0}, kFloat64).requires_grad_();
  clamp_min(leaf, kNaN).sum().backward();
  CHECK(leaf.grad().to_vector<double>() == std::vector<double>{0, 0});
}

TEST_CASE("pytorch edges: numbers that don't fit the dtype they become", "[pytorch]") {
  // "value cannot be converted to type float without overflow"
  CHECK_THROWS_WITH(zeros({2}).fill_(1e300),
                    Contains("fill_") && Contains("float32") && Contains("overflow"));
  CHECK_THROWS_AS(full({2}, 1e300), ValueError);
  CHECK_THROWS_AS(zeros({2}).fill_(3.4028235678e38), ValueError);  // just past FLT_MAX
  CHECK_THROWS_AS(clamp(zeros({2}), 1e300), ValueError);
  CHECK_THROWS_AS(clamp(tensor(std::vector<int64_t>{1, 2}), 0.5, 1e300), ValueError);
  CHECK_THROWS_AS(zeros({2}, kBFloat16).fill_(3.39e38), ValueError);  // bfloat16 max 3.3895e38
  CHECK(zeros({2}).fill_(3.39e38).to_vector<float>()[0] == 3.39e38f);
  CHECK(zeros({2}, kFloat64).fill_(1e300).to_vector<double>()[0] == 1e300);
  CHECK(std::isinf(zeros({1}).fill_(kInf).to_vector<float>()[0]));  // inf and NaN may become
  CHECK(std::isnan(zeros({1}).fill_(kNaN).to_vector<float>()[0]));  // a float
  CHECK(tensor(std::vector<bool>{true}).fill_(2.5).to_vector<bool>()[0]);
  // The library works on after each error.
  CHECK(full({2}, 2.0).to_vector<float>() == std::vector<float>{2, 2});
  // item<T>(): libtorch's checked conversion.
  CHECK_THROWS_AS(tensor({1e30}).item<int64_t>(), ValueError);
  CHECK_THROWS_AS(tensor({kNaN}).item<int64_t>(), ValueError);
  CHECK_THROWS_AS(tensor({1e300}, kFloat64).item<float>(), ValueError);
  CHECK_THROWS_AS(tensor(std::vector<int64_t>{int64_t{1} << 40}).item<int32_t>(), ValueError);
  CHECK_THROWS_AS(tensor(std::vector<int64_t>{-1}).item<uint32_t>(), ValueError);
  CHECK(tensor(std::vector<int64_t>{std::numeric_limits<int64_t>::max()}).item<int64_t>() ==
        std::numeric_limits<int64_t>::max());
  CHECK(tensor({-2.5}).item<int64_t>() == -2);
  CHECK(tensor({2.5}).item<double>() == 2.5);
  CHECK(std::isnan(tensor({kNaN}).item<float>()));
}

TEST_CASE("pytorch edges: sub with any bool operand is a DtypeError", "[pytorch]") {
  Tensor b = tensor(std::vector<bool>{true}), i = tensor(std::vector<int64_t>{1});
  Tensor f = tensor({1.5});
  CHECK_THROWS_WITH(b - i, Contains("sub") && Contains("bool"));
  CHECK_THROWS_AS(i - b, DtypeError);
  CHECK_THROWS_AS(f - b, DtypeError);
  CHECK_THROWS_AS(i - true, DtypeError);
  CHECK_THROWS_AS(3 - b, DtypeError);
  CHECK_THROWS_AS(sub(i, b, 2), DtypeError);
  CHECK_THROWS_AS(i.clone().sub_(b), DtypeError);
  CHECK_THROWS_AS(i.clone().sub_(b, 2), DtypeError);
  // add with a negative alpha stays allowed: add([1], [True], alpha=-1) -> [0].
  CHECK(add(i, b, -1).to_vector<int64_t>() == std::vector<int64_t>{0});
}

TEST_CASE("pytorch edges: integer tensors to negative integer powers", "[pytorch]") {
  Tensor i = tensor(std::vector<int64_t>{1, 2});
  CHECK_THROWS_WITH(pow(i, -1), Contains("pow") && Contains("negative"));
  // A float exponent computes in float32; a tensor exponent keeps the 0/+-1 rule.
  CHECK(pow(i, -1.0).to_vector<float>() == std::vector<float>{1, 0.5f});
  CHECK(pow(i, tensor(std::vector<int64_t>{-1, 1})).to_vector<int64_t>() ==
        std::vector<int64_t>{1, 2});
}

TEST_CASE("pytorch edges: argmax and argmin refuse bool", "[pytorch]") {
  Tensor b = tensor(std::vector<bool>{true, false});
  CHECK_THROWS_WITH(argmax(b), Contains("argmax") && Contains("bool"));
  CHECK_THROWS_AS(argmin(b, 0), DtypeError);
  CHECK(std::get<1>(max(b, 0)).item<int64_t>() == 0);  // max over a dim works
  // Errors name the op the user called.
  CHECK_THROWS_WITH(argmax(zeros({0})), Contains("argmax"));
  CHECK_THROWS_WITH(amax(zeros({0}), 0), Contains("amax"));
}

TEST_CASE("pytorch edges: arange's integer arithmetic", "[pytorch]") {
  auto ints = [](const Tensor& t) { return t.to_vector<int64_t>(); };
  using V = std::vector<int64_t>;
  // An int64 result converts the numbers to int64 first.
  CHECK(ints(arange(0, 10, 2.5, kInt64)) == V{0, 2, 4, 6, 8});
  CHECK(ints(arange(0, 5.5, 1, kInt64)) == V{0, 1, 2, 3, 4});
  CHECK(ints(arange(-0.5, -5.5, -1.5, kInt64)) == V{0, -1, -2, -3, -4});
  CHECK_THROWS_WITH(arange(0.5, 3, 0.5, kInt64), Contains("step must be nonzero"));
  // Integers count exactly past 2^53.
  const int64_t big = 9007199254740993;  // 2^53 + 1
  CHECK(ints(arange(big, big + 2)) == V{big, big + 1});
  CHECK(ints(arange(-big, -big + 2)) == V{-big, -big + 1});
  CHECK(ints(arange(10, 0, -3)) == V{10, 7, 4, 1});
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  CHECK(ints(arange(lo, hi, int64_t{1} << 62)) == V{lo, lo / 2, 0, int64_t{1} << 62});
  CHECK_THROWS_AS(arange(lo, hi, 1), ShapeError);  // 2^64 - 1 elements
  CHECK(arange(0, 10, 3, kFloat32).to_vector<float>() == std::vector<float>{0, 3, 6, 9});
  CHECK_THROWS_AS(arange(0, 2, 1, kBool), DtypeError);
}

TEST_CASE("pytorch edges: allclose", "[pytorch]") {
  CHECK_FALSE(allclose(tensor({1.0}), tensor({kInf})));
  CHECK_FALSE(allclose(tensor({kInf}), tensor({-kInf})));
  CHECK(allclose(tensor({kInf}), tensor({kInf})));
  CHECK_FALSE(allclose(tensor({kNaN}), tensor({kNaN})));
  CHECK(allclose(tensor({1.0, 1.0}), tensor({1.0})));  // broadcasts
  CHECK(allclose(tensor({1.0}), tensor({1.0, 1.0 + 1e-7})));
  CHECK_FALSE(allclose(tensor({1.0}), tensor({1.0, 1.1})));
  CHECK_THROWS_AS(allclose(tensor({1.0, 2.0}), tensor({1.0, 2.0, 3.0})), ShapeError);
  CHECK_THROWS_AS(allclose(tensor(std::vector<int64_t>{1}), tensor({1.0})), DtypeError);
  CHECK_THROWS_AS(allclose(tensor({1.0}), tensor({1.0}, kFloat64)), DtypeError);
  CHECK(allclose(tensor(std::vector<int64_t>{1}), tensor(std::vector<int64_t>{2}), 0, 1));
  CHECK_THROWS_AS(allclose(tensor({1.0}), tensor({1.0}), -1.0), ValueError);
}

TEST_CASE("pytorch edges: *_like options fill in from the tensor", "[pytorch]") {
  Tensor i = tensor(std::vector<int64_t>{1, 2});
  // zeros_like(int_t, requires_grad=False).dtype -> int64; dtype given -> that dtype.
  CHECK(zeros_like(i, TensorOptions().requires_grad(false)).dtype() == kInt64);
  CHECK(ones_like(i, TensorOptions(kFloat64)).dtype() == kFloat64);
  CHECK(empty_like(i, TensorOptions()).device() == Device(kCPU));
  Tensor w = zeros_like(tensor({1.0, 2.0}), TensorOptions().requires_grad(true));
  CHECK(w.dtype() == kFloat32);
  CHECK(w.requires_grad());
}

TEST_CASE("pytorch edges: add and sub with alpha round once in float32 and float64", "[pytorch]") {
  // PyTorch 1.13 computes a + alpha * b as one fused multiply-add (vec::fmadd), alpha rounded
  // to the dtype first. Pairs where the product rounded first gives another value; golden from
  // torch.add(a, b, alpha=0.1) and torch.sub(a, b, alpha=0.3) (python3-torch, CPU).
  const Tensor a = tensor({-0x1.39ef5ep-4f, 0x1.24fa44p-4f, -0x1.a75ed6p-5f, 0x1.a27d98p-3f});
  const Tensor b = tensor({0x1.76c36p-1f, -0x1.c2b136p-2f, -0x1.629e42p+1f, -0x1.2198eep+1f});
  const std::vector<float> want_add{-0x1.c3fbb6p-9f, 0x1.c2cd86p-6f, -0x1.509daap-2f,
                                    -0x1.66ebf6p-6f};
  CHECK(add(a, b, 0.1).to_vector<float>() == want_add);
  Tensor in_place = a.clone();
  in_place.add_(b, 0.1);
  CHECK(in_place.to_vector<float>() == want_add);
  const Tensor c = tensor({0x1.9edc6ap+0f, -0x1.a75ed6p-5f, -0x1.3951b2p-2f, 0x1.fcee7cp-3f});
  const Tensor d = tensor({0x1.3349d2p+0f, -0x1.629e42p+1f, -0x1.4b2424p-2f, 0x1.fe2adp+0f});
  const std::vector<float> want_sub{0x1.42acaap+0f, 0x1.8f14cap-1f, -0x1.abf41ap-3f,
                                    -0x1.65bc24p-2f};
  CHECK(sub(c, d, 0.3).to_vector<float>() == want_sub);
  Tensor c_in_place = c.clone();
  c_in_place.sub_(d, 0.3);
  CHECK(c_in_place.to_vector<float>() == want_sub);
  // A broadcast operand takes the strided path: the same rounding.
  CHECK(add(a.view({4, 1}).expand({4, 3}), b.view({4, 1}), 0.1).select(1, 2).to_vector<float>() ==
        want_add);
  const Tensor a64 = tensor(
      {0x1.f725e3d133476p-3, -0x1.4b3a197e2e81ap-7, -0x1.10cd60d3c5b25p-4, 0x1.e94b16befe2f0p-5},
      kFloat64);
  const Tensor b64 = tensor(
      {-0x1.c95190aa1caa8p-1, -0x1.29632c0cc42fap-2, -0x1.3d14433e29f6cp+0, -0x1.a2386e93d5065p+0},
      kFloat64);
  const std::vector<double> want_add64{0x1.403876c05b033p-3, -0x1.40b77669c22cfp-5,
                                       -0x1.86107fced1383p-3, -0x1.a8818bf36f591p-4};
  CHECK(add(a64, b64, 0.1).to_vector<double>() == want_add64);
  // Many elements (the vectorised, threaded loop) against std::fma, alpha as a float.
  const Tensor x = randn({100003}), y = randn({100003});
  const std::vector<float> xs = x.to_vector<float>(), ys = y.to_vector<float>();
  const std::vector<float> got = sub(x, y, 0.7).to_vector<float>();
  size_t wrong = 0;
  for (size_t i = 0; i < xs.size(); ++i) wrong += got[i] != std::fma(ys[i], -0.7f, xs[i]);
  CHECK(wrong == 0);
  // alpha becomes a value of the dtype through PyTorch's checked conversion:
  // torch.add(torch.ones(2), torch.ones(2), alpha=1e300) "value cannot be converted to type
  // float without overflow"; float64 takes it, and inf passes.
  CHECK_THROWS_AS(add(a, b, 1e300), ValueError);
  CHECK_THROWS_AS(in_place.sub_(b, -1e39), ValueError);
  const double b0 = -0x1.c95190aa1caa8p-1, a0 = 0x1.f725e3d133476p-3;
  CHECK(add(a64, b64, 1e300).to_vector<double>()[0] == std::fma(b0, 1e300, a0));
  CHECK(std::isinf(add(a, b, kInf).to_vector<float>()[0]));
  // The shape and autograd errors come before alpha's: torch.add(ones(2), ones(3), alpha=1e300)
  // names the sizes, and a leaf that requires grad refuses add_ whatever the alpha.
  CHECK_THROWS_AS(add(ones({2}), ones({3}), 1e300), ShapeError);
  Tensor target = ones({2});
  CHECK_THROWS_AS(target.add_(ones({3}), 1e300), ShapeError);
  Tensor leaf = ones({2}).requires_grad_();
  CHECK_THROWS_AS(leaf.add_(ones({2}), 1e300), AutogradError);
  // An integer alpha becomes a float directly: 2^54 + 2^30 + 1 is 2^54 + 2^31 (through double it
  // would round twice, to 2^54). torch.add(tensor([0.]), tensor([1.]), alpha=2**54+2**30+1).
  CHECK(
      add(tensor({0.0f}), tensor({1.0f}), int64_t{(1LL << 54) + (1LL << 30) + 1}).item<double>() ==
      0x1p54 + 0x1p31);
  // b's gradient is alpha times the incoming one.
  Tensor p = a.clone().requires_grad_(), q = b.clone().requires_grad_();
  sub(p, q, 0.3).sum().backward();
  CHECK(q.grad().to_vector<float>() == std::vector<float>(4, -0.3f));
  CHECK(p.grad().to_vector<float>() == std::vector<float>(4, 1.0f));
}

TEST_CASE("pytorch edges: relu passes -0 and NaN through", "[pytorch]") {
  // torch.relu(torch.tensor([-0., 0., nan, -1., 2.])) is [-0., 0., nan, 0., 2.] in float32 and
  // float64 (1 / result: -inf for the first). Contiguous runs take the vectorised clone, long
  // enough to reach its vector loop, and a strided view the scalar path: the same bits.
  for (Dtype d : {kFloat32, kFloat64, kBFloat16}) {
    std::vector<double> values;
    for (int i = 0; i < 40; ++i) {
      for (double v : {-0.0, 0.0, kNaN, -1.0, 2.0}) values.push_back(v);
    }
    const Tensor x = tensor(values).to(d);
    for (const Tensor& input : {x, x.view({8, 25}).t().contiguous().t()}) {
      const std::vector<double> got = input.relu().to(kFloat64).to_vector<double>();
      const std::vector<double> in = input.to(kFloat64).to_vector<double>();
      for (size_t i = 0; i < got.size(); ++i) {
        if (std::isnan(in[i])) {
          CHECK(std::isnan(got[i]));
        } else if (in[i] < 0) {
          CHECK((got[i] == 0 && !std::signbit(got[i])));
        } else {
          CHECK((got[i] == in[i] && std::signbit(got[i]) == std::signbit(in[i])));
        }
      }
    }
  }
}

TEST_CASE("pytorch edges: signed zeros and infinities through tanh and pow", "[pytorch]") {
  // torch.tanh(tensor([-0.])) is -0. in float32, bfloat16 and float64 (the float32 polynomial
  // gave +0), through the vectorised loop (a long contiguous run) and the strided one.
  for (Dtype d : {kFloat32, kFloat64, kBFloat16}) {
    const Tensor z = full({64}, -0.0, d);
    for (const Tensor& t : {z, z.view({8, 8}).t()}) {
      for (double v : t.tanh().to(kFloat64).to_vector<double>()) {
        CHECK((v == 0 && std::signbit(v)));
      }
    }
  }
  // pow(x, number) as PyTorch 1.13 computes it: 0.5 is sqrt, -0.5 is 1 / sqrt, -1 is 1 / x,
  // 3 is x * x * x, -2 is 1 / (x * x). Golden values from
  // torch.pow(tensor([-0., -inf, 4., nan, 0.]), e) in float32 and float64.
  const std::vector<double> x{-0.0, -kInf, 4.0, kNaN, 0.0};
  const std::vector<std::pair<double, std::vector<double>>> cases{
      {0.5, {-0.0, kNaN, 2.0, kNaN, 0.0}},     {-0.5, {-kInf, kNaN, 0.5, kNaN, kInf}},
      {-1.0, {-kInf, -0.0, 0.25, kNaN, kInf}}, {2.0, {0.0, kInf, 16.0, kNaN, 0.0}},
      {3.0, {-0.0, -kInf, 64.0, kNaN, 0.0}},   {-2.0, {kInf, 0.0, 0.0625, kNaN, kInf}},
      {0.0, {1.0, 1.0, 1.0, 1.0, 1.0}},        {1.0, {-0.0, -kInf, 4.0, kNaN, 0.0}}};
  for (Dtype d : {kFloat32, kFloat64, kBFloat16}) {
    for (const auto& [e, want] : cases) {
      INFO("pow(x, " << e << ") in " << d);
      const std::vector<double> got = pow(tensor(x).to(d), e).to(kFloat64).to_vector<double>();
      for (size_t k = 0; k < want.size(); ++k) {
        if (std::isnan(want[k])) {
          CHECK(std::isnan(got[k]));
        } else {
          CHECK((got[k] == want[k] && std::signbit(got[k]) == std::signbit(want[k])));
        }
      }
    }
  }
  // 1 / (x * x) rounds differently from pow: torch.pow(tensor([0.1]), -2.) is 99.99999237.
  CHECK(pow(tensor({0.1}), -2.0).to_vector<float>()[0] == 1.0f / (0.1f * 0.1f));
  // PyTorch picks sqrt, rsqrt and reciprocal by the exponent as written, not as rounded:
  // torch.pow(tensor([-0., -inf]), 0.50000000001) is [0., inf] (pow), and so is a bfloat16
  // tensor to the power 0.501 (which rounds to 0.5 in bfloat16).
  for (const auto& [d, e] : {std::pair{kFloat32, 0.50000000001}, std::pair{kBFloat16, 0.501}}) {
    const std::vector<double> got =
        pow(tensor({-0.0, -kInf}).to(d), e).to(kFloat64).to_vector<double>();
    CHECK((got[0] == 0 && !std::signbit(got[0]) && got[1] == kInf));
  }
  // The gradient, grad * (e * x^(e-1)), in that order: with an upstream gradient other than 1
  // the other order, (grad * e) * x^(e-1), differs in the last bit (78 of 200 draws). Golden
  // from x.pow(1.5).backward(g) in python3-torch, float32.
  const Tensor x15 = tensor({0x1.cdfd7ap-4f, 0x1.aab586p-2f, 0x1.ea410ap-1f, 0x1.2a616cp+1f});
  const Tensor g15 = tensor({0x1.6bd514p-2f, 0x1.53932ep-1f, 0x1.d6a60ep-1f, 0x1.865da2p-2f});
  Tensor leaf15 = x15.clone().requires_grad_();
  pow(leaf15, 1.5).backward(g15);
  CHECK(leaf15.grad().to_vector<float>() ==
        std::vector<float>{0x1.6e925ap-3f, 0x1.48cef2p-1f, 0x1.5968b8p+0f, 0x1.bf018p-1f});
  // d/dx x^1.5 at -0 is 1.5 * sqrt(-0.) = -0. in PyTorch.
  Tensor leaf = tensor({-0.0, 4.0}, kFloat64).requires_grad_();
  pow(leaf, 1.5).sum().backward();
  const std::vector<double> grad = leaf.grad().to_vector<double>();
  CHECK((grad[0] == 0 && std::signbit(grad[0])));
  CHECK(grad[1] == 3.0);
}

TEST_CASE("pytorch edges: numbers that overflow the result's dtype in where and pow", "[pytorch]") {
  // torch.where(c, tensor([1., 2.]), 1e300): "value cannot be converted to type float without
  // overflow", also with an int64 tensor (the result is float32); float64 holds it, inf passes.
  const Tensor c = tensor(std::vector<bool>{true, false});
  const Tensor f = tensor({1.0, 2.0});
  CHECK_THROWS_AS(where(c, f, Scalar(1e300)), ValueError);
  CHECK_THROWS_AS(where(c, Scalar(1e300), f), ValueError);
  CHECK_THROWS_AS(where(c, tensor(std::vector<int64_t>{1, 2}), Scalar(1e300)), ValueError);
  CHECK(where(c, f.to(kFloat64), Scalar(1e300)).to_vector<double>()[1] == 1e300);
  CHECK(std::isinf(where(c, f, Scalar(kInf)).to_vector<float>()[1]));
  // pow takes a bfloat16 computation's exponent through the checked conversion (torch.pow of a
  // bfloat16 tensor by 1e300 raises); float32 takes it as a double: pow([2.], 1e300) is inf.
  CHECK_THROWS_AS(pow(f.to(kBFloat16), 1e300), ValueError);
  CHECK(std::isinf(pow(f, 1e300).to_vector<float>()[1]));
}

TEST_CASE("pytorch edges: a 0-d tensor's dim listed twice", "[pytorch]") {
  // torch.sum(tensor(3.), [0, -1]): "dim 0 appears multiple times in the list of dims".
  CHECK_THROWS_AS(sum(full({}, 3.0), {0, -1}), IndexError);
  CHECK_THROWS_AS(sum(full({}, 3.0), {0, 0}), IndexError);
  CHECK(sum(full({}, 3.0), Shape{-1}).item<double>() == 3.0);
}

TEST_CASE("pytorch edges: sigmoid and tanh gradients round as PyTorch's kernels", "[pytorch]") {
  // torch.ops.aten.tanh_backward(g, y) computes g * (1 - y * y) with 1 - y * y as one fused
  // multiply-add, and sigmoid_backward(g, y) as (g * (1 - y)) * y. Pairs where the other
  // roundings (g * (1 - y * y) rounded twice; g * y * (1 - y)) give another value; golden from
  // python3-torch 1.13 on the CPU. backward() of tanh and sigmoid gives the same bits.
  const Tensor g = tensor({-0x1.39ef5ep-4f, 0x1.7084c8p-2f, -0x1.25a9bcp-2f, 0x1.9edc6ap+0f});
  const Tensor y = tensor({-0x1.da80fcp-1f, 0x1.c7e28cp-1f, 0x1.7b954p-1f, 0x1.97ae36p-1f});
  const std::vector<float> want_tanh{-0x1.626292p-7f, 0x1.3168dcp-4f, -0x1.0882fep-3f,
                                     0x1.2faa4ep-1f};
  CHECK(tanh_backward(g, y).to_vector<float>() == want_tanh);
  // Broadcast (the strided loop) and float64.
  CHECK(tanh_backward(g.view({4, 1}).expand({4, 3}), y.view({4, 1}))
            .select(1, 1)
            .to_vector<float>() == want_tanh);
  const Tensor g64 = tensor({0x1.bc06c18c03158p+0, 0x1.700dc387767e5p+0}, kFloat64);
  const Tensor y64 = tensor({-0x1.427130c660a03p-2, 0x1.48354225bd169p-1}, kFloat64);
  CHECK(tanh_backward(g64, y64).to_vector<double>() ==
        std::vector<double>{0x1.900003f6216e4p+0, 0x1.b1a017faa6cc2p-1});
  const Tensor g2 = tensor({0x1.09ab94p-1f, -0x1.130faap-2f, -0x1.36c48ep-6f, -0x1.762dcp-1f});
  const Tensor y2 = tensor({0x1.cb7a98p-3f, 0x1.cbf4f6p-6f, 0x1.e27836p-3f, 0x1.f9f36cp-1f});
  CHECK(sigmoid_backward(g2, y2).to_vector<float>() ==
        std::vector<float>{0x1.71dae4p-4f, -0x1.e05484p-8f, -0x1.bfb5f4p-9f, -0x1.1796dep-7f});
  // Through autograd: tanh's result is y exactly when y = tanh(x); ask backward for g.
  const Tensor x = randn({1000}).requires_grad_(true);
  const Tensor gx = randn({1000});
  const Tensor t = x.tanh();
  t.backward(gx);
  CHECK(x.grad().to_vector<float>() == tanh_backward(gx, t.detach()).to_vector<float>());
  CHECK_THROWS_AS(tanh_backward(ones({2}, kInt64), ones({2}, kInt64)), DtypeError);
  CHECK_THROWS_AS(sigmoid_backward(ones({2}, kBool), ones({2}, kBool)), DtypeError);
  // Mixed dtypes promote as any binary op (torch.ops.aten.*_backward agree): the operands
  // are cast to the result's dtype first.
  const Tensor gi = tensor(std::vector<int64_t>{3, -2, 5});
  const Tensor yb = tensor({0.25f, 0.5f, -0.75f}).to(kBFloat16);
  const Tensor mixed = sigmoid_backward(gi, yb);
  CHECK(mixed.dtype() == kBFloat16);
  CHECK(equal(mixed, sigmoid_backward(gi.to(kBFloat16), yb)));
  const Tensor yd = tensor({0.1, -0.3, 0.7}, kFloat64);
  CHECK(tanh_backward(g2.narrow(0, 0, 3), yd).dtype() == kFloat64);
  CHECK(equal(tanh_backward(g2.narrow(0, 0, 3), yd),
              tanh_backward(g2.narrow(0, 0, 3).to(kFloat64), yd)));
}

TEST_CASE("pytorch edges: cat's promotion and legacy empty tensors", "[pytorch]") {
  // python3-torch 1.13: torch.cat([torch.zeros(0, dtype=torch.int64), torch.ones(2, 3)]) is a
  // float32 [2, 3] (the skipped [0] tensor still takes part in the promotion);
  // torch.cat([torch.zeros(0), torch.zeros(0, dtype=torch.float64)]) a float64 [0], for any
  // dim (torch.cat([torch.zeros(0)], 1), (.., -2) give [0]); torch.cat([tensor([True]),
  // tensor([2])]) is int64 [1, 2]; torch.cat([torch.zeros(0, 3), ones(2, 3)]) is [2, 3].
  Tensor joined = cat({zeros({0}, TensorOptions(kInt64)), ones({2, 3})});
  CHECK(joined.dtype() == kFloat32);
  CHECK(joined.sizes() == std::vector<int64_t>{2, 3});
  Tensor empties = cat({zeros({0}), zeros({0}, TensorOptions(kFloat64))});
  CHECK(empties.dtype() == kFloat64);
  CHECK(empties.sizes() == std::vector<int64_t>{0});
  CHECK(cat({zeros({0})}, 1).sizes() == std::vector<int64_t>{0});
  CHECK(cat({zeros({0})}, -2).sizes() == std::vector<int64_t>{0});
  Tensor mixed = cat({tensor(std::vector<bool>{true}), tensor(std::vector<int64_t>{2})});
  CHECK(mixed.dtype() == kInt64);
  CHECK(mixed.to_vector<int64_t>() == std::vector<int64_t>{1, 2});
  CHECK(cat({zeros({0, 3}), ones({2, 3})}).sizes() == std::vector<int64_t>{2, 3});
  // x = torch.zeros(0, requires_grad=True); y = torch.ones(2, 3, requires_grad=True);
  // torch.cat([x, y]).sum().backward(): x.grad is tensor([]), y.grad ones.
  Tensor x = zeros({0}).requires_grad_(), y = ones({2, 3}).requires_grad_();
  cat({x, y}).sum().backward();
  REQUIRE(x.grad().defined());
  CHECK(x.grad().sizes() == std::vector<int64_t>{0});
  CHECK(y.grad().to_vector<float>() == std::vector<float>(6, 1.0f));
}

TEST_CASE("pytorch edges: stack leaves its inputs writable in place", "[pytorch]") {
  // x = torch.ones(2, 3, requires_grad=True); a = x * 2; s = torch.stack([a, a]); a.add_(1);
  // s.sum().backward(): allowed, x.grad.sum() is 24 (a's two slices, times 2). And
  // torch.stack([ones(2), ones(3)], 5) is an IndexError: the dim is checked first.
  Tensor x = ones({2, 3}).requires_grad_();
  Tensor a = x * 2.0;
  Tensor s = stack({a, a});
  a.add_(1.0);
  s.sum().backward();
  CHECK(x.grad().sum().item<float>() == 24.0f);
  CHECK_THROWS_AS(stack({ones({2}), ones({3})}, 5), IndexError);
}

TEST_CASE("pytorch edges: log1p and expm1 near zero and at their edges", "[pytorch]") {
  // torch.log1p / torch.expm1 (1.13): exact near 0, where log(1 + x) and exp(x) - 1 lose every
  // digit; log1p(-1) = -inf, log1p(x < -1) = nan; expm1(-inf) = -1; signed zeros kept;
  // integers compute in float32.
  for (Dtype d : {kFloat32, kFloat64}) {
    Tensor tiny = tensor({1e-10, -1e-10}).to(d);
    std::vector<double> l = tiny.log1p().to(kFloat64).to_vector<double>();
    std::vector<double> e = tiny.expm1().to(kFloat64).to_vector<double>();
    // Against the float64 functions of the values the dtype holds, to its rounding.
    const std::vector<double> x = tiny.to(kFloat64).to_vector<double>();
    const double rel = d == kFloat32 ? 2e-7 : 4e-16;
    for (size_t i = 0; i < 2; ++i) {
      CHECK(std::abs(l[i] - std::log1p(x[i])) <= rel * std::abs(std::log1p(x[i])));
      CHECK(std::abs(e[i] - std::expm1(x[i])) <= rel * std::abs(std::expm1(x[i])));
    }
    CHECK((tiny + 1).log().to(kFloat64).to_vector<double>()[0] != l[0]);  // why the op exists

    std::vector<double> edges =
        tensor({-1.0, -2.0, 0.0, -0.0, kInf}).to(d).log1p().to(kFloat64).to_vector<double>();
    CHECK(edges[0] == -kInf);
    CHECK(std::isnan(edges[1]));
    CHECK((edges[2] == 0.0 && !std::signbit(edges[2])));
    CHECK((edges[3] == 0.0 && std::signbit(edges[3])));
    CHECK(edges[4] == kInf);
    std::vector<double> em =
        tensor({-kInf, -0.0, kInf, kNaN}).to(d).expm1().to(kFloat64).to_vector<double>();
    CHECK(em[0] == -1.0);
    CHECK((em[1] == 0.0 && std::signbit(em[1])));
    CHECK(em[2] == kInf);
    CHECK(std::isnan(em[3]));
  }
  Tensor ints = tensor({0, 1, 3}).to(kInt64);
  CHECK(ints.log1p().dtype() == kFloat32);
  CHECK(ints.expm1().dtype() == kFloat32);
  CHECK(ints.log1p().to(kFloat64).to_vector<double>()[2] == static_cast<double>(std::log1p(3.0f)));
}

TEST_CASE("pytorch edges: floor, ceil, round, trunc and sign keep signed zeros and ties to even",
          "[pytorch]") {
  // torch 1.13 on {-0.5, 0.5, 1.5, 2.5, -2.5, -0.4, 0, -0, inf, -inf, nan}.
  const std::vector<double> x{-0.5, 0.5, 1.5, 2.5, -2.5, -0.4, 0.0, -0.0, kInf, -kInf, kNaN};
  const std::map<std::string, std::vector<double>> expected{
      {"floor", {-1, 0, 1, 2, -3, -1, 0, -0.0, kInf, -kInf, kNaN}},
      {"ceil", {-0.0, 1, 2, 3, -2, -0.0, 0, -0.0, kInf, -kInf, kNaN}},
      {"round", {-0.0, 0, 2, 2, -2, -0.0, 0, -0.0, kInf, -kInf, kNaN}},
      {"trunc", {-0.0, 0, 1, 2, -2, -0.0, 0, -0.0, kInf, -kInf, kNaN}},
      {"sign", {-1, 1, 1, 1, -1, -1, 0, 0, 1, -1, 0}},
  };
  for (Dtype d : {kFloat32, kFloat64, kBFloat16}) {
    const Tensor t = tensor(x).to(d);
    for (const auto& [name, want] : expected) {
      const Tensor r = name == "floor"   ? t.floor()
                       : name == "ceil"  ? t.ceil()
                       : name == "round" ? t.round()
                       : name == "trunc" ? t.trunc()
                                         : t.sign();
      INFO(name << " of " << describe(t));
      CHECK(r.dtype() == d);
      const std::vector<double> got = r.to(kFloat64).to_vector<double>();
      for (size_t i = 0; i < x.size(); ++i) {
        INFO("x = " << x[i]);
        if (std::isnan(want[i])) {
          CHECK(std::isnan(got[i]));
        } else {
          CHECK(got[i] == want[i]);
          CHECK(std::signbit(got[i]) == std::signbit(want[i]));
        }
      }
    }
  }
  // Integers pass through in their dtype (2^62 + 1 would not survive a trip through double);
  // bool: a DtypeError naming the op, except sign, which is the identity.
  const Tensor big = tensor(std::vector<int64_t>{(int64_t{1} << 62) + 1, -7});
  for (const Tensor& r : {big.floor(), big.ceil(), big.round(), big.trunc()}) {
    CHECK(r.dtype() == kInt64);
    CHECK(r.to_vector<int64_t>() == big.to_vector<int64_t>());
  }
  CHECK(big.sign().to_vector<int64_t>() == std::vector<int64_t>{1, -1});
  const Tensor flags = tensor(std::vector<bool>{true, false});
  CHECK_THROWS_WITH(flags.floor(), Contains("floor") && Contains("bool"));
  CHECK_THROWS_AS(flags.round(), DtypeError);
  CHECK(flags.sign().dtype() == kBool);
  CHECK(flags.sign().to_vector<bool>() == std::vector<bool>{true, false});
  // Their gradients are zeros, as PyTorch's (sign at 0 included).
  Tensor v = tensor({1.5, -2.0, 0.0}).requires_grad_();
  (v.floor() + v.ceil() + v.round() + v.trunc() + v.sign()).sum().backward();
  CHECK(v.grad().to_vector<float>() == std::vector<float>{0, 0, 0});
}

TEST_CASE("pytorch edges: sin, cos, rsqrt and reciprocal", "[pytorch]") {
  // torch 1.13 float32 sin and cos: within 1 ulp at large arguments (full range reduction).
  const Tensor z = tensor({1e6f, 12345.678f, 3.0f, 1e30f});
  const std::vector<float> sin_torch{-0x1.6664b2p-2f, -0x1.689610p-1f, 0x1.210386p-3f,
                                     -0x1.951360p-1f};
  const std::vector<float> cos_torch{0x1.df9dfap-1f, 0x1.6b7c40p-1f, -0x1.fae04cp-1f,
                                     -0x1.392444p-1f};
  const std::vector<float> s = z.sin().to_vector<float>(), c = z.cos().to_vector<float>();
  for (size_t i = 0; i < s.size(); ++i) {
    CHECK(std::abs(s[i] - sin_torch[i]) <=
          std::abs(std::nextafter(sin_torch[i], 0.f) - sin_torch[i]));
    CHECK(std::abs(c[i] - cos_torch[i]) <=
          std::abs(std::nextafter(cos_torch[i], 0.f) - cos_torch[i]));
  }
  // bfloat16 computes in float32 and rounds once: torch's values exactly.
  const Tensor b = tensor({0.5, 1.0, 100.0, 3.140625}).to(kBFloat16);
  CHECK(b.sin().to(kFloat64).to_vector<double>() ==
        std::vector<double>{0.478515625, 0.83984375, -0.5078125, 0.00096893310546875});
  CHECK(b.cos().to(kFloat64).to_vector<double>() ==
        std::vector<double>{0.87890625, 0.5390625, 0.86328125, -1.0});
  CHECK(b.rsqrt().to(kFloat64).to_vector<double>() ==
        std::vector<double>{1.4140625, 1.0, 0.10009765625, 0.5625});
  CHECK(b.reciprocal().to(kFloat64).to_vector<double>() ==
        std::vector<double>{2.0, 1.0, 0.010009765625, 0.318359375});
  // Zeros, infinities and negatives.
  const Tensor y = tensor({0.0, -0.0, 4.0, kInf, -1.0});
  const std::vector<double> r = y.rsqrt().to(kFloat64).to_vector<double>();
  CHECK((r[0] == kInf && r[1] == -kInf && r[2] == 0.5 && r[3] == 0.0 && std::isnan(r[4])));
  CHECK(y.reciprocal().to(kFloat64).to_vector<double>() ==
        std::vector<double>{kInf, -kInf, 0.25, 0.0, -1.0});
  // Integers and bools compute in float32.
  const Tensor ints = tensor(std::vector<int64_t>{1, -2, 4});
  CHECK(ints.reciprocal().dtype() == kFloat32);
  CHECK(ints.reciprocal().to_vector<float>() == std::vector<float>{1.0f, -0.5f, 0.25f});
  CHECK(tensor(std::vector<bool>{true, false}).rsqrt().to_vector<float>() ==
        std::vector<float>{1.0f, std::numeric_limits<float>::infinity()});
  CHECK(ints.sin().dtype() == kFloat32);
}
