// softmax.cu: softmax and log_softmax along one dim, numerically stable (the row's max is
// subtracted before exp), with any input strides and a contiguous output.
// Idea: one pass over each row's data, three kernels by shape:
//  - softmax_rows_kernel (rows of up to 16 * 512 elements, the common case): a group of 32 to
//    512 lanes per row keeps the row in registers (16 values per lane), so the row is read once
//    and written once: max across the group (shuffles, then shared memory), sum of exp(x - max),
//    then the outputs. Several short rows share a block;
//  - softmax_online_kernel (longer rows): one block per row, each lane folds its elements into a
//    running (max, sum) pair ("online softmax", Milakov & Gimelshein 2018), the pairs merge
//    across the block, and a second read writes the outputs;
//  - softmax_cols_kernel (rows that are strided in memory, e.g. softmax over dim 0 of a
//    row-major matrix, when there are many of them and they hold at most 1024 elements): one
//    thread per row, online pair, so that neighbouring threads read neighbouring addresses;
//  - softmax_cols_split_kernel (strided rows of 1025 to 32768 elements, at least 32 of them):
//    a block of 32 x kSplit threads takes 32 neighbouring rows, each of the kSplit thread rows
//    folds every kSplit-th element of them (so a warp still reads 128 contiguous bytes and no
//    thread sums more than 1024 terms, the accuracy of softmax_cols_kernel), and the kSplit
//    pairs per row merge through shared memory. Without it such rows went to the online
//    kernel, whose lanes read one element per 32-byte sector: 1/8 of what the bus moves.
//    Longer strided rows still go there (a thread would sum more than 1024 terms).
// Semantics are those of kernels/cpu/softmax.cpp: NaN in a row makes the row NaN, a row of all
// -inf is shifted by 0 (giving 0/0 = NaN), +inf gives NaN. float32 rows accumulate in float32
// where a thread sums few terms (rows kernel: 16 per lane, then a tree; cols kernels: at most
// 1024) and in double in the online kernel (any row length); the CPU uses double: the tests
// allow 1e-5 relative error (docs/cuda-backend.md).
// Tested by tests/cuda/test_ops.cpp (on the CPU emulator so far); measured by bench/gpu (2^26
// floats in rows of 1024, 8192 and 65536, and over dim 0 in strided rows of 2048 and 8192, as a
// fraction of the copy bandwidth). No GPU has run them yet: the figures are pending
// (docs/gpu-results.md).
#include <algorithm>
#include <cmath>

#include "common.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

constexpr int kItems = 16;      // values per lane kept in registers
constexpr int kMaxLanes = 512;  // lanes per row in softmax_rows_kernel
constexpr int kOnlineThreads = 512;
constexpr int kSplit = 32;                 // thread rows per block in softmax_cols_split_kernel
constexpr int64_t kMaxSerialTerms = 1024;  // the most terms one thread sums in the cols kernels

template <typename T>
struct SoftmaxArgs {
  const T* in;
  T* out;
  OffsetCalculator<2> rows;  // row index -> offsets of the row's first input and output element
  int64_t num_rows;
  int64_t n;  // elements per row
  int64_t in_stride, out_stride;
  bool log_form;
};

template <typename T>
__device__ __forceinline__ T neg_inf() {
  return static_cast<T>(-INFINITY);
}

// The value subtracted before exp: the max, or 0 for a row of -inf (as the CPU).
template <typename T>
__device__ __forceinline__ T shift_of(T m) {
  return m == neg_inf<T>() ? T(0) : m;
}

template <typename T>
__device__ __forceinline__ T output_of(T x, T shift, T total, bool log_form) {
  return log_form ? (x - shift) - log_of(total) : exp_of(x - shift) * (T(1) / total);
}

// NaN never wins (as the CPU's `v > max ? v : max`).
struct MaxOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return b > a ? b : a;
  }
};
struct SumOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return a + b;
  }
};

