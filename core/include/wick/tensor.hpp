// tensor.hpp: Tensor = Storage + layout (sizes, strides in elements, offset) + dtype, with an
// optional autograd slot. A Tensor is a cheap handle: copies share the same TensorImpl, and
// views share the Storage. Methods here forward to the free functions of ops.hpp, which do the
// checking and dispatch. See docs/tour.md for the path from a method call to a kernel.
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "wick/device.hpp"
#include "wick/dtype.hpp"
#include "wick/error.hpp"
#include "wick/scalar.hpp"
#include "wick/shape.hpp"
#include "wick/storage.hpp"
#include "wick/tensor_options.hpp"

namespace wick {

class Tensor;
namespace indexing {
class TensorIndex;  // wick/indexing.hpp
}
struct AutogradMeta;  // below: the grad, and the graph node that made this tensor
class Node;           // defined by the autograd layer; core only holds pointers to it

struct TensorImpl {
  TensorImpl(Storage s, Shape sz, Shape st, int64_t off, Dtype dt)
      : storage(std::move(s)), sizes(sz), strides(st), offset(off), dtype(dt) {}
  ~TensorImpl();

  Storage storage;
  Shape sizes;
  Shape strides;       // in elements
  int64_t offset = 0;  // in elements, from the start of storage
  Dtype dtype;
  bool requires_grad = false;  // mirrors autograd != nullptr && it is needed, for speed
  // A view made under NoGradGuard of a tensor that requires grad (PyTorch's creation meta
  // NO_GRAD_MODE): writing it in place with grad mode on is an AutogradError.
  bool no_grad_view = false;
  std::unique_ptr<AutogradMeta> autograd;  // created on demand by the autograd layer
};

class Tensor {
 public:
  Tensor() = default;  // undefined: defined() is false
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- queries ----
  bool defined() const { return impl_ != nullptr; }
  const Shape& sizes() const { return impl().sizes; }
  const Shape& strides() const { return impl().strides; }
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(impl().sizes.size()); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const;
  Dtype dtype() const { return impl().dtype; }
  Dtype scalar_type() const { return dtype(); }
  Device device() const { return impl().storage->device(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_floating_point() const { return is_floating(dtype()); }
  size_t element_size() const { return wick::element_size(dtype()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  int64_t storage_offset() const { return impl().offset; }
  bool is_contiguous() const;
  const Storage& storage() const { return impl().storage; }
  TensorOptions options() const { return TensorOptions().dtype(dtype()).device(device()); }
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  TensorImpl* unsafe_impl() const { return impl_.get(); }

  // Raw pointer to the first element (on the tensor's device). T must match dtype().
  template <typename T>
  T* data_ptr() const;
  void* raw_data() const;  // untyped, already offset
  // The single value of a one-element tensor, converted to T (copied to the host if needed).
  template <typename T>
  T item() const;
  Scalar item() const;
  // All values in row-major order, converted to T, on the host.
  template <typename T>
  std::vector<T> to_vector() const;

  // ---- moves and casts ----
  // to() and clone() keep the layout of a dense tensor (x.t().clone() is transposed too) and
  // give any other a dense one in the order of its strides, as PyTorch's preserve_format;
  // contiguous() is row-major. Elementwise results follow their inputs the same way
  // (wick/dim_order.hpp).
  Tensor to(Device device) const;
  Tensor to(Dtype dtype) const;
  Tensor to(Device device, Dtype dtype) const;
  Tensor to(DeviceType type) const { return to(Device(type)); }
  Tensor cpu() const { return to(Device(kCPU)); }
  Tensor cuda() const { return to(Device(kCUDA)); }
  Tensor clone() const;
  Tensor contiguous() const;
  Tensor detach() const;

  // ---- views (share storage) ----
  Tensor view(const Shape& shape) const;
  Tensor reshape(const Shape& shape) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor permute(const Shape& dims) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(const Shape& split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor select(int64_t dim, int64_t index) const;
  // diagonal: the diagonal `offset` of the plane (dim1, dim2), as a last dim, as a view.
  // unfold: every window of `size` elements `step` apart along dim, as a new last dim, as a
  // view (windows overlap when step < size). Both as PyTorch's.
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor unfold(int64_t dim, int64_t size, int64_t step) const;
  Tensor ravel() const;
  Tensor fliplr() const;
  Tensor flipud() const;
  Tensor broadcast_to(const Shape& shape) const;
  std::vector<Tensor> tensor_split(int64_t sections, int64_t dim = 0) const;
  std::vector<Tensor> tensor_split(const Shape& indices, int64_t dim = 0) const;
  Tensor index_select(int64_t dim, const Tensor& index) const;
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha = 1) const;
  Tensor gather(int64_t dim, const Tensor& index) const;
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                        std::string_view reduce, bool include_self = true) const;
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  Tensor index_fill(int64_t dim, const Tensor& index, const Tensor& value) const;
  Tensor take_along_dim(const Tensor& indices, std::optional<int64_t> dim = std::nullopt) const;
  Tensor movedim(const Shape& source, const Shape& destination) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor swapaxes(int64_t axis0, int64_t axis1) const;
  Tensor swapdims(int64_t dim0, int64_t dim1) const;
  Tensor unflatten(int64_t dim, const Shape& sizes) const;
  Tensor quantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  Tensor quantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  Tensor nanquantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                     bool keepdim = false, std::string_view interpolation = "linear") const;
  Tensor nanquantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     std::string_view interpolation = "linear") const;
  Tensor fmax(const Tensor& other) const;
  Tensor fmin(const Tensor& other) const;
  Tensor heaviside(const Tensor& values) const;
  Tensor frac() const;
  Tensor mv(const Tensor& vector) const;
  Tensor isin(const Tensor& test_elements, bool invert = false) const;
  Tensor argwhere() const;
  Tensor expand(const Shape& shape) const;
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }

  // ---- math (see ops.hpp for the rules) ----
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor div(const Tensor& other) const;
  Tensor add(const Scalar& other) const;
  Tensor sub(const Scalar& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor div(const Scalar& other) const;
  Tensor neg() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor abs() const;
  Tensor relu() const;
  Tensor sigmoid() const;
  Tensor erf() const;
  Tensor log1p() const;
  Tensor expm1() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tan() const;
  Tensor asin() const;
  Tensor acos() const;
  Tensor atan() const;
  Tensor sinh() const;
  Tensor cosh() const;
  Tensor log2() const;
  Tensor log10() const;
  Tensor asinh() const;
  Tensor acosh() const;
  Tensor atanh() const;
  Tensor erfc() const;
  Tensor erfinv() const;
  Tensor exp2() const;
  Tensor lgamma() const;
  Tensor digamma() const;
  Tensor polygamma(int64_t n) const;  // polygamma(n, *this), as torch's Tensor.polygamma
  Tensor rsqrt() const;
  Tensor reciprocal() const;
  Tensor floor() const;
  Tensor ceil() const;
  Tensor round() const;
  Tensor trunc() const;
  Tensor sign() const;
  Tensor isnan() const;
  Tensor isinf() const;
  Tensor isfinite() const;
  Tensor logical_not() const;
  Tensor any() const;
  Tensor any(int64_t dim, bool keepdim = false) const;
  Tensor all() const;
  Tensor all(int64_t dim, bool keepdim = false) const;
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  Tensor& masked_fill_(const Tensor& mask, const Scalar& value);
  Tensor tril(int64_t diagonal = 0) const;
  Tensor triu(int64_t diagonal = 0) const;
  Tensor tanh() const;
  Tensor pow(const Scalar& exponent) const;
  Tensor pow(const Tensor& exponent) const;
  Tensor clamp(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor clamp_min(const Scalar& min) const;
  Tensor clamp_max(const Scalar& max) const;
  Tensor eq(const Tensor& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor le(const Tensor& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor ge(const Tensor& other) const;
  Tensor eq(const Scalar& other) const;
  Tensor ne(const Scalar& other) const;
  Tensor lt(const Scalar& other) const;
  Tensor le(const Scalar& other) const;
  Tensor gt(const Scalar& other) const;
  Tensor ge(const Scalar& other) const;
  Tensor maximum(const Tensor& other) const;
  Tensor minimum(const Tensor& other) const;
  Tensor atan2(const Tensor& other) const;
  Tensor hypot(const Tensor& other) const;
  Tensor fmod(const Tensor& other) const;
  Tensor fmod(const Scalar& other) const;
  Tensor remainder(const Tensor& other) const;
  Tensor remainder(const Scalar& other) const;
  Tensor div(const Tensor& other, std::string_view rounding_mode) const;
  Tensor div(const Scalar& other, std::string_view rounding_mode) const;
  Tensor floor_divide(const Tensor& other) const;
  Tensor floor_divide(const Scalar& other) const;
  Tensor copysign(const Tensor& other) const;
  Tensor copysign(const Scalar& other) const;
  Tensor signbit() const;
  Tensor bitwise_and(const Tensor& other) const;
  Tensor bitwise_and(const Scalar& other) const;
  Tensor bitwise_or(const Tensor& other) const;
  Tensor bitwise_or(const Scalar& other) const;
  Tensor bitwise_xor(const Tensor& other) const;
  Tensor bitwise_xor(const Scalar& other) const;
  Tensor bitwise_left_shift(const Tensor& other) const;
  Tensor bitwise_left_shift(const Scalar& other) const;
  Tensor bitwise_right_shift(const Tensor& other) const;
  Tensor bitwise_right_shift(const Scalar& other) const;
  Tensor bitwise_not() const;
  Tensor gcd(const Tensor& other) const;
  Tensor lcm(const Tensor& other) const;
  Tensor nextafter(const Tensor& other) const;
  Tensor clip(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  Tensor deg2rad() const;
  Tensor rad2deg() const;
  Tensor sinc() const;
  Tensor float_power(const Tensor& exponent) const;
  Tensor float_power(const Scalar& exponent) const;
  Tensor logaddexp2(const Tensor& other) const;
  Tensor ldexp(const Tensor& other) const;
  std::tuple<Tensor, Tensor> frexp() const;
  Tensor isposinf() const;
  Tensor isneginf() const;
  Tensor msort() const;
  Tensor dist(const Tensor& other, double p = 2) const;
  std::tuple<Tensor, Tensor> aminmax(std::optional<int64_t> dim = std::nullopt,
                                     bool keepdim = false) const;
  Tensor sum() const;
  Tensor sum(int64_t dim, bool keepdim = false) const;
  Tensor sum(const Shape& dims, bool keepdim = false) const;
  Tensor mean() const;
  Tensor mean(int64_t dim, bool keepdim = false) const;
  Tensor mean(const Shape& dims, bool keepdim = false) const;
  // Braced dims, {} (every dim) included, are a Shape, as wick::sum's (not dim 0).
  Tensor sum(std::initializer_list<int64_t> dims, bool keepdim = false) const {
    return sum(Shape(dims), keepdim);
  }
  Tensor mean(std::initializer_list<int64_t> dims, bool keepdim = false) const {
    return mean(Shape(dims), keepdim);
  }
  // wick::var and wick::std: dims in a list, or one bool (unbiased) for all elements.
  Tensor var(const Shape& dims = {}, bool unbiased = true, bool keepdim = false) const;
  Tensor var(int64_t dim, bool unbiased, bool keepdim = false) const {
    return var(Shape{dim}, unbiased, keepdim);
  }
  template <std::same_as<bool> B>
  Tensor var(B unbiased) const {
    return var(Shape{}, unbiased, false);
  }
  Tensor var(std::initializer_list<int64_t> dims, bool unbiased = true,
             bool keepdim = false) const {
    return var(Shape(dims), unbiased, keepdim);
  }
  Tensor std(const Shape& dims = {}, bool unbiased = true, bool keepdim = false) const;
  Tensor std(int64_t dim, bool unbiased, bool keepdim = false) const {
    return std(Shape{dim}, unbiased, keepdim);
  }
  template <std::same_as<bool> B>
  Tensor std(B unbiased) const {
    return std(Shape{}, unbiased, false);
  }
  Tensor std(std::initializer_list<int64_t> dims, bool unbiased = true,
             bool keepdim = false) const {
    return std(Shape(dims), unbiased, keepdim);
  }
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor amax(int64_t dim, bool keepdim = false) const;
  Tensor logsumexp(int64_t dim, bool keepdim = false) const;
  Tensor logsumexp(const Shape& dims, bool keepdim = false) const;
  Tensor logsumexp(std::initializer_list<int64_t> dims, bool keepdim = false) const {
    return logsumexp(Shape(dims), keepdim);
  }
  Tensor amax(const Shape& dims, bool keepdim = false) const;  // empty dims: all
  Tensor amin(const Shape& dims, bool keepdim = false) const;
  Tensor amax(std::initializer_list<int64_t> dims, bool keepdim = false) const {
    return amax(Shape(dims), keepdim);
  }
  Tensor amin(std::initializer_list<int64_t> dims, bool keepdim = false) const {
    return amin(Shape(dims), keepdim);
  }
  Tensor amin(int64_t dim, bool keepdim = false) const;
  Tensor argmax() const;
  Tensor argmax(int64_t dim, bool keepdim = false) const;
  Tensor argmin() const;
  Tensor argmin(int64_t dim, bool keepdim = false) const;
  Tensor cumsum(int64_t dim, std::optional<Dtype> dtype = std::nullopt) const;
  Tensor cumprod(int64_t dim, std::optional<Dtype> dtype = std::nullopt) const;
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  Tensor logcumsumexp(int64_t dim) const;
  Tensor prod(std::optional<Dtype> dtype = std::nullopt) const;
  Tensor prod(int64_t dim, bool keepdim = false, std::optional<Dtype> dtype = std::nullopt) const;
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  std::tuple<Tensor, Tensor> sort(std::optional<bool> stable, int64_t dim = -1,
                                  bool descending = false) const;
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  template <std::same_as<bool> B>  // libtorch's form with `stable` first (see ops.hpp)
  Tensor argsort(B /*stable*/, int64_t dim = -1, bool descending = false) const {
    return argsort(dim, descending);
  }
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;
  std::tuple<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  Tensor median() const;
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
  Tensor nanmedian() const;
  std::tuple<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
  std::tuple<Tensor, Tensor> mode(int64_t dim = -1, bool keepdim = false) const;
  // select(0, index), as libtorch's t[i].
  Tensor operator[](int64_t index) const;
  // libtorch's indexing (wick/indexing.hpp): x.index({Slice(), 0}), x.index_put_({mask}, 0.0).
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index(const std::vector<indexing::TensorIndex>& indices) const;
  // accumulate: x[indices] += value, repeated positions adding up (libtorch's
  // index_put_(indices, values, /*accumulate=*/true)); without it the last write wins.
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value,
                     bool accumulate = false);
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value);
  Tensor flip(const Shape& dims) const;
  Tensor roll(const Shape& shifts, const Shape& dims = {}) const;
  Tensor repeat(const Shape& repeats) const;
  Tensor tile(const Shape& repeats) const;
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt) const;
  Tensor diag(int64_t diagonal = 0) const;
  Tensor trace() const;
  Tensor dot(const Tensor& other) const;
  Tensor outer(const Tensor& other) const;
  Tensor bmm(const Tensor& other) const;
  Tensor norm(double p = 2, const Shape& dims = {}, bool keepdim = false) const;
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  Tensor square() const;
  Tensor nonzero() const;
  Tensor masked_select(const Tensor& mask) const;
  // ops_nan.cpp, ops_pointwise.cpp, ops_matrix.cpp: see ops.hpp.
  Tensor nansum() const;
  Tensor nansum(const Shape& dims, bool keepdim = false) const;
  Tensor nanmean() const;
  Tensor nanmean(const Shape& dims, bool keepdim = false) const;
  Tensor nan_to_num(double nan = 0.0, std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt) const;
  Tensor count_nonzero() const;
  Tensor isclose(const Tensor& other, double rtol = 1e-5, double atol = 1e-8,
                 bool equal_nan = false) const;
  Tensor addcmul(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  Tensor addcdiv(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1) const;
  Tensor logaddexp(const Tensor& other) const;
  Tensor xlogy(const Tensor& other) const;
  Tensor logit(std::optional<double> eps = std::nullopt) const;
  Tensor rot90(int64_t k = 1, const Shape& dims = {0, 1}) const;
  Tensor diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
  Tensor histc(int64_t bins = 100, double min = 0, double max = 0) const;
  Tensor matmul(const Tensor& other) const;
  Tensor mm(const Tensor& other) const;
  Tensor softmax(int64_t dim) const;
  Tensor log_softmax(int64_t dim) const;

  // ---- in place (return *this) ----
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& mul_(const Tensor& other);
  Tensor& div_(const Tensor& other);
  Tensor& add_(const Scalar& other);
  Tensor& sub_(const Scalar& other);
  Tensor& mul_(const Scalar& other);
  Tensor& div_(const Scalar& other);
  Tensor& atan2_(const Tensor& other);
  Tensor& hypot_(const Tensor& other);
  Tensor& fmod_(const Tensor& other);
  Tensor& fmod_(const Scalar& other);
  Tensor& remainder_(const Tensor& other);
  Tensor& remainder_(const Scalar& other);
  Tensor& div_(const Tensor& other, std::string_view rounding_mode);
  Tensor& div_(const Scalar& other, std::string_view rounding_mode);
  Tensor& floor_divide_(const Tensor& other);
  Tensor& floor_divide_(const Scalar& other);
  Tensor& copysign_(const Tensor& other);
  Tensor& copysign_(const Scalar& other);
  Tensor& bitwise_and_(const Tensor& other);
  Tensor& bitwise_and_(const Scalar& other);
  Tensor& bitwise_or_(const Tensor& other);
  Tensor& bitwise_or_(const Scalar& other);
  Tensor& bitwise_xor_(const Tensor& other);
  Tensor& bitwise_xor_(const Scalar& other);
  Tensor& bitwise_left_shift_(const Tensor& other);
  Tensor& bitwise_left_shift_(const Scalar& other);
  Tensor& bitwise_right_shift_(const Tensor& other);
  Tensor& bitwise_right_shift_(const Scalar& other);
  Tensor& bitwise_not_();
  Tensor& gcd_(const Tensor& other);
  Tensor& lcm_(const Tensor& other);
  Tensor& nextafter_(const Tensor& other);
  Tensor& addcmul_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
  Tensor& addcdiv_(const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
  Tensor& zero_();
  Tensor& fill_(const Scalar& value);
  Tensor& copy_(const Tensor& src);
  Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
  // In place: this = index_add(this, ...), scatter_add(this, ...) and the others below, with
  // their checks (a failed call changes nothing) and autograd (recorded as the out-of-place op
  // and a copy_; the result is computed first, so a source or index sharing this storage reads
  // old values).
  Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                     const Scalar& alpha = 1);
  Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src);
  Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src);
  Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value);
  Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, bool include_self = true);
  Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source);
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value);
  Tensor& index_fill_(int64_t dim, const Tensor& index, const Tensor& value);

  // ---- autograd (implemented by the autograd layer; see autograd/) ----
  Tensor& requires_grad_(bool on = true);
  bool requires_grad() const { return impl().requires_grad; }
  // The accumulated gradient; undefined until backward() reaches this tensor.
  const Tensor& grad() const;
  Tensor& mutable_grad();
  bool is_leaf() const;
  const std::shared_ptr<Node>& grad_fn() const;
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false) const;
  void retain_grad() const;

  TensorImpl& impl() const {
    WICK_CHECK(impl_ != nullptr, Error, "tensor",
               "use of an undefined tensor (default-constructed or moved from)");
    return *impl_;
  }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }

 private:
  std::shared_ptr<TensorImpl> impl_;
};

