// paired_rows.hpp: Google Benchmark rows that time themselves with paired.hpp. Such a row is one
// measurement (its rounds), whatever iteration count Google Benchmark would pick, and it reports
// what it measured as counters.
//
// Google Benchmark's warm-up (--benchmark_min_warmup_time, seconds) runs a benchmark untimed
// until that much time has passed before timing it. For a paired row that would be one more
// whole measurement, doubling its time; skipping the warm-up run outright makes Google Benchmark
// repeat the row many times to fill the warm-up. So the row's first run only waits out the
// warm-up time; the row warms its implementations itself.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "paired.hpp"

namespace paired {

// Google Benchmark's warm-up seconds, as the command line set them.
inline double& gb_warmup_s() {
  static double seconds = 0;
  return seconds;
}

// benchmark::Initialize, after noting its warm-up time (which Initialize consumes), then the
// one flag of our own, --paired_seconds=S (about how long each paired row times). False, with
// a message, on any other argument left over.
inline bool initialize(int* argc, char** argv, double* paired_seconds) {
  const std::string warmup = "--benchmark_min_warmup_time=", seconds = "--paired_seconds=";
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(warmup, 0) == 0) gb_warmup_s() = std::atof(arg.c_str() + warmup.size());
  }
  benchmark::Initialize(argc, argv);
  for (int i = 1; i < *argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(seconds, 0) != 0) {
      std::fprintf(stderr, "%s: unknown argument %s\n", argv[0], arg.c_str());
      return false;
    }
    *paired_seconds = std::atof(arg.c_str() + seconds.size());
  }
  return true;
}

// Registers `name`, whose `measure` times its implementations once (paired::time_interleaved)
// inside a single-iteration `for (auto _ : state)` and sets the state's counters.
inline benchmark::internal::Benchmark* register_row(
    const std::string& name, std::function<void(benchmark::State&)> measure) {
  auto runs = std::make_shared<int>(0);
  return benchmark::RegisterBenchmark(
             name.c_str(),
             [runs, measure](benchmark::State& state) {
               if (gb_warmup_s() > 0 && (*runs)++ == 0) {
                 for (auto _ : state) {
                   std::this_thread::sleep_for(std::chrono::duration<double>(gb_warmup_s() * 1.1));
                 }
                 return;
               }
               measure(state);
             })
      ->Iterations(1)
      ->Repetitions(1)
      ->UseRealTime();
}

// How a row on `threads` threads pairs `impls` implementations whose slowest warm-up call took
// slowest_call_s: blocks of 5 ms on one thread and 20 ms on more, a 0.15 s pause before each
// block on more than one thread (paired.hpp says why), and as many rounds, 5 to 50, as fill
// about `seconds`.
inline Options options_for(int threads, size_t impls, double slowest_call_s, double seconds) {
  Options opt;
  opt.block_s = threads > 1 ? 0.02 : 0.005;
  opt.gap_s = threads > 1 ? 0.15 : 0;
  const double per_round =
      static_cast<double>(impls) * (opt.gap_s + std::max(opt.block_s, slowest_call_s));
  opt.rounds = static_cast<int>(std::clamp(seconds / per_round, 5.0, 50.0));
  return opt;
}

// The row's one measurement (time_interleaved), however many iterations Google Benchmark asks
// for; sets the `rounds` counter.
inline std::vector<std::vector<double>> measure(benchmark::State& state,
                                                const std::vector<std::function<void()>>& calls,
                                                const Options& opt) {
  std::vector<std::vector<double>> seconds;
  for (auto _ : state) {
    if (seconds.empty()) seconds = time_interleaved(calls, opt);
  }
  state.counters["rounds"] = opt.rounds;
  return seconds;
}

// Counters `key`, `key`_lo and `key`_hi: the median per-round speed of impl over reference (above
// 1: impl faster) and its 25th and 75th percentiles.
inline void set_ratio_counters(benchmark::State& state, const std::string& key,
                               const std::vector<double>& impl_s,
                               const std::vector<double>& reference_s) {
  const std::vector<double> ratios = speed_ratios(impl_s, reference_s);
  state.counters[key] = median(ratios);
  state.counters[key + "_lo"] = quantile(ratios, 0.25);
  state.counters[key + "_hi"] = quantile(ratios, 0.75);
}

}  // namespace paired