// The running pair of online softmax: m = max so far, s = sum of exp(x - shift_of(m)), summed
// in S: T in the cols kernels (at most kMaxSerialTerms terms per thread), double for float32 in
// the online kernel, whose lanes each sum n / 512 terms of a row of any length (2^31 elements
// would be 4M terms per lane in float32: a relative error near 1e-4 typical, 0.25 at worst).
template <typename T, typename S = T>
struct MaxSum {
  T m;
  S s;
};
template <typename T>
using OnlineSum = MaxSum<T, std::conditional_t<std::is_same_v<T, float>, double, T>>;

template <typename T, typename S>
__device__ __forceinline__ MaxSum<T, S> shfl_down(MaxSum<T, S> v, int delta, int width) {
  return MaxSum<T, S>{gpu::shfl_down(v.m, delta, width), gpu::shfl_down(v.s, delta, width)};
}

// s re-expressed relative to a new max; s == 0 stays 0 (a row of -inf so far), NaN stays NaN.
template <typename T, typename S>
__device__ __forceinline__ S rescale(S s, T from, T to) {
  return (from == to || s == S(0)) ? s : s * static_cast<S>(exp_of(shift_of(from) - shift_of(to)));
}

template <typename T, typename S>
__device__ __forceinline__ MaxSum<T, S> fold(MaxSum<T, S> acc, T x) {
  const T m = x > acc.m ? x : acc.m;
  return MaxSum<T, S>{m, rescale(acc.s, acc.m, m) + static_cast<S>(exp_of(x - shift_of(m)))};
}

struct MergeOp {
  template <typename T, typename S>
  __device__ MaxSum<T, S> operator()(MaxSum<T, S> a, MaxSum<T, S> b) const {
    const T m = b.m > a.m ? b.m : a.m;
    return MaxSum<T, S>{m, rescale(a.s, a.m, m) + rescale(b.s, b.m, m)};
  }
};

// blockDim = (lanes per row, rows per block); lanes * kItems >= n; rows per block > 1 only
// with lanes = 32 (each row's reduction stays within its warp). Groups of blockDim.y rows are
// grid-strided: the grid is capped (capped_grid), since one block per 8 rows of n = 1 would
// exceed gridDim.x's 2^31 - 1 from 2^34 rows. The loop's trip count is the same for every
// thread of a block, so the barriers in block_allreduce stay uniform.
// __launch_bounds__: blocks of up to 512 threads must find their registers (at most 128 each).
template <typename T>
__global__ void __launch_bounds__(kMaxLanes, 1) softmax_rows_kernel(SoftmaxArgs<T> a) {
  __shared__ ReduceScratch<T> scratch;
  const int lane = static_cast<int>(threadIdx.x), lanes = static_cast<int>(blockDim.x);
  const int64_t group_step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.y; first < a.num_rows;
       first += group_step) {
    const int64_t row = first + threadIdx.y;
    const bool valid = row < a.num_rows;
    int64_t offsets[2] = {0, 0};
    if (valid) a.rows.get(static_cast<uint64_t>(row), offsets);
    const T* x = a.in + offsets[0];
    T* y = a.out + offsets[1];

    T v[kItems];
    T m = neg_inf<T>();
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int64_t i = lane + static_cast<int64_t>(k) * lanes;
      v[k] = (valid && i < a.n) ? x[i * a.in_stride] : neg_inf<T>();
      m = v[k] > m ? v[k] : m;
    }
    m = lanes <= kWarpSize ? warp_allreduce(m, MaxOp{}, lanes)
                           : block_allreduce(m, MaxOp{}, neg_inf<T>(), scratch.get());
    const T shift = shift_of(m);
    T s = 0;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (lane + static_cast<int64_t>(k) * lanes < a.n) s += exp_of(v[k] - shift);
    }
    s = lanes <= kWarpSize ? warp_allreduce(s, SumOp{}, lanes)
                           : block_allreduce(s, SumOp{}, T(0), scratch.get());
    if (valid) {
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        const int64_t i = lane + static_cast<int64_t>(k) * lanes;
        if (i < a.n) y[i * a.out_stride] = output_of(v[k], shift, s, a.log_form);
      }
    }
  }
}

