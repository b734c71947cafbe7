// triangular.cpp: the row updates and substitutions of triangular.hpp, and triangular_solve on
// the CPU (core/src/ops_cholesky.cpp checks and packs):
//  - triangular_solve: A [batch, n, n] and B [batch, n, k] contiguous float32/float64 -> out(0)
//    X [batch, n, k] with A X = B for A's lower (ints[0] == 0) or upper (ints[0] == 1) triangle,
//    unit diagonal when ints[1] == 1; the other triangle is never read. n^2 k flops.
// Matrices and slabs of kSolveColumns of B's columns split across threads.
#include "triangular.hpp"

#include <algorithm>

#include "kernels.hpp"
#include "loops.hpp"
#include "vec_clones.hpp"

namespace wick::cpu {
namespace {

// Four subtract_scaled in one pass (y loaded and stored once instead of four times), in the
// same order per element: (((y - a0 x0) - a1 x1) - a2 x2) - a3 x3.
template <typename T>
inline __attribute__((always_inline)) void subtract_scaled4_body(T* y, const T* const* x,
                                                                 const T* a, int64_t n) {
  const T *x0 = x[0], *x1 = x[1], *x2 = x[2], *x3 = x[3];
  for (int64_t j = 0; j < n; ++j)
    y[j] = y[j] - a[0] * x0[j] - a[1] * x1[j] - a[2] * x2[j] - a[3] * x3[j];
}
WICK_VEC_CLONES void subtract_scaled4(float* y, const float* const* x, const float* a, int64_t n) {
  subtract_scaled4_body(y, x, a, n);
}
WICK_VEC_CLONES void subtract_scaled4(double* y, const double* const* x, const double* a,
                                      int64_t n) {
  subtract_scaled4_body(y, x, a, n);
}

template <typename T>
void divide_row(T* row, T divisor, int64_t c0, int64_t c1) {
  for (int64_t c = c0; c < c1; ++c) row[c] /= divisor;
}

}  // namespace

// Compiled for AVX-512, AVX2 and the baseline (WICK_VEC_CLONES).
WICK_VEC_CLONES void subtract_scaled(float* y, const float* x, float a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) y[j] -= a * x[j];
}
WICK_VEC_CLONES void subtract_scaled(double* y, const double* x, double a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) y[j] -= a * x[j];
}

template <typename T>
void subtract_rows(T* y, const T* base, int64_t stride, const T* a, int64_t a_stride, int64_t count,
                   int64_t n) {
  int64_t t = 0;
  for (; t + 4 <= count; t += 4) {
    const T* x[4] = {base + t * stride, base + (t + 1) * stride, base + (t + 2) * stride,
                     base + (t + 3) * stride};
    const T coefficients[4] = {a[t * a_stride], a[(t + 1) * a_stride], a[(t + 2) * a_stride],
                               a[(t + 3) * a_stride]};
    subtract_scaled4(y, x, coefficients, n);
  }
  for (; t < count; ++t) subtract_scaled(y, base + t * stride, a[t * a_stride], n);
}

template <typename T>
void subtract_product(T* c, int64_t ldc, const gemm::ConstMatrix<T>& a,
                      const gemm::ConstMatrix<T>& b, std::vector<T>& scratch, int threads) {
  const int64_t rows = a.rows, cols = b.cols;
  if (rows == 0 || cols == 0 || a.cols == 0) return;
  scratch.resize(static_cast<size_t>(rows * cols));
  gemm::gemm<T>(a, b, scratch.data(), cols, threads);
  for (int64_t i = 0; i < rows; ++i)
    subtract_scaled(c + i * ldc, scratch.data() + i * cols, T(1), cols);
}

