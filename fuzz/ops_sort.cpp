// ops_sort.cpp: fuzz_ops steps: sort, argsort and topk (and cumsum, below) on pool tensors (empty
// ones with huge dims included), with dims in and out of range, k in and out of [0, n], both
// directions, and bool (which topk refuses). The outcome follows PyTorch's rules as
// core/src/ops_sort.cpp implements them. The values and positions come from a stable sort of each
// line of the reference's own values (NaN above every number, descending reversing only the values'
// order), and must be equal to wick's, not close: the order has no ties. See fuzz_ops.cpp.
#include <algorithm>
#include <numeric>
#include <optional>
#include <tuple>

#include "ops_program.hpp"

namespace wick::fuzz::ops {

void Program::sort_ops() {
  const Tensor* pa = pick();
  if (pa == nullptr) return;
  const Tensor& self = *pa;
  const uint32_t which = in_.below(3);  // sort, argsort, topk
  const int64_t dim = static_cast<int64_t>(in_.below(7)) - 3;
  const bool descending = in_.flag();
  const Ref rs = snapshot(self);
  const auto nd = static_cast<int64_t>(rs.sizes.size());
  bool bad = false;
  const int64_t d = wrap_dim_or(dim, nd, bad);
  const int64_t n = nd == 0 ? 1 : bad ? 0 : rs.sizes[static_cast<size_t>(d)];
  int64_t k = n;
  if (which == 2) {
    const uint32_t form = in_.below(8);
    k = form == 0 ? -1
        : form == 1
            ? (n < INT64_MAX ? n + 1 : n)
            : static_cast<int64_t>(in_.below(static_cast<uint32_t>(std::min<int64_t>(n, 64)) + 1));
    bad = bad || rs.dtype == wick::kBool || k < 0 || k > n;
  }
  Shape out_sizes = rs.sizes;
  if (nd > 0 && !bad) out_sizes[static_cast<size_t>(d)] = k;
  static constexpr const char* kNames[3] = {"sort", "argsort", "topk"};
  g_step = std::string(kNames[which]) + " of " + str(self) + " along " + std::to_string(dim) +
           (which == 2 ? " k " + std::to_string(k) : "") + (descending ? " descending" : "");

  Tensor values, positions;
  if (!outcome(bad ? Expect::Error : Expect::Ok, [&] {
        switch (which) {
          case 0:
            std::tie(values, positions) = wick::sort(self, dim, descending);
            break;
          case 1:
            positions = wick::argsort(self, dim, descending);
            break;
          default:
            std::tie(values, positions) = wick::topk(self, k, dim, descending);
            break;
        }
      })) {
    return;
  }

  // The reference: each line (o, c) of [outer, n, inner], stably sorted. A 0-d tensor is one
  // line of one element, and its topk keeps that element for k = 0 too (as PyTorch's).
  if (nd == 0) k = 1;
  // An empty tensor may have a huge extent elsewhere, whose product would overflow: no lines.
  int64_t outer = 0, inner = 1;
  if (!rs.v.empty()) {
    outer = 1;
    for (int64_t i = 0; i < nd; ++i) {
      if (i < d) outer *= rs.sizes[static_cast<size_t>(i)];
      if (i > d) inner *= rs.sizes[static_cast<size_t>(i)];
    }
  }
  const bool by_double = floating(rs.dtype);
  const auto below = [&](const V& a, const V& b) {
    if (!by_double) return a.i < b.i;
    return a.d < b.d || (std::isnan(b.d) && !std::isnan(a.d));
  };
  Ref want_values{out_sizes, rs.dtype, {}}, want_positions{out_sizes, wick::kInt64, {}};
  want_values.v.resize(rs.v.size() / static_cast<size_t>(std::max<int64_t>(n, 1)) *
                       static_cast<size_t>(k));
  want_positions.v.resize(want_values.v.size());
  std::vector<int64_t> order(static_cast<size_t>(outer > 0 ? n : 0));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < inner; ++c) {
      const auto at = [&](int64_t i) { return rs.v[static_cast<size_t>((o * n + i) * inner + c)]; };
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return descending ? below(at(b), at(a)) : below(at(a), at(b));
      });
      for (int64_t j = 0; j < k; ++j) {
        const auto out = static_cast<size_t>((o * k + j) * inner + c);
        const int64_t from = order[static_cast<size_t>(j)];
        want_values.v[out] = at(from);
        want_positions.v[out].i = from;
        want_positions.v[out].d = static_cast<double>(from);
      }
    }
  }
  expect_equal(positions, want_positions, g_step + ": positions", 0);
  if (which == 1) return;
  expect_equal(values, want_values, g_step + ": values", 0);
  add(values);
}

}  // namespace wick::fuzz::ops

namespace wick::fuzz::ops {

// cumsum with a dim in or out of range and, sometimes, a result dtype (bool is refused). Each
// line's values are cast to the result's dtype and added in order: floats in float64, rounded
// once to the dtype (bfloat16 through float32, as the float32 kernel then the cast do); int64
// wrapping. wick's kernels add in that order, so the values must be equal.
void Program::cumsum_op() {
  const Tensor* pa = pick();
  if (pa == nullptr) return;
  const Tensor& self = *pa;
  const int64_t dim = static_cast<int64_t>(in_.below(7)) - 3;
  std::optional<Dtype> dtype_arg;
  if (in_.below(4) == 0) dtype_arg = dtype();
  const Ref rs = snapshot(self);
  const auto nd = static_cast<int64_t>(rs.sizes.size());
  bool bad = false;
  const int64_t d = wrap_dim_or(dim, nd, bad);
  const Dtype out = dtype_arg ? *dtype_arg : floating(rs.dtype) ? rs.dtype : wick::kInt64;
  bad = bad || out == wick::kBool;
  g_step = "cumsum of " + str(self) + " along " + std::to_string(dim) +
           (dtype_arg ? std::string(" to ") + wick::dtype_name(*dtype_arg) : "");
  Tensor got;
  if (!outcome(bad ? Expect::Error : Expect::Ok,
               [&] { got = wick::cumsum(self, dim, dtype_arg); })) {
    return;
  }
  Ref want{rs.sizes, out, {}};
  want.v.resize(rs.v.size());
  int64_t outer = 0, n = 1, inner = 1;
  if (!rs.v.empty()) {
    outer = 1;
    for (int64_t i = 0; i < nd; ++i) {
      (i < d ? outer : i == d ? n : inner) *= rs.sizes[static_cast<size_t>(i)];
    }
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < inner; ++c) {
      double sum = 0;
      uint64_t isum = 0;
      for (int64_t i = 0; i < n; ++i) {
        const auto at = static_cast<size_t>((o * n + i) * inner + c);
        const V x = cast(rs.v[at], rs.dtype, out);
        V& y = want.v[at];
        if (floating(out)) {
          sum += x.d;
          y.d = round_to(out, sum);
        } else {
          isum += static_cast<uint64_t>(x.i);
          y.i = static_cast<int64_t>(isum);
          y.d = static_cast<double>(y.i);
        }
      }
    }
  }
  expect_equal(got, want, g_step, 0);
  add(got);
}

}  // namespace wick::fuzz::ops
