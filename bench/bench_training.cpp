// bench_training.cpp: what a GPU buys over the CPU, end to end through the public API, for
// scripts/main.sh's report (docs/report.md says how the report is made).
//  - seed1/*: the first seed program (examples/matmul.cpp): a 1000x1000 float matmul on the CPU,
//    and on the GPU split into its three phases: host-to-device copy of both inputs (x.to(kCUDA),
//    y.to(kCUDA)), the matmul, and the device-to-host copy of the result;
//  - seed2/*: the second seed program's training step (examples/train_linear.cpp: Linear 10->1,
//    batch 64, MSELoss, zero_grad, backward, SGD step) on the CPU and on the GPU;
//  - mlp/*/width:W: the crossover. A training step of Linear(W, W), ReLU, Linear(W, W) on a
//    batch of 256 (forward, MSELoss, zero_grad, backward, SGD step) for W = 16 .. 4096: on the
//    CPU with all threads ("cpu") and with one ("cpu_1thread": the CPU figure that a busy, shared
//    machine disturbs least); on the GPU with the batch resident on the device ("gpu"); and on
//    the GPU with the batch copied from the host each step and the loss read back ("gpu_copy", a
//    data loader's view). The 256 rows stay fixed so that W alone sets the work: 5 matmuls of
//    2*256*W*W FLOPs (forward 2, weight gradients 2, the hidden layer's input gradient 1);
//  - op_latency/*: one a + b on 64x10 floats: the floor under every op of a small model. On the
//    GPU both waited for ("sync": launch + kernel + synchronize) and queued ("queued": 100 adds,
//    one synchronize, per add), the two costs that make small models lose on a GPU.
// Method: every benchmark runs once (Iterations(1), manual time); inside, it builds its inputs,
// runs warm-up steps (caching allocator, cuBLAS handle, CPU thread pool, first-touch pages), then
// times single steps with a host clock until it has `max_reps` or its time budget is spent (at
// least 3). GPU steps end with wick::cuda::synchronize() inside the timed region: the clock
// stops when the GPU's work is done, not when it is queued. The reported time (real_time) is
// the median; counters give min, p10, p90, max and the repetitions.
//  - mlp/cpu_threads:T/width:W (with --thread-sweep only): the CPU step on T = 2, 4, 8, ...
//    threads below the default, for widths 64 to 1024: how the step scales with threads. On the
//    16-core host of the H200 (2026-12-04) the all-thread step was slower than one thread at
//    widths 128 to 512; the sweep says from which thread count on.
// Flags (after Google Benchmark's own): --quick (widths to 1024, short budgets), --cpu-only,
// --max-width=N, --thread-sweep.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "wick/wick.hpp"

#if defined(WICK_BENCH_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace {

struct Config {
  bool quick = false;
  bool cpu_only = false;
  int64_t max_width = 4096;
  double budget_s = 2.0;  // per benchmark, after warm-up
  int max_reps = 50;
  bool thread_sweep = false;
} g_cfg;

bool use_gpu() { return !g_cfg.cpu_only && wick::cuda::is_available(); }

void sync_if(bool gpu) {
  if (gpu) wick::cuda::synchronize();
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Stats {
  double median = 0, min = 0, p10 = 0, p90 = 0, max = 0;
  int reps = 0;
};

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Stats summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  Stats s;
  s.reps = static_cast<int>(ms.size());
  if (ms.empty()) return s;
  s.median = quantile(ms, 0.5);
  s.min = ms.front();
  s.max = ms.back();
  s.p10 = quantile(ms, 0.1);
  s.p90 = quantile(ms, 0.9);
  return s;
}

// Times fn (which must finish its own work, synchronizing when on the GPU): `warmups` untimed
// calls, then timed calls until max_reps or the budget (at least 3 timed calls).
template <typename Fn>
std::vector<double> time_reps(Fn&& fn, int warmups, double budget_s = -1) {
  if (budget_s < 0) budget_s = g_cfg.budget_s;
  for (int i = 0; i < warmups; ++i) fn();
  std::vector<double> ms;
  const double start = now_ms();
  while (static_cast<int>(ms.size()) < g_cfg.max_reps) {
    const double t0 = now_ms();
    fn();
    ms.push_back(now_ms() - t0);
    if (ms.size() >= 3 && now_ms() - start >= budget_s * 1e3) break;
  }
  return ms;
}

