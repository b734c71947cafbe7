// layer_norm.cpp: layer_norm and layer_norm_backward on the CPU, a row of N =
// prod(normalized_shape) elements at a time (the boundary, core/src/ops_norm.cpp, made every
// operand contiguous, so row r starts at r * N).
//
// Forward, per row: mean = sum(x) / N (wick's float sum, in double), var = sum((x - mean)^2) / N
// (a second pass in double: no E[x^2] - mean^2 cancellation), rstd = 1 / sqrt(var + eps), then
// y = ((x - hi) - lo) * rstd * w + b in the element type, where hi + lo is the double mean
// split into two floats. A float32 mean rounded to one float would shift every xhat of a row
// whose mean is large against its spread (mean 1000, std 0.01: a relative error near 6e-3);
// each of the two subtractions rounds relative to its own result instead. In double, the
// whole output pass took 430-480 us for [1024, 1024] on one Zen 4 thread; in float, 300-330.
//
// Backward, per row: the same statistics, xhat and gw = g * w in the element type, gw centred
// as (gw - hi) - lo on its own mean, then
//   dx = rstd * (gw_c - xhat * mean(gw_c * xhat))
// (PyTorch's formula, rearranged since sum(xhat) = 0; the means are float sums in double),
// and the column sums d weight =
// sum over rows of g * xhat (xhat in double there: the column sums cancel) and d bias = sum
// of g. Those run per block of rows, the rows split by their count alone (never by the thread
// count), each block into its own double accumulators, added in block order at the end: the
// same bits for any number of threads.
//
// The row loops are compiled three times (WICK_VEC_CLONES; -ffp-contract=off keeps the clones'
// rounding equal): sums over a row keep kLanes double lanes, folded in a fixed order, which is
// what lets the compiler vectorise a floating-point sum.
// Tested by tests/test_layer_norm.cpp against a float64 model; measured against libtorch in
// docs/cpu-kernels.md ("layer_norm").
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"
#include "vec_clones.hpp"
#include "vec_kernels.hpp"

