// lu.cpp: lu_factor and lu_solve on the CPU (core/src/ops_solve.cpp checks and packs).
//  - lu_factor: A [batch, n, n] contiguous float32/float64 -> out(0) LU [batch, n, n] (U on
//    and above the diagonal, L's multipliers below it, L's unit diagonal not stored) and
//    out(1) pivots [batch, n] int64: at step k, row k was swapped with row pivots[k] >= k
//    (LAPACK getrf's rule, 0-based). The row of largest |value| at or below the diagonal is the
//    pivot (the first such row on ties, as LAPACK's i?amax). A zero pivot (the column below is
//    then zeros or NaN) divides nothing, but its column still updates the trailing block, as
//    getrf does: a NaN below it, or an infinity right of it, reaches U (det is then NaN, as
//    LAPACK's), and the singularity is reported by the boundary.
//  - lu_solve: LU, pivots and B [batch, n, k] contiguous -> out(0) X [batch, n, k] with
//    A X = B: B's rows swapped as the pivots say, then L y = P b forward and U x = y back.
// Row-major: the factorisation subtracts multiples of pivot rows from the rows below (contiguous
// axpys that the compiler vectorises, triangular.hpp), a panel of 32 columns at a time so that
// the trailing rows take 32 updates per trip through the cache; the substitutions are
// triangular.hpp's, axpys over B's rows.
// Matrices of a batch split across threads; one large matrix splits its trailing rows
// (factor) or B's columns (solve). 2/3 n^3 flops for the factorisation, 2 n^2 k for a solve.
// Measured against LAPACK (libtorch) in docs/cpu-kernels.md, "Linear algebra".
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"
#include "triangular.hpp"

namespace wick::cpu {
namespace {

// Columns of a panel: the panel's updates stay within kPanel columns of each row, and the
// trailing rows then take kPanel updates each while in L1 (see factor_matrix).
constexpr int64_t kPanel = 32;
// From this n on, the trailing update and the substitutions' blocks left of the diagonal are
// GEMMs (wick's own, kernels/cpu/gemm), which sum each element's kPanel products in their own
// order: below it, the values are bit for bit the unblocked algorithm's (the fuzz model's).
constexpr int64_t kGemmFrom = 128;

// Rows [begin, end) of the trailing block, columns [from, n): the updates of pivot rows
// [k0, k1) that the panel delayed, in pivot order.
template <typename T>
void update_rows(T* lu, int64_t n, int64_t k0, int64_t k1, int64_t from, int64_t begin,
                 int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    T* row = lu + i * n;
    subtract_rows(row + from, lu + k0 * n + from, n, row + k0, 1, k1 - k0, n - from);
  }
}

// One matrix in place, a panel of kPanel columns at a time (LAPACK's getrf, right-looking):
//  1. the panel: for each of its columns, the pivot search over all rows below, the swap of
//     whole rows, the multipliers, and the update of the panel's own later columns only;
//  2. the panel's rows, right of it: the updates of the pivot rows above them in the panel
//     (U12 = L11^-1 A12);
//  3. every row below, right of the panel: A22 -= L21 U12, from kGemmFrom on as one GEMM (all
//     threads when `split_rows`: this matrix is the whole job), below it as kPanel updates per
//     row while the row stays in L1, rows split across threads when `split_rows`.
// Below kGemmFrom each element receives the same updates in the same order as one column at a
// time would give it (the unblocked LU), so the values are bit for bit those of the unblocked
// algorithm; the blocking only moves the trailing block through the cache kPanel times less
// often (the unblocked version streamed it once per column: 0.36 of LAPACK at 256 x 256).
template <typename T>
void factor_matrix(T* lu, int64_t* pivots, int64_t n, bool split_rows) {
  std::vector<T> scratch;
  for (int64_t k0 = 0; k0 < n; k0 += kPanel) {
    const int64_t k1 = std::min(n, k0 + kPanel);
    for (int64_t k = k0; k < k1; ++k) {
      int64_t best = k;
      T best_abs = std::abs(lu[k * n + k]);
      for (int64_t i = k + 1; i < n; ++i) {
        const T v = std::abs(lu[i * n + k]);
        if (v > best_abs) {  // strictly larger: the first row of the largest wins
          best = i;
          best_abs = v;
        }
      }
      pivots[k] = best;
      if (best != k) std::swap_ranges(lu + k * n, lu + (k + 1) * n, lu + best * n);
      const T pivot = lu[k * n + k];
      for (int64_t i = k + 1; i < n; ++i) {
        T* row = lu + i * n;
        if (pivot != T(0)) row[k] /= pivot;  // getrf's rule: a zero pivot divides nothing
        subtract_scaled(row + k + 1, lu + k * n + k + 1, row[k], k1 - k - 1);
      }
    }
    if (k1 == n) break;
    for (int64_t i = k0 + 1; i < k1; ++i) update_rows(lu, n, k0, i, k1, i, i + 1);
    const int64_t rows = n - k1, row_cost = (k1 - k0) * (n - k1);
    if (n >= kGemmFrom) {  // A22 -= L21 U12
      subtract_product<T>(lu + k1 * n + k1, n, {lu + k1 * n + k0, rows, k1 - k0, n, 1},
                          {lu + k0 * n + k1, k1 - k0, n - k1, n, 1}, scratch, split_rows ? 0 : 1);
    } else if (split_rows && rows * row_cost >= 2 * kParallelGrain) {
      parallel_for(rows, std::max<int64_t>(1, kParallelGrain / row_cost),
                   [&](int64_t b, int64_t e) { update_rows(lu, n, k0, k1, k1, k1 + b, k1 + e); });
    } else {
      update_rows(lu, n, k0, k1, k1, k1, n);
    }
  }
}

// Columns [c0, c1) of one right-hand side X [n, k] (B's copy), solved in place: B's rows
// swapped as the pivots say, then L y = P b (L's diagonal is 1) and U x = y.
template <typename T>
void solve_columns(const T* lu, const int64_t* pivots, T* x, int64_t n, int64_t k, int64_t c0,
                   int64_t c1) {
  for (int64_t i = 0; i < n; ++i) {
    if (pivots[i] != i) std::swap_ranges(x + i * k + c0, x + i * k + c1, x + pivots[i] * k + c0);
  }
  solve_lower(lu, n, true, x, n, k, c0, c1);
  solve_upper(lu, n, false, x, n, k, c0, c1);
}

}  // namespace

