// test_optim.cpp: SGD, Adam, AdamW, RMSprop and Adagrad option by option against a scalar
// reference written here from torch.optim's formulas (double, element by element; RMSprop and
// Adagrad also against torch 1.13's values), over several steps with gradients
// that depend on the parameters; parameter checks and option validation; zero_grad; set_lr;
// state_dict round trips (resuming from a checkpoint file gives the uninterrupted result).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
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

// torch.optim.RMSprop, element by element.
struct RmspropReference {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered;
  std::vector<double> v = std::vector<double>(kSize, 0.0);
  std::vector<double> m = std::vector<double>(kSize, 0.0);
  std::vector<double> b = std::vector<double>(kSize, 0.0);
  void operator()(std::vector<double>& p, const std::vector<double>& g0, int) {
    for (int i = 0; i < kSize; ++i) {
      const double g = g0[i] + weight_decay * p[i];
      v[i] = alpha * v[i] + (1 - alpha) * g * g;
      m[i] = alpha * m[i] + (1 - alpha) * g;
      const double avg = std::sqrt(centered ? v[i] - m[i] * m[i] : v[i]) + eps;
      if (momentum > 0) {
        b[i] = momentum * b[i] + g / avg;
        p[i] -= lr * b[i];
      } else {
        p[i] -= lr * g / avg;
      }
    }
  }
};

