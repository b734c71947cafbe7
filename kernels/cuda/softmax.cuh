// softmax.cuh: what softmax.cu (dispatch, strided-row kernels) and softmax_rows.cu (contiguous
// and short rows, long rows) share: the kernels' arguments, the max / sum / online (max, sum)
// combinators with the semantics of kernels/cpu/softmax.cpp, and the launchers that
// softmax_rows.cu defines. The design is described in softmax.cu's header.
#pragma once

#include <type_traits>

#include "common.cuh"
#include "kernels.hpp"

namespace wick::gpu::softmax {

// Values of one row that a lane of softmax_rows_kernel keeps in registers: 128 bytes (32 float
// or 16 double registers), so that a 256-thread block stays within 64 registers a thread.
template <typename T>
inline constexpr int kLaneValues = 128 / static_cast<int>(sizeof(T));
// Threads per block of softmax_rows_kernel, and the most lanes one row gets there.
inline constexpr int kRowThreads = 256;
// Elements per 16-byte vector (float4, double2).
template <typename T>
inline constexpr int kVecWidth = 16 / static_cast<int>(sizeof(T));

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

// What turns exp(x - shift) or x - shift into the output: 1 / total or log(total), computed
// once per row (the same value output_of would compute per element).
template <typename T>
__device__ __forceinline__ T scale_of(T total, bool log_form) {
  return log_form ? log_of(total) : T(1) / total;
}
template <typename T>
__device__ __forceinline__ T output_of(T x, T shift, T scale, bool log_form) {
  return log_form ? (x - shift) - scale : exp_of(x - shift) * scale;
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

// softmax_rows.cu. vec: rows contiguous in input and output, n a multiple of kVecWidth<T>, and
// every row's first element 16-byte aligned in both (the 16-byte load path).
// Rows of up to kLaneValues<T> * kRowThreads elements, held in registers (read once).
template <typename T>
void launch_rows(const OpContext& ctx, const SoftmaxArgs<T>& args, bool vec);
// Rows of any length, read twice.
template <typename T>
void launch_long_rows(const OpContext& ctx, const SoftmaxArgs<T>& args, bool vec);

}  // namespace wick::gpu::softmax
