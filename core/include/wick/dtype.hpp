// dtype.hpp: element types and PyTorch's promotion lattice bool < int64 < bfloat16 < float32 <
// float64. The enum's values are fixed (files and tests name them); the lattice order is
// rank(). Rules written out in docs/type-promotion.md. bfloat16 (bfloat16.hpp) is stored
// natively everywhere; kernels compute it in float32 (see core/src/backend.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>

#include "wick/bfloat16.hpp"

namespace wick {

enum class Dtype : int8_t { Bool = 0, Int64 = 1, Float32 = 2, Float64 = 3, BFloat16 = 4 };
inline constexpr int kNumDtypes = 5;

inline constexpr Dtype kBool = Dtype::Bool;
inline constexpr Dtype kInt64 = Dtype::Int64;
inline constexpr Dtype kLong = Dtype::Int64;
inline constexpr Dtype kFloat32 = Dtype::Float32;
inline constexpr Dtype kFloat = Dtype::Float32;
inline constexpr Dtype kFloat64 = Dtype::Float64;
inline constexpr Dtype kDouble = Dtype::Float64;
inline constexpr Dtype kBFloat16 = Dtype::BFloat16;

// The dtype a floating result takes when no operand decides it (torch.get_default_dtype()).
inline constexpr Dtype kDefaultFloat = kFloat32;

constexpr size_t element_size(Dtype dtype) {
  switch (dtype) {
    case Dtype::Bool:
      return 1;
    case Dtype::Int64:
      return 8;
    case Dtype::Float32:
      return 4;
    case Dtype::Float64:
      return 8;
    case Dtype::BFloat16:
      return 2;
  }
  return 0;
}
constexpr bool is_floating(Dtype dtype) {
  return dtype == kFloat32 || dtype == kFloat64 || dtype == kBFloat16;
}
constexpr bool is_integral(Dtype dtype, bool include_bool) {
  return dtype == kInt64 || (include_bool && dtype == kBool);
}
// The position in the lattice bool < int64 < bfloat16 < float32 < float64.
constexpr int rank(Dtype dtype) {
  switch (dtype) {
    case Dtype::Bool:
      return 0;
    case Dtype::Int64:
      return 1;
    case Dtype::BFloat16:
      return 2;
    case Dtype::Float32:
      return 3;
    case Dtype::Float64:
      return 4;
  }
  return 0;
}
// The lattice join: the smallest dtype that holds both.
constexpr Dtype promote_types(Dtype a, Dtype b) { return rank(a) > rank(b) ? a : b; }
const char* dtype_name(Dtype dtype);  // "float32", as torch prints it without "torch."
std::ostream& operator<<(std::ostream& out, Dtype dtype);

// C++ type <-> Dtype.
template <typename T>
struct DtypeOf;
template <>
struct DtypeOf<bool> {
  static constexpr Dtype value = kBool;
};
template <>
struct DtypeOf<int64_t> {
  static constexpr Dtype value = kInt64;
};
template <>
struct DtypeOf<float> {
  static constexpr Dtype value = kFloat32;
};
template <>
struct DtypeOf<double> {
  static constexpr Dtype value = kFloat64;
};
template <>
struct DtypeOf<BFloat16> {
  static constexpr Dtype value = kBFloat16;
};
template <typename T>
inline constexpr Dtype dtype_of = DtypeOf<T>::value;

namespace detail {
// A kernel reached with a dtype it has no case for: the boundary should have prevented it.
[[noreturn]] void unhandled_dtype(Dtype dtype, const char* where);
}  // namespace detail

}  // namespace wick

// WICK_DISPATCH_ALL(dtype, T, body): runs body with T bound to the C++ type of dtype, for the
// four computing dtypes. bfloat16 never reaches these: run_kernel computes it in float32
// (core/src/backend.cpp); the copy kernels, which do see it, use WICK_DISPATCH_STORED.
#define WICK_DISPATCH_CASE(enum_value, cpp_type, ...) \
  case enum_value: {                                  \
    using T = cpp_type;                               \
    __VA_ARGS__;                                      \
    break;                                            \
  }
#define WICK_DISPATCH_ALL(dtype, ...)                               \
  switch (dtype) {                                                  \
    WICK_DISPATCH_CASE(::wick::Dtype::Bool, bool, __VA_ARGS__)      \
    WICK_DISPATCH_CASE(::wick::Dtype::Int64, int64_t, __VA_ARGS__)  \
    WICK_DISPATCH_CASE(::wick::Dtype::Float32, float, __VA_ARGS__)  \
    WICK_DISPATCH_CASE(::wick::Dtype::Float64, double, __VA_ARGS__) \
    case ::wick::Dtype::BFloat16:                                   \
      ::wick::detail::unhandled_dtype(dtype, __FILE__);             \
  }
// Every dtype, bfloat16 included (T = wick::BFloat16): for code that only moves or converts.
#define WICK_DISPATCH_STORED(dtype, ...)                                       \
  switch (dtype) {                                                             \
    WICK_DISPATCH_CASE(::wick::Dtype::Bool, bool, __VA_ARGS__)                 \
    WICK_DISPATCH_CASE(::wick::Dtype::Int64, int64_t, __VA_ARGS__)             \
    WICK_DISPATCH_CASE(::wick::Dtype::Float32, float, __VA_ARGS__)             \
    WICK_DISPATCH_CASE(::wick::Dtype::Float64, double, __VA_ARGS__)            \
    WICK_DISPATCH_CASE(::wick::Dtype::BFloat16, ::wick::BFloat16, __VA_ARGS__) \
  }
#define WICK_DISPATCH_FLOATING(dtype, ...)                          \
  switch (dtype) {                                                  \
    WICK_DISPATCH_CASE(::wick::Dtype::Float32, float, __VA_ARGS__)  \
    WICK_DISPATCH_CASE(::wick::Dtype::Float64, double, __VA_ARGS__) \
    default:                                                        \
      break;                                                        \
  }
#define WICK_DISPATCH_NUMERIC(dtype, ...)                           \
  switch (dtype) {                                                  \
    WICK_DISPATCH_CASE(::wick::Dtype::Int64, int64_t, __VA_ARGS__)  \
    WICK_DISPATCH_CASE(::wick::Dtype::Float32, float, __VA_ARGS__)  \
    WICK_DISPATCH_CASE(::wick::Dtype::Float64, double, __VA_ARGS__) \
    default:                                                        \
      break;                                                        \
  }
