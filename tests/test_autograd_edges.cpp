// test_autograd_edges.cpp: gradients at the edges of their domains (0^0, a NaN among the
// inputs, huge and tiny divisors) and the tape's handling of seeds and retained gradients,
// each against the value PyTorch 1.13 gives (python3-torch, the snippet beside each case), and
// a graph deep enough to overflow a recursive destructor.
// Found by review; before the fixes wick gave NaN, inf or an aliased gradient in each case, and
// the deep graph crashed (SIGSEGV) when it was freed.
#include <pthread.h>

#include <cmath>
#include <exception>
#include <vector>

#include "reference.hpp"

using namespace wick;

namespace {
const float kNaN = std::nanf("");
bool same(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]) ? !std::isnan(got[i]) : got[i] != want[i]) return false;
  }
  return true;
}

// Runs fn on a thread with a 256 KiB stack and rethrows what it threw.
void run_on_small_stack(void (*fn)()) {
  struct Job {
    void (*fn)();
    std::exception_ptr error;
  } job{fn, nullptr};
  pthread_attr_t attr;
  REQUIRE(pthread_attr_init(&attr) == 0);
  REQUIRE(pthread_attr_setstacksize(&attr, 256 * 1024) == 0);
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        Job* j = static_cast<Job*>(p);
        try {
          j->fn();
        } catch (...) {
          j->error = std::current_exception();
        }
        return nullptr;
      },
      &job);
  pthread_attr_destroy(&attr);
  REQUIRE(rc == 0);
  REQUIRE(pthread_join(thread, nullptr) == 0);
  if (job.error) std::rethrow_exception(job.error);
}
}  // namespace

TEST_CASE("autograd edges: a deep graph is freed without deep recursion", "[autograd]") {
  // 100,000 chained nodes on a 256 KiB stack: the recursive destructor took more than 2 bytes
  // of stack per node (it crashed at about 200,000 nodes on an 8 MiB stack).
  run_on_small_stack([] {
    Tensor w = ones({}).requires_grad_();
    {
      Tensor y = w;
      for (int i = 0; i < 100000; ++i) y = y * 1.0 + (w * w).sum();
    }  // freed here, without backward
    {
      Tensor y = w;
      for (int i = 0; i < 100000; ++i) y = y + 1.0;
      y.backward();  // releases the saved tensors, then the graph is freed
    }
    if (w.grad().item<float>() != 1.0f) throw Error("w.grad() should be 1");
  });
}

TEST_CASE("autograd edges: pow with a tensor exponent at base 0", "[autograd]") {
  // x = [0, 2]; pow(x.unsqueeze(1), [0, 1, 2]).sum().backward() -> x.grad [1, 5]
  Tensor x = tensor({0.0f, 2.0f}).requires_grad_();
  pow(x.unsqueeze(1), tensor({0.0f, 1.0f, 2.0f})).sum().backward();
  CHECK(same(x.grad().to_vector<float>(), {1, 5}));
  // a = [0, 0, 2], e = [-1, 0, -1]: a.grad [-inf, 0, -0.25], e.grad [-inf, 0, 0.3466]
  Tensor a = tensor({0.0f, 0.0f, 2.0f}).requires_grad_();
  Tensor e = tensor({-1.0f, 0.0f, -1.0f}).requires_grad_();
  pow(a, e).sum().backward();
  CHECK(same(a.grad().to_vector<float>(), {-INFINITY, 0, -0.25f}));
  std::vector<float> ge = e.grad().to_vector<float>();
  CHECK(ge[0] == -INFINITY);
  CHECK(ge[1] == 0);
  CHECK(ge[2] == Approx(0.5 * std::log(2.0)).epsilon(1e-6));
}

