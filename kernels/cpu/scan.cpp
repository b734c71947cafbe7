// scan.cpp: cumsum and cumprod on the CPU (core/src/ops_scan.cpp checks, casts and packs). Input
// and output [outer, n, inner] of one dtype (int64, float32, float64). Each line adds (or
// multiplies) its elements in order into an accumulator (float32 in float64, as PyTorch's CPU
// kernel; int64 wrapping) and writes every partial sum or product, rounded once: the CUDA kernel
// (kernels/cuda/scan.cu) adds in the same order, so both give the same bits. Tasks are (outer
// block, column range), as parallel_columns splits the index ops: each walks the n elements of its
// columns, a row of accumulators at a time, so that for inner > 1 the reads and writes go along
// memory. Tested by tests/test_scan.cpp against float64 sums and by the op sweep.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"

namespace wick::cpu {
namespace {

template <typename T, bool kProduct>
void scan_lines(const OpCall& call) {
  using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, double>;
  // uint64 products wrap as int64's do (two's complement); float32 in double rounds once.
  auto combine = [](Acc a, T v) {
    if constexpr (kProduct) {
      return a * static_cast<Acc>(v);
    } else {
      return a + static_cast<Acc>(v);
    }
  };
  const Acc identity{kProduct ? 1 : 0};
  const Tensor& x = call.in(0);
  // The input as [outer, n, inner] around the dim (dispatch.hpp's packed-layout helper).
  const GatherLayout l = gather_layout(x, x, call.dim);
  const int64_t outer = l.outer, n = l.n, inner = l.inner;
  const T* src = x.data_ptr<T>();
  T* dst = call.out().data_ptr<T>();
  if (inner == 1) {
    // Rows: the accumulator in a register. Each add waits for the previous one (4 cycles for a
    // double), the limit of an in-order sum.
    parallel_for(outer, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1)),
                 [&](int64_t r0, int64_t r1) {
                   for (int64_t r = r0; r < r1; ++r) {
                     Acc a = identity;
                     for (int64_t i = r * n; i < (r + 1) * n; ++i) {
                       a = combine(a, src[i]);
                       dst[i] = static_cast<T>(a);
                     }
                   }
                 });
    return;
  }
  parallel_columns(outer, inner, n, [&](int64_t o, int64_t c0, int64_t c1) {
    std::vector<Acc> acc(static_cast<size_t>(c1 - c0), identity);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = (o * n + i) * inner;
      for (int64_t c = c0; c < c1; ++c) {
        Acc& a = acc[static_cast<size_t>(c - c0)];
        a = combine(a, src[row + c]);  // uint64: int64 wraps, as PyTorch's
        dst[row + c] = static_cast<T>(a);
      }
    }
  });
}

}  // namespace

void cumsum_kernel(const OpCall& call) {
  WICK_DISPATCH_NUMERIC(call.in(0).dtype(), { scan_lines<T, false>(call); })
}

void cumprod_kernel(const OpCall& call) {
  WICK_DISPATCH_NUMERIC(call.in(0).dtype(), { scan_lines<T, true>(call); })
}

}  // namespace wick::cpu
