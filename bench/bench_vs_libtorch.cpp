// bench_vs_libtorch.cpp: wick against libtorch (Debian's libtorch-dev 1.13, a bench-only
// dependency) on the CPU, in the same run, with the same thread count: the per-op overhead of
// a + b on 64x10 floats (with and without requires_grad), the seed training step of
// shared/API.md (Linear 10->1, batch 64, MSELoss, SGD: forward, loss, zero_grad, backward,
// step), an MLP step (1024 -> 1024, ReLU, -> 1024, batch 256, MSELoss, SGD), a leaf's first
// gradient (1024 x 1024), and the
// memory-bound ops of a training step on 2^20 floats (add, add with alpha, a * number, where,
// relu, a > 0, exp, sum, softmax). Run by scripts/main.sh (its vs_libtorch step, full runs), whose
// report compares the times (sections 3 and 5).
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <omp.h>

#include "wick/wick.hpp"

namespace {

#if defined(WICK_BENCH_OPENBLAS)
extern "C" void openblas_set_num_threads(int num_threads);  // OpenBLAS's own API (cblas.h)
#endif

// wick's OpenMP team, libtorch's intra-op threads and the OpenBLAS threads libtorch's matmuls
// run on: without the last, libtorch's "1 thread" MLP step ran its matmuls on 2 threads
// (17.3 ms for 2.68 GFLOP: 155 GFLOP/s, above the 117 of one core) and its 2-thread step
// oversubscribed the cores (45 ms).
void set_threads(int n) {
  omp_set_num_threads(n);
  torch::set_num_threads(n);
#if defined(WICK_BENCH_OPENBLAS)
  openblas_set_num_threads(n);
#endif
}

void BM_wick_add_small(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(1)));
  wick::Tensor a = wick::randn({64, 10}), b = wick::randn({64, 10});
  if (state.range(0)) a.requires_grad_(true);
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
}
void BM_torch_add_small(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(1)));
  torch::Tensor a = torch::randn({64, 10}), b = torch::randn({64, 10});
  if (state.range(0)) a.requires_grad_(true);
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
}

struct WickSeed : wick::nn::Module {
  WickSeed() : linear(register_module("linear", wick::nn::Linear(10, 1))) {}
  wick::Tensor forward(const wick::Tensor& x) { return linear(x); }
  wick::nn::Linear linear;
};

void BM_wick_seed_step(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  WickSeed model;
  wick::Tensor data = wick::randn({64, 10}), target = wick::randn({64, 1});
  wick::nn::MSELoss criterion;
  wick::optim::SGD optimizer(model.parameters(), wick::optim::SGDOptions(0.01));
  for (auto _ : state) {
    wick::Tensor loss = criterion(model.forward(data), target);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
}
void BM_torch_seed_step(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  torch::nn::Linear model(10, 1);
  torch::Tensor data = torch::randn({64, 10}), target = torch::randn({64, 1});
  torch::nn::MSELoss criterion;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01));
  for (auto _ : state) {
    torch::Tensor loss = criterion(model->forward(data), target);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
}

// The MLP step's matmuls: 2 forward, 3 backward (dX and dW of the second layer, dW of the
// first: the data needs no gradient), each 2 * 256 * 1024 * 1024 FLOPs.
constexpr double kMlpStepFlops = 5.0 * 2 * 256 * 1024 * 1024;

void BM_wick_mlp_step(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  wick::nn::Sequential model;
  model->push_back(wick::nn::Linear(1024, 1024));
  model->push_back(wick::nn::ReLU());
  model->push_back(wick::nn::Linear(1024, 1024));
  wick::Tensor data = wick::randn({256, 1024}), target = wick::randn({256, 1024});
  wick::nn::MSELoss criterion;
  wick::optim::SGD optimizer(model->parameters(), wick::optim::SGDOptions(0.01));
  for (auto _ : state) {
    wick::Tensor loss = criterion(model->forward(data), target);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kMlpStepFlops / 1e9, benchmark::Counter::kIsRate);
}
void BM_torch_mlp_step(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  torch::nn::Sequential model(torch::nn::Linear(1024, 1024), torch::nn::ReLU(),
                              torch::nn::Linear(1024, 1024));
  torch::Tensor data = torch::randn({256, 1024}), target = torch::randn({256, 1024});
  torch::nn::MSELoss criterion;
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01));
  for (auto _ : state) {
    torch::Tensor loss = criterion(model->forward(data), target);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kMlpStepFlops / 1e9, benchmark::Counter::kIsRate);
}

// A leaf's first gradient: (w * 2).sum().backward() on a 1024x1024 leaf whose .grad is unset
// before each call, as after zero_grad() with set_to_none. Both libraries make the gradient
// (grad * 2, 4 MiB) and hand that buffer to w.grad without a copy (wick since c3a8fde).
void BM_wick_first_grad(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  wick::Tensor w = wick::randn({1024, 1024}).requires_grad_();
  for (auto _ : state) {
    w.mutable_grad() = wick::Tensor();
    (w * 2.0).sum().backward();
  }
}
void BM_torch_first_grad(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  torch::Tensor w = torch::randn({1024, 1024}).requires_grad_();
  for (auto _ : state) {
    w.mutable_grad() = torch::Tensor();
    (w * 2.0).sum().backward();
  }
}

// The memory-bound ops of the report's section 5 on 2^20 floats (rows of 1024 for softmax),
// each writing a fresh output per call as a user's code does: kernel plus per-op overhead,
// which at 4 MiB is a few microseconds of hundreds. One generic function per op serves both
// libraries: their APIs spell these ops the same way.
constexpr int64_t kRows = 1024, kCols = 1024;

