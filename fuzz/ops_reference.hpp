// ops_reference.hpp: fuzz_ops' reference model (see fuzz_ops.cpp): the limits of a program,
// failure reporting, values as double (floats) or exact int64 (bool and int64) read through
// data_ptr + strides, casts, PyTorch's type promotion and broadcasting, elementwise maths in a
// compute dtype, the comparison of wick's result with the reference, and the expected outcome
// of a step (result or wick::Error). Included (through ops_program.hpp) by fuzz_ops' files only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "byte_reader.hpp"
#include "wick/wick.hpp"

namespace wick::fuzz::ops {

using wick::Dtype;
using wick::Scalar;
using wick::Shape;
using wick::Tensor;
using wick::fuzz::ByteReader;

constexpr int64_t kMaxElems = 2048;  // elements of a pooled tensor (keeps an execution fast)
constexpr size_t kPoolSize = 8;
constexpr int kMaxSteps = 20;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr Dtype kDtypes[5] = {wick::kBool, wick::kInt64, wick::kFloat32, wick::kFloat64,
                              wick::kBFloat16};

// Inputs that hit a bug already reported (with a failing test in tests/regress/) are skipped
// when WICK_FUZZ_SKIP_KNOWN is defined, so that long runs look for new bugs. Each skip names
// its regression test.
#if defined(WICK_FUZZ_SKIP_KNOWN)
[[maybe_unused]] constexpr bool kSkipKnown = true;
#else
[[maybe_unused]] constexpr bool kSkipKnown = false;
#endif

inline std::string g_step;  // what the current step does, for failure messages

// With WICK_FUZZ_STATS set, the process prints at exit how many steps ended in a checked
// result and how many in an expected wick::Error, and how many elements were compared.
struct Stats {
  uint64_t results = 0, errors = 0, elements = 0;
  ~Stats() {
    if (std::getenv("WICK_FUZZ_STATS") != nullptr) {
      std::fprintf(stderr,
                   "fuzz_ops stats: %llu steps with a checked result, %llu with an "
                   "expected wick::Error, %llu elements compared\n",
                   static_cast<unsigned long long>(results),
                   static_cast<unsigned long long>(errors),
                   static_cast<unsigned long long>(elements));
    }
  }
};
inline Stats g_stats;

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "\nfuzz_ops: FAILED at step: %s\n  %s\n", g_step.c_str(), what.c_str());
  std::abort();
}

inline std::string str(const Shape& s) {
  std::ostringstream o;
  o << s;
  return o.str();
}
inline std::string str(const Tensor& t) { return wick::describe(t); }
inline std::string str(const Scalar& s) {
  std::ostringstream o;
  o << s << (s.kind() == wick::kFloat64 ? "(f)" : s.kind() == wick::kInt64 ? "(i)" : "(b)");
  return o.str();
}

// ---------------------------------------------------------------------------------------
// The reference: values as double (floats) or exact int64 (bool and int64), row-major.

struct V {
  double d = 0;   // float32 / float64 / bfloat16 values
  int64_t i = 0;  // bool (0/1) and int64 values
};

struct Ref {
  Shape sizes;
  Dtype dtype = wick::kFloat32;
  std::vector<V> v;
};

inline bool floating(Dtype d) {
  return d == wick::kFloat32 || d == wick::kFloat64 || d == wick::kBFloat16;
}

