// matmul_cublas.cpp: matmul through cuBLAS (cublas{S,D}gemmStridedBatched), the second
// implementation, selected at run time with wick::set_matmul_backend(MatmulBackend::Cublas)
// (wick/matmul_backend.hpp), and the reference of the CUDA tests.
// Idea: C (row-major M x N) = A @ B is, read column-major, C^T (N x M, ld N) = B^T A^T, so B is
// cuBLAS's first operand and A its second. Each operand is handed over in place, transposed or
// not, whenever one of its two strides is 1 and the other a valid leading dimension (row-major
// and transposed views both qualify); only other layouts (e.g. a slice with a step in both
// dims, or a broadcast inside the matrix) are copied to a contiguous buffer first. Batch dims
// are collapsed: the innermost becomes the strided batch (a stride of 0 for broadcast is fine
// for cuBLAS), the outer ones a loop. Math mode CUBLAS_DEFAULT_MATH: plain FP32/FP64, no TF32.
// bfloat16 goes through cublasGemmStridedBatchedEx (BF16 in and out, FP32 compute).
// Limits: float32, float64 and bfloat16 (cuBLAS has no int64 GEMM: launch_matmul runs the
// tiled kernel for int64), M, N, K and leading dims below 2^31, K > 0.
// Tested by tests/cuda/test_matmul.cpp against the CPU float64 reference; measured by
// bench/gpu beside the ladder's kernels; no GPU run has happened yet, so the figures are pending
// (docs/gpu-results.md).
#include <cublas_v2.h>

#include <algorithm>
#include <climits>

#include "common.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

// The p x q matrix X with X(i, j) at i * si + j * sj, as cuBLAS wants it: op(S) with S
// column-major of leading dimension ld. False when neither op works for these strides.
bool column_major_view(int64_t p, int64_t q, int64_t si, int64_t sj, cublasOperation_t* op,
                       int64_t* ld) {
  if (q == 1) sj = std::max<int64_t>(p, 1);  // a single column: its stride is never used
  if (p == 1) si = 1;                        // a single row: likewise
  if (si == 1 && sj >= std::max<int64_t>(p, 1) && sj <= INT_MAX) {
    *op = CUBLAS_OP_N;
    *ld = sj;
    return true;
  }
  if (sj == 1 && si >= std::max<int64_t>(q, 1) && si <= INT_MAX) {
    *op = CUBLAS_OP_T;
    *ld = si;
    return true;
  }
  return false;
}

struct GemmOperand {
  Tensor tensor;  // the input, or its contiguous copy
  cublasOperation_t op;
  int64_t ld;
};

// X = the matrix of `t` with rows/cols swapped (X = A^T or B^T), as described above.
GemmOperand prepare(const Tensor& t) {
  const auto nd = static_cast<size_t>(t.dim());
  const int64_t rows = t.sizes()[nd - 2], cols = t.sizes()[nd - 1];
  GemmOperand g{t, CUBLAS_OP_N, 0};
  if (column_major_view(cols, rows, t.strides()[nd - 1], t.strides()[nd - 2], &g.op, &g.ld)) {
    return g;
  }
  g.tensor = t.contiguous();
  const bool ok = column_major_view(cols, rows, g.tensor.strides()[nd - 1],
                                    g.tensor.strides()[nd - 2], &g.op, &g.ld);
  WICK_CHECK(ok, ShapeError, "matmul", "cuBLAS cannot read ", describe(t), " with strides ",
             t.strides());
  return g;
}

template <typename T>
void gemm_strided_batched(cublasHandle_t handle, const OpContext& ctx, const GemmOperand& a,
                          const GemmOperand& b, int64_t m, int64_t n, int64_t k, const T* a_ptr,
                          int64_t a_stride, const T* b_ptr, int64_t b_stride, T* c_ptr,
                          int64_t c_stride, int64_t count) {
  using Scale = std::conditional_t<std::is_same_v<T, BFloat16>, float, T>;
  const Scale alpha = 1, beta = 0;
  // cuBLAS takes the batch count as an int: very long batches go in several calls.
  for (int64_t first = 0; first < count; first += INT_MAX) {
    const auto part = static_cast<int>(std::min<int64_t>(count - first, INT_MAX));
    const T* bp = b_ptr + first * b_stride;
    const T* ap = a_ptr + first * a_stride;
    T* cp = c_ptr + first * c_stride;
    if constexpr (std::is_same_v<T, BFloat16>) {
      // bfloat16 in and out, FP32 accumulation: cuBLAS's BF16 tensor-core GEMM.
      WICK_CUBLAS_RETRY(
          cublasGemmStridedBatchedEx(
              handle, b.op, a.op, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k),
              &alpha, bp, CUDA_R_16BF, static_cast<int>(b.ld), b_stride, ap, CUDA_R_16BF,
              static_cast<int>(a.ld), a_stride, &beta, cp, CUDA_R_16BF, static_cast<int>(n),
              c_stride, part, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
          ctx.op, ctx.device);
    } else if constexpr (std::is_same_v<T, float>) {
      WICK_CUBLAS_RETRY(
          cublasSgemmStridedBatched(handle, b.op, a.op, static_cast<int>(n), static_cast<int>(m),
                                    static_cast<int>(k), &alpha, bp, static_cast<int>(b.ld),
                                    b_stride, ap, static_cast<int>(a.ld), a_stride, &beta, cp,
                                    static_cast<int>(n), c_stride, part),
          ctx.op, ctx.device);
    } else {
      WICK_CUBLAS_RETRY(
          cublasDgemmStridedBatched(handle, b.op, a.op, static_cast<int>(n), static_cast<int>(m),
                                    static_cast<int>(k), &alpha, bp, static_cast<int>(b.ld),
                                    b_stride, ap, static_cast<int>(a.ld), a_stride, &beta, cp,
                                    static_cast<int>(n), c_stride, part),
          ctx.op, ctx.device);
    }
  }
}