// Reports stats as the benchmark's time (the median) and counters.
void report(benchmark::State& state, const Stats& s, const std::string& prefix = "") {
  state.counters[prefix + "median_ms"] = s.median;
  state.counters[prefix + "min_ms"] = s.min;
  state.counters[prefix + "p10_ms"] = s.p10;
  state.counters[prefix + "p90_ms"] = s.p90;
  state.counters[prefix + "max_ms"] = s.max;
  if (prefix.empty()) state.counters["reps"] = s.reps;
}

// Runs body once inside Google Benchmark's loop; body returns the median in ms.
template <typename Body>
void once(benchmark::State& state, Body&& body) {
  try {
    for (auto _ : state) state.SetIterationTime(body() / 1e3);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// ---- seed program 1: 1000x1000 matmul ----
constexpr int64_t kSeedN = 1000;

void BM_seed1_cpu(benchmark::State& state) {
  once(state, [&] {
    wick::Tensor x = wick::randn({kSeedN, kSeedN}), y = wick::randn({kSeedN, kSeedN});
    const Stats s = summarize(time_reps([&] { benchmark::DoNotOptimize(wick::matmul(x, y)); }, 2));
    report(state, s);
    state.counters["GFLOP/s"] = 2.0 * kSeedN * kSeedN * kSeedN / (s.median / 1e3) / 1e9;
    return s.median;
  });
}

// The seed program's GPU path, phase by phase: each repetition times the copies in, the matmul
// and the copy out separately (host clock, synchronize at each phase's end), and the whole.
void BM_seed1_gpu(benchmark::State& state) {
  once(state, [&] {
    wick::Tensor x = wick::randn({kSeedN, kSeedN}), y = wick::randn({kSeedN, kSeedN});
    std::vector<double> h2d, compute, d2h, total;
    auto rep = [&](bool record) {
      const double t0 = now_ms();
      wick::Tensor xd = x.to(wick::kCUDA), yd = y.to(wick::kCUDA);
      wick::cuda::synchronize();
      const double t1 = now_ms();
      wick::Tensor rd = wick::matmul(xd, yd);
      wick::cuda::synchronize();
      const double t2 = now_ms();
      wick::Tensor r = rd.to(wick::kCPU);
      const double t3 = now_ms();
      benchmark::DoNotOptimize(r.raw_data());
      if (record) {
        h2d.push_back(t1 - t0);
        compute.push_back(t2 - t1);
        d2h.push_back(t3 - t2);
        total.push_back(t3 - t0);
      }
    };
    for (int i = 0; i < 3; ++i) rep(false);
    const double start = now_ms();
    while (static_cast<int>(total.size()) < g_cfg.max_reps &&
           (total.size() < 3 || now_ms() - start < g_cfg.budget_s * 1e3)) {
      rep(true);
    }
    const Stats st = summarize(total);
    report(state, st);
    report(state, summarize(h2d), "h2d_");
    report(state, summarize(compute), "compute_");
    report(state, summarize(d2h), "d2h_");
    state.counters["GFLOP/s"] =
        2.0 * kSeedN * kSeedN * kSeedN / (summarize(compute).median / 1e3) / 1e9;
    return st.median;
  });
}

// ---- seed program 2: the train_linear step ----
struct LinearModel : wick::nn::Module {
  LinearModel(int64_t in_features, int64_t out_features)
      : linear(register_module("linear", wick::nn::Linear(in_features, out_features))) {}
  wick::Tensor forward(const wick::Tensor& x) { return linear(x); }
  wick::nn::Linear linear;
};

void BM_seed2(benchmark::State& state, bool gpu) {
  once(state, [&] {
    const wick::Device device = gpu ? wick::kCUDA : wick::kCPU;
    LinearModel model(10, 1);
    model.to(device);
    wick::Tensor data = wick::randn({64, 10}).to(device);
    wick::Tensor target = wick::randn({64, 1}).to(device);
    wick::nn::MSELoss criterion;
    wick::optim::SGD optimizer(model.parameters(), wick::optim::SGDOptions(0.01));
    auto step = [&] {
      wick::Tensor loss = criterion(model.forward(data), target);
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      sync_if(gpu);
    };
    const Stats s = summarize(time_reps(step, 5, std::min(g_cfg.budget_s, 0.5)));
    report(state, s);
    return s.median;
  });
}

// ---- the crossover: an MLP step against width ----
enum class Where { cpu, cpu_1thread, gpu, gpu_copy };

// Runs the CPU ops of its scope on `threads` threads (0: leaves the setting alone).
struct ScopedThreads {
  explicit ScopedThreads(int threads) : saved(wick::get_num_threads()), active(threads > 0) {
    if (active) wick::set_num_threads(threads);
  }
  ~ScopedThreads() {
    if (active) wick::set_num_threads(saved);
  }
  int saved;
  bool active;
};

// threads: for the CPU rows, 0 = wick's default (all), else that many.
void BM_mlp(benchmark::State& state, Where where, int64_t width, int threads = 0) {
  constexpr int64_t kBatch = 256;
  once(state, [&] {
    const ScopedThreads scoped(where == Where::cpu_1thread ? 1 : threads);
    const bool gpu = where == Where::gpu || where == Where::gpu_copy;
    const wick::Device device = gpu ? wick::kCUDA : wick::kCPU;
    wick::nn::Sequential model(wick::nn::Linear(width, width), wick::nn::ReLU(),
                               wick::nn::Linear(width, width));
    model->to(device);
    wick::Tensor host_data = wick::randn({kBatch, width}),
                 host_target = wick::randn({kBatch, width});
    wick::Tensor data = host_data.to(device), target = host_target.to(device);
    wick::nn::MSELoss criterion;
    wick::optim::SGD optimizer(model->parameters(), wick::optim::SGDOptions(0.01));
    float last_loss = 0;
    auto step = [&] {
      if (where == Where::gpu_copy) {
        data = host_data.to(device);
        target = host_target.to(device);
      }
      wick::Tensor loss = criterion(model->forward(data), target);
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      if (where == Where::gpu_copy) last_loss = loss.item<float>();  // a D2H copy, synchronizing
      sync_if(gpu);
    };
    const int warmups = width >= 2048 && !gpu ? 1 : 3;
    const Stats s = summarize(time_reps(step, warmups));
    benchmark::DoNotOptimize(last_loss);
    report(state, s);
    const double flops =
        5.0 * 2.0 * kBatch * static_cast<double>(width) * static_cast<double>(width);
    state.counters["width"] = static_cast<double>(width);
    state.counters["batch"] = kBatch;
    if (!gpu) state.counters["cpu_threads"] = wick::get_num_threads();
    state.counters["GFLOP/s"] = flops / (s.median / 1e3) / 1e9;
    return s.median;
  });
}

// ---- the per-op floor ----
void BM_op_latency(benchmark::State& state, bool gpu, bool queued) {
  once(state, [&] {
    const wick::Device device = gpu ? wick::kCUDA : wick::kCPU;
    wick::Tensor a = wick::randn({64, 10}).to(device), b = wick::randn({64, 10}).to(device);
    const int per_rep = queued ? 100 : 1;
    auto fn = [&] {
      for (int i = 0; i < per_rep; ++i) benchmark::DoNotOptimize(a + b);
      sync_if(gpu);
    };
    // Many cheap repetitions: the budget, not max_reps, ends this one.
    const int saved = g_cfg.max_reps;
    g_cfg.max_reps = 2000;
    std::vector<double> ms = time_reps(fn, 20, std::min(g_cfg.budget_s, 0.3));
    g_cfg.max_reps = saved;
    for (double& m : ms) m /= per_rep;
    const Stats s = summarize(ms);
    report(state, s);
    state.counters["us_per_op"] = s.median * 1e3;
    return s.median;
  });
}

void add_context() {
  benchmark::AddCustomContext("wick_bench_training_mode", g_cfg.quick ? "quick" : "full");
  benchmark::AddCustomContext("mlp_batch", "256");
  benchmark::AddCustomContext("timing",
                              "host clock, wick::cuda::synchronize() inside the timed region on "
                              "the GPU; real_time is the median");
  if (!wick::cuda::is_available()) {
    benchmark::AddCustomContext("gpu", "none: " + wick::cuda::unavailable_reason());
    return;
  }
  benchmark::AddCustomContext("gpu", wick::cuda::device_name(0));
#if defined(WICK_BENCH_CUDA)
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) {
    benchmark::AddCustomContext("gpu_sms", std::to_string(prop.multiProcessorCount));
    benchmark::AddCustomContext("gpu_compute_capability",
                                std::to_string(prop.major) + "." + std::to_string(prop.minor));
    benchmark::AddCustomContext(
        "gpu_memory_gib", std::to_string(static_cast<double>(prop.totalGlobalMem) / (1 << 30)));
    benchmark::AddCustomContext("gpu_l2_mib",
                                std::to_string(static_cast<double>(prop.l2CacheSize) / (1 << 20)));
  }
  int runtime = 0, driver = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
    benchmark::AddCustomContext(
        "cuda_runtime", std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10));
  }
  if (cudaDriverGetVersion(&driver) == cudaSuccess) {
    benchmark::AddCustomContext("cuda_driver_api", std::to_string(driver / 1000) + "." +
                                                       std::to_string(driver % 1000 / 10));
  }
