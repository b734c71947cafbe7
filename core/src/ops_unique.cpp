// ops_unique.cpp: bincount, unique and unique_consecutive, from sort, comparisons of
// neighbours, cumsum, masked_select and index_add. Their result sizes depend on the values, so
// each reads one number or mask back to the host (a synchronisation on a GPU, as PyTorch's).
#include <algorithm>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// True where a 1-D tensor's element differs from the one before it (and at 0): the starts of
// its runs of equal values. NaN differs from NaN, so each NaN is its own run, as PyTorch's.
Tensor run_starts(const Tensor& flat) {
  const int64_t n = flat.numel();
  const Tensor first = ones({std::min<int64_t>(n, 1)}, TensorOptions(kBool).device(flat.device()));
  if (n <= 1) return first;
  return cat({first, ne(flat.narrow(0, 1, n - 1), flat.narrow(0, 0, n - 1))}, 0);
}

// values, inverse (run number of each element, in `order`'s positions) and counts of the
// runs of a 1-D tensor whose element i came from position order[i] of the input.
std::tuple<Tensor, Tensor, Tensor> runs(const Tensor& lined, const Tensor& order,
                                        const Shape& input_sizes, bool return_inverse,
                                        bool return_counts) {
  const TensorOptions int64_here = TensorOptions(kInt64).device(lined.device());
  const Tensor starts = run_starts(lined);
  const Tensor values = lined.masked_select(starts);
  Tensor inverse = empty({0}, int64_here), counts = empty({0}, int64_here);
  if (return_inverse || return_counts) {
    const Tensor run = cumsum(starts, 0) - 1;  // int64, the run of each element
    const detail::IndexesInRange runs_and_a_permutation(/*host_tensors_too=*/true);
    if (return_inverse) {
      inverse = order.defined() ? zeros({lined.numel()}, int64_here).index_add(0, order, run) : run;
      inverse = inverse.reshape(input_sizes);
    }
    if (return_counts) {
      counts =
          zeros({values.numel()}, int64_here).index_add(0, run, ones({lined.numel()}, int64_here));
    }
  }
  return {values, inverse, counts};
}

// The slices of a along dim d as the rows of an [n, m] matrix (a copy unless a's layout
// allows a view). m == 0 with n > 0 has no slices to compare: PyTorch refuses it.
Tensor slices_as_rows(const Tensor& a, int64_t d, const char* name) {
  const int64_t n = a.size(d);
  int64_t m = 1;
  for (int64_t i = 0; i < a.dim(); ++i) m *= i == d ? 1 : a.size(i);
  WICK_CHECK(m > 0 || n == 0, ValueError, name, "dims other than dim ", d,
             " have size 0, so there are no slices to compare, in ", describe(a));
  return a.detach().movedim(d, 0).reshape({n, m});
}

// True where row i of a 2-D tensor differs from row i - 1 (and at 0), NaN differing from NaN.
Tensor row_starts(const Tensor& rows) {
  const int64_t n = rows.size(0);
  const Tensor first = ones({std::min<int64_t>(n, 1)}, TensorOptions(kBool).device(rows.device()));
  if (n <= 1) return first;
  const Tensor differs = ne(rows.narrow(0, 1, n - 1), rows.narrow(0, 0, n - 1)).any(1);
  return cat({first, differs}, 0);
}

// The runs of equal rows of `rows` (row i from slice order[i] of a along d, or slice i when
// order is undefined), as unique_dim's three results.
std::tuple<Tensor, Tensor, Tensor> row_runs(const Tensor& a, int64_t d, const Tensor& rows,
                                            const Tensor& order, bool return_inverse,
                                            bool return_counts) {
  const TensorOptions int64_here = TensorOptions(kInt64).device(a.device());
  const int64_t n = rows.size(0);
  const Tensor starts = row_starts(rows);
  const Tensor start_rows = nonzero(starts).reshape({-1});
  Shape value_sizes = a.sizes();
  value_sizes.erase(d);
  value_sizes.insert(0, start_rows.numel());
  const Tensor values = rows.index_select(0, start_rows).reshape(value_sizes).movedim(0, d);
  Tensor inverse = empty({0}, int64_here), counts = empty({0}, int64_here);
  if (return_inverse || return_counts) {
    const Tensor run = cumsum(starts, 0) - 1;
    const detail::IndexesInRange runs_and_a_permutation(/*host_tensors_too=*/true);
    if (return_inverse) {
      inverse = order.defined() ? zeros({n}, int64_here).index_add(0, order, run) : run;
    }
    if (return_counts) {
      counts = zeros({start_rows.numel()}, int64_here).index_add(0, run, ones({n}, int64_here));
    }
  }
  return {values, inverse, counts};
}

}  // namespace

