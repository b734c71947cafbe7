// ops_median.cpp: kthvalue, median, nanmedian and mode, from the sort op (ops_sort.cpp). Its order
// is total (NaN above every number, equal values lowest index first), so the k-th element of a
// line and its position are one answer on every device. kthvalue takes topk's k smallest and
// keeps the last; median is the kthvalue of the lower median, replaced by the first NaN in a
// line that has one (as PyTorch's); nanmedian sorts each line and gathers at a position per
// line, the lower median of the n - nan_count numbers that sort before the NaNs.
// The values come through topk/sort and gather, whose rules send the gradient to the
// element chosen.
#include <cmath>
#include <limits>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

void check_orderable(const char* name, const Tensor& a) {
  detail::check_defined(name, {&a});
  WICK_CHECK(a.dtype() != kBool, DtypeError, name, "does not take bool tensors (as PyTorch), got ",
             describe(a));
}

// dim wrapped (a 0-d tensor is one line: dim 0 or -1), the line non-empty.
int64_t line_dim(const char* name, const Tensor& a, int64_t dim) {
  const int64_t d = detail::wrap_dim(dim, std::max<int64_t>(a.dim(), 1), name);
  WICK_CHECK(a.dim() == 0 || a.size(d) > 0, IndexError, name, "cannot take dim ", dim,
             " of zero size of ", describe(a), " (the operation has no identity)");
  return d;
}

enum class NanRule { kPropagate, kIgnore };

std::tuple<Tensor, Tensor> median_along(const char* name, const Tensor& a, int64_t dim,
                                        bool keepdim, NanRule rule) {
  check_orderable(name, a);
  const int64_t d = line_dim(name, a, dim);
  if (a.dim() == 0) {
    auto [v, i] = median_along(name, a.reshape({1}), 0, false, rule);
    return {v.reshape({}), i.reshape({})};
  }
  const int64_t n = a.size(d);
  if (rule == NanRule::kPropagate) {
    // The lower median is a kthvalue (topk: a partial sort), except in a line with NaN, whose
    // answer is its first NaN. Half the time of a full sort of [1024, 1001]'s rows.
    auto [values, indices] = kthvalue(a, (n - 1) / 2 + 1, d, /*keepdim=*/true);
    if (is_floating(a.dtype())) {
      const Tensor nan_at = isnan(a);
      const Tensor has_nan = any(nan_at, d, /*keepdim=*/true);
      const Tensor first_nan = argmax(nan_at.to(kInt64), d, /*keepdim=*/true);
      values = where(has_nan, gather(a, d, first_nan), values);
      indices = where(has_nan, first_nan, indices);
    }
    if (!keepdim) return {values.squeeze(d), indices.squeeze(d)};
    return {values, indices};
  }
  const auto [sorted, positions] = sort(a, d);
  // nanmedian: the lower median of the numbers, which sort before the NaNs; 0 (the first NaN)
  // for a line of NaNs.
  Tensor pick;  // per line, keepdim: where in the sorted line the answer sits
  if (!is_floating(a.dtype())) {
    Shape sizes = a.sizes();
    sizes[static_cast<size_t>(d)] = 1;
    pick = full(sizes, (n - 1) / 2, TensorOptions(kInt64).device(a.device()));
  } else {
    const Tensor numbers = -isnan(a).sum(d, /*keepdim=*/true) + n;        // int64
    pick = floor(clamp_min(numbers - 1, 0).to(kFloat64) / 2).to(kInt64);  // exact to 2^53
  }
  Tensor values = gather(sorted, d, pick);
  Tensor indices = gather(positions, d, pick);
  if (!keepdim) {
    values = values.squeeze(d);
    indices = indices.squeeze(d);
  }
  return {values, indices};
}

Tensor median_of_all(const char* name, const Tensor& a, NanRule rule) {
  check_orderable(name, a);
  if (a.numel() == 0) {
    // As PyTorch: the median of nothing is NaN (integer tensors: an error, having no NaN).
    WICK_CHECK(is_floating(a.dtype()), IndexError, name, "of an empty integer tensor ", describe(a),
               " has no value");
    // sum() * NaN: NaN, recorded while a is (its gradient then has a's empty shape).
    return sum(a) * std::nan("");
  }
  const Tensor flat = a.reshape({-1});
  if (!(a.requires_grad() && GradMode::is_enabled())) {
    return std::get<0>(median_along(name, flat, 0, false, rule));
  }
  // Recorded: the gradient is shared equally by every element equal to the median (by every
  // NaN when it is NaN), as PyTorch's evenly_distribute_backward, not sent to one of them.
  // max() over every element has that rule: the median is the max of those elements with all
  // others replaced by -inf (by +inf and min() for a median of -inf, so that no other element
  // ties), and where() passes each one's share back to it.
  const Tensor value = std::get<0>(median_along(name, flat.detach(), 0, false, rule));
  const Tensor chosen =
      logical_or(eq(flat.detach(), value), logical_and(isnan(flat.detach()), isnan(value)));
  if (value.le(-std::numeric_limits<double>::max()).item<bool>()) {  // -inf (one host read)
    return min(where(chosen, flat, std::numeric_limits<double>::infinity()));
  }
  return max(where(chosen, flat, -std::numeric_limits<double>::infinity()));
}

}  // namespace