TEST_CASE("autograd edges: division by huge and tiny numbers in float32", "[autograd]") {
  // (a / b).sum().backward(), a = [1e-30, 1e30], b = [1e-23, 2e19]: b.grad [-1e16, -2.5e-9]
  Tensor a = tensor({1e-30f, 1e30f}).requires_grad_();
  Tensor b = tensor({1e-23f, 2e19f}).requires_grad_();
  (a / b).sum().backward();
  std::vector<float> gb = b.grad().to_vector<float>();
  CHECK(gb[0] == Approx(-1e16).epsilon(1e-6));
  CHECK(gb[1] == Approx(-2.5e-9).epsilon(1e-6));
}

TEST_CASE("autograd edges: NaN inputs follow PyTorch's conventions", "[autograd]") {
  SECTION("max() and min() over every element give a NaN result's gradient to the NaNs") {
    // [1, nan, 3].max() -> [0, 1, 0]; [1, nan, nan].max() -> [0, 0.5, 0.5]
    Tensor x = tensor({1.0f, kNaN, 3.0f}).requires_grad_();
    max(x).backward();
    CHECK(same(x.grad().to_vector<float>(), {0, 1, 0}));
    Tensor y = tensor({1.0f, kNaN, kNaN}).requires_grad_();
    min(y).backward();
    CHECK(same(y.grad().to_vector<float>(), {0, 0.5f, 0.5f}));
    // amax over a dim keeps PyTorch's scale_grad_by_count: NaN everywhere.
    Tensor z = tensor({1.0f, kNaN, 3.0f}).requires_grad_();
    amax(z, 0).backward();
    CHECK(same(z.grad().to_vector<float>(), {kNaN, kNaN, kNaN}));
  }
  SECTION("relu passes the gradient of a NaN") {
    // relu([nan, -1, 0, 2]).sum() -> [1, 0, 0, 1]
    Tensor x = tensor({kNaN, -1.0f, 0.0f, 2.0f}).requires_grad_();
    relu(x).sum().backward();
    CHECK(same(x.grad().to_vector<float>(), {1, 0, 0, 1}));
  }
  SECTION("maximum and minimum give a NaN pair's gradient to both inputs") {
    // maximum(a, b), a = [nan, 1, 2, 1], b = [1, nan, 1, 1]:
    //   a.grad [1, 1, 1, 0.5], b.grad [1, 1, 0, 0.5]; minimum: [1, 1, 0, 0.5], [1, 1, 1, 0.5]
    for (bool is_max : {true, false}) {
      Tensor a = tensor({kNaN, 1.0f, 2.0f, 1.0f}).requires_grad_();
      Tensor b = tensor({1.0f, kNaN, 1.0f, 1.0f}).requires_grad_();
      (is_max ? maximum(a, b) : minimum(a, b)).sum().backward();
      CHECK(same(a.grad().to_vector<float>(), {1, 1, is_max ? 1.0f : 0.0f, 0.5f}));
      CHECK(same(b.grad().to_vector<float>(), {1, 1, is_max ? 0.0f : 1.0f, 0.5f}));
    }
  }
}

TEST_CASE("autograd edges: retained gradients are copies, in the output's dtype", "[autograd]") {
  Tensor x = ones({2}).requires_grad_();
  Tensor y = x * 2.0;
  y.retain_grad();
  Tensor seed = ones({2}, kFloat64);
  y.backward(seed);
  seed.mul_(5.0);                       // the caller's seed changes afterwards
  CHECK(y.grad().dtype() == kFloat32);  // PyTorch casts the seed to the output's dtype
  CHECK(y.grad().to_vector<float>() == std::vector<float>{1, 1});
  CHECK(x.grad().to_vector<float>() == std::vector<float>{2, 2});

  Tensor y1 = x * 2.0, y2 = y1 + 1.0;
  y1.retain_grad();
  y2.retain_grad();
  (y2 * 3.0).sum().backward();
  y2.mutable_grad().zero_();  // must not reach y1's gradient
  CHECK(y1.grad().to_vector<float>() == std::vector<float>{3, 3});
}

