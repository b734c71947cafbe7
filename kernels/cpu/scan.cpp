// scan.cpp: the scans on the CPU (core/src/ops_scan.cpp checks, casts and packs): cumsum,
// cumprod, cummax, cummin and logcumsumexp. Input and outputs [outer, n, inner] of the input's
// dtype (int64, float32, float64; cummax/cummin add int64 indices). Each line is walked in order
// with one running state, and every partial result is written as it goes:
//  - cumsum, cumprod: a sum (product) in float64 for floats, as PyTorch's CPU kernel (int64 in
//    uint64, wrapping as two's complement), rounded once per result;
//  - cummax, cummin: the extreme so far and its position (kernels/scan_step.hpp's rule);
//  - logcumsumexp: log_add_exp of the total so far and the element, in float64.
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

// Walks every line of the [outer, n, inner] layout l from `start`: step(state, offset, i) reads
// the element at offset (an element index, the same in the input and the outputs, which share
// the packed layout), advances the line's state and writes its results there.
template <typename State, typename Step>
void walk_lines(const GatherLayout& l, const State start, const Step& step) {
  const int64_t outer = l.outer, n = l.n, inner = l.inner;
  if (inner == 1) {
    // Rows: the state in registers. Each step waits for the previous one (4 cycles for a
    // double add), the limit of an in-order scan.
    parallel_for(outer, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1)),
                 [&](int64_t r0, int64_t r1) {
                   for (int64_t r = r0; r < r1; ++r) {
                     State state = start;
                     for (int64_t i = 0; i < n; ++i) step(state, r * n + i, i);
                   }
                 });
    return;
  }
  parallel_columns(outer, inner, n, [&](int64_t o, int64_t c0, int64_t c1) {
    std::vector<State> states(static_cast<size_t>(c1 - c0), start);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = (o * n + i) * inner;
      for (int64_t c = c0; c < c1; ++c) step(states[static_cast<size_t>(c - c0)], row + c, i);
    }
  });
}

template <typename T, bool kProduct>
void sum_or_product(const OpCall& call) {
  using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, double>;
  const Tensor& x = call.in(0);
  const T* src = x.data_ptr<T>();
  T* dst = call.out().data_ptr<T>();
  walk_lines(gather_layout(x, x, call.dim), Acc{kProduct ? 1 : 0},
             [=](Acc& acc, int64_t at, int64_t) {
               // uint64 products wrap as int64's do (two's complement); float32 in double
               // rounds once.
               if constexpr (kProduct) {
                 acc *= static_cast<Acc>(src[at]);
               } else {
                 acc += static_cast<Acc>(src[at]);
               }
               dst[at] = static_cast<T>(acc);
             });
}

template <typename T>
struct Extreme {
  T value;
  int64_t index;
};

template <typename T, bool kMin>
void extreme_so_far(const OpCall& call) {
  const Tensor& x = call.in(0);
  const T* src = x.data_ptr<T>();
  T* values = call.out(0).data_ptr<T>();
  int64_t* indices = call.out(1).data_ptr<int64_t>();
  walk_lines(gather_layout(x, x, call.dim), Extreme<T>{scan_step::extreme_identity<kMin, T>(), 0},
             [=](Extreme<T>& best, int64_t at, int64_t i) {
               const T v = src[at];
               if (scan_step::takes_over<kMin>(v, best.value)) best = {v, i};
               values[at] = best.value;
               indices[at] = best.index;
             });
}

template <typename T>
void log_sum_exp_so_far(const OpCall& call) {
  const Tensor& x = call.in(0);
  const T* src = x.data_ptr<T>();
  T* dst = call.out().data_ptr<T>();
  walk_lines(gather_layout(x, x, call.dim), -static_cast<double>(INFINITY),
             [=](double& total, int64_t at, int64_t) {
               total = scan_step::log_add_exp(total, static_cast<double>(src[at]));
               dst[at] = static_cast<T>(total);
             });
}

}  // namespace

void cumsum_kernel(const OpCall& call) {
  WICK_DISPATCH_NUMERIC(call.in(0).dtype(), { sum_or_product<T, false>(call); })
}

void cumprod_kernel(const OpCall& call) {
  WICK_DISPATCH_NUMERIC(call.in(0).dtype(), { sum_or_product<T, true>(call); })
}

void cum_extreme_kernel(const OpCall& call) {
  if (call.op == OpId::cummin) {
    WICK_DISPATCH_NUMERIC(call.in(0).dtype(), { extreme_so_far<T, true>(call); })
  } else {
    WICK_DISPATCH_NUMERIC(call.in(0).dtype(), { extreme_so_far<T, false>(call); })
  }
}

void logcumsumexp_kernel(const OpCall& call) {
  WICK_DISPATCH_FLOATING(call.in(0).dtype(), { log_sum_exp_so_far<T>(call); })
}

}  // namespace wick::cpu
