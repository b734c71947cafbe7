// test_optim.cpp: SGD, Adam and AdamW option by option against a scalar reference written here
// from torch.optim's formulas (double, element by element), over several steps with gradients
// that depend on the parameters; parameter checks and option validation; zero_grad; set_lr;
// state_dict round trips (resuming from a checkpoint file gives the uninterrupted result).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <wick/wick.hpp>

namespace optim = wick::optim;
using wick::Tensor;

namespace {

constexpr int kSize = 6;
constexpr int kSteps = 6;

// The gradient at step k for parameter values p: a smooth function of both, with a zero.
std::vector<double> gradient_at(int k, const std::vector<double>& p) {
  std::vector<double> g(p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    g[i] = i == 3 ? 0.0 : std::sin(1.3 * k + double(i)) + 0.5 * p[i] * p[i] - 0.2 * p[i];
  }
  return g;
}

std::vector<double> initial_values() {
  std::vector<double> p(kSize);
  for (int i = 0; i < kSize; ++i) p[i] = 0.3 * i - 0.7;
  return p;
}

// Runs kSteps of `make`'s optimizer in float64 and compares with `reference` after each step.
void check_against_reference(
    const std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>& make,
    const std::function<void(std::vector<double>& p, const std::vector<double>& g, int step)>&
        reference) {
  std::vector<double> expected = initial_values();
  Tensor p = wick::tensor(expected).requires_grad_();
  auto optimizer = make({p});
  for (int k = 1; k <= kSteps; ++k) {
    std::vector<double> g = gradient_at(k, expected);
    optimizer->zero_grad();
    p.mutable_grad() = wick::tensor(g);
    optimizer->step();
    reference(expected, g, k);
    const auto got = p.to_vector<double>();
    for (int i = 0; i < kSize; ++i) {
      INFO("step " << k << " element " << i);
      CHECK(got[i] == Approx(expected[i]).epsilon(1e-13).margin(1e-15));
    }
  }
}

struct SgdCase {
  double lr, momentum, dampening, weight_decay;
  bool nesterov;
};

struct AdamCase {
  double lr, beta1, beta2, eps, weight_decay;
  bool amsgrad;
};

// torch.optim.SGD, element by element.
struct SgdReference {
  SgdCase c;
  std::vector<double> b;  // momentum buffer; empty until the first step
  void operator()(std::vector<double>& p, const std::vector<double>& g, int) {
    const bool first = b.empty();
    if (first) b.assign(kSize, 0.0);
    for (int i = 0; i < kSize; ++i) {
      double d = g[i] + c.weight_decay * p[i];
      if (c.momentum != 0) {
        b[i] = first ? d : c.momentum * b[i] + (1 - c.dampening) * d;
        d = c.nesterov ? d + c.momentum * b[i] : b[i];
      }
      p[i] -= c.lr * d;
    }
  }
};

// torch.optim.Adam / AdamW (single-tensor path), element by element.
struct AdamReference {
  AdamCase c;
  bool decoupled;
  std::vector<double> m = std::vector<double>(kSize, 0.0);
  std::vector<double> v = std::vector<double>(kSize, 0.0);
  std::vector<double> v_max = std::vector<double>(kSize, 0.0);
  void operator()(std::vector<double>& p, const std::vector<double>& g0, int t) {
    for (int i = 0; i < kSize; ++i) {
      double g = g0[i];
      if (decoupled) {
        p[i] *= 1 - c.lr * c.weight_decay;
      } else {
        g += c.weight_decay * p[i];
      }
      m[i] = c.beta1 * m[i] + (1 - c.beta1) * g;
      v[i] = c.beta2 * v[i] + (1 - c.beta2) * g * g;
      v_max[i] = std::max(v_max[i], v[i]);
      const double bc1 = 1 - std::pow(c.beta1, t), bc2 = 1 - std::pow(c.beta2, t);
      const double denom = std::sqrt(c.amsgrad ? v_max[i] : v[i]) / std::sqrt(bc2) + c.eps;
      p[i] -= c.lr / bc1 * m[i] / denom;
    }
  }
};

}  // namespace

