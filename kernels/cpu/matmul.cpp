// matmul.cpp: C[b] = A[b] @ B[b] for every batch index b, A and B with any strides (a
// transposed view is read in place, batch strides may be 0), C contiguous. float and double go
// to gemm/ (BLIS-structured, packing absorbs the strides, SIMD micro-kernel picked at run
// time: docs/cpu-gemm.md); int64 uses a plain loop that wraps on overflow. Many small matrices
// run in parallel over the batch, each product on one thread; otherwise the batch is walked
// in order and each product uses every thread. The plain triple loop in tests/ is the oracle;
// measured in bench/cpu/.
#include <algorithm>

#include "gemm/gemm.hpp"
#include "kernels.hpp"
#include "loops.hpp"

namespace wick::cpu {
namespace {

template <typename T>
struct Matrix {
  const T* data;
  int64_t rows, cols, row_stride, col_stride;
  T at(int64_t r, int64_t c) const { return data[r * row_stride + c * col_stride]; }
};

// C (m x n, contiguous, row stride n) = A @ B: float and double go to the GEMM in gemm/.
template <typename T>
void product(const Matrix<T>& a, const Matrix<T>& b, T* c, bool parallel) {
  gemm::gemm<T>({a.data, a.rows, a.cols, a.row_stride, a.col_stride},
                {b.data, b.rows, b.cols, b.row_stride, b.col_stride}, c, b.cols, parallel ? 0 : 1);
}

// int64 products wrap instead of overflowing into UB.
template <>
void product<int64_t>(const Matrix<int64_t>& a, const Matrix<int64_t>& b, int64_t* c, bool) {
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t j = 0; j < b.cols; ++j) {
      uint64_t acc = 0;
      for (int64_t kk = 0; kk < a.cols; ++kk) {
        acc += static_cast<uint64_t>(a.at(i, kk)) * static_cast<uint64_t>(b.at(kk, j));
      }
      c[i * b.cols + j] = static_cast<int64_t>(acc);
    }
  }
}

template <typename T>
void run_matmul(const OpCall& call) {
  const Tensor& a = call.in(0);  // [batch..., m, k]
  const Tensor& b = call.in(1);  // [batch..., k, n]
  const Tensor& c = call.out();  // [batch..., m, n], contiguous
  const int64_t nd = a.dim();
  const int64_t m = a.sizes()[nd - 2], k = a.sizes()[nd - 1], n = b.sizes()[nd - 1];
  int64_t batch = 1;
  for (int64_t d = 0; d < nd - 2; ++d) batch *= a.sizes()[d];
  const T* a_data = a.data_ptr<T>();
  const T* b_data = b.data_ptr<T>();
  T* c_data = c.data_ptr<T>();
  // Many small matrices: parallel over the batch; otherwise inside each product.
  const bool batch_parallel = batch >= 2 * max_threads() && m * n * k < (1 << 21);
  auto one = [&](int64_t bi, bool inner_parallel) {
    int64_t a_off = 0, b_off = 0, rest = bi;
    for (int64_t d = nd - 3; d >= 0; --d) {
      int64_t idx = rest % a.sizes()[d];
      rest /= a.sizes()[d];
      a_off += idx * a.strides()[d];
      b_off += idx * b.strides()[d];
    }
    Matrix<T> am{a_data + a_off, m, k, a.strides()[nd - 2], a.strides()[nd - 1]};
    Matrix<T> bm{b_data + b_off, k, n, b.strides()[nd - 2], b.strides()[nd - 1]};
    product(am, bm, c_data + bi * m * n, inner_parallel);
  };
  if (batch_parallel) {
    parallel_for(batch, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t bi = b0; bi < b1; ++bi) one(bi, false);
    });
  } else {
    for (int64_t bi = 0; bi < batch; ++bi) one(bi, true);
  }
}

}  // namespace

void matmul_kernel(const OpCall& call) {
  WICK_DISPATCH_NUMERIC(call.out().dtype(), run_matmul<T>(call))
}

}  // namespace wick::cpu
