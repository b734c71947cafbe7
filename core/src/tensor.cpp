// tensor.cpp: Tensor's queries, element access, and the helpers that make tensors and views.
#include <cmath>
#include <cstring>
#include <sstream>

#include "internal.hpp"
#include "wick/dim_order.hpp"
#include "wick/ops.hpp"

namespace wick {

TensorImpl::~TensorImpl() = default;

namespace detail {

Shape contiguous_strides(const Shape& sizes) {
  Shape strides = Shape::filled(sizes.size(), 1);
  int64_t running = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    // An empty tensor's strides can overflow although it holds no element (PyTorch checks
    // the same); the outermost size never enters a stride, so it is not multiplied in.
    if (i > 0) {
      WICK_CHECK(!__builtin_mul_overflow(running, std::max<int64_t>(sizes[i], 1), &running),
                 ShapeError, "strides", "stride calculation overflowed for size ", sizes);
    }
  }
  return strides;
}

Tensor make_empty(const Shape& sizes, Dtype dtype, Device device, const char* op) {
  return make_empty_dense(sizes, contiguous_strides(sizes), dtype, device, op);
}

Tensor make_empty_dense(const Shape& sizes, const Shape& strides, Dtype dtype, Device device,
                        const char* op) {
  // Every new tensor's storage comes from here: a Dtype cast from an integer stops here.
  WICK_CHECK(static_cast<int>(dtype) >= 0 && static_cast<int>(dtype) < kNumDtypes, DtypeError, op,
             "unknown dtype ", static_cast<int>(dtype),
             " (expected bool, int64, float32, float64 or bfloat16)");
  int64_t numel = checked_numel(sizes, op);
  int64_t nbytes = 0;
  WICK_CHECK(!__builtin_mul_overflow(numel, static_cast<int64_t>(element_size(dtype)), &nbytes),
             ShapeError, op, "size ", sizes, " of ", dtype,
             " needs more bytes than int64 can count");
  // A device that cannot be used is named with the op that asked for it.
  Storage storage = make_storage(static_cast<size_t>(nbytes), device, op);
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), sizes, strides, 0, dtype));
}

Tensor make_view(const Tensor& base, const Shape& sizes, const Shape& strides, int64_t offset) {
  return Tensor(std::make_shared<TensorImpl>(base.storage(), sizes, strides, offset, base.dtype()));
}

Tensor expand_view(const Tensor& t, const Shape& sizes) {
  if (t.sizes() == sizes) return t;
  Shape strides = Shape::filled(sizes.size(), 0);
  size_t lead = sizes.size() - t.sizes().size();
  for (size_t i = lead; i < sizes.size(); ++i) {
    if (t.sizes()[i - lead] == sizes[i]) strides[i] = t.strides()[i - lead];
  }
  return make_view(t, sizes, strides, t.storage_offset());
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  int64_t lo = ndim == 0 ? -1 : -ndim;
  int64_t hi = ndim == 0 ? 0 : ndim - 1;
  WICK_CHECK(dim >= lo && dim <= hi, IndexError, op, "dim ", dim, " out of range for a tensor of ",
             ndim, " dims (expected ", lo, " to ", hi, ")");
  return dim < 0 ? dim + std::max<int64_t>(ndim, 1) : dim;
}

std::string describe_all(std::initializer_list<const Tensor*> tensors) {
  std::string s;
  size_t i = 0;
  for (const Tensor* t : tensors) {
    if (i++) s += (i == tensors.size() ? " and " : ", ");
    s += describe(*t);
  }
  return s;
}

void check_defined(const char* op, std::initializer_list<const Tensor*> tensors) {
  int position = 0;
  for (const Tensor* t : tensors) {
    ++position;
    if (t != nullptr && !t->defined()) {
      fail<ValueError>(op, "operand ", position, " of ", tensors.size(),
                       " is an undefined tensor (default-constructed or moved from)");
    }
  }
}

void check_same_device(const char* op, std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = *tensors.begin();
  for (const Tensor* t : tensors) {
    if (t->device() != first->device()) {
      fail<DeviceError>(op, "expected all tensors on one device, got ", describe_all(tensors));
    }
  }
}

Device check_device(Device device, const char* op) { return resolve_device(device, op); }

