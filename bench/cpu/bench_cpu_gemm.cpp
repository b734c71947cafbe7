// bench_cpu_gemm.cpp: wick's CPU GEMM against OpenBLAS (cblas_sgemm/dgemm) and libtorch's mm,
// when the build found them, at N = 64..4096 and a few non-square and transposed shapes, for 1
// and 2 threads in the same run, each library alone (sgemm/<lib>/...) and all of them timed
// interleaved (sgemm_paired/..., paired.hpp: what the report uses on a drifting VM); then the
// worklog ladder of docs/cpu-gemm.md (naive, loop order, blocking, packing, micro-kernel, threads)
// at N = 1024; then elementwise add on 2^24 floats against memcpy of the same bytes. Every GEMM row
// reports GFLOP/s and `peak_frac`, the fraction of the FMA peak that this program measures itself
// at start-up (a tight loop of independent FMAs on every thread; also timed as the fma_peak rows).
// All peers get the same inputs and thread count and one untimed warm-up call before timing. Run it
// through /work/shared/tools/quiet-run and turn the JSON into tables with bench/cpu/gemm_table.py
// (the command is in docs/cpu-gemm.md).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "aligned_matrix.hpp"
#include "copy_buffers.hpp"
#include "fma_loops.hpp"
#include "gemm/gemm.hpp"
#include "gemm_ladder.hpp"
#include "kernels.hpp"
#include "paired.hpp"
#include "paired_rows.hpp"
#include "wick/wick.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(WICK_BENCH_OPENBLAS)
#include <cblas.h>
#endif
#if defined(WICK_BENCH_TORCH)
#include "torch_peer.hpp"
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

namespace gemm = wick::cpu::gemm;

// ---- the FMA peak: 12 independent accumulators per thread, each FMA depending on its own
// previous result only, so throughput, not latency, bounds the loop. ----

// FLOPs of one ~20 ms burst of the widest FMA loop the CPU has (0 when it has none).
double fma_burst() {
#if defined(__x86_64__)
  if (gemm::best_supported_isa() == gemm::Isa::avx512) return fma_loops::fma_avx512(1 << 20);
  if (gemm::best_supported_isa() == gemm::Isa::avx2) return fma_loops::fma_avx2(1 << 21);
#endif
  return 0;
}

// GFLOP/s of `threads` threads running the FMA loop at once: the best of 5 tries.
double measure_peak(int threads) {
  double best = 0;
  for (int trial = 0; trial < 5; ++trial) {
    double flops = 0;
    const auto t0 = std::chrono::steady_clock::now();
#if defined(_OPENMP)
#pragma omp parallel num_threads(threads) reduction(+ : flops)
#endif
    flops += fma_burst();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, flops / s / 1e9);
  }
  (void)threads;
  return best;
}

double g_peak[3] = {0, 0, 0};  // GFLOP/s for 1 and 2 threads, measured in main()

void BM_fma_peak(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  double flops = 0;
  for (auto _ : state) {
#if defined(_OPENMP)
#pragma omp parallel num_threads(threads) reduction(+ : flops)
#endif
    flops += fma_burst();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsRate);
  state.counters["threads"] = threads;
}

// ---- GEMM ----

enum class Lib { wick, wick_avx2, wick_portable, openblas, torch, naive, loop_order, blocked };

const char* lib_name(Lib lib) {
  switch (lib) {
    case Lib::wick:
      return "wick";
    case Lib::wick_avx2:
      return "wick_avx2";
    case Lib::wick_portable:
      return "wick_portable";
    case Lib::openblas:
      return "openblas";
    case Lib::torch:
      return "torch";
    case Lib::naive:
      return "naive";
    case Lib::loop_order:
      return "loop_order";
    case Lib::blocked:
      return "blocked";
  }
  return "?";
}

void set_threads(int threads) {
#if defined(_OPENMP)
  omp_set_num_threads(threads);
#endif
#if defined(WICK_BENCH_OPENBLAS)
  openblas_set_num_threads(threads);
#endif
#if defined(WICK_BENCH_TORCH)
  torch_peer::set_threads(threads);
#endif
  (void)threads;
}

using bench::Buffer;
using bench::random_matrix;

