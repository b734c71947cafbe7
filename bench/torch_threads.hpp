// torch_threads.hpp: one thread count for wick and for libtorch, in the programs that time the
// two side by side.
#pragma once

#include <torch/torch.h>

#include "wick/wick.hpp"

#if defined(WICK_BENCH_OPENBLAS)
extern "C" void openblas_set_num_threads(int num_threads);  // OpenBLAS's own API (cblas.h)
#endif

namespace bench {

// wick's threads, libtorch's intra-op threads and the OpenBLAS threads libtorch's matmuls
// run on: without the last, libtorch's "1 thread" MLP step ran its matmuls on 2 threads
// (17.3 ms for 2.68 GFLOP: 155 GFLOP/s, above the 117 of one core) and its 2-thread step
// oversubscribed the cores (45 ms).
inline void set_threads(int n) {
  wick::set_num_threads(n);
  torch::set_num_threads(n);
#if defined(WICK_BENCH_OPENBLAS)
  openblas_set_num_threads(n);
#endif
}

}  // namespace bench