namespace wick::cpu {
namespace {

constexpr int kLanes = 32;
// d weight / d bias: at most this many blocks of rows, and at most this many bytes of double
// accumulators for all blocks together (2 N doubles per block).
constexpr int64_t kMaxParamBlocks = 64;
constexpr int64_t kMaxParamBytes = int64_t{16} << 20;

// sum over i < n of term(i), in kLanes double lanes (lane j takes i = j mod kLanes), the lanes
// added pairwise at the end.
template <typename Term>
[[gnu::always_inline]] inline double lane_sum(int64_t n, const Term& term) {
  double lane[kLanes];
#pragma GCC unroll 16
  for (int j = 0; j < kLanes; ++j) lane[j] = 0.0;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    // Not unrolled by hand: GCC's loop vectoriser then turns the lanes into vectors; unrolled,
    // its basic-block vectoriser converted the floats one at a time (backward: 2.4x slower).
    for (int j = 0; j < kLanes; ++j) lane[j] += term(i + j);
  }
  for (int j = 0; i < n; ++i, ++j) lane[j] += term(i);
  for (int width = kLanes / 2; width > 0; width /= 2) {
    for (int j = 0; j < width; ++j) lane[j] += lane[j + width];
  }
  return lane[0];
}

inline double row_sum(const float* x, int64_t n) { return vec::sum_f32(x, n); }
inline double row_sum(const double* x, int64_t n) { return vec::sum_f64(x, n); }

struct RowStats {
  double mean, rstd;
  double spread;  // sqrt(sum((x - mean)^2)): no |x - mean| of the row exceeds it
};

template <typename T>
[[gnu::always_inline]] inline RowStats row_stats(const T* x, int64_t n, double eps) {
  const double mean = row_sum(x, n) / static_cast<double>(n);
  const double squares = lane_sum(n, [&](int64_t i) {
    const double d = static_cast<double>(x[i]) - mean;
    return d * d;
  });
  return {mean, 1.0 / std::sqrt(squares / static_cast<double>(n) + eps), std::sqrt(squares)};
}

// Whether the row's xhat can be computed in T as ((x - hi) - lo) * rstd without overflow:
// |x - hi| <= spread + |mean| + an ulp, and rstd itself fits as a normal float. Rows near float32's
// range (or a tiny variance with a tinier eps, or NaN) take xhat in double instead. Always true for
// double.
template <typename T>
[[gnu::always_inline]] inline bool fits(const RowStats& s) {
  if constexpr (std::is_same_v<T, double>) return true;
  constexpr double kLimit = 1e37;  // float32's max is 3.4e38
  // (rstd above 1e-30 too: a huge eps would make float(rstd) subnormal or 0.)
  return std::fabs(s.mean) + s.spread < kLimit && s.rstd < kLimit && s.rstd > 1e-30;
}

// xhat of row x in T, rounded from double (the slow form, for rows that do not fit).
template <typename T>
[[gnu::always_inline]] inline T xhat_exact(const T* x, int64_t i, const RowStats& s) {
  return static_cast<T>((static_cast<double>(x[i]) - s.mean) * s.rstd);
}

// y = xhat * w + b over `rows` rows; w and b may be null.
template <typename T>
[[gnu::always_inline]] inline void forward_rows_impl(const T* x, const T* w, const T* b, T* y,
                                                     int64_t rows, int64_t n, double eps) {
  for (int64_t r = 0; r < rows; ++r, x += n, y += n) {
    const RowStats s = row_stats(x, n, eps);
    // x - mean in T as (x - hi) - lo, hi + lo = the double mean: each subtraction rounds
    // relative to its own result, so no rounding of the mean shifts a row with a large mean.
    const T hi = static_cast<T>(s.mean), lo = static_cast<T>(s.mean - static_cast<double>(hi));
    const T rstd = static_cast<T>(s.rstd);
    if (!fits<T>(s)) {
      for (int64_t i = 0; i < n; ++i) {
        T v = xhat_exact(x, i, s);
        if (w != nullptr) v = v * w[i];
        if (b != nullptr) v = v + b[i];
        y[i] = v;
      }
      continue;
    }
    const auto xhat = [&](int64_t i) { return ((x[i] - hi) - lo) * rstd; };
    if (w != nullptr && b != nullptr) {
      for (int64_t i = 0; i < n; ++i) y[i] = xhat(i) * w[i] + b[i];
    } else if (w != nullptr) {
      for (int64_t i = 0; i < n; ++i) y[i] = xhat(i) * w[i];
    } else if (b != nullptr) {
      for (int64_t i = 0; i < n; ++i) y[i] = xhat(i) + b[i];
    } else {
      for (int64_t i = 0; i < n; ++i) y[i] = xhat(i);
    }
  }
}

WICK_VEC_CLONES void forward_rows(const float* x, const float* w, const float* b, float* y,
                                  int64_t rows, int64_t n, double eps) {
  forward_rows_impl(x, w, b, y, rows, n, eps);
}
WICK_VEC_CLONES void forward_rows(const double* x, const double* w, const double* b, double* y,
                                  int64_t rows, int64_t n, double eps) {
  forward_rows_impl(x, w, b, y, rows, n, eps);
}

// One block of rows of the backward: dx (where dx is not null) and, where sums is not null,
// sums[i] += g * xhat and sums[n + i] += g for each column i. scratch: 3 n elements. The
// elementwise work runs in T, as the forward's output (xhat from (x - hi) - lo), and the row's
// two dot products are sums of products stored in scratch (wick's float sums, in double): a
// loop keeping both sums in double lanes was vectorised in only some clones, and doing every
// element in double took 1.1-1.6 ms for dx of [1024, 1024] on one Zen 4 thread.
template <typename T, bool kWeight>
[[gnu::always_inline]] inline void backward_rows_impl(const T* g, const T* x, const T* w, T* dx,
                                                      double* sums, T* scratch, int64_t rows,
                                                      int64_t n, double eps) {
  const double inv_n = 1.0 / static_cast<double>(n);
  T* xhat = scratch;
  T* gw = scratch + n;  // g * w
  T* gw_xhat = scratch + 2 * n;
  for (int64_t r = 0; r < rows; ++r, g += n, x += n) {
    const RowStats s = row_stats(x, n, eps);
    const T hi = static_cast<T>(s.mean), lo = static_cast<T>(s.mean - static_cast<double>(hi));
    const T rstd = static_cast<T>(s.rstd);
    if (dx != nullptr) {
      if (fits<T>(s)) {
        for (int64_t i = 0; i < n; ++i) xhat[i] = ((x[i] - hi) - lo) * rstd;
      } else {
        for (int64_t i = 0; i < n; ++i) xhat[i] = xhat_exact(x, i, s);
      }
      for (int64_t i = 0; i < n; ++i) {
        T v = g[i];
        if constexpr (kWeight) v = v * w[i];
        gw[i] = v;
      }
      // gw centred first, its mean split in two as the forward's: with a large common offset
      // (g near 1000, spread 0.01) one float for the mean shifted every dx, and the products
      // gw * xhat, each rounded at the offset's scale, left mean(gw xhat) (a small difference of
      // large terms) off by 3e-5 of dx. sum(xhat) = 0, so the centred products have the same
      // mean in exact arithmetic.
      const double mean_gw = row_sum(gw, n) * inv_n;
      const auto gw_hi = static_cast<T>(mean_gw);
      const auto gw_lo = static_cast<T>(mean_gw - static_cast<double>(gw_hi));
      for (int64_t i = 0; i < n; ++i) {
        gw[i] = (gw[i] - gw_hi) - gw_lo;
        gw_xhat[i] = gw[i] * xhat[i];
      }
      const auto mean_gw_xhat = static_cast<T>(row_sum(gw_xhat, n) * inv_n);
      for (int64_t i = 0; i < n; ++i) dx[i] = rstd * (gw[i] - xhat[i] * mean_gw_xhat);
      dx += n;
    }
    if (sums != nullptr) {
      // xhat again in double here: these column sums cancel over many rows, and float32
      // products put errors near 5e-6 into a d weight of 0.02 (1029 rows).
      for (int64_t i = 0; i < n; ++i) {
        const double xhat_exact = (static_cast<double>(x[i]) - s.mean) * s.rstd;
        sums[i] += static_cast<double>(g[i]) * xhat_exact;
        sums[n + i] += static_cast<double>(g[i]);
      }
    }
  }
}

template <typename T>
[[gnu::always_inline]] inline void backward_rows_any(const T* g, const T* x, const T* w, T* dx,
                                                     double* sums, T* scratch, int64_t rows,
                                                     int64_t n, double eps) {
  if (w != nullptr) {
    backward_rows_impl<T, true>(g, x, w, dx, sums, scratch, rows, n, eps);
  } else {
    backward_rows_impl<T, false>(g, x, w, dx, sums, scratch, rows, n, eps);
  }
}

WICK_VEC_CLONES void backward_rows(const float* g, const float* x, const float* w, float* dx,
                                   double* sums, float* scratch, int64_t rows, int64_t n,
                                   double eps) {
  backward_rows_any(g, x, w, dx, sums, scratch, rows, n, eps);
}
WICK_VEC_CLONES void backward_rows(const double* g, const double* x, const double* w, double* dx,
                                   double* sums, double* scratch, int64_t rows, int64_t n,
                                   double eps) {
  backward_rows_any(g, x, w, dx, sums, scratch, rows, n, eps);
}

template <typename T>
const T* optional_data(const OpCall& call, int index, bool present) {
  return present ? call.in(index).data_ptr<T>() : nullptr;
}

template <typename T>
void run_forward(const OpCall& call) {
  const Tensor& x = call.in(0);
  const int64_t normalized_dims = call.ints[0];
  const bool has_weight = call.ints[1] != 0, has_bias = call.ints[2] != 0;
  int64_t n = 1;
  for (int64_t d = x.dim() - normalized_dims; d < x.dim(); ++d) n *= x.size(d);
  const int64_t rows = x.numel() / n;
  const T* src = x.data_ptr<T>();
  const T* w = optional_data<T>(call, 1, has_weight);
  const T* b = optional_data<T>(call, has_weight ? 2 : 1, has_bias);
  T* dst = call.out().data_ptr<T>();
  const double eps = call.scalar_a.to_double();
  parallel_for(rows, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t r0, int64_t r1) {
    forward_rows(src + r0 * n, w, b, dst + r0 * n, r1 - r0, n, eps);
  });
}

