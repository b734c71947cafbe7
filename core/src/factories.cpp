// factories.cpp: empty, zeros, ones, full, arange, eye, rand, randn, the *_like family,
// tensor() from host data, and the global random generator (seed + Philox offset).
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

#include "internal.hpp"
#include "wick/fork_guard.hpp"
#include "wick/ops.hpp"
#include "wick/philox.hpp"

namespace wick {
namespace {

struct Generator {
  std::mutex mutex;
  uint64_t seed = 67280421310721ull;  // PyTorch's default seed
  uint64_t offset = 0;                // in Philox blocks
};
// Never destroyed (a thread may draw numbers while the program exits), and its lock guarded
// across fork (wick/fork_guard.hpp).
Generator& generator() {
  static Generator* g = [] {
    auto* made = new Generator;
    detail::guard_across_fork(made->mutex, detail::ForkRank::kGenerator);
    return made;
  }();
  return *g;
}
// Made when the library loads, before any thread (see cpu_allocator.cpp's large_cache).
[[maybe_unused]] Generator& g_generator_at_load = generator();

Tensor finish(Tensor t, const TensorOptions& options) {
  if (options.requires_grad()) t.requires_grad_(true);
  return t;
}

Tensor random_tensor(OpId op, const Shape& size, const TensorOptions& options) {
  const char* name = op == OpId::rand ? "rand" : "randn";
  WICK_CHECK(is_floating(options.dtype()), DtypeError, name,
             "random values need a floating dtype, got ", options.dtype());
  if (op == OpId::rand && options.dtype() == kBFloat16) {
    // As PyTorch: k / 256 with k uniform in 0..255 (8 random bits, what a bfloat16 in [0, 1)
    // can hold evenly), from the top 8 bits of the float32 stream, so on every device. The
    // float32 value rounded to nearest would give 1.0 for the top 2^-9 of the range.
    Tensor uniform = random_tensor(op, size, TensorOptions(kFloat32).device(options.device()));
    Tensor k = (uniform * 256.0).to(kInt64);  // exact scaling; the cast truncates to 0..255
    return finish(k.to(kBFloat16) / 256.0, options);
  }
  Tensor t = detail::make_empty(size, options.dtype(), options.device(), name);
  OpCall call;
  call.op = op;
  call.outputs[0] = &t;
  call.num_outputs = 1;
  {
    Generator& g = generator();
    std::lock_guard<std::mutex> lock(g.mutex);
    call.seed = g.seed;
    call.offset = g.offset;
    g.offset += philox::blocks_for(static_cast<uint64_t>(t.numel()));
  }
  if (t.numel() > 0) run_kernel(call, t.device());
  return finish(t, options);
}

}  // namespace

void manual_seed(uint64_t seed) {
  Generator& g = generator();
  std::lock_guard<std::mutex> lock(g.mutex);
  g.seed = seed;
  g.offset = 0;
}

Tensor empty(const Shape& size, TensorOptions options) {
  return finish(detail::make_empty(size, options.dtype(), options.device(), "empty"), options);
}

Tensor full(const Shape& size, const Scalar& value, TensorOptions options) {
  if (!options.has_dtype()) {
    options = options.dtype(value.kind() == kFloat64 ? kDefaultFloat : value.kind());
  }
  Tensor t = detail::make_empty(size, options.dtype(), options.device(), "full");
  detail::check_value_fits(value, t.dtype(), "full", t);
  detail::fill_kernel(t, value);
  return finish(t, options);
}

Tensor zeros(const Shape& size, TensorOptions options) {
  Tensor t = detail::make_empty(size, options.dtype(), options.device(), "zeros");
  detail::fill_kernel(t, Scalar(int64_t{0}));
  return finish(t, options);
}

Tensor ones(const Shape& size, TensorOptions options) {
  Tensor t = detail::make_empty(size, options.dtype(), options.device(), "ones");
  detail::fill_kernel(t, Scalar(int64_t{1}));
  return finish(t, options);
}

Tensor rand(const Shape& size, TensorOptions options) {
  return random_tensor(OpId::rand, size, options);
}
Tensor randn(const Shape& size, TensorOptions options) {
  return random_tensor(OpId::randn, size, options);
}

Tensor arange(const Scalar& end, std::optional<TensorOptions> options) {
  return arange(Scalar(int64_t{0}), end, Scalar(int64_t{1}), options);
}

namespace {
// The arange kernel's n values start + i * step on the device (dispatch.hpp: int64 numbers
// count in int64, doubles in double). bfloat16 values are made in float32 by run_kernel (exact
// for the integers a bfloat16 holds) and rounded to bfloat16: for other values that is a second
// rounding, after the one to float32, as in PyTorch (arange(2^24 + 2^16 + 1) gives 2^24 in both).
Tensor arange_kernel(int64_t n, const Scalar& start, const Scalar& step,
                     const TensorOptions& opts) {
  const Device device = detail::check_device(opts.device(), "arange");
  Tensor out = detail::make_empty({n}, opts.dtype(), device, "arange");
  OpCall call;
  call.op = OpId::arange;
  call.outputs[0] = &out;
  call.num_outputs = 1;
  call.scalar_a = start;
  call.scalar_b = step;
  if (n > 0) run_kernel(call, device);
  return finish(out, opts);
}

// An arange argument as the int64 PyTorch converts it to for an int64 result: a float truncates,
// one int64 cannot hold (NaN, inf, past +-2^63) is an error.
int64_t arange_int64(const Scalar& v, const Scalar& start, const Scalar& end, const Scalar& step) {
  if (!v.is_floating()) return v.to_int64();
  const double d = v.to_double();
  WICK_CHECK(d >= -9223372036854775808.0 && d < 9223372036854775808.0, ValueError, "arange",
             "value ", d, " cannot be converted to int64 (start ", start, ", end ", end, ", step ",
             step, ")");
  return static_cast<int64_t>(d);
}
}  // namespace

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              std::optional<TensorOptions> options) {
  bool all_integer = !start.is_floating() && !end.is_floating() && !step.is_floating();
  TensorOptions opts = options.value_or(TensorOptions());
  if (!opts.has_dtype()) opts = opts.dtype(all_integer ? kInt64 : kDefaultFloat);
  WICK_CHECK(opts.dtype() != kBool, DtypeError, "arange",
             "does not make bool tensors (as PyTorch)");
  // As PyTorch: an int64 result converts the three numbers to int64 first (arange(0, 10, 2.5)
  // steps by 2), and integers count exactly, in 128 bits (doubles lose them past 2^53).
  if (all_integer || opts.dtype() == kInt64) {
    const int64_t s = arange_int64(start, start, end, step);
    const int64_t e = arange_int64(end, start, end, step);
    const int64_t st = arange_int64(step, start, end, step);
    WICK_CHECK(st != 0, ValueError, "arange", "step must be nonzero, got start ", start, ", end ",
               end, ", step ", step, (step.is_floating() ? " (as int64: 0)" : ""));
    WICK_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), ValueError, "arange",
               "upper bound and step sign are inconsistent: start ", start, ", end ", end,
               ", step ", step);
    // ceil(|e - s| / |st|) in uint64, where both magnitudes are exact.
    const uint64_t span = st > 0 ? static_cast<uint64_t>(e) - static_cast<uint64_t>(s)
                                 : static_cast<uint64_t>(s) - static_cast<uint64_t>(e);
    const uint64_t stride = st > 0 ? static_cast<uint64_t>(st) : 0 - static_cast<uint64_t>(st);
    const uint64_t count = span / stride + (span % stride != 0 ? 1 : 0);
    WICK_CHECK(count <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), ShapeError,
               "arange", "too many elements (start ", start, ", end ", end, ", step ", step, ")");
    // start + i * step in int64 numbers: the kernels count in uint64, whose wrap-around gives
    // the right values (each lies between start and end) where i * step alone overflows.
    return arange_kernel(static_cast<int64_t>(count), Scalar(s), Scalar(st), opts);
  }
  double s = start.to_double(), e = end.to_double(), st = step.to_double();
  WICK_CHECK(st != 0 && std::isfinite(s) && std::isfinite(e) && std::isfinite(st), ValueError,
             "arange", "needs finite bounds and a non-zero step, got start ", start, ", end ", end,
             ", step ", step);
  WICK_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), ValueError, "arange",
             "upper bound and step sign are inconsistent: start ", start, ", end ", end, ", step ",
             step);
  double count = std::ceil((e - s) / st);
  WICK_CHECK(count < 9.0e18, ShapeError, "arange", "too many elements (", count, ")");
  return arange_kernel(static_cast<int64_t>(count), Scalar(s), Scalar(st), opts);
}

