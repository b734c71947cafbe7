// gather.cpp: gather and scatter_reduce on the CPU. The boundaries (core/src/ops_gather.cpp,
// ops_scatter.cpp) check every index value and pack the operands, so the index is [outer, n,
// inner] int64 values in [0, size), and the table (gather's self, or the scatter's output) is
// [outer, size, inner]:
//  - gather: out[o, i, c] = self[o, index[o, i, c], c], split over threads by output element
//    (it moves elements, so every dtype, bfloat16 included, is copied as it is);
//  - scatter_reduce: out[o, index[o, i, c], c] = combine(itself, src[o, i, c]) for i in
//    increasing order, into an output the boundary has filled with self's values; combine adds,
//    multiplies, keeps the larger or smaller (NaN wins) or overwrites (scatter: the last wins).
//    The split over threads is by (outer, column range): every output element belongs to one
//    task, which combines its elements in index order, the CUDA kernel's order
//    (kernels/cuda/gather.cu), so both give the same bits.
// Tested by tests/test_gather.cpp and tests/test_scatter.cpp against float64 loops and by the
// op sweep.
#include <algorithm>
#include <type_traits>

#include "../scatter_step.hpp"
#include "kernels.hpp"
#include "loops.hpp"

namespace wick::cpu {

void gather_kernel(const OpCall& call) {
  const Tensor& self = call.in(0);
  const Tensor& index_t = call.in(1);
  const GatherLayout l = gather_layout(index_t, self, call.dim);
  const int64_t* index = index_t.data_ptr<int64_t>();
  WICK_DISPATCH_STORED(self.dtype(), {
    const T* src = self.data_ptr<T>();
    T* dst = call.out().data_ptr<T>();
    // Rows of `inner` elements: (o, i) names one, whose elements read self's row block o.
    parallel_for(l.outer * l.n, std::max<int64_t>(1, kParallelGrain / l.inner),
                 [&](int64_t r0, int64_t r1) {
                   for (int64_t r = r0; r < r1; ++r) {
                     const T* block = src + (r / l.n) * l.size * l.inner;
                     const int64_t* picks = index + r * l.inner;
                     T* out = dst + r * l.inner;
                     for (int64_t c = 0; c < l.inner; ++c) out[c] = block[picks[c] * l.inner + c];
                   }
                 });
  })
}

namespace {

template <ScatterMode kMode, typename T>
void scatter_columns(const GatherLayout& l, const int64_t* index, const T* src, T* dst) {
  parallel_columns(l.outer, l.inner, l.n, [&](int64_t o, int64_t c0, int64_t c1) {
    T* block = dst + o * l.size * l.inner;
    for (int64_t i = 0; i < l.n; ++i) {
      const int64_t row = (o * l.n + i) * l.inner;
      for (int64_t c = c0; c < c1; ++c) {
        T& target = block[index[row + c] * l.inner + c];
        target = scatter_step::Combine<kMode>{}(target, src[row + c]);
      }
    }
  });
}

}  // namespace

void scatter_reduce_kernel(const OpCall& call) {
  const Tensor& index_t = call.in(0);
  Tensor& out_t = call.out();
  const GatherLayout l = gather_layout(index_t, out_t, call.dim);
  const int64_t* index = index_t.data_ptr<int64_t>();
  WICK_CHECK(out_t.dtype() != kBFloat16 && out_t.dtype() != kBool, DtypeError, "scatter_reduce",
             "the kernel combines int64, float32 and float64, got ", describe(out_t));
  const auto mode = static_cast<ScatterMode>(call.ints[0]);
  WICK_DISPATCH_NUMERIC(out_t.dtype(), {
    const T* src = call.in(1).data_ptr<T>();
    T* dst = out_t.data_ptr<T>();
    switch (mode) {
      case ScatterMode::sum:
        return scatter_columns<ScatterMode::sum>(l, index, src, dst);
      case ScatterMode::prod:
        return scatter_columns<ScatterMode::prod>(l, index, src, dst);
      case ScatterMode::amax:
        return scatter_columns<ScatterMode::amax>(l, index, src, dst);
      case ScatterMode::amin:
        return scatter_columns<ScatterMode::amin>(l, index, src, dst);
      case ScatterMode::assign:
        return scatter_columns<ScatterMode::assign>(l, index, src, dst);
      case ScatterMode::mean:
        break;
    }
    detail::fail<Error>("scatter_reduce", "internal: the kernel has no mode ",
                        static_cast<int64_t>(mode), " (mean is the boundary's, ops_scatter.cpp)");
  })
}

}  // namespace wick::cpu