// C = A @ B (trans_b: B is stored n x k and C = A @ B^T), row-major, on buffers every library
// shares.
template <typename T>
struct Problem {
  Problem(int64_t m_, int64_t k_, int64_t n_, bool trans_b_)
      : m(m_),
        k(k_),
        n(n_),
        trans_b(trans_b_),
        a(random_matrix<T>(m, k, 1)),
        b(random_matrix<T>(k, n, 2)),
        c(static_cast<size_t>(m * n)) {}
  double flops() const {
    return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  }
  int64_t m, k, n;
  bool trans_b;
  Buffer<T> a, b, c;
};

// One product by `lib` (wick_avx2 and wick_portable need gemm::set_isa around the call).
template <typename T>
void run_gemm(Lib lib, Problem<T>& p, int threads) {
  const int64_t m = p.m, k = p.k, n = p.n;
  const bool trans_b = p.trans_b;
  const T* a = p.a.data();
  const T* b = p.b.data();
  T* c = p.c.data();
  switch (lib) {
    case Lib::wick:
    case Lib::wick_avx2:
    case Lib::wick_portable: {
      const gemm::ConstMatrix<T> am{a, m, k, k, 1};
      const gemm::ConstMatrix<T> bm =
          trans_b ? gemm::ConstMatrix<T>{b, k, n, 1, k} : gemm::ConstMatrix<T>{b, k, n, n, 1};
      gemm::gemm<T>(am, bm, c, n, threads);
      break;
    }
    case Lib::openblas:
#if defined(WICK_BENCH_OPENBLAS)
      if constexpr (std::is_same_v<T, float>) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0f,
                    a, k, b, trans_b ? k : n, 0.0f, c, n);
      } else {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0,
                    a, k, b, trans_b ? k : n, 0.0, c, n);
      }
#endif
      break;
    case Lib::torch:
#if defined(WICK_BENCH_TORCH)
      if constexpr (std::is_same_v<T, float>) torch_peer::mm(a, b, c, m, k, n, trans_b);
#endif
      break;
    case Lib::naive:
      if constexpr (std::is_same_v<T, float>) ladder::naive(a, b, c, m, k, n);
      break;
    case Lib::loop_order:
      if constexpr (std::is_same_v<T, float>) ladder::loop_order(a, b, c, m, k, n);
      break;
    case Lib::blocked:
      if constexpr (std::is_same_v<T, float>) ladder::blocked(a, b, c, m, k, n);
      break;
  }
}

// Every peer must compute the product asked for (libtorch's once ignored trans_b): 32 sampled
// entries of C, from the last run_gemm, against a float64 dot product.
template <typename T>
bool product_is_right(const Problem<T>& p) {
  for (int s = 0; s < 32; ++s) {
    const int64_t i = (s * 7919) % p.m, j = (s * 104729) % p.n;
    double want = 0, scale = 0;
    for (int64_t q = 0; q < p.k; ++q) {
      const double x = p.a[static_cast<size_t>(i * p.k + q)];
      const double y = p.b[static_cast<size_t>(p.trans_b ? j * p.k + q : q * p.n + j)];
      want += x * y;
      scale += std::abs(x * y);
    }
    const double got = p.c[static_cast<size_t>(i * p.n + j)];
    if (!(std::abs(got - want) <= 1e-4 * scale + 1e-30)) return false;
  }
  return true;
}

template <typename T>
void bm_gemm(benchmark::State& state, Lib lib, int64_t m, int64_t k, int64_t n, int threads,
             bool trans_b) {
  Problem<T> p(m, k, n, trans_b);
  set_threads(threads);
  const gemm::Isa saved = gemm::active_isa();
  if (lib == Lib::wick_avx2) gemm::set_isa(gemm::Isa::avx2);
  if (lib == Lib::wick_portable) gemm::set_isa(gemm::Isa::portable);
  run_gemm(lib, p, threads);  // warm: caches, packing buffers, thread pools
  if (!product_is_right(p)) {
    state.SkipWithError("wrong product: a sampled entry of C differs from the float64 reference");
    gemm::set_isa(saved);
    return;
  }
  for (auto _ : state) {
    run_gemm(lib, p, threads);
    benchmark::ClobberMemory();
  }
  gemm::set_isa(saved);
  const double iters = static_cast<double>(state.iterations());
  state.counters["GFLOP/s"] =
      benchmark::Counter(iters * p.flops() / 1e9, benchmark::Counter::kIsRate);
  if (g_peak[threads] > 0) {  // 0 where the CPU has no FMA loop to measure (not x86-64)
    state.counters["peak_frac"] = benchmark::Counter(iters * p.flops() / (g_peak[threads] * 1e9),
                                                     benchmark::Counter::kIsRate);
  }
  state.counters["threads"] = threads;
  state.SetLabel(gemm::isa_name(lib == Lib::wick_avx2       ? gemm::Isa::avx2
                                : lib == Lib::wick_portable ? gemm::Isa::portable
                                                            : gemm::active_isa()));
}