TEST_CASE("SGD: every option against torch.optim.SGD's formula") {
  for (SgdCase c : {SgdCase{0.1, 0, 0, 0, false}, SgdCase{0.1, 0.9, 0, 0, false},
                    SgdCase{0.1, 0.9, 0.5, 0, false}, SgdCase{0.05, 0.9, 0, 0.1, true},
                    SgdCase{0.2, 0, 0, 0.3, false}, SgdCase{0.05, 0.5, 0.2, 0.3, false}}) {
    INFO("lr " << c.lr << " momentum " << c.momentum << " dampening " << c.dampening
               << " weight_decay " << c.weight_decay << " nesterov " << c.nesterov);
    check_against_reference(
        [&](std::vector<Tensor> params) {
          return std::make_unique<optim::SGD>(params, optim::SGDOptions(c.lr)
                                                          .momentum(c.momentum)
                                                          .dampening(c.dampening)
                                                          .weight_decay(c.weight_decay)
                                                          .nesterov(c.nesterov));
        },
        SgdReference{c, {}});
  }
}

TEST_CASE("Adam and AdamW: every option against torch.optim's formulas") {
  for (AdamCase c :
       {AdamCase{1e-3, 0.9, 0.999, 1e-8, 0, false}, AdamCase{0.05, 0.8, 0.99, 1e-6, 0, false},
        AdamCase{0.05, 0.9, 0.999, 1e-8, 0, true}, AdamCase{0.02, 0.5, 0.9, 1e-3, 0.2, true},
        AdamCase{0.1, 0.0, 0.0, 0.1, 0.05, false}}) {
    INFO("lr " << c.lr << " betas " << c.beta1 << ", " << c.beta2 << " eps " << c.eps
               << " weight_decay " << c.weight_decay << " amsgrad " << c.amsgrad);
    check_against_reference(
        [&](std::vector<Tensor> params) {
          return std::make_unique<optim::Adam>(params, optim::AdamOptions(c.lr)
                                                           .betas(c.beta1, c.beta2)
                                                           .eps(c.eps)
                                                           .weight_decay(c.weight_decay)
                                                           .amsgrad(c.amsgrad));
        },
        AdamReference{c, false});
    check_against_reference(
        [&](std::vector<Tensor> params) {
          return std::make_unique<optim::AdamW>(params, optim::AdamWOptions(c.lr)
                                                            .betas({c.beta1, c.beta2})
                                                            .eps(c.eps)
                                                            .weight_decay(c.weight_decay)
                                                            .amsgrad(c.amsgrad));
        },
        AdamReference{c, true});
  }
}

TEST_CASE("defaults are PyTorch's") {
  optim::AdamOptions adam;
  CHECK(adam.lr() == 1e-3);
  CHECK(adam.betas() == std::tuple<double, double>{0.9, 0.999});
  CHECK(adam.eps() == 1e-8);
  CHECK(adam.weight_decay() == 0);
  CHECK_FALSE(adam.amsgrad());
  optim::AdamWOptions adamw;
  CHECK(adamw.lr() == 1e-3);
  CHECK(adamw.weight_decay() == 1e-2);  // decoupled weight decay is on by default
  optim::SGDOptions sgd(0.5);
  CHECK(sgd.momentum() == 0);
  CHECK(sgd.dampening() == 0);
  CHECK(sgd.weight_decay() == 0);
  CHECK_FALSE(sgd.nesterov());
  // AdamW's default decay acts: with a zero gradient the parameter still shrinks.
  Tensor p = wick::ones({2}).requires_grad_();
  optim::AdamW opt({p}, optim::AdamWOptions(0.1));
  p.mutable_grad() = wick::zeros({2});
  opt.step();
  CHECK(p.to_vector<float>()[0] == Approx(1 - 0.1 * 0.01));
}

