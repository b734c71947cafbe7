// resample.cu: resample and resample_backward on the GPU, the fused separable step of
// interpolate. The boundary (core/src/ops_resample.cpp) packs every operand contiguous and
// checks the index, so the data is [outer, size, inner], the taps K x R int64 indices in
// [0, size) and K x R weights (tap k of output r at p = k * R + r), float or double (bfloat16
// arrives as float32).
//  - resample_kernel: one thread per output element (o, r, c), grid-strided; consecutive
//    threads take consecutive columns c, so the reads of each tap's row and the write are
//    coalesced where inner >= 32 (along the last dim, inner = 1, neighbouring threads read
//    neighbouring taps: nearby addresses). The products are added from the first, with
//    __fmul_rn / __fadd_rn (and -fmad=false, kernels/cuda/CMakeLists.txt): the CPU kernel's
//    roundings (kernels/cpu/resample.cpp), the same bits.
//  - resample_backward_kernel: the taps grouped by the index value they name, on the host
//    (group_index_by_row, index.cu: a stable sort, so each value keeps its taps in increasing p),
//    then one thread per (o, named position i, c) adds weight[p] * grad[o, p mod R, c] over
//    those taps from +0 and writes once; positions no tap names are zeroed first. The CPU
//    kernel adds in the same p order: the same bits, without atomics. The grouping costs one
//    synchronisation and the index's round trip through the host, as index_add's.
// Not run on a GPU yet (no device was lent when it was written): tested on the CPU emulator of
// CUDA by tests/cuda/test_index.cpp (equal bits to the CPU, forward and backward); its speed is
// unmeasured.
#include <cstdint>
#include <vector>

#include "common.cuh"
#include "grouped_rows.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }

// Element e = (o, r, c) of out [outer, R, inner].
template <typename T>
__global__ void resample_kernel(T* out, const T* x, const int64_t* index, const T* weight,
                                int64_t total, FastDivmod inner, FastDivmod outputs, int64_t size,
                                int64_t taps) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const auto width = static_cast<int64_t>(inner.divisor);
  const auto r_count = static_cast<int64_t>(outputs.divisor);
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += stride) {
    uint64_t row, column, o, r;
    inner.divmod(static_cast<uint64_t>(e), row, column);
    outputs.divmod(row, o, r);
    const T* block = x + static_cast<int64_t>(o) * size * width + static_cast<int64_t>(column);
    T acc = T(0);
    for (int64_t k = 0; k < taps; ++k) {
      const int64_t p = k * r_count + static_cast<int64_t>(r);
      const int64_t at = index[p];
      // The boundary checked every index; a trusted one that changed reads as a zero term.
      const T v = at >= 0 && at < size ? block[at * width] : T(0);
      const T term = mul_rn(weight[p], v);
      acc = k == 0 ? term : add_rn(acc, term);
    }
    out[e] = acc;
  }
}

// Task t = (o, named row j, c): position named[j] of block o, column c, sums its taps
// positions[q] for q in [offsets[j], offsets[j + 1]).
template <typename T>
__global__ void resample_backward_kernel(T* out, const T* grad, const T* weight,
                                         const int64_t* named, const int64_t* offsets,
                                         const int64_t* positions, int64_t tasks, FastDivmod inner,
                                         FastDivmod rows, int64_t size, int64_t r_count) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const auto width = static_cast<int64_t>(inner.divisor);
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < tasks;
       t += stride) {
    uint64_t rest, c, o, j;
    inner.divmod(static_cast<uint64_t>(t), rest, c);
    rows.divmod(rest, o, j);
    const auto block = static_cast<int64_t>(o), column = static_cast<int64_t>(c);
    const T* g_block = grad + block * r_count * width + column;
    T acc = T(0);
    for (int64_t q = offsets[j]; q < offsets[j + 1]; ++q) {
      const int64_t p = positions[q];
      acc = add_rn(acc, mul_rn(weight[p], g_block[(p % r_count) * width]));
    }
    out[(block * size + named[j]) * width + column] = acc;
  }
}

struct TapsLayout {
  int64_t outer = 1, size = 1, inner = 1, count = 0, outputs = 0;
};

TapsLayout taps_layout(const OpCall& call, const Tensor& data) {
  TapsLayout l;
  for (int64_t d = 0; d < call.dim; ++d) l.outer *= data.size(d);
  for (int64_t d = call.dim + 1; d < data.dim(); ++d) l.inner *= data.size(d);
  l.size = data.size(call.dim);
  l.count = call.in(1).size(0);
  l.outputs = call.in(1).size(1);
  return l;
}

void check_dtype(const OpContext& ctx, const Tensor& data) {
  WICK_CHECK(data.dtype() == kFloat32 || data.dtype() == kFloat64, DtypeError, ctx.op,
             "the kernel computes float32 and float64, got ", describe(data));
}

}  // namespace

void launch_resample(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& x = call.in(0);
  check_dtype(ctx, x);
  const TapsLayout l = taps_layout(call, x);
  const int64_t total = call.out().numel();
  if (total == 0) return;
  WICK_DISPATCH_FLOATING(x.dtype(), {
    launch_kernel(ctx, "resample_kernel", resample_kernel<T>, grid_for(ctx, total), kBlockThreads,
                  0, static_cast<T*>(call.out().raw_data()), static_cast<const T*>(x.raw_data()),
                  static_cast<const int64_t*>(call.in(1).raw_data()),
                  static_cast<const T*>(call.in(2).raw_data()), total,
                  FastDivmod(static_cast<uint64_t>(l.inner)),
                  FastDivmod(static_cast<uint64_t>(l.outputs)), l.size, l.count);
  })
}

void launch_resample_backward(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& out = call.out();
  check_dtype(ctx, out);
  const TapsLayout l = taps_layout(call, out);
  if (out.numel() == 0) return;
  WICK_CUDA_CHECK(cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), ctx.stream), ctx.op, ctx.device);
  const int64_t n = l.count * l.outputs;
  if (n == 0) return;
  int64_t rows = 0;
  const std::vector<int64_t> plan = group_index_by_row(
      ctx, static_cast<const int64_t*>(call.in(1).raw_data()), n, l.size, call.dim, rows);
  DeviceBuffer device_plan(plan.size() * 8, ctx);
  // From pageable memory, the copy has read `plan` when it returns (it is staged first).
  WICK_CUDA_CHECK(cudaMemcpyAsync(device_plan.as<int64_t>(), plan.data(), plan.size() * 8,
                                  cudaMemcpyHostToDevice, ctx.stream),
                  ctx.op, ctx.device);
  const int64_t* named = device_plan.as<int64_t>();
  const int64_t tasks = l.outer * rows * l.inner;
  WICK_DISPATCH_FLOATING(out.dtype(), {
    launch_kernel(ctx, "resample_backward_kernel", resample_backward_kernel<T>,
                  grid_for(ctx, tasks), kBlockThreads, 0, static_cast<T*>(out.raw_data()),
                  static_cast<const T*>(call.in(0).raw_data()),
                  static_cast<const T*>(call.in(2).raw_data()), named, named + rows,
                  named + 2 * rows + 1, tasks, FastDivmod(static_cast<uint64_t>(l.inner)),
                  FastDivmod(static_cast<uint64_t>(rows)), l.size, l.outputs);
  })
}

}  // namespace wick::gpu
