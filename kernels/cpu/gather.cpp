// gather.cpp: gather and scatter_add on the CPU. The boundary (core/src/ops_gather.cpp) checks
// every index value and packs the operands, so the index is [outer, n, inner] int64 values in
// [0, size), and the table (gather's self, or scatter_add's output) is [outer, size, inner]:
//  - gather: out[o, i, c] = self[o, index[o, i, c], c], split over threads by output element
//    (it moves elements, so every dtype, bfloat16 included, is copied as it is);
//  - scatter_add: out[o, index[o, i, c], c] += src[o, i, c] for i in increasing order, into an
//    output the boundary has filled with self's values. The split over threads is by (outer,
//    column range): every output element belongs to one task, which adds its terms in index
//    order, the CUDA kernel's order (kernels/cuda/gather.cu), so both give the same bits.
// Tested by tests/test_gather.cpp against a float64 loop and by the op sweep.
#include <algorithm>
#include <type_traits>

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

void scatter_add_kernel(const OpCall& call) {
  const Tensor& index_t = call.in(0);
  Tensor& out_t = call.out();
  const GatherLayout l = gather_layout(index_t, out_t, call.dim);
  const int64_t* index = index_t.data_ptr<int64_t>();
  WICK_CHECK(out_t.dtype() != kBFloat16 && out_t.dtype() != kBool, DtypeError, "scatter_add",
             "the kernel adds int64, float32 and float64, got ", describe(out_t));
  WICK_DISPATCH_NUMERIC(out_t.dtype(), {
    const T* src = call.in(1).data_ptr<T>();
    T* dst = out_t.data_ptr<T>();
    parallel_columns(l.outer, l.inner, l.n, [&](int64_t o, int64_t c0, int64_t c1) {
      T* block = dst + o * l.size * l.inner;
      for (int64_t i = 0; i < l.n; ++i) {
        const int64_t row = (o * l.n + i) * l.inner;
        for (int64_t c = c0; c < c1; ++c) {
          T& target = block[index[row + c] * l.inner + c];
          if constexpr (std::is_integral_v<T>) {
            // int64 wraps, as PyTorch's (signed overflow would be undefined in C++).
            target =
                static_cast<T>(static_cast<uint64_t>(target) + static_cast<uint64_t>(src[row + c]));
          } else {
            target += src[row + c];
          }
        }
      }
    });
  })
}

}  // namespace wick::cpu
