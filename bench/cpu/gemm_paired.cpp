// gemm_paired.cpp: wick's float32 GEMM and OpenBLAS's cblas_sgemm timed interleaved, on the
// same 64-byte aligned buffers, and the median of the per-round speed ratios (paired.hpp says
// why pairs, and what the block and the gap are for). The report's GEMM tables come from the
// same timing, as wick_bench_cpu_gemm's sgemm_paired rows; this tool is for quick questions.
//
//   wick_gemm_paired M K N THREADS [T] [--block S] [--gap S]
//
// T: B is stored N x K and C = A @ B^T. Defaults: one call per round and no gap on one thread;
// 20 ms blocks and a 0.15 s gap on more.
//
// Prints one line: both libraries' median GFLOP/s and the median of wick / OpenBLAS speed.
#include <cblas.h>

#include <algorithm>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gemm/gemm.hpp"
#include "paired.hpp"

namespace {

namespace gemm = wick::cpu::gemm;

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
    std::fprintf(stderr, "usage: %s M K N THREADS [T] [--block S] [--gap S]\n", argv[0]);
    return 2;
  }
  const int64_t m = std::atol(argv[1]), k = std::atol(argv[2]), n = std::atol(argv[3]);
  const int threads = std::atoi(argv[4]);
  bool trans_b = false;
  paired::Options opt;
  opt.block_s = threads > 1 ? 0.02 : 0;
  opt.gap_s = threads > 1 ? 0.15 : 0;
  for (int i = 5; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "T") {
      trans_b = true;
    } else if ((arg == "--block" || arg == "--gap") && i + 1 < argc) {
      (arg == "--block" ? opt.block_s : opt.gap_s) = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
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
  const std::function<void()> wick_call = [&] { gemm::gemm<float>(am, bm, c.data, n, threads); };
  const std::function<void()> blas_call = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k, 1.0f,
                a.data, k, b.data, trans_b ? k : n, 0.0f, c.data, n);
  };
  wick_call();  // warm caches, buffers and thread pools
  blas_call();
  const double gflop =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / 1e9;
  // About 60 GFLOP per library (about a second here), in 10 to 200 rounds.
  const double per_round = std::max(gflop, opt.block_s * 50);
  opt.rounds = static_cast<int>(std::clamp(60.0 / per_round, 10.0, 200.0));
  const auto s = paired::time_interleaved({wick_call, blas_call}, opt);
  std::printf(
      "%ldx%ldx%ld%s threads %d, %d rounds (block %g s, gap %g s): wick %.1f GFLOP/s, OpenBLAS "
      "%.1f GFLOP/s, wick / OpenBLAS speed %.3f (median of the rounds)\n",
      static_cast<long>(m), static_cast<long>(k), static_cast<long>(n), trans_b ? "T" : "", threads,
      opt.rounds, opt.block_s, opt.gap_s, gflop / paired::median(s[0]),
      gflop / paired::median(s[1]), paired::median(paired::speed_ratios(s[0], s[1])));
  return 0;
}
