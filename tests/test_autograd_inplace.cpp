// test_autograd_inplace.cpp: in-place ops on tensors of a graph (add_, sub_, mul_, div_, clamp_,
// copy_) are recorded as PyTorch records them: the written tensor takes a new grad_fn whose
// input is its old value. Each expected gradient is PyTorch 1.13's for the same program. What
// wick refuses (PyTorch rebases views; wick does not) is refused with an AutogradError.
// Found by review: buf.add_(x) used to drop x's gradient silently.
#include "reference.hpp"

using namespace wick;

namespace {
std::vector<float> values(const Tensor& t) { return t.to(kFloat32).to_vector<float>(); }
}  // namespace

TEST_CASE("autograd in place: an operand that requires grad gives its gradient", "[autograd]") {
  // buf = zeros(3); buf.add_(x); (w * buf).sum().backward() -> x.grad [1, 2, 3] (w's values)
  Tensor x = ones({3}).requires_grad_();
  Tensor w = tensor({1.0, 2.0, 3.0}).requires_grad_();
  Tensor buf = zeros({3});
  buf.add_(x);
  CHECK(buf.requires_grad());
  (w * buf).sum().backward();
  CHECK(values(x.grad()) == std::vector<float>{1, 2, 3});
  CHECK(values(w.grad()) == std::vector<float>{1, 1, 1});
}

TEST_CASE("autograd in place: ops on a non-leaf extend its history", "[autograd]") {
  Tensor x = tensor({1.0, 2.0, 3.0}).requires_grad_();
  SECTION("add_ of a number") {
    Tensor y = x * 2.0;
    y.add_(1.0);
    y.sum().backward();
    CHECK(values(x.grad()) == std::vector<float>{2, 2, 2});
  }
  SECTION("mul_ by itself reads the old value") {
    Tensor y = x * 2.0;
    y.mul_(y);  // 4 x^2 -> 8 x
    y.sum().backward();
    CHECK(values(x.grad()) == std::vector<float>{8, 16, 24});
  }
  SECTION("mul_ and div_ by a tensor that requires grad") {
    Tensor w = tensor({2.0, 4.0, 8.0}).requires_grad_();
    Tensor y = x * 2.0;
    y.mul_(w);  // 2 x w
    y.div_(w.sum());
    y.sum().backward();
    // d/dx = 2 w / 14 = [2/7, 4/7, 8/7]; d/dw_j = 2 x_j / 14 - sum(2 x w) / 14^2
    std::vector<float> gx = values(x.grad()), gw = values(w.grad());
    const double s = 14.0, total = 2.0 * (1 * 2 + 2 * 4 + 3 * 8);
    for (int j = 0; j < 3; ++j) {
      const double xj = j + 1.0, wj = std::vector<double>{2, 4, 8}[static_cast<size_t>(j)];
      CHECK(gx[static_cast<size_t>(j)] == Approx(2 * wj / s));
      CHECK(gw[static_cast<size_t>(j)] == Approx(2 * xj / s - total / (s * s)));
    }
  }
  SECTION("sub_ with alpha") {
    Tensor w = ones({3}).requires_grad_();
    Tensor y = x * 1.0;
    y.sub_(w, 2);
    y.sum().backward();
    CHECK(values(x.grad()) == std::vector<float>{1, 1, 1});
    CHECK(values(w.grad()) == std::vector<float>{-2, -2, -2});
  }
  SECTION("clamp_") {
    Tensor z = tensor({0.0, 1.0, 2.0, 3.0}).requires_grad_();
    Tensor y = z * 1.0;
    y.clamp_(0.5, 2.5);
    y.sum().backward();
    CHECK(values(z.grad()) == std::vector<float>{0, 1, 1, 0});
  }
  SECTION("an operand of another dtype") {
    Tensor y = ones({3}, kFloat64) * 1.0;
    y.add_(x);  // float64 += float32
    y.sum().backward();
    CHECK(x.grad().dtype() == kFloat32);
    CHECK(values(x.grad()) == std::vector<float>{1, 1, 1});
  }
}

