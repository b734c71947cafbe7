// bench_gemm_ladder.cpp: every kernel of the CUDA matmul ladder (kernels/cuda/gemm/) against
// cuBLAS, in one run (Google Benchmark, JSON with --benchmark_out).
//  - shapes: square 512 .. 8192 (steps 1 to 4 stop at 4096: at 8192 they would take seconds
//    per product; step 8's tile variants, "08_cp_async_128x256_s3" ..., run at 2048 and 4096
//    only) and three transformer-like products: a QKV projection (M 4096 tokens,
//    N 3 x 4096, K 4096), an MLP down projection (4096, 4096, K 11008) and batched attention
//    scores (32 heads of 2048 x 2048 x 128);
//  - references: cuBLAS SGEMM (CUBLAS_COMPUTE_32F, through wick's "cublas" kernel) for the FP32
//    steps, cuBLAS with TF32 tensor cores (cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32) for
//    step 9, cuBLAS BF16 (cublasGemmStridedBatchedEx on bfloat16 tensors, through wick's
//    "cublas" kernel: "cublas_bf16") for steps 10 to 12, which like it run on bfloat16 copies
//    of the inputs made before timing, B as a transposed view of a K-contiguous matrix (the
//    layout of x @ W.t(), which steps 11 and 12 need); cuBLAS TF32 also for step 13 (TF32
//    wgmma), which reads float32 B as such a transposed view too, made before timing (cuBLAS
//    TF32 reads B row-major: the same product, its own layout); and the chip's FP32 FMA rate,
//    measured first (fma_peak.cu);
//  - counters per row: median_ms, TFLOP/s, min_ms and max_ms (the spread), rel_err (Frobenius
//    error against cuBLAS SGEMM of the same float32 inputs; BF16 rows include the rounding of
//    their inputs to bfloat16, about 3e-3), peak_fp32 (the measured FMA rate). The
//    table script (bench/gpu/gemm_table.py) divides by the matching cuBLAS row and the peak.
// Method (/work/.library/device/METHOD.md): inputs randn, never zeros; 3 warm-up products;
// before every timed product a 256 MiB cudaMemsetAsync flushes the 60 MB L2 (outside the
// timed region); each product is timed with CUDA events on the legacy default stream where
// wick queues its work; the figures are medians. A forced kernel that does not run as itself
// (last_matmul_kernel() differs) is reported as an error, never timed as something else.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "wick/matmul_backend.hpp"
#include "wick/wick.hpp"

double measure_fp32_fma_tflops();  // fma_peak.cu

namespace {

double g_peak_tflops = 0;

using gpu_bench::check;
using gpu_bench::median;

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + " failed with cuBLAS status " +
                             std::to_string(static_cast<int>(status)));
  }
}

struct L2Flush {
  void* buffer = nullptr;
  size_t bytes = size_t{256} << 20;
  L2Flush() { check(cudaMalloc(&buffer, bytes), "cudaMalloc (L2 flush buffer)"); }
  ~L2Flush() { cudaFree(buffer); }
  void operator()() const { check(cudaMemsetAsync(buffer, 0, bytes, nullptr), "cudaMemsetAsync"); }
};

const L2Flush& l2_flush() {
  static const L2Flush flush;
  return flush;
}

cublasHandle_t cublas_tf32_handle() {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    check_cublas(cublasCreate(&h), "cublasCreate");
    check_cublas(cublasSetStream(h, nullptr), "cublasSetStream");
    return h;
  }();
  return handle;
}

// C = A @ B for row-major [batch, M, K] and [batch, K, N] through cublasGemmStridedBatchedEx
// with TF32 tensor cores: column-major C^T = B^T A^T.
void cublas_tf32(const wick::Tensor& a, const wick::Tensor& b, wick::Tensor& c, int64_t batch,
                 int64_t m, int64_t n, int64_t k) {
  const float alpha = 1, beta = 0;
  check_cublas(cublasGemmStridedBatchedEx(
                   cublas_tf32_handle(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n),
                   static_cast<int>(m), static_cast<int>(k), &alpha, b.raw_data(), CUDA_R_32F,
                   static_cast<int>(n), k * n, a.raw_data(), CUDA_R_32F, static_cast<int>(k), m * k,
                   &beta, c.raw_data(), CUDA_R_32F, static_cast<int>(n), m * n,
                   static_cast<int>(batch), CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT),
               "cublasGemmStridedBatchedEx (TF32)");
}

double relative_error(const wick::Tensor& got, const wick::Tensor& want) {
  const double diff = (got - want).pow(2).sum().item<float>();
  const double norm = want.pow(2).sum().item<float>();
  return std::sqrt(diff / norm);
}

struct Shape3 {
  int64_t batch, m, n, k;
};

// The kernel names the bench runs, in ladder order, then the references.
const std::vector<std::string>& kernels() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const char* name : wick::matmul_kernel_names()) {
      if (std::string(name) != "auto") out.emplace_back(name);
    }
    out.emplace_back("cublas_tf32");
    out.emplace_back("cublas_bf16");
    return out;
  }();
  return names;
}

