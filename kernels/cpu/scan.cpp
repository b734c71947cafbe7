// scan.cpp: the scans on the CPU (core/src/ops_scan.cpp checks, casts and packs): cumsum,
// cumprod, cummax, cummin and logcumsumexp. Input and outputs [outer, n, inner] of the input's
// dtype (int64, float32, float64; cummax/cummin add int64 indices). Each line is walked in order
// with one running state, and every partial result is written as it goes:
//  - cumsum, cumprod: a sum (product) in float64 for floats, as PyTorch's CPU kernel (int64 in
//    uint64, wrapping as two's complement), rounded once per result;
//  - cummax, cummin: the extreme so far and its position;
//  - logcumsumexp: log_add_exp of the total so far and the element, in float64.
// The steps are kernels/scan_step.hpp's; this file only walks the lines.
// The CUDA kernel (kernels/cuda/scan.cu) walks in the same order with the same steps, so both
// give the same bits (only logcumsumexp's exp and log1p come from two libraries).
// Tasks are (outer block, column range), as parallel_columns splits the index ops: each walks the
// n elements of its columns, a row of states at a time, so that for inner > 1 the reads and
// writes go along memory. Tested by tests/test_scan.cpp against float64 references and by the
// op sweep.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "../scan_step.hpp"
#include "kernels.hpp"
#include "loops.hpp"

namespace wick::cpu {
namespace {

// Walks every line of the [outer, n, inner] layout l with `scan` (a scan_step.hpp struct).
template <typename Scan>
void walk_lines(const GatherLayout& l, const Scan& scan) {
  using State = typename Scan::State;
  const int64_t outer = l.outer, n = l.n, inner = l.inner;
  if (inner == 1) {
    // Rows: the state in registers. Each step waits for the previous one (4 cycles for a
    // double add), the limit of an in-order scan.
    parallel_for(outer, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1)),
                 [&](int64_t r0, int64_t r1) {
                   for (int64_t r = r0; r < r1; ++r) {
                     State state = scan.start();
                     for (int64_t i = 0; i < n; ++i) scan.step(state, r * n + i, i);
                   }
                 });
    return;
  }
  parallel_columns(outer, inner, n, [&](int64_t o, int64_t c0, int64_t c1) {
    std::vector<State> states(static_cast<size_t>(c1 - c0), scan.start());
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = (o * n + i) * inner;
      for (int64_t c = c0; c < c1; ++c) scan.step(states[static_cast<size_t>(c - c0)], row + c, i);
    }
  });
}

GatherLayout lines_of(const OpCall& call) {
  const Tensor& x = call.in(0);
  return gather_layout(x, x, call.dim);  // [outer, n, inner] around dim
}

}  // namespace

void cumsum_kernel(const OpCall& call) {
  WICK_DISPATCH_NUMERIC(call.in(0).dtype(), {
    walk_lines(lines_of(call), scan_step::SumOrProduct<T, false>{call.in(0).data_ptr<T>(),
                                                                 call.out().data_ptr<T>()});
  })
}

void cumprod_kernel(const OpCall& call) {
  WICK_DISPATCH_NUMERIC(call.in(0).dtype(), {
    walk_lines(lines_of(call), scan_step::SumOrProduct<T, true>{call.in(0).data_ptr<T>(),
                                                                call.out().data_ptr<T>()});
  })
}

void cum_extreme_kernel(const OpCall& call) {
  WICK_DISPATCH_NUMERIC(call.in(0).dtype(), {
    const T* x = call.in(0).data_ptr<T>();
    T* values = call.out(0).data_ptr<T>();
    int64_t* indices = call.out(1).data_ptr<int64_t>();
    if (call.op == OpId::cummin) {
      walk_lines(lines_of(call), scan_step::ExtremeSoFar<T, true>{x, values, indices});
    } else {
      walk_lines(lines_of(call), scan_step::ExtremeSoFar<T, false>{x, values, indices});
    }
  })
}

void logcumsumexp_kernel(const OpCall& call) {
  WICK_DISPATCH_FLOATING(call.in(0).dtype(), {
    walk_lines(lines_of(call),
               scan_step::LogSumExpSoFar<T>{call.in(0).data_ptr<T>(), call.out().data_ptr<T>()});
  })
}

}  // namespace wick::cpu
