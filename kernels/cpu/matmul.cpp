// matmul.cpp: C[b] = A[b] @ B[b] for every batch index b, A and B with any strides (a
// transposed view is read in place), C contiguous. The structure is BLIS's, kept small:
// for each block of KC rows of B, pack that panel into a contiguous buffer (this is where
// strides and transposes are absorbed), then for each block of 4 rows of A and 64 columns of
// C accumulate a 4x64 tile in registers/L1 and add it to C. Rows of C are split across
// threads. The plain triple loop stays in tests/reference.hpp as the oracle; the fast GEMM
// with a SIMD micro-kernel is the later "fast CPU kernels" work. Measured in bench/.
#include <algorithm>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"

namespace wick::cpu {
namespace {

constexpr int64_t kKc = 256;  // rows of B per packed panel: a 256 x 64 float tile is 64 KiB
constexpr int64_t kMr = 4;    // rows of A per tile
constexpr int64_t kNr = 64;   // columns of C per tile

template <typename T>
struct Matrix {
  const T* data;
  int64_t rows, cols, row_stride, col_stride;
  T at(int64_t r, int64_t c) const { return data[r * row_stride + c * col_stride]; }
};

// C (m x n, contiguous, row stride n) = A @ B.
template <typename T>
void gemm(const Matrix<T>& a, const Matrix<T>& b, T* c, bool parallel) {
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  std::fill(c, c + m * n, T(0));
  std::vector<T> panel(static_cast<size_t>(std::min(k, kKc) * n));
  for (int64_t k0 = 0; k0 < k; k0 += kKc) {
    const int64_t kc = std::min(kKc, k - k0);
    // Pack B[k0:k0+kc, :] row-major.
    for (int64_t kk = 0; kk < kc; ++kk) {
      T* dst = panel.data() + kk * n;
      if (b.col_stride == 1) {
        std::copy(b.data + (k0 + kk) * b.row_stride, b.data + (k0 + kk) * b.row_stride + n, dst);
      } else {
        for (int64_t j = 0; j < n; ++j) dst[j] = b.at(k0 + kk, j);
      }
    }
    const int64_t row_blocks = (m + kMr - 1) / kMr;
    auto run = [&](int64_t rb0, int64_t rb1) {
      T a_tile[kMr][kKc];
      T acc[kMr][kNr];
      for (int64_t rb = rb0; rb < rb1; ++rb) {
        const int64_t i0 = rb * kMr, mr = std::min(kMr, m - i0);
        for (int64_t r = 0; r < kMr; ++r) {
          for (int64_t kk = 0; kk < kc; ++kk) a_tile[r][kk] = r < mr ? a.at(i0 + r, k0 + kk) : T(0);
        }
        for (int64_t j0 = 0; j0 < n; j0 += kNr) {
          const int64_t nr = std::min(kNr, n - j0);
          for (auto& row : acc) std::fill(row, row + kNr, T(0));
          for (int64_t kk = 0; kk < kc; ++kk) {
            const T* brow = panel.data() + kk * n + j0;
            if (nr == kNr) {
              for (int64_t r = 0; r < kMr; ++r) {
                const T av = a_tile[r][kk];
                for (int64_t j = 0; j < kNr; ++j) acc[r][j] += av * brow[j];
              }
            } else {
              for (int64_t r = 0; r < kMr; ++r) {
                const T av = a_tile[r][kk];
                for (int64_t j = 0; j < nr; ++j) acc[r][j] += av * brow[j];
              }
            }
          }
          for (int64_t r = 0; r < mr; ++r) {
            T* crow = c + (i0 + r) * n + j0;
            for (int64_t j = 0; j < nr; ++j) crow[j] += acc[r][j];
          }
        }
      }
    };
    if (parallel) {
      parallel_for(row_blocks,
                   std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, n * kc / 8)), run);
    } else {
      run(0, row_blocks);
    }
  }
}

// int64 products wrap instead of overflowing into UB.
template <>
void gemm<int64_t>(const Matrix<int64_t>& a, const Matrix<int64_t>& b, int64_t* c, bool) {
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
    gemm(am, bm, c_data + bi * m * n, inner_parallel);
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