void BM_gemm(benchmark::State& state, std::string kernel, Shape3 s) {
  try {
    const auto opts = wick::TensorOptions().device(wick::kCUDA);
    const wick::Tensor a =
        s.batch > 1 ? wick::randn({s.batch, s.m, s.k}, opts) : wick::randn({s.m, s.k}, opts);
    const wick::Tensor b =
        s.batch > 1 ? wick::randn({s.batch, s.k, s.n}, opts) : wick::randn({s.k, s.n}, opts);
    wick::set_matmul_kernel("cublas");
    const wick::Tensor reference = a.matmul(b);
    const bool tf32 = kernel == "cublas_tf32";
    const bool bf16 = kernel == "cublas_bf16" || kernel == "10_bf16_mma" ||
                      kernel == "11_wgmma_tma" || kernel == "12_wgmma_wide";
    const bool k_major = kernel == "13_wgmma_tf32";  // float32 B^T contiguous, as bh below
    // What wick's last_matmul_kernel() must say for this row.
    const std::string runs_as = kernel == "cublas_bf16" ? "cublas" : kernel;
    const wick::Tensor ah = bf16 ? a.to(wick::kBFloat16) : wick::Tensor();
    // B as a transposed view of a K-contiguous copy (x @ W.t(), a Linear layer's layout): the
    // one steps 11 and 12 take; step 10 and cuBLAS read it in place as well.
    const wick::Tensor bh =
        bf16 ? b.transpose(-1, -2).contiguous().to(wick::kBFloat16).transpose(-1, -2)
             : wick::Tensor();
    const wick::Tensor bk = k_major ? b.transpose(-1, -2).contiguous().transpose(-1, -2) : b;
    wick::Tensor c = wick::empty(reference.sizes(), opts);
    if (!tf32) wick::set_matmul_kernel(runs_as);
    auto product = [&] {
      if (tf32) {
        cublas_tf32(a, b, c, s.batch, s.m, s.n, s.k);
      } else if (bf16) {
        c = ah.matmul(bh);
      } else {
        c = a.matmul(bk);
      }
    };
    for (int i = 0; i < 3; ++i) product();
    if (!tf32 && std::string(wick::last_matmul_kernel()) != runs_as) {
      wick::set_matmul_kernel("auto");
      state.SkipWithError(("kernel " + kernel + " cannot take this product; " +
                           wick::last_matmul_kernel() + " ran instead")
                              .c_str());
      return;
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    const double err = relative_error(c, reference);
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    std::vector<double> times;
    for (auto _ : state) {
      l2_flush()();
      check(cudaEventRecord(start, nullptr), "cudaEventRecord");
      product();
      check(cudaEventRecord(stop, nullptr), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      times.push_back(ms);
      state.SetIterationTime(ms / 1e3);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    wick::set_matmul_kernel("auto");
    const double ms = median(times);
    const double flops = 2.0 * static_cast<double>(s.batch) * s.m * s.n * s.k;
    state.counters["median_ms"] = ms;
    state.counters["min_ms"] = *std::min_element(times.begin(), times.end());
    state.counters["max_ms"] = *std::max_element(times.begin(), times.end());
    state.counters["TFLOP/s"] = flops / (ms / 1e3) / 1e12;
    state.counters["rel_err"] = err;
    state.counters["peak_fp32"] = g_peak_tflops;
    state.counters["batch"] = static_cast<double>(s.batch);
    state.counters["M"] = static_cast<double>(s.m);
    state.counters["N"] = static_cast<double>(s.n);
    state.counters["K"] = static_cast<double>(s.k);
    state.SetLabel(kernel);
  } catch (const std::exception& e) {
    wick::set_matmul_kernel("auto");
    state.SkipWithError(e.what());
  }
}

void register_all() {
  struct Named {
    std::string name;
    Shape3 shape;
  };
  std::vector<Named> shapes;
  for (int64_t n : {512, 1024, 2048, 4096, 8192}) {
    shapes.push_back({"square_" + std::to_string(n), {1, n, n, n}});
  }
  shapes.push_back({"qkv_4096x12288x4096", {1, 4096, 12288, 4096}});
  shapes.push_back({"mlp_down_4096x4096x11008", {1, 4096, 4096, 11008}});
  shapes.push_back({"attention_32x2048x2048x128", {32, 2048, 2048, 128}});
  for (const Named& named : shapes) {
    for (const std::string& kernel : kernels()) {
      const bool slow = kernel < "05";  // steps 1 to 4
      const bool square = named.name.rfind("square_", 0) == 0;
      if (slow && (!square || named.shape.m > 4096)) continue;
      // Step 8's tile variants: the sweep for its tuning, at 2048 and 4096 only (a few seconds).
      const bool variant = kernel.rfind("08_cp_async_", 0) == 0;
      if (variant && !(square && (named.shape.m == 2048 || named.shape.m == 4096))) continue;
      const int iterations = named.shape.m * named.shape.n >= int64_t{8192} * 8192 ? 5 : 10;
      benchmark::RegisterBenchmark(("gemm/" + named.name + "/" + kernel).c_str(), BM_gemm, kernel,
                                   named.shape)
          ->UseManualTime()
          ->Iterations(iterations)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (!wick::cuda::is_available()) {
    std::printf("SKIPPED: %s\n", wick::cuda::unavailable_reason().c_str());
    return 0;
  }
  const wick::DeviceProperties props = wick::cuda::get_device_properties(0);
  g_peak_tflops = measure_fp32_fma_tflops();
  std::printf("wick matmul ladder on %s (sm_%d%d, %d SMs); measured FP32 FMA peak %.1f TFLOP/s\n",
              props.name.c_str(), props.major, props.minor, props.multi_processor_count,
              g_peak_tflops);
  benchmark::AddCustomContext("device", props.name);
  benchmark::AddCustomContext("sm", std::to_string(props.major * 10 + props.minor));
  benchmark::AddCustomContext("peak_fp32_tflops", std::to_string(g_peak_tflops));
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