struct Shape3 {
  int64_t m, k, n;
  bool trans_b = false;
};

// ---- the libraries timed interleaved (paired.hpp says why) ----

double g_paired_seconds = 4;  // about how long each sgemm_paired row times; --paired_seconds=S
// sgemm_paired rows: every peer in rounds, each round one block per library in rotating order.
// Counters: <lib>_GFLOP/s from the median round, wick_vs_<peer> the median of the per-round
// speed ratios (above 1: wick faster), and _lo/_hi their 25th and 75th percentiles.
void bm_gemm_paired(benchmark::State& state, const std::vector<Lib>& libs, const Shape3& s,
                    int threads) {
  Problem<float> p(s.m, s.k, s.n, s.trans_b);
  set_threads(threads);
  std::vector<std::function<void()>> calls;
  double slowest_call = 0;
  for (Lib lib : libs) {
    const double t0 = paired::now_s();
    run_gemm(lib, p, threads);  // warm, and check
    slowest_call = std::max(slowest_call, paired::now_s() - t0);
    if (!product_is_right(p)) {
      state.SkipWithError((std::string("wrong product from ") + lib_name(lib)).c_str());
      return;
    }
    calls.push_back([lib, &p, threads] { run_gemm(lib, p, threads); });
  }
  const paired::Options opt =
      paired::options_for(threads, libs.size(), slowest_call, g_paired_seconds);
  const std::vector<std::vector<double>> seconds = paired::measure(state, calls, opt);
  for (size_t i = 0; i < libs.size(); ++i) {
    state.counters[std::string(lib_name(libs[i])) + "_GFLOP/s"] =
        p.flops() / paired::median(seconds[i]) / 1e9;
    if (i > 0) {
      paired::set_ratio_counters(state, std::string("wick_vs_") + lib_name(libs[i]), seconds[0],
                                 seconds[i]);
    }
  }
  if (g_peak[threads] > 0) {
    state.counters["peak_frac"] = p.flops() / paired::median(seconds[0]) / (g_peak[threads] * 1e9);
  }
  state.counters["threads"] = threads;
  state.SetLabel(gemm::isa_name(gemm::active_isa()));
}

template <typename T>
void register_gemm(const char* prefix, Lib lib, const Shape3& s, int threads) {
  const std::string name = std::string(prefix) + "/" + lib_name(lib) + "/" + std::to_string(s.m) +
                           "x" + std::to_string(s.k) + "x" + std::to_string(s.n) +
                           (s.trans_b ? "T" : "") + "/threads:" + std::to_string(threads);
  benchmark::RegisterBenchmark(
      name.c_str(),
      [=](benchmark::State& st) { bm_gemm<T>(st, lib, s.m, s.k, s.n, threads, s.trans_b); })
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

std::vector<Lib> peers() {
  std::vector<Lib> libs{Lib::wick};
#if defined(WICK_BENCH_OPENBLAS)
  libs.push_back(Lib::openblas);
#endif
#if defined(WICK_BENCH_TORCH)
  libs.push_back(Lib::torch);
#endif
  return libs;
}

// ---- elementwise add against memcpy ----

// memcpy of n floats on T threads, in buffers allocated as wick allocates a large tensor
// (copy_buffers.hpp: huge pages; with 4 KiB pages this ceiling was half of machine_info's).
void BM_memcpy(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  bench::CopyBuffers buffers(static_cast<size_t>(n) * sizeof(float), threads);
  for (auto _ : state) {
    buffers.copy();
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 2 * int64_t{sizeof(float)});
  state.counters["threads"] = threads;
}

// out = a + b through the CPU kernel, into an output allocated once (the bytes memcpy moves:
// two reads and one write, 1.5x memcpy's two streams).
void BM_add_kernel(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  set_threads(threads);
  wick::Tensor a = wick::randn({n}), b = wick::randn({n}), out = wick::empty({n});
  wick::OpCall call{};
  call.op = wick::OpId::add;
  call.inputs = {&a, &b, nullptr};
  call.num_inputs = 2;
  call.outputs = {&out, nullptr};
  call.num_outputs = 1;
  wick::cpu::binary_kernel(call);
  for (auto _ : state) {
    wick::cpu::binary_kernel(call);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 3 * int64_t{sizeof(float)});
  state.counters["threads"] = threads;
}

// a + b through the tensor API: the kernel plus allocating (and first touching) the output.
void BM_add_op(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  set_threads(threads);
  wick::Tensor a = wick::randn({n}), b = wick::randn({n});
  benchmark::DoNotOptimize(a + b);
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
  state.SetBytesProcessed(state.iterations() * n * 3 * int64_t{sizeof(float)});
  state.counters["threads"] = threads;
}

}  // namespace