TEST_CASE("autograd edges: a blocked gradient is +0, even for a negative or NaN seed",
          "[autograd]") {
  // PyTorch masks (masked_fill, scatter into zeros) where a product with a 0/1 mask would give
  // -0 for a negative seed and NaN for a NaN one. x = [-1, 2, 3], seed g:
  //   relu: [0, g, g]; clamp(0, 2.5): [0, g, 0]; maximum(x, [0, 5, 1]): [0, 0, g];
  //   max(x.view(1, 3), 1): [0, 0, g]; amax over dim 1 multiplies by the mask: [g*0, g*0, g].
  struct Case {
    const char* name;
    Tensor (*f)(const Tensor&);
    std::vector<bool> passes;
  };
  const Case cases[] = {
      {"relu", [](const Tensor& x) { return x.relu(); }, {false, true, true}},
      {"clamp", [](const Tensor& x) { return x.clamp(0, 2.5); }, {false, true, false}},
      {"maximum",
       [](const Tensor& x) {
         return maximum(x, tensor({0.0f, 5.0f, 1.0f}));
       },
       {false, false, true}},
      {"minimum",
       [](const Tensor& x) {
         return minimum(x, tensor({0.0f, 5.0f, 1.0f}));
       },
       {true, true, false}},
      {"max(dim)",
       [](const Tensor& x) {
         return std::get<0>(max(x.view({1, 3}), 1));
       },
       {false, false, true}},
      {"min(dim)",
       [](const Tensor& x) {
         return std::get<0>(min(x.view({1, 3}), 1));
       },
       {true, false, false}},
  };
  for (const Case& c : cases) {
    for (float seed : {-1.0f, kNaN}) {
      INFO(c.name << " with seed " << seed);
      Tensor x = tensor({-1.0f, 2.0f, 3.0f}).requires_grad_();
      Tensor y = c.f(x);
      y.backward(full_like(y, seed));
      const std::vector<float> grad = x.grad().to_vector<float>();
      for (size_t i = 0; i < grad.size(); ++i) {
        INFO("element " << i);
        if (c.passes[i]) {
          CHECK((std::isnan(seed) ? std::isnan(grad[i]) : grad[i] == seed));
        } else {
          CHECK(grad[i] == 0.0f);
          CHECK_FALSE(std::signbit(grad[i]));
        }
      }
    }
  }
  // amax keeps PyTorch's product: -0 and NaN where the mask is 0.
  Tensor x = tensor({-1.0f, 2.0f, 3.0f}).requires_grad_();
  Tensor y = x.view({1, 3}).amax(1);
  y.backward(full_like(y, -1.0f));
  CHECK(std::signbit(x.grad().to_vector<float>()[0]));
}

TEST_CASE("autograd edges: clamp passes no gradient to a NaN input", "[autograd]") {
  // torch.tensor([nan, 1.]).clamp(0, 2) backward with ones: grad [0, 1]
  Tensor x = tensor({kNaN, 1.0f}).requires_grad_();
  x.clamp(0, 2).sum().backward();
  CHECK(same(x.grad().to_vector<float>(), {0, 1}));
}