template <typename T>
void run_cublas(const OpContext& ctx, const OpCall& call) {
  const Tensor& c = call.out();
  const GemmOperand a = prepare(call.in(0));
  const GemmOperand b = prepare(call.in(1));
  const auto nd = static_cast<size_t>(c.dim());
  const int64_t m = c.sizes()[nd - 2], n = c.sizes()[nd - 1];
  const int64_t k = a.tensor.sizes()[nd - 1];
  // Batch dims of C (contiguous), A and B, collapsed together.
  const Shape batch_sizes(c.sizes().begin(), c.sizes().end() - 2);
  const Shape c_batch(c.strides().begin(), c.strides().end() - 2);
  const Shape a_batch(a.tensor.strides().begin(), a.tensor.strides().end() - 2);
  const Shape b_batch(b.tensor.strides().begin(), b.tensor.strides().end() - 2);
  const StridedLayout<3> batches = collapse_dims<3>(batch_sizes, {&c_batch, &a_batch, &b_batch});
  if (batches.numel == 0 || m == 0 || n == 0) return;
  // The innermost batch dim is cuBLAS's strided batch; the others are walked here.
  int64_t count = 1, c_stride = 0, a_stride = 0, b_stride = 0;
  StridedLayout<3> outer = batches;
  if (batches.ndim > 0) {
    count = batches.sizes[0];
    c_stride = batches.strides[0][0];
    a_stride = batches.strides[1][0];
    b_stride = batches.strides[2][0];
    outer.ndim = batches.ndim - 1;
    outer.numel = batches.numel / count;
    for (int d = 0; d < outer.ndim; ++d) {
      outer.sizes[d] = batches.sizes[d + 1];
      for (int s = 0; s < 3; ++s) outer.strides[s][d] = batches.strides[s][d + 1];
    }
  }
  const OffsetCalculator<3> outer_offsets(outer);
  auto handle = static_cast<cublasHandle_t>(cublas_handle(ctx.device));
  const T* a_ptr = static_cast<const T*>(a.tensor.raw_data());
  const T* b_ptr = static_cast<const T*>(b.tensor.raw_data());
  T* c_ptr = static_cast<T*>(c.raw_data());
  for (int64_t o = 0; o < outer.numel; ++o) {
    int64_t offsets[3];
    outer_offsets.get(static_cast<uint64_t>(o), offsets);
    gemm_strided_batched<T>(handle, ctx, a, b, m, n, k, a_ptr + offsets[1], a_stride,
                            b_ptr + offsets[2], b_stride, c_ptr + offsets[0], c_stride, count);
  }
}

}  // namespace

bool cublas_supports(const OpCall& call) {
  const Tensor& a = call.in(0);
  const Tensor& b = call.in(1);
  if (a.dtype() != kFloat32 && a.dtype() != kFloat64 && a.dtype() != kBFloat16) return false;
  const auto nd = static_cast<size_t>(a.dim());
  const int64_t m = a.sizes()[nd - 2], k = a.sizes()[nd - 1], n = b.sizes()[nd - 1];
  return k > 0 && m <= INT_MAX && n <= INT_MAX && k <= INT_MAX;
}

void launch_matmul_cublas(const OpContext& ctx, const OpCall& call) {
  if (call.out().dtype() == kFloat32) {
    run_cublas<float>(ctx, call);
  } else if (call.out().dtype() == kBFloat16) {
    run_cublas<BFloat16>(ctx, call);
  } else {
    run_cublas<double>(ctx, call);
  }
}

}  // namespace wick::gpu