struct Add {
  auto operator()(const auto& a, const auto& b, const auto&) const { return a + b; }
};
struct MulScalar {
  auto operator()(const auto& a, const auto&, const auto&) const { return a * 0.5; }
};
struct AddAlpha {  // SGD's update out of place: a + alpha * b
  auto operator()(const auto& a, const auto& b, const auto&) const { return a.add(b, -0.01); }
};
struct WhereScalar {  // ReLU's backward: where(mask, 0, g)
  auto operator()(const wick::Tensor& g, const wick::Tensor&, const wick::Tensor& mask) const {
    return wick::where(mask, wick::Scalar(0.0), g);
  }
  auto operator()(const torch::Tensor& g, const torch::Tensor&, const torch::Tensor& mask) const {
    return torch::where(mask, torch::Scalar(0.0), g);
  }
};
struct GreaterThanZero {  // a comparison: 4-byte floats in, 1-byte bools out
  auto operator()(const auto& a, const auto&, const auto&) const { return a > 0.0; }
};
struct Exp {
  auto operator()(const auto& a, const auto&, const auto&) const { return a.exp(); }
};
struct Relu {
  auto operator()(const auto& a, const auto&, const auto&) const { return a.relu(); }
};
struct Sum {
  auto operator()(const auto& a, const auto&, const auto&) const { return a.sum(); }
};
struct SoftmaxRows {
  auto operator()(const auto& a, const auto&, const auto&) const { return a.softmax(1); }
};

template <class Op>
void BM_wick_op(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  wick::Tensor a = wick::randn({kRows, kCols}), b = wick::randn({kRows, kCols});
  wick::Tensor mask = wick::randn({kRows, kCols}) > 0.0;
  for (auto _ : state) benchmark::DoNotOptimize(Op{}(a, b, mask));
}
template <class Op>
void BM_torch_op(benchmark::State& state) {
  set_threads(static_cast<int>(state.range(0)));
  torch::Tensor a = torch::randn({kRows, kCols}), b = torch::randn({kRows, kCols});
  torch::Tensor mask = torch::randn({kRows, kCols}) > 0.0;
  for (auto _ : state) benchmark::DoNotOptimize(Op{}(a, b, mask));
}

}  // namespace

// Args: {requires_grad, threads} for add; {threads} for the steps. wick and torch alternate so
// that both see the same machine state.
BENCHMARK(BM_wick_add_small)->Args({0, 1})->Args({1, 1});
BENCHMARK(BM_torch_add_small)->Args({0, 1})->Args({1, 1});
BENCHMARK(BM_wick_seed_step)->Arg(1);
BENCHMARK(BM_torch_seed_step)->Arg(1);
BENCHMARK(BM_wick_mlp_step)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_torch_mlp_step)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_wick_first_grad)->Arg(1);
BENCHMARK(BM_torch_first_grad)->Arg(1);

// The memory-bound ops, named BM_<library>_<op>/<threads> as the rows above.
BENCHMARK(BM_wick_op<Add>)->Name("BM_wick_add")->Arg(1)->Arg(2);
BENCHMARK(BM_torch_op<Add>)->Name("BM_torch_add")->Arg(1)->Arg(2);
BENCHMARK(BM_wick_op<MulScalar>)->Name("BM_wick_mul_scalar")->Arg(1)->Arg(2);
BENCHMARK(BM_torch_op<MulScalar>)->Name("BM_torch_mul_scalar")->Arg(1)->Arg(2);
BENCHMARK(BM_wick_op<AddAlpha>)->Name("BM_wick_add_alpha")->Arg(1)->Arg(2);
BENCHMARK(BM_torch_op<AddAlpha>)->Name("BM_torch_add_alpha")->Arg(1)->Arg(2);
BENCHMARK(BM_wick_op<WhereScalar>)->Name("BM_wick_where_scalar")->Arg(1)->Arg(2);
BENCHMARK(BM_torch_op<WhereScalar>)->Name("BM_torch_where_scalar")->Arg(1)->Arg(2);
BENCHMARK(BM_wick_op<GreaterThanZero>)->Name("BM_wick_gt_zero")->Arg(1)->Arg(2);
BENCHMARK(BM_torch_op<GreaterThanZero>)->Name("BM_torch_gt_zero")->Arg(1)->Arg(2);
BENCHMARK(BM_wick_op<Exp>)->Name("BM_wick_exp")->Arg(1)->Arg(2);
BENCHMARK(BM_torch_op<Exp>)->Name("BM_torch_exp")->Arg(1)->Arg(2);
BENCHMARK(BM_wick_op<Relu>)->Name("BM_wick_relu")->Arg(1)->Arg(2);
BENCHMARK(BM_torch_op<Relu>)->Name("BM_torch_relu")->Arg(1)->Arg(2);
BENCHMARK(BM_wick_op<Sum>)->Name("BM_wick_sum")->Arg(1)->Arg(2);
BENCHMARK(BM_torch_op<Sum>)->Name("BM_torch_sum")->Arg(1)->Arg(2);
BENCHMARK(BM_wick_op<SoftmaxRows>)->Name("BM_wick_softmax_rows")->Arg(1)->Arg(2);
BENCHMARK(BM_torch_op<SoftmaxRows>)->Name("BM_torch_softmax_rows")->Arg(1)->Arg(2);

BENCHMARK_MAIN();
