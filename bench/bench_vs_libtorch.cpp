// bench_vs_libtorch.cpp: wick against libtorch (Debian's libtorch-dev 1.13, a bench-only
// dependency) on the CPU, timed interleaved in rounds (paired.hpp: on a VM whose speed drifts
// from second to second, rows timed one library after the other compare moments, not
// libraries), with the same thread count: the per-op overhead of a + b on 64x10 floats (with
// and without requires_grad), the seed training step of shared/API.md (Linear 10->1, batch 64,
// MSELoss, SGD: forward, loss, zero_grad, backward, step), an MLP step (1024 -> 1024, ReLU, ->
// 1024, batch 256, MSELoss, SGD; on 2 threads also with libtorch on 1 intra-op thread and its
// OpenBLAS on 2, its fastest setting here), a leaf's first gradient (1024 x 1024), a
// cross_entropy forward and backward on [256, 10], and the
// memory-bound ops of a training step on 2^20 floats (add, add with alpha, a * number, where, relu,
// a > 0, exp, sum, softmax), the ops the surveys against libtorch found slow (sqrt, log, clamp,
// reductions and softmax over dim 0, matrix times vector, the transposed copy, max over rows),
// the AVX-512 survey's (amax and sum over rows, row and column sums of a [256, 10]), bfloat16
// add, exp, sum, relu, sum over dim 0, softmax over either dim and the transposed copy, and
// the Zen 5 survey's transposed operands (exp of a.t(), a.t() * b.t(), a.t() + b)
// (docs/cpu-kernels.md). Each row,
// paired/<what>/<args>, reports wick_us and torch_us (each library's median round, microseconds per
// call) and wick_vs_torch, the median of the per-round speed ratios (libtorch's time over wick's:
// above 1, wick is faster) with its 25th and 75th percentiles (_lo, _hi). --paired_seconds=S: about
// how long each row times (default 3). Run by scripts/main.sh (its vs_libtorch step, full runs),
// whose report shows the rows in sections 3 and 5.
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "paired.hpp"
#include "paired_rows.hpp"
#include "torch_threads.hpp"

#include "wick/wick.hpp"

