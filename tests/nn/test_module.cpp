// test_module.cpp: nn::Module and its handles: sharing on copy, registration rules, the order
// and names of named_parameters, children, train/eval, zero_grad, to() keeping identity (and
// its error on a CPU-only build), Linear's initialisation, Sequential, printing.
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <wick/wick.hpp>

namespace nn = wick::nn;
using wick::Tensor;

namespace {

struct Net : nn::Module {
  Net()
      : fc1(register_module("fc1", nn::Linear(3, 4))),
        act(register_module("act", nn::Tanh())),
        fc2(register_module("fc2", nn::Linear(4, 2, /*bias=*/false))) {
    scale = register_parameter("scale", wick::ones({2}));
  }
  Tensor forward(const Tensor& x) { return fc2(act(fc1(x))) * scale; }
  nn::Linear fc1;
  nn::Tanh act;
  nn::Linear fc2;
  Tensor scale;
};

std::vector<std::string> names_of(const std::vector<nn::NamedTensor>& named) {
  std::vector<std::string> names;
  for (const auto& [name, t] : named) names.push_back(name);
  return names;
}

}  // namespace

TEST_CASE("named_parameters: dotted names in registration order, depth first") {
  Net net;
  CHECK(names_of(net.named_parameters()) ==
        std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "fc2.weight"});
  CHECK(names_of(net.named_parameters(/*recurse=*/false)) == std::vector<std::string>{"scale"});
  CHECK(net.parameters().size() == 4);
  CHECK(net.parameters()[1].is_same(net.fc1->weight));
  CHECK(net.children().size() == 3);
  CHECK(net.named_children()[1].first == "act");
  CHECK(net.children()[0].get() == net.fc1.get());
  // Sequential names its children 0, 1, ... as torch.nn.Sequential.
  nn::Sequential seq(nn::Linear(2, 3), nn::ReLU(), nn::Linear(3, 1));
  CHECK(names_of(seq->named_parameters()) ==
        std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"});
}

TEST_CASE("modules are handles: copies share parameters and registrations") {
  nn::Linear a(3, 2);
  nn::Linear b = a;  // NOLINT: the copy is the point
  CHECK(a.get() == b.get());
  CHECK(a->weight.is_same(b->weight));
  {
    wick::NoGradGuard no_grad;
    a->weight.fill_(0.5);
  }
  CHECK(b->weight.to_vector<float>() == std::vector<float>(6, 0.5f));

  Net net;
  Net copy = net;  // NOLINT
  CHECK(copy.parameters()[0].is_same(net.parameters()[0]));
  copy.register_parameter("extra", wick::zeros({1}));
  CHECK(net.named_parameters().size() == 5);  // the registry itself is shared
  net.eval();
  CHECK_FALSE(copy.is_training());

  // register_module returns the very handle it was given.
  struct Holder : nn::Module {
    nn::Linear inner{nullptr};
  } h;
  nn::Linear given(2, 2);
  h.inner = h.register_module("inner", given);
  CHECK(h.inner.get() == given.get());
  // A shared_ptr to an Impl registers too.
  auto impl = std::make_shared<nn::LinearImpl>(2, 2);
  CHECK(h.register_module("ptr", impl) == impl);
  CHECK(h.named_parameters().size() == 4);
}

TEST_CASE("a parameter shared by two modules is listed once") {
  nn::Linear a(2, 2);
  struct Pair : nn::Module {
  } pair;
  pair.register_module("first", a);
  pair.register_module("second", a);
  CHECK(names_of(pair.named_parameters()) ==
        std::vector<std::string>{"first.weight", "first.bias"});
}

