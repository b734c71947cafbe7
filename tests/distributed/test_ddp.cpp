// test_ddp.cpp: DistributedDataParallel. The acceptance check: with n ranks, each training on
// its slice of a global batch of 12, five steps give the parameters of one process training on
// the whole batch (float64, |difference| <= 1e-12), for SGD with momentum, Nesterov and weight
// decay, Adam and AdamW, with one bucket or one bucket per parameter; the ranks start from
// different random initialisations (the broadcast must fix that) and end bit-identical. Also
// the bucket layout, parameters unused on some or all ranks, and modules that differ.
// Run with 1, 2 and 3 ranks by CTest.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "test_support.hpp"

namespace dist = wick::distributed;
namespace nn = wick::nn;
namespace optim = wick::optim;
using wick::Tensor;
using wick_test::group;

namespace {

constexpr int64_t kGlobalBatch = 12;  // divisible by 1, 2, 3 (and 4, 6, 12) ranks

// The global batch of step s: x [12, 5], y [12, 3], float64, the same on every rank.
std::pair<Tensor, Tensor> global_batch(int step) {
  std::vector<double> x(kGlobalBatch * 5), y(kGlobalBatch * 3);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * static_cast<double>(i) + 1.3 * step);
  for (size_t i = 0; i < y.size(); ++i) y[i] = std::cos(0.21 * static_cast<double>(i) + 0.7 * step);
  return {wick::tensor(x, {kGlobalBatch, 5}), wick::tensor(y, {kGlobalBatch, 3})};
}

nn::Sequential make_model(uint64_t seed) {
  wick::manual_seed(seed);
  nn::Sequential model(nn::Linear(5, 8), nn::Tanh(), nn::Linear(8, 3));
  model->to(wick::kFloat64);
  return model;
}

using MakeOptimizer = std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)>;

// Max |a - b| over every parameter; and whether the parameters are bit-identical on all ranks.
double max_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::vector<double> x = a[i].to_vector<double>(), y = b[i].to_vector<double>();
    for (size_t k = 0; k < x.size(); ++k) worst = std::max(worst, std::abs(x[k] - y[k]));
  }
  return worst;
}

bool identical_on_every_rank(const std::vector<Tensor>& params) {
  std::vector<Tensor> flat;
  for (const Tensor& p : params) flat.push_back(p.detach().reshape({-1}));
  std::vector<double> mine;
  for (const Tensor& f : flat) {
    const std::vector<double> v = f.to_vector<double>();
    mine.insert(mine.end(), v.begin(), v.end());
  }
  const std::vector<double> all = group().all_gather(wick::tensor(mine)).to_vector<double>();
  for (int r = 1; r < group().size(); ++r) {
    if (std::memcmp(all.data(), all.data() + static_cast<size_t>(r) * mine.size(),
                    mine.size() * sizeof(double)) != 0) {
      return false;
    }
  }
  return true;
}

// The reference trains on the CPU; the DDP model on `device`.
void check_equivalence(const MakeOptimizer& make_optimizer,
                       dist::DistributedDataParallelOptions options, wick::Device device) {
  const int rank = group().rank(), n = group().size();
  const int64_t local = kGlobalBatch / n;
  nn::Sequential reference = make_model(100);
  nn::Sequential model = make_model(100 + static_cast<uint64_t>(rank));  // broadcast fixes it
  model->to(device);
  dist::DistributedDataParallel ddp(model, wick_test::shared_group(), options);
  auto reference_optimizer = make_optimizer(reference->parameters());
  auto optimizer = make_optimizer(model->parameters());
  nn::MSELoss mse;
  for (int step = 0; step < 5; ++step) {
    auto [x, y] = global_batch(step);
    Tensor reference_loss = mse(reference(x), y);
    reference_optimizer->zero_grad();
    reference_loss.backward();
    reference_optimizer->step();

    Tensor loss = mse(model(x.narrow(0, rank * local, local).to(device)),
                      y.narrow(0, rank * local, local).to(device));
    optimizer->zero_grad();
    loss.backward();
    ddp.average_gradients();
    optimizer->step();
    // With the grad-ready hook every bucket (all parameters are used) starts during backward.
    if (ddp.overlaps_backward()) CHECK(ddp.buckets_started_in_backward() == ddp.buckets().size());
  }
  const double worst = max_difference(model->parameters(), reference->parameters());
  INFO("max |DDP - single process| after 5 steps: " << worst);
  if (rank == 0) {
    std::printf(
        "ddp (%d ranks, %s, %zu bucket(s), %s): max |DDP - single process| after 5 "
        "steps %.3g\n",
        n, device.str().c_str(), ddp.buckets().size(),
        ddp.overlaps_backward() ? "started in backward" : "started after backward", worst);
  }
  CHECK(worst <= 1e-12);
  CHECK(identical_on_every_rank(model->parameters()));
}

