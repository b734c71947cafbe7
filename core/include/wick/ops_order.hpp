// ops_order.hpp: scans, sorting, quantiles, order statistics, vectors and counting (unique),
// spelled as in libtorch; part of ops.hpp, which includes it (include wick/ops.hpp).
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "wick/tensor.hpp"

namespace wick {

// ---- scans and products (ops_scan.cpp) ----
// cumsum: torch.cumsum. out[..., i, ...] = a[..., 0, ...] + ... + a[..., i, ...] along dim,
// added in that order. bool and int64 sum to int64 (wrapping, as PyTorch's); `dtype`, where
// given, is the result's dtype, and a is cast to it first. float32 and bfloat16 accumulate in
// float64 (as PyTorch's CPU kernel) and round each result once; the GPU adds in the same order,
// so both devices give the same bits. Differentiable in a.
Tensor cumsum(const Tensor& a, int64_t dim, std::optional<Dtype> dtype = std::nullopt);
// cumprod: torch.cumprod. out[..., i, ...] = a[..., 0, ...] * ... * a[..., i, ...] along dim,
// multiplied in that order, with cumsum's dtype rules (bool and int64 to int64, wrapping) and
// float64 accumulation for float32 and bfloat16; both devices give the same bits.
// Differentiable in a, zeros included (the gradient at the first zero of a line is the
// product of the others, as PyTorch's; after it, 0).
Tensor cumprod(const Tensor& a, int64_t dim, std::optional<Dtype> dtype = std::nullopt);
// cummax, cummin: torch.cummax and torch.cummin. values[..., i, ...] is the largest (smallest)
// of a[..., 0..i, ...] along dim and indices[..., i, ...] (int64) its position: the latest
// position of an equal value (a tie moves the index forward, as PyTorch's), and once a NaN is
// met it is the value from there on, its index that of the latest NaN. Every dtype; the values
// keep a's. Both devices give the same values and indices. Differentiable in a: the values'
// gradient goes back to the positions the indices name (accumulated where one position wins
// several times).
std::tuple<Tensor, Tensor> cummax(const Tensor& a, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& a, int64_t dim);
// logcumsumexp: torch.logcumsumexp. out[..., i, ...] = log(exp(a[..., 0, ...]) + ... +
// exp(a[..., i, ...])) along dim, computed without overflow: each step adds one element as
// max + log1p(exp(min - max)), in float64 for float32 and bfloat16 (one rounding per result).
// -inf elements add nothing, +inf gives +inf, NaN gives NaN from there on. Floating dtypes only
// (as PyTorch: integers and bool are a DtypeError). Differentiable in a (PyTorch's formula, which
// splits the gradient by sign so that no exp overflows).
Tensor logcumsumexp(const Tensor& a, int64_t dim);
// prod: torch.prod. The product of all elements (a 0-d result), or along one dim (kept as size
// 1 when keepdim). bool and integers multiply to int64 (wrapping), floats keep their dtype;
// `dtype`, where given, is the result's, and a is cast to it first (bool: true where every
// element is nonzero, as PyTorch's). float32 and bfloat16
// multiply in float64 and round once; the product of nothing is 1. Differentiable in a, zeros
// included: the gradient of each element is the product of the others (computed from
// prefix and suffix products, never by dividing by the element).
Tensor prod(const Tensor& a, std::optional<Dtype> dtype = std::nullopt);
Tensor prod(const Tensor& a, int64_t dim, bool keepdim = false,
            std::optional<Dtype> dtype = std::nullopt);

// ---- ordering (ops_sort.cpp) ----
// sort: torch.sort. Each line of `a` along dim in increasing (or, descending, decreasing) order,
// and the int64 position along dim that each value came from. NaN sorts above every number
// (last, or first when descending), as PyTorch's; equal values (0.0 and -0.0 among them) keep
// their order, lowest index first: the sort is always stable, so the result is one
// permutation, the same on every device and thread count. Differentiable in a (the values).
std::tuple<Tensor, Tensor> sort(const Tensor& a, int64_t dim = -1, bool descending = false);
// libtorch's form with `stable` first: wick's sort is stable whatever it says.
std::tuple<Tensor, Tensor> sort(const Tensor& a, std::optional<bool> stable, int64_t dim = -1,
                                bool descending = false);
// argsort: sort's indices. The form with `stable` first is libtorch's (argsort(x, true, 0) sorts
// along dim 0); the sort is stable whatever it says.
Tensor argsort(const Tensor& a, int64_t dim = -1, bool descending = false);
// (A bool argument only: argsort(x, 1) is dim 1, not stable.)
template <std::same_as<bool> B>
Tensor argsort(const Tensor& a, B /*stable*/, int64_t dim = -1, bool descending = false) {
  return argsort(a, dim, descending);
}
// topk: torch.topk. The k largest (or, largest = false, smallest) values of each line along dim
// and their int64 positions, in sort's order (descending for the largest), whatever `sorted`
// says. k in [0, a.size(dim)], else an IndexError; bool is a DtypeError (as PyTorch). Ties
// are taken lowest index first (PyTorch's topk leaves their order unspecified, so its indices
// may differ where values are equal). Differentiable in a (the values).
std::tuple<Tensor, Tensor> topk(const Tensor& a, int64_t k, int64_t dim = -1, bool largest = true,
                                bool sorted = true);

// ---- quantiles (ops_quantile.cpp), from sort, gather and lerp ----
// quantile: torch.quantile. The q-th quantiles (q a number, or a 0-d or 1-D tensor of a's
// dtype, values in [0, 1]) of all elements or of each line along dim, at rank q * (n - 1) of
// the sorted line, with interpolation "linear" (default), "lower", "higher", "midpoint" or
// "nearest" (half to even). A 1-D q puts its dim first in the result. A line holding NaN gives
// NaN; nanquantile leaves NaN out (NaN for a line of NaNs). Floating inputs (bfloat16 computed
// in float32; PyTorch 1.13 refuses it); an empty input is a ShapeError. Differentiable in a.
Tensor quantile(const Tensor& a, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, std::string_view interpolation = "linear");
Tensor quantile(const Tensor& a, double q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& a, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& a, double q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, std::string_view interpolation = "linear");

// ---- order statistics (ops_median.cpp), from sort and topk ----
// kthvalue: torch.kthvalue. The k-th smallest value (k from 1) of each line along dim and its
// int64 position, in sort's order: NaN above every number, equal values lowest index first
// (PyTorch leaves which of equal values' indices unspecified). k in [1, a.size(dim)], else an
// IndexError; bool is a DtypeError (as PyTorch). Differentiable in a (the values).
std::tuple<Tensor, Tensor> kthvalue(const Tensor& a, int64_t k, int64_t dim = -1,
                                    bool keepdim = false);
// median: torch.median. The lower median (the ((n - 1) / 2 + 1)-th smallest) of all elements
// (NaN for none) or of each line along dim with its position; a line holding NaN gives NaN
// and the position of its first NaN, as PyTorch's. nanmedian: the same over the non-NaN
// values (NaN, position of the first NaN, only for a line of NaNs). A zero-size dim is an
// IndexError; bool a DtypeError. Differentiable in a (the values).
Tensor median(const Tensor& a);
std::tuple<Tensor, Tensor> median(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& a);
std::tuple<Tensor, Tensor> nanmedian(const Tensor& a, int64_t dim, bool keepdim = false);
// mode: torch.mode. The most frequent value of each line along dim and the position of its last
// occurrence; among values equally frequent, the smallest in sort's order (NaN last), as
// PyTorch 1.13's CPU kernel. A NaN equals nothing, so each counts once (PyTorch's count; its
// result for a line holding NaNs also depends on its unstable sort, which NaN confuses). A
// zero-size dim is an IndexError. Differentiable in a (the values).
std::tuple<Tensor, Tensor> mode(const Tensor& a, int64_t dim = -1, bool keepdim = false);

// ---- vectors, grids and distances (ops_vector.cpp) ----
// diff: torch.diff. The n-th forward difference along dim (a[i + 1] - a[i], n times; bool:
// a[i + 1] != a[i]), after `prepend` and `append` (same number of dims) are joined on; each
// step makes the dim one shorter, down to 0.
Tensor diff(const Tensor& a, int64_t n = 1, int64_t dim = -1,
            const std::optional<Tensor>& prepend = std::nullopt,
            const std::optional<Tensor>& append = std::nullopt);
// linalg_cross: torch.linalg.cross. The cross product of 3-vectors along dim (size 3 in both),
// with a and b broadcast. cross: torch.cross, whose dim defaults to the first of size 3.
Tensor linalg_cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim = std::nullopt);
// meshgrid: torch.meshgrid. Tensor i (0-d or 1-d) expanded along dim i of a grid of all their
// sizes: views, no copies. indexing "xy" swaps the first two dims (NumPy's Cartesian order).
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors,
                             const std::string& indexing = "ij");