Tensor eye(int64_t n, TensorOptions options) {
  WICK_CHECK(n >= 0, ShapeError, "eye", "n must be >= 0, got ", n);
  Tensor t = zeros({n, n}, options.requires_grad(false));
  // The diagonal of an n x n matrix is a 1-D view with stride n + 1.
  detail::fill_kernel(detail::make_view(t, {n}, {n + 1}, 0), Scalar(int64_t{1}));
  return finish(t, options);
}

namespace {
// As libtorch's self.options().merge_in(options): what `o` leaves unset comes from t. An
// undefined t is an error that names the factory.
TensorOptions like(const Tensor& t, const TensorOptions& o, const char* op) {
  detail::check_defined(op, {&t});
  return o.dtype(o.has_dtype() ? o.dtype() : t.dtype())
      .device(o.has_device() ? o.device() : t.device());
}
// t's sizes, with the same check: a factory's arguments are evaluated in either order.
const Shape& sizes_of(const Tensor& t, const char* op) {
  detail::check_defined(op, {&t});
  return t.sizes();
}
}  // namespace
Tensor empty_like(const Tensor& t) {
  return empty(sizes_of(t, "empty_like"), like(t, {}, "empty_like"));
}
Tensor zeros_like(const Tensor& t) {
  return zeros(sizes_of(t, "zeros_like"), like(t, {}, "zeros_like"));
}
Tensor ones_like(const Tensor& t) {
  return ones(sizes_of(t, "ones_like"), like(t, {}, "ones_like"));
}
Tensor full_like(const Tensor& t, const Scalar& v) {
  return full(sizes_of(t, "full_like"), v, like(t, {}, "full_like"));
}
Tensor rand_like(const Tensor& t) {
  return rand(sizes_of(t, "rand_like"), like(t, {}, "rand_like"));
}
Tensor randn_like(const Tensor& t) {
  return randn(sizes_of(t, "randn_like"), like(t, {}, "randn_like"));
}
Tensor empty_like(const Tensor& t, TensorOptions o) {
  return empty(sizes_of(t, "empty_like"), like(t, o, "empty_like"));
}
Tensor zeros_like(const Tensor& t, TensorOptions o) {
  return zeros(sizes_of(t, "zeros_like"), like(t, o, "zeros_like"));
}
Tensor ones_like(const Tensor& t, TensorOptions o) {
  return ones(sizes_of(t, "ones_like"), like(t, o, "ones_like"));
}

