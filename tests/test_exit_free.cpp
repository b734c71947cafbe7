// test_exit_free.cpp: work done after a thread's thread-locals are destroyed. A thread's
// thread_local objects are destroyed before static ones, and a thread_local made before the
// library's own is destroyed after them. Then:
//  - a freed tensor's block must go back to libc, not into the destroyed allocator cache;
//  - a matmul must not pack into the GEMM's destroyed buffers (a review's static destructor
//    crashed there, SIGSEGV);
//  - freeing an autograd graph must not use the destroyed list that frees nodes iteratively
//    (a review's global Tensor holding a graph corrupted the heap at exit).
// These are uses after free that only a memory checker sees: CTest runs this program under
// valgrind, see CMakeLists.txt.
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "wick/wick.hpp"

namespace {

// Destroyed after main()'s thread-locals, the small-block cache included.
wick::Tensor g_table = wick::ones({4});
// Holds an autograd graph until after main()'s thread-locals are gone.
wick::Tensor g_graph;

// Runs a product in its destructor, after main()'s thread-locals (the GEMM's buffers among
// them) are destroyed.
struct ProductAtExit {
  wick::Tensor a;
  ~ProductAtExit() {
    const wick::Tensor c = wick::matmul(a, a);
    if (c.sum().item<double>() != 256.0 * 256.0 * 256.0) std::abort();
  }
};

// Made before the thread's first small allocation, so destroyed after that thread's cache.
struct Holder {
  wick::Tensor tensor;
  ~Holder() {
    tensor = wick::Tensor();
    // A product and a graph freed after this thread's GEMM buffers and graph list are gone.
    const wick::Tensor a = wick::ones({128, 128});
    if (wick::matmul(a, a).sum().item<double>() != 128.0 * 128.0 * 128.0) std::abort();
    const wick::Tensor w = wick::ones({4}).requires_grad_();
    const wick::Tensor graph = (w * 2.0 + w) * w;
  }
};

}  // namespace

int main() {
  static ProductAtExit product_at_exit{wick::ones({256, 256})};
  std::thread worker([] {
    thread_local Holder holder;
    holder.tensor = wick::ones({8}) * 2.0;  // the cache is made here, after holder
    const wick::Tensor a = wick::ones({128, 128});
    (void)wick::matmul(a, a);  // the GEMM's buffers, after holder
    const wick::Tensor w = wick::ones({4}).requires_grad_();
    { const wick::Tensor freed = (w * 2.0).sum(); }  // the graph list, after holder
  });
  worker.join();
  (void)wick::matmul(product_at_exit.a, product_at_exit.a);  // main's GEMM buffers
  const wick::Tensor w = wick::ones({4}).requires_grad_();
  { const wick::Tensor freed = (w * 2.0).sum(); }  // main's graph list
  g_graph = (w * 3.0) + (w * 4.0) * (w * 5.0);     // freed at exit, after that list
  const double total = (wick::ones({4}) + g_table).sum().item<double>();
  std::printf("sum %g\n", total);
  return total == 8.0 ? 0 : 1;
}