void lu_factor_kernel(const OpCall& call) {
  const Tensor& a = call.in(0);
  const int64_t n = a.size(-1), batch = n == 0 ? 0 : a.numel() / (n * n);
  int64_t* pivots = call.out(1).data_ptr<int64_t>();
  WICK_DISPATCH_FLOATING(a.dtype(), {
    T* lu = call.out(0).data_ptr<T>();
    std::memcpy(lu, a.data_ptr<T>(), static_cast<size_t>(a.numel()) * sizeof(T));
    const int64_t cost = std::max<int64_t>(1, n * n * n / 3);
    parallel_for(batch, std::max<int64_t>(1, kParallelGrain / cost), [&](int64_t b, int64_t e) {
      for (int64_t m = b; m < e; ++m) factor_matrix(lu + m * n * n, pivots + m * n, n, batch == 1);
    });
  })
}

void lu_solve_kernel(const OpCall& call) {
  const Tensor& lu_tensor = call.in(0);
  const int64_t* pivots = call.in(1).data_ptr<int64_t>();
  const Tensor& b = call.in(2);
  const int64_t n = b.size(-2), k = b.size(-1);
  if (n == 0 || k == 0) return;
  const int64_t batch = b.numel() / (n * k), slabs = (k + kSolveColumns - 1) / kSolveColumns;
  WICK_DISPATCH_FLOATING(b.dtype(), {
    const T* lu = lu_tensor.data_ptr<T>();
    T* x = call.out(0).data_ptr<T>();
    std::memcpy(x, b.data_ptr<T>(), static_cast<size_t>(b.numel()) * sizeof(T));
    const int64_t cost = std::max<int64_t>(1, n * n * std::min(k, kSolveColumns));
    parallel_for(batch * slabs, std::max<int64_t>(1, kParallelGrain / cost),
                 [&](int64_t t0, int64_t t1) {
                   for (int64_t t = t0; t < t1; ++t) {
                     const int64_t m = t / slabs, c0 = (t % slabs) * kSolveColumns;
                     solve_columns(lu + m * n * n, pivots + m * n, x + m * n * k, n, k, c0,
                                   std::min(k, c0 + kSolveColumns));
                   }
                 });
  })
}

}  // namespace wick::cpu
