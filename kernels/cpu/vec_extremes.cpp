// vec_extremes.cpp: max and min of vec_kernels.hpp with PyTorch's rules (a NaN wins and
// stays, a tie keeps the earlier element): rows folded into running extremes over outer dims
// (fold_extreme_*), the first extreme of a run with its index (extreme_*), and its value alone
// (extreme_value_*: amax, amin). Built as vec_kernels.cpp is (-fno-trapping-math,
// -ffp-contract=off, WICK_VEC_CLONES).
#include <cstdint>
#include <type_traits>

#include "vec_clones.hpp"
#include "vec_kernels.hpp"

namespace wick::cpu::vec {

namespace {
// Selects, not branches (bitwise & and | on the compares, no short circuit), so that each
// clone vectorises the loop: it replaced a per-element call with two isnan branches, 8.5x
// slower than libtorch's amax over dim 0 (docs/cpu-kernels.md).
template <typename T, bool kMax, bool kIndex>
inline void fold_extreme(T* best, int64_t* best_index, const T* row, int64_t row_index, int64_t n) {
  for (int64_t j = 0; j < n; ++j) {
    const T c = row[j], b = best[j];
    // c wins where it is larger (smaller), or a NaN, and b is not a NaN: `!(c <= b)` is true
    // for a NaN on either side. Two compares where `(c > b) | ((c != c) & (b == b))` took three.
    const bool beats_or_nan = kMax ? !(c <= b) : !(c >= b);
    const bool take = beats_or_nan & (b == b);
    best[j] = take ? c : b;
    if constexpr (kIndex) best_index[j] = take ? row_index : best_index[j];
  }
}
template <typename T>
inline void fold_extreme_any(T* best, int64_t* best_index, const T* row, int64_t row_index,
                             int64_t n, bool is_max) {
  if (best_index == nullptr) {
    is_max ? fold_extreme<T, true, false>(best, nullptr, row, row_index, n)
           : fold_extreme<T, false, false>(best, nullptr, row, row_index, n);
  } else {
    is_max ? fold_extreme<T, true, true>(best, best_index, row, row_index, n)
           : fold_extreme<T, false, true>(best, best_index, row, row_index, n);
  }
}
}  // namespace

WICK_VEC_CLONES void fold_extreme_f32(float* best, int64_t* best_index, const float* row,
                                      int64_t row_index, int64_t n, bool is_max) {
  fold_extreme_any(best, best_index, row, row_index, n, is_max);
}
WICK_VEC_CLONES void fold_extreme_f64(double* best, int64_t* best_index, const double* row,
                                      int64_t row_index, int64_t n, bool is_max) {
  fold_extreme_any(best, best_index, row, row_index, n, is_max);
}

namespace {
// The first extreme of a contiguous run: blocks of L elements folded into L lanes by
// fold_extreme (a NaN is taken over a number and stays; a tie keeps the earlier block), each
// lane remembering the block it took its value from; then the lanes combined by the same rule,
// the lower element index winning ties, and the tail walked. The answer is the scalar walk's:
// the first NaN if any, else the first of the extreme values.
template <typename T, bool kMax>
inline bool replaces(T candidate, T best) {
  return (kMax ? !(candidate <= best) : !(candidate >= best)) && best == best;  // as fold_extreme
}
// Inlined by force: out of line, it was compiled for the baseline target, not the clones (SSE2
// selects of 64-bit indices: 3.4 ms for max over the rows of a [1024, 1024]).
template <typename T, int L, bool kMax>
[[gnu::always_inline]] inline int64_t extreme_index(const T* x, int64_t n, T* value) {
  int64_t at = 0;
  int64_t i = 1;
  *value = x[0];
  if (n >= 2 * L) {
    T best[L];
    int64_t block[L];
#pragma GCC unroll 64
    for (int j = 0; j < L; ++j) {
      best[j] = x[j];
      block[j] = 0;  // not `= {}`: see dot2_lanes
    }
    int64_t b = 1;
    for (; (b + 1) * L <= n; ++b) fold_extreme<T, kMax, true>(best, block, x + b * L, b, L);
    *value = best[0];
    at = block[0] * L;
    for (int j = 1; j < L; ++j) {
      const int64_t index = block[j] * L + j;
      const bool both_nan = best[j] != best[j] && *value != *value;
      if (replaces<T, kMax>(best[j], *value) || ((best[j] == *value || both_nan) && index < at)) {
        *value = best[j];
        at = index;
      }
    }
    i = b * L;  // the tail comes after every lane's elements
  }
  for (; i < n; ++i) {
    if (replaces<T, kMax>(x[i], *value)) {
      *value = x[i];
      at = i;
    }
  }
  return at;
}

// extreme_index's value without the index (amax, amin, max of everything): the lanes keep no
// block numbers, and NaNs are only noted, so the loop is a max (or min) and a NaN test per
// vector. Only a NaN's payload and a zero's sign depend on which of equal candidates comes
// first: where there is a NaN or the result is a zero (and for short runs), this returns false
// and extreme_f32 or extreme_f64 decides, so the bits always match theirs. Called, not
// inlined: with extreme_index inlined here too, amax over the rows of a [1024, 1024] took 25%
// longer, and rows of 10 10% longer.
template <typename T, int L, bool kMax>
[[gnu::always_inline]] inline bool extreme_value_lanes(const T* x, int64_t n, T* value) {
  using Bits = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;  // a lane's NaN flag
  static_assert(2 * L <= kExtremeValueMinRun);
  if (n < kExtremeValueMinRun) return false;
  T best[L];
  Bits nan_seen[L];
#pragma GCC unroll 64
  for (int j = 0; j < L; ++j) {
    best[j] = x[j];
    nan_seen[j] = x[j] != x[j] ? Bits(-1) : Bits(0);
  }
  int64_t i = L;
  for (; i + L <= n; i += L) {
    for (int j = 0; j < L; ++j) {
      const T c = x[i + j];
      best[j] = (kMax ? c > best[j] : c < best[j]) ? c : best[j];
      nan_seen[j] |= c != c ? Bits(-1) : Bits(0);
    }
  }
  Bits any_nan = 0;
  for (int j = 0; j < L; ++j) any_nan |= nan_seen[j];
  if (any_nan != 0) return false;
#pragma GCC unroll 8
  // The lanes halved in vectors: a scalar walk over them took as long as the blocks of a
  // 1024-element row. Unrolled, so that each step has a fixed width (GCC otherwise kept the
  // width a variable and ran most steps in its scalar epilogue).
  for (int width = L / 2; width > 0; width /= 2) {
    for (int j = 0; j < width; ++j) {
      const T c = best[j + width];
      best[j] = (kMax ? c > best[j] : c < best[j]) ? c : best[j];
    }
  }
  T v = best[0];
  for (; i < n; ++i) v = replaces<T, kMax>(x[i], v) ? x[i] : v;
  *value = v;
  return v == v && v != T(0);
}
}  // namespace

WICK_VEC_CLONES float extreme_value_f32(const float* x, int64_t n, bool is_max) {
  float value;
  if (is_max ? extreme_value_lanes<float, 32, true>(x, n, &value)
             : extreme_value_lanes<float, 32, false>(x, n, &value)) {
    return value;
  }
  extreme_f32(x, n, is_max, &value);
  return value;
}
WICK_VEC_CLONES double extreme_value_f64(const double* x, int64_t n, bool is_max) {
  double value;
  if (is_max ? extreme_value_lanes<double, 16, true>(x, n, &value)
             : extreme_value_lanes<double, 16, false>(x, n, &value)) {
    return value;
  }
  extreme_f64(x, n, is_max, &value);
  return value;
}
WICK_VEC_CLONES int64_t extreme_f32(const float* x, int64_t n, bool is_max, float* value) {
  return is_max ? extreme_index<float, 64, true>(x, n, value)
                : extreme_index<float, 64, false>(x, n, value);
}
WICK_VEC_CLONES int64_t extreme_f64(const double* x, int64_t n, bool is_max, double* value) {
  return is_max ? extreme_index<double, 32, true>(x, n, value)
                : extreme_index<double, 32, false>(x, n, value);
}

}  // namespace wick::cpu::vec