TEST_CASE("optimizers reject what PyTorch rejects") {
  auto params = [] { return std::vector<Tensor>{wick::ones({2}).requires_grad_()}; };
  CHECK_THROWS_AS(optim::SGD({}, 0.1), wick::ValueError);
  CHECK_THROWS_AS(optim::SGD(params(), -0.1), wick::ValueError);
  CHECK_THROWS_AS(optim::SGD(params(), optim::SGDOptions(0.1).momentum(-1)), wick::ValueError);
  CHECK_THROWS_AS(optim::SGD(params(), optim::SGDOptions(0.1).weight_decay(-1)), wick::ValueError);
  CHECK_THROWS_WITH(optim::SGD(params(), optim::SGDOptions(0.1).nesterov(true)),
                    Catch::Contains("nesterov"));
  CHECK_THROWS_AS(
      optim::SGD(params(), optim::SGDOptions(0.1).momentum(0.9).dampening(0.1).nesterov(true)),
      wick::ValueError);
  CHECK_THROWS_AS(optim::Adam(params(), optim::AdamOptions().betas(1.0, 0.9)), wick::ValueError);
  CHECK_THROWS_AS(optim::Adam(params(), optim::AdamOptions().betas(0.9, -0.1)), wick::ValueError);
  CHECK_THROWS_AS(optim::Adam(params(), optim::AdamOptions().eps(-1)), wick::ValueError);
  CHECK_THROWS_AS(optim::AdamW(params(), optim::AdamWOptions().weight_decay(-1)), wick::ValueError);
  CHECK_THROWS_AS(optim::Adam(params(), optim::AdamOptions(-1)), wick::ValueError);
  Tensor leaf = wick::ones({2}).requires_grad_();
  CHECK_THROWS_WITH(optim::SGD({leaf * 2}, 0.1), Catch::Contains("non-leaf"));
  CHECK_THROWS_WITH(optim::SGD({leaf, leaf}, 0.1), Catch::Contains("more than once"));
  CHECK_THROWS_AS(optim::SGD({wick::zeros({2}, wick::kInt64)}, 0.1), wick::DtypeError);
  CHECK_THROWS_AS(optim::SGD({Tensor()}, 0.1), wick::ValueError);
}

TEST_CASE("a gradient that does not match its parameter fails the step, which changes nothing") {
  // Found by review: SGD stepped with a [1] gradient on a [3] parameter (broadcast), and a
  // failing AdamW step had already decayed the parameters and counted the step.
  auto run = [](auto make, const char* name) {
    INFO(name);
    Tensor a = wick::full({3}, 1.0).requires_grad_();
    Tensor b = wick::full({2, 3}, 2.0).requires_grad_();
    auto opt = make(std::vector<Tensor>{a, b});
    a.mutable_grad() = wick::ones({3});
    b.mutable_grad() = wick::ones({2, 3});
    opt.step();  // a first good step creates the state
    const std::vector<float> a0 = a.to_vector<float>(), b0 = b.to_vector<float>();
    std::map<std::string, std::vector<double>> state0;
    for (const auto& [key, t] : opt.state_dict()) state0[key] = t.template to_vector<double>();
    for (Tensor bad : {wick::ones({1}), wick::ones({3}), wick::ones({2, 3}, wick::kFloat64)}) {
      b.mutable_grad() = bad;
      CHECK_THROWS_WITH(opt.step(), Catch::Contains(name) && Catch::Contains("parameter 1") &&
                                        Catch::Contains("[2, 3]"));
      CHECK(a.to_vector<float>() == a0);
      CHECK(b.to_vector<float>() == b0);
      for (const auto& [key, t] : opt.state_dict()) {
        CHECK(t.template to_vector<double>() == state0[key]);
      }
    }
    b.mutable_grad() = wick::ones({2, 3});
    opt.step();  // and the optimizer still works
    CHECK(b.to_vector<float>() != b0);
  };
  run([](std::vector<Tensor> p) { return optim::SGD(p, optim::SGDOptions(0.1).momentum(0.9)); },
      "SGD");
  run([](std::vector<Tensor> p) { return optim::Adam(p, optim::AdamOptions(0.1)); }, "Adam");
  run([](std::vector<Tensor> p) { return optim::AdamW(p, optim::AdamWOptions(0.1)); }, "AdamW");
}

