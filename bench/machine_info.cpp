// machine_info.cpp: the two ceilings the report measures every other CPU figure against, on
// this machine, in this run (scripts/main.sh; docs/report.md):
//  - fma_peak/<isa>/threads:T: float32 FLOP/s of a loop of independent fused multiply-adds on T
//    threads at once (12 accumulators per thread, so FMA throughput, not latency, bounds it),
//    for each vector width the CPU has (AVX-512, AVX2+FMA, else plain scalar code): per second
//    of wall clock, and per second of each thread's own CPU time summed over the threads (the
//    cores' capacity, which other processes on a shared machine hardly disturb);
//  - copy/threads:T/bytes:B: memcpy of B bytes split over T threads, counted as bytes read plus
//    bytes written (2B), for B from 16 KiB (in L1/L2) to 256 MiB (main memory), the ceiling of
//    the memory-bound ops; the same definition as bench/gpu's device copy.
// T is 1, 2 and every hardware thread. Each row is repeated (copy: 3 with --quick, else 5; the FMA
// loop twice as often, in shorter repetitions) and reported per repetition and with Google
// Benchmark's median, mean, stddev and cv aggregates; each repetition is warmed up by the
// library's own iteration-count search. A ceiling is what the machine can do, and a busy
// machine only ever lowers a figure, so the report takes the best repetition as the ceiling
// (and shows the median beside it). Run through scripts/main.sh, or alone:
//   build/bench/wick_machine_info [--quick] --benchmark_out=machine.json
// This is deliberately independent of bench/cpu (which measures its own FMA peak at start-up,
// with the GEMM's ISA): it needs only the compiler, so the machine section of the report exists
// whatever else was built.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "copy_buffers.hpp"
#include "fma_loops.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

int hw_threads() {
#if defined(_OPENMP)
  return omp_get_num_procs();
#else
  return 1;
#endif
}

using fma_loops::fma_scalar;
#if defined(__x86_64__)
using fma_loops::fma_avx2;
using fma_loops::fma_avx512;
#endif

using FmaLoop = double (*)(int64_t);

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Two figures: FLOP/s, all threads' FLOPs per second of wall clock (what the machine delivered
// in this run), and FLOP/s_capacity, the sum over threads of each thread's FLOPs per second of
// its own CPU time (what the cores do while they run this loop: a busy machine that takes a
// core away for a while lowers the first, hardly the second).
void BM_fma_peak(benchmark::State& state, FmaLoop loop, int threads) {
  constexpr int64_t kIters = 1 << 16;  // ~0.2 ms of work per thread per burst
  double flops = 0, capacity = 0;
  int64_t bursts = 0;
  for (auto _ : state) {
    double rate = 0;
#if defined(_OPENMP)
#pragma omp parallel num_threads(threads) reduction(+ : flops, rate)
#endif
    {
      const double t0 = thread_cpu_s();
      const double f = loop(kIters);
      const double dt = thread_cpu_s() - t0;
      flops += f;
      if (dt > 0) rate += f / dt;
    }
    capacity += rate;
    ++bursts;
  }
  state.counters["FLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsRate);
  state.counters["FLOP/s_capacity"] = bursts > 0 ? capacity / static_cast<double>(bursts) : 0;
  state.counters["threads"] = threads;
}

// ---- copy bandwidth ----
void BM_copy(benchmark::State& state, int threads) {
  const auto bytes = static_cast<size_t>(state.range(0));
  bench::CopyBuffers buffers(bytes, threads);  // huge pages, first touched by each thread
  for (auto _ : state) {
    buffers.copy();
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(buffers.dst()[bytes / 2]);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 *
                          static_cast<int64_t>(bytes));
  state.counters["threads"] = threads;
  state.counters["bytes"] = static_cast<double>(bytes);
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--quick") {
      quick = true;
    } else {
      std::fprintf(stderr, "machine_info: unknown argument %s\n", argv[i]);
      return 1;
    }
  }
  const int all = hw_threads();
  // 1, 2 (bench/cpu's GEMMs run on 1 and 2 threads) and every hardware thread.
  std::vector<int> thread_counts{1};
  if (all > 2) thread_counts.push_back(2);
  if (all > 1) thread_counts.push_back(all);
  const int reps = quick ? 3 : 5;
  const double min_time = quick ? 0.02 : 0.1;

  benchmark::AddCustomContext("cpu_model", cpu_model());
  benchmark::AddCustomContext("hw_threads", std::to_string(all));
  benchmark::AddCustomContext("machine_info_mode", quick ? "quick" : "full");

  std::vector<std::pair<std::string, FmaLoop>> loops;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) loops.emplace_back("avx512", fma_avx512);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    loops.emplace_back("avx2", fma_avx2);
  }
#endif
  if (loops.empty()) loops.emplace_back("scalar", fma_scalar);
  std::string isas;
  for (const auto& [name, loop] : loops) isas += (isas.empty() ? "" : ",") + name;
  benchmark::AddCustomContext("fma_isas", isas);

  for (const auto& [name, loop] : loops) {
    for (int t : thread_counts) {
      const FmaLoop fn = loop;
      benchmark::RegisterBenchmark(("fma_peak/" + name + "/threads:" + std::to_string(t)).c_str(),
                                   [fn, t](benchmark::State& s) { BM_fma_peak(s, fn, t); })
          ->UseRealTime()
          ->MinTime(0.01)
          ->Repetitions(2 * reps)
          ->Unit(benchmark::kMicrosecond);
    }
  }
  const int64_t max_bytes = quick ? int64_t{64} << 20 : int64_t{256} << 20;
  const int64_t step = 4;
  for (int t : thread_counts) {
    auto* b = benchmark::RegisterBenchmark(("copy/threads:" + std::to_string(t)).c_str(),
                                           [t](benchmark::State& s) { BM_copy(s, t); });
    for (int64_t bytes = int64_t{16} << 10; bytes <= max_bytes; bytes *= step) b->Arg(bytes);
    b->ArgName("bytes")->UseRealTime()->MinTime(min_time)->Repetitions(reps)->Unit(
        benchmark::kMicrosecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