Tensor bincount(const Tensor& a, const std::optional<Tensor>& weights, int64_t minlength) {
  const char* name = "bincount";
  detail::check_defined(name, {&a});
  WICK_CHECK(a.dim() == 1 && (a.dtype() == kInt64 || a.dtype() == kBool), ValueError, name,
             "only supports 1-d non-negative integral inputs, got ", describe(a));
  WICK_CHECK(minlength >= 0, ValueError, name, "minlength must be non-negative, got ", minlength);
  const Tensor index = a.to(kInt64);
  int64_t length = minlength;
  if (index.numel() > 0) {
    WICK_CHECK(index.min().item<int64_t>() >= 0, ValueError, name,
               "only supports 1-d non-negative integral inputs, got negative values in ",
               describe(a));
    length = std::max(length, index.max().item<int64_t>() + 1);
  }
  if (!weights) {
    const TensorOptions on = TensorOptions(kInt64).device(a.device());
    return zeros({length}, on).index_add(0, index, ones({index.numel()}, on));
  }
  detail::check_defined(name, {&*weights});
  detail::check_same_device(name, {&a, &*weights});
  WICK_CHECK(weights->dim() == 1 && weights->numel() == a.numel(), ShapeError, name,
             "weights must be 1-d with one weight per input element, got ", describe(*weights),
             " for ", describe(a));
  // As PyTorch: float32 weights give float32, all others (bfloat16 too) float64.
  const Dtype out = weights->dtype() == kFloat32 ? kFloat32 : kFloat64;
  return zeros({length}, TensorOptions(out).device(a.device()))
      .index_add(0, index, weights->to(out));
}

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& a, bool sorted, bool return_inverse,
                                          bool return_counts) {
  (void)sorted;  // always sorted, which "sorted = false" allows (PyTorch: any order)
  detail::check_defined("unique", {&a});
  const Tensor flat = a.detach().reshape({-1});
  const auto [lined, order] = sort(flat);
  return runs(lined, order, a.sizes(), return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& a, bool return_inverse,
                                                      bool return_counts,
                                                      std::optional<int64_t> dim) {
  const char* name = "unique_consecutive";
  detail::check_defined(name, {&a});
  if (!dim)
    return runs(a.detach().reshape({-1}), Tensor(), a.sizes(), return_inverse, return_counts);
  WICK_CHECK(a.dim() > 0, IndexError, name, "dim ", *dim, " given for a 0-d tensor ", describe(a));
  const int64_t d = detail::wrap_dim(*dim, a.dim(), name);
  const Tensor rows = slices_as_rows(a, d, name);
  return row_runs(a, d, rows, Tensor(), return_inverse, return_counts);
}

std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& a, int64_t dim, bool sorted,
                                              bool return_inverse, bool return_counts) {
  (void)sorted;  // always sorted, as PyTorch's unique_dim
  const char* name = "unique_dim";
  detail::check_defined(name, {&a});
  WICK_CHECK(a.dim() > 0, IndexError, name, "dim ", dim, " given for a 0-d tensor ", describe(a));
  const int64_t d = detail::wrap_dim(dim, a.dim(), name);
  const Tensor rows = slices_as_rows(a, d, name);
  // Lexicographic order of the rows as a radix sort over columns: a stable sort by each
  // column from the last to the first keeps, among rows equal in a column, the order the
  // later columns gave them. m stable sorts of n keys, then one gather of the rows.
  const int64_t n = rows.size(0), m = rows.size(1);
  Tensor order = arange(n, TensorOptions(kInt64).device(a.device()));
  for (int64_t c = m - 1; c >= 0 && n > 1; --c) {
    const Tensor keys = rows.select(1, c).index_select(0, order);
    order = order.index_select(0, argsort(keys));
  }
  return row_runs(a, d, rows.index_select(0, order), order, return_inverse, return_counts);
}

}  // namespace wick
