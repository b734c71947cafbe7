// gemm_paired.cpp: wick's float32 GEMM and OpenBLAS's cblas_sgemm timed in pairs, back to
// back on the same 64-byte aligned buffers, and the median of the per-pair speed ratios.
// Why a second tool next to wick_bench_cpu_gemm: on a VM whose host lends the cores to other
// guests, the machine's speed drifts by 20-40% from one process to the next (1000^3 on one
// thread measured 58-79 GFLOP/s in twelve runs of one binary on the AVX2 EPYC), which Google
// Benchmark's repetitions, seconds apart, take for differences between the libraries; a ratio
// taken within each pair cancels the drift. Use one thread for ratios: with two, the team that
// finished last (libgomp's or OpenBLAS's) spins for a while and slows the other.
//
//   wick_gemm_paired M K N THREADS [T]     (T: B is stored N x K and C = A @ B^T)
//
// Prints one line: both libraries' median GFLOP/s and the median of wick / OpenBLAS speed.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gemm/gemm.hpp"

namespace {

namespace gemm = wick::cpu::gemm;

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct AlignedFloats {
  explicit AlignedFloats(int64_t n)
      : data(static_cast<float*>(
            std::aligned_alloc(64, (static_cast<size_t>(n) * 4 + 63) / 64 * 64))) {
    if (data == nullptr) std::abort();
  }
  ~AlignedFloats() { std::free(data); }
  AlignedFloats(const AlignedFloats&) = delete;
  AlignedFloats& operator=(const AlignedFloats&) = delete;
  float* data;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s M K N THREADS [T]\n", argv[0]);
    return 2;
  }
  const int64_t m = std::atol(argv[1]), k = std::atol(argv[2]), n = std::atol(argv[3]);
  const int threads = std::atoi(argv[4]);
  const bool trans_b = argc > 5 && std::string(argv[5]) == "T";
  if (m <= 0 || k <= 0 || n <= 0 || threads <= 0) {
    std::fprintf(stderr, "M, K, N and THREADS must be positive\n");
    return 2;
  }
  openblas_set_num_threads(threads);
  AlignedFloats a(m * k), b(k * n), c(m * n);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (int64_t i = 0; i < m * k; ++i) a.data[i] = dist(rng);
  for (int64_t i = 0; i < k * n; ++i) b.data[i] = dist(rng);
  const gemm::ConstMatrix<float> am{a.data, m, k, k, 1};
  const gemm::ConstMatrix<float> bm = trans_b ? gemm::ConstMatrix<float>{b.data, k, n, 1, k}
                                              : gemm::ConstMatrix<float>{b.data, k, n, n, 1};
  const double gflop =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / 1e9;
  // About 60 GFLOP per library (about a second here), in 10 to 200 pairs.
  const int pairs = static_cast<int>(std::clamp(60.0 / gflop, 10.0, 200.0));
  std::vector<double> wick_s, blas_s, ratio;
  for (int r = 0; r <= pairs; ++r) {  // pair 0 warms caches, buffers and thread pools
    const double t0 = seconds_now();
    gemm::gemm<float>(am, bm, c.data, n, threads);
    const double t1 = seconds_now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0f,
                a.data, k, b.data, trans_b ? k : n, 0.0f, c.data, n);
    const double t2 = seconds_now();
    if (r == 0) continue;
    wick_s.push_back(t1 - t0);
    blas_s.push_back(t2 - t1);
    ratio.push_back((t2 - t1) / (t1 - t0));
  }
  std::printf(
      "%ldx%ldx%ld%s threads %d, %d pairs: wick %.1f GFLOP/s, OpenBLAS %.1f GFLOP/s, "
      "wick / OpenBLAS speed %.3f (median of the pairs)\n",
      static_cast<long>(m), static_cast<long>(k), static_cast<long>(n), trans_b ? "T" : "", threads,
      pairs, gflop / median(wick_s), gflop / median(blas_s), median(ratio));
  return 0;
}