TEST_CASE("autograd in place: copy_ passes the gradient to its source", "[autograd]") {
  Tensor x = tensor({1.0, 2.0, 3.0}).requires_grad_();
  Tensor y = zeros({2, 3});
  y.copy_(x);  // broadcast: each row is x
  (y * y).sum().backward();
  CHECK(values(x.grad()) == std::vector<float>{4, 8, 12});
  // The overwritten value's history gets zeros, as PyTorch's CopyBackwards: with torch 1.13,
  // x = tensor([1., 2., 3.], requires_grad=True); z = x * 2; z.copy_(ones(3)) (or from w * 2);
  // (z * z).sum().backward() gives x.grad = [0., 0., 0.] (and w.grad = [4., 8., 12.]).
  SECTION("from a constant: the tensor stays in the graph") {
    Tensor z = x * 2.0;
    z.copy_(ones({3}));
    CHECK(z.requires_grad());
    x.mutable_grad() = Tensor();
    (z * z).sum().backward();
    REQUIRE(x.grad().defined());
    CHECK(values(x.grad()) == std::vector<float>{0, 0, 0});
  }
  SECTION("from another graph") {
    Tensor w = tensor({1.0, 2.0, 3.0}).requires_grad_();
    Tensor z = x * 1.0;
    z.copy_(w * 2.0);
    x.mutable_grad() = Tensor();
    (z * z).sum().backward();
    REQUIRE(x.grad().defined());
    CHECK(values(x.grad()) == std::vector<float>{0, 0, 0});
    CHECK(values(w.grad()) == std::vector<float>{8, 16, 24});
  }
  SECTION("into int64 or bool: not differentiable, as torch's (found by review)") {
    for (Dtype d : {kInt64, kBool}) {
      Tensor target = zeros({3}, d);
      target.copy_(x);
      CHECK_FALSE(target.requires_grad());
      CHECK_THROWS_AS(target.to(kFloat32).sum().backward(), AutogradError);
    }
  }
}

TEST_CASE("autograd in place: what wick refuses, and the version check", "[autograd]") {
  Tensor x = tensor({1.0, 2.0, 3.0}).requires_grad_();
  SECTION("a tensor saved for backward, changed afterwards") {
    Tensor y = x * 2.0;
    Tensor s = (y * y).sum();  // saves y
    y.add_(1.0);
    CHECK_THROWS_WITH(s.backward(), Catch::Contains("modified by an in-place operation"));
  }
  SECTION("views in the graph, and tensors that have them") {
    Tensor y = x * 2.0;
    Tensor v = y.narrow(0, 0, 2);
    CHECK_THROWS_WITH(v.add_(1.0), Catch::Contains("view"));
    CHECK_THROWS_AS(y.add_(1.0), AutogradError);
    CHECK_THROWS_AS(x.view({3}).mul_(2.0), AutogradError);
    // Nothing was written: the library goes on.
    (v.sum() + y.sum()).backward();
    CHECK(values(x.grad()) == std::vector<float>{4, 4, 2});
  }
  SECTION("a view made under NoGradGuard, written with grad mode on") {
    Tensor v;
    {
      NoGradGuard guard;
      v = x.view({3});
    }
    CHECK_THROWS_WITH(v.add_(1.0), Catch::Contains("NoGradGuard"));
    {
      NoGradGuard guard;
      v.add_(1.0);  // as an optimizer does
    }
    CHECK(values(x) == std::vector<float>{2, 3, 4});
    Tensor d = x.detach();  // detach() is not such a view: writable, version-checked
    d.mul_(1.0);
  }
  SECTION("a tensor outside the graph that shares its storage") {
    // PyTorch would give buf a history through the view; wick refuses rather than lose it.
    Tensor buf = zeros({4});
    Tensor v = buf.narrow(0, 0, 3);
    CHECK_THROWS_WITH(v.add_(x), Catch::Contains("share"));
    CHECK_THROWS_AS(buf.narrow(0, 1, 3).mul_(x), AutogradError);
    CHECK(values(buf) == std::vector<float>{0, 0, 0, 0});  // nothing written
    buf.narrow(0, 0, 3).clone().add_(x);                   // a copy is fine
    v = Tensor();                                          // the view gone, buf is alone again
    buf.narrow(0, 0, 3).mul_(2.0);  // no operand requires grad: nothing to record
    buf.add_(x.sum());
    CHECK(buf.requires_grad());
  }
  SECTION("ops that are not recorded in place") {
    Tensor y = x * 2.0;
    CHECK_THROWS_AS(y.fill_(0.0), AutogradError);
    CHECK_THROWS_AS(y.zero_(), AutogradError);
  }
}

