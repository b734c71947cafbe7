// ops.hpp: every tensor op as a free function in wick::, spelled as in libtorch. Each one checks
// its operands once (shapes, dtypes, devices), picks the result's shape and dtype (NumPy
// broadcasting, PyTorch promotion: docs/type-promotion.md), and dispatches to the kernel of the
// operands' device. Tested by the op sweep (tests/test_op_sweep.cpp) against float64 references.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "wick/indexing.hpp"
#include "wick/ops_bits.hpp"
#include "wick/ops_index.hpp"
#include "wick/ops_layout.hpp"
#include "wick/ops_numeric.hpp"
#include "wick/ops_order.hpp"
#include "wick/tensor.hpp"

namespace wick {

// ---- factories ----
Tensor empty(const Shape& size, TensorOptions options = {});
Tensor zeros(const Shape& size, TensorOptions options = {});
Tensor ones(const Shape& size, TensorOptions options = {});
Tensor full(const Shape& size, const Scalar& value, TensorOptions options = {});
// arange's dtype is int64 when every bound is an integer and no dtype is given, as in PyTorch.
Tensor arange(const Scalar& end, std::optional<TensorOptions> options = std::nullopt);
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1,
              std::optional<TensorOptions> options = std::nullopt);
Tensor rand(const Shape& size, TensorOptions options = {});   // uniform on [0, 1)
Tensor randn(const Shape& size, TensorOptions options = {});  // standard normal
Tensor eye(int64_t n, TensorOptions options = {});
Tensor empty_like(const Tensor& t);
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
Tensor full_like(const Tensor& t, const Scalar& value);
Tensor rand_like(const Tensor& t);
Tensor randn_like(const Tensor& t);
Tensor empty_like(const Tensor& t, TensorOptions options);
Tensor zeros_like(const Tensor& t, TensorOptions options);
Tensor ones_like(const Tensor& t, TensorOptions options);

// From host data: values in row-major order; shape defaults to [values.size()].
// The dtype follows the values (bool, int64 for any integer, float32, float64) unless options
// name one.
template <typename T>
Tensor tensor(const std::vector<T>& values, const Shape& shape, TensorOptions options = {});
template <typename T>
Tensor tensor(const std::vector<T>& values, TensorOptions options = {}) {
  return tensor(values, Shape{static_cast<int64_t>(values.size())}, options);
}
// A nested list of numbers, as torch::tensor takes it: tensor({1.5, 2}), tensor({{1, 2}, {3, 4}}),
// tensor({{{true}}}). Every list at one depth must have the same length (else a ShapeError).
// The dtype follows Python's torch.tensor unless options name one: float32 if any number is
// floating, else int64 if any is an integer, else bool; an empty list is float32 [0].
class NestedValues {
 public:
  NestedValues() = default;                                // {}: an empty list
  NestedValues(std::initializer_list<NestedValues> items)  // NOLINT: implicit, as a literal
      : items_(items), is_list_(true) {}
  template <typename T>
  requires std::is_arithmetic_v<T> NestedValues(T v)  // NOLINT: implicit, as a literal
      : value_(static_cast<double>(v)),
        kind_(std::is_same_v<T, bool> ? Kind::Bool
              : std::is_integral_v<T> ? Kind::Int
                                      : Kind::Float),
        is_list_(false) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t)) {
        // As torch.tensor: past int64's range is an error, not a wrap to < 0.
        WICK_CHECK(v <= static_cast<T>(std::numeric_limits<int64_t>::max()), ValueError, "tensor",
                   "value ", v, " does not fit in int64");
      }
      int_value_ = static_cast<int64_t>(v);
    }
  }
  enum class Kind { Bool, Int, Float };
  bool is_list() const { return is_list_; }
  const std::vector<NestedValues>& items() const { return items_; }
  double value() const { return value_; }
  int64_t int_value() const { return int_value_; }
  Kind kind() const { return kind_; }

 private:
  std::vector<NestedValues> items_;
  double value_ = 0;
  int64_t int_value_ = 0;  // integers kept exact past 2^53
  Kind kind_ = Kind::Float;
  bool is_list_ = true;
};
Tensor tensor(const NestedValues& values, TensorOptions options = {});
Tensor scalar_tensor(const Scalar& value, TensorOptions options = {});