std::tuple<Tensor, Tensor> kthvalue(const Tensor& a, int64_t k, int64_t dim, bool keepdim) {
  const char* name = "kthvalue";
  check_orderable(name, a);
  const int64_t d = detail::wrap_dim(dim, std::max<int64_t>(a.dim(), 1), name);
  const int64_t n = a.dim() == 0 ? 1 : a.size(d);
  WICK_CHECK(k >= 1 && k <= n, IndexError, name, "k = ", k, " is out of range [1, ", n,
             "] for dim ", dim, " of ", describe(a));
  if (a.dim() == 0) {
    auto [v, i] = kthvalue(a.reshape({1}), k, 0, false);
    return {v.reshape({}), i.reshape({})};
  }
  auto [values, indices] = topk(a, k, d, /*largest=*/false);
  values = values.narrow(d, k - 1, 1);
  indices = indices.narrow(d, k - 1, 1);
  if (!keepdim) return {values.squeeze(d), indices.squeeze(d)};
  return {values, indices};
}

Tensor median(const Tensor& a) { return median_of_all("median", a, NanRule::kPropagate); }
std::tuple<Tensor, Tensor> median(const Tensor& a, int64_t dim, bool keepdim) {
  return median_along("median", a, dim, keepdim, NanRule::kPropagate);
}
Tensor nanmedian(const Tensor& a) { return median_of_all("nanmedian", a, NanRule::kIgnore); }
std::tuple<Tensor, Tensor> nanmedian(const Tensor& a, int64_t dim, bool keepdim) {
  return median_along("nanmedian", a, dim, keepdim, NanRule::kIgnore);
}

std::tuple<Tensor, Tensor> mode(const Tensor& a, int64_t dim, bool keepdim) {
  const char* name = "mode";
  detail::check_defined(name, {&a});
  const int64_t d = line_dim(name, a, dim);
  if (a.dim() == 0) {
    auto [v, i] = mode(a.reshape({1}), 0, false);
    return {v.reshape({}), i.reshape({})};
  }
  // Each line sorted (stably: equal values keep their positions' order), cut into runs of
  // equal values; every element learns its run's first and last place, the
  // longest run wins, the first of equally long ones (the smallest value), and its last place
  // names the last occurrence.
  const Tensor keys = (a.dtype() == kBool ? a.to(kInt64) : a).detach().movedim(d, -1);
  const auto [sorted, order] = sort(keys, -1);
  const int64_t n = keys.size(-1);
  const Tensor before = sorted.narrow(-1, 0, n - 1), after = sorted.narrow(-1, 1, n - 1);
  // ne: a NaN differs from every value, another NaN included, so each NaN is a run of its own,
  // as PyTorch's count (neighbours compared with !=).
  const Tensor differs = ne(before, after);
  Shape edge_sizes = keys.sizes();
  edge_sizes[edge_sizes.size() - 1] = 1;
  const Tensor edge = ones(edge_sizes, TensorOptions(kBool).device(a.device()));
  const Tensor starts = cat({edge, differs}, -1), ends = cat({differs, edge}, -1);
  const Tensor place = arange(n, TensorOptions(kInt64).device(a.device())).expand(keys.sizes());
  const Tensor first = std::get<0>(cummax(where(starts, place, Scalar(0)), -1));
  const Tensor last =
      flip(std::get<0>(cummin(flip(where(ends, place, Scalar(n)), {-1}), -1)), {-1});
  const Tensor best = argmax(last - first, -1, true);
  const Tensor index = gather(order, -1, gather(last, -1, best)).movedim(-1, d);
  // The values gathered from a itself: its gradient reaches the chosen places.
  const Tensor values = gather(a, d, index);
  if (!keepdim) return {values.squeeze(d), index.squeeze(d)};
  return {values, index};
}

std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  return wick::kthvalue(*this, k, dim, keepdim);
}
std::tuple<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const {
  return wick::mode(*this, dim, keepdim);
}
Tensor Tensor::median() const { return wick::median(*this); }
std::tuple<Tensor, Tensor> Tensor::median(int64_t dim, bool keepdim) const {
  return wick::median(*this, dim, keepdim);
}
Tensor Tensor::nanmedian() const { return wick::nanmedian(*this); }
std::tuple<Tensor, Tensor> Tensor::nanmedian(int64_t dim, bool keepdim) const {
  return wick::nanmedian(*this, dim, keepdim);
}

}  // namespace wick