TEST_CASE("autograd edges: a transposed matmul operand gets its gradient in its own layout",
          "[autograd]") {
  // Linear computes x @ W.t(): matmul's rule computes W.t()'s gradient as (g^T x)^T, so that
  // W's arrives contiguous and accumulate() copies nothing (the layout is not visible through
  // the API, the copy it saves is timed by BM_wick_mlp_step; these check the values).
  Tensor w = randn({3, 4}).requires_grad_(), x = randn({5, 4}), g = randn({5, 3});
  matmul(x, w.t()).backward(g);
  CHECK(equal(w.grad(), matmul(g.t(), x)));
  // The left operand and a batch: a = A^T of a contiguous [2, 4, 5] tensor.
  Tensor big_a = randn({2, 4, 5}).requires_grad_(), b = randn({2, 4, 3}), gy = randn({2, 5, 3});
  matmul(big_a.transpose(1, 2), b).backward(gy);
  CHECK(equal(big_a.grad(), matmul(b, gy.transpose(1, 2))));
  // A broadcast transposed operand: its batch gradients still sum back.
  Tensor shared = randn({3, 4}).requires_grad_(), xs = randn({2, 5, 4}), gs = randn({2, 5, 3});
  matmul(xs, shared.t()).backward(gs);
  Tensor want = matmul(gs.transpose(1, 2), xs).sum(0);
  CHECK(allclose(shared.grad(), want, 1e-5, 1e-6));
  // Both operands transposed, and a 1-D operand beside a transposed one: the same gradients as
  // through contiguous copies.
  Tensor p = randn({6, 4}).requires_grad_(), q = randn({3, 6}).requires_grad_();
  Tensor gpq = randn({4, 3});
  matmul(p.t(), q.t()).backward(gpq);
  Tensor pc = p.detach().clone().requires_grad_(), qc = q.detach().clone().requires_grad_();
  matmul(pc.t().contiguous(), qc.t().contiguous()).backward(gpq);
  CHECK(allclose(p.grad(), pc.grad(), 1e-5, 1e-6));
  CHECK(allclose(q.grad(), qc.grad(), 1e-5, 1e-6));
  Tensor v = randn({6}).requires_grad_(), r = randn({3, 6}).requires_grad_();
  Tensor gv = randn({3});
  matmul(v, r.t()).backward(gv);
  CHECK(allclose(v.grad(), matmul(gv, r.detach()), 1e-5, 1e-6));
  CHECK(allclose(r.grad(), matmul(gv.unsqueeze(1), v.detach().unsqueeze(0)), 1e-5, 1e-6));
}

TEST_CASE("autograd edges: ties and zeros in median, amax and norm, as PyTorch's", "[autograd]") {
  // torch 1.13: median() and nanmedian() over all elements share the gradient among the
  // elements equal to the result (among the NaNs when it is NaN): evenly_distribute_backward.
  const auto grad_of = [](std::vector<double> values, auto&& fn) {
    const Tensor x = tensor(values, kFloat64).requires_grad_();
    fn(x).backward();
    return x.grad().to_vector<double>();
  };
  const auto median_all = [](const Tensor& x) { return median(x); };
  CHECK(grad_of({2, 1, 2, 3}, median_all) == std::vector<double>{0.5, 0, 0.5, 0});
  CHECK(grad_of({1, NAN, NAN}, median_all) == std::vector<double>{0, 0.5, 0.5});
  CHECK(grad_of({-INFINITY, -INFINITY, 1}, median_all) == std::vector<double>{0.5, 0.5, 0});
  const std::vector<double> thirds =
      grad_of({2, 2, 2}, [](const Tensor& x) { return nanmedian(x); });
  CHECK(thirds == std::vector<double>(3, 1.0 / 3));
  {
    const Tensor x =
        tensor(std::vector<double>{-INFINITY, -INFINITY, 1}, kFloat64).requires_grad_();
    CHECK(median(x).item<double>() == -INFINITY);  // the value stays the median itself
  }
  // amax over every dim follows amax's rule, not max()'s: a NaN result gives NaN everywhere
  // (torch.amax), ties share.
  for (double g : grad_of({1, NAN, NAN}, [](const Tensor& x) { return amax(x, Shape{}); }))
    CHECK(std::isnan(g));
  CHECK(grad_of({1, 3, 3}, [](const Tensor& x) { return amax(x, Shape{}); }) ==
        std::vector<double>{0, 0.5, 0.5});
  // A p-norm below p = 1 gives a zero element no gradient (|x|^p has an infinite slope there):
  // torch.norm([1, 0, 4], 0.5) is 9 with gradient [3, 0, 1.5].
  CHECK(grad_of({1, 0, 4}, [](const Tensor& x) { return norm(x, 0.5, Shape{}, false); }) ==
        std::vector<double>{3, 0, 1.5});
}