// Seeds the generator that rand/randn use on every device (Philox-4x32-10, keyed on seed).
void manual_seed(uint64_t seed);

// ---- elementwise ----
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);  // true division: integers give float32
Tensor add(const Tensor& a, const Scalar& b);
Tensor sub(const Tensor& a, const Scalar& b);
Tensor mul(const Tensor& a, const Scalar& b);
Tensor div(const Tensor& a, const Scalar& b);
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);
// atan2(a, b): the angle of the point (b, a) in [-pi, pi], the quadrant from both signs
// (atan2(0, -0) = pi); integers and bool give float32. hypot: sqrt(a^2 + b^2) without overflow
// or underflow in between; floating operands only.
Tensor atan2(const Tensor& a, const Tensor& b);
Tensor hypot(const Tensor& a, const Tensor& b);
// The remainder of a / b: fmod's has a's sign (C's fmod, a - trunc(a / b) * b), remainder's has
// b's (Python's %, a - floor(a / b) * b). Integers and floats, not bool; an integer zero divisor
// is a ValueError (as PyTorch's ZeroDivisionError), a floating one gives NaN.
Tensor fmod(const Tensor& a, const Tensor& b);
Tensor fmod(const Tensor& a, const Scalar& b);
Tensor remainder(const Tensor& a, const Tensor& b);
Tensor remainder(const Tensor& a, const Scalar& b);
Tensor remainder(const Scalar& a, const Tensor& b);
// div with a rounding mode: a / b rounded toward zero ("trunc") or down ("floor", Python's
// //); floor_divide(a, b) is div(a, b, "floor") (PyTorch 1.13's floor_divide floors too). The
// result has the promoted dtype: integers stay integers and divide exactly; bool and an integer
// zero divisor are errors, as fmod's. Floating "floor" is Python's floordiv (1 // 0.1 is 9,
// since 0.1 is above 1/10), and x // 0 is inf, -inf or NaN. The gradient is zero (PyTorch's for
// div with a rounding mode; its floor_divide has none). Any other mode is a ValueError.
Tensor div(const Tensor& a, const Tensor& b, std::string_view rounding_mode);
Tensor div(const Tensor& a, const Scalar& b, std::string_view rounding_mode);
Tensor floor_divide(const Tensor& a, const Tensor& b);
Tensor floor_divide(const Tensor& a, const Scalar& b);
// copysign: |a| with b's sign bit (so -0 and a NaN's sign count), in floating point: integers
// and bool give float32, as PyTorch's. The gradient of a is g times copysign(a, b) / a (0 where
// a is 0), of b zero. signbit: whether a's sign bit is set (-0 and -NaN included); integers: a
// < 0; bool: false.
Tensor copysign(const Tensor& a, const Tensor& b);
Tensor copysign(const Tensor& a, const Scalar& b);
Tensor signbit(const Tensor& a);
// The gradients of sigmoid and tanh from their result y, as PyTorch's aten ops of these names
// (what backward() uses): grad * (1 - y) * y and grad * (1 - y * y), in one pass, rounded as
// PyTorch 1.13's CPU kernels round them. Floating dtypes only; the operands broadcast.
Tensor sigmoid_backward(const Tensor& grad_output, const Tensor& output);
Tensor tanh_backward(const Tensor& grad_output, const Tensor& output);
Tensor pow(const Tensor& base, const Tensor& exponent);
Tensor pow(const Tensor& base, const Scalar& exponent);
Tensor pow(const Scalar& base, const Tensor& exponent);
Tensor neg(const Tensor& a);
Tensor abs(const Tensor& a);
Tensor exp(const Tensor& a);
Tensor log(const Tensor& a);
Tensor sqrt(const Tensor& a);
Tensor relu(const Tensor& a);
Tensor sigmoid(const Tensor& a);
Tensor tanh(const Tensor& a);
Tensor erf(const Tensor& a);    // the error function (GELU's exact form uses it)
Tensor log1p(const Tensor& a);  // log(1 + a), exact near 0 where log(1 + a) rounds 1 + a first
Tensor expm1(const Tensor& a);  // exp(a) - 1, exact near 0
Tensor sin(const Tensor& a);
Tensor cos(const Tensor& a);
// More of the C library's functions, as PyTorch's: integers and bool compute in float32, NaN
// outside the domain (asin and acos beyond [-1, 1], log2 and log10 below 0).
Tensor tan(const Tensor& a);
Tensor asin(const Tensor& a);
Tensor acos(const Tensor& a);
Tensor atan(const Tensor& a);
Tensor sinh(const Tensor& a);
Tensor cosh(const Tensor& a);
Tensor log2(const Tensor& a);
Tensor log10(const Tensor& a);
// The inverse hyperbolic functions, erfc (1 - erf, exact in the tail where 1 - erf(a) rounds
// to 0), exp2 (2^a), erfinv (erf's inverse: +-inf at +-1, NaN outside [-1, 1]), lgamma (log
// |Gamma(a)|: +inf at 0 and the negative integers), digamma (Gamma'/Gamma, PyTorch's
// conventions: -inf at +0, +inf at -0, NaN at the negative integers) and polygamma(n, a), the
// n-th derivative of digamma (n >= 0, else a ValueError; (-1)^(n+1) inf at the poles, where
// PyTorch 1.13 gives large finite numbers for n = 1). Integers and bool compute in float32; every
// dtype is computed in float64 and rounded once on both devices (erfinv stays accurate in the
// tails, where PyTorch 1.13's is off by up to 1e-4 relative: its Newton steps use erf, not erfc).
// Differentiable: lgamma's gradient is digamma, digamma's polygamma(1, .), polygamma(n, .)'s
// polygamma(n + 1, .).
Tensor asinh(const Tensor& a);
Tensor acosh(const Tensor& a);
Tensor atanh(const Tensor& a);
Tensor erfc(const Tensor& a);
Tensor erfinv(const Tensor& a);
Tensor exp2(const Tensor& a);
Tensor lgamma(const Tensor& a);
Tensor digamma(const Tensor& a);
Tensor polygamma(int64_t n, const Tensor& a);
Tensor rsqrt(const Tensor& a);       // 1 / sqrt(a)
Tensor reciprocal(const Tensor& a);  // 1 / a; int64 and bool give float32, as PyTorch
// Rounding to an integral value: int64 passes through (a copy), bool is a DtypeError, as in
// PyTorch. round is to nearest, ties to even (round(0.5) = 0, round(2.5) = 2).
Tensor floor(const Tensor& a);
Tensor ceil(const Tensor& a);
Tensor round(const Tensor& a);
Tensor trunc(const Tensor& a);
// -1, 0 or 1 in a's dtype (bool: a itself); sign(nan) = 0 and sign(-0.) = 0, as PyTorch 1.13.
Tensor sign(const Tensor& a);
Tensor clamp(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
Tensor clamp_min(const Tensor& a, const Scalar& min);
Tensor clamp_max(const Tensor& a, const Scalar& max);

// ---- comparisons (result kBool) and selection ----
Tensor eq(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, const Scalar& b);
Tensor ne(const Tensor& a, const Scalar& b);
Tensor lt(const Tensor& a, const Scalar& b);
Tensor le(const Tensor& a, const Scalar& b);
Tensor gt(const Tensor& a, const Scalar& b);
Tensor ge(const Tensor& a, const Scalar& b);
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& condition, const Tensor& a, const Scalar& b);
Tensor where(const Tensor& condition, const Scalar& a, const Tensor& b);
// Two numbers: float32 if either is floating, else int64 (bool if both are), as torch.where
// with Python numbers; on the condition's device.
Tensor where(const Tensor& condition, const Scalar& a, const Scalar& b);
// where(condition): the positions of its nonzero elements, one int64 tensor per dim
// (torch.where with one argument, nonzero(as_tuple=True); a 0-d condition counts as 1-D).
std::vector<Tensor> where(const Tensor& condition);
bool equal(const Tensor& a, const Tensor& b);  // same sizes and values