void fail_host_allocation(const char* op, const Tensor& t, double bytes) {
  const std::string amount =
      bytes < 1.8e19 ? std::to_string(static_cast<uint64_t>(bytes)) : std::string("more than 2^64");
  fail<OutOfMemoryError>(op, "could not allocate ", amount, " bytes of host memory for a copy of ",
                         describe(t));
}

void copy_to_host(const Tensor& t, Dtype dtype, void* host) {
  Tensor src = t;
  if (!src.device().is_cpu()) src = src.to(Device(kCPU));
  if (src.dtype() != dtype || !src.is_contiguous()) {
    Tensor staged = make_empty(src.sizes(), dtype, Device(kCPU), "copy_to_host");
    copy_into(staged, src);
    src = staged;
  }
  if (src.numel() > 0) std::memcpy(host, src.raw_data(), src.nbytes());
}

}  // namespace detail

// A 0-d tensor has no dim to ask about (PyTorch: "Dimension specified as 0 but tensor has no
// dimensions"); wrap_dim takes 0 and -1 there, as reductions over a 0-d tensor do, and the
// index would read past the empty Shape (found by review: a stale size of the view's base).
int64_t Tensor::size(int64_t d) const {
  WICK_CHECK(dim() > 0, IndexError, "size", "dimension specified as ", d,
             " but the tensor has no dimensions: ", describe(*this));
  return sizes()[detail::wrap_dim(d, dim(), "size")];
}
int64_t Tensor::stride(int64_t d) const {
  WICK_CHECK(dim() > 0, IndexError, "stride", "dimension specified as ", d,
             " but the tensor has no dimensions: ", describe(*this));
  return strides()[detail::wrap_dim(d, dim(), "stride")];
}

int64_t Tensor::numel() const {
  // The product of the nonzero sizes was checked when the tensor was made, but a view may put
  // a 0 after sizes whose running product passes int64 ([2^62, 1, 2, 0]): multiply unsigned
  // (wraps, defined) and answer 0 when any size is 0.
  uint64_t n = 1;
  bool empty = false;
  for (int64_t d : sizes()) {
    n *= static_cast<uint64_t>(d);
    empty |= d == 0;
  }
  return empty ? 0 : static_cast<int64_t>(n);
}

bool Tensor::is_contiguous() const { return detail::is_contiguous_layout(sizes(), strides()); }

void* Tensor::raw_data() const {
  const TensorImpl& i = impl();
  return static_cast<char*>(i.storage->data()) +
         i.offset * static_cast<int64_t>(wick::element_size(i.dtype));
}

void detail::check_item_fits(const Scalar& value, bool integral, double lowest, double end,
                             const char* type) {
  bool fits = true;
  if (!value.is_floating()) {
    // An integer: exact in double for every narrower type; int64 itself always fits.
    const int64_t i = value.to_int64();
    const auto d = static_cast<double>(i);
    fits =
        (lowest <= -0x1p63 || d >= lowest) && (end >= 0x1p63 || d < end) && (i >= 0 || lowest < 0);
  } else {
    const double d = value.to_double();
    if (integral) {
      fits = d >= lowest && d < end;  // NaN fails both
    } else if (std::isfinite(d)) {
      fits = d >= lowest && d <= end;
    }
  }
  WICK_CHECK(fits, ValueError, "item", "value ", value, " cannot be converted to ", type,
             " without overflow");
}

Scalar Tensor::item() const {
  WICK_CHECK(numel() == 1, ValueError, "item",
             "a tensor with one element can be converted to a number, got ", describe(*this));
  switch (dtype()) {
    case kBool:
      return Scalar(to_vector<bool>()[0]);
    case kInt64:
      return Scalar(to_vector<int64_t>()[0]);
    case kFloat32:
      return Scalar(static_cast<double>(to_vector<float>()[0]));
    case kFloat64:
      return Scalar(to_vector<double>()[0]);
    case kBFloat16:
      return Scalar(static_cast<double>(to_vector<float>()[0]));  // exact
  }
  return Scalar();
}

std::string describe(const Tensor& t) {
  if (!t.defined()) return "(undefined tensor)";
  std::ostringstream s;
  s << t.sizes() << ' ' << t.dtype() << ' ' << t.device();
  return s.str();
}

}  // namespace wick
