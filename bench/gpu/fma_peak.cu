// fma_peak.cu: the chip's FP32 FMA rate, measured: the ceiling the ladder's FP32 kernels are
// compared with ("of_peak" in bench_gemm_ladder). Each thread runs 8 independent chains of
// dependent FMAs (enough to hide the FMA latency of 4 cycles with 4 warps per scheduler), on a
// grid of 8 blocks of 1024 threads per SM; 2 flops per FMA. The result is written so the
// compiler cannot drop the work. Timed with CUDA events, best of 5 after a warm-up.
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace {

constexpr int kChains = 8;
constexpr int kSteps = 65536;  // 1.1 TFLOP per run: about 17 ms on an H200, clocks boosted

__global__ void fma_chains(float* out, float x) {
  float acc[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) acc[c] = x + static_cast<float>(threadIdx.x + c);
  for (int s = 0; s < kSteps; ++s) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) acc[c] = fmaf(acc[c], 0.9999f, 0.0001f);
  }
  float sum = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += acc[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace

// TFLOP/s of FP32 FMAs on device 0.
double measure_fp32_fma_tflops() {
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  const int threads = 1024, blocks = prop.multiProcessorCount * 8;
  float* out = nullptr;
  check(cudaMalloc(&out, sizeof(float) * threads * blocks), "cudaMalloc");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  float best_ms = 1e30f;
  for (int run = 0; run < 6; ++run) {
    check(cudaEventRecord(start), "cudaEventRecord");
    fma_chains<<<blocks, threads>>>(out, 1.0f);
    check(cudaGetLastError(), "fma_chains launch");
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (run > 0) best_ms = std::min(best_ms, ms);  // run 0 is the warm-up
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(out);
  const double flops = 2.0 * kChains * kSteps * static_cast<double>(threads) * blocks;
  return flops / (best_ms / 1e3) / 1e12;
}
