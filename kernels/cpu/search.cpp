// search.cpp: searchsorted on the CPU (core/src/ops_search.cpp checks, promotes and packs).
// Sequences [rows, m] and values [rows, n], contiguous, one dtype (int64, float32, float64);
// output [rows, n] int64. One bisection per value (sort_order.hpp's insertion_point, shared with
// the CUDA kernel), values split across threads. About log2(m) + 1 compares per value.
#include <bit>
#include <cstdint>

#include "../sort_order.hpp"
#include "kernels.hpp"
#include "loops.hpp"

namespace wick::cpu {

void searchsorted_kernel(const OpCall& call) {
  const Tensor& seq = call.in(0);
  const Tensor& values = call.in(1);
  const int64_t m = seq.size(1), n = values.size(1);
  const bool right = call.scalar_a.to<bool>();
  int64_t* dst = call.out().data_ptr<int64_t>();
  // A value costs about as much as log2(m) + 1 elements of an elementwise op.
  const int64_t steps = std::bit_width(static_cast<uint64_t>(m)) + 1;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / steps);
  WICK_DISPATCH_NUMERIC(seq.dtype(), {
    const T* rows = seq.data_ptr<T>();
    const T* v = values.data_ptr<T>();
    parallel_for(values.numel(), grain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        dst[i] = sort_order::insertion_point(rows + (i / n) * m, m, v[i], right);
      }
    });
  })
}

}  // namespace wick::cpu
