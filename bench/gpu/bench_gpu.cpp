// bench_gpu.cpp: the CUDA backend's benchmarks (Google Benchmark), with napkin maths.
//  - device copy bandwidth (cudaMemcpyAsync device to device, 2^26 floats, bytes read plus
//    written), measured first: the ceiling of the memory-bound ops below;
//  - elementwise add, mul, exp, sum, softmax on 2^26 floats (rows of 1024, of 8192 and of
//    65536, and over dim 0: strided rows of 2048 and of 8192), and layer_norm and its backward
//    (rows of 1024 and 8192): achieved GB/s, and that as a
//    fraction of the copy bandwidth of this run
//    ("of_copy"; the targets on the H200: >= 0.9 for elementwise and sum, >= 0.8 for
//    softmax);
//  - matmul float32, the tiled kernel and cuBLAS at 1024, 2048, 4096: TFLOP/s;
//  - host to device and device to host through wick's to() (pinned staging above 4 MiB), and
//    cudaMemcpy from pinned and from pageable memory for comparison: GB/s.
// Method (see /work/.library/device/METHOD.md): warm-up runs first (module load, caching
// allocator, cuBLAS handle), device work timed with CUDA events on the stream wick uses (the
// legacy default stream) behind a 64 MiB memset that keeps the GPU busy while the host
// dispatches (so host overhead is not counted as device time), transfers with a host clock (to()
// returns when the data is ready), each benchmark's figures from the median of its iterations.
// Inputs are random (never zeros), 256 MiB per operand: far beyond the H200's 60 MB L2, so no flush
// is needed. Run by bench/gpu/check.sh; results in docs/gpu-results.md and docs/results/.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "wick/matmul_backend.hpp"
#include "wick/wick.hpp"

