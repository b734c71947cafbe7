// reference.hpp: the tests' own float64 oracle. Everything here reads and writes tensors
// through data_ptr + sizes/strides with plain loops, independent of wick's iteration engine,
// broadcasting and kernels, so that a bug there cannot hide by agreeing with itself.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "wick/wick.hpp"

namespace ref {

using wick::Dtype;
using wick::Shape;
using wick::Tensor;

inline const std::vector<Dtype>& all_dtypes() {
  static const std::vector<Dtype> d{wick::kBool, wick::kInt64, wick::kFloat32, wick::kFloat64};
  return d;
}

inline int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// Element at storage offset `offset` (elements) of a CPU tensor, as double. Bools are read as
// bytes so that a never-written element (0xFF under debug fill) reads as 255, not UB.
inline double read_at(const Tensor& t, int64_t offset) {
  const char* base = static_cast<const char*>(t.storage()->data());
  switch (t.dtype()) {
    case wick::kBool:
      return static_cast<double>(reinterpret_cast<const uint8_t*>(base)[offset]);
    case wick::kInt64:
      return static_cast<double>(reinterpret_cast<const int64_t*>(base)[offset]);
    case wick::kFloat32:
      return reinterpret_cast<const float*>(base)[offset];
    case wick::kFloat64:
      return reinterpret_cast<const double*>(base)[offset];
    case wick::kBFloat16:
      return static_cast<float>(reinterpret_cast<const wick::BFloat16*>(base)[offset]);
  }
  return 0;
}

inline void write_at(const Tensor& t, int64_t offset, double v) {
  char* base = static_cast<char*>(t.storage()->data());
  switch (t.dtype()) {
    case wick::kBool:
      reinterpret_cast<uint8_t*>(base)[offset] = v != 0;
      break;
    case wick::kInt64:
      reinterpret_cast<int64_t*>(base)[offset] = static_cast<int64_t>(v);
      break;
    case wick::kFloat32:
      reinterpret_cast<float*>(base)[offset] = static_cast<float>(v);
      break;
    case wick::kFloat64:
      reinterpret_cast<double*>(base)[offset] = v;
      break;
    case wick::kBFloat16:
      reinterpret_cast<wick::BFloat16*>(base)[offset] = wick::BFloat16(static_cast<float>(v));
      break;
  }
}

// Row-major walk over `sizes`; calls fn(index) with the multi-index. (A template, not a
// std::function: the sweep walks tens of millions of elements, under the sanitizers too.)
template <typename Fn>
void for_each_index(const Shape& sizes, Fn&& fn) {
  int64_t n = numel(sizes);
  std::vector<int64_t> idx(sizes.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    fn(static_cast<const std::vector<int64_t>&>(idx));
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
}

// Storage offset of multi-index `idx` of the output shape in tensor t, broadcasting t
// against that shape (NumPy rules: trailing dims aligned, size-1 dims repeat).
inline int64_t offset_of(const Tensor& t, const std::vector<int64_t>& idx) {
  const Shape &sizes = t.sizes(), &strides = t.strides();
  int64_t off = t.storage_offset();
  const size_t lead = idx.size() - sizes.size();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] != 1) off += idx[d + lead] * strides[d];
  }
  return off;
}

inline double value(const Tensor& t, const std::vector<int64_t>& idx) {
  return read_at(t, offset_of(t, idx));
}

// All values in row-major order.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(t.numel()));
  for_each_index(t.sizes(), [&](const std::vector<int64_t>& i) { out.push_back(value(t, i)); });
  return out;
}

// What kind of values to draw.
// NonZero: Positive with random signs (divisors of fmod and remainder: test_op_sweep.cpp).
enum class Domain { Any, Positive, SmallInt, Bool01, NonZero };

inline std::mt19937_64& rng() {
  static std::mt19937_64 gen(20261130);
  return gen;
}

// A uniform double in [0, 1) from one 64-bit draw: x / 2^64, rounded, kept below 1. The same
// values as std::generate_canonical<double, 53> on this engine, which recomputes a long double
// log on every call where the compiler does not fold it (the sanitizer build's -O1).
inline double canonical() {
  const double c = static_cast<double>(rng()()) * 0x1p-64;
  return c < 1.0 ? c : std::nextafter(1.0, 0.0);
}

