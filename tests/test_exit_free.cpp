// test_exit_free.cpp: tensors freed after the CPU allocator's per-thread cache is gone. A
// thread's thread_local objects are destroyed before static ones, and a thread_local made
// before the cache is destroyed after it; either way the block must go back to libc, not into
// the destroyed cache (a use after free that only a memory checker sees: CTest runs this
// program under valgrind, see CMakeLists.txt).
#include <cstdio>
#include <thread>

#include "wick/wick.hpp"

namespace {

// Destroyed after main()'s thread-locals, the small-block cache included.
wick::Tensor g_table = wick::ones({4});

// Made before the thread's first small allocation, so destroyed after that thread's cache.
struct Holder {
  wick::Tensor tensor;
  ~Holder() { tensor = wick::Tensor(); }
};

}  // namespace

int main() {
  std::thread worker([] {
    thread_local Holder holder;
    holder.tensor = wick::ones({8}) * 2.0;  // the cache is made here, after holder
  });
  worker.join();
  const double total = (wick::ones({4}) + g_table).sum().item<double>();
  std::printf("sum %g\n", total);
  return total == 8.0 ? 0 : 1;
}
