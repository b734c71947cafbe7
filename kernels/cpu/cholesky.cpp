// cholesky.cpp: cholesky_factor on the CPU (core/src/ops_cholesky.cpp checks and packs).
//  - cholesky_factor: A [batch, n, n] contiguous float32/float64 -> out(0) L [batch, n, n], the
//    lower triangle of L with A = L L^T read from A's lower triangle only (zeros above the
//    diagonal), and out(1) info [batch] int64: 0, or k + 1 when the leading minor of order
//    k + 1 is not positive-definite (its pivot A[k][k] - L[k, :k] . L[k, :k] is <= 0 or NaN,
//    LAPACK potrf's test). L's columns from k on are then NaN, on both devices.
// Left-looking by panels of kPanel columns (as LAPACK's potrf, in row-major): first the panel
// loses the products of all the columns left of it, L[k0:, :k0] L[k0:k1, :k0]^T, as one GEMM
// (wick's own; from kGemmFrom rows on, all threads for a lone matrix); then its columns one by
// one, each element L[i][j] = (A[i][j] - L[i, k0:j] . L[j, k0:j]) / L[j][j], the dots over rows
// of L that are contiguous in row-major. Below kGemmFrom one panel spans the whole matrix:
// every element is then one dot over its row, as the unblocked algorithm. n^3 / 3 flops.
// Matrices of a batch split across threads; one large matrix splits its GEMMs and the rows of
// each panel. Measured against LAPACK (libtorch) in docs/cpu-kernels.md, "Linear algebra".
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"
#include "triangular.hpp"
#include "vec_clones.hpp"

namespace wick::cpu {
namespace {

constexpr int64_t kPanel = 32, kGemmFrom = 128;

// x . y over n elements in 8 running sums (a vector register of float32 under AVX2, one
// rounding order in every clone: -ffp-contract=off), added pairwise at the end.
template <typename T>
inline __attribute__((always_inline)) T dot_body(const T* x, const T* y, int64_t n) {
  T acc[8] = {};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (int t = 0; t < 8; ++t) acc[t] += x[j + t] * y[j + t];
  }
  T s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; j < n; ++j) s += x[j] * y[j];
  return s;
}
WICK_VEC_CLONES float dot(const float* x, const float* y, int64_t n) { return dot_body(x, y, n); }
WICK_VEC_CLONES double dot(const double* x, const double* y, int64_t n) {
  return dot_body(x, y, n);
}

// Rows [begin, end) of column j, below the diagonal, within the panel starting at column k0.
template <typename T>
void column_rows(T* l, int64_t n, int64_t k0, int64_t j, T diagonal, int64_t begin, int64_t end) {
  const T* pivot_row = l + j * n + k0;
  for (int64_t i = begin; i < end; ++i) {
    T* row = l + i * n;
    row[j] = (row[j] - dot(row + k0, pivot_row, j - k0)) / diagonal;
  }
}

// One matrix in place (l holds A's copy); returns info. `all_threads`: this matrix is the job.
template <typename T>
int64_t factor_matrix(T* l, int64_t n, bool all_threads) {
  const int64_t panel = n >= kGemmFrom ? kPanel : n;
  std::vector<T> scratch;
  int64_t info = 0;
  for (int64_t k0 = 0; k0 < n && info == 0; k0 += panel) {
    const int64_t k1 = std::min(n, k0 + panel), width = k1 - k0;
    // A[k0:, k0:k1] -= L[k0:, :k0] L[k0:k1, :k0]^T (the upper corner of the diagonal block
    // too: never read, zeroed at the end).
    subtract_product<T>(l + k0 * n + k0, n, {l + k0 * n, n - k0, k0, n, 1},
                        {l + k0 * n, k0, width, 1, n}, scratch, all_threads ? 0 : 1);
    for (int64_t j = k0; j < k1; ++j) {
      T* diagonal = l + j * n + j;
      const T pivot = *diagonal - dot(l + j * n + k0, l + j * n + k0, j - k0);
      if (!(pivot > T(0))) {  // <= 0 or NaN: LAPACK's test
        info = j + 1;
        for (int64_t i = j; i < n; ++i)
          std::fill(l + i * n + j, l + i * n + i + 1, std::numeric_limits<T>::quiet_NaN());
        break;
      }
      *diagonal = std::sqrt(pivot);
      const int64_t rows = n - j - 1, cost = std::max<int64_t>(1, j - k0);
      if (all_threads && rows * cost >= 2 * kParallelGrain) {
        parallel_for(rows, std::max<int64_t>(1, kParallelGrain / cost), [&](int64_t b, int64_t e) {
          column_rows(l, n, k0, j, *diagonal, j + 1 + b, j + 1 + e);
        });
      } else {
        column_rows(l, n, k0, j, *diagonal, j + 1, n);
      }
    }
  }
  for (int64_t i = 0; i + 1 < n; ++i) std::fill(l + i * n + i + 1, l + (i + 1) * n, T(0));
  return info;
}

}  // namespace

void cholesky_factor_kernel(const OpCall& call) {
  const Tensor& a = call.in(0);
  const int64_t n = a.size(-1), batch = call.out(1).numel();
  int64_t* info = call.out(1).data_ptr<int64_t>();
  if (n == 0) {
    std::fill(info, info + batch, int64_t{0});
    return;
  }
  WICK_DISPATCH_FLOATING(a.dtype(), {
    T* l = call.out(0).data_ptr<T>();
    std::copy_n(a.data_ptr<T>(), a.numel(), l);
    const int64_t cost = std::max<int64_t>(1, n * n * n / 6);
    parallel_for(batch, std::max<int64_t>(1, kParallelGrain / cost), [&](int64_t b, int64_t e) {
      for (int64_t m = b; m < e; ++m) info[m] = factor_matrix(l + m * n * n, n, batch == 1);
    });
  })
}

}  // namespace wick::cpu