// The autograd slot. Core only stores it; the autograd layer fills and reads it.
struct AutogradMeta {
  Tensor grad;
  std::shared_ptr<Node> grad_fn;  // null for leaves
  uint32_t output_nr = 0;         // which output of grad_fn this tensor is
  bool retains_grad = false;
};

// "[64, 10] float32 cpu": how error messages name an operand.
std::string describe(const Tensor& t);
std::ostream& operator<<(std::ostream& out, const Tensor& t);

// ---- template members ----
template <typename T>
T* Tensor::data_ptr() const {
  WICK_CHECK(dtype() == dtype_of<T>, DtypeError, "data_ptr", "asked for ", dtype_of<T>,
             " but the tensor is ", describe(*this));
  return static_cast<T*>(raw_data());
}

namespace detail {
// Copies the tensor's values, cast to dtype, into a host buffer of numel elements.
void copy_to_host(const Tensor& t, Dtype dtype, void* host);
// Throws OutOfMemoryError: `bytes` of host memory for `op`'s copy of t could not be had.
[[noreturn]] void fail_host_allocation(const char* op, const Tensor& t, double bytes);
// v.resize(n), with a failed allocation as a wick::OutOfMemoryError instead of std::bad_alloc.
template <typename V>
void resize_on_host(V& v, int64_t n, const char* op, const Tensor& t) {
  try {
    v.resize(static_cast<size_t>(n));
  } catch (const std::bad_alloc&) {
    fail_host_allocation(op, t, static_cast<double>(n) * sizeof(typename V::value_type));
  } catch (const std::length_error&) {
    fail_host_allocation(op, t, static_cast<double>(n) * sizeof(typename V::value_type));
  }
}
}  // namespace detail

