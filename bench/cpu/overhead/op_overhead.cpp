// op_overhead.cpp: the per-op overhead of the tensor API on the CPU: a + b on 4 floats, 100000
// times after a warm-up, in ns per call and (under malloc_count.c's LD_PRELOAD shim) heap
// allocations per call. Built and run by run.sh beside it; docs/cpu-kernels.md has the figures.
#include <dlfcn.h>
#include <chrono>
#include <cstdio>
#include "wick/wick.hpp"
extern "C" {
typedef void (*OnFn)(int);
typedef long (*CountFn)(void);
}
int main() {
  auto on = (OnFn)dlsym(RTLD_DEFAULT, "wick_count_on");
  auto count = (CountFn)dlsym(RTLD_DEFAULT, "wick_count");
  wick::Tensor a = wick::randn({4}), b = wick::randn({4});
  for (int i = 0; i < 100; ++i) {
    wick::Tensor c = a + b;
  }
  const int n = 100000;
  if (on) on(1);
  long before = count ? count() : -1;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    wick::Tensor c = a + b;
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  long after = count ? count() : -1;
  if (on) on(0);
  if (count) {
    std::printf(
        "a + b on 4 floats: %.0f ns per call, %.2f heap allocations (malloc, aligned_alloc) per "
        "call\n",
        s / n * 1e9, double(after - before) / n);
  } else {
    std::printf(
        "a + b on 4 floats: %.0f ns per call (allocations not counted: no malloc_count.so)\n",
        s / n * 1e9);
  }
}