// torch.optim.Adagrad, element by element.
struct AdagradReference {
  double lr, lr_decay, weight_decay, initial, eps;
  std::vector<double> sum = std::vector<double>(kSize, initial);
  void operator()(std::vector<double>& p, const std::vector<double>& g0, int t) {
    const double clr = lr / (1 + (t - 1) * lr_decay);
    for (int i = 0; i < kSize; ++i) {
      const double g = g0[i] + weight_decay * p[i];
      sum[i] += g * g;
      p[i] -= clr * g / (std::sqrt(sum[i]) + eps);
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

TEST_CASE("RMSprop and Adagrad: every option against torch.optim's formulas and values") {
  using Fn = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;
  // torch 1.13's parameters after the same 6 steps (float64, tests/nn/make_optim_golden.py).
  struct Case {
    const char* name;
    Fn make;
    std::function<void(std::vector<double>&, const std::vector<double>&, int)> reference;
    std::vector<double> torch_values;
  };
  const std::vector<Case> cases = {
      {"RMSprop()",
       [](std::vector<Tensor> ps) { return std::make_unique<optim::RMSprop>(ps); },
       RmspropReference{1e-2, 0.99, 1e-8, 0, 0, false},
       {-0.93425959492529809, -0.53163118019488009, 0.048859368934136969, 0.19999999999999996,
        0.55532973890337212, 0.63446633380656714}},
      {"RMSprop(lr 0.05, alpha 0.9, eps 1e-3, weight_decay 0.1, momentum 0.5, centered)",
       [](std::vector<Tensor> ps) {
         return std::make_unique<optim::RMSprop>(ps, optim::RMSpropOptions(0.05)
                                                         .alpha(0.9)
                                                         .eps(1e-3)
                                                         .weight_decay(0.1)
                                                         .momentum(0.5)
                                                         .centered(true));
       },
       RmspropReference{0.05, 0.9, 1e-3, 0.1, 0.5, true},
       {-1.5220118821403696, -0.73721070858710547, 0.37180398074288484, 0.024496517324605248,
        0.53803975563147155, 0.26303443933720455}},
      {"RMSprop(lr 0.02, centered)",
       [](std::vector<Tensor> ps) {
         return std::make_unique<optim::RMSprop>(ps, optim::RMSpropOptions(0.02).centered(true));
       },
       RmspropReference{0.02, 0.99, 1e-8, 0, 0, true},
       {-1.2554442353032176, -0.70481299694205624, 0.20236379280588107, 0.19999999999999996,
        0.60309368505949201, 0.49456868965790113}},
      {"Adagrad()",
       [](std::vector<Tensor> ps) { return std::make_unique<optim::Adagrad>(ps); },
       AdagradReference{1e-2, 0, 0, 0, 1e-10},
       {-0.72043575244392433, -0.41184998580139526, -0.085933255028212197, 0.19999999999999996,
        0.50582553729862234, 0.78129390063577586}},
      {"Adagrad(lr 0.1, lr_decay 0.3, weight_decay 0.2, initial_accumulator_value 0.5, eps 1e-4)",
       [](std::vector<Tensor> ps) {
         return std::make_unique<optim::Adagrad>(ps, optim::AdagradOptions(0.1)
                                                         .lr_decay(0.3)
                                                         .weight_decay(0.2)
                                                         .initial_accumulator_value(0.5)
                                                         .eps(1e-4));
       },
       AdagradReference{0.1, 0.3, 0.2, 0.5, 1e-4},
       {-0.83231281609642338, -0.45632407243261536, -0.039158145205662402, 0.17964248325445373,
        0.51305938876174773, 0.68443399305650154}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    check_against_reference(c.make, c.reference);
    // And the values torch.optim gives.
    std::vector<double> values = initial_values();
    Tensor p = wick::tensor(values).requires_grad_();
    auto opt = c.make({p});
    for (int k = 1; k <= kSteps; ++k) {
      opt->zero_grad();
      p.mutable_grad() = wick::tensor(gradient_at(k, p.to_vector<double>()));
      opt->step();
    }
    const auto got = p.to_vector<double>();
    for (int i = 0; i < kSize; ++i) {
      INFO("element " << i);
      CHECK(got[i] == Approx(c.torch_values[static_cast<size_t>(i)]).epsilon(1e-14).margin(1e-15));
    }
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
  optim::RMSpropOptions rmsprop;
  CHECK(rmsprop.lr() == 1e-2);
  CHECK(rmsprop.alpha() == 0.99);
  CHECK(rmsprop.eps() == 1e-8);
  CHECK(rmsprop.weight_decay() == 0);
  CHECK(rmsprop.momentum() == 0);
  CHECK_FALSE(rmsprop.centered());
  optim::AdagradOptions adagrad;
  CHECK(adagrad.lr() == 1e-2);
  CHECK(adagrad.lr_decay() == 0);
  CHECK(adagrad.weight_decay() == 0);
  CHECK(adagrad.initial_accumulator_value() == 0);
  CHECK(adagrad.eps() == 1e-10);
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
  using RO = optim::RMSpropOptions;
  for (const RO& bad :
       {RO(-1), RO().alpha(-0.1), RO().eps(-1), RO().weight_decay(-1), RO().momentum(-0.5)}) {
    CHECK_THROWS_WITH(optim::RMSprop(params(), bad), Catch::Contains("RMSprop"));
  }
  using AO = optim::AdagradOptions;
  for (const AO& bad : {AO(-1), AO().lr_decay(-1), AO().weight_decay(-1),
                        AO().initial_accumulator_value(-1), AO().eps(-1)}) {
    CHECK_THROWS_WITH(optim::Adagrad(params(), bad), Catch::Contains("Adagrad"));
  }
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
  run(
      [](std::vector<Tensor> p) {
        return optim::RMSprop(p, optim::RMSpropOptions(0.1).momentum(0.5).centered(true));
      },
      "RMSprop");
  run([](std::vector<Tensor> p) { return optim::Adagrad(p, optim::AdagradOptions(0.1)); },
      "Adagrad");
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
  for (int kind : {0, 1, 2, 3}) {
    const bool adam = kind == 1;
    // SGD with momentum, Adam with amsgrad, RMSprop with every buffer, Adagrad.
    auto make = [kind](std::vector<Tensor> params) -> std::unique_ptr<optim::Optimizer> {
      if (kind == 1)
        return std::make_unique<optim::Adam>(params, optim::AdamOptions(0.05).amsgrad(true));
      if (kind == 2) {
        return std::make_unique<optim::RMSprop>(
            params, optim::RMSpropOptions(0.05).momentum(0.5).centered(true));
      }
      if (kind == 3) {
        return std::make_unique<optim::Adagrad>(params, optim::AdagradOptions(0.1).lr_decay(0.1));
      }
      return std::make_unique<optim::SGD>(params, optim::SGDOptions(0.1).momentum(0.9));
    };
    INFO("optimizer kind " << kind);
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
    if (kind >= 2) {
      // Every buffer is in the file, and a state missing one is refused.
      const auto saved = opt2->state_dict();
      const std::vector<std::string> buffers =
          kind == 2 ? std::vector<std::string>{"step", "square_avg", "momentum_buffer", "grad_avg"}
                    : std::vector<std::string>{"step", "sum"};
      for (const std::string& name : buffers) {
        INFO(name);
        CHECK(saved.count("state.0." + name) == 1);
        auto partial = saved;
        partial.erase("state.0." + name);
        CHECK_THROWS_WITH(opt3->load_state_dict(partial), Catch::Contains("parameter 0"));
      }
      continue;
    }
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

TEST_CASE("ExponentialLR, MultiStepLR, CosineAnnealingLR and LambdaLR give torch's rates") {
  // torch.optim.lr_scheduler's get_last_lr() after each step (torch 1.13, SGD at lr 1, 1, 0.5
  // and 0.2 as below).
  const auto run = [](optim::LRScheduler& schedule, optim::Optimizer& opt,
                      const std::vector<double>& expected) {
    for (size_t k = 0; k < expected.size(); ++k) {
      INFO("step " << k + 1);
      schedule.step();
      CHECK(opt.lr() == Approx(expected[k]).epsilon(1e-15).margin(1e-17));
    }
  };
  Tensor w = wick::zeros({1}).requires_grad_();
  {
    optim::SGD sgd({w}, optim::SGDOptions(1.0));
    optim::ExponentialLR schedule(sgd, 0.7);
    run(schedule, sgd,
        {0.69999999999999996, 0.48999999999999994, 0.34299999999999992, 0.24009999999999992,
         0.16806999999999994, 0.11764899999999995, 0.082354299999999964, 0.057648009999999972});
  }
  {
    // A repeated milestone multiplies twice.
    optim::SGD sgd({w}, optim::SGDOptions(1.0));
    optim::MultiStepLR schedule(sgd, {2, 5, 5, 9}, 0.5);
    run(schedule, sgd, {1, 0.5, 0.5, 0.5, 0.125, 0.125, 0.125, 0.125, 0.0625, 0.0625});
  }
  {
    // Down to eta_min over T_max = 4 steps, back up, and down again.
    optim::SGD sgd({w}, optim::SGDOptions(0.5));
    optim::CosineAnnealingLR schedule(sgd, 4, 0.1);
    run(schedule, sgd,
        {0.44142135623730949, 0.30000000000000004, 0.15857864376269054, 0.10000000000000001,
         0.15857864376269049, 0.30000000000000004, 0.4414213562373096, 0.50000000000000011,
         0.4414213562373096, 0.30000000000000016, 0.15857864376269071, 0.10000000000000001,
         0.15857864376269049, 0.2999999999999996});
  }
  {
    // A linear warm-up over 4 steps; the constructor already sets base * factor(0).
    optim::SGD sgd({w}, optim::SGDOptions(0.2));
    optim::LambdaLR schedule(sgd, [](int64_t e) { return std::min(1.0, double(e + 1) / 4); });
    CHECK(sgd.lr() == Approx(0.05));
    run(schedule, sgd, {0.1, 0.15, 0.2, 0.2, 0.2, 0.2});
    // A bad factor is a ValueError, and the failed step changes nothing.
    optim::LambdaLR bad(sgd, [](int64_t e) { return e == 2 ? -1.0 : 1.0; });
    bad.step();
    const double before = sgd.lr();
    CHECK_THROWS_WITH(bad.step(), Catch::Contains("LambdaLR") && Catch::Contains("step 2"));
    CHECK(bad.step_count() == 1);
    CHECK(sgd.lr() == before);
  }
  {
    // Chained schedulers share one base rate, the optimizer's initial_lr (torch 1.13:
    // LambdaLR(min(1, (e + 1) / 4)) then CosineAnnealingLR(T_max 2), both stepped, from 0.5;
    // and LambdaLR(0.1) then LambdaLR(1 / (e + 1))).
    optim::SGD sgd({w}, optim::SGDOptions(0.5));
    optim::LambdaLR warm_up(sgd, [](int64_t e) { return std::min(1.0, double(e + 1) / 4); });
    optim::CosineAnnealingLR cosine(sgd, 2, 0.0);
    CHECK(sgd.initial_lr() == 0.5);
    const std::vector<double> chained{
        0.125, 0, 0.75, 1.0000000000000002, 0.25000000000000006, 0, 0.75, 1.0000000000000004};
    for (size_t k = 0; k < chained.size(); ++k) {
      INFO("step " << k + 1);
      warm_up.step();
      cosine.step();
      CHECK(sgd.lr() == Approx(chained[k]).epsilon(1e-15).margin(1e-17));
    }
    optim::SGD second({w}, optim::SGDOptions(0.5));
    optim::LambdaLR tenth(second, [](int64_t) { return 0.1; });
    optim::LambdaLR decay(second, [](int64_t e) { return 1.0 / double(e + 1); });
    const std::vector<double> both{0.25, 0.16666666666666666, 0.125, 0.10000000000000001};
    for (size_t k = 0; k < both.size(); ++k) {
      tenth.step();
      decay.step();
      CHECK(second.lr() == Approx(both[k]).epsilon(1e-15));
    }
    // initial_lr travels with the optimizer's state, so a scheduler made after a load starts
    // from the original base, as torch's.
    optim::SGD resumed({w}, optim::SGDOptions(0.01));
    resumed.load_state_dict(second.state_dict());
    CHECK(resumed.initial_lr() == 0.5);
    optim::LambdaLR again(resumed, [](int64_t) { return 1.0; });
    CHECK(resumed.lr() == 0.5);
  }
  optim::SGD sgd({w}, optim::SGDOptions(1.0));
  // A rejected scheduler leaves the optimizer as it was (no initial_lr taken).
  CHECK_THROWS_AS(optim::LambdaLR(sgd, [](int64_t) { return -1.0; }), wick::ValueError);
  CHECK_FALSE(sgd.initial_lr().has_value());
  CHECK_THROWS_AS(optim::ExponentialLR(sgd, -0.5), wick::ValueError);
  CHECK_THROWS_AS(optim::MultiStepLR(sgd, {0, 3}), wick::ValueError);
  CHECK_THROWS_AS(optim::MultiStepLR(sgd, {3}, std::nan("")), wick::ValueError);
  CHECK_THROWS_AS(optim::CosineAnnealingLR(sgd, 0), wick::ValueError);
  CHECK_THROWS_AS(optim::CosineAnnealingLR(sgd, INT64_MAX), wick::ValueError);
  CHECK_THROWS_AS(optim::CosineAnnealingLR(sgd, 3, -1.0), wick::ValueError);
  CHECK_THROWS_AS(optim::LambdaLR(sgd, nullptr), wick::ValueError);
  CHECK(sgd.lr() == 1.0);
  CHECK_FALSE(sgd.initial_lr().has_value());
}