inline double draw(Dtype dtype, Domain domain) {
  std::uniform_int_distribution<int> small(-3, 4);
  std::uniform_int_distribution<int> ints(-40, 40);
  auto u = [] { return canonical() * 6.0 - 3.0; };  // uniform in [-3, 3)
  if (dtype == wick::kBool) return canonical() < 0.5 ? 1.0 : 0.0;
  if (dtype == wick::kInt64) {
    if (domain == Domain::Positive) return std::abs(ints(rng())) + 1;
    if (domain == Domain::SmallInt) return small(rng());
    return ints(rng());
  }
  if (domain == Domain::Positive) return std::abs(u()) + 0.1;
  if (domain == Domain::SmallInt) return small(rng()) + 0.25 * small(rng());
  return u();
}

// How an input is laid out in memory.
enum class Layout { Contiguous, Transposed, Strided, Expanded };
inline const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous:
      return "contiguous";
    case Layout::Transposed:
      return "transposed";
    case Layout::Strided:
      return "sliced with step 2";
    case Layout::Expanded:
      return "expanded";
  }
  return "";
}

// A CPU tensor of logical shape `sizes` and dtype, laid out as asked, filled with values drawn
// from `domain`. Layouts that a shape can't have (a 0-d tensor can't be transposed) fall back
// to contiguous.
inline Tensor make_input(const Shape& sizes, Dtype dtype, Layout layout,
                         Domain domain = Domain::Any) {
  // Every base below is a fresh contiguous tensor: row-major order is storage order.
  auto fill = [&](const Tensor& base) {
    const int64_t begin = base.storage_offset(), end = begin + base.numel();
    for (int64_t offset = begin; offset < end; ++offset)
      write_at(base, offset, draw(dtype, domain));
  };
  const int64_t nd = static_cast<int64_t>(sizes.size());
  if (layout == Layout::Transposed && nd >= 2) {
    Shape swapped = sizes;
    std::swap(swapped[nd - 1], swapped[nd - 2]);
    Tensor base = wick::empty(swapped, dtype);
    fill(base);
    return base.transpose(-1, -2);
  }
  if (layout == Layout::Strided && nd >= 1) {
    Shape wide = sizes;
    wide[nd - 1] = sizes[nd - 1] * 2 + 1;
    Tensor base = wick::empty(wide, dtype);
    fill(base);
    return base.slice(-1, 1, std::nullopt, 2).narrow(-1, 0, sizes[nd - 1]);
  }
  if (layout == Layout::Expanded && nd >= 1 && sizes[0] > 1) {
    Shape one = sizes;
    one[0] = 1;
    Tensor base = wick::empty(one, dtype);
    fill(base);
    return base.expand(sizes);
  }
  Tensor base = wick::empty(sizes, dtype);
  fill(base);
  return base;
}

// Same value up to the dtype's rounding; NaN matches NaN, infinities match by sign.
inline bool close(double got, double want, Dtype dtype, double rtol_scale = 1.0) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (dtype == wick::kBool || dtype == wick::kInt64) return got == want;
  double rtol = (dtype == wick::kFloat32 ? 1e-5 : 1e-12) * rtol_scale;
  double atol = (dtype == wick::kFloat32 ? 1e-6 : 1e-12) * rtol_scale;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

// Compares every element of `got` with want(index); stops at the first mismatch with a
// message naming the element. Returns true when all match.
template <typename Want>
bool check_all(const Tensor& got, Want&& want, const std::string& what, double rtol_scale = 1.0) {
  bool ok = true;
  std::string failure;
  for_each_index(got.sizes(), [&](const std::vector<int64_t>& i) {
    if (!ok) return;
    double g = value(got, i), w = want(i);
    if (got.dtype() == wick::kBool && g != 0 && g != 1) w = -1;  // unwritten bool byte
    if (!close(g, w, got.dtype(), rtol_scale)) {
      ok = false;
      std::string index;
      for (int64_t v : i) index += (index.empty() ? "" : ", ") + std::to_string(v);
      failure = what + ": element [" + index + "] is " + std::to_string(g) + ", expected " +
                std::to_string(w);
    }
  });
  if (!ok) FAIL_CHECK(failure);
  return ok;
}

// Turns debug fill on for a scope: every new allocation starts as 0xFF bytes (NaN).
struct PoisonScope {
  PoisonScope() { wick::set_debug_fill(true); }
  ~PoisonScope() { wick::set_debug_fill(false); }
};

}  // namespace ref

// Plain matmul in double (defined in test_matmul.cpp), with matmul's 1-D and batch rules.
wick::Tensor reference_matmul(const wick::Tensor& a, const wick::Tensor& b);