Tensor detail::tensor_from_host(const void* data, size_t count, Dtype source_dtype,
                                const Shape& shape, TensorOptions options) {
  if (!options.device().is_cpu()) check_device(options.device(), "tensor");
  int64_t numel = checked_numel(shape, "tensor");
  WICK_CHECK(static_cast<size_t>(numel) == count, ShapeError, "tensor", "got ", count,
             " values for shape ", shape, " (", numel, " elements)");
  Tensor host = make_empty(shape, source_dtype, Device(kCPU), "tensor");
  if (count > 0) std::memcpy(host.raw_data(), data, count * element_size(source_dtype));
  Dtype dtype = options.has_dtype() ? options.dtype() : source_dtype;
  return finish(host.to(options.device(), dtype), options);
}

namespace {

// Walks a nested list depth first: the shape from the first item at each depth, every sibling
// checked against it, the numbers in row-major order with the widest kind seen.
struct Flattened {
  Shape shape;
  std::vector<double> floats;
  std::vector<int64_t> ints;
  NestedValues::Kind kind = NestedValues::Kind::Bool;
  bool any_number = false;
};

void shape_of(const NestedValues& v, Shape& shape) {
  if (!v.is_list()) return;
  shape.push_back(static_cast<int64_t>(v.items().size()));
  if (!v.items().empty()) shape_of(v.items().front(), shape);
}

void flatten(const NestedValues& v, size_t depth, Flattened& out) {
  const bool expect_list = depth < out.shape.size();
  WICK_CHECK(v.is_list() == expect_list, ShapeError, "tensor", "nested list of shape ", out.shape,
             ": a ", v.is_list() ? "list" : "number", " at depth ", depth,
             " where the first item has a ", expect_list ? "list" : "number");
  if (!v.is_list()) {
    out.any_number = true;
    if (static_cast<int>(v.kind()) > static_cast<int>(out.kind)) out.kind = v.kind();
    out.floats.push_back(v.value());
    // Only integer and bool lists use the int64 copy; a float's is never read (and a cast of
    // 1e300 or NaN to int64 would be undefined).
    out.ints.push_back(v.kind() == NestedValues::Kind::Int    ? v.int_value()
                       : v.kind() == NestedValues::Kind::Bool ? (v.value() != 0 ? 1 : 0)
                                                              : 0);
    return;
  }
  const auto length = static_cast<int64_t>(v.items().size());
  WICK_CHECK(length == out.shape[depth], ShapeError, "tensor", "ragged nested list: a list of ",
             length, " at depth ", depth, " where the first has ", out.shape[depth], " (shape ",
             out.shape, ")");
  for (const NestedValues& item : v.items()) flatten(item, depth + 1, out);
}

}  // namespace

Tensor tensor(const NestedValues& values, TensorOptions options) {
  Flattened flat;
  shape_of(values, flat.shape);
  flatten(values, 0, flat);
  if (!flat.any_number) {
    return tensor(std::vector<double>{}, flat.shape,
                  options.has_dtype() ? options : options.dtype(kDefaultFloat));
  }
  switch (flat.kind) {
    case NestedValues::Kind::Bool: {
      std::vector<bool> bits;
      for (double v : flat.floats) bits.push_back(v != 0);
      return tensor(bits, flat.shape, options);
    }
    case NestedValues::Kind::Int:
      return tensor(flat.ints, flat.shape, options);
    case NestedValues::Kind::Float:
      break;
  }
  return tensor(flat.floats, flat.shape,
                options.has_dtype() ? options : options.dtype(kDefaultFloat));
}

Tensor scalar_tensor(const Scalar& value, TensorOptions options) {
  // As torch.scalar_tensor: the default float dtype unless told, whatever the number's kind
  // (full takes its dtype from the number; scalar_tensor(3) was int64, found by review).
  if (!options.has_dtype()) options = options.dtype(kDefaultFloat);
  Tensor t = detail::make_empty({}, options.dtype(), options.device(), "scalar_tensor");
  detail::check_value_fits(value, t.dtype(), "scalar_tensor", t);
  detail::fill_kernel(t, value);
  return finish(t, options);
}

}  // namespace wick