template <typename T>
std::vector<T> Tensor::to_vector() const {
  std::vector<T> values;
  detail::resize_on_host(values, numel(), "to_vector", *this);
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<char> bytes;
    detail::resize_on_host(bytes, numel(), "to_vector", *this);
    detail::copy_to_host(*this, kBool, bytes.data());
    for (size_t i = 0; i < bytes.size(); ++i) values[i] = bytes[i] != 0;
  } else {
    detail::copy_to_host(*this, dtype_of<T>, values.data());
  }
  return values;
}

namespace detail {
// item<T>(): a value T cannot hold (NaN or past the range into an integer, a finite value past
// float's range into float) is a ValueError, as libtorch's checked conversion.
void check_item_fits(const Scalar& value, bool integral, double lowest, double end,
                     const char* type);
}  // namespace detail

template <typename T>
T Tensor::item() const {
  const Scalar value = item();
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // [lowest, end): end = (max / 2 + 1) * 2 is max + 1 exactly, a power of two.
    detail::check_item_fits(value, true, static_cast<double>(std::numeric_limits<T>::lowest()),
                            static_cast<double>(std::numeric_limits<T>::max() / 2 + 1) * 2.0,
                            std::is_signed_v<T> ? "a signed integer" : "an unsigned integer");
  } else if constexpr (std::is_same_v<T, float>) {
    detail::check_item_fits(value, false, -static_cast<double>(std::numeric_limits<float>::max()),
                            static_cast<double>(std::numeric_limits<float>::max()), "float");
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    // bfloat16's largest finite value, (2 - 2^-7) 2^127, as c10's checked conversion.
    constexpr double kMax = (2.0 - 1.0 / 128.0) * 1.7014118346046923e38;
    detail::check_item_fits(value, false, -kMax, kMax, "bfloat16");
  }
  return value.to<T>();
}

}  // namespace wick
