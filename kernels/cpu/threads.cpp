// threads.cpp: wick::set_num_threads and get_num_threads (wick/threads.hpp), and
// cpu::max_threads(), which every parallel loop and the GEMM ask before they split their work
// over the pool (thread_pool.hpp). The number is kept in one atomic, so it holds for every
// host thread. Until it is set, the default is OMP_NUM_THREADS when set (the convention PyTorch
// and OpenBLAS follow too), else the CPUs this process may run on (its affinity mask) capped by
// its cgroup CPU limit (cpu_quota.hpp).
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "cpu_quota.hpp"
#include "loops.hpp"
#include "wick/error.hpp"
#include "wick/threads.hpp"

namespace wick {
namespace {
std::atomic<int> g_num_threads{0};  // 0: not set, the default
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

int omp_num_threads_setting(const char* text) {
  if (text == nullptr) return 0;
  while (*text == ' ' || *text == '\t') ++text;
  // OpenMP reads a list ("4,2": 4 at the outer level); the first number is the one that counts.
  int value = 0;
  const char* end = text + std::strlen(text);
  const auto [rest, error] = std::from_chars(text, end, value);
  if (error == std::errc::result_out_of_range && rest != text && *text != '-') {
    return kMaxNumThreads;
  }
  if (error != std::errc() || value < 1) return 0;
  for (const char* c = rest; c != end; ++c) {
    if (*c != ' ' && *c != '\t' && *c != ',') return 0;
    if (*c == ',') break;
  }
  return std::min(value, kMaxNumThreads);
}

namespace {
int cpus_available() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return count;
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// The default, decided once (as OpenMP reads OMP_NUM_THREADS once).
int default_threads() {
  static const int threads = [] {
    const int from_env = omp_num_threads_setting(std::getenv("OMP_NUM_THREADS"));
    if (from_env > 0) return from_env;
    int cpus = std::min(cpus_available(), kMaxNumThreads);
    const int quota = cgroup_thread_limit();
    return quota > 0 ? std::min(cpus, quota) : cpus;
  }();
  return threads;
}
}  // namespace

int available_cpus() {
  static const int cpus = cpus_available();
  return cpus;
}

int max_threads() {
  const int set = g_num_threads.load(std::memory_order_relaxed);
  return set > 0 ? set : default_threads();
}
}  // namespace cpu
}  // namespace wick
