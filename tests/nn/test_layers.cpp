// test_layers.cpp: Dropout and LayerNorm (module and functional forms) against PyTorch 1.13
// (values from python3-torch, float64), gradcheck, the training/eval switch, printing and errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <wick/wick.hpp>

namespace nn = wick::nn;
namespace F = wick::nn::functional;
using wick::Tensor;
using wick::TensorOptions;

namespace {
const TensorOptions kF64 = TensorOptions(wick::kFloat64);

void check_values(const Tensor& got, const std::vector<double>& want, double tol = 1e-12) {
  const std::vector<double> g = got.to(wick::kFloat64).to_vector<double>();
  REQUIRE(g.size() == want.size());
  for (size_t i = 0; i < g.size(); ++i) {
    INFO("element " << i);
    CHECK(std::fabs(g[i] - want[i]) <= tol * (1 + std::fabs(want[i])));
  }
}
}  // namespace

TEST_CASE("layer_norm: values and gradients as torch.nn.functional.layer_norm") {
  // x = [[0.5, -1.25, 2, 0.75], [3, 3.5, -2, 0.25], [1, 1, 1, 1.5]] (float64), w = [1.5, -0.5, 2,
  // 1], b = [0.1, 0.2, -0.3, 0], eps 1e-5; y.backward(seed) with the seed below.
  Tensor x = wick::tensor({0.5, -1.25, 2.0, 0.75, 3.0, 3.5, -2.0, 0.25, 1.0, 1.0, 1.0, 1.5}, kF64)
                 .reshape({3, 4})
                 .requires_grad_();
  Tensor w = wick::tensor({1.5, -0.5, 2.0, 1.0}, kF64).requires_grad_();
  Tensor b = wick::tensor({0.1, 0.2, -0.3, 0.0}, kF64).requires_grad_();
  Tensor y = F::layer_norm(x, {4}, w, b, 1e-5);
  check_values(y,
               {0.1, 0.954826603772164, 2.2879769272188484, 0.215664743934904, 1.3259590116795454,
                -0.3213848670361285, -3.174662510145141, -0.42274448678605014, -0.7659330425189076,
                0.48864434750630253, -1.4545773900252101, 1.7318660850378165});
  Tensor seed =
      wick::tensor({1.0, -2.0, 0.5, 3.0, 0.25, 1.0, -1.0, 2.0, -0.5, 0.5, 1.5, -1.0}, kF64)
          .reshape({3, 4});
  y.backward(seed);
  check_values(x.grad(),
               {-0.10783237196745188, -0.3987300483954541, -0.6595319839302364, 1.166094404293143,
                0.016028142521916797, -0.42464679505367164, -0.5937903915833277, 1.0024090441150826,
                -6.542194781295674, -4.233040001245252, 10.776466069082488, -0.0012312865415680108},
               1e-10);
  check_values(w.grad(),
               {0.49297084945289343, 3.7734318016546107, 1.2183924443583751, -1.9303608268052046},
               1e-10);
  check_values(b.grad(), {0.75, -0.5, 1.0, 4.0});
  // Over two dims, no affine: layer_norm(x.reshape(3, 2, 2), [2, 2], eps=1e-3).
  check_values(F::layer_norm(x.detach().reshape({3, 2, 2}), {2, 2}, Tensor(), Tensor(), 1e-3),
               {0.0, -1.5090974046632908, 1.2935120611399635, 0.21558534352332726,
                0.8172237574504906, 1.042664793988557, -1.437186607930173, -0.42270194350887436,
                -0.5712886811237876, -0.5712886811237876, -0.5712886811237876, 1.7138660433713628});
  // Central differences agree (every input, weight and bias).
  const std::string failure = wick::autograd::gradcheck(
      [](const std::vector<Tensor>& v) {
        return F::layer_norm(v[0], {2, 3}, v[1], v[2], 1e-3);
      },
      {wick::randn({2, 2, 3}, kF64).requires_grad_(), wick::randn({2, 3}, kF64).requires_grad_(),
       wick::randn({2, 3}, kF64).requires_grad_()});
  CHECK(failure.empty());
}

