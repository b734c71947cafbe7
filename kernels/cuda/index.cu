// index.cu: index_select and index_add on the GPU. The boundary (core/src/ops_index.cpp) packs
// every operand contiguous and checks every index value on the host side first (a device-side
// assert, PyTorch's way, would end the process), so `self` is [outer, size, inner], the index n
// int64 values in [0, size), and the output (or source) [outer, n, inner].
//  - pick_kernel (index_select; gather.cu's gather too, with one index per element): one thread
//    per output element (grid-stride), as a copy: consecutive threads read consecutive elements
//    of a row, so reads and writes are coalesced for rows of 32 elements or more. It moves raw
//    bits (1, 2, 4 or 8 bytes), so every dtype, bfloat16 included, takes one kernel per element
//    size.
//  - index_add: the boundary has filled the output with self's values. The index is grouped
//    by target row on the host and grouped_rows_kernel (grouped_rows.cuh) adds alpha * source
//    row i for each of a row's positions i in index order, one thread per (outer, named row,
//    column): the CPU kernel's order (kernels/cpu/index.cpp), the same bits on both and on
//    every run, without atomics (no wick kernel uses floating-point atomics).
//    Where the dim is much longer than the index (scatter_reduce's one-column route can bring
//    [1 << 30] with one index), the host sort is a comparison sort, O(n log n) in the index's
//    length, instead of counting over the dim.
// History: the first version had one thread per (outer, column) walk the whole index, so an
// embedding's backward (n tokens, width D) ran D threads for n dependent steps: predicted a few
// ms at n = 8192, D = 768 (found by review). Neither version has run on a GPU: the speed of
// this one is predicted, not measured (bench/gpu: BM_embedding_backward). The grouping is
// PyTorch's deterministic idea (sort the index, sum each row's segment), with the sort on the
// host.
// Tested by tests/cuda/test_index.cpp (every dtype, layout and dim, equal bits to the CPU) and
// test_autograd.cpp (the embedding case), on the CPU emulator of CUDA.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common.cuh"
#include "grouped_rows.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

// Output element e = (o, i, c) of [outer, n, inner] reads self[o, index, c] of [outer, size,
// inner], with index = index[i] (index_select: one per row) or index[e] (gather: one per
// element).
template <typename Bits, bool kPerElement>
__global__ void pick_kernel(Bits* out, const Bits* self, const int64_t* index, int64_t total,
                            FastDivmod inner, FastDivmod n, int64_t size) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += stride) {
    uint64_t row, column, o, i;
    inner.divmod(static_cast<uint64_t>(e), row, column);
    n.divmod(row, o, i);
    const int64_t at = index[kPerElement ? e : static_cast<int64_t>(i)];
    if (at < 0 || at >= size) {
      // Only where the boundary trusted a changed index (detail::IndexesInRange): a zero,
      // never a read outside self.
      out[e] = Bits{};
      continue;
    }
    const int64_t source_row = static_cast<int64_t>(o) * size + at;
    out[e] = self[source_row * static_cast<int64_t>(inner.divisor) + static_cast<int64_t>(column)];
  }
}

template <typename T>
__device__ __forceinline__ T add_scaled(T acc, T alpha, T x) {
  if constexpr (std::is_integral_v<T>) {
    // int64 wraps, as on the CPU (signed overflow is undefined).
    return static_cast<T>(static_cast<uint64_t>(acc) +
                          static_cast<uint64_t>(alpha) * static_cast<uint64_t>(x));
  } else {
    return acc + alpha * x;
  }
}

// index_add's step: acc + alpha * x.
template <typename T>
struct AddScaled {
  T alpha;
  __device__ __forceinline__ T operator()(T acc, T x) const { return add_scaled(acc, alpha, x); }
};

}  // namespace

void launch_pick(const OpContext& ctx, const Tensor& out, const Tensor& self, const int64_t* index,
                 int64_t inner, int64_t n, int64_t size, bool per_element) {
  const int64_t total = out.numel();
  const unsigned grid = grid_for(ctx, total);
  dispatch_by_element_size(self.dtype(), [&](auto bits) {
    using Bits = decltype(bits);
    auto* kernel = per_element ? pick_kernel<Bits, true> : pick_kernel<Bits, false>;
    launch_kernel(
        ctx, per_element ? "gather_kernel" : "index_select_kernel", kernel, grid, kBlockThreads, 0,
        static_cast<Bits*>(out.raw_data()), static_cast<const Bits*>(self.raw_data()), index, total,
        FastDivmod(static_cast<uint64_t>(inner)), FastDivmod(static_cast<uint64_t>(n)), size);
  });
}