// ---- tests of values, logical ops, masks (ops_logical.cpp; bool results) ----
// Made of comparisons, sum and where, so they run on every device. Integer and bool tensors
// are never NaN or infinite.
Tensor isnan(const Tensor& a);
Tensor isinf(const Tensor& a);
Tensor isfinite(const Tensor& a);  // neither NaN nor infinite
// The truth of a number is "!= 0" (NaN is true), as PyTorch's; operands broadcast.
Tensor logical_not(const Tensor& a);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);
// Whether any (all) elements are true, over everything or one dim; an empty set gives false
// (true), as PyTorch's.
Tensor any(const Tensor& a);
Tensor any(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor all(const Tensor& a);
Tensor all(const Tensor& a, int64_t dim, bool keepdim = false);
// a with value where the bool mask holds; a and mask broadcast (the result takes the broadcast
// shape, as torch 1.13's masked_fill). The value is converted to a's dtype as fill_ does (an
// out-of-range number is a ValueError); a 0-d tensor value gets the gradient of the masked
// elements. A non-bool mask is a DtypeError (PyTorch 1.13 still takes uint8 with a warning).
Tensor masked_fill(const Tensor& a, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& a, const Tensor& mask, const Tensor& value);
// The lower (upper) triangle of the last two dims: elements with col - row <= diagonal
// (>= diagonal) kept, the others 0; batches of matrices in the leading dims.
Tensor tril(const Tensor& a, int64_t diagonal = 0);
Tensor triu(const Tensor& a, int64_t diagonal = 0);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

// ---- reductions (dim may be negative; several dims as a Shape) ----
Tensor sum(const Tensor& a);  // integers and bool sum to int64
Tensor sum(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor sum(const Tensor& a, const Shape& dims, bool keepdim = false);
Tensor mean(const Tensor& a);  // floating only, as PyTorch
Tensor mean(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor mean(const Tensor& a, const Shape& dims, bool keepdim = false);
// A braced list of dims is a Shape, {} (every dim) included: without these overloads,
// sum(x, {}) took the int64_t one, dim 0, where PyTorch's sum(x, ()) reduces every dim.
inline Tensor sum(const Tensor& a, std::initializer_list<int64_t> dims, bool keepdim = false) {
  return sum(a, Shape(dims), keepdim);
}
inline Tensor mean(const Tensor& a, std::initializer_list<int64_t> dims, bool keepdim = false) {
  return mean(a, Shape(dims), keepdim);
}
// Variance over all elements or dims (empty dims: all): sum((x - mean)^2) / (n - 1), or / n
// when unbiased is false, as torch.var; n - 1 <= 0 gives inf or NaN as PyTorch's. Two passes
// (the mean first), so a large mean against a small spread keeps its digits; built from mean,
// sub, mul and sum, so autograd and both devices come with them. Floating only. std = sqrt(var).
// Dims go in a list, var(x, {0}). var(x, false) is over all elements; the bool overload takes a
// bool only, so var(x, 0) does not compile and var(x, {1}) is dim 1 (libtorch's var(bool) takes
// both: x.var(0) and x.var({1}) silently mean unbiased = false and true there).
Tensor var(const Tensor& a, const Shape& dims = {}, bool unbiased = true, bool keepdim = false);
// One dim, as libtorch's x.var(1, true, true); the bool is required, so var(x, 0) stays an error.
inline Tensor var(const Tensor& a, int64_t dim, bool unbiased, bool keepdim = false) {
  return var(a, Shape{dim}, unbiased, keepdim);
}
template <std::same_as<bool> B>
Tensor var(const Tensor& a, B unbiased) {
  return var(a, Shape{}, unbiased, false);
}
// Braced dims, {} (every dim) included: var(x, {}, false) would take the int64_t overload.
inline Tensor var(const Tensor& a, std::initializer_list<int64_t> dims, bool unbiased = true,
                  bool keepdim = false) {
  return var(a, Shape(dims), unbiased, keepdim);
}
Tensor std(const Tensor& a, const Shape& dims = {}, bool unbiased = true, bool keepdim = false);
inline Tensor std(const Tensor& a, int64_t dim, bool unbiased, bool keepdim = false) {
  return std(a, Shape{dim}, unbiased, keepdim);
}
template <std::same_as<bool> B>
Tensor std(const Tensor& a, B unbiased) {
  return std(a, Shape{}, unbiased, false);
}
inline Tensor std(const Tensor& a, std::initializer_list<int64_t> dims, bool unbiased = true,
                  bool keepdim = false) {
  return std(a, Shape(dims), unbiased, keepdim);
}
Tensor max(const Tensor& a);
Tensor min(const Tensor& a);
std::tuple<Tensor, Tensor> max(const Tensor& a, int64_t dim, bool keepdim = false);
std::tuple<Tensor, Tensor> min(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor amax(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor amin(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor amax(const Tensor& a, const Shape& dims, bool keepdim = false);  // empty dims: all
Tensor amin(const Tensor& a, const Shape& dims, bool keepdim = false);
inline Tensor amax(const Tensor& a, std::initializer_list<int64_t> dims, bool keepdim = false) {
  return amax(a, Shape(dims), keepdim);
}
inline Tensor amin(const Tensor& a, std::initializer_list<int64_t> dims, bool keepdim = false) {
  return amin(a, Shape(dims), keepdim);
}
// log(sum(exp(a))) over dims (empty: all), without overflow: the largest element is taken out
// first, as torch.logsumexp. A zero-size dim gives -inf; integers give float32.
Tensor logsumexp(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor logsumexp(const Tensor& a, const Shape& dims, bool keepdim = false);
inline Tensor logsumexp(const Tensor& a, std::initializer_list<int64_t> dims,
                        bool keepdim = false) {
  return logsumexp(a, Shape(dims), keepdim);
}
Tensor argmax(const Tensor& a);  // index into the flattened tensor
Tensor argmax(const Tensor& a, int64_t dim, bool keepdim = false);
Tensor argmin(const Tensor& a);
Tensor argmin(const Tensor& a, int64_t dim, bool keepdim = false);

// ---- linear algebra and normalisation ----
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);  // 2-D only
Tensor softmax(const Tensor& a, int64_t dim);
Tensor log_softmax(const Tensor& a, int64_t dim);
// layer_norm: normalises over the last normalized_shape.size() dims, whose sizes must equal
// normalized_shape: (x - mean) / sqrt(var + eps) with the biased variance, then * weight + bias
// where given (each of sizes normalized_shape, the input's dtype and device). One fused kernel;
// float32 rows take their mean and variance in double. As torch.nn.functional.layer_norm.
Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);
// layer_norm's gradients (what its backward rule runs), as PyTorch's native_layer_norm_backward
// with the row statistics recomputed from the input: {d input, d weight, d bias}, each computed
// only where output_mask says so (undefined otherwise). d weight and d bias sum over the rows
// in a fixed order, so they have the same bits for any thread count. Not differentiable itself:
// under grad mode with an operand that requires grad it is an AutogradError.
std::array<Tensor, 3> layer_norm_backward(const Tensor& grad_output, const Tensor& input,
                                          const Shape& normalized_shape, const Tensor& weight,
                                          double eps, std::array<bool, 3> output_mask);

// ---- joining ----
// cat: the tensors joined along dim (every other size must match; 1-D empty tensors of sizes
// [0] are skipped, as in PyTorch); the result is contiguous, of the promoted dtype (PyTorch
// keeps a channels-last layout that every input shares; wick does not).
// stack: equal-sized tensors joined along a new dim, the same way.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);

// ---- views and copies as functions ----
Tensor transpose(const Tensor& a, int64_t dim0, int64_t dim1);
Tensor reshape(const Tensor& a, const Shape& shape);
Tensor flatten(const Tensor& a, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor unsqueeze(const Tensor& a, int64_t dim);
Tensor squeeze(const Tensor& a);
Tensor squeeze(const Tensor& a, int64_t dim);
Tensor permute(const Tensor& a, const Shape& dims);
Tensor narrow(const Tensor& a, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& a, int64_t dim, int64_t index);
// diagonal: the view of a's diagonal `offset` (above the main one when positive) in the plane
// of dims dim1 and dim2, those dims removed and the diagonal appended as the last dim
// (torch.diagonal); writes through it reach a.
Tensor diagonal(const Tensor& a, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
// Views of a along dim, as torch.split, torch.chunk and torch.unbind. split(a, n): pieces of n
// (the last smaller); split(a, {2, 8}): pieces of those sizes, which must sum to a.size(dim);
// chunk(a, k): pieces of ceil(size / k), so possibly fewer than k; unbind: every index selected.
std::vector<Tensor> split(const Tensor& a, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& a, const Shape& split_sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& a, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& a, int64_t dim = 0);
Shape broadcast_shapes(const Shape& a, const Shape& b);

// ---- dims moved and stacked (ops_arrange.cpp) ----
// movedim: a view with dims source[i] at positions destination[i], the others in their order
// (torch.movedim). swapaxes and swapdims: transpose. unflatten: dim split into sizes (one may
// be -1), through reshape (a view where the strides allow, else a copy; PyTorch's needs a view).
// atleast_*d: 0-d as [1], [1, 1] or [1, 1, 1]; 1-D [n] as [1, n] or [1, n, 1]; 2-D as [m, n, 1]
// for 3d. vstack: cat of atleast_2d along 0; hstack: of atleast_1d along 0 for vectors, else 1;
// dstack: of atleast_3d along 2; column_stack: vectors and 0-d as columns, then along 1.
Tensor movedim(const Tensor& a, const Shape& source, const Shape& destination);
Tensor movedim(const Tensor& a, int64_t source, int64_t destination);
Tensor swapaxes(const Tensor& a, int64_t axis0, int64_t axis1);
Tensor swapdims(const Tensor& a, int64_t dim0, int64_t dim1);
Tensor unflatten(const Tensor& a, int64_t dim, const Shape& sizes);
Tensor atleast_1d(const Tensor& a);
Tensor atleast_2d(const Tensor& a);
Tensor atleast_3d(const Tensor& a);
Tensor vstack(const std::vector<Tensor>& tensors);
Tensor hstack(const std::vector<Tensor>& tensors);
Tensor dstack(const std::vector<Tensor>& tensors);
Tensor column_stack(const std::vector<Tensor>& tensors);

// ---- arrangements of the ops above (ops_compose.cpp, ops_sample.cpp) ----
// No kernels of their own: both devices and autograd come with the ops they are made of.
// flip: the elements along each of dims in reverse order (torch.flip; a copy).
Tensor flip(const Tensor& a, const Shape& dims);
// roll: the elements shifted by shifts[i] along dims[i], wrapping around (torch.roll); with no
// dims, one shift over the flattened tensor, shaped back.
Tensor roll(const Tensor& a, const Shape& shifts, const Shape& dims = {});
// repeat: a tiled repeats[i] times along dim i (Tensor.repeat); repeats may have more entries
// than a has dims (new leading dims), not fewer. tile: fewer allowed (ones put in front).
Tensor repeat(const Tensor& a, const Shape& repeats);
Tensor tile(const Tensor& a, const Shape& repeats);
// repeat_interleave: each element repeated `repeats` times in place along dim; without a dim,
// over the flattened tensor.
Tensor repeat_interleave(const Tensor& a, int64_t repeats,
                         std::optional<int64_t> dim = std::nullopt);
// diag: of a 1-D tensor, the square matrix with it on diagonal `diagonal` (above the main one
// when positive); of a 2-D tensor, that diagonal as 1-D. trace: the main diagonal's sum.
Tensor diag(const Tensor& a, int64_t diagonal = 0);
Tensor trace(const Tensor& a);
// dot: two 1-D tensors of one length and dtype (0-d result); outer: [n] and [m] -> [n, m];
// bmm: [b, n, k] and [b, k, m] -> [b, n, m], no broadcasting (as torch.bmm); addmm:
// beta * c + alpha * (a @ b) with c broadcasting to [n, m] (beta 0 ignores c, NaN included).
Tensor dot(const Tensor& a, const Tensor& b);
Tensor outer(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta = 1,
             const Scalar& alpha = 1);
// norm: the p-norm over dims (every dim when empty) of a floating tensor: p = 2 (default),
// 1, inf, -inf (largest, smallest magnitude), 0 (the count of nonzeros), or any other p > 0.
// At a zero vector the 2-norm's gradient is 0, as PyTorch's, not 0 * inf = NaN.
Tensor norm(const Tensor& a, double p = 2, const Shape& dims = {}, bool keepdim = false);
// lerp: a + weight * (b - a), in PyTorch 1.13's two forms (b - (b - a) * (1 - weight) where
// weight >= 0.5), so that weight 1 gives b exactly.
Tensor lerp(const Tensor& a, const Tensor& b, const Scalar& weight);
Tensor lerp(const Tensor& a, const Tensor& b, const Tensor& weight);
Tensor square(const Tensor& a);
// nonzero: the int64 positions [K, a.dim()] of the K nonzero elements (NaN counts), in
// row-major order; masked_select: the elements of a where the bool mask holds (a and mask
// broadcast), as 1-D. Their sizes depend on the values, so each copies the mask to the host
// (a synchronisation on a GPU). masked_select is differentiable in a.
Tensor nonzero(const Tensor& a);
Tensor masked_select(const Tensor& a, const Tensor& mask);
// linspace: steps values from start to end evenly spaced (float32 unless options say
// otherwise), computed in double from both ends as PyTorch does; logspace: base ** linspace.
Tensor linspace(double start, double end, int64_t steps, TensorOptions options = {});
Tensor logspace(double start, double end, int64_t steps, double base = 10.0,
                TensorOptions options = {});
// Random (from wick's Philox stream, so manual_seed repeats them on either device):
// randint: integers uniform in [low, high) (int64 unless options give a dtype; high - low at
// most 2^53); randperm: a uniformly random permutation of 0..n-1 (int64); bernoulli: 1 with
// probability p (each element of p in [0, 1]), else 0, in p's dtype; multinomial: num_samples
// class indices per row of nonnegative weights [C] or [N, C] (normalised here), with
// replacement or without (then num_samples at most a row's count of nonzero weights; the
// indices in the order drawn). Checking p and the weights costs one host copy.
Tensor randint(int64_t low, int64_t high, const Shape& size,
               std::optional<TensorOptions> options = std::nullopt);
Tensor randint(int64_t high, const Shape& size,
               std::optional<TensorOptions> options = std::nullopt);
Tensor randperm(int64_t n, std::optional<TensorOptions> options = std::nullopt);
Tensor bernoulli(const Tensor& p);
Tensor multinomial(const Tensor& weights, int64_t num_samples, bool replacement = false);

// ---- einsum (ops_einsum.cpp) ----
// einsum: torch.einsum. "ij,jk->ik" names each operand's dims with letters; a letter repeated
// in one operand takes its diagonal, letters shared by operands multiply along them, letters
// the output lacks are summed; "..." stands for broadcast dims (right-aligned); without "->"
// the output is the "..." dims then the letters that appear once, uppercase before lowercase.
// Sizes must match or be 1 (broadcast). Contracted pairwise, left to right, one matmul each.
// Operands of one dtype and device; errors name the equation and the shapes. Differentiable.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

// ---- NaN-aware reductions and closeness (ops_nan.cpp) ----
// nansum, nanmean: sum and mean with NaNs left out (nanmean of all-NaN is NaN; floating only).
// nan_to_num: NaN, +inf and -inf replaced (by default 0 and the dtype's largest and lowest
// finite values; integer and bool tensors are copied). count_nonzero: int64 counts over dims
// (all when none). isclose: |a - b| <= atol + rtol |b| elementwise (equal values, infinities
// included, are close; NaNs only with equal_nan), a and b of one dtype, broadcast; allclose
// (above) is its all(). Differentiable where PyTorch's are: through the ops they are made of.
Tensor nansum(const Tensor& a);
Tensor nansum(const Tensor& a, const Shape& dims, bool keepdim = false);
Tensor nanmean(const Tensor& a);
Tensor nanmean(const Tensor& a, const Shape& dims, bool keepdim = false);
Tensor nan_to_num(const Tensor& a, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);
Tensor count_nonzero(const Tensor& a);
Tensor count_nonzero(const Tensor& a, const Shape& dims);
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
               bool equal_nan = false);

// ---- pointwise arrangements (ops_pointwise.cpp) ----
// addcmul: a + value * t1 * t2; addcdiv: a + value * t1 / t2 (integer division refused, as
// PyTorch 1.13), all three broadcast, the dtype promoted; an integer result needs an integral
// value. logaddexp: log(e^a + e^b) without overflow (max + log1p(e^-|a - b|); equal infinities
// give themselves), floating. xlogy: a log b, 0 where a == 0 (unless b is NaN), in floating.
// logit: log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given.
Tensor addcmul(const Tensor& a, const Tensor& tensor1, const Tensor& tensor2,
               const Scalar& value = 1);
Tensor addcdiv(const Tensor& a, const Tensor& tensor1, const Tensor& tensor2,
               const Scalar& value = 1);
Tensor logaddexp(const Tensor& a, const Tensor& b);
Tensor xlogy(const Tensor& a, const Tensor& b);
// xlog1py: torch.special.xlog1py. a log1p(b), 0 where a == 0 (unless b is NaN), in floating.
Tensor xlog1py(const Tensor& a, const Tensor& b);
Tensor logit(const Tensor& a, std::optional<double> eps = std::nullopt);
// fmax, fmin: maximum and minimum that ignore NaN (NaN only where both are); the dtype is
// promoted; a tie gives a the gradient. heaviside: 0 below zero, values at zero, 1 above (NaN
// gives 0), a and values of one dtype. frac: a - trunc(a), floating only.
Tensor fmax(const Tensor& a, const Tensor& b);
Tensor fmin(const Tensor& a, const Tensor& b);
Tensor heaviside(const Tensor& a, const Tensor& values);
Tensor frac(const Tensor& a);

// ---- matrices and histograms (ops_matrix.cpp) ----
// kron: the Kronecker product (dims aligned on the right, leading 1s added), block (i, j) =
// a[i, j] * b. rot90: a turned k quarter turns in the plane of dims, from the first towards
// the second (a copy). diag_embed: the last dim of a on diagonal `offset` of new dims dim1 and
// dim2 (of the result), zeros elsewhere. baddbmm: beta * a + alpha * bmm(b1, b2), a
// broadcasting to the product (beta 0 ignores a, NaN included). histc: a histogram of bins
// equal bins over [min, max] (the data's range when min == max), elements outside it and NaN
// left out, in a's floating dtype; not differentiable.
Tensor kron(const Tensor& a, const Tensor& b);
Tensor rot90(const Tensor& a, int64_t k = 1, const Shape& dims = {0, 1});
Tensor diag_embed(const Tensor& a, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor baddbmm(const Tensor& a, const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
               const Scalar& alpha = 1);
Tensor histc(const Tensor& a, int64_t bins = 100, double min = 0, double max = 0);
// mv: matrix [m, n] times vector [n]. tensordot: the sum over pairs of dims (dims_a[i] of a
// with dims_b[i] of b, of equal sizes), the result a's other dims then b's; tensordot(a, b, k)
// pairs a's last k dims with b's first k. Through permute, reshape and mm.
Tensor mv(const Tensor& matrix, const Tensor& vector);
Tensor tensordot(const Tensor& a, const Tensor& b, const Shape& dims_a, const Shape& dims_b);
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims = 2);

// ---- operators ----
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, const Scalar& b);
Tensor operator!=(const Tensor& a, const Scalar& b);
Tensor operator<(const Tensor& a, const Scalar& b);
Tensor operator<=(const Tensor& a, const Scalar& b);
Tensor operator>(const Tensor& a, const Scalar& b);
Tensor operator>=(const Tensor& a, const Scalar& b);
// A number on the left, as libtorch: 2 < t is t > 2.
Tensor operator==(const Scalar& a, const Tensor& b);
Tensor operator!=(const Scalar& a, const Tensor& b);
Tensor operator<(const Scalar& a, const Tensor& b);
Tensor operator<=(const Scalar& a, const Tensor& b);
Tensor operator>(const Scalar& a, const Tensor& b);
Tensor operator>=(const Scalar& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Scalar& b);

// ---- template definitions ----
namespace detail {
Tensor tensor_from_host(const void* data, size_t count, Dtype source_dtype, const Shape& shape,
                        TensorOptions options);
}
template <typename T>
Tensor tensor(const std::vector<T>& values, const Shape& s, TensorOptions options) {
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<char> bytes(values.begin(), values.end());
    return detail::tensor_from_host(bytes.data(), bytes.size(), kBool, s, options);
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t)) {
      // As torch.tensor: an unsigned value past int64's range is an error, not a wrap to < 0.
      for (T v : values) {
        WICK_CHECK(v <= static_cast<T>(std::numeric_limits<int64_t>::max()), ValueError, "tensor",
                   "value ", v, " does not fit in int64");
      }
    }
    std::vector<int64_t> wide(values.begin(), values.end());
    return detail::tensor_from_host(wide.data(), wide.size(), kInt64, s, options);
  } else {
    static_assert(
        std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, BFloat16>,
        "wick::tensor takes bool, integer, float, double or BFloat16 values");
    return detail::tensor_from_host(values.data(), values.size(), dtype_of<T>, s, options);
  }
}

}  // namespace wick