template <typename T>
void solve_lower(const T* a, int64_t lda, bool unit, T* x, int64_t n, int64_t k, int64_t c0,
                 int64_t c1) {
  const int64_t block = n >= kTriangularGemmFrom ? kTriangularBlock : n, width = c1 - c0;
  std::vector<T> scratch;
  for (int64_t b0 = 0; b0 < n; b0 += block) {
    const int64_t b1 = std::min(n, b0 + block);
    subtract_product<T>(x + b0 * k + c0, k, {a + b0 * lda, b1 - b0, b0, lda, 1},
                        {x + c0, b0, width, k, 1}, scratch, 1);
    for (int64_t i = b0; i < b1; ++i) {
      if (i > b0)
        subtract_rows(x + i * k + c0, x + b0 * k + c0, k, a + i * lda + b0, 1, i - b0, width);
      if (!unit) divide_row(x + i * k, a[i * lda + i], c0, c1);
    }
  }
}

template <typename T>
void solve_upper(const T* a, int64_t lda, bool unit, T* x, int64_t n, int64_t k, int64_t c0,
                 int64_t c1) {
  const int64_t block = n >= kTriangularGemmFrom ? kTriangularBlock : n, width = c1 - c0;
  std::vector<T> scratch;
  for (int64_t b1 = n; b1 > 0; b1 -= block) {
    const int64_t b0 = std::max<int64_t>(0, b1 - block);
    subtract_product<T>(x + b0 * k + c0, k, {a + b0 * lda + b1, b1 - b0, n - b1, lda, 1},
                        {x + b1 * k + c0, n - b1, width, k, 1}, scratch, 1);
    for (int64_t i = b1 - 1; i >= b0; --i) {
      subtract_rows(x + i * k + c0, x + (i + 1) * k + c0, k, a + i * lda + i + 1, 1, b1 - i - 1,
                    width);
      if (!unit) divide_row(x + i * k, a[i * lda + i], c0, c1);
    }
  }
}

#define WICK_TRIANGULAR_INSTANTIATE(T)                                                           \
  template void subtract_rows<T>(T*, const T*, int64_t, const T*, int64_t, int64_t, int64_t);    \
  template void subtract_product<T>(T*, int64_t, const gemm::ConstMatrix<T>&,                    \
                                    const gemm::ConstMatrix<T>&, std::vector<T>&, int);          \
  template void solve_lower<T>(const T*, int64_t, bool, T*, int64_t, int64_t, int64_t, int64_t); \
  template void solve_upper<T>(const T*, int64_t, bool, T*, int64_t, int64_t, int64_t, int64_t);
WICK_TRIANGULAR_INSTANTIATE(float)
WICK_TRIANGULAR_INSTANTIATE(double)
#undef WICK_TRIANGULAR_INSTANTIATE

void triangular_solve_kernel(const OpCall& call) {
  const Tensor& a_tensor = call.in(0);
  const Tensor& b = call.in(1);
  const bool upper = call.ints[0] != 0, unit = call.ints[1] != 0;
  const int64_t n = b.size(-2), k = b.size(-1);
  if (n == 0 || k == 0) return;
  const int64_t batch = b.numel() / (n * k), slabs = (k + kSolveColumns - 1) / kSolveColumns;
  WICK_DISPATCH_FLOATING(b.dtype(), {
    const T* a = a_tensor.data_ptr<T>();
    T* x = call.out(0).data_ptr<T>();
    std::copy_n(b.data_ptr<T>(), b.numel(), x);
    const int64_t cost = std::max<int64_t>(1, n * n * std::min(k, kSolveColumns) / 2);
    parallel_for(batch * slabs, std::max<int64_t>(1, kParallelGrain / cost),
                 [&](int64_t t0, int64_t t1) {
                   for (int64_t t = t0; t < t1; ++t) {
                     const int64_t m = t / slabs, c0 = (t % slabs) * kSolveColumns;
                     const int64_t c1 = std::min(k, c0 + kSolveColumns);
                     if (upper) {
                       solve_upper(a + m * n * n, n, unit, x + m * n * k, n, k, c0, c1);
                     } else {
                       solve_lower(a + m * n * n, n, unit, x + m * n * k, n, k, c0, c1);
                     }
                   }
                 });
  })
}

}  // namespace wick::cpu
