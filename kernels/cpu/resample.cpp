// resample.cpp: resample and resample_backward on the CPU, the fused separable step of
// interpolate. The boundary (core/src/ops_resample.cpp) packs every operand contiguous and
// checks the index, so the data is [outer, size, inner], the taps K x R int64 indices in
// [0, size) and K x R weights (tap k of output r at k * R + r), all float or all double
// (bfloat16 arrives as float32, converted by run_kernel).
//  - forward: output row (o, r) = sum over k of weight[k][r] * data row (o, index[k][r]), the
//    first product stored, the next ones added, in the element type. Along the last dim
//    (inner = 1) a task is a run of whole data rows, each output a short dot product of
//    gathered values; along an outer dim a task is a run of (o, r) rows, each a vectorised
//    axpy of `inner` elements per tap.
//  - backward: gradient row (o, i) = sum over the taps (k, r) with index[k][r] = i of
//    weight[k][r] * grad row (o, r), from +0, added for k in increasing order, then r: split
//    by (outer block, column range) as index_add (parallel_columns), so each element belongs to
//    one task and is added to in that order, the CUDA kernel's (kernels/cuda/resample.cu), and
//    both give the same bits.
// -ffp-contract=off (kernels/CMakeLists.txt): a product and the add after it stay two roundings,
// as on the GPU (-fmad=false) and as the composite this op replaced.
// Measured in docs/cpu-kernels.md ("interpolate"). Tested by tests/test_resample.cpp against a
// float64 loop, by gradcheck and, through interpolate, against torch 1.13's values.
#include <algorithm>
#include <cstring>

#include "kernels.hpp"
#include "loops.hpp"

namespace wick::cpu {
namespace {

struct Taps {
  int64_t outer, size, inner, count, outputs;  // count = K, outputs = R
  const int64_t* index;
};

Taps taps_of(const OpCall& call, const Tensor& data) {
  Taps t{1,
         data.size(call.dim),
         1,
         call.in(1).size(0),
         call.in(1).size(1),
         call.in(1).data_ptr<int64_t>()};
  for (int64_t d = 0; d < call.dim; ++d) t.outer *= data.size(d);
  for (int64_t d = call.dim + 1; d < data.dim(); ++d) t.inner *= data.size(d);
  return t;
}

template <typename T>
void resample_rows(const Taps& t, const T* x, const T* weight, T* out) {
  const int64_t k_count = t.count, r_count = t.outputs;
  if (t.inner == 1) {
    // Along the last dim: each output is sum_k w * x[o, index]; a task is whole rows.
    const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, r_count));
    parallel_for(t.outer, grain, [&](int64_t o0, int64_t o1) {
      for (int64_t o = o0; o < o1; ++o) {
        const T* row = x + o * t.size;
        T* dst = out + o * r_count;
        for (int64_t r = 0; r < r_count; ++r) {
          T acc = k_count > 0 ? weight[r] * row[t.index[r]] : T(0);
          for (int64_t k = 1; k < k_count; ++k) {
            acc += weight[k * r_count + r] * row[t.index[k * r_count + r]];
          }
          dst[r] = acc;
        }
      }
    });
    return;
  }
  const int64_t grain =
      std::max<int64_t>(1, kParallelGrain / (t.inner * std::max<int64_t>(1, k_count)));
  parallel_for(t.outer * r_count, grain, [&](int64_t q0, int64_t q1) {
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t o = q / r_count, r = q % r_count;
      T* dst = out + q * t.inner;
      if (k_count == 0) {
        std::fill(dst, dst + t.inner, T(0));
        continue;
      }
      const T* block = x + o * t.size * t.inner;
      {
        const T w = weight[r];
        const T* src = block + t.index[r] * t.inner;
        for (int64_t c = 0; c < t.inner; ++c) dst[c] = w * src[c];
      }
      for (int64_t k = 1; k < k_count; ++k) {
        const T w = weight[k * r_count + r];
        const T* src = block + t.index[k * r_count + r] * t.inner;
        for (int64_t c = 0; c < t.inner; ++c) dst[c] += w * src[c];
      }
    }
  });
}

template <typename T>
void resample_backward_rows(const Taps& t, const T* grad, const T* weight, T* out) {
  const int64_t k_count = t.count, r_count = t.outputs;
  parallel_columns(t.outer, t.inner, r_count * std::max<int64_t>(1, k_count),
                   [&](int64_t o, int64_t c0, int64_t c1) {
                     T* block = out + o * t.size * t.inner;
                     for (int64_t i = 0; i < t.size; ++i) {
                       std::fill(block + i * t.inner + c0, block + i * t.inner + c1, T(0));
                     }
                     const T* g_block = grad + o * r_count * t.inner;
                     // Tap p = k * R + r in increasing order: the CUDA kernel's order.
                     for (int64_t p = 0; p < k_count * r_count; ++p) {
                       const T w = weight[p];
                       const T* g_row = g_block + (p % r_count) * t.inner;
                       T* dst = block + t.index[p] * t.inner;
                       for (int64_t c = c0; c < c1; ++c) dst[c] += w * g_row[c];
                     }
                   });
}

void check_dtype(const OpCall& call) {
  const Tensor& data = call.in(0);
  WICK_CHECK(data.dtype() == kFloat32 || data.dtype() == kFloat64, DtypeError,
             call.op == OpId::resample ? "resample" : "resample_backward",
             "the kernel computes float32 and float64, got ", describe(data));
}

}  // namespace

void resample_kernel(const OpCall& call) {
  check_dtype(call);
  const Taps t = taps_of(call, call.in(0));
  WICK_DISPATCH_FLOATING(call.in(0).dtype(), {
    resample_rows<T>(t, call.in(0).data_ptr<T>(), call.in(2).data_ptr<T>(),
                     call.out().data_ptr<T>());
  })
}

void resample_backward_kernel(const OpCall& call) {
  check_dtype(call);
  // The taps read the gradient being made, which has the forward input's size along dim.
  const Taps t = taps_of(call, call.out());
  WICK_DISPATCH_FLOATING(call.in(0).dtype(), {
    resample_backward_rows<T>(t, call.in(0).data_ptr<T>(), call.in(2).data_ptr<T>(),
                              call.out().data_ptr<T>());
  })
}

}  // namespace wick::cpu
