// gather.cu: gather and scatter_add on the GPU. The boundary (core/src/ops_gather.cpp) checks
// every index value on the host side first and packs the operands, so the index is [outer, n,
// inner] int64 values in [0, size), and the table (gather's self, or scatter_add's output) is
// [outer, size, inner]:
//  - gather: index_select's kernel (index.cu, launch_pick) with one index per element: one
//    thread per output element (grid-stride), out[e] for e = (o, i, c) reads self[o, index[e],
//    c]. The index and the output are read and written coalesced; the table reads are where the
//    index points. It moves raw bits, so every dtype, bfloat16 included, takes one kernel per
//    element size.
//  - scatter_add_columns_kernel: one thread per column (o, c), which walks i = 0, 1, ..., n - 1
//    and adds src[o, i, c] to out[o, index[o, i, c], c]. Only that thread writes that column of
//    the output, so there are no atomics and no races, and repeated indices are added in index
//    order, the CPU kernel's order (kernels/cpu/gather.cpp): the same bits on both and on every
//    run. Consecutive threads take consecutive columns, so for inner >= 32 a warp's reads of
//    the index and src and its writes are coalesced.
//    Its parallelism is outer * inner columns; each walks n steps. Where there is one column
//    (a 1-D scatter, or every dim but dim of extent 1) the boundary runs index_add's kernel
//    instead (same result, same order), which groups the index by target row and runs the rows
//    in parallel. Between those, few long columns are serial per column: [4, n] scattered along
//    dim 1 runs 4 threads.
// Neither kernel has run on a GPU: their speed is predicted, not measured (bench/gpu:
// BM_gather_rows, BM_scatter_add_rows).
// Tested by tests/cuda/test_index.cpp (every dtype, layout and dim, equal bits to the CPU) on
// the CPU emulator of CUDA.
#include <cstdint>

#include "common.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

template <typename T>
__device__ __forceinline__ T add_wrapping(T acc, T x) {
  if constexpr (std::is_integral_v<T>) {
    // int64 wraps, as on the CPU (signed overflow is undefined).
    return static_cast<T>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(x));
  } else {
    return acc + x;
  }
}

// Column t = o * inner + c.
template <typename T>
__global__ void scatter_add_columns_kernel(T* out, const T* src, const int64_t* index,
                                           int64_t columns, FastDivmod inner, int64_t n,
                                           int64_t size) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const auto width = static_cast<int64_t>(inner.divisor);
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < columns;
       t += stride) {
    uint64_t o, c;
    inner.divmod(static_cast<uint64_t>(t), o, c);
    T* block = out + static_cast<int64_t>(o) * size * width + static_cast<int64_t>(c);
    const int64_t first = static_cast<int64_t>(o) * n * width + static_cast<int64_t>(c);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = first + i * width, to = index[at];
      // Only where the boundary trusted a changed index (detail::IndexesInRange): nothing
      // added, never a write outside the output.
      if (to < 0 || to >= size) continue;
      T* target = block + to * width;
      *target = add_wrapping(*target, src[at]);
    }
  }
}

}  // namespace

void launch_gather(const OpCall& call) {
  OpContext ctx(call);
  const GatherLayout l = gather_layout(call.in(1), call.in(0), call.dim);
  launch_pick(ctx, call.out(), call.in(0), static_cast<const int64_t*>(call.in(1).raw_data()),
              l.inner, l.n, l.size, /*per_element=*/true);
}

void launch_scatter_add(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& out = call.out();
  WICK_CHECK(out.dtype() != kBFloat16 && out.dtype() != kBool, DtypeError, ctx.op,
             "the kernel adds int64, float32 and float64, got ", describe(out));
  const GatherLayout l = gather_layout(call.in(0), out, call.dim);
  const int64_t columns = l.outer * l.inner;
  if (l.n == 0 || columns == 0) return;
  const unsigned grid = grid_for(ctx, columns);
  WICK_DISPATCH_NUMERIC(out.dtype(), {
    launch_kernel(ctx, "scatter_add_columns_kernel", scatter_add_columns_kernel<T>, grid,
                  kBlockThreads, 0, static_cast<T*>(out.raw_data()),
                  static_cast<const T*>(call.in(1).raw_data()),
                  static_cast<const int64_t*>(call.in(0).raw_data()), columns,
                  FastDivmod(static_cast<uint64_t>(l.inner)), l.n, l.size);
  })
}

}  // namespace wick::gpu