// One block (1-D) per row, rows grid-strided.
template <typename T>
__global__ void __launch_bounds__(kOnlineThreads, 1) softmax_online_kernel(SoftmaxArgs<T> a) {
  __shared__ ReduceScratch<OnlineSum<T>> scratch;
  const int lane = static_cast<int>(threadIdx.x), lanes = static_cast<int>(blockDim.x);
  for (int64_t row = blockIdx.x; row < a.num_rows; row += gridDim.x) {
    int64_t offsets[2];
    a.rows.get(static_cast<uint64_t>(row), offsets);
    const T* x = a.in + offsets[0];
    T* y = a.out + offsets[1];
    OnlineSum<T> acc{neg_inf<T>(), 0};
    for (int64_t i = lane; i < a.n; i += lanes) acc = fold(acc, x[i * a.in_stride]);
    acc = block_allreduce(acc, MergeOp{}, OnlineSum<T>{neg_inf<T>(), 0}, scratch.get());
    const T shift = shift_of(acc.m);
    const T total = static_cast<T>(acc.s);  // rounded once, as the CPU's double row sum
    for (int64_t i = lane; i < a.n; i += lanes) {
      y[i * a.out_stride] = output_of(x[i * a.in_stride], shift, total, a.log_form);
    }
  }
}

// One thread per row, rows grid-strided.
template <typename T>
__global__ void softmax_cols_kernel(SoftmaxArgs<T> a) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < a.num_rows;
       row += step) {
    int64_t offsets[2];
    a.rows.get(static_cast<uint64_t>(row), offsets);
    const T* x = a.in + offsets[0];
    T* y = a.out + offsets[1];
    MaxSum<T> acc{neg_inf<T>(), T(0)};
    for (int64_t i = 0; i < a.n; ++i) acc = fold(acc, x[i * a.in_stride]);
    const T shift = shift_of(acc.m);
    for (int64_t i = 0; i < a.n; ++i) {
      y[i * a.out_stride] = output_of(x[i * a.in_stride], shift, acc.s, a.log_form);
    }
  }
}

// blockDim = (32, kSplit): threadIdx.x picks one of 32 neighbouring rows, threadIdx.y the
// residue class i = y (mod kSplit) of the elements it folds. Groups of 32 rows are
// grid-strided; every thread of a block runs the same trip count, so the barriers are uniform.
template <typename T>
__global__ void __launch_bounds__(kWarpSize* kSplit, 1)
    softmax_cols_split_kernel(SoftmaxArgs<T> a) {
  __shared__ MaxSum<T> partial[kSplit][kWarpSize + 1];  // +1: no bank conflict on the merge
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int64_t group_step = static_cast<int64_t>(gridDim.x) * kWarpSize;
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * kWarpSize; first < a.num_rows;
       first += group_step) {
    const int64_t row = first + tx;
    const bool valid = row < a.num_rows;
    int64_t offsets[2] = {0, 0};
    if (valid) a.rows.get(static_cast<uint64_t>(row), offsets);
    const T* x = a.in + offsets[0];
    T* y = a.out + offsets[1];
    MaxSum<T> acc{neg_inf<T>(), T(0)};
    if (valid) {
      for (int64_t i = ty; i < a.n; i += kSplit) acc = fold(acc, x[i * a.in_stride]);
    }
    partial[ty][tx] = acc;
    __syncthreads();
    // The first thread row merges the kSplit pairs of its column, in a fixed order
    // (deterministic), and leaves the result in partial[0].
    if (ty == 0) {
      for (int k = 1; k < kSplit; ++k) acc = MergeOp{}(acc, partial[k][tx]);
      partial[0][tx] = acc;
    }
    __syncthreads();
    const MaxSum<T> total = partial[0][tx];
    const T shift = shift_of(total.m);
    if (valid) {
      for (int64_t i = ty; i < a.n; i += kSplit) {
        y[i * a.out_stride] = output_of(x[i * a.in_stride], shift, total.s, a.log_form);
      }
    }
    __syncthreads();  // partial is rewritten by the next group
  }
}

