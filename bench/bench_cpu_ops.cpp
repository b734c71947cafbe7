// bench_cpu_ops.cpp: the CPU ops a training loop spends its time in, each with its napkin
// maths: elementwise add and exp (bytes moved per second), sum (bytes read per second), and
// matmul (FLOP/s), at a few sizes, with a memcpy of the same bytes timed in the same run as the
// ceiling for the memory-bound ops. Run: build/bench/wick_bench_cpu_ops (see README.md).
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "copy_buffers.hpp"
#include "wick/wick.hpp"

namespace {

// memcpy of n floats into another buffer, on 1 thread (range 1 = 1) or on all (0: an OpenMP
// team as wide as the ops' thread count): the bandwidth an elementwise op can hope for when it
// reads one array and writes one (add reads two: its ceiling is 1.5x this time). Timed in this
// program, beside the ops, so that the report's "% of ceiling" compares two figures of one run:
// machine_info's copy, run as another program, drifted from 34 to 51 GB/s between quiet runs on the
// 2-vCPU VM. The buffers are allocated as wick allocates a large tensor (copy_buffers.hpp).
void BM_memcpy(benchmark::State& state) {
  const int64_t n = state.range(0);
  const int threads = state.range(1) == 0 ? wick::get_num_threads() : 1;
  bench::CopyBuffers buffers(static_cast<size_t>(n) * sizeof(float), threads);
  for (auto _ : state) {
    buffers.copy();
    benchmark::DoNotOptimize(buffers.dst());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * n * 2 * int64_t{sizeof(float)});
  state.counters["omp_threads"] = threads;  // "threads" is Google Benchmark's own key
}

void BM_add(benchmark::State& state) {
  const int64_t n = state.range(0);
  wick::Tensor a = wick::randn({n}), b = wick::randn({n});
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
  state.SetBytesProcessed(state.iterations() * n * 3 * int64_t{sizeof(float)});
}

void BM_add_broadcast_row(benchmark::State& state) {
  const int64_t n = state.range(0);
  wick::Tensor a = wick::randn({n / 1024, 1024}), row = wick::randn({1024});
  for (auto _ : state) benchmark::DoNotOptimize(a + row);
  state.SetBytesProcessed(state.iterations() * n * 2 * int64_t{sizeof(float)});
}

// A number operand is a 0-d tensor expanded to the other's shape (stride 0): SGD's g * -lr
// and the scalar half of where(mask, 0, g), ReLU's backward.
void BM_mul_scalar(benchmark::State& state) {
  const int64_t n = state.range(0);
  wick::Tensor a = wick::randn({n});
  for (auto _ : state) benchmark::DoNotOptimize(a * 0.5);
  state.SetBytesProcessed(state.iterations() * n * 2 * int64_t{sizeof(float)});
}

void BM_where_scalar(benchmark::State& state) {
  const int64_t n = state.range(0);
  wick::Tensor g = wick::randn({n}), mask = wick::randn({n}) > 0.0;
  for (auto _ : state) benchmark::DoNotOptimize(wick::where(mask, wick::Scalar(0.0), g));
  // A bool and a float read, a float written.
  state.SetBytesProcessed(state.iterations() * n * (1 + 2 * int64_t{sizeof(float)}));
}

// a + alpha * b: SGD's update p.add_(g, -lr) out of place.
void BM_add_alpha(benchmark::State& state) {
  const int64_t n = state.range(0);
  wick::Tensor a = wick::randn({n}), b = wick::randn({n});
  for (auto _ : state) benchmark::DoNotOptimize(a.add(b, -0.01));
  state.SetBytesProcessed(state.iterations() * n * 3 * int64_t{sizeof(float)});
}

void BM_exp(benchmark::State& state) {
  const int64_t n = state.range(0);
  wick::Tensor a = wick::randn({n});
  for (auto _ : state) benchmark::DoNotOptimize(a.exp());
  state.SetBytesProcessed(state.iterations() * n * 2 * int64_t{sizeof(float)});
}

void BM_sum(benchmark::State& state) {
  const int64_t n = state.range(0);
  wick::Tensor a = wick::randn({n});
  for (auto _ : state) benchmark::DoNotOptimize(a.sum());
  state.SetBytesProcessed(state.iterations() * n * int64_t{sizeof(float)});
}

void BM_softmax_rows(benchmark::State& state) {
  const int64_t n = state.range(0);
  wick::Tensor a = wick::randn({n / 1024, 1024});
  for (auto _ : state) benchmark::DoNotOptimize(a.softmax(1));
  state.SetBytesProcessed(state.iterations() * n * 2 * int64_t{sizeof(float)});
}

// A transposed n x n float32 matrix made contiguous (kernels/cpu/transpose_copy.cpp): what
// the autograd engine does with the gradient of every weight used as w.t(). Bytes read plus
// written.
void BM_transpose_contiguous(benchmark::State& state) {
  const int64_t n = state.range(0);
  wick::Tensor a = wick::randn({n, n});
  for (auto _ : state) benchmark::DoNotOptimize(a.t().contiguous());
  state.SetBytesProcessed(state.iterations() * n * n * 2 * int64_t{sizeof(float)});
}

void BM_matmul(benchmark::State& state) {
  const int64_t n = state.range(0);
  wick::Tensor a = wick::randn({n, n}), b = wick::randn({n, n});
  for (auto _ : state) benchmark::DoNotOptimize(wick::matmul(a, b));
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2.0 * n * n * n / 1e9, benchmark::Counter::kIsRate);
}

// The per-op overhead: a + b on 64x10 floats, the seed program's shapes.
void BM_add_small(benchmark::State& state) {
  wick::Tensor a = wick::randn({64, 10}), b = wick::randn({64, 10});
  for (auto _ : state) benchmark::DoNotOptimize(a + b);
}

}  // namespace

// Args: {floats, threads (0: all)}. The ops run on all threads, with their output bytes at
// 12 (add), 8 (one input) or 4 (sum) per float: 2^16 to 2^24 floats brackets them all. 2^23
// (64 MiB moved, past a 32 MiB L3) puts a point beyond the cache cliff at the size of the
// largest sum: between 8 and 128 MiB moved, interpolation alone gave that sum a ceiling of
// 42 GB/s where main memory gives about 16.
BENCHMARK(BM_memcpy)->ArgsProduct({{1 << 16, 1 << 20, 1 << 23, 1 << 24}, {1, 0}});
BENCHMARK(BM_add)->Arg(1 << 16)->Arg(1 << 20)->Arg(1 << 24);
BENCHMARK(BM_add_broadcast_row)->Arg(1 << 20);
BENCHMARK(BM_mul_scalar)->Arg(1 << 20);
BENCHMARK(BM_where_scalar)->Arg(1 << 20);
BENCHMARK(BM_add_alpha)->Arg(1 << 20);
BENCHMARK(BM_exp)->Arg(1 << 20);
BENCHMARK(BM_sum)->Arg(1 << 20)->Arg(1 << 24);
BENCHMARK(BM_softmax_rows)->Arg(1 << 20);
BENCHMARK(BM_transpose_contiguous)->Arg(1024);
BENCHMARK(BM_matmul)->Arg(64)->Arg(256)->Arg(1000);
BENCHMARK(BM_add_small);

BENCHMARK_MAIN();