template <typename T>
void run_backward(const OpCall& call) {
  const Tensor& x = call.in(1);
  const int64_t normalized_dims = call.ints[0];
  const bool has_weight = call.ints[1] != 0;
  const bool want_input = call.ints[2] != 0, want_params = call.ints[3] != 0;
  int64_t n = 1;
  for (int64_t d = x.dim() - normalized_dims; d < x.dim(); ++d) n *= x.size(d);
  const int64_t rows = x.numel() / n;
  const T* g = call.in(0).data_ptr<T>();
  const T* src = x.data_ptr<T>();
  const T* w = optional_data<T>(call, 2, has_weight);
  T* dx = want_input ? call.out(0).data_ptr<T>() : nullptr;
  const double eps = call.scalar_a.to_double();
  if (!want_params) {
    parallel_for(rows, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t r0, int64_t r1) {
      std::vector<T> scratch(static_cast<size_t>(3 * n));
      backward_rows(g + r0 * n, src + r0 * n, w, dx + r0 * n, nullptr, scratch.data(), r1 - r0, n,
                    eps);
    });
    return;
  }
  // Blocks of rows fixed by rows and n alone; each block sums into its own accumulators.
  const int64_t by_memory = std::max<int64_t>(1, kMaxParamBytes / (2 * n * 8));
  const int64_t blocks = std::min({rows, kMaxParamBlocks, by_memory});
  std::vector<double> sums(static_cast<size_t>(blocks * 2 * n), 0.0);
  parallel_for(blocks, 1, [&](int64_t b0, int64_t b1) {
    std::vector<T> scratch(static_cast<size_t>(3 * n));
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t r0 = rows * blk / blocks, r1 = rows * (blk + 1) / blocks;
      backward_rows(g + r0 * n, src + r0 * n, w, dx != nullptr ? dx + r0 * n : nullptr,
                    sums.data() + blk * 2 * n, scratch.data(), r1 - r0, n, eps);
    }
  });
  T* d_params = call.out(1).data_ptr<T>();  // [2, n]: d weight, then d bias
  // Blocks added in block order for every column; columns split across threads.
  parallel_for(2 * n, kParallelGrain / blocks + 1, [&](int64_t i0, int64_t i1) {
    for (int64_t blk = 1; blk < blocks; ++blk) {
      const double* part = sums.data() + blk * 2 * n;
      for (int64_t i = i0; i < i1; ++i) sums[static_cast<size_t>(i)] += part[i];
    }
    for (int64_t i = i0; i < i1; ++i) d_params[i] = static_cast<T>(sums[static_cast<size_t>(i)]);
  });
}

}  // namespace

void layer_norm_kernel(const OpCall& call) {
  WICK_DISPATCH_FLOATING(call.in(0).dtype(), run_forward<T>(call))
}

void layer_norm_backward_kernel(const OpCall& call) {
  WICK_DISPATCH_FLOATING(call.in(1).dtype(), run_backward<T>(call))
}

}  // namespace wick::cpu