TEST_CASE("step skips parameters without gradients; zero_grad; set_lr") {
  Tensor a = wick::ones({2}).requires_grad_();
  Tensor b = wick::ones({2}).requires_grad_();
  optim::SGD sgd({a, b}, optim::SGDOptions(0.5).momentum(0.9));
  a.mutable_grad() = wick::full({2}, 2.0);
  sgd.step();
  CHECK(a.to_vector<float>() == std::vector<float>{0.0f, 0.0f});
  CHECK(b.to_vector<float>() == std::vector<float>{1.0f, 1.0f});
  CHECK(sgd.state_dict().count("state.1.momentum_buffer") == 0);  // no state for b yet
  sgd.zero_grad(/*set_to_none=*/false);
  REQUIRE(a.grad().defined());
  CHECK(a.grad().to_vector<float>() == std::vector<float>{0.0f, 0.0f});
  sgd.zero_grad();
  CHECK_FALSE(a.grad().defined());
  CHECK(sgd.lr() == 0.5);
  sgd.set_lr(0.25);
  CHECK(sgd.lr() == 0.25);
  CHECK(sgd.options().lr() == 0.25);
  CHECK(sgd.options().momentum() == 0.9);
  CHECK_THROWS_AS(sgd.set_lr(-1), wick::ValueError);
  // The new rate is used: b's first step with gradient 1 moves it by lr.
  b.mutable_grad() = wick::ones({2});
  sgd.step();
  CHECK(b.to_vector<float>() == std::vector<float>{0.75f, 0.75f});
}

TEST_CASE("optimizer state survives a checkpoint file: resuming equals not stopping") {
  const auto path = std::filesystem::temp_directory_path() / "wick_optim_state.safetensors";
  for (bool adam : {false, true}) {
    auto make = [adam](std::vector<Tensor> params) -> std::unique_ptr<optim::Optimizer> {
      if (adam)
        return std::make_unique<optim::Adam>(params, optim::AdamOptions(0.05).amsgrad(true));
      return std::make_unique<optim::SGD>(params, optim::SGDOptions(0.1).momentum(0.9));
    };
    auto run = [](optim::Optimizer& opt, Tensor& p, int from, int to) {
      for (int k = from; k < to; ++k) {
        opt.zero_grad();
        p.mutable_grad() = wick::tensor(gradient_at(k, p.to_vector<double>()));
        opt.step();
      }
    };
    Tensor straight = wick::tensor(initial_values()).requires_grad_();
    auto opt1 = make({straight});
    run(*opt1, straight, 1, 7);

    Tensor resumed = wick::tensor(initial_values()).requires_grad_();
    auto opt2 = make({resumed});
    run(*opt2, resumed, 1, 4);
    opt2->set_lr(opt2->lr());  // unchanged, but exercised
    wick::save(opt2->state_dict(), path);
    wick::save({{"p", resumed}}, path.string() + ".param");
    Tensor restored = wick::load_tensors(path.string() + ".param").at("p").requires_grad_();
    auto opt3 = make({restored});
    opt3->load_state_dict(wick::load_tensors(path));
    run(*opt3, restored, 4, 7);
    CHECK(wick::equal(restored, straight));

    // Bad states are rejected and change nothing.
    auto state = opt2->state_dict();
    state["state.5.exp_avg"] = wick::zeros({kSize}, wick::kFloat64);
    CHECK_THROWS_AS(opt3->load_state_dict(state), wick::ValueError);
    state = opt2->state_dict();
    state.erase("lr");
    CHECK_THROWS_AS(opt3->load_state_dict(state), wick::ValueError);
    state["lr"] = Tensor();  // undefined: named as the missing lr, not a bare tensor error
    CHECK_THROWS_WITH(opt3->load_state_dict(state), Catch::Contains("no scalar \"lr\""));
    // "state.00..." would alias "state.0..." (found by review): a leading zero is unexpected.
    state = opt2->state_dict();
    const std::string buffer = adam ? "exp_avg" : "momentum_buffer";
    state["state.00." + buffer] = state.at("state.0." + buffer);
    CHECK_THROWS_WITH(opt3->load_state_dict(state), Catch::Contains("unexpected key \"state.00."));
    state = opt2->state_dict();
    state[adam ? "state.0.exp_avg" : "state.0.momentum_buffer"] = wick::zeros({kSize + 1});
    CHECK_THROWS_AS(opt3->load_state_dict(state), wick::ShapeError);
    if (adam) {
      // A step below 1 (Adam's bias correction would be 0 and the update NaN), and a state
      // missing one of its buffers (found by review).
      state = opt2->state_dict();
      state["state.0.step"] = wick::scalar_tensor(int64_t{0});
      CHECK_THROWS_AS(opt3->load_state_dict(state), wick::ValueError);
      // Checked as the file holds it: NaN, 1e30 and 2.5 are named, not a wrapped int64.
      for (const double bad : {std::nan(""), 1e30, 2.5}) {
        state["state.0.step"] = wick::scalar_tensor(bad, wick::kFloat64);
        CHECK_THROWS_WITH(
            opt3->load_state_dict(state),
            Catch::Contains("whole number of steps") && !Catch::Contains("-9223372036854775808"));
      }
      // PyTorch keeps the step as a float: a whole one loads.
      state = opt2->state_dict();
      state["state.0.step"] = wick::scalar_tensor(3.0, wick::kFloat64);
      opt3->load_state_dict(state);
      CHECK(opt3->state_dict().at("state.0.step").item<int64_t>() == 3);
      opt3->load_state_dict(opt2->state_dict());
      for (const char* missing :
           {"state.0.exp_avg", "state.0.exp_avg_sq", "state.0.max_exp_avg_sq", "state.0.step"}) {
        state = opt2->state_dict();
        state.erase(missing);
        CHECK_THROWS_WITH(opt3->load_state_dict(state), Catch::Contains("parameter 0"));
      }
    }
    std::filesystem::remove(path);
    std::filesystem::remove(path.string() + ".param");
  }
}

