// softmax.cu: softmax and log_softmax along one dim, numerically stable (the row's max is
// subtracted before exp), with any input strides and a contiguous or strided output. This file
// holds the dispatch and the kernels for rows that are strided in memory; softmax_rows.cu the
// row kernels; softmax.cuh what they share.
// Kernels by shape:
//  - softmax_rows_kernel (softmax_rows.cu; rows of up to 8192 float32 / 4096 float64 elements,
//    the common case): a group of 1 to 256 lanes per row (the fewest that hold it, 128 bytes of
//    values per lane) keeps the row in registers, so it is read once and written once: max
//    across the group, sum of exp(x - max), then the outputs. Groups of up to 32 lanes reduce
//    with shuffles alone (several rows per warp and per block, no barrier); wider groups
//    combine their warps' results through shared memory in a fixed order. Blocks are always
//    256 threads (256 / lanes rows each), at most 63 registers on the float32 16-byte path,
//    so that 4 blocks (1024 threads) share an SM. Rows of 1024 floats: a warp per row, 8
//    float4 per lane; of 8192: a block per row, 8 float4 per lane;
//  - softmax_long_kernel (softmax_rows.cu; longer rows): one 512-thread block per row, each
//    lane folds its elements into a running (max, sum) pair ("online softmax", Milakov &
//    Gimelshein 2018) with 4 loads in flight, the pairs merge across the block, and a second
//    pass writes the outputs. On sm_90 the first pass also keeps the row's first 96 KiB in
//    shared memory (2 blocks per SM), so the second reads only the rest again (rows of up to
//    24576 float32 elements are read once), walking the row from its end: what the first pass
//    read last is the likeliest to be still in L2;
//  - both take 16-byte loads and stores (float4, double2) where the rows are contiguous in
//    input and output, n is a multiple of the vector width and every row starts 16-byte
//    aligned; otherwise scalar loads at the rows' strides (the same code, vector width 1);
//  - softmax_cols_kernel (rows that are strided in memory, e.g. softmax over dim 0 of a
//    row-major matrix, when there are many of them and they hold at most 1024 elements): one
//    thread per row, online pair, so that neighbouring threads read neighbouring addresses;
//  - softmax_cols_split_kernel (strided rows of 1025 to 32768 elements, at least 32 of them):
//    a block of 32 x kSplit threads takes 32 neighbouring rows, each of the kSplit thread rows
//    folds every kSplit-th element of them (so a warp still reads 128 contiguous bytes and no
//    thread sums more than 1024 terms, the accuracy of softmax_cols_kernel), 4 loads in flight,
//    and the kSplit pairs per row merge through shared memory; the output pass runs backwards
//    as the long kernel's. Without it such rows went to the online kernel, whose lanes read
//    one element per 32-byte sector: 1/8 of what the bus moves. Longer strided rows still go
//    to softmax_long_kernel (a thread would sum more than 1024 terms).
// Semantics are those of kernels/cpu/softmax.cpp: NaN in a row makes the row NaN, a row of all
// -inf is shifted by 0 (giving 0/0 = NaN), +inf gives NaN. float32 rows accumulate in float32
// where a thread sums few terms (rows kernel: 32 per lane, then a tree; cols kernels: at most
// 1024) and in double in the long kernel (any row length); the CPU uses double: the tests
// allow 1e-5 relative error (docs/cuda-backend.md). Combination orders are fixed (no atomics):
// results are deterministic.
// Tested by tests/cuda/test_softmax.cpp (on the CPU emulator; every path and its fallbacks);
// measured by bench/gpu (2^26 floats in rows of 1024, 8192 and 65536, and over dim 0 in strided
// rows of 2048 and 8192, as a fraction of the copy bandwidth). The previous design (scalar
// loads, 16 values per lane, 64 to 512 lanes per row, __launch_bounds__(512, 1)) measured on an
// H200 on 2026-12-04: 0.53, 0.31 and 0.39 of copy for rows of 1024, 8192 and 65536, 0.45 and
// 0.48 over dim 0. This design has not run on a GPU yet: its figures come from the next GPU
// run (docs/softmax-notes.md has the predictions).
#include <algorithm>

#include "softmax.cuh"

