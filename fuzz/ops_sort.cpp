// ops_sort.cpp: fuzz_ops steps: sort, argsort and topk (and, below, kthvalue, median and
// nanmedian) on pool tensors (empty ones with huge dims included), with dims in and out of range,
// k in and out of [0, n], both directions, and bool (which topk refuses). The outcome follows
// PyTorch's rules as core/src/ops_sort.cpp implements them. The values and positions come from a
// stable sort of each line of the reference's own values (NaN above every number, descending
// reversing only the values' order), and must be equal to wick's, not close: the order has no
// ties. See fuzz_ops.cpp. The scans and prod are in ops_scan.cpp.
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

// kthvalue (k in and out of [1, n]), median and nanmedian over a dim (in or out of range) or,
// for median and nanmedian, over everything. The reference sorts each line stably (NaN above
// every number) and picks: the k-th; median: the line's first NaN if it has one, else the
// ((n - 1) / 2 + 1)-th; nanmedian: the lower median of the numbers (the first NaN for a line
// of NaNs). Values and positions must be equal. bool is refused, as is a zero-size line (but
// the median of no elements at all is NaN, for floats).
void Program::order_stats_op() {
  const Tensor* pa = pick();
  if (pa == nullptr) return;
  const Tensor& self = *pa;
  enum Which { kKth, kMedian, kNanmedian };
  const auto which = static_cast<Which>(in_.below(3));
  const int64_t dim = static_cast<int64_t>(in_.below(8)) - 3;  // 4: everything (medians)
  const bool keepdim = in_.flag();
  const Ref rs = snapshot(self);
  const auto nd = static_cast<int64_t>(rs.sizes.size());
  const bool over_all = which != kKth && dim == 4;
  bool bad = rs.dtype == wick::kBool;
  const int64_t d = over_all ? 0 : wrap_dim_or(dim, nd, bad);
  const LineSplit lines_of = line_split(rs.sizes, d, over_all);
  const int64_t outer = lines_of.outer, n = lines_of.n, inner = lines_of.inner;
  int64_t k = 1;
  if (which == kKth) {
    const uint32_t form = in_.below(4);
    k = form == 0 ? 0
        : form == 1 && n < INT64_MAX
            ? n + 1
            : 1 + in_.below(static_cast<uint32_t>(std::min<int64_t>(n, 64)) + 1);
    bad = bad || k < 1 || k > n;
  } else if (over_all) {
    bad = bad || (n == 0 && !floating(rs.dtype));
  } else {
    bad = bad || n == 0;
  }
  static const char* const kNames[] = {"kthvalue", "median", "nanmedian"};
  g_step = std::string(kNames[which]) + " of " + str(self) +
           (over_all ? std::string(" over everything") : " along " + std::to_string(dim)) +
           (which == kKth ? " k " + std::to_string(k) : "") + (keepdim ? " keepdim" : "");
  // Too many lines to walk (an empty line's extent elsewhere is huge): refused anyway, or the
  // outputs are empty; only run what the reference can follow.
  int64_t lines = 0;
  if (!bad && (__builtin_mul_overflow(outer, inner, &lines) || lines > kMaxElems)) return;
  Tensor values, positions;
  if (!outcome(bad ? Expect::Error : Expect::Ok, [&] {
        switch (which) {
          case kKth:
            std::tie(values, positions) = wick::kthvalue(self, k, dim, keepdim);
            break;
          case kMedian:
            if (over_all) {
              values = wick::median(self);
            } else {
              std::tie(values, positions) = wick::median(self, dim, keepdim);
            }
            break;
          case kNanmedian:
            if (over_all) {
              values = wick::nanmedian(self);
            } else {
              std::tie(values, positions) = wick::nanmedian(self, dim, keepdim);
            }
            break;
        }
      })) {
    return;
  }
  Shape out_sizes;
  for (int64_t i = 0; i < nd && !over_all; ++i) {
    if (i != d) {
      out_sizes.push_back(rs.sizes[static_cast<size_t>(i)]);
    } else if (keepdim) {
      out_sizes.push_back(1);
    }
  }
  Ref want_values{out_sizes, rs.dtype, {}}, want_positions{out_sizes, wick::kInt64, {}};
  const bool by_double = floating(rs.dtype);
  auto is_nan = [&](const V& v) { return by_double && std::isnan(v.d); };
  std::vector<int64_t> order(static_cast<size_t>(lines > 0 ? n : 0));
  for (int64_t o = 0; o < outer && lines > 0 && n > 0; ++o) {
    for (int64_t c = 0; c < inner; ++c) {
      const auto at = [&](int64_t i) { return rs.v[static_cast<size_t>((o * n + i) * inner + c)]; };
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        if (!by_double) return at(a).i < at(b).i;
        return at(a).d < at(b).d || (std::isnan(at(b).d) && !std::isnan(at(a).d));
      });
      int64_t nans = 0;
      for (int64_t i = 0; i < n; ++i) nans += is_nan(at(i)) ? 1 : 0;
      const int64_t pick = which == kKth      ? k - 1
                           : which == kMedian ? (nans > 0 ? n - nans : (n - 1) / 2)
                                              : std::max<int64_t>(n - nans - 1, 0) / 2;
      const int64_t from = order[static_cast<size_t>(pick)];
      want_values.v.push_back(at(from));
      V p;
      p.i = from;
      p.d = static_cast<double>(from);
      want_positions.v.push_back(p);
    }
  }
  if (over_all && n == 0) {
    V nan;
    nan.d = std::nan("");
    want_values.v.push_back(nan);
  }
  expect_equal(values, want_values, g_step + ": values", 0);
  if (!over_all) expect_equal(positions, want_positions, g_step + ": positions", 0);
  add(values);
}

}  // namespace wick::fuzz::ops
