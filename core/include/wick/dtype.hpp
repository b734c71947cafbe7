// dtype.hpp: element types and PyTorch's promotion lattice bool < int64 < float32 < float64.
// The enum leaves room for bf16/f16 (they would slot in between bool and float32 in the
// lattice); no op accepts them yet. Rules written out in docs/type-promotion.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>

namespace wick {

enum class Dtype : int8_t { Bool = 0, Int64 = 1, Float32 = 2, Float64 = 3 };
inline constexpr int kNumDtypes = 4;

inline constexpr Dtype kBool = Dtype::Bool;
inline constexpr Dtype kInt64 = Dtype::Int64;
inline constexpr Dtype kLong = Dtype::Int64;
inline constexpr Dtype kFloat32 = Dtype::Float32;
inline constexpr Dtype kFloat = Dtype::Float32;
inline constexpr Dtype kFloat64 = Dtype::Float64;
inline constexpr Dtype kDouble = Dtype::Float64;

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
  }
  return 0;
}
constexpr bool is_floating(Dtype dtype) { return dtype == kFloat32 || dtype == kFloat64; }
constexpr bool is_integral(Dtype dtype, bool include_bool) {
  return dtype == kInt64 || (include_bool && dtype == kBool);
}
// The lattice join: the smallest dtype that holds both.
constexpr Dtype promote_types(Dtype a, Dtype b) {
  return static_cast<int8_t>(a) > static_cast<int8_t>(b) ? a : b;
}
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
template <typename T>
inline constexpr Dtype dtype_of = DtypeOf<T>::value;

}  // namespace wick

// WICK_DISPATCH_ALL(dtype, T, body): runs body with T bound to the C++ type of dtype.
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