int main(int argc, char** argv) {
  if (!paired::initialize(&argc, argv, &g_paired_seconds)) return 2;
  g_peak[1] = measure_peak(1);
  g_peak[2] = measure_peak(2);
  benchmark::AddCustomContext("fma_peak_gflops_1_thread", std::to_string(g_peak[1]));
  benchmark::AddCustomContext("fma_peak_gflops_2_threads", std::to_string(g_peak[2]));
  benchmark::AddCustomContext("wick_gemm_isa", gemm::isa_name(gemm::active_isa()));
  const gemm::Blocking bl = gemm::blocking_for<float>(gemm::active_isa());
  benchmark::AddCustomContext("wick_sgemm_blocking",
                              "MR " + std::to_string(bl.mr) + " NR " + std::to_string(bl.nr) +
                                  " MC " + std::to_string(bl.mc) + " KC " + std::to_string(bl.kc) +
                                  " NC " + std::to_string(bl.nc));

  benchmark::RegisterBenchmark("fma_peak", BM_fma_peak)->Arg(1)->Arg(2)->UseRealTime();

  std::vector<Shape3> shapes;
  for (int64_t n : {64, 128, 256, 512, 1024, 2048, 4096}) shapes.push_back({n, n, n});
  for (Shape3 s : {Shape3{1024, 1024, 1024, true}, Shape3{2048, 256, 2048}, Shape3{256, 4096, 256},
                   Shape3{1024, 1024, 64}, Shape3{64, 1024, 2048}, Shape3{1000, 1000, 1000}}) {
    shapes.push_back(s);
  }
  for (const Shape3& s : shapes) {
    for (int threads : {1, 2}) {
      for (Lib lib : peers()) register_gemm<float>("sgemm", lib, s, threads);
    }
  }
  // The same shapes with the libraries interleaved (the report's GEMM tables; with no peer
  // built, wick alone, so that the report has its rows either way).
  for (const Shape3& s : shapes) {
    for (int threads : {1, 2}) {
      const std::string name = "sgemm_paired/" + std::to_string(s.m) + "x" + std::to_string(s.k) +
                               "x" + std::to_string(s.n) + (s.trans_b ? "T" : "") +
                               "/threads:" + std::to_string(threads);
      paired::register_row(name, [=](benchmark::State& st) {
        bm_gemm_paired(st, peers(), s, threads);
      })->Unit(benchmark::kMillisecond);
    }
  }
  for (int threads : {1, 2}) {
    for (Lib lib : peers()) {
      if (lib != Lib::torch) register_gemm<double>("dgemm", lib, {1024, 1024, 1024}, threads);
    }
  }
  // The worklog ladder at N = 1024 (docs/cpu-gemm.md).
  for (Lib lib :
       {Lib::naive, Lib::loop_order, Lib::blocked, Lib::wick_portable, Lib::wick_avx2, Lib::wick}) {
    register_gemm<float>("ladder", lib, {1024, 1024, 1024}, 1);
  }
  register_gemm<float>("ladder", Lib::wick, {1024, 1024, 1024}, 2);

  for (int threads : {1, 2}) {
    benchmark::RegisterBenchmark("memcpy", BM_memcpy)->Args({1 << 24, threads})->UseRealTime();
    benchmark::RegisterBenchmark("add_kernel", BM_add_kernel)
        ->Args({1 << 24, threads})
        ->UseRealTime();
    benchmark::RegisterBenchmark("add_op", BM_add_op)->Args({1 << 24, threads})->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