// The element count, or nullopt for a negative size or a count past int64. A 0 anywhere
// gives 0, whatever comes before it ([2^63-1, 2, 0] is empty; wick's checked_numel).
inline std::optional<int64_t> numel_of(const Shape& s) {
  for (int64_t d : s) {
    if (d < 0) return std::nullopt;
  }
  for (int64_t d : s) {
    if (d == 0) return 0;
  }
  int64_t n = 1;
  for (int64_t d : s) {
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

// Do the row-major strides of `sizes` overflow int64? (Possible when a 0 dim keeps the
// element count at 0: [0, 2^40, 2^40].) PyTorch and wick then throw ("Stride calculation
// overflowed"); the outermost size enters no stride.
inline bool strides_overflow(const Shape& sizes) {
  int64_t running = 1;
  for (size_t i = sizes.size(); i-- > 1;) {
    if (__builtin_mul_overflow(running, std::max<int64_t>(sizes[i], 1), &running)) return true;
  }
  return false;
}

// Row-major walk over sizes: fn(linear, index).
template <typename Fn>
void for_each_index(const Shape& sizes, Fn&& fn) {
  int64_t n = *numel_of(sizes);
  int64_t idx[Shape::kMaxDims] = {};
  const int nd = static_cast<int>(sizes.size());
  for (int64_t lin = 0; lin < n; ++lin) {
    fn(lin, static_cast<const int64_t*>(idx));
    for (int d = nd - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
}

// Storage offset (elements) of index idx of t.
inline int64_t offset_at(const Tensor& t, const int64_t* idx) {
  int64_t off = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) off += idx[d] * t.strides()[d];
  return off;
}

inline V read_elem(const Tensor& t, int64_t offset) {
  const char* base = static_cast<const char*>(t.storage()->data());
  V v;
  switch (t.dtype()) {
    case wick::kBool: {
      uint8_t b;
      std::memcpy(&b, base + offset, 1);
      if (b > 1) fail("bool element holds byte " + std::to_string(b) + " in " + str(t));
      v.i = b;
      break;
    }
    case wick::kInt64:
      std::memcpy(&v.i, base + offset * 8, 8);
      break;
    case wick::kFloat32: {
      float f;
      std::memcpy(&f, base + offset * 4, 4);
      v.d = f;
      break;
    }
    case wick::kFloat64:
      std::memcpy(&v.d, base + offset * 8, 8);
      break;
    case wick::kBFloat16: {
      // The upper half of a float32 (written out here, not through wick::BFloat16).
      uint16_t b;
      std::memcpy(&b, base + offset * 2, 2);
      const uint32_t u = static_cast<uint32_t>(b) << 16;
      float f;
      std::memcpy(&f, &u, 4);
      v.d = f;
      break;
    }
  }
  return v;
}

inline void write_elem(const Tensor& t, int64_t offset, V v) {
  char* base = static_cast<char*>(t.storage()->data());
  switch (t.dtype()) {
    case wick::kBool: {
      uint8_t b = v.i != 0;
      std::memcpy(base + offset, &b, 1);
      break;
    }
    case wick::kInt64:
      std::memcpy(base + offset * 8, &v.i, 8);
      break;
    case wick::kFloat32: {
      float f = static_cast<float>(v.d);
      std::memcpy(base + offset * 4, &f, 4);
      break;
    }
    case wick::kFloat64:
      std::memcpy(base + offset * 8, &v.d, 8);
      break;
    case wick::kBFloat16: {
      // Callers write values the dtype holds (round_to): the upper half is exact.
      const float f = static_cast<float>(v.d);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      const uint16_t b = static_cast<uint16_t>(u >> 16);
      std::memcpy(base + offset * 2, &b, 2);
      break;
    }
  }
}

// The values of a CPU tensor, read through its strides with plain loops.
inline Ref snapshot(const Tensor& t) {
  Ref r{t.sizes(), t.dtype(), {}};
  r.v.reserve(static_cast<size_t>(t.numel()));
  for_each_index(t.sizes(), [&](int64_t, const int64_t* idx) {
    r.v.push_back(read_elem(t, offset_at(t, idx)));
  });
  return r;
}

// Rounds a double to float32 the IEEE way (overflow to +-inf, never UB).
inline double round_f32(double d) {
  if (std::isfinite(d) && std::fabs(d) >= 0x1.ffffffp127) return std::copysign(kInf, d);
  return static_cast<double>(static_cast<float>(d));
}

// Rounds a float32 value to bfloat16, nearest even, in plain arithmetic: the two bfloat16
// neighbours are f with its low 16 bits cleared and that plus one bfloat16 step; pick the
// nearer, the even one on a tie. NaN stays NaN; past the largest bfloat16 gives +-inf.
inline double round_bf16_of_f32(double f32_value) {
  const float f = static_cast<float>(f32_value);
  if (std::isnan(f)) return kNaN;
  if (std::isinf(f)) return f;
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t down_bits = u & 0xffff0000u;
  float down;
  std::memcpy(&down, &down_bits, 4);
  if (down_bits == u) return down;
  // One bfloat16 step away from zero. Past the largest finite one that step is inf, at the
  // distance of 2^128 (where IEEE puts the rounding boundary to infinity).
  const uint32_t up_bits = down_bits + 0x10000u;
  float up;
  std::memcpy(&up, &up_bits, 4);
  const double up_magnitude = std::isinf(up) ? 0x1p128 : std::fabs(static_cast<double>(up));
  const double dd = std::fabs(static_cast<double>(f) - down);
  const double du = up_magnitude - std::fabs(static_cast<double>(f));
  if (dd < du) return down;
  if (du < dd) return up;
  return (down_bits & 0x10000u) ? up : down;  // a tie: the even last bit
}

// The value of dtype k nearest to d, as wick stores it: float32 rounds once; bfloat16 goes
// through float32 (as c10 converts double to bfloat16); float64 keeps d.
inline double round_to(Dtype k, double d) {
  if (k == wick::kFloat32) return round_f32(d);
  if (k == wick::kBFloat16) return round_bf16_of_f32(round_f32(d));
  return d;
}

// wick's cast between dtypes (loops.hpp convert(): floating -> int64 truncates, NaN and
// out-of-range give INT64_MIN; anything -> bool is != 0).
inline V cast(V x, Dtype from, Dtype to) {
  V r;
  const bool from_float = floating(from);
  switch (to) {
    case wick::kBool:
      r.i = from_float ? (x.d != 0) : (x.i != 0);
      break;
    case wick::kInt64:
      if (from_float) {
        if (!(x.d >= -0x1p63 && x.d < 0x1p63)) {
          r.i = INT64_MIN;
        } else {
          r.i = static_cast<int64_t>(x.d);
        }
      } else {
        r.i = x.i;
      }
      break;
    case wick::kFloat32:
      // int64 -> float32 directly (through double it could round twice).
      r.d = from_float ? round_f32(x.d) : static_cast<double>(static_cast<float>(x.i));
      break;
    case wick::kFloat64:
      r.d = from_float ? x.d : static_cast<double>(x.i);
      break;
    case wick::kBFloat16:
      // Through float32, int64 directly to float32 as above.
      r.d = round_bf16_of_f32(from_float ? round_f32(x.d)
                                         : static_cast<double>(static_cast<float>(x.i)));
      break;
  }
  return r;
}

// A number given to an op, as the value a kernel of dtype `to` sees (Scalar::to<T>()).
// Returns nullopt where that conversion is undefined in C++ (a float out of int64's range).
inline std::optional<V> scalar_as(const Scalar& s, Dtype to) {
  V x;
  Dtype from;
  if (s.kind() == wick::kFloat64) {
    x.d = s.to_double();
    from = wick::kFloat64;
    if (to == wick::kInt64 && !(x.d >= -0x1p63 && x.d < 0x1p63)) return std::nullopt;
  } else {
    x.i = s.to_int64();
    from = wick::kInt64;
  }
  return cast(x, from, to);
}

// Whether a number is refused as a value of dtype `to` (a fill value, a clamp bound), as
// PyTorch's checked conversion: a finite float past float32's or bfloat16's largest finite
// value (inf and NaN pass; int64 is scalar_as's nullopt).
inline bool overflows(const Scalar& s, Dtype to) {
  if (!s.is_floating() || !std::isfinite(s.to_double())) return false;
  const double m = std::fabs(s.to_double());
  if (to == wick::kFloat32) return m > 0x1.fffffep127;
  if (to == wick::kBFloat16) return m > 0x1.fep127;
  return false;
}

// ---- promotion (docs/type-promotion.md; PyTorch's result_type) ----

// The lattice bool < int64 < bfloat16 < float32 < float64 (the enum order is not it:
// bfloat16 came last). Written out here rather than taken from wick's dtype.hpp, so that the
// reference stays independent of the code it checks.
inline int lattice_rank(Dtype d) {
  switch (d) {
    case wick::kBool:
      return 0;
    case wick::kInt64:
      return 1;
    case wick::kBFloat16:
      return 2;
    case wick::kFloat32:
      return 3;
    case wick::kFloat64:
      return 4;
  }
  fail("unknown dtype in the reference");
}
inline Dtype promote(Dtype a, Dtype b) { return lattice_rank(a) > lattice_rank(b) ? a : b; }
inline Dtype float_of(Dtype d) { return floating(d) ? d : wick::kFloat32; }

struct Operand {
  const Ref* ref = nullptr;  // a tensor, or
  Scalar scalar;             // a number
  bool is_scalar() const { return ref == nullptr; }
};

inline std::optional<Dtype> combine(std::optional<Dtype> higher, std::optional<Dtype> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (floating(*higher)) return higher;
  if (*higher == wick::kBool || floating(*lower)) return promote(*higher, *lower);
  return higher;
}

inline Dtype result_type(std::initializer_list<Operand> ops) {
  std::optional<Dtype> dims, zero, numbers;
  auto join = [](std::optional<Dtype>& acc, Dtype d) { acc = acc ? promote(*acc, d) : d; };
  for (const Operand& o : ops) {
    if (o.is_scalar()) {
      join(numbers, o.scalar.kind() == wick::kFloat64 ? wick::kFloat32 : o.scalar.kind());
    } else if (o.ref->sizes.empty()) {
      join(zero, o.ref->dtype);
    } else {
      join(dims, o.ref->dtype);
    }
  }
  return *combine(dims, combine(zero, numbers));
}

inline std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
  size_t n = std::max(a.size(), b.size());
  Shape out = Shape::filled(n, 1);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Element of r at output index idx (rank out_rank), broadcasting r.
inline V at_broadcast(const Ref& r, const int64_t* idx, size_t out_rank) {
  size_t lead = out_rank - r.sizes.size();
  int64_t off = 0;
  for (size_t d = 0; d < r.sizes.size(); ++d) {
    off = off * r.sizes[d] + (r.sizes[d] == 1 ? 0 : idx[d + lead]);
  }
  return r.v[static_cast<size_t>(off)];
}

// ---- comparing wick's result with the reference ----

inline double ulp_of(double w, Dtype k) {
  double a = std::fabs(w);
  if (k == wick::kBFloat16) {
    // 8 significant bits: the step at a is 2^(e - 8) for a in [2^(e-1), 2^e), never below the
    // smallest subnormal 2^-133.
    int e = 0;
    std::frexp(std::min(a, 3.3895313892515355e38), &e);
    return std::ldexp(1.0, std::max(e - 8, -133));
  }
  if (k == wick::kFloat32) {
    float f = static_cast<float>(std::min(a, 3.4028234663852886e38));
    return static_cast<double>(std::nextafter(f, std::numeric_limits<float>::infinity())) - f;
  }
  return std::nextafter(a, kInf) - a;
}

inline bool close(V got, V want, Dtype k, int ulps, double abs_tol = 0) {
  if (!floating(k)) return got.i == want.i;
  const double g = got.d, w = want.d;
  if (std::isnan(w) || std::isnan(g)) return std::isnan(w) && std::isnan(g);
  if (g == w) return true;
  const double max = k == wick::kFloat32    ? 3.4028234663852886e38
                     : k == wick::kBFloat16 ? 3.3895313892515355e38
                                            : 1.7976931348623157e308;
  if (std::isinf(w) || std::isinf(g)) {
    // Rounding near the top of the range may overflow on one side only.
    double finite = std::isinf(w) ? g : w, inf = std::isinf(w) ? w : g;
    return ulps > 1 && std::isfinite(finite) && std::signbit(finite) == std::signbit(inf) &&
           std::fabs(finite) >= max * (1 - 1e-5 * ulps);
  }
  const double tiny = k == wick::kFloat64 ? 2.3e-308 : 1.2e-38;
  return std::fabs(g - w) <= ulps * ulp_of(w, k) + abs_tol + (ulps > 1 ? tiny : 0);
}

inline std::string show(V v, Dtype k) {
  char buf[64];
  if (floating(k)) {
    std::snprintf(buf, sizeof buf, "%.17g", v.d);
  } else {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v.i));
  }
  return buf;
}

// Checks shape, dtype and every value; per-element tolerances from tol(i) (ulps, abs).
template <typename Tol>
void expect_equal(const Tensor& got, const Ref& want, const std::string& what, Tol&& tol) {
  if (!got.defined()) fail(what + ": undefined result");
  if (!got.is_cpu()) fail(what + ": result not on the cpu");
  if (got.sizes() != want.sizes) {
    fail(what + ": shape " + str(got.sizes()) + ", expected " + str(want.sizes));
  }
  if (got.dtype() != want.dtype) {
    fail(what + ": dtype " + wick::dtype_name(got.dtype()) + ", expected " +
         wick::dtype_name(want.dtype));
  }
  if (static_cast<int64_t>(want.v.size()) != got.numel()) fail(what + ": reference size");
  // Every element of the result must lie inside its storage.
  if (got.numel() > 0) {
    int64_t lo = got.storage_offset(), hi = got.storage_offset();
    for (int64_t d = 0; d < got.dim(); ++d) {
      int64_t span = (got.sizes()[d] - 1) * got.strides()[d];
      (span < 0 ? lo : hi) += span;
    }
    const int64_t cap = static_cast<int64_t>(got.storage()->nbytes() / got.element_size());
    if (lo < 0 || hi >= cap) {
      fail(what + ": result " + str(got) + " strides " + str(got.strides()) + " offset " +
           std::to_string(got.storage_offset()) + " reaches outside its storage of " +
           std::to_string(cap) + " elements");
    }
  }
  Ref g = snapshot(got);
  g_stats.elements += g.v.size();
  for (size_t i = 0; i < g.v.size(); ++i) {
    auto [ulps, abs_tol] = tol(i);
    if (ulps < 0) continue;  // value not checked
    if (!close(g.v[i], want.v[i], want.dtype, ulps, abs_tol)) {
      fail(what + ": element " + std::to_string(i) + " of " + str(got) + " is " +
           show(g.v[i], want.dtype) + ", expected " + show(want.v[i], want.dtype));
    }
  }
}
inline void expect_equal(const Tensor& got, const Ref& want, const std::string& what,
                         int ulps = 1) {
  expect_equal(got, want, what, [ulps](size_t) { return std::pair<int, double>(ulps, 0.0); });
}

// ---- outcomes ----

// What the reference says a step must do.
enum class Expect { Ok, Error, Either };

// Runs fn; checks that it threw a wick::Error exactly when expected. Returns true when fn
// completed (so its result may be checked).
template <typename Fn>
bool outcome(Expect expect, Fn&& fn) {
  try {
    fn();
  } catch (const wick::Error& e) {
    if (expect == Expect::Ok) fail(std::string("unexpected wick::Error: ") + e.what());
    ++g_stats.errors;
    return false;
  } catch (const std::exception& e) {
    fail(std::string("an exception that is not a wick::Error: ") + typeid(e).name() + ": " +
         e.what());
  } catch (...) {
    fail("an exception that is not a std::exception");
  }
  if (expect == Expect::Error) fail("expected a wick::Error, but the op succeeded");
  ++g_stats.results;
  return true;
}

inline int64_t wrap_dim_or(int64_t d, int64_t ndim, bool& bad) {
  int64_t lo = ndim == 0 ? -1 : -ndim, hi = ndim == 0 ? 0 : ndim - 1;
  if (d < lo || d > hi) {
    bad = true;
    return 0;
  }
  return d < 0 ? d + std::max<int64_t>(ndim, 1) : d;
}

}  // namespace wick::fuzz::ops