TEST_CASE("LayerNorm: parameters, forward, printing and shape errors") {
  nn::LayerNorm norm(wick::Shape{4});
  REQUIRE(norm->named_parameters().size() == 2);
  CHECK(norm->named_parameters()[0].first == "weight");
  CHECK(norm->weight.to_vector<float>() == std::vector<float>(4, 1.0f));
  CHECK(norm->bias.to_vector<float>() == std::vector<float>(4, 0.0f));
  Tensor x = wick::randn({5, 4});
  Tensor y = norm(x);
  // Each row: mean 0 and biased variance 1 / (1 + eps / var), to float32 rounding.
  const std::vector<double> mean = y.mean(1).to(wick::kFloat64).to_vector<double>();
  for (double m : mean) CHECK(std::fabs(m) < 1e-6);
  std::ostringstream out;
  out << nn::Sequential(nn::LayerNorm(wick::Shape{4}), nn::Dropout(0.25),
                        nn::LayerNorm(wick::Shape{2, 3}, 1e-3, false));
  CHECK(out.str() ==
        "Sequential(\n"
        "  (0): LayerNorm([4], eps=1e-05, elementwise_affine=true)\n"
        "  (1): Dropout(p=0.25, inplace=false)\n"
        "  (2): LayerNorm([2, 3], eps=0.001, elementwise_affine=false)\n"
        ")");
  CHECK(nn::LayerNorm(wick::Shape{2, 3}, 1e-3, false)->parameters().empty());
  CHECK_THROWS_WITH(norm(wick::ones({2, 3})), Catch::Contains("layer_norm") &&
                                                  Catch::Contains("[*, 4]") &&
                                                  Catch::Contains("[2, 3] float32 cpu"));
  CHECK_THROWS_AS(F::layer_norm(wick::ones({2, 4}), {4}, wick::ones({3})), wick::ShapeError);
  CHECK_THROWS_AS(F::layer_norm(wick::ones({2, 4}, TensorOptions(wick::kInt64)), {4}),
                  wick::DtypeError);
  CHECK_THROWS_AS(nn::LayerNorm(wick::Shape{}), wick::ValueError);
}

TEST_CASE("dropout: zeroes with probability p, scales the rest, only in training") {
  wick::manual_seed(7);
  const double p = 0.25;
  Tensor x = (wick::rand({200, 500}) + 0.5).requires_grad_();
  wick::manual_seed(11);
  Tensor y = F::dropout(x, p, true);
  const std::vector<float> xs = x.to_vector<float>(), ys = y.to_vector<float>();
  int64_t zeros = 0;
  for (size_t i = 0; i < ys.size(); ++i) {
    if (ys[i] == 0) {
      ++zeros;
    } else if (ys[i] != xs[i] * (1.0f / 0.75f)) {  // PyTorch's order: x * (1 / (1 - p))
      FAIL_CHECK("element " << i << " is " << ys[i] << ", not " << xs[i] << " / 0.75");
      break;
    }
  }
  // 100000 Bernoulli(0.25) draws: 25000 +- 137 (one sigma); 6 sigma either side.
  CHECK(std::abs(zeros - 25000) < 822);
  // The gradient is the mask scaled the same way.
  y.sum().backward();
  const std::vector<float> g = x.grad().to_vector<float>();
  for (size_t i = 0; i < g.size(); ++i) {
    if (g[i] != (ys[i] == 0 ? 0.0f : 1.0f / 0.75f)) {
      FAIL_CHECK("gradient element " << i << " is " << g[i]);
      break;
    }
  }
  // Repeatable under manual_seed; eval and p = 0 pass the input through; p = 1 gives zeros.
  wick::manual_seed(11);
  CHECK(wick::equal(F::dropout(x.detach(), p, true), y.detach()));
  nn::Dropout drop(p);
  drop->eval();
  CHECK(drop(x).is_same(x));
  CHECK(F::dropout(x, 0.0).is_same(x));
  CHECK(F::dropout(x, 1.0).abs().sum().item<float>() == 0.0f);
  drop->train();
  CHECK(drop(x).eq(0).sum().item<int64_t>() > 0);
  CHECK_THROWS_WITH(F::dropout(x, 1.5),
                    Catch::Contains("dropout probability has to be between 0 and 1, but got 1.5"));
  CHECK_THROWS_AS(nn::Dropout(-0.1), wick::ValueError);
  CHECK_THROWS_AS(F::dropout(wick::ones({3}, TensorOptions(wick::kInt64))), wick::DtypeError);
}