void launch_index_select(const OpCall& call) {
  OpContext ctx(call);
  const IndexLayout l = index_layout(call);
  launch_pick(ctx, call.out(), call.in(0), static_cast<const int64_t*>(call.in(1).raw_data()),
              l.inner, l.n, l.size, /*per_element=*/false);
}

void launch_index_add(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& self = call.in(0);
  const Tensor& out = call.out();
  WICK_CHECK(self.dtype() != kBFloat16 && self.dtype() != kBool, DtypeError, ctx.op,
             "the kernel adds int64, float32 and float64, got ", describe(self));
  const IndexLayout l = index_layout(call);
  if (l.n == 0 || l.outer * l.inner == 0) return;
  int64_t rows = 0;
  const std::vector<int64_t> plan = group_index_by_row(
      ctx, static_cast<const int64_t*>(call.in(1).raw_data()), l.n, l.size, call.dim, rows);
  WICK_DISPATCH_NUMERIC(self.dtype(), {
    launch_grouped_rows(ctx, "index_add_rows_kernel", static_cast<T*>(out.raw_data()),
                        static_cast<const T*>(call.in(2).raw_data()), plan, rows,
                        AddScaled<T>{call.scalar_a.to<T>()}, l.outer, l.inner, l.size, l.n);
  })
}

std::vector<int64_t> group_index_by_row(const OpContext& ctx, const int64_t* device_index,
                                        int64_t n, int64_t size, int64_t dim, int64_t& rows) {
  std::vector<int64_t> index(static_cast<size_t>(n));
  WICK_CUDA_CHECK(cudaMemcpyAsync(index.data(), device_index, index.size() * 8,
                                  cudaMemcpyDeviceToHost, ctx.stream),
                  ctx.op, ctx.device);
  WICK_CUDA_CHECK(cudaStreamSynchronize(ctx.stream), ctx.op, ctx.device);
  // The boundary checked the values unless it trusted the index (detail::IndexesInRange); the
  // grouping below indexes host arrays by them, so they are checked again here, on the host.
  const auto [low, high] = std::minmax_element(index.begin(), index.end());
  WICK_CHECK(*low >= 0 && *high < size, IndexError, ctx.op, "index out of range in self: dim ", dim,
             " has size ", size, ", and the index holds values from ", *low, " to ", *high);
  // positions: 0..n-1 ordered by (value, position): a stable counting sort where the row count
  // is comparable to n, else a stable comparison sort (a scatter of a few values into a huge
  // dim must not cost host memory and time in the size of the dim).
  std::vector<int64_t> order(static_cast<size_t>(n));
  if (size <= 4 * n + 1024) {
    std::vector<int64_t> start(static_cast<size_t>(size) + 1, 0);
    for (int64_t v : index) ++start[static_cast<size_t>(v) + 1];
    for (size_t v = 0; v < static_cast<size_t>(size); ++v) start[v + 1] += start[v];
    for (int64_t i = 0; i < n; ++i) {
      order[static_cast<size_t>(start[static_cast<size_t>(index[static_cast<size_t>(i)])]++)] = i;
    }
  } else {
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return index[static_cast<size_t>(a)] < index[static_cast<size_t>(b)];
    });
  }
  // The value at sorted place k.
  const auto value_at = [&](size_t k) { return index[static_cast<size_t>(order[k])]; };
  rows = 0;
  for (size_t k = 0; k < order.size(); ++k) rows += k == 0 || value_at(k) != value_at(k - 1);
  std::vector<int64_t> plan(static_cast<size_t>(rows + (rows + 1) + n));
  int64_t* named = plan.data();
  int64_t* offsets = named + rows;
  int64_t* positions = offsets + rows + 1;
  int64_t r = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    if (k == 0 || value_at(k) != value_at(k - 1)) {
      named[r] = value_at(k);
      offsets[r++] = static_cast<int64_t>(k);
    }
    positions[k] = order[k];
  }
  offsets[rows] = n;
  return plan;
}

}  // namespace wick::gpu
