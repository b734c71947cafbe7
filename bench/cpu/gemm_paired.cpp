// gemm_paired.cpp: wick's GEMM and OpenBLAS's cblas_sgemm (cblas_dgemm with --f64) timed
// interleaved, on the same 64-byte aligned buffers, and the median of the per-round speed ratios
// (paired.hpp says why pairs, and what the block and the gap are for). The report's GEMM tables
// come from the same timing, as wick_bench_cpu_gemm's sgemm_paired rows; this tool is for quick
// questions.
//
//   wick_gemm_paired M K N THREADS [T] [--f64] [--vs-packed] [--block S] [--gap S]
//
// T: B is stored N x K and C = A @ B^T. --f64: float64 (default float32). --vs-packed: the
// reference is wick itself with every product packed (gemm::set_direct_volume(0)), to measure
// the direct path. Defaults: one call per round and no gap on one thread; 20 ms blocks and a
// 0.15 s gap on more.
//
// Prints one line: both libraries' median GFLOP/s and the median of wick / OpenBLAS speed.
#include <cblas.h>

#include <algorithm>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "aligned_matrix.hpp"
#include "gemm/gemm.hpp"
#include "paired.hpp"

namespace {

namespace gemm = wick::cpu::gemm;

struct Shape {
  int64_t m, k, n;
  int threads;
  bool trans_b;
  bool vs_packed;  // the reference is wick's packed path, not OpenBLAS
};

void blas_gemm(const Shape& s, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, s.trans_b ? CblasTrans : CblasNoTrans, s.m, s.n, s.k,
              1.0f, a, s.k, b, s.trans_b ? s.k : s.n, 0.0f, c, s.n);
}

void blas_gemm(const Shape& s, const double* a, const double* b, double* c) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, s.trans_b ? CblasTrans : CblasNoTrans, s.m, s.n, s.k,
              1.0, a, s.k, b, s.trans_b ? s.k : s.n, 0.0, c, s.n);
}

// Times both libraries on one problem; prints the line and returns the exit status.
template <typename T>
int run(const Shape& s, paired::Options opt) {
  const int64_t m = s.m, k = s.k, n = s.n;
  const bench::Buffer<T> a = bench::random_matrix<T>(m, k, 1), b = bench::random_matrix<T>(k, n, 2);
  bench::Buffer<T> c(static_cast<size_t>(m * n));
  const gemm::ConstMatrix<T> am{a.data(), m, k, k, 1};
  const gemm::ConstMatrix<T> bm = s.trans_b ? gemm::ConstMatrix<T>{b.data(), k, n, 1, k}
                                            : gemm::ConstMatrix<T>{b.data(), k, n, n, 1};
  const std::function<void()> wick_call = [&] { gemm::gemm<T>(am, bm, c.data(), n, s.threads); };
  const std::function<void()> blas_call =
      s.vs_packed ? std::function<void()>([&] {
        gemm::set_direct_volume(0);
        gemm::gemm<T>(am, bm, c.data(), n, s.threads);
        gemm::set_direct_volume(-1);
      })
                  : std::function<void()>([&] { blas_gemm(s, a.data(), b.data(), c.data()); });
  wick_call();  // warm caches, buffers and thread pools
  blas_call();
  const double gflop =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) / 1e9;
  // About 60 GFLOP per library in float32 (about a second here), 30 in float64, in 10 to 200
  // rounds.
  const double per_round = std::max(gflop, opt.block_s * 50);
  const double budget = sizeof(T) == 4 ? 60.0 : 30.0;
  opt.rounds = static_cast<int>(std::clamp(budget / per_round, 10.0, 200.0));
  const auto t = paired::time_interleaved({wick_call, blas_call}, opt);
  const char* reference = s.vs_packed ? "wick packed" : "OpenBLAS";
  std::printf(
      "%ldx%ldx%ld%s %s threads %d, %d rounds (block %g s, gap %g s): wick %.1f GFLOP/s, "
      "%s %.1f GFLOP/s, wick / %s speed %.3f (median of the rounds)\n",
      static_cast<long>(m), static_cast<long>(k), static_cast<long>(n), s.trans_b ? "T" : "",
      sizeof(T) == 4 ? "float32" : "float64", s.threads, opt.rounds, opt.block_s, opt.gap_s,
      gflop / paired::median(t[0]), reference, gflop / paired::median(t[1]), reference,
      paired::median(paired::speed_ratios(t[0], t[1])));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: %s M K N THREADS [T] [--f64] [--vs-packed] [--block S] [--gap S]\n",
                 argv[0]);
    return 2;
  }
  Shape shape{
      std::atol(argv[1]), std::atol(argv[2]), std::atol(argv[3]), std::atoi(argv[4]), false, false};
  bool f64 = false;
  paired::Options opt;
  opt.block_s = shape.threads > 1 ? 0.02 : 0;
  opt.gap_s = shape.threads > 1 ? 0.15 : 0;
  for (int i = 5; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "T") {
      shape.trans_b = true;
    } else if (arg == "--f64") {
      f64 = true;
    } else if (arg == "--vs-packed") {
      shape.vs_packed = true;
    } else if ((arg == "--block" || arg == "--gap") && i + 1 < argc) {
      (arg == "--block" ? opt.block_s : opt.gap_s) = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  if (shape.m <= 0 || shape.k <= 0 || shape.n <= 0 || shape.threads <= 0) {
    std::fprintf(stderr, "M, K, N and THREADS must be positive\n");
    return 2;
  }
  openblas_set_num_threads(shape.threads);
  return f64 ? run<double>(shape, opt) : run<float>(shape, opt);
}