namespace wick::gpu {
namespace {

using softmax::fold;
using softmax::MaxSum;
using softmax::MergeOp;
using softmax::neg_inf;
using softmax::output_of;
using softmax::scale_of;
using softmax::shift_of;
using softmax::SoftmaxArgs;

constexpr int kSplit = 32;                 // thread rows per block in softmax_cols_split_kernel
constexpr int64_t kMaxSerialTerms = 1024;  // the most terms one thread sums in the cols kernels
constexpr int kColsUnroll = 4;  // loads in flight per thread of softmax_cols_split_kernel
// Blocks of softmax_cols_split_kernel per SM for __launch_bounds__: 2 (32 registers) for
// float32 where an SM holds 2048 threads (sm_80, sm_90, sm_100; ptxas rejects a bound past an
// SM's threads: 1024 on sm_75, 1536 on sm_86/89/120), else 1; float64 spills at 32 (ptxas -v).
#if defined(__CUDA_ARCH__) && \
    (__CUDA_ARCH__ == 800 || (__CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200))
inline constexpr bool kSmHolds2048 = true;
#else
inline constexpr bool kSmHolds2048 = false;
#endif
template <typename T>
inline constexpr int kColsBlocksPerSm = (sizeof(T) == 4 && kSmHolds2048) ? 2 : 1;

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
    const T shift = shift_of(acc.m), scale = scale_of(acc.s, a.log_form);
    for (int64_t i = 0; i < a.n; ++i) {
      y[i * a.out_stride] = output_of(x[i * a.in_stride], shift, scale, a.log_form);
    }
  }
}

// blockDim = (32, kSplit): threadIdx.x picks one of 32 neighbouring rows, threadIdx.y the
// residue class i = y (mod kSplit) of the elements it folds. Groups of 32 rows are
// grid-strided; every thread of a block runs the same trip count, so the barriers are uniform.
// Both passes load kColsUnroll elements before using any (more loads in flight per thread);
// the output pass walks the elements from the last, which the first pass read last and L2 is
// likeliest to still hold.
// Float32: 32 registers, 2 blocks (2048 threads) per SM; float64: 64 registers, 1 block.
template <typename T>
__global__ void __launch_bounds__(kWarpSize* kSplit, kColsBlocksPerSm<T>)
    softmax_cols_split_kernel(SoftmaxArgs<T> a) {
  __shared__ MaxSum<T> partial[kSplit][kWarpSize + 1];  // +1: no bank conflict on the merge
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int64_t group_step = static_cast<int64_t>(gridDim.x) * kWarpSize;
  constexpr int64_t kStep = kSplit * kColsUnroll;
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
      int64_t i = ty;
      for (; i + (kColsUnroll - 1) * kSplit < a.n; i += kStep) {
        T v[kColsUnroll];
#pragma unroll
        for (int u = 0; u < kColsUnroll; ++u) v[u] = x[(i + u * kSplit) * a.in_stride];
#pragma unroll
        for (int u = 0; u < kColsUnroll; ++u) acc = fold(acc, v[u]);
      }
      for (; i < a.n; i += kSplit) acc = fold(acc, x[i * a.in_stride]);
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
    const T shift = shift_of(total.m), scale = scale_of(total.s, a.log_form);
    if (valid && ty < a.n) {
      int64_t i = ty + (a.n - 1 - ty) / kSplit * kSplit;  // this thread's last element
      for (; i - (kColsUnroll - 1) * kSplit >= 0; i -= kStep) {
        T v[kColsUnroll];
#pragma unroll
        for (int u = 0; u < kColsUnroll; ++u) v[u] = x[(i - u * kSplit) * a.in_stride];
#pragma unroll
        for (int u = 0; u < kColsUnroll; ++u) {
          y[(i - u * kSplit) * a.out_stride] = output_of(v[u], shift, scale, a.log_form);
        }
      }
      for (; i >= 0; i -= kSplit) {
        y[i * a.out_stride] = output_of(x[i * a.in_stride], shift, scale, a.log_form);
      }
    }
    __syncthreads();  // partial is rewritten by the next group
  }
}

// Every row dim of both operands steps by a multiple of `width` elements: with 16-byte aligned
// bases and n % width == 0, every row starts 16-byte aligned.
bool rows_step_by(const StridedLayout<2>& rows, int64_t width) {
  for (int d = 0; d < rows.ndim; ++d) {
    if (rows.strides[0][d] % width != 0 || rows.strides[1][d] % width != 0) return false;
  }
  return true;
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
  } else {
    // Contiguous rows whose starts are all 16-byte aligned take 16-byte loads and stores.
    constexpr int kWidth = softmax::kVecWidth<T>;
    const bool vec = args.in_stride == 1 && args.out_stride == 1 && n % kWidth == 0 &&
                     is_aligned(args.in, 16) && is_aligned(args.out, 16) &&
                     rows_step_by(rows, kWidth);
    if (n <= static_cast<int64_t>(softmax::kLaneValues<T>) * softmax::kRowThreads) {
      softmax::launch_rows(ctx, args, vec);
    } else {
      softmax::launch_long_rows(ctx, args, vec);
    }
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
