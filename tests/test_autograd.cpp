// test_autograd.cpp: the tape's behaviour: accumulation, broadcasting, shared
// subexpressions, retain_graph, the errors (non-scalar root, second backward, in-place change
// of a saved tensor, in-place on a leaf), NoGradGuard and detach, retain_grad.
#include "reference.hpp"

using namespace wick;

TEST_CASE("autograd: gradients accumulate until zeroed", "[autograd]") {
  Tensor w = tensor({1.0, 2.0, 3.0}).requires_grad_();
  (w * w).sum().backward();
  CHECK(w.grad().to_vector<float>() == std::vector<float>{2, 4, 6});
  const Tensor held = w.grad();
  (w * 3.0).sum().backward();
  CHECK(w.grad().to_vector<float>() == std::vector<float>{5, 7, 9});
  CHECK(held.is_same(w.grad()));  // accumulated in place, as PyTorch
  w.mutable_grad() = Tensor();
  CHECK_FALSE(w.grad().defined());
  Tensor fresh = ones({2}).requires_grad_();
  CHECK_FALSE(fresh.grad().defined());
}

TEST_CASE("autograd: a first gradient is the leaf's own buffer, taken without a copy when free",
          "[autograd]") {
  // A fresh gradient that nothing else holds (matmul's, here) becomes .grad itself, as
  // PyTorch's AccumulateGrad steals it; whatever is shared is copied, so that no two leaves,
  // and no leaf and the caller, ever share a gradient buffer.
  // Counted through the CPU allocator's large-block requests (1 MiB here): the first backward,
  // which sets .grad, asks for no more buffers than the second, which adds into it in place.
  // (Without the block cache, under AddressSanitizer, nothing is counted.)
  const auto requests = [] {
    const cpu::CacheStats stats = cpu::cache_stats();
    return stats.reuses + stats.allocations;
  };
  Tensor w = randn({512, 512}).requires_grad_();
  Tensor x = randn({4, 512});
  Tensor first_loss = matmul(x, w).sum(), second_loss = matmul(x, w).sum();
  int64_t before = requests();
  first_loss.backward();
  const int64_t first = requests() - before;
  before = requests();
  second_loss.backward();
  CHECK(first == requests() - before);
  CHECK(w.grad().storage().use_count() == 1);
  CHECK(w.grad().is_contiguous());
  // a + b hands one gradient tensor to both leaves: each must own a copy.
  Tensor a = zeros({3}).requires_grad_(), b = zeros({3}).requires_grad_();
  (a + b).sum().backward();
  CHECK(a.grad().storage() != b.grad().storage());
  a.mutable_grad().mul_(5.0);
  CHECK(b.grad().to_vector<float>() == std::vector<float>{1, 1, 1});
  // The caller's seed, passed to a leaf's own backward, stays the caller's.
  Tensor leaf = zeros({2}).requires_grad_();
  Tensor seed = ones({2});
  leaf.backward(seed);
  CHECK(leaf.grad().storage() != seed.storage());
  seed.mul_(3.0);
  CHECK(leaf.grad().to_vector<float>() == std::vector<float>{1, 1});
  // A gradient that reaches the leaf as a transposed view is laid out as the leaf.
  Tensor v = zeros({2, 3}).requires_grad_();
  (v.t() * arange(6).view({3, 2})).sum().backward();
  CHECK(v.grad().is_contiguous());
  CHECK(v.grad().to_vector<float>() == std::vector<float>{0, 2, 4, 1, 3, 5});
}

TEST_CASE("autograd: broadcasting and shared subexpressions", "[autograd]") {
  Tensor a = tensor({1.0, 2.0}).view({2, 1}).requires_grad_();
  Tensor b = tensor({10.0, 20.0, 30.0}).requires_grad_();
  Tensor c = a * b;                 // [2, 3]
  Tensor loss = (c + c * c).sum();  // c used twice
  loss.backward();
  // d/da sum(c + c^2) = sum_j b_j (1 + 2 a b_j)
  CHECK(a.grad().sizes() == std::vector<int64_t>{2, 1});
  CHECK(a.grad().to_vector<float>() == std::vector<float>{60 + 2 * 1400, 60 + 4 * 1400});
  CHECK(b.grad().sizes() == std::vector<int64_t>{3});
  std::vector<float> gb = b.grad().to_vector<float>();
  for (int j = 0; j < 3; ++j) {
    double bj = 10.0 * (j + 1);
    CHECK(gb[j] == Approx((1 + 2 * 1 * bj) * 1 + (1 + 2 * 2 * bj) * 2));
  }
  CHECK(grad_fn_name(loss) == "sum");
  CHECK(a.is_leaf());
  CHECK_FALSE(c.is_leaf());
}

