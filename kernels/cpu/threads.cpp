// threads.cpp: wick::set_num_threads and get_num_threads (wick/threads.hpp), and
// cpu::max_threads(), which every parallel loop and the GEMM ask before starting a team. The
// number is kept in one atomic so that it holds for every host thread; each team is started
// with an explicit num_threads, so OpenMP's per-thread setting never decides it once this is
// set.
#include <algorithm>
#include <atomic>
#include <string>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "loops.hpp"
#include "wick/error.hpp"
#include "wick/threads.hpp"

namespace wick {
namespace {
std::atomic<int> g_num_threads{0};  // 0: not set, OpenMP's default
}  // namespace

void set_num_threads(int n) {
  if (n < 1 || n > kMaxNumThreads) {
    throw ValueError("set_num_threads: the number of threads must be 1 to " +
                     std::to_string(kMaxNumThreads) + ", got " + std::to_string(n));
  }
  g_num_threads.store(n, std::memory_order_relaxed);
}

int get_num_threads() { return cpu::max_threads(); }

namespace cpu {
int max_threads() {
#if defined(_OPENMP)
  const int set = g_num_threads.load(std::memory_order_relaxed);
  return set > 0 ? set : std::min(omp_get_max_threads(), kMaxNumThreads);
#else
  return 1;
#endif
}
}  // namespace cpu
}  // namespace wick