const std::vector<std::pair<const char*, MakeOptimizer>>& optimizers() {
  static const std::vector<std::pair<const char*, MakeOptimizer>> all{
      {"SGD momentum nesterov weight decay",
       [](std::vector<Tensor> p) {
         return std::make_unique<optim::SGD>(
             p, optim::SGDOptions(0.1).momentum(0.9).nesterov(true).weight_decay(0.01));
       }},
      {"Adam",
       [](std::vector<Tensor> p) {
         return std::make_unique<optim::Adam>(p, optim::AdamOptions(0.01));
       }},
      {"AdamW",
       [](std::vector<Tensor> p) {
         return std::make_unique<optim::AdamW>(p, optim::AdamWOptions(0.01));
       }},
  };
  return all;
}

// A module with two branches and a parameter that forward never uses.
struct TwoBranch : nn::Module {
  TwoBranch()
      : a(register_module("a", nn::Linear(5, 3))),
        b(register_module("b", nn::Linear(5, 3))),
        unused(register_parameter("unused", wick::zeros({2}))) {
    to(wick::kFloat64);
  }
  Tensor forward(const Tensor& x, bool use_b) { return use_b ? a(x) + b(x) : a(x); }
  nn::Linear a, b;
  Tensor unused;
};

}  // namespace

TEST_CASE("ddp: n ranks equal one process on the concatenated batch", "[ddp]") {
  for (const auto& [name, make] : optimizers()) {
    INFO(name);
    for (const wick::Device& device : wick_test::devices()) check_equivalence(make, {}, device);
    dist::DistributedDataParallelOptions one_per_parameter;
    one_per_parameter.bucket_cap_bytes = 8;
    check_equivalence(make, one_per_parameter, wick::kCPU);
  }
}

TEST_CASE("ddp: buckets in reverse registration order, cut at the cap", "[ddp]") {
  nn::Sequential model = make_model(1);  // weight0 [8, 5], bias0 [8], weight1 [3, 8], bias1 [3]
  dist::DistributedDataParallel one(model, wick_test::shared_group());
  REQUIRE(one.buckets().size() == 1);
  CHECK(one.buckets()[0].parameters == std::vector<size_t>{3, 2, 1, 0});
  CHECK(one.buckets()[0].numel == 40 + 8 + 24 + 3);
  CHECK(one.buckets()[0].dtype == wick::kFloat64);
  dist::DistributedDataParallelOptions small;
  small.bucket_cap_bytes = 8 * 27;  // bias1 + weight1 fill one (27 doubles); bias0; weight0
  dist::DistributedDataParallel cut(model, wick_test::shared_group(), small);
  REQUIRE(cut.buckets().size() == 3);
  CHECK(cut.buckets()[0].parameters == std::vector<size_t>{3, 2});
  CHECK(cut.buckets()[1].parameters == std::vector<size_t>{1});
  CHECK(cut.buckets()[2].parameters == std::vector<size_t>{0});
}

TEST_CASE("ddp: gradients missing on some ranks count as zeros, on all ranks stay undefined",
          "[ddp]") {
  const int rank = group().rank(), n = group().size();
  auto module = std::make_shared<TwoBranch>();
  dist::DistributedDataParallel ddp(*module, wick_test::shared_group());
  auto [x, y] = global_batch(0);
  Tensor loss = nn::MSELoss()(module->forward(x, rank == 0), y);
  loss.backward();
  // What each rank holds before averaging (zeros where it has no gradient).
  Tensor b_grad = module->b->weight.grad().defined()
                      ? module->b->weight.grad().clone()
                      : wick::zeros({3, 5}, wick::TensorOptions().dtype(wick::kFloat64));
  Tensor a_grad = module->a->weight.grad().clone();
  CHECK(module->b->weight.grad().defined() == (rank == 0));
  Tensor b_sum = b_grad.clone(), a_sum = a_grad.clone();
  group().all_reduce(b_sum);
  group().all_reduce(a_sum);
  ddp.average_gradients();
  REQUIRE(module->b->weight.grad().defined());
  CHECK(max_difference({module->b->weight.grad()}, {b_sum / n}) <= 1e-15);
  CHECK(max_difference({module->a->weight.grad()}, {a_sum / n}) <= 1e-15);
  CHECK(!module->unused.grad().defined());
}

TEST_CASE("ddp: modules that differ across ranks are a ShapeError on every rank", "[ddp]") {
  if (group().size() == 1) return;
  nn::Linear layer(5, group().rank() == 0 ? 3 : 4);
  CHECK_THROWS_AS(dist::DistributedDataParallel(layer, wick_test::shared_group()),
                  wick::ShapeError);
  CHECK(!group().is_broken());
}