#endif
}

void register_all() {
  const bool gpu = use_gpu();
  auto reg = [](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  };
  reg("seed1/cpu", BM_seed1_cpu);
  if (gpu) reg("seed1/gpu", BM_seed1_gpu);
  reg("seed2/cpu", [](benchmark::State& s) { BM_seed2(s, false); });
  if (gpu) reg("seed2/gpu", [](benchmark::State& s) { BM_seed2(s, true); });
  reg("op_latency/cpu", [](benchmark::State& s) { BM_op_latency(s, false, false); });
  if (gpu) {
    reg("op_latency/gpu_sync", [](benchmark::State& s) { BM_op_latency(s, true, false); });
    reg("op_latency/gpu_queued", [](benchmark::State& s) { BM_op_latency(s, true, true); });
  }
  for (int64_t w = 16; w <= g_cfg.max_width; w *= 2) {
    const std::string tail = "/width:" + std::to_string(w);
    reg("mlp/cpu" + tail, [w](benchmark::State& s) { BM_mlp(s, Where::cpu, w); });
    reg("mlp/cpu_1thread" + tail, [w](benchmark::State& s) { BM_mlp(s, Where::cpu_1thread, w); });
    if (gpu) {
      reg("mlp/gpu" + tail, [w](benchmark::State& s) { BM_mlp(s, Where::gpu, w); });
      reg("mlp/gpu_copy" + tail, [w](benchmark::State& s) { BM_mlp(s, Where::gpu_copy, w); });
    }
  }
  if (!g_cfg.thread_sweep) return;
  for (int t = 2; t < wick::get_num_threads(); t *= 2) {
    for (int64_t w = 64; w <= std::min<int64_t>(g_cfg.max_width, 1024); w *= 2) {
      const std::string name =
          "mlp/cpu_threads:" + std::to_string(t) + "/width:" + std::to_string(w);
      reg(name, [w, t](benchmark::State& s) { BM_mlp(s, Where::cpu, w, t); });
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      g_cfg.quick = true;
      g_cfg.max_width = 1024;
      g_cfg.budget_s = 0.25;
      g_cfg.max_reps = 15;
    } else if (arg == "--thread-sweep") {
      g_cfg.thread_sweep = true;
    } else if (arg == "--cpu-only") {
      g_cfg.cpu_only = true;
    } else if (arg.rfind("--max-width=", 0) == 0) {
      g_cfg.max_width = std::stoll(arg.substr(12));
    } else {
      std::fprintf(stderr, "bench_training: unknown argument %s\n", argv[i]);
      return 1;
    }
  }
  if (!use_gpu()) {
    std::printf("bench_training: GPU rows skipped (%s)\n",
                g_cfg.cpu_only ? "--cpu-only" : wick::cuda::unavailable_reason().c_str());
  }
  add_context();
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