namespace {

constexpr int64_t kElements = int64_t{1} << 26;  // 2^26 floats = 256 MiB
double g_copy_gbps = 0;                          // set by BM_device_copy, which runs first

using gpu_bench::check;
using gpu_bench::median;

// 64 MiB that a cudaMemsetAsync writes before each start event, so that the GPU is still busy
// (about 30 us at the H200's bandwidth) while the host dispatches the op: otherwise the host's
// checks, allocation and launch (a few us) would count as device time, and only for wick's ops,
// not for the cudaMemcpyAsync ceiling.
struct BusyPad {
  void* buffer = nullptr;
  static constexpr size_t kBytes = size_t{64} << 20;
  BusyPad() { check(cudaMalloc(&buffer, kBytes), "cudaMalloc (busy pad)"); }
  ~BusyPad() { cudaFree(buffer); }
  void queue() const { check(cudaMemsetAsync(buffer, 0, kBytes, nullptr), "cudaMemsetAsync"); }
};
const BusyPad& busy_pad() {
  static const BusyPad pad;
  return pad;
}

// Milliseconds of device time that fn's work takes, between two events on the legacy default
// stream (where wick queues every op), the start event queued behind the busy pad.
template <typename Fn>
double device_ms(Fn&& fn) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  busy_pad().queue();
  check(cudaEventRecord(start, nullptr), "cudaEventRecord");
  fn();
  check(cudaEventRecord(stop, nullptr), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
  return ms;
}

template <typename Fn>
double host_ms(Fn&& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

// Warm-up, then one timed run per benchmark iteration; reports the median.
// bytes: bytes moved per run (for GB/s); flops: operations per run (for TFLOP/s).
template <typename Fn>
void run(benchmark::State& state, double bytes, double flops, bool on_host, Fn&& fn) {
  try {
    for (int i = 0; i < 3; ++i) fn();
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    std::vector<double> times;
    for (auto _ : state) {
      const double ms = on_host ? host_ms(fn) : device_ms(fn);
      times.push_back(ms);
      state.SetIterationTime(ms / 1e3);
    }
    const double ms = median(times);
    state.counters["median_ms"] = ms;
    if (bytes > 0) {
      const double gbps = bytes / (ms / 1e3) / 1e9;
      state.counters["GB/s"] = gbps;
      if (g_copy_gbps > 0 && !on_host) state.counters["of_copy"] = gbps / g_copy_gbps;
    }
    if (flops > 0) state.counters["TFLOP/s"] = flops / (ms / 1e3) / 1e12;
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

wick::Tensor random_gpu(const wick::Shape& shape) {
  return wick::randn(shape, wick::TensorOptions().device(wick::kCUDA));
}

// ---- memory-bound ops on 2^26 floats ----
void BM_device_copy(benchmark::State& state) {
  wick::Tensor src = random_gpu({kElements});
  wick::Tensor dst = wick::empty({kElements}, wick::TensorOptions().device(wick::kCUDA));
  const double bytes = 2.0 * 4 * kElements;
  run(state, bytes, 0, false, [&] {
    check(cudaMemcpyAsync(dst.raw_data(), src.raw_data(), 4 * kElements, cudaMemcpyDeviceToDevice,
                          nullptr),
          "cudaMemcpyAsync");
  });
  g_copy_gbps = state.counters["GB/s"].value;
}

void BM_add(benchmark::State& state) {
  wick::Tensor a = random_gpu({kElements}), b = random_gpu({kElements});
  run(state, 3.0 * 4 * kElements, 0, false, [&] { wick::Tensor c = a + b; });
}

void BM_mul(benchmark::State& state) {
  wick::Tensor a = random_gpu({kElements}), b = random_gpu({kElements});
  run(state, 3.0 * 4 * kElements, 0, false, [&] { wick::Tensor c = a * b; });
}

void BM_exp(benchmark::State& state) {
  wick::Tensor a = random_gpu({kElements});
  run(state, 2.0 * 4 * kElements, 0, false, [&] { wick::Tensor c = a.exp(); });
}

void BM_sum(benchmark::State& state) {
  wick::Tensor a = random_gpu({kElements});
  run(state, 4.0 * kElements, 0, false, [&] { wick::Tensor s = a.sum(); });
}

// prod: the reduction kernels of BM_sum with a product policy (kernels/cuda/reduce.cu);
// values near 1, so that the product stays a normal number.
void BM_prod(benchmark::State& state) {
  wick::Tensor a = random_gpu({kElements}) * 1e-6 + 1.0;
  run(state, 4.0 * kElements, 0, false, [&] { wick::Tensor s = a.prod(); });
}

void BM_softmax(benchmark::State& state) {
  const int64_t row = state.range(0);
  wick::Tensor a = random_gpu({kElements / row, row});
  run(state, 2.0 * 4 * kElements, 0, false, [&] { wick::Tensor s = a.softmax(1); });
}

// Softmax over dim 0 of a row-major (n, 2^26 / n) matrix: rows of n elements, strided by the
// row length, n in the range softmax_cols_split_kernel takes (1025 to 32768).
void BM_softmax_dim0(benchmark::State& state) {
  const int64_t n = state.range(0);
  wick::Tensor a = random_gpu({n, kElements / n});
  run(state, 2.0 * 4 * kElements, 0, false, [&] { wick::Tensor s = a.softmax(0); });
}

// layer_norm over rows of n with weight and bias: x read, y written (the rows' later passes
// hit L1/L2); its backward: grad_output and x read, d input written, plus d weight / d bias.
void BM_layer_norm(benchmark::State& state) {
  const int64_t n = state.range(0);
  wick::Tensor x = random_gpu({kElements / n, n}), w = random_gpu({n}), b = random_gpu({n});
  run(state, 2.0 * 4 * kElements, 0, false,
      [&] { wick::Tensor y = wick::layer_norm(x, {n}, w, b); });
}

void BM_layer_norm_backward(benchmark::State& state) {
  const int64_t n = state.range(0);
  wick::Tensor x = random_gpu({kElements / n, n}), g = random_gpu({kElements / n, n});
  wick::Tensor w = random_gpu({n});
  run(state, 3.0 * 4 * kElements, 0, false, [&] {
    auto grads = wick::layer_norm_backward(g, x, {n}, w, 1e-5, {true, true, true});
  });
}

// ---- an embedding's lookup and backward: 8192 tokens of a [50304, 768] float32 table (GPT-2
// small's, 8 x 1024 tokens) ----
// index_select: the selected rows read and written. index_add (the backward from zeros): the
// table written once by the boundary's copy, the source read, the target rows read and
// written. The backward (the index grouped by row on the host, kernels/cuda/index.cu) is
// predicted at 0.2-0.3 ms, the table write and the index's round trip through the host.
constexpr int64_t kVocab = 50304, kWidth = 768, kTokens = 8192;

wick::Tensor gpu_tokens() {
  return (wick::rand({kTokens}, wick::TensorOptions().device(wick::kCUDA)) * (kVocab - 1))
      .to(wick::kInt64);
}

void BM_embedding_lookup(benchmark::State& state) {
  wick::Tensor table = random_gpu({kVocab, kWidth}), tokens = gpu_tokens();
  run(state, 2.0 * 4 * kTokens * kWidth, 0, false,
      [&] { wick::Tensor rows = table.index_select(0, tokens); });
}

void BM_embedding_backward(benchmark::State& state) {
  wick::Tensor tokens = gpu_tokens(), grad = random_gpu({kTokens, kWidth});
  const wick::Tensor zero = wick::zeros({}, wick::TensorOptions().device(wick::kCUDA));
  run(state, 4.0 * kVocab * kWidth + 3.0 * 4 * kTokens * kWidth, 0, false, [&] {
    wick::Tensor d_table = wick::index_add(zero.expand({kVocab, kWidth}), 0, tokens, grad);
  });
}

// ---- gather and scatter_add: a classifier's pick of one of 1000 logits for each of 65536 rows,
// and its gradient (scatter_add into zeros). gather reads the index and the picked elements and
// writes the output (one element per 32-byte sector: bandwidth is counted as useful bytes, so
// expect ~1/8 of the copy's). scatter_add from zeros writes the [65536, 1000] gradient once
// (the boundary's copy, 262 MB) and adds one element per row (the column kernel: one thread
// per row): predicted at the copy's time for the write, ~0.1 ms, plus the host index check. ----
constexpr int64_t kPickRows = 65536, kClasses = 1000;

void BM_gather_rows(benchmark::State& state) {
  wick::Tensor logits = random_gpu({kPickRows, kClasses});
  wick::Tensor picks =
      (wick::rand({kPickRows, 1}, wick::TensorOptions().device(wick::kCUDA)) * (kClasses - 1))
          .to(wick::kInt64);
  run(state, 2.0 * 4 * kPickRows + 8.0 * kPickRows, 0, false,
      [&] { wick::Tensor picked = logits.gather(1, picks); });
}

void BM_scatter_add_rows(benchmark::State& state) {
  wick::Tensor picks =
      (wick::rand({kPickRows, 1}, wick::TensorOptions().device(wick::kCUDA)) * (kClasses - 1))
          .to(wick::kInt64);
  wick::Tensor grad = random_gpu({kPickRows, 1});
  const wick::Tensor zero = wick::zeros({}, wick::TensorOptions().device(wick::kCUDA));
  run(state, 4.0 * kPickRows * kClasses + 3.0 * 4 * kPickRows + 8.0 * kPickRows, 0, false, [&] {
    wick::Tensor d_logits = wick::scatter_add(zero.expand({kPickRows, kClasses}), 1, picks, grad);
  });
}

// ---- sort and topk (sort.cu) ----
// Rows of 1000 (one tile each, the bitonic network alone) and of 2^20 (tiles, then 8 merge
// passes). Bytes: the input read and the values and positions written, once each.
void BM_sort_rows(benchmark::State& state) {
  const int64_t cols = state.range(0), rows = (int64_t{1} << 24) / cols;
  wick::Tensor x = random_gpu({rows, cols});
  run(state, (4.0 + 4.0 + 8.0) * rows * cols, 0, false, [&] { (void)x.sort(-1); });
}
// The top 5 of 1000 classes for 65536 rows (an accuracy metric), and the top 50 of a 50257-word
// vocabulary for 64 rows (a sampler): both sort the whole row, then keep k.
void BM_topk_rows(benchmark::State& state) {
  const int64_t cols = state.range(0), rows = state.range(1), k = state.range(2);
  wick::Tensor x = random_gpu({rows, cols});
  run(state, 4.0 * rows * cols + 12.0 * rows * k, 0, false, [&] { (void)x.topk(k, -1); });
}

// ---- linear algebra (kernels/cuda/lu.cu) ----
// linalg_lu_factor of a batch: 16384 of 8 x 8 and 1024 of 64 x 64 (one block per matrix), and
// one of 1024 x 1024 (the grid, two launches per column). Flops: 2/3 n^3 per matrix. The
// pivots' range check is not part of it (linalg_lu_factor runs none).
void BM_lu_factor(benchmark::State& state) {
  const int64_t batch = state.range(0), n = state.range(1);
  wick::Tensor a = random_gpu({batch, n, n});
  run(state, 0, 2.0 / 3.0 * static_cast<double>(batch) * n * n * n, false,
      [&] { (void)wick::linalg_lu_factor(a); });
}

// ---- conv2d (nn/conv.cpp: im2col by index_select, then one matmul) ----
// A ResNet-style layer: 3x3, padding 1, [32, 64, 56, 56] -> 64 channels; forward alone, and
// forward and backward (input and weight gradients). Flops: 2 N O C kh kw OH OW forward, three
// times that with the backward; the im2col copy (9x the input) is not counted.
void BM_conv2d(benchmark::State& state) {
  const bool backward = state.range(0) == 1;
  const int64_t n = 32, c = 64, hw = 56;
  wick::Tensor x = random_gpu({n, c, hw, hw}), w = random_gpu({c, c, 3, 3});
  const double flops = 2.0 * n * c * c * 9 * hw * hw * (backward ? 3 : 1);
  run(state, 0, flops, false, [&] {
    namespace F = wick::nn::functional;
    wick::Tensor xl = x.detach().requires_grad_(backward), wl = w.detach().requires_grad_(backward);
    wick::Tensor y = F::conv2d(xl, wl, wick::nn::Conv2dFuncOptions().padding(1));
    if (backward) y.sum().backward();
  });
}

// Bilinear upsampling by 2 of [32, 64, 56, 56] (nn/upsample.cpp: two resample ops, one per
// spatial dim; kernels/cuda/resample.cu), forward, and forward and backward. Bytes: the input,
// the intermediate [32, 64, 56, 112] written and read, and the output, 4 bytes each (the
// backward's are not counted). Predicted near the copy bandwidth forward; the backward groups
// its taps on the host (one synchronisation per pass).
void BM_interpolate(benchmark::State& state) {
  const bool backward = state.range(0) == 1;
  const int64_t n = 32, c = 64, hw = 56;
  wick::Tensor x = random_gpu({n, c, hw, hw});
  const double bytes = 4.0 * n * c * hw * hw * (1 + 2 * 2 + 4);
  run(state, bytes, 0, false, [&] {
    namespace F = wick::nn::functional;
    wick::Tensor xl = x.detach().requires_grad_(backward);
    wick::Tensor y = F::interpolate(
        xl, wick::nn::InterpolateFuncOptions().scale_factor({2}).mode(wick::nn::kBilinear));
    if (backward) y.sum().backward();
  });
}

// A recurrent layer: LSTM 512 -> 512 over 100 steps of a batch of 64, forward, and forward and
// backward through time. Flops: 2 * 4H * (in + H) per sample and step forward, three times that
// with the backward; the gate ops are not counted (they are launch-bound at this size).
void BM_lstm(benchmark::State& state) {
  const bool backward = state.range(0) == 1;
  const int64_t steps = 100, batch = 64, width = 512;
  wick::nn::LSTM lstm(width, width);
  lstm->to(wick::kCUDA);
  wick::Tensor x = random_gpu({steps, batch, width});
  const double flops = 2.0 * 4 * width * (2 * width) * batch * steps * (backward ? 3 : 1);
  run(state, 0, flops, false, [&] {
    std::optional<wick::NoGradGuard> no_grad;
    if (!backward) no_grad.emplace();
    wick::Tensor out = std::get<0>(lstm(x));
    if (backward) out.sum().backward();
  });
}

// ---- matmul float32 ----
void BM_matmul(benchmark::State& state) {
  const int64_t n = state.range(0);
  const bool cublas = state.range(1) == 1;
  wick::set_matmul_backend(cublas ? wick::MatmulBackend::Cublas : wick::MatmulBackend::Tiled);
  wick::Tensor a = random_gpu({n, n}), b = random_gpu({n, n});
  run(state, 0, 2.0 * static_cast<double>(n) * n * n, false, [&] { wick::Tensor c = a.matmul(b); });
  wick::set_matmul_backend(wick::MatmulBackend::Tiled);
}

// ---- transfers, 256 MiB ----
constexpr int64_t kTransferBytes = int64_t{256} << 20;

void BM_h2d_wick(benchmark::State& state) {
  wick::Tensor host = wick::randn({kTransferBytes / 4});
  run(state, static_cast<double>(kTransferBytes), 0, true,
      [&] { wick::Tensor d = host.to(wick::kCUDA); });
}

void BM_d2h_wick(benchmark::State& state) {
  wick::Tensor device = random_gpu({kTransferBytes / 4});
  run(state, static_cast<double>(kTransferBytes), 0, true,
      [&] { wick::Tensor h = device.to(wick::kCPU); });
}

// cudaMemcpy straight from pageable (malloc) or pinned (cudaHostAlloc) memory: the references.
void transfer_raw(benchmark::State& state, bool pinned, bool to_device) {
  void* host = nullptr;
  if (pinned) {
    check(cudaHostAlloc(&host, kTransferBytes, cudaHostAllocDefault), "cudaHostAlloc");
  } else {
    host = std::malloc(kTransferBytes);
  }
  std::memset(host, 1, kTransferBytes);
  wick::Tensor device =
      wick::empty({kTransferBytes}, wick::TensorOptions().dtype(wick::kBool).device(wick::kCUDA));
  run(state, static_cast<double>(kTransferBytes), 0, true, [&] {
    if (to_device) {
      check(cudaMemcpy(device.raw_data(), host, kTransferBytes, cudaMemcpyHostToDevice),
            "cudaMemcpy");
    } else {
      check(cudaMemcpy(host, device.raw_data(), kTransferBytes, cudaMemcpyDeviceToHost),
            "cudaMemcpy");
    }
  });
  if (pinned) {
    check(cudaFreeHost(host), "cudaFreeHost");
  } else {
    std::free(host);
  }
}
void BM_h2d_pinned_raw(benchmark::State& state) { transfer_raw(state, true, true); }
void BM_h2d_pageable_raw(benchmark::State& state) { transfer_raw(state, false, true); }
void BM_d2h_pinned_raw(benchmark::State& state) { transfer_raw(state, true, false); }
void BM_d2h_pageable_raw(benchmark::State& state) { transfer_raw(state, false, false); }

}  // namespace

// Registration order is run order: the copy ceiling first.
BENCHMARK(BM_device_copy)->UseManualTime()->Iterations(30)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_add)->UseManualTime()->Iterations(30)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_mul)->UseManualTime()->Iterations(30)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_exp)->UseManualTime()->Iterations(30)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sum)->UseManualTime()->Iterations(30)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_prod)->UseManualTime()->Iterations(30)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_softmax)
    ->Arg(1024)
    ->Arg(8192)
    ->Arg(65536)
    ->UseManualTime()
    ->Iterations(30)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_softmax_dim0)
    ->Arg(2048)
    ->Arg(8192)
    ->UseManualTime()
    ->Iterations(30)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_layer_norm)
    ->Arg(1024)
    ->Arg(8192)
    ->UseManualTime()
    ->Iterations(30)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_layer_norm_backward)
    ->Arg(1024)
    ->Arg(8192)
    ->UseManualTime()
    ->Iterations(30)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_embedding_lookup)->UseManualTime()->Iterations(30)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_embedding_backward)->UseManualTime()->Iterations(10)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gather_rows)->UseManualTime()->Iterations(30)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_scatter_add_rows)->UseManualTime()->Iterations(10)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_sort_rows)
    ->ArgNames({"cols"})
    ->Arg(1000)
    ->Arg(1 << 20)
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_topk_rows)
    ->ArgNames({"cols", "rows", "k"})
    ->Args({1000, 65536, 5})
    ->Args({50257, 64, 50})
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_lu_factor)
    ->ArgNames({"batch", "n"})
    ->Args({16384, 8})
    ->Args({1024, 64})
    ->Args({1, 1024})
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_conv2d)
    ->ArgNames({"backward"})
    ->Arg(0)
    ->Arg(1)
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_interpolate)
    ->ArgNames({"backward"})
    ->Arg(0)
    ->Arg(1)
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_lstm)
    ->ArgNames({"backward"})
    ->Arg(0)
    ->Arg(1)
    ->UseManualTime()
    ->Iterations(5)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_matmul)
    ->ArgNames({"n", "cublas"})
    ->ArgsProduct({{1024, 2048, 4096}, {0, 1}})
    ->UseManualTime()
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_h2d_wick)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_d2h_wick)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_h2d_pinned_raw)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_h2d_pageable_raw)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_d2h_pinned_raw)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_d2h_pageable_raw)->UseManualTime()->Iterations(10)->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
  if (!wick::cuda::is_available()) {
    std::printf("SKIPPED: %s\n", wick::cuda::unavailable_reason().c_str());
    return 0;
  }
  std::printf("wick GPU benchmarks on %s\n", wick::cuda::device_name(0).c_str());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