TEST_CASE("GELU (exact and tanh) and SiLU match python3-torch 1.13 and pass gradcheck") {
  const std::vector<double> x = {-6.0, -3.0, -1.5, -0.5, -1e-3, 0.0, 1e-3, 0.5, 1.0, 2.5, 5.0, 9.0};
  // torch.nn.functional.gelu / silu of these values in float64 (python3-torch 1.13).
  const std::vector<double> gelu_none = {
      -5.919525869479969e-09, -0.00404969409489031,  -0.10021080190328704,
      -0.15426876936299344,   -0.000499601057786089, 0.0,
      0.000500398942213911,   0.34573123063700656,   0.841344746068543,
      2.4844758366855597,     4.999998566742141,     9.0};
  const std::vector<double> gelu_tanh = {
      -8.43964897967453e-11, -0.0036373920817729943, -0.10042842301976707,
      -0.15428599017485606,  -0.000499601057786418,  0.0,
      0.000500398942213582,  0.34571400982514394,    0.8411919906082768,
      2.484915733910001,     4.999999770820381,      9.0};
  const std::vector<double> silu = {
      -0.014835738939808647, -0.14227761953270035,   -0.2736382857095345,
      -0.1887703343990727,   -0.0004997500000208334, 0.0,
      0.0005002499999791667, 0.3112296656009273,     0.7310585786300049,
      2.3103545499468914,    4.966535745378576,      8.998889448816124};
  const auto opts = wick::TensorOptions(wick::kFloat64);
  Tensor t = wick::tensor(x, opts);
  // Relative error, or absolute where 1 + erf (or 1 + tanh) cancels: float32 GELU at x = -3
  // is 4e-5 off in relative terms in PyTorch's float32 too (-0.0040498674 against -0.0040496941).
  auto check = [](const Tensor& got, const std::vector<double>& want, double tol) {
    const std::vector<double> v = got.to(wick::kFloat64).to_vector<double>();
    REQUIRE(v.size() == want.size());
    for (size_t i = 0; i < v.size(); ++i) {
      INFO("element " << i);
      CHECK(v[i] == Approx(want[i]).epsilon(tol).margin(tol));
    }
  };
  check(nn::GELU()(t), gelu_none, 1e-14);
  check(nn::GELU("tanh")(t), gelu_tanh, 1e-14);
  check(nn::SiLU()(t), silu, 1e-14);
  check(nn::F::gelu(t.to(wick::kFloat32)), gelu_none, 1e-6);
  check(nn::F::gelu(t.to(wick::kFloat32), "tanh"), gelu_tanh, 1e-6);
  check(nn::F::silu(t.to(wick::kFloat32)), silu, 1e-6);
  CHECK(nn::F::gelu(t.to(wick::kFloat32)).dtype() == wick::kFloat32);
  std::ostringstream printed;
  printed << nn::GELU("tanh") << " " << nn::SiLU();
  CHECK(printed.str() == "GELU(approximate='tanh') SiLU()");
  CHECK_THROWS_AS(nn::GELU("fast"), wick::ValueError);
  CHECK_THROWS_AS(nn::F::gelu(wick::ones({2}, wick::kInt64)), wick::DtypeError);
  // Gradients: gelu's through erf's rule, d erf / dx = 2 / sqrt(pi) e^(-x^2).
  wick::manual_seed(8);
  Tensor a = wick::randn({3, 4}, opts.requires_grad(true)) * 2.0;
  a = a.detach().requires_grad_();
  for (const std::string mode : {"none", "tanh"}) {
    CHECK(wick::autograd::gradcheck(
              [&](const std::vector<Tensor>& in) { return nn::F::gelu(in[0], mode); }, {a}) == "");
  }
  CHECK(wick::autograd::gradcheck([](const std::vector<Tensor>& in) { return nn::F::silu(in[0]); },
                                  {a}) == "");
}

TEST_CASE("LeakyReLU, Softmax, LogSoftmax and Flatten modules", "[nn]") {
  // torch 1.13: leaky_relu([-2, 0, -0, 3, nan], 0.1) = [-0.2, 0, -0, 3, nan]; the gradient is
  // the slope at 0 and at NaN.
  Tensor x = wick::tensor({-2.0, 0.0, -0.0, 3.0, std::nan("")}).requires_grad_();
  nn::LeakyReLU leaky(0.1);
  const Tensor y = leaky(x);
  const std::vector<float> v = y.to_vector<float>();
  CHECK(v[0] == -0.2f);
  CHECK((v[1] == 0.0f && !std::signbit(v[1])));
  CHECK((v[2] == 0.0f && std::signbit(v[2])));
  CHECK(v[3] == 3.0f);
  CHECK(std::isnan(v[4]));
  y.sum().backward();
  CHECK(x.grad().to_vector<float>() == std::vector<float>{0.1f, 0.1f, 0.1f, 1.0f, 0.1f});
  CHECK(leaky->extra_repr() == "negative_slope=0.1");
  CHECK(nn::LeakyReLU()->extra_repr() == "negative_slope=0.01");
  CHECK_THROWS_AS(nn::functional::leaky_relu(wick::tensor({1, 2})), wick::DtypeError);

  const Tensor m = wick::randn({3, 4});
  CHECK(wick::equal(nn::Softmax(1)(m), wick::softmax(m, 1)));
  CHECK(wick::equal(nn::LogSoftmax(0)(m), wick::log_softmax(m, 0)));
  CHECK(nn::Softmax(-1)->extra_repr() == "dim=-1");

  // Flatten: everything but the batch dim by default; a view of a contiguous input.
  const Tensor images = wick::randn({2, 3, 4, 5});
  const Tensor flat = nn::Flatten()(images);
  CHECK(flat.sizes() == wick::Shape{2, 60});
  CHECK(flat.storage().get() == images.storage().get());
  CHECK(nn::Flatten(0, 1)(images).sizes() == wick::Shape{6, 4, 5});
  CHECK(nn::Flatten()->extra_repr() == "start_dim=1, end_dim=-1");
  // In a Sequential, after a convolution.
  nn::Sequential net(nn::Conv2d(3, 2, 3), nn::LeakyReLU(), nn::Flatten(), nn::Linear(2 * 2 * 3, 1));
  CHECK(net(images).sizes() == wick::Shape{2, 1});
}

