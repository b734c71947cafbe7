// ops_index.cpp: fuzz_ops steps: the index ops, index_select, index_add (alpha 1), index_copy,
// index_fill (a number), take_along_dim (with a dim or flattened), gather, scatter_add, scatter and
// scatter_reduce (every mode, with and without self), on pool tensors (empty ones with huge dims
// included) with indices of fitting and unfitting shapes (a rank off, an extent too large, 0-d,
// empty), values in and out of range, and indices, sources and srcs of the wrong dtype. Every
// outcome is predicted by the rules written out here (PyTorch's, as core/src/ops_index.cpp,
// ops_gather.cpp and ops_scatter.cpp implement them), and every value by a row-major walk over the
// index that combines in the dtype's own rounding (bfloat16: in float32, rounded once; bool: as
// int64, then compared with zero), the order wick's kernels promise: so values must be equal, not
// close. See fuzz_ops.cpp.
#include <algorithm>

#include "ops_program.hpp"

namespace wick::fuzz::ops {

namespace {

enum class IndexOp {
  select,
  add,
  gather,
  scatter_add,
  scatter,
  scatter_reduce,
  copy,
  fill,
  take_along
};
constexpr const char* kIndexOpNames[9] = {"index_select", "index_add",  "gather",
                                          "scatter_add",  "scatter",    "scatter_reduce",
                                          "index_copy",   "index_fill", "take_along_dim"};
constexpr const char* kReduceNames[5] = {"sum", "prod", "amax", "amin", "mean"};
constexpr ScatterMode kReduceModes[5] = {ScatterMode::sum, ScatterMode::prod, ScatterMode::amax,
                                         ScatterMode::amin, ScatterMode::mean};

// x + y in dtype k the way the kernels add (int64 wraps; bfloat16 accumulates in float32).
V add_in(Dtype k, V x, V y) {
  if (!floating(k)) {
    x.i = wrap_add(x.i, y.i);
  } else {
    x.d = k == wick::kFloat64 ? x.d + y.d : round_f32(x.d + y.d);
  }
  return x;
}

// y combined into x in dtype k as the scatter kernels combine (mean: as sum; int64 wraps; bool
// as int64; bfloat16 in float32; NaN wins in amax and amin).
V combine_in(Dtype k, ScatterMode mode, V x, V y) {
  if (mode == ScatterMode::assign) return y;
  if (!floating(k)) {
    if (mode == ScatterMode::sum || mode == ScatterMode::mean) x.i = wrap_add(x.i, y.i);
    if (mode == ScatterMode::prod) x.i = wrap_mul(x.i, y.i);
    if (mode == ScatterMode::amax) x.i = std::max(x.i, y.i);
    if (mode == ScatterMode::amin) x.i = std::min(x.i, y.i);
    return x;
  }
  const auto rounded = [k](double v) { return k == wick::kFloat64 ? v : round_f32(v); };
  if (mode == ScatterMode::sum || mode == ScatterMode::mean) x.d = rounded(x.d + y.d);
  if (mode == ScatterMode::prod) x.d = rounded(x.d * y.d);
  if (mode == ScatterMode::amax) x.d = x.d < y.d || std::isnan(y.d) ? y.d : x.d;
  if (mode == ScatterMode::amin) x.d = y.d < x.d || std::isnan(y.d) ? y.d : x.d;
  return x;
}

// What a target starts from without self: combining it with y gives y.
V identity_of(Dtype k, ScatterMode mode) {
  V v;
  const double inf = std::numeric_limits<double>::infinity();
  if (mode == ScatterMode::prod) v = {1.0, 1};
  if (mode == ScatterMode::amax) v = {-inf, INT64_MIN};
  if (mode == ScatterMode::amin) v = {inf, INT64_MAX};
  (void)k;
  return v;
}

// Row-major linear offset of idx in sizes.
int64_t linear(const Shape& sizes, const int64_t* idx) {
  int64_t at = 0;
  for (size_t d = 0; d < sizes.size(); ++d) at = at * sizes[d] + idx[d];
  return at;
}

}  // namespace

void Program::index_ops() {
  const Tensor* pa = pick();
  if (pa == nullptr) return;
  const Tensor& self = *pa;
  const auto op = static_cast<IndexOp>(in_.below(9));
  const uint32_t reduce = in_.below(5);
  const bool include_self = in_.below(3) != 0;
  const bool vector_op =
      op == IndexOp::select || op == IndexOp::add || op == IndexOp::copy || op == IndexOp::fill;
  const int64_t dim = static_cast<int64_t>(in_.below(7)) - 3;
  const Ref rs = snapshot(self);
  const int64_t nd = self.dim();

  // The index's shape.
  Shape index_sizes;
  const uint32_t form = in_.below(8);
  const int64_t wd = nd == 0 ? 0 : (dim % nd + nd) % nd;  // a dim in range, for shaping only
  if (vector_op) {
    if (form == 0) {
      index_sizes = {};  // 0-d
    } else if (form == 1) {
      index_sizes = {1, static_cast<int64_t>(in_.below(3))};  // 2-d: wrong
    } else {
      index_sizes = {static_cast<int64_t>(in_.below(6))};
    }
  } else {
    const int64_t rank = form == 0 ? nd + 1 : form == 1 ? std::max<int64_t>(nd - 1, 0) : nd;
    for (int64_t d = 0; d < rank && d < Shape::kMaxDims; ++d) {
      const int64_t own = d < nd ? self.size(d) : 1;
      int64_t e = own;
      if (d == wd) {
        e = static_cast<int64_t>(in_.below(6));
      } else {
        switch (in_.below(6)) {
          case 0:
            e = own > 0 ? own - 1 : 0;
            break;
          case 1:
            e = std::min<int64_t>(own, 1);
            break;
          case 2:
            e = own < INT64_MAX ? own + 1 : own;  // too large
            break;
          case 3:
            e = 0;
            break;
          default:
            break;
        }
      }
      index_sizes.push_back(e);
    }
  }
  const std::optional<int64_t> index_count = numel_of(index_sizes);
  if (!index_count || *index_count > kMaxElems || strides_overflow(index_sizes)) return;
  // Its values: mostly in [0, size along dim), some out of range.
  const int64_t size = nd == 0 ? 1 : self.size(wd);
  const uint32_t bad_rate = in_.below(3) == 0 ? 8 : 0;
  Tensor index = wick::empty(index_sizes, in_.below(16) == 0 ? wick::kFloat32 : wick::kInt64);
  lcg_ = in_.u32();
  for_each_index(index_sizes, [&](int64_t, const int64_t* idx) {
    const uint64_t r = next_random();
    V v;
    if (r % 64 < bad_rate || size == 0) {
      static constexpr int64_t kBad[4] = {-1, 0, INT64_MAX, INT64_MIN};
      v.i = (r >> 8) % 4 == 1 ? size : kBad[(r >> 8) % 4];
    } else {
      v.i = static_cast<int64_t>((r >> 8) % static_cast<uint64_t>(size));
    }
    v.d = static_cast<double>(v.i);
    write_elem(index, offset_at(index, idx), v);
  });
  if (in_.below(4) == 0 && index.dim() >= 2) {
    index = index.transpose(0, -1).contiguous().transpose(0, -1);  // same values, column-major
  }

  if (op == IndexOp::take_along) {
    take_along(self, index, dim, include_self);
    return;
  }

  // index_add's source / scatter_add's src: the expected shape, or one extent off; self's dtype
  // or another.
  Tensor src;
  const bool scatters =
      op == IndexOp::scatter_add || op == IndexOp::scatter || op == IndexOp::scatter_reduce;
  const bool rows_op = op == IndexOp::add || op == IndexOp::copy;  // a source of whole rows
  if (rows_op || scatters) {
    Shape src_sizes = index_sizes;
    if (rows_op) {
      src_sizes = rs.sizes;
      if (nd > 0) src_sizes[static_cast<size_t>(wd)] = *index_count;
    }
    if (!src_sizes.empty() && in_.below(4) == 0) {
      int64_t& e = src_sizes[in_.below(static_cast<uint32_t>(src_sizes.size()))];
      // One more (one less at INT64_MAX, which an empty pool tensor's dim may be).
      e = in_.flag() && e < INT64_MAX ? e + 1 : std::max<int64_t>(e - 1, 0);
    }
    const std::optional<int64_t> src_count = numel_of(src_sizes);
    if (!src_count || *src_count > kMaxElems || strides_overflow(src_sizes)) return;
    const Dtype d = in_.below(6) == 0 ? dtype() : rs.dtype;
    src = wick::empty(src_sizes, d);
    lcg_ = in_.u32();
    for_each_index(src_sizes, [&](int64_t, const int64_t* idx) {
      write_elem(src, offset_at(src, idx), random_value(d, 4));
    });
  }
  // index_fill's value: one of self's dtype, so that it fits and converts exactly.
  lcg_ = in_.u32();
  const V fill_value = random_value(rs.dtype, 4);
  const Scalar fill_scalar = floating(rs.dtype)        ? Scalar(fill_value.d)
                             : rs.dtype == wick::kBool ? Scalar(fill_value.i != 0)
                                                       : Scalar(fill_value.i);
  g_step = std::string(kIndexOpNames[static_cast<int>(op)]) + " of " + str(self) + " along " +
           std::to_string(dim) + " with an index " + str(index) +
           (src.defined() ? " and " + str(src) : "") +
           (op == IndexOp::scatter_reduce ? std::string(" reducing by ") + kReduceNames[reduce] +
                                                (include_self ? "" : " without self")
                                          : "");

  // ---- the outcome ----
  const Ref ri = snapshot(index);
  const Ref rv = src.defined() ? snapshot(src) : Ref{};
  bool bad = false;
  auto in_range = [&](int64_t n) {
    for (const V& v : ri.v) bad = bad || v.i < 0 || v.i >= n;
  };
  const bool index_int = ri.dtype == wick::kInt64;
  // As PyTorch: 0-d operands are vectors of one element, for every op but index_add (whose
  // 0-d source takes any shape of as many elements as the index).
  const bool scalar_case =
      vector_op ? nd == 0
                : (nd <= 1 && index.dim() <= 1 && (!src.defined() || src.dim() <= 1) &&
                   (nd == 0 || index.dim() == 0 || (src.defined() && src.dim() == 0)));
  const int64_t d = wrap_dim_or(dim, scalar_case ? 1 : nd, bad);
  Shape want_sizes;
  Shape add_src_as;  // index_add's source as the kernel reads it
  switch (op) {
    case IndexOp::select: {
      if (nd == 0) bad = bad || *index_count != 1;
      bad = bad || !index_int || index.dim() > 1;
      if (!bad) in_range(nd == 0 ? 1 : rs.sizes[static_cast<size_t>(d)]);
      want_sizes = rs.sizes;
      if (nd > 0) want_sizes[static_cast<size_t>(d)] = *index_count;
      break;
    }
    case IndexOp::fill: {
      // Negative indices count from the end (index_fill's rule, not index_copy's).
      bad = bad || !index_int || index.dim() > 1;
      const int64_t n = nd == 0 ? 1 : rs.sizes[static_cast<size_t>(d)];
      for (const V& v : ri.v) bad = bad || v.i < -n || v.i >= n;
      want_sizes = rs.sizes;
      break;
    }
    case IndexOp::add:
    case IndexOp::copy: {
      Shape expected = nd == 0 ? Shape{*index_count} : rs.sizes;
      if (nd > 0) expected[static_cast<size_t>(d)] = *index_count;
      add_src_as = rv.sizes;
      if (nd == 0) {
        bad = bad || *numel_of(rv.sizes) != *index_count;
        add_src_as = {*numel_of(rv.sizes)};
      } else if (nd == 1 && rv.sizes.empty()) {
        add_src_as = {1};
      }
      bad = bad || !index_int || index.dim() > 1;
      if (!bad) in_range(nd == 0 ? 1 : rs.sizes[static_cast<size_t>(d)]);
      bad = bad || rv.dtype != rs.dtype || add_src_as != expected ||
            (op == IndexOp::add && rs.dtype == wick::kBool);
      want_sizes = rs.sizes;
      break;
    }
    case IndexOp::gather:
    case IndexOp::scatter_add:
    case IndexOp::scatter:
    case IndexOp::scatter_reduce: {
      const bool add = scatters;
      // In the scalar case every operand is a vector of its element count.
      const Shape self_as = scalar_case ? Shape{*numel_of(rs.sizes)} : rs.sizes;
      const Shape index_as = scalar_case ? Shape{*index_count} : index_sizes;
      const Shape src_as = add && scalar_case ? Shape{*numel_of(rv.sizes)} : rv.sizes;
      bad = bad || !index_int;
      // bool: scatter_add refuses it, scatter_reduce only for mean.
      const bool refuses_bool =
          op == IndexOp::scatter_add ||
          (op == IndexOp::scatter_reduce && kReduceModes[reduce] == ScatterMode::mean);
      if (add) bad = bad || rv.dtype != rs.dtype || (rs.dtype == wick::kBool && refuses_bool);
      if (!bad && *index_count > 0) {
        bad = index_as.size() != self_as.size();
        for (size_t i = 0; !bad && i < self_as.size(); ++i) {
          bad = static_cast<int64_t>(i) != d && index_as[i] > self_as[i];
        }
        if (!bad) in_range(self_as[static_cast<size_t>(d)]);
        if (add) {
          bad = bad || src_as.size() != index_as.size();
          for (size_t i = 0; !bad && i < index_as.size(); ++i) bad = index_as[i] > src_as[i];
        }
      }
      want_sizes = add ? rs.sizes : index_sizes;
      break;
    }
    case IndexOp::take_along:  // handled by take_along() above
      break;
  }
  if (!bad && strides_overflow(want_sizes)) bad = true;
  if (!bad && numel_of(want_sizes).value_or(INT64_MAX) > kMaxElems * 4) return;

  Tensor got;
  if (!outcome(bad ? Expect::Error : Expect::Ok, [&] {
        switch (op) {
          case IndexOp::select:
            got = wick::index_select(self, dim, index);
            break;
          case IndexOp::add:
            got = wick::index_add(self, dim, index, src, int64_t{1});
            break;
          case IndexOp::gather:
            got = wick::gather(self, dim, index);
            break;
          case IndexOp::scatter_add:
            got = wick::scatter_add(self, dim, index, src);
            break;
          case IndexOp::scatter:
            got = wick::scatter(self, dim, index, src);
            break;
          case IndexOp::scatter_reduce:
            got = wick::scatter_reduce(self, dim, index, src, kReduceNames[reduce], include_self);
            break;
          case IndexOp::copy:
            got = wick::index_copy(self, dim, index, src);
            break;
          case IndexOp::fill:
            got = wick::index_fill(self, dim, index, fill_scalar);
            break;
          case IndexOp::take_along:  // handled by take_along() above
            break;
        }
      })) {
    return;
  }

  // ---- the values ----
  Ref want{want_sizes, rs.dtype, {}};
  const int64_t out_count = *numel_of(want_sizes);
  // Views as vectors in the 0-d cases; dim d of a vector is 0.
  const Shape self_shape = nd == 0 ? Shape{1} : rs.sizes;
  if (op == IndexOp::select || op == IndexOp::gather) {
    want.v.resize(static_cast<size_t>(out_count));
    const Shape out_shape = op == IndexOp::gather && scalar_case ? Shape{out_count}
                            : op == IndexOp::select && nd == 0   ? Shape{1}
                                                                 : want_sizes;
    for_each_index(out_shape, [&](int64_t lin, const int64_t* idx) {
      int64_t source[Shape::kMaxDims];
      for (size_t k = 0; k < out_shape.size(); ++k) source[k] = idx[k];
      const int64_t pick = op == IndexOp::select ? ri.v[static_cast<size_t>(idx[d])].i
                                                 : ri.v[static_cast<size_t>(lin)].i;
      source[d] = pick;
      want.v[static_cast<size_t>(lin)] = rs.v[static_cast<size_t>(linear(self_shape, source))];
    });
  } else if (op == IndexOp::fill) {
    const int64_t n = self_shape[static_cast<size_t>(d)];
    // The named positions as a sorted list, not a flag per position: an empty tensor may
    // have a dim of 2^62.
    std::vector<int64_t> filled;
    for (const V& v : ri.v) filled.push_back(v.i < 0 ? v.i + n : v.i);
    std::sort(filled.begin(), filled.end());
    want.v = rs.v;
    for_each_index(self_shape, [&](int64_t lin, const int64_t* idx) {
      if (std::binary_search(filled.begin(), filled.end(), idx[d]))
        want.v[static_cast<size_t>(lin)] = fill_value;
    });
  } else {
    // Accumulate in float32 for bfloat16 (one rounding at the end), in the dtype otherwise.
    const Dtype acc = rs.dtype == wick::kBFloat16 ? wick::kFloat32 : rs.dtype;
    const ScatterMode mode = op == IndexOp::scatter_reduce ? kReduceModes[reduce]
                             : op == IndexOp::scatter      ? ScatterMode::assign
                                                           : ScatterMode::sum;
    const bool with_self = op != IndexOp::scatter_reduce || include_self;
    want.v = rs.v;
    // How many values each target averages (mean), and whether it was named yet.
    std::vector<int64_t> count(want.v.size(), with_self ? 1 : 0);
    std::vector<bool> named(want.v.size(), false);
    const Shape walk = rows_op ? add_src_as : scalar_case ? Shape{*index_count} : index_sizes;
    // index_add: source position j along d goes to index[j]; scatter_add: index position j
    // goes to index[j] (src read at j).
    const Shape src_shape = scatters && !scalar_case ? rv.sizes : walk;
    for_each_index(walk, [&](int64_t lin, const int64_t* idx) {
      int64_t target[Shape::kMaxDims];
      for (size_t k = 0; k < walk.size(); ++k) target[k] = idx[k];
      target[d] = rows_op ? ri.v[static_cast<size_t>(idx[d])].i : ri.v[static_cast<size_t>(lin)].i;
      const size_t at = static_cast<size_t>(linear(self_shape, target));
      const V term = rv.v[static_cast<size_t>(linear(src_shape, idx))];
      if (rows_op) {  // index_copy: the last write to a row wins, as its kernel's index order
        want.v[at] = op == IndexOp::add ? add_in(acc, want.v[at], term) : term;
        return;
      }
      // Without self, the identity is written into each named target first.
      if (!with_self && !named[at]) want.v[at] = identity_of(acc, mode);
      named[at] = true;
      ++count[at];
      want.v[at] = combine_in(acc, mode, want.v[at], term);
    });
    for (size_t k = 0; k < want.v.size(); ++k) {
      V& v = want.v[k];
      if (mode == ScatterMode::mean && count[k] > 1) {
        const auto c = static_cast<double>(count[k]);
        if (floating(acc)) {
          v.d = acc == wick::kFloat64 ? v.d / c : round_f32(v.d / c);
        } else {
          // In float64, rounded down (a target of one value keeps it exactly).
          v.i = static_cast<int64_t>(std::floor(static_cast<double>(v.i) / c));
        }
      }
      if (rs.dtype == wick::kBool) v.i = v.i != 0;
      if (rs.dtype == wick::kBFloat16) v.d = round_bf16_of_f32(v.d);
    }
  }
  expect_equal(got, want, g_step, 0);
  add(got);
}

// take_along_dim(self, index, dim) (with_dim) or over the flattened tensor: a gather whose
// index broadcasts against self outside dim (PyTorch's rule: both expanded to the common
// shape, dim keeping each one's own extent); int64 values in [0, size) wherever the result is
// not empty.
void Program::take_along(const Tensor& self, const Tensor& index, int64_t dim, bool with_dim) {
  const Ref rs = snapshot(self), ri = snapshot(index);
  const int64_t nd = self.dim();
  if (with_dim && nd == 0) return;  // gather's 0-d rules: the gather step models them
  g_step = "take_along_dim of " + str(self) +
           (with_dim ? " along " + std::to_string(dim) : std::string(" flattened")) + " with " +
           str(index);
  bool bad = ri.dtype != wick::kInt64;
  Shape want_sizes;
  int64_t d = 0;
  if (!with_dim) {
    want_sizes = {static_cast<int64_t>(ri.v.size())};
    const int64_t n = numel_of(rs.sizes).value_or(0);
    for (const V& v : ri.v) bad = bad || v.i < 0 || v.i >= n;
  } else {
    d = wrap_dim_or(dim, nd, bad);
    bad = bad || index.dim() != nd;
    if (!bad) {
      Shape a = rs.sizes, b = ri.sizes;
      a[static_cast<size_t>(d)] = 1;
      b[static_cast<size_t>(d)] = 1;
      const std::optional<Shape> common = broadcast(a, b);
      bad = !common;
      if (common) {
        want_sizes = *common;
        want_sizes[static_cast<size_t>(d)] = ri.sizes[static_cast<size_t>(d)];
      }
    }
    if (!bad && numel_of(want_sizes).value_or(1) > 0) {
      for (const V& v : ri.v) bad = bad || v.i < 0 || v.i >= rs.sizes[static_cast<size_t>(d)];
    }
  }
  if (!bad && strides_overflow(want_sizes)) bad = true;
  if (!bad && numel_of(want_sizes).value_or(INT64_MAX) > kMaxElems * 4) return;
  Tensor got;
  if (!outcome(bad ? Expect::Error : Expect::Ok, [&] {
        got = with_dim ? wick::take_along_dim(self, index, dim) : self.take_along_dim(index);
      })) {
    return;
  }
  Ref want{want_sizes, rs.dtype, {}};
  for_each_index(want_sizes, [&](int64_t lin, const int64_t* idx) {
    if (!with_dim) {
      want.v.push_back(rs.v[static_cast<size_t>(ri.v[static_cast<size_t>(lin)].i)]);
      return;
    }
    int64_t at_index[Shape::kMaxDims], at_self[Shape::kMaxDims];
    for (size_t k = 0; k < want_sizes.size(); ++k) {
      at_index[k] = ri.sizes[k] == 1 ? 0 : idx[k];
      at_self[k] = rs.sizes[k] == 1 ? 0 : idx[k];
    }
    at_self[d] = ri.v[static_cast<size_t>(linear(ri.sizes, at_index))].i;
    want.v.push_back(rs.v[static_cast<size_t>(linear(rs.sizes, at_self))]);
  });
  expect_equal(got, want, g_step, 0);
  add(got);
}

}  // namespace wick::fuzz::ops