template <typename T>
void run_softmax(const OpContext& ctx, const OpCall& call) {
  const Tensor& in = call.in(0);
  const Tensor& out = call.out();
  const auto dim = static_cast<size_t>(call.dim);
  const int64_t n = in.sizes()[dim];
  if (out.numel() == 0) return;
  // The row dims: every dim but `dim`, for input and output together.
  Shape row_sizes, in_strides, out_strides;
  for (size_t d = 0; d < in.sizes().size(); ++d) {
    if (d == dim) continue;
    row_sizes.push_back(in.sizes()[d]);
    in_strides.push_back(in.strides()[d]);
    out_strides.push_back(out.strides()[d]);
  }
  const StridedLayout<2> rows = collapse_dims<2>(row_sizes, {&out_strides, &in_strides});
  // collapse_dims puts the output first; SoftmaxArgs wants (input, output).
  StridedLayout<2> swapped = rows;
  for (int d = 0; d < rows.ndim; ++d) {
    swapped.strides[0][d] = rows.strides[1][d];
    swapped.strides[1][d] = rows.strides[0][d];
  }
  SoftmaxArgs<T> args{};
  args.in = static_cast<const T*>(in.raw_data());
  args.out = static_cast<T*>(out.raw_data());
  args.rows = OffsetCalculator<2>(swapped);
  args.num_rows = rows.numel;
  args.n = n;
  args.in_stride = in.strides()[dim];
  args.out_stride = out.strides()[dim];
  args.log_form = call.op == OpId::log_softmax;

  if (args.in_stride != 1 && args.num_rows >= 1024 && n <= kMaxSerialTerms) {
    launch_kernel(ctx, "softmax_cols_kernel", softmax_cols_kernel<T>, grid_for(ctx, args.num_rows),
                  kBlockThreads, 0, args);
  } else if (args.in_stride != 1 && args.num_rows >= kWarpSize && n > kMaxSerialTerms &&
             n <= kMaxSerialTerms * kSplit) {
    const dim3 block(kWarpSize, kSplit);
    launch_kernel(ctx, "softmax_cols_split_kernel", softmax_cols_split_kernel<T>,
                  capped_grid(ctx, ceil_div<int64_t>(args.num_rows, kWarpSize), kWarpSize * kSplit),
                  block, 0, args);
  } else if (n <= static_cast<int64_t>(kItems) * kMaxLanes) {
    int lanes = kWarpSize;
    while (static_cast<int64_t>(lanes) * kItems < n) lanes *= 2;
    // A row wider than a warp reduces through shared memory over the whole block: one row then.
    const int rows_per_block = lanes == kWarpSize ? kBlockThreads / kWarpSize : 1;
    const dim3 block(static_cast<unsigned>(lanes), static_cast<unsigned>(rows_per_block));
    launch_kernel(
        ctx, "softmax_rows_kernel", softmax_rows_kernel<T>,
        capped_grid(ctx, ceil_div<int64_t>(args.num_rows, rows_per_block), lanes * rows_per_block),
        block, 0, args);
  } else {
    const int64_t resident = static_cast<int64_t>(device_info(ctx.device).sm_count) * 4;
    launch_kernel(ctx, "softmax_online_kernel", softmax_online_kernel<T>,
                  static_cast<unsigned>(std::min(args.num_rows, resident * 8)), kOnlineThreads, 0,
                  args);
  }
}

}  // namespace

void launch_softmax(const OpCall& call) {
  OpContext ctx(call);
  switch (call.out().dtype()) {
    case kFloat32:
      run_softmax<float>(ctx, call);
      break;
    case kFloat64:
      run_softmax<double>(ctx, call);
      break;
    default:
      detail::fail<DtypeError>(ctx.op, "needs a floating-point input, got ", describe(call.in(0)));
  }
}

}  // namespace wick::gpu
