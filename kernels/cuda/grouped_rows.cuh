// grouped_rows.cuh: the deterministic way to send many source rows into few target rows on
// the GPU without atomics, shared by index_add (index.cu) and scatter_reduce's one-column
// route (gather.cu). The index is grouped by target row on the host (group_index_by_row in
// index.cu: a stable sort, so each row's positions stay in index order) and uploaded; then
// grouped_rows_kernel runs one thread per (outer, named row, column), which keeps the row's
// value in a register, combines source row p into it for each of the row's positions p in
// index order, and writes once. Repeated indices are therefore combined in index order, the
// CPU kernels' order: the same bits on both and on every run. The work runs in parallel over
// every distinct row and column; only a row's own repeats are serial.
// The grouping costs one synchronisation and the index's round trip through the host (the
// boundary already synchronises for its range check).
#pragma once

#include <cstdint>
#include <vector>

#include "common.cuh"

namespace wick::gpu {

// The n int64 values of a device index, all in [0, size) (checked again here, on the host),
// grouped by value: [named rows, ascending (rows) | their offsets into positions (rows + 1) |
// positions 0..n-1 ordered by (value, position) (n)]. `rows` is set to the number of distinct
// values. `dim` names the op's dim in the range error.
std::vector<int64_t> group_index_by_row(const OpContext& ctx, const int64_t* index, int64_t n,
                                        int64_t size, int64_t dim, int64_t& rows);

// Task t = ((o * rows + r) * inner + c): output row named[r] of block o, column c, combines
// source row positions[p] for p in [offsets[r], offsets[r + 1]), in that (index) order.
// out is [outer, size, inner] and source [outer, n, inner].
template <typename T, typename Combine>
__global__ void grouped_rows_kernel(T* out, const T* source, const int64_t* named,
                                    const int64_t* offsets, const int64_t* positions,
                                    Combine combine, int64_t tasks, FastDivmod inner,
                                    FastDivmod rows, int64_t size, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const auto width = static_cast<int64_t>(inner.divisor);
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < tasks;
       t += stride) {
    uint64_t rest, c, o, r;
    inner.divmod(static_cast<uint64_t>(t), rest, c);
    rows.divmod(rest, o, r);
    const auto block = static_cast<int64_t>(o), column = static_cast<int64_t>(c);
    T* target = out + (block * size + named[r]) * width + column;
    const T* source_block = source + block * n * width + column;
    T acc = *target;
    for (int64_t p = offsets[r]; p < offsets[r + 1]; ++p) {
      acc = combine(acc, source_block[positions[p] * width]);
    }
    *target = acc;
  }
}

// Uploads the plan and runs grouped_rows_kernel (the plan's device copy is freed in stream
// order, after the kernel).
template <typename T, typename Combine>
void launch_grouped_rows(const OpContext& ctx, const char* name, T* out, const T* source,
                         const std::vector<int64_t>& plan, int64_t rows, Combine combine,
                         int64_t outer, int64_t inner, int64_t size, int64_t n) {
  DeviceBuffer device_plan(plan.size() * 8, ctx);
  // From pageable memory, the copy has read `plan` when it returns (it is staged first).
  WICK_CUDA_CHECK(cudaMemcpyAsync(device_plan.as<int64_t>(), plan.data(), plan.size() * 8,
                                  cudaMemcpyHostToDevice, ctx.stream),
                  ctx.op, ctx.device);
  const int64_t* named = device_plan.as<int64_t>();
  const int64_t tasks = outer * rows * inner;
  launch_kernel(ctx, name, grouped_rows_kernel<T, Combine>, grid_for(ctx, tasks), kBlockThreads, 0,
                out, source, named, named + rows, named + 2 * rows + 1, combine, tasks,
                FastDivmod(static_cast<uint64_t>(inner)), FastDivmod(static_cast<uint64_t>(rows)),
                size, n);
}

}  // namespace wick::gpu
