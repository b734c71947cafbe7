// ops_scan.cpp: fuzz_ops steps: the scans cumsum, cumprod, cummax, cummin and logcumsumexp,
// and prod, on pool tensors (empty ones with huge dims included), with dims in and out of range.
// The outcome follows PyTorch's rules as core/src/ops_scan.cpp implements them; each line is
// walked by the reference in order. See fuzz_ops.cpp.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "ops_program.hpp"

namespace wick::fuzz::ops {

// cumsum, cumprod and prod with a dim in or out of range (prod: or over everything, kept or
// not) and, sometimes, a result dtype (bool is refused, except by prod, where it means "every
// element nonzero"). Each line's values are cast to the result's dtype and combined as the
// kernels combine them: scans in order, prod of a row (inner == 1: the last dim, or
// everything) in kernels/cpu/prod.cpp's 32 lanes and fixed tree, of a column in order;
// floats in float64, rounded once to the dtype (bfloat16 through float32, as the float32
// kernel then the cast do); int64 wrapping. So the values must be equal.
void Program::scan_op() {
  const Tensor* pa = pick();
  if (pa == nullptr) return;
  const Tensor& self = *pa;
  enum Kind { kCumsum, kCumprod, kProd };
  const auto kind = static_cast<Kind>(in_.below(3));
  const int64_t dim = static_cast<int64_t>(in_.below(8)) - 3;  // prod: 4 means everything
  const bool keepdim = in_.below(2) == 1;
  std::optional<Dtype> dtype_arg;
  if (in_.below(4) == 0) dtype_arg = dtype();
  const Ref rs = snapshot(self);
  const auto nd = static_cast<int64_t>(rs.sizes.size());
  const bool over_all = kind == kProd && dim == 4;
  bool bad = false;
  const int64_t d = over_all ? 0 : wrap_dim_or(dim, nd, bad);
  const bool to_bool = dtype_arg == wick::kBool;
  const Dtype out = to_bool              ? wick::kInt64  // as 0 and 1, then cast
                    : dtype_arg          ? *dtype_arg
                    : floating(rs.dtype) ? rs.dtype
                                         : wick::kInt64;
  bad = bad || (to_bool && kind != kProd);
  static const char* const kNames[] = {"cumsum", "cumprod", "prod"};
  g_step = std::string(kNames[kind]) + " of " + str(self) +
           (over_all ? std::string(" over everything") : " along " + std::to_string(dim)) +
           (dtype_arg ? std::string(" to ") + wick::dtype_name(*dtype_arg) : "") +
           (kind == kProd && keepdim ? " keepdim" : "");
  const LineSplit lines_of = line_split(rs.sizes, d, over_all);
  const int64_t outer = lines_of.outer, n = lines_of.n, inner = lines_of.inner;
  // The product of [0, 3037000500] over dim 0: billions of ones, too big to run.
  int64_t outputs = 0;
  if (kind == kProd && !bad &&
      (__builtin_mul_overflow(outer, inner, &outputs) || outputs > kMaxElems)) {
    return;
  }
  Tensor got;
  if (!outcome(bad ? Expect::Error : Expect::Ok, [&] {
        switch (kind) {
          case kCumsum:
            got = wick::cumsum(self, dim, dtype_arg);
            break;
          case kCumprod:
            got = wick::cumprod(self, dim, dtype_arg);
            break;
          case kProd:
            got =
                over_all ? wick::prod(self, dtype_arg) : wick::prod(self, dim, keepdim, dtype_arg);
            break;
        }
      })) {
    return;
  }
  auto value_of = [&](int64_t o, int64_t i, int64_t c) {
    const V x = cast(rs.v[static_cast<size_t>((o * n + i) * inner + c)], rs.dtype,
                     to_bool ? wick::kBool : out);
    return to_bool ? cast(x, wick::kBool, wick::kInt64) : x;
  };
  struct Acc {
    double d;
    uint64_t i;
  };
  auto combine = [&](Acc a, const V& x) {
    if (kind == kCumsum) return Acc{a.d + x.d, a.i + static_cast<uint64_t>(x.i)};
    return Acc{a.d * x.d, a.i * static_cast<uint64_t>(x.i)};
  };
  auto result = [&](Acc a) {
    V y;
    if (floating(out)) {
      y.d = round_to(out, a.d);
    } else {
      y.i = static_cast<int64_t>(a.i);
      y.d = static_cast<double>(y.i);
    }
    return y;
  };
  const Acc identity = kind == kCumsum ? Acc{0, 0} : Acc{1, 1};
  Ref want{rs.sizes, out, {}};
  if (kind != kProd) {
    want.v.resize(rs.v.size());
    for (int64_t o = 0; o < outer && !rs.v.empty(); ++o) {
      for (int64_t c = 0; c < inner; ++c) {
        Acc a = identity;
        for (int64_t i = 0; i < n; ++i) {
          a = combine(a, value_of(o, i, c));
          want.v[static_cast<size_t>((o * n + i) * inner + c)] = result(a);
        }
      }
    }
  } else {
    want.sizes = Shape{};
    for (int64_t i = 0; i < nd && !over_all; ++i) {
      if (i != d) {
        want.sizes.push_back(rs.sizes[static_cast<size_t>(i)]);
      } else if (keepdim) {
        want.sizes.push_back(1);
      }
    }
    // outputs == 0 with a huge outer (e.g. [3037000500, 0] along dim 1): nothing to walk.
    for (int64_t o = 0; o < outer && outputs > 0; ++o) {
      for (int64_t c = 0; c < inner; ++c) {
        Acc a = identity;
        if (inner == 1 && n <= 16384) {
          // One block: element i into lane i % 32, then (0 1) (2 3) ... (30 31) and up.
          constexpr int kLanes = 32;
          std::vector<Acc> lane(kLanes, identity);
          for (int64_t i = 0; i < n; ++i) {
            lane[static_cast<size_t>(i % kLanes)] =
                combine(lane[static_cast<size_t>(i % kLanes)], value_of(o, i, c));
          }
          for (int width = 1; width < kLanes; width *= 2) {
            for (int k = 0; k < kLanes; k += 2 * width) {
              lane[k] = Acc{lane[k].d * lane[k + width].d, lane[k].i * lane[k + width].i};
            }
          }
          a = lane[0];
        } else {
          for (int64_t i = 0; i < n; ++i) a = combine(a, value_of(o, i, c));
        }
        want.v.push_back(result(a));
      }
    }
    if (to_bool) {
      want.dtype = wick::kBool;
      for (V& v : want.v) v = cast(v, wick::kInt64, wick::kBool);
    }
  }
  const bool rows_beyond_one_block = kind == kProd && inner == 1 && n > 16384;
  expect_equal(got, want, g_step, rows_beyond_one_block ? 64 : 0);
  add(got);
}

// cummax, cummin and logcumsumexp with a dim in or out of range. The reference walks each line
// in order: a value at least as large (small) as the extreme so far, or any NaN, takes over with
// its position (values and positions equal); logcumsumexp adds each element as
// max + log1p(exp(min - max)) in float64 (-inf adding nothing, +inf absorbing, NaN spreading),
// rounded once to the dtype, within 2 ulps. logcumsumexp refuses bool and int64.
void Program::running_op() {
  const Tensor* pa = pick();
  if (pa == nullptr) return;
  const Tensor& self = *pa;
  enum Kind { kCummax, kCummin, kLogcumsumexp };
  const auto kind = static_cast<Kind>(in_.below(3));
  const int64_t dim = static_cast<int64_t>(in_.below(7)) - 3;
  const Ref rs = snapshot(self);
  const auto nd = static_cast<int64_t>(rs.sizes.size());
  bool bad = kind == kLogcumsumexp && !floating(rs.dtype);
  const int64_t d = wrap_dim_or(dim, nd, bad);
  static const char* const kNames[] = {"cummax", "cummin", "logcumsumexp"};
  g_step = std::string(kNames[kind]) + " of " + str(self) + " along " + std::to_string(dim);
  Tensor values, indices;
  if (!outcome(bad ? Expect::Error : Expect::Ok, [&] {
        if (kind == kLogcumsumexp) {
          values = wick::logcumsumexp(self, dim);
        } else {
          std::tie(values, indices) =
              kind == kCummax ? wick::cummax(self, dim) : wick::cummin(self, dim);
        }
      })) {
    return;
  }
  const LineSplit lines_of = line_split(rs.sizes, d, false);
  const int64_t outer = lines_of.outer, n = lines_of.n, inner = lines_of.inner;
  Ref want_values{rs.sizes, rs.dtype, std::vector<V>(rs.v.size())};
  Ref want_indices{rs.sizes, wick::kInt64, std::vector<V>(rs.v.size())};
  const bool integral = !floating(rs.dtype);
  for (int64_t o = 0; o < outer && !rs.v.empty(); ++o) {
    for (int64_t c = 0; c < inner; ++c) {
      V best;
      int64_t best_at = -1;
      double total = -INFINITY;
      for (int64_t i = 0; i < n; ++i) {
        const auto at = static_cast<size_t>((o * n + i) * inner + c);
        const V x = rs.v[at];
        if (kind == kLogcumsumexp) {
          const double hi = std::fmax(total, x.d), lo = std::fmin(total, x.d);
          if (std::isnan(total) || std::isnan(x.d)) {
            total = NAN;
          } else if (lo != -INFINITY && hi != INFINITY) {
            total = hi + std::log1p(std::exp(lo - hi));
          } else {
            total = hi;
          }
          want_values.v[at].d = round_to(rs.dtype, total);
          continue;
        }
        const bool takes = [&] {
          if (best_at < 0) return true;
          if (integral) return kind == kCummax ? x.i >= best.i : x.i <= best.i;
          return std::isnan(x.d) || (kind == kCummax ? x.d >= best.d : x.d <= best.d);
        }();
        if (takes) {
          best = x;
          best_at = i;
        }
        want_values.v[at] = best;
        want_indices.v[at].i = best_at;
        want_indices.v[at].d = static_cast<double>(best_at);
      }
    }
  }
  if (kind == kLogcumsumexp) {
    expect_equal(values, want_values, g_step, 2);
  } else {
    expect_equal(indices, want_indices, g_step + ": positions", 0);
    expect_equal(values, want_values, g_step + ": values", 0);
  }
  add(values);
}

}  // namespace wick::fuzz::ops