TEST_CASE("registration errors") {
  Net net;
  CHECK_THROWS_AS(net.register_parameter("scale", wick::zeros({1})), wick::ValueError);
  CHECK_THROWS_AS(net.register_parameter("fc1", wick::zeros({1})), wick::ValueError);
  CHECK_THROWS_AS(net.register_parameter("a.b", wick::zeros({1})), wick::ValueError);
  CHECK_THROWS_AS(net.register_parameter("", wick::zeros({1})), wick::ValueError);
  CHECK_THROWS_AS(net.register_parameter("undefined", Tensor()), wick::ValueError);
  CHECK_THROWS_AS(net.register_parameter("ints", wick::zeros({1}, wick::kInt64)), wick::DtypeError);
  Tensor leaf = wick::ones({2}).requires_grad_();
  CHECK_THROWS_AS(net.register_parameter("computed", leaf * 2), wick::ValueError);
  CHECK_THROWS_AS(net.register_module("act", nn::ReLU()), wick::ValueError);
  CHECK_THROWS_AS(net.register_module("empty", nn::Linear(nullptr)), wick::ValueError);
  // No cycles: a module cannot contain itself.
  nn::Sequential outer;
  nn::Sequential inner;
  outer->push_back(inner);
  CHECK_THROWS_WITH(inner->register_module("loop", outer), Catch::Contains("cycle"));
  // requires_grad = false registers a non-trainable tensor (a buffer-like parameter).
  Tensor& frozen = net.register_parameter("frozen", wick::ones({1}), false);
  CHECK_FALSE(frozen.requires_grad());
  nn::Linear empty(nullptr);
  CHECK(empty.is_empty());
  CHECK_THROWS_AS(empty(wick::ones({1, 2})), wick::ValueError);
}

TEST_CASE("Linear: PyTorch's default init bounds, repeatable under manual_seed") {
  wick::manual_seed(7);
  nn::Linear a(16, 64);
  wick::manual_seed(7);
  nn::Linear b(16, 64);
  CHECK(wick::equal(a->weight, b->weight));
  CHECK(wick::equal(a->bias, b->bias));
  nn::Linear c(16, 64);  // the generator moved on
  CHECK_FALSE(wick::equal(a->weight, c->weight));

  const double bound = 1.0 / std::sqrt(16.0);  // kaiming_uniform(a = sqrt(5)) on fan_in 16
  auto w = a->weight.to_vector<float>();
  auto bias = a->bias.to_vector<float>();
  double lo = 1, hi = -1, mean = 0, sq = 0;
  for (float v : w) {
    lo = std::min(lo, double(v));
    hi = std::max(hi, double(v));
    mean += v;
    sq += double(v) * v;
  }
  mean /= double(w.size());
  sq /= double(w.size());
  CHECK(lo >= -bound);
  CHECK(hi < bound);
  CHECK(lo < -0.9 * bound);  // 1024 draws fill the interval
  CHECK(hi > 0.9 * bound);
  CHECK(std::abs(mean) < 0.03);
  CHECK(sq == Approx(bound * bound / 3).epsilon(0.1));  // variance of U(-b, b)
  for (float v : bias) CHECK(std::abs(v) <= bound);
  CHECK(a->weight.sizes() == std::vector<int64_t>{64, 16});
  CHECK(a->bias.sizes() == std::vector<int64_t>{64});
  CHECK(a->weight.requires_grad());
  CHECK(a->weight.is_leaf());
  CHECK(a->weight.dtype() == wick::kFloat32);
  CHECK_FALSE(nn::Linear(3, 2, false)->bias.defined());
  CHECK_THROWS_AS(nn::Linear(-1, 2), wick::ValueError);
}

TEST_CASE("Linear forward is x W^T + b, with a clear shape error") {
  nn::Linear linear(3, 2);
  {
    wick::NoGradGuard no_grad;
    linear->weight.copy_(wick::tensor({1.0, 2.0, 3.0, -1.0, 0.5, 0.0}).view({2, 3}));
    linear->bias.copy_(wick::tensor({0.25, -0.5}));
  }
  Tensor x = wick::tensor({1.0, 1.0, 1.0, 2.0, 0.0, -1.0}).view({2, 3});
  Tensor y = linear(x);
  CHECK(y.to_vector<float>() == std::vector<float>{6.25f, -1.0f, -0.75f, -2.5f});
  // Batched input: [..., in] -> [..., out].
  CHECK(linear(wick::zeros({4, 5, 3})).sizes() == std::vector<int64_t>{4, 5, 2});
  CHECK_THROWS_WITH(linear(wick::zeros({2, 4})), Catch::Contains("in_features = 3"));
  // Gradients reach the weight and bias.
  linear(x).sum().backward();
  CHECK(linear->weight.grad().to_vector<float>() ==
        std::vector<float>{3.0f, 1.0f, 0.0f, 3.0f, 1.0f, 0.0f});
  CHECK(linear->bias.grad().to_vector<float>() == std::vector<float>{2.0f, 2.0f});
}