namespace {
// A residual stack that owns its blocks through a ModuleList, as PyTorch models do.
struct StackImpl : nn::Module {
  explicit StackImpl(int64_t width) {
    layers = register_module("layers", nn::ModuleList());
    for (int i = 0; i < 3; ++i) layers->push_back(nn::Linear(width, width));
    layers->push_back(nn::Sequential(nn::ReLU()));
  }
  Tensor forward(const Tensor& x) {
    Tensor h = x;
    for (size_t i = 0; i + 1 < layers->size(); ++i) {
      h = h + layers->at<nn::LinearImpl>(i).forward(h);
    }
    return layers->ptr<nn::SequentialImpl>(layers->size() - 1)->forward(h);
  }
  nn::ModuleList layers{nullptr};
};
WICK_MODULE(Stack);
}  // namespace

TEST_CASE("ModuleList: names, indexing, iteration, extend, errors", "[nn]") {
  Stack stack(4);
  std::vector<std::string> names;
  for (const auto& [name, p] : stack->named_parameters()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"layers.0.weight", "layers.0.bias", "layers.1.weight",
                                          "layers.1.bias", "layers.2.weight", "layers.2.bias"});
  size_t visited = 0;
  for (const auto& module : *stack->layers) visited += module != nullptr;
  CHECK(visited == 4);
  CHECK(stack->layers->ptr<nn::LinearImpl>(3) == nullptr);  // the Sequential
  // The owner's forward runs and trains: the loss falls over a few SGD steps.
  wick::manual_seed(5);
  const Tensor x = wick::randn({16, 4});
  const Tensor target = wick::relu(x * 0.5 + 0.25);
  wick::optim::SGD sgd(stack->parameters(), wick::optim::SGDOptions(0.05));
  double first = 0, last = 0;
  for (int step = 0; step < 30; ++step) {
    sgd.zero_grad();
    Tensor loss = wick::nn::functional::mse_loss(stack(x), target);
    loss.backward();
    sgd.step();
    (step == 0 ? first : last) = loss.item<double>();
  }
  CHECK(last < 0.5 * first);
  // extend shares the modules; extending a list by itself doubles it.
  nn::ModuleList list(nn::Linear(2, 2), nn::ReLU());
  nn::ModuleList more;
  more->extend(*list);
  CHECK(more->size() == 2);
  CHECK(more[0] == list[0]);
  list->extend(*list);
  CHECK(list->size() == 4);
  CHECK(list->parameters().size() == 2);  // shared modules appear once
  std::ostringstream printed;
  printed << more;
  CHECK(printed.str() ==
        "ModuleList(\n  (0): Linear(in_features=2, out_features=2, bias=true)\n  (1): ReLU()\n)");
  CHECK_THROWS_WITH(list[7], Catch::Contains("nn::ModuleList") && Catch::Contains("index 7") &&
                                 Catch::Contains("4 modules"));
  CHECK_THROWS_AS(list[7], wick::IndexError);
  CHECK_THROWS_WITH(list->at<nn::LinearImpl>(1), Catch::Contains("ReLU"));
  CHECK_THROWS_AS(list->push_back(nn::Linear(nullptr)), wick::ValueError);
  CHECK_THROWS_AS(list->push_back(list.ptr()), wick::ValueError);  // a cycle
  CHECK(list->size() == 4);  // the refused pushes left it as it was
}