// cdist: torch.cdist. The p-norm distance between each row of x1 [..., P, M] and each row of
// x2 [..., R, M]: [..., P, R] (batch dims broadcast). p = 2 with P and R above 25 goes through
// one matmul (|a|^2 - 2 a.b + |b|^2, clamped at 0), as PyTorch's default does. The gradient at
// a zero distance is 0, as PyTorch's.
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2.0);
// var_mean, std_mean: torch.var_mean and torch.std_mean, (var or std, mean) over dims.
std::tuple<Tensor, Tensor> var_mean(const Tensor& a, const Shape& dims = {}, bool unbiased = true,
                                    bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& a, const Shape& dims = {}, bool unbiased = true,
                                    bool keepdim = false);

// ---- counting (ops_unique.cpp); each reads its result's size back to the host ----
// bincount: torch.bincount. Counts of each value of a 1-d non-negative int64 (or bool)
// tensor, max + 1 of them (at least minlength); with weights, their sums instead (float
// weights keep their dtype, others give float64).
Tensor bincount(const Tensor& a, const std::optional<Tensor>& weights = std::nullopt,
                int64_t minlength = 0);
// unique: torch.unique over all elements (libtorch's _unique2): the distinct values in
// increasing order (always sorted; NaNs are each distinct and last), and where asked, the
// inverse (each element's position in the values, a's shape) and the counts; tensors not asked
// for are empty. unique_consecutive: the same for runs of equal neighbours, in order (of equal
// slices along dim, when given).
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& a, bool sorted = true,
                                          bool return_inverse = false, bool return_counts = false);
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& a, bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);
// unique_dim: torch.unique(a, dim=d): the distinct slices a.select(dim, i) in lexicographic
// order (NaN last and each NaN distinct, element by element); the inverse is the slice
// number of each index along dim, the counts those of each distinct slice.
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& a, int64_t dim, bool sorted = true,
                                              bool return_inverse = false,
                                              bool return_counts = false);

}  // namespace wick