TEST_CASE("activations and Sequential chain forward") {
  Tensor x = wick::tensor({-2.0, 0.0, 3.0});
  CHECK(nn::ReLU()(x).to_vector<float>() == std::vector<float>{0.0f, 0.0f, 3.0f});
  CHECK(nn::Sigmoid()(x).to_vector<float>()[1] == 0.5f);
  CHECK(nn::Tanh()(x).to_vector<float>()[2] == Approx(std::tanh(3.0)));
  nn::Sequential seq;
  CHECK(seq->is_empty());
  seq->push_back(nn::Linear(3, 3));
  seq->push_back(nn::ReLU());
  seq->push_back(std::make_shared<nn::TanhImpl>());
  CHECK(seq->size() == 3);
  auto lin = seq->ptr<nn::LinearImpl>(0);
  REQUIRE(lin != nullptr);
  CHECK(seq->ptr<nn::LinearImpl>(1) == nullptr);
  CHECK_THROWS_AS((*seq)[3], wick::IndexError);
  Tensor in = wick::randn({5, 3});
  Tensor expected = wick::tanh(wick::relu(lin->forward(in)));
  CHECK(wick::equal(seq(in), expected));
}

TEST_CASE("train, eval and zero_grad reach every descendant") {
  Net net;
  CHECK(net.is_training());
  net.eval();
  CHECK_FALSE(net.is_training());
  CHECK_FALSE(net.fc1->is_training());
  net.train();
  CHECK(net.act->is_training());
  net.forward(wick::randn({2, 3})).sum().backward();
  for (const Tensor& p : net.parameters()) CHECK(p.grad().defined());
  net.zero_grad();
  for (const Tensor& p : net.parameters()) CHECK_FALSE(p.grad().defined());
}

TEST_CASE("to(dtype) keeps each parameter's identity, so optimizers still see it") {
  Net net;
  wick::optim::SGD sgd(net.parameters(), 0.1);  // created before the move
  Tensor weight_handle = net.fc1->weight;
  auto before = weight_handle.to_vector<double>();
  net.forward(wick::randn({2, 3})).sum().backward();
  net.to(wick::kFloat64);
  CHECK(weight_handle.dtype() == wick::kFloat64);
  CHECK(sgd.parameters()[1].dtype() == wick::kFloat64);
  CHECK(net.fc1->weight.grad().dtype() == wick::kFloat64);  // gradients follow
  CHECK(weight_handle.to_vector<double>() == before);       // values exact (float widens)
  // A float64 forward/backward/step works end to end.
  sgd.zero_grad();
  net.forward(wick::randn({2, 3}, wick::kFloat64)).sum().backward();
  sgd.step();
  CHECK(net.fc1->weight.grad().dtype() == wick::kFloat64);
  CHECK_THROWS_AS(net.to(wick::kInt64), wick::DtypeError);
  CHECK(net.fc1->weight.dtype() == wick::kFloat64);
  // As PyTorch's Module.to: an integer dtype is refused whatever the module holds (a parameter
  // that does not require grad was cast to it), and an integer parameter keeps its dtype under
  // a floating cast (it became float32). Found by review.
  nn::Linear frozen(2, 2);
  frozen->register_parameter("codes", wick::ones({2}, wick::kInt64), /*requires_grad=*/false);
  frozen->register_parameter("scale", wick::ones({2}), /*requires_grad=*/false);
  CHECK_THROWS_AS(frozen->to(wick::kInt64), wick::DtypeError);
  CHECK(frozen->named_parameters()[3].second.dtype() == wick::kFloat32);
  frozen->to(wick::kFloat64);
  CHECK(frozen->named_parameters()[2].second.dtype() == wick::kInt64);
  CHECK(frozen->named_parameters()[3].second.dtype() == wick::kFloat64);
}