TEST_CASE("optimizer state follows parameters moved by Module::to after steps") {
  wick::manual_seed(1);
  wick::nn::Linear model(3, 2);
  optim::Adam adam(model->parameters(), 0.01);
  auto step = [&] {
    adam.zero_grad();
    model(wick::randn({4, 3}, model->weight.dtype())).pow(2).sum().backward();
    adam.step();
  };
  step();
  model->to(wick::kFloat64);
  step();  // exp_avg was float32: it follows to float64 instead of failing
  const auto state = adam.state_dict();
  CHECK(state.at("state.0.exp_avg").dtype() == wick::kFloat64);
  CHECK(state.at("state.0.step").item<int64_t>() == 2);
  CHECK(model->weight.dtype() == wick::kFloat64);
}

TEST_CASE("StepLR multiplies the rate every step_size steps, as PyTorch's StepLR") {
  Tensor w = wick::zeros({1}).requires_grad_();
  wick::optim::SGD sgd({w}, wick::optim::SGDOptions(1.0));
  wick::optim::StepLR schedule(sgd, 3, 0.5);
  // torch.optim.lr_scheduler.StepLR(opt, 3, 0.5): get_last_lr() after each of 7 steps.
  const std::vector<double> expected = {1, 1, 0.5, 0.5, 0.5, 0.25, 0.25};
  for (double lr : expected) {
    schedule.step();
    CHECK(sgd.lr() == lr);
  }
  CHECK(schedule.step_count() == 7);
  // The chained form keeps a rate set by hand between steps.
  sgd.set_lr(0.1);
  schedule.step();  // step 8: no change
  schedule.step();  // step 9: times 0.5
  CHECK(sgd.lr() == Approx(0.05));
  CHECK_THROWS_AS(wick::optim::StepLR(sgd, 0), wick::ValueError);
  CHECK_THROWS_AS(wick::optim::StepLR(sgd, 2, -1.0), wick::ValueError);
}