// Each gradient reads only the saved inputs it needs, as PyTorch saves them: an operand
// changed in place (under NoGradGuard, as a weight update) is no error when no gradient reads
// its values. Values from torch 1.13 (float64): w = [[1, 2], [3, 4]], x = [[1, 1], [2, 2]],
// loss = (x @ w).sum(); w *= 3 under no_grad; backward gives w.grad = [[3, 3], [3, 3]];
// (w @ x).sum() gives [[2, 4], [2, 4]]; (w / c).sum() with c = [2, 4] gives [0.5, 0.25].
TEST_CASE("autograd in place: the version check covers only the values a gradient reads",
          "[autograd]") {
  const TensorOptions f64 = TensorOptions().dtype(kFloat64);
  Tensor w = tensor({1.0, 2.0, 3.0, 4.0}, f64).reshape({2, 2}).requires_grad_();
  Tensor x = tensor({1.0, 1.0, 2.0, 2.0}, f64).reshape({2, 2});
  auto scale_w = [&] {
    NoGradGuard guard;
    w.mul_(3.0);
  };
  SECTION("matmul: the weight's gradient reads the input, not the weight") {
    Tensor loss = matmul(x, w).sum();
    scale_w();
    loss.backward();
    CHECK(w.grad().to_vector<double>() == std::vector<double>{3, 3, 3, 3});
    Tensor loss2 = matmul(w, x).sum();
    scale_w();
    w.mutable_grad() = Tensor();
    loss2.backward();
    CHECK(w.grad().to_vector<double>() == std::vector<double>{2, 4, 2, 4});
  }
  SECTION("matmul: a transposed weight, as Linear's") {
    Tensor loss = matmul(x, w.t()).sum();
    scale_w();
    loss.backward();
    CHECK(w.grad().to_vector<double>() == std::vector<double>{3, 3, 3, 3});
  }
  SECTION("matmul: the input's gradient reads the weight, still checked") {
    Tensor xg = x.clone().requires_grad_();
    Tensor loss = matmul(xg, w).sum();
    scale_w();
    CHECK_THROWS_WITH(loss.backward(), Catch::Contains("modified by an in-place operation"));
  }
  SECTION("div: the dividend's gradient reads the divisor only") {
    Tensor v = tensor({1.0, 2.0}, f64).requires_grad_();
    Tensor c = tensor({2.0, 4.0}, f64);
    Tensor loss = (v / c).sum();
    {
      NoGradGuard guard;
      v.mul_(3.0);
    }
    loss.backward();
    CHECK(v.grad().to_vector<double>() == std::vector<double>{0.5, 0.25});
    Tensor loss2 = (c / v).sum();  // the divisor's gradient reads both
    {
      NoGradGuard guard;
      v.mul_(3.0);
    }
    CHECK_THROWS_WITH(loss2.backward(), Catch::Contains("modified by an in-place operation"));
  }
  SECTION("max and min over a dim: the gradient reads the indices, not the input") {
    // Found by review: wick refused this backward; PyTorch gives each index its gradient.
    Tensor a = tensor({1.0, 5.0, 2.0, 7.0, 3.0, 0.0}, f64).reshape({2, 3}).requires_grad_();
    Tensor b = a * 1.0;
    auto [hi, hi_at] = b.max(1);
    auto [lo, lo_at] = b.min(1, true);
    b.add_(1.0);
    (hi.sum() + 2.0 * lo.sum()).backward();
    CHECK(a.grad().to_vector<double>() == std::vector<double>{2, 1, 0, 1, 0, 2});
    // Over every element the rule compares the input with the result: still checked.
    Tensor c = a * 1.0;
    Tensor top = c.max();
    c.add_(1.0);
    CHECK_THROWS_WITH(top.backward(), Catch::Contains("modified by an in-place operation"));
  }
}

TEST_CASE("autograd in place: a retained gradient is that of the value after the write",
          "[autograd]") {
  // a = [1, 2]; x = a * 2; x.retain_grad(); x.mul_(3); (x * x).sum().backward()
  // PyTorch: x.grad [12, 24] (2 * x of the new value), a.grad [72, 144].
  Tensor a = tensor({1.0f, 2.0f}).requires_grad_();
  Tensor x = a * 2.0;
  x.retain_grad();
  x.mul_(3.0);
  (x * x).sum().backward();
  CHECK(x.grad().to_vector<float>() == std::vector<float>{12, 24});
  CHECK(a.grad().to_vector<float>() == std::vector<float>{72, 144});
}