TEST_CASE("to(device): a CPU-only build says why and leaves the module unchanged") {
  Net net;
  net.to(wick::kCPU);  // no-op
  CHECK(net.fc1->weight.device() == wick::Device(wick::kCPU));
  if (wick::cuda::is_available()) {
    Tensor handle = net.fc1->weight;
    net.to(wick::kCUDA);
    CHECK(handle.is_cuda());
    net.to(wick::kCPU);
    CHECK(handle.is_cpu());
    return;
  }
  auto before = net.fc1->weight.to_vector<float>();
  CHECK_THROWS_AS(net.to(wick::kCUDA), wick::DeviceError);
  CHECK(net.fc1->weight.is_cpu());
  CHECK(net.fc1->weight.to_vector<float>() == before);
}

TEST_CASE("modules print as PyTorch prints them") {
  nn::Sequential seq(nn::Linear(2, 8), nn::ReLU(), nn::Linear(8, 1, false));
  std::ostringstream out;
  out << seq;
  CHECK(out.str() ==
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=8, bias=true)\n"
        "  (1): ReLU()\n"
        "  (2): Linear(in_features=8, out_features=1, bias=false)\n"
        ")");
  Net net;
  CHECK(net.name() == "Net");
  CHECK(nn::MSELoss()->name() == "MSELoss");
}

namespace {
// A module with running statistics, as BatchNorm keeps them: a float buffer, an int64 counter.
struct Stats : nn::Module {
  Stats() : inner(nn::Linear(2, 2)) {
    gain = register_parameter("gain", wick::ones({2}));
    running_mean = register_buffer("running_mean", wick::zeros({2}));
    steps = register_buffer("steps", wick::zeros({}, wick::kInt64));
    register_module("inner", inner);
  }
  Tensor gain, running_mean, steps;
  nn::Linear inner;
};
}  // namespace

TEST_CASE("buffers: registered, walked, moved by to(), never trained") {
  Stats m;
  CHECK(names_of(m.named_buffers()) == std::vector<std::string>{"running_mean", "steps"});
  CHECK(names_of(m.named_parameters()) ==
        std::vector<std::string>{"gain", "inner.weight", "inner.bias"});
  CHECK(m.buffers().size() == 2);
  CHECK_FALSE(m.running_mean.requires_grad());
  // Nested buffers get dotted names.
  nn::Sequential seq(nn::Linear(2, 2));
  seq->register_module("stats", std::make_shared<Stats>());
  CHECK(names_of(seq->named_buffers()) ==
        std::vector<std::string>{"stats.running_mean", "stats.steps"});
  CHECK(seq->named_buffers(/*recurse=*/false).empty());
  // A registered tensor that requires grad is stored detached.
  Tensor leaf = wick::ones({1}).requires_grad_();
  CHECK_FALSE(m.register_buffer("detached", leaf).requires_grad());
  // Names are shared with parameters and children.
  CHECK_THROWS_AS(m.register_buffer("gain", wick::zeros({1})), wick::ValueError);
  CHECK_THROWS_AS(m.register_buffer("inner", wick::zeros({1})), wick::ValueError);
  CHECK_THROWS_AS(m.register_parameter("steps", wick::zeros({1})), wick::ValueError);
  CHECK_THROWS_AS(m.register_buffer("a.b", wick::zeros({1})), wick::ValueError);
  CHECK_THROWS_AS(m.register_buffer("undefined", Tensor()), wick::ValueError);
  // to(dtype) casts floating buffers in place and leaves integer ones, as PyTorch.
  Tensor handle = m.running_mean;
  m.to(wick::kFloat64);
  CHECK(m.running_mean.dtype() == wick::kFloat64);
  CHECK(handle.dtype() == wick::kFloat64);  // the same TensorImpl
  CHECK(m.steps.dtype() == wick::kInt64);
  CHECK(m.gain.dtype() == wick::kFloat64);
  if (!wick::cuda::is_available()) {
    // All-or-nothing: a failed move leaves buffers where they were.
    CHECK_THROWS(m.to(wick::Device("cuda")));
    CHECK(m.running_mean.device() == wick::kCPU);
    CHECK(m.running_mean.dtype() == wick::kFloat64);
  }
}