TEST_CASE("autograd: backward with a gradient, retain_graph and the second-backward error",
          "[autograd]") {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor y = x.exp();
  CHECK_THROWS_AS(y.backward(), AutogradError);  // not a scalar
  y.backward(tensor({1.0, 0.5}), true);
  std::vector<float> g1 = x.grad().to_vector<float>();
  CHECK(g1[0] == Approx(std::exp(1.0)));
  CHECK(g1[1] == Approx(0.5 * std::exp(2.0)));
  y.backward(tensor({1.0, 0.5}));  // allowed: the graph was retained
  CHECK(x.grad().to_vector<float>()[0] == Approx(2 * std::exp(1.0)));
  CHECK_THROWS_AS(y.backward(tensor({1.0, 0.5})), AutogradError);  // freed now
  CHECK_THROWS_AS(y.backward(ones({3})), ShapeError);
}

TEST_CASE("autograd: in-place changes are caught", "[autograd]") {
  Tensor w = ones({3}).requires_grad_();
  CHECK_THROWS_AS(w.add_(1.0), AutogradError);  // a leaf that requires grad
  Tensor x = ones({3});
  Tensor y = (w * x).sum();  // saves x
  x.mul_(2.0);               // x changed after it was saved
  try {
    y.backward();
    FAIL("no error");
  } catch (const AutogradError& e) {
    CHECK_THAT(e.what(), Catch::Matchers::Contains("modified by an in-place operation"));
  }
  // Under NoGradGuard, updating a parameter in place is how optimizers work.
  {
    NoGradGuard guard;
    w.add_(1.0);
  }
  CHECK(w.to_vector<float>() == std::vector<float>{2, 2, 2});
  Tensor z = w * 2.0;
  CHECK_THROWS_AS(z.fill_(1.0), AutogradError);  // part of a graph, and fill_ isn't recorded
  // add_ is recorded in place (tests/test_autograd_inplace.cpp).
}

TEST_CASE("autograd: NoGradGuard, detach, requires_grad_", "[autograd]") {
  Tensor w = ones({2}).requires_grad_();
  {
    NoGradGuard guard;
    CHECK_FALSE((w * 2.0).requires_grad());
    {
      EnableGradGuard enable;
      CHECK((w * 2.0).requires_grad());
    }
  }
  CHECK((w * 2.0).requires_grad());
  CHECK_FALSE(w.detach().requires_grad());
  CHECK_FALSE((w.detach() * 2.0).requires_grad());
  Tensor plain = ones({2});
  CHECK_THROWS_AS(plain.backward(), AutogradError);
  Tensor nonleaf = w * 2.0;
  CHECK_THROWS_AS(nonleaf.requires_grad_(false), AutogradError);
  w.requires_grad_(false);
  CHECK_FALSE(w.requires_grad());
  // Ops that are not differentiable give results without grad.
  Tensor v = ones({3}).requires_grad_();
  CHECK_FALSE((v > 0).requires_grad());
  CHECK_FALSE(argmax(v).requires_grad());
}

TEST_CASE("autograd: retain_grad, leaf roots, casts and views", "[autograd]") {
  Tensor x = tensor({1.0, -2.0, 3.0}, kFloat64).requires_grad_();
  Tensor h = x * 2.0;
  h.retain_grad();
  Tensor out = (h.relu() * h).sum();
  out.backward();
  CHECK(h.grad().to_vector<double>() == std::vector<double>{4, 0, 12});
  CHECK(x.grad().to_vector<double>() == std::vector<double>{8, 0, 24});
  // Backward from a leaf itself.
  Tensor leaf = tensor({1.0}).requires_grad_();
  leaf.backward();
  CHECK(leaf.grad().to_vector<float>() == std::vector<float>{1});
  // Through a dtype cast: the gradient comes back in the leaf's dtype.
  Tensor f = tensor({1.0, 2.0}).requires_grad_();
  (f.to(kFloat64) * 3.0).sum().backward();
  CHECK(f.grad().dtype() == kFloat32);
  CHECK(f.grad().to_vector<float>() == std::vector<float>{3, 3});
  // Through views: slices and selects put the gradient back in place.
  Tensor m = zeros({3, 4}, kFloat64).requires_grad_();
  (m.slice(1, 1, 4, 2).sum() + m.select(0, 2).sum() * 2.0).backward();
  CHECK(m.grad().to_vector<double>() == std::vector<double>{0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3});
}

TEST_CASE("autograd: a long chain does not overflow the stack", "[autograd]") {
  Tensor x = ones({1}).requires_grad_();
  Tensor y = x;
  for (int i = 0; i < 20000; ++i) y = y * 1.0;
  y.sum().backward();
  CHECK(x.grad().item<float>() == 1.0f);
}

TEST_CASE("autograd: a .grad() set by hand must match its leaf", "[autograd]") {
  // Found by review: a [2, 3] gradient on a [3] leaf stayed [2, 3] after backward (the
  // accumulation broadcast), where PyTorch refuses the assignment.
  Tensor x = ones({3}).requires_grad_();
  for (Tensor bad : {ones({2, 3}), ones({1}), ones({3}, kFloat64)}) {
    x.mutable_grad() = bad;
    CHECK_THROWS_WITH((x * 2).sum().backward(),
                      Catch::Contains("backward") && Catch::Contains("[3]") &&
                          Catch::Contains(std::string(dtype_name(bad.dtype()))));
  }
  x.mutable_grad() = ones({3});
  (x * 2).sum().backward();  // a matching one is added to, and the engine still works
  CHECK(x.grad().to_vector<float>() == std::vector<float>{3, 3, 3});
}

