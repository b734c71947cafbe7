// threads.cpp: wick::set_num_threads and get_num_threads (wick/threads.hpp), and
// cpu::max_threads(), which every parallel loop and the GEMM ask before starting a team. The
// number is kept in one atomic so that it holds for every host thread; each team is started
// with an explicit num_threads, so OpenMP's per-thread setting never decides it once this is
// set. OpenMP's default is capped by the cgroup CPU limit (cpu_quota.hpp) unless OMP_NUM_THREADS
// says otherwise.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "cpu_quota.hpp"
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
namespace {
// The most threads OpenMP's default may give: the cgroup's CPU limit, unless the user chose a
// number through OMP_NUM_THREADS (read once, as OpenMP does).
int default_thread_cap() {
  static const int cap = [] {
    const char* env = std::getenv("OMP_NUM_THREADS");
    const int quota = (env != nullptr && *env != '\0') ? 0 : cgroup_thread_limit();
    return quota > 0 ? std::min(quota, kMaxNumThreads) : kMaxNumThreads;
  }();
  return cap;
}
}  // namespace

int max_threads() {
#if defined(_OPENMP)
  const int set = g_num_threads.load(std::memory_order_relaxed);
  return set > 0 ? set : std::min(omp_get_max_threads(), default_thread_cap());
#else
  return 1;
#endif
}
}  // namespace cpu
}  // namespace wick