namespace {

using bench::set_threads;

// One row's two sides, each a call that owns its inputs (and model), made on the row's thread
// count.
struct Pair {
  std::function<void()> wick, torch;
};

double g_paired_seconds = 3;

void measure_pair(benchmark::State& state, int threads, const std::function<Pair()>& make) {
  set_threads(threads);
  const Pair pair = make();
  double slowest_call = 0;
  for (const auto* call : {&pair.wick, &pair.torch}) {  // warm up, and size the rounds
    const double t0 = paired::now_s();
    (*call)();
    slowest_call = std::max(slowest_call, paired::now_s() - t0);
  }
  const paired::Options opt = paired::options_for(threads, 2, slowest_call, g_paired_seconds);
  const std::vector<std::vector<double>> seconds =
      paired::measure(state, {pair.wick, pair.torch}, opt);
  state.counters["wick_us"] = paired::median(seconds[0]) * 1e6;
  state.counters["torch_us"] = paired::median(seconds[1]) * 1e6;
  paired::set_ratio_counters(state, "wick_vs_torch", seconds[0], seconds[1]);
  state.counters["threads"] = threads;
}

// a + b on 64x10 floats: the per-op overhead.
Pair add_small(bool requires_grad) {
  wick::Tensor wa = wick::randn({64, 10}), wb = wick::randn({64, 10});
  torch::Tensor ta = torch::randn({64, 10}), tb = torch::randn({64, 10});
  if (requires_grad) {
    wa.requires_grad_(true);
    ta.requires_grad_(true);
  }
  return {[wa, wb] { benchmark::DoNotOptimize(wa + wb); },
          [ta, tb] { benchmark::DoNotOptimize(ta + tb); }};
}

struct WickSeed : wick::nn::Module {
  WickSeed() : linear(register_module("linear", wick::nn::Linear(10, 1))) {}
  wick::Tensor forward(const wick::Tensor& x) { return linear(x); }
  wick::nn::Linear linear;
};

// A training step's parts, kept together for the call that runs it.
template <class Model, class Tensor, class Loss, class Optimizer>
struct Step {
  Step(Model m, Tensor x, Tensor y)
      : model(std::move(m)),
        data(std::move(x)),
        target(std::move(y)),
        optimizer(model->parameters(), 0.01) {}
  Model model;
  Tensor data, target;
  Loss criterion;
  Optimizer optimizer;
  void operator()() {
    Tensor loss = criterion(model->forward(data), target);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
  }
};

template <class S>
std::function<void()> shared_call(std::shared_ptr<S> step) {
  return [step] { (*step)(); };
}

// The seed step of shared/API.md: Linear 10->1, batch 64, MSELoss, SGD.
Pair seed_step() {
  auto wick_model = std::make_shared<WickSeed>();
  using WickStep =
      Step<std::shared_ptr<WickSeed>, wick::Tensor, wick::nn::MSELoss, wick::optim::SGD>;
  auto wick_step =
      std::make_shared<WickStep>(wick_model, wick::randn({64, 10}), wick::randn({64, 1}));
  torch::nn::Linear torch_model(10, 1);
  using TorchStep = Step<torch::nn::Linear, torch::Tensor, torch::nn::MSELoss, torch::optim::SGD>;
  auto torch_step =
      std::make_shared<TorchStep>(torch_model, torch::randn({64, 10}), torch::randn({64, 1}));
  return {shared_call(wick_step), shared_call(torch_step)};
}

// An MLP step: 1024 -> 1024, ReLU, -> 1024, batch 256, MSELoss, SGD. Its matmuls: 2 forward, 3
// backward (dX and dW of the second layer, dW of the first: the data needs no gradient), each
// 2 * 256 * 1024 * 1024 FLOPs.
Pair mlp_step() {
  wick::nn::Sequential wick_model;
  wick_model->push_back(wick::nn::Linear(1024, 1024));
  wick_model->push_back(wick::nn::ReLU());
  wick_model->push_back(wick::nn::Linear(1024, 1024));
  using WickStep = Step<wick::nn::Sequential, wick::Tensor, wick::nn::MSELoss, wick::optim::SGD>;
  auto wick_step =
      std::make_shared<WickStep>(wick_model, wick::randn({256, 1024}), wick::randn({256, 1024}));
  torch::nn::Sequential torch_model(torch::nn::Linear(1024, 1024), torch::nn::ReLU(),
                                    torch::nn::Linear(1024, 1024));
  using TorchStep =
      Step<torch::nn::Sequential, torch::Tensor, torch::nn::MSELoss, torch::optim::SGD>;
  auto torch_step = std::make_shared<TorchStep>(torch_model, torch::randn({256, 1024}),
                                                torch::randn({256, 1024}));
  return {shared_call(wick_step), shared_call(torch_step)};
}

#if defined(WICK_BENCH_OPENBLAS)
// The MLP step with libtorch's two pools split as they ran fastest on 2 cores: one intra-op
// thread, and OpenBLAS's matmul threads on the row's count. With both pools on 2 threads,
// libtorch's step took 78 ms against 30 ms this way (bench/cpu/torch_threads.py, docs/report.md):
// each pool's idle spinning takes the cores the other needs. wick's setting is its own
// (wick::set_num_threads), so only libtorch's side sets its threads before every step.
Pair mlp_step_torch_blas_threads() {
  const int threads = wick::get_num_threads();  // measure_pair set it
  const Pair pair = mlp_step();
  return {pair.wick, [threads, step = pair.torch] {
            torch::set_num_threads(1);
            openblas_set_num_threads(threads);
            step();
          }};
}
#endif

// A leaf's first gradient: (w * 2).sum().backward() on a 1024x1024 leaf whose .grad is unset
// before each call, as after zero_grad() with set_to_none. Both libraries make the gradient
// (grad * 2, 4 MiB) and hand that buffer to w.grad without a copy (wick since c3a8fde).
Pair first_grad() {
  wick::Tensor wick_w = wick::randn({1024, 1024}).requires_grad_();
  torch::Tensor torch_w = torch::randn({1024, 1024}).requires_grad_();
  return {[wick_w]() mutable {
            wick_w.mutable_grad() = wick::Tensor();
            (wick_w * 2.0).sum().backward();
          },
          [torch_w]() mutable {
            torch_w.mutable_grad() = torch::Tensor();
            (torch_w * 2.0).sum().backward();
          }};
}

// A classifier's loss step on a small batch: cross_entropy of [256, 10] logits against int64
// classes, forward and backward (per-row work on rows of 10: the short-row paths of softmax
// and the sums).
Pair cross_entropy_step() {
  std::vector<int64_t> classes(256);
  for (size_t i = 0; i < classes.size(); ++i) classes[i] = static_cast<int64_t>(i * 7 % 10);
  wick::Tensor wick_x = wick::randn({256, 10}).requires_grad_();
  const wick::Tensor wick_t = wick::tensor(classes, {256});
  torch::Tensor torch_x = torch::randn({256, 10}).requires_grad_();
  const torch::Tensor torch_t = torch::tensor(classes);
  return {[wick_x, wick_t]() mutable {
            wick_x.mutable_grad() = wick::Tensor();
            wick::nn::functional::cross_entropy(wick_x, wick_t).backward();
          },
          [torch_x, torch_t]() mutable {
            torch_x.mutable_grad() = torch::Tensor();
            torch::nn::functional::cross_entropy(torch_x, torch_t).backward();
          }};
}

// Sums of a [256, 10] over dim 1 (a classifier's logits, where the calls around each row's
// kernel weigh as much as the kernel) or dim 0 (a 10-output Linear layer's bias gradient on a
// batch of 256).
Pair sum_256x10(int64_t dim) {
  const wick::Tensor wick_x = wick::randn({256, 10});
  const torch::Tensor torch_x = torch::randn({256, 10});
  return {[wick_x, dim] { benchmark::DoNotOptimize(wick_x.sum(dim)); },
          [torch_x, dim] { benchmark::DoNotOptimize(torch_x.sum(dim)); }};
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

// Ops the second survey against libtorch found 3-9x slower (2026-12-02, docs/cpu-kernels.md):
// each now has a row. sqrt and log take positive inputs (rand + 0.1): a NaN result is no test.
struct Sqrt {
  auto operator()(const auto& a, const auto&, const auto&) const { return a.sqrt(); }
};
struct Log {
  auto operator()(const auto& a, const auto&, const auto&) const { return a.log(); }
};
struct ClampHalf {
  auto operator()(const auto& a, const auto&, const auto&) const { return a.clamp(-0.5, 0.5); }
};
struct AmaxColumns {  // over dim 0: each output folds a column
  auto operator()(const auto& a, const auto&, const auto&) const { return a.amax(0); }
};
struct SumColumns {  // over dim 0: each output sums a column
  auto operator()(const auto& a, const auto&, const auto&) const { return a.sum(0); }
};
struct SoftmaxColumns {  // over dim 0 of a contiguous [1024, 1024]
  auto operator()(const auto& a, const auto&, const auto&) const { return a.softmax(0); }
};
struct MatrixVector {  // [1024, 1024] @ [1024]: b's first row serves as the vector
  auto operator()(const wick::Tensor& a, const wick::Tensor& b, const wick::Tensor&) const {
    return wick::matmul(a, b.select(0, 0));
  }
  auto operator()(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor&) const {
    return torch::matmul(a, b.select(0, 0));
  }
};

// kBFloat16: a and b as bfloat16 tensors (the ops compute in float32 and round once, in both
// libraries).
struct MaxRows {  // values and indices over the last dim, as a classifier's predictions
  auto operator()(const wick::Tensor& a, const wick::Tensor&, const wick::Tensor&) const {
    return std::get<1>(wick::max(a, 1));
  }
  auto operator()(const torch::Tensor& a, const torch::Tensor&, const torch::Tensor&) const {
    return std::get<1>(a.max(1));
  }
};
struct AmaxRows {  // values only over the last dim: no indices to keep
  auto operator()(const auto& a, const auto&, const auto&) const { return a.amax(1); }
};
struct SumRows {  // over dim 1: each output sums a row of 1024
  auto operator()(const auto& a, const auto&, const auto&) const { return a.sum(1); }
};
struct TransposedCopy {  // a.t().contiguous(): the copy behind every w.t() gradient
  auto operator()(const auto& a, const auto&, const auto&) const { return a.t().contiguous(); }
};

struct ExpTransposed {  // the result is laid out as a.t() in both libraries
  auto operator()(const auto& a, const auto&, const auto&) const { return a.t().exp(); }
};
struct MulTransposed {  // both operands transposed alike: the result too
  auto operator()(const auto& a, const auto& b, const auto&) const { return a.t() * b.t(); }
};
struct MatMul {  // a @ b
  auto operator()(const auto& a, const auto& b, const auto&) const { return a.matmul(b); }
};
struct MatMulTransposed {  // a @ b.t(): nn.Linear's forward, the weight read in place
  auto operator()(const auto& a, const auto& b, const auto&) const { return a.matmul(b.t()); }
};
// Rows of x normalised over the last dim, with weight and bias (b's first two rows).
inline wick::Tensor layer_norm_of(const wick::Tensor& x, const wick::Tensor& w,
                                  const wick::Tensor& bias) {
  return wick::layer_norm(x, {x.size(-1)}, w, bias);
}
inline torch::Tensor layer_norm_of(const torch::Tensor& x, const torch::Tensor& w,
                                   const torch::Tensor& bias) {
  return torch::layer_norm(x, {x.size(-1)}, w, bias);
}
struct LayerNorm {
  auto operator()(const auto& a, const auto& b, const auto&) const {
    return layer_norm_of(a, b.select(0, 0), b.select(0, 1));
  }
};
struct LayerNormStep {  // forward, then backward from the sum into x, weight and bias
  auto operator()(const auto& a, const auto& b, const auto&) const {
    auto x = a.detach(), w = b.select(0, 0).detach(), bias = b.select(0, 1).detach();
    x.requires_grad_(true);
    w.requires_grad_(true);
    bias.requires_grad_(true);
    layer_norm_of(x, w, bias).sum().backward();
    return x;
  }
};
struct AddMixedLayouts {  // a.t() + b: one operand walks against its layout
  auto operator()(const auto& a, const auto& b, const auto&) const { return a.t() + b; }
};

template <class Op, bool kPositive = false, bool kBFloat16 = false>
Pair op_pair() {
  wick::Tensor wa = kPositive ? wick::rand({kRows, kCols}) + 0.1 : wick::randn({kRows, kCols});
  wick::Tensor wb = wick::randn({kRows, kCols});
  wick::Tensor wmask = wick::randn({kRows, kCols}) > 0.0;
  torch::Tensor ta = kPositive ? torch::rand({kRows, kCols}) + 0.1 : torch::randn({kRows, kCols});
  torch::Tensor tb = torch::randn({kRows, kCols});
  if constexpr (kBFloat16) {
    wa = wa.to(wick::kBFloat16);
    wb = wb.to(wick::kBFloat16);
    ta = ta.to(torch::kBFloat16);
    tb = tb.to(torch::kBFloat16);
  }
  torch::Tensor tmask = torch::randn({kRows, kCols}) > 0.0;
  return {[wa, wb, wmask] { benchmark::DoNotOptimize(Op{}(wa, wb, wmask)); },
          [ta, tb, tmask] { benchmark::DoNotOptimize(Op{}(ta, tb, tmask)); }};
}

}  // namespace

int main(int argc, char** argv) {
  if (!paired::initialize(&argc, argv, &g_paired_seconds)) return 2;
  // paired/<what>/<args>; args: requires_grad and threads for add_small, threads for the rest.
  const auto row = [](const std::string& name, int threads, std::function<Pair()> make) {
    paired::register_row(
        "paired/" + name + "/" + std::to_string(threads),
        [threads, make](benchmark::State& state) { measure_pair(state, threads, make); })
        ->Unit(benchmark::kMicrosecond);
  };
  row("add_small/0", 1, [] { return add_small(false); });
  row("add_small/1", 1, [] { return add_small(true); });
  row("seed_step", 1, seed_step);
  for (int threads : {1, 2}) row("mlp_step", threads, mlp_step);
#if defined(WICK_BENCH_OPENBLAS)
  row("mlp_step_torch_blas_threads", 2, mlp_step_torch_blas_threads);
#endif
  row("first_grad", 1, first_grad);
  for (int threads : {1, 2}) row("cross_entropy_step", threads, cross_entropy_step);
  // The memory-bound ops.
  for (int threads : {1, 2}) {
    row("add", threads, op_pair<Add>);
    row("mul_scalar", threads, op_pair<MulScalar>);
    row("add_alpha", threads, op_pair<AddAlpha>);
    row("where_scalar", threads, op_pair<WhereScalar>);
    row("gt_zero", threads, op_pair<GreaterThanZero>);
    row("exp", threads, op_pair<Exp>);
    row("relu", threads, op_pair<Relu>);
    row("sum", threads, op_pair<Sum>);
    row("softmax_rows", threads, op_pair<SoftmaxRows>);
    row("layer_norm", threads, op_pair<LayerNorm>);
    row("layer_norm_step", threads, op_pair<LayerNormStep>);
    row("sqrt", threads, op_pair<Sqrt, true>);
    row("log", threads, op_pair<Log, true>);
    row("clamp", threads, op_pair<ClampHalf>);
    row("amax_columns", threads, op_pair<AmaxColumns>);
    row("sum_columns", threads, op_pair<SumColumns>);
    row("softmax_columns", threads, op_pair<SoftmaxColumns>);
    row("matrix_vector", threads, op_pair<MatrixVector>);
    row("transposed_copy", threads, op_pair<TransposedCopy>);
    row("max_rows", threads, op_pair<MaxRows>);
    row("amax_rows", threads, op_pair<AmaxRows>);
    row("sum_rows", threads, op_pair<SumRows>);
    row("sum_short_rows", threads, [] { return sum_256x10(1); });
    row("sum_short_columns", threads, [] { return sum_256x10(0); });
    row("add_bf16", threads, op_pair<Add, false, true>);
    row("exp_bf16", threads, op_pair<Exp, false, true>);
    row("sum_bf16", threads, op_pair<Sum, false, true>);
    row("relu_bf16", threads, op_pair<Relu, false, true>);
    row("sum_columns_bf16", threads, op_pair<SumColumns, false, true>);
    row("softmax_rows_bf16", threads, op_pair<SoftmaxRows, false, true>);
    row("softmax_columns_bf16", threads, op_pair<SoftmaxColumns, false, true>);
    row("transposed_copy_bf16", threads, op_pair<TransposedCopy, false, true>);
    row("matmul_bf16", threads, op_pair<MatMul, false, true>);
    row("matmul_transposed_bf16", threads, op_pair<MatMulTransposed, false, true>);
    row("exp_transposed", threads, op_pair<ExpTransposed>);
    row("mul_transposed", threads, op_pair<MulTransposed>);
    row("add_mixed_layouts", threads, op_pair<AddMixedLayouts>);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