TEST_CASE("autograd: grad-ready hooks fire once per pass, after a leaf's last gradient",
          "[autograd]") {
  // PyTorch's register_post_accumulate_grad_hook, which wick::distributed's DDP uses to start
  // a bucket's all-reduce during backward.
  Tensor w = tensor({1.0, 2.0}).requires_grad_();
  Tensor unused = tensor({3.0}).requires_grad_();
  Tensor x = tensor({10.0, 20.0});
  std::vector<std::vector<float>> seen;  // w.grad at each firing
  int unused_fired = 0;
  const uint64_t handle = autograd::register_grad_ready_hook(
      w, [&](const Tensor& leaf) { seen.push_back(leaf.grad().to_vector<float>()); });
  const uint64_t unused_handle =
      autograd::register_grad_ready_hook(unused, [&](const Tensor&) { ++unused_fired; });
  // Two contributions to w: the hook sees the sum of both, once.
  ((w * x).sum() + (w * 2.0).sum()).backward();
  REQUIRE(seen.size() == 1);
  CHECK(seen[0] == std::vector<float>{12, 22});
  CHECK(unused_fired == 0);  // no gradient reached it
  // A second pass accumulates and fires again; the root itself a hooked leaf fires too.
  (w * 3.0).sum().backward();
  REQUIRE(seen.size() == 2);
  CHECK(seen[1] == std::vector<float>{15, 25});
  w.backward(ones({2}));
  REQUIRE(seen.size() == 3);
  CHECK(seen[2] == std::vector<float>{16, 26});
  // Removed hooks stay silent; a hook on a non-leaf is an AutogradError.
  autograd::remove_grad_ready_hook(handle);
  autograd::remove_grad_ready_hook(unused_handle);
  (w * unused).sum().backward();
  CHECK(seen.size() == 3);
  CHECK(unused_fired == 0);
  CHECK_THROWS_AS(autograd::register_grad_ready_hook(w * 2.0, [](const Tensor&) {}), AutogradError);
}

TEST_CASE("autograd: many views of one result sum their gradients in place, correctly",
          "[autograd]") {
  // y feeds 6 selects, 2 overlapping slices and a whole-tensor use: after the first view's
  // gradient the engine adds each later one into y's pending gradient (add_into), which must
  // give what one zero-filled gradient per view gives.
  manual_seed(21);
  const Tensor x = randn({6, 5}, kFloat64).requires_grad_();
  auto f = [](const Tensor& in) {
    const Tensor y = in * 2.0 + 1.0;
    Tensor total = (y * y).sum() * 0.1;
    for (int64_t t = 0; t < 6; ++t)
      total = total + (y.select(0, t) * static_cast<double>(t + 1)).sum();
    total = total + y.narrow(1, 1, 3).pow(2.0).sum() + y.narrow(0, 2, 3).select(1, 4).sum() * 3.0;
    return total;
  };
  f(x).backward();
  // d/dx: 2 * (0.2 y + (t + 1) + 2 y on columns 1..3 + 3 on rows 2..4 of column 4).
  const Tensor y = x.detach() * 2.0 + 1.0;
  const auto yv = y.to_vector<double>(), g = x.grad().to_vector<double>();
  for (int64_t t = 0; t < 6; ++t) {
    for (int64_t c = 0; c < 5; ++c) {
      const double yy = yv[static_cast<size_t>(t * 5 + c)];
      double want = 0.2 * yy + static_cast<double>(t + 1);
      if (c >= 1 && c <= 3) want += 2 * yy;
      if (c == 4 && t >= 2 && t <= 4) want += 3.0;
      CHECK(g[static_cast<size_t>(t * 5 + c)] == Approx(2 * want).epsilon(1e-12));
    }
  }
  CHECK(autograd::gradcheck([&](const std::vector<Tensor>& in) { return f(in[0]); }, {x}) == "");
  // A retained gradient of y is a copy: the in-place sums after it leave it alone.
  const Tensor x2 = randn({3, 4}, kFloat64).requires_grad_();
  Tensor y2 = x2 * 3.0;
  y2.retain_grad();
  (y2.select(0, 0).sum() + y2.select(0, 2).sum() * 2.0 + y2.select(1, 1).sum()).backward();
  const std::vector<double> want_y2{1, 2, 1, 1, 0, 1, 0, 0, 2, 3, 2, 2};
  CHECK(y2.grad().to_vector<double>() == want_y2);
  std::vector<double> want_x2;
  for (double v : want_y2) want_x2.push_back(3 * v);
  CHECK(x2.grad().to_vector<double>() == want_x2);
}
