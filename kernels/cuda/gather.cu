// gather.cu: gather and scatter_reduce on the GPU. The boundaries (core/src/ops_gather.cpp,
// ops_scatter.cpp) check every index value on the host side first and pack the operands, so
// the index is [outer, n, inner] int64 values in [0, size), and the table (gather's self, or
// the scatter's output) is [outer, size, inner]:
//  - gather: index_select's kernel (index.cu, launch_pick) with one index per element: one
//    thread per output element (grid-stride), out[e] for e = (o, i, c) reads self[o, index[e],
//    c]. The index and the output are read and written coalesced; the table reads are where the
//    index points. It moves raw bits, so every dtype, bfloat16 included, takes one kernel per
//    element size.
//  - scatter_columns_kernel: one thread per column (o, c), which walks i = 0, 1, ..., n - 1
//    and combines src[o, i, c] into out[o, index[o, i, c], c] (adds, multiplies, keeps the
//    larger or smaller with NaN winning, or overwrites). Only that thread writes that column of
//    the output, so there are no atomics and no races, and repeated indices are combined in
//    index order, the CPU kernel's order (kernels/cpu/gather.cpp): the same bits on both and on
//    every run. Consecutive threads take consecutive columns, so for inner >= 32 a warp's reads
//    of the index and src and its writes are coalesced.
//    Its parallelism is outer * inner columns; each walks n steps. Where there is one column
//    (a 1-D scatter, or every dim but dim of extent 1) the index is grouped by target row
//    instead (grouped_rows.cuh, index_add's way: same result, same order), and the target rows
//    run in parallel. Between those, few long columns are serial per column: [4, n] scattered
//    along dim 1 runs 4 threads.
// Neither kernel has run on a GPU: their speed is predicted, not measured (bench/gpu:
// BM_gather_rows, BM_scatter_add_rows).
// Tested by tests/cuda/test_index.cpp (every dtype, layout and dim, every mode, equal bits to
// the CPU) on the CPU emulator of CUDA.
#include <cstdint>
#include <vector>

#include "../scatter_step.hpp"
#include "common.cuh"
#include "grouped_rows.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

// Column t = o * inner + c.
template <typename T, typename Combine>
__global__ void scatter_columns_kernel(T* out, const T* src, const int64_t* index, Combine combine,
                                       int64_t columns, FastDivmod inner, int64_t n, int64_t size) {
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
      // combined, never a write outside the output.
      if (to < 0 || to >= size) continue;
      T* target = block + to * width;
      *target = combine(*target, src[at]);
    }
  }
}

template <typename T, ScatterMode kMode>
void launch_scatter_mode(const OpContext& ctx, const OpCall& call, const GatherLayout& l) {
  T* out = static_cast<T*>(call.out().raw_data());
  const T* src = static_cast<const T*>(call.in(1).raw_data());
  const auto* index = static_cast<const int64_t*>(call.in(0).raw_data());
  const int64_t columns = l.outer * l.inner;
  if (columns == 1) {
    int64_t rows = 0;
    const std::vector<int64_t> plan = group_index_by_row(ctx, index, l.n, l.size, call.dim, rows);
    launch_grouped_rows(ctx, "scatter_rows_kernel", out, src, plan, rows,
                        scatter_step::Combine<kMode>{}, 1, 1, l.size, l.n);
    return;
  }
  launch_kernel(ctx, "scatter_columns_kernel",
                scatter_columns_kernel<T, scatter_step::Combine<kMode>>, grid_for(ctx, columns),
                kBlockThreads, 0, out, src, index, scatter_step::Combine<kMode>{}, columns,
                FastDivmod(static_cast<uint64_t>(l.inner)), l.n, l.size);
}

}  // namespace

void launch_gather(const OpCall& call) {
  OpContext ctx(call);
  const GatherLayout l = gather_layout(call.in(1), call.in(0), call.dim);
  launch_pick(ctx, call.out(), call.in(0), static_cast<const int64_t*>(call.in(1).raw_data()),
              l.inner, l.n, l.size, /*per_element=*/true);
}

void launch_scatter_reduce(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& out = call.out();
  WICK_CHECK(out.dtype() != kBFloat16 && out.dtype() != kBool, DtypeError, ctx.op,
             "the kernel combines int64, float32 and float64, got ", describe(out));
  const GatherLayout l = gather_layout(call.in(0), out, call.dim);
  if (l.n == 0 || l.outer * l.inner == 0) return;
  const auto mode = static_cast<ScatterMode>(call.ints[0]);
  WICK_DISPATCH_NUMERIC(out.dtype(), {
    switch (mode) {
      case ScatterMode::sum:
        return launch_scatter_mode<T, ScatterMode::sum>(ctx, call, l);
      case ScatterMode::prod:
        return launch_scatter_mode<T, ScatterMode::prod>(ctx, call, l);
      case ScatterMode::amax:
        return launch_scatter_mode<T, ScatterMode::amax>(ctx, call, l);
      case ScatterMode::amin:
        return launch_scatter_mode<T, ScatterMode::amin>(ctx, call, l);
      case ScatterMode::assign:
        return launch_scatter_mode<T, ScatterMode::assign>(ctx, call, l);
      case ScatterMode::mean:
        break;
    }
    detail::fail<Error>(ctx.op, "internal: the kernel has no mode ", static_cast<int64_t>(mode),
                        " (mean is the boundary's, ops_scatter.cpp)");
  })
}

}  // namespace wick::gpu
