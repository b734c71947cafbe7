// ops_binary_reference.hpp: the fuzz model of the binary elementwise ops (fuzz_ops's
// elementwise and in-place steps): the op list, integer arithmetic the plain way (wrapping,
// C's quotient and remainder, Python's floor), and each op's value in a compute dtype, in that
// dtype's own rounding where the kernels round per step. Split from ops_reference.hpp, whose
// values, casts and comparisons it uses.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ops_reference.hpp"

namespace wick::fuzz::ops {

// ---- elementwise math in a compute dtype ----

enum class Bin {
  add,
  sub,
  mul,
  div,
  pow,
  maximum,
  minimum,
  sigmoid_backward,
  tanh_backward,
  atan2,
  hypot,
  fmod,
  remainder,
  floor_divide,
  trunc_divide,
  copysign,
  eq,
  ne,
  lt,
  le,
  gt,
  ge,
  bitwise_and,
  bitwise_or,
  bitwise_xor,
  shift_left,
  shift_right,
  gcd,
  lcm,
  nextafter
};
inline constexpr int kNumBins = 30;
inline constexpr const char* kBinNames[kNumBins] = {"add",
                                                    "sub",
                                                    "mul",
                                                    "div",
                                                    "pow",
                                                    "maximum",
                                                    "minimum",
                                                    "sigmoid_backward",
                                                    "tanh_backward",
                                                    "atan2",
                                                    "hypot",
                                                    "fmod",
                                                    "remainder",
                                                    "floor_divide",
                                                    "trunc_divide",
                                                    "copysign",
                                                    "eq",
                                                    "ne",
                                                    "lt",
                                                    "le",
                                                    "gt",
                                                    "ge",
                                                    "bitwise_and",
                                                    "bitwise_or",
                                                    "bitwise_xor",
                                                    "bitwise_left_shift",
                                                    "bitwise_right_shift",
                                                    "gcd",
                                                    "lcm",
                                                    "nextafter"};
inline bool is_compare(Bin op) { return op >= Bin::eq && op <= Bin::ge; }
// and, or, xor: int64 or bool; the shifts, gcd and lcm: int64 only; nextafter: floating only.
inline bool is_bitwise(Bin op) {
  return op == Bin::bitwise_and || op == Bin::bitwise_or || op == Bin::bitwise_xor;
}
inline bool takes_int64_only(Bin op) {
  return op == Bin::shift_left || op == Bin::shift_right || op == Bin::gcd || op == Bin::lcm;
}
// The gradients from an activation's result: floating results only (int64 and bool operands
// that promote to int64 or bool are a DtypeError), tensor operands only.
inline bool is_activation_backward(Bin op) {
  return op == Bin::sigmoid_backward || op == Bin::tanh_backward;
}

// fmod and remainder as C's fmod and Python's %, computed the plain way (x % -1 is 0: the
// boundary refuses a zero divisor, and INT64_MIN % -1 overflows).
inline int64_t int_fmod(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }
inline int64_t int_remainder(int64_t a, int64_t b) {
  const int64_t r = int_fmod(a, b);
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

// div with rounding_mode on integers, the plain way: C's quotient, one less where a remainder
// is left and the signs differ (floor); x / -1 is -x, wrapping (INT64_MIN / -1 overflows).
inline int64_t int_trunc_divide(int64_t a, int64_t b) {
  return b == -1 ? static_cast<int64_t>(0 - static_cast<uint64_t>(a)) : a / b;
}
inline int64_t int_floor_divide(int64_t a, int64_t b) {
  if (b == -1) return int_trunc_divide(a, b);
  return a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);
}
// Python's float a // b in T (float for float32 and bfloat16, double for float64): the multiple
// of b below a by fmod, corrected to floor's side, then its rounding mended to the integer.
template <typename T>
T python_floor_divide(T a, T b) {
  if (b == 0) return a / b;
  const T mod = std::fmod(a, b);
  T q = (a - mod) / b;
  if (mod != 0 && std::signbit(mod) != std::signbit(b)) q -= 1;
  if (q == 0) return std::copysign(T(0), a / b);
  const T below = std::floor(q);
  return q - below > T(0.5) ? below + 1 : below;
}

// Shifts written out: a count outside [0, 63] moves every bit out (PyTorch 2.1's rule).
inline int64_t int_shift_left(int64_t a, int64_t count) {
  if (count < 0 || count >= 64) return 0;
  uint64_t bits = static_cast<uint64_t>(a);
  for (int64_t i = 0; i < count; ++i) bits *= 2;  // the high bits fall off
  return static_cast<int64_t>(bits);
}
inline int64_t int_shift_right(int64_t a, int64_t count) {
  if (count < 0 || count >= 64) return a < 0 ? -1 : 0;
  int64_t r = a;
  // Floor halving: an odd value steps down to even first (never from INT64_MIN, which is even).
  for (int64_t i = 0; i < count; ++i) r = (r - (r & 1)) / 2;
  return r;
}
// gcd and lcm: PyTorch's calc_gcd, Euclid on the absolute values with |INT64_MIN| wrapping
// to INT64_MIN (so gcd(5, INT64_MIN) is -1 there), x % -1 taken as 0 instead of trapping; lcm
// is |a / g * b| with every step wrapping.
inline int64_t int_gcd(int64_t a, int64_t b) {
  auto wabs = [](int64_t v) {
    return v < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v;
  };
  int64_t x = wabs(a), y = wabs(b);
  while (x != 0) {
    const int64_t c = x;
    x = x == -1 ? 0 : y % x;
    y = c;
  }
  return y;
}
inline int64_t int_lcm(int64_t a, int64_t b) {
  const int64_t g = int_gcd(a, b);
  if (g == 0) return 0;
  const uint64_t q = g == -1 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a / g);
  const auto product = static_cast<int64_t>(q * static_cast<uint64_t>(b));
  return product < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(product)) : product;
}
// bfloat16's next value: its 16 high bits of a float stepped by one.
inline double bf16_nextafter(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return std::nan("");
  if (x == y) return y;
  if (x == 0) return std::copysign(std::ldexp(1.0, -133), y);
  uint32_t bits;
  const auto f = static_cast<float>(x);
  std::memcpy(&bits, &f, 4);
  bits = ((x < y) == (x > 0)) ? bits + 0x10000u : bits - 0x10000u;
  float r;
  std::memcpy(&r, &bits, 4);
  return r;
}

inline int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline int64_t wrap_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
inline int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
// Integer power with wrap-around; negative exponents give 1, +-1 or 0 (truncated 1/base^e).
inline int64_t int_pow(int64_t base, int64_t e) {
  if (e < 0) return base == 1 ? 1 : base == -1 ? ((e % 2 == 0) ? 1 : -1) : 0;
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (; e > 0; e >>= 1, b *= b) {
    if (e & 1) result *= b;
  }
  return static_cast<int64_t>(result);
}

// How far a float result may be from the float64 reference, in units in the last place.
// The activation gradients' reference rounds each step as wick's kernels (and PyTorch's) do:
// no slack, so a tanh gradient rounded twice instead of fused fails.
inline int ulps_of(Bin op) {
  if (is_activation_backward(op) || op == Bin::floor_divide || op == Bin::trunc_divide ||
      op == Bin::nextafter) {
    return 0;
  }
  return op == Bin::pow ? 8 : 1;
}

inline V binary_value(Bin op, V a, V b, Dtype k) {
  V r;
  if (k == wick::kBool || k == wick::kInt64) {
    const int64_t x = a.i, y = b.i;
    switch (op) {
      case Bin::add:
        r.i = k == wick::kBool ? (x || y) : wrap_add(x, y);
        break;
      case Bin::sub:
        r.i = wrap_sub(x, y);
        break;
      case Bin::mul:
        r.i = k == wick::kBool ? (x && y) : wrap_mul(x, y);
        break;
      case Bin::pow:
        r.i = int_pow(x, y);
        break;
      case Bin::maximum:
        r.i = x > y ? x : y;
        break;
      case Bin::minimum:
        r.i = x < y ? x : y;
        break;
      case Bin::eq:
        r.i = x == y;
        break;
      case Bin::ne:
        r.i = x != y;
        break;
      case Bin::lt:
        r.i = x < y;
        break;
      case Bin::le:
        r.i = x <= y;
        break;
      case Bin::gt:
        r.i = x > y;
        break;
      case Bin::ge:
        r.i = x >= y;
        break;
      case Bin::fmod:
        r.i = int_fmod(x, y);
        break;
      case Bin::remainder:
        r.i = int_remainder(x, y);
        break;
      case Bin::floor_divide:
        r.i = int_floor_divide(x, y);
        break;
      case Bin::trunc_divide:
        r.i = int_trunc_divide(x, y);
        break;
      case Bin::bitwise_and:
        r.i = x & y;
        break;
      case Bin::bitwise_or:
        r.i = x | y;
        break;
      case Bin::bitwise_xor:
        r.i = x ^ y;
        break;
      case Bin::shift_left:
        r.i = int_shift_left(x, y);
        break;
      case Bin::shift_right:
        r.i = int_shift_right(x, y);
        break;
      case Bin::gcd:
        r.i = int_gcd(x, y);
        break;
      case Bin::lcm:
        r.i = int_lcm(x, y);
        break;
      case Bin::nextafter:
        fail("an integer nextafter reached the reference");
        break;
      case Bin::div:
      case Bin::atan2:
      case Bin::hypot:
      case Bin::copysign:
        fail("an integer div, atan2, hypot or copysign reached the reference");
        break;
      case Bin::sigmoid_backward:
      case Bin::tanh_backward:
        fail("an integer activation gradient reached the reference");
    }
    return r;
  }
  const double x = a.d, y = b.d;
  double d = 0;
  switch (op) {
    case Bin::add:
      d = x + y;
      break;
    case Bin::sub:
      d = x - y;
      break;
    case Bin::mul:
      d = x * y;
      break;
    case Bin::div:
      d = x / y;
      break;
    case Bin::pow:
      d = std::pow(x, y);
      break;
    case Bin::atan2:
      d = std::atan2(x, y);
      break;
    case Bin::hypot:
      d = std::hypot(x, y);
      break;
    case Bin::fmod:
      d = std::fmod(x, y);
      break;
    case Bin::remainder: {
      // fmod's result moved to y's sign by adding y, that sum rounded in float32 for float32
      // and bfloat16 (which round again below), as the kernels compute it.
      const double mod = std::fmod(x, y);
      const bool moves = mod != 0 && ((y < 0) != (mod < 0));
      d = !moves ? mod
          : k == wick::kFloat64
              ? mod + y
              : static_cast<double>(static_cast<float>(mod) + static_cast<float>(y));
      break;
    }
    // In the dtype's own arithmetic (float for float32 and bfloat16), as the kernels compute.
    case Bin::floor_divide:
      d = k == wick::kFloat64 ? python_floor_divide(x, y)
                              : static_cast<double>(python_floor_divide(static_cast<float>(x),
                                                                        static_cast<float>(y)));
      break;
    case Bin::copysign:
      d = std::copysign(x, y);
      break;
    case Bin::trunc_divide:
      d = k == wick::kFloat64
              ? std::trunc(x / y)
              : static_cast<double>(std::trunc(static_cast<float>(x) / static_cast<float>(y)));
      break;
    case Bin::maximum:
      d = std::isnan(x) ? x : std::isnan(y) ? y : (x > y ? x : y);
      break;
    case Bin::minimum:
      d = std::isnan(x) ? x : std::isnan(y) ? y : (x < y ? x : y);
      break;
    // As PyTorch 1.13's CPU kernels round them (wick's too): (g * (1 - y)) * y, and
    // g * fma(-y, y, 1), each step in float32 for float32 and bfloat16 (which rounds once at
    // the end, below), in float64 for float64.
    case Bin::sigmoid_backward:
      if (k == wick::kFloat64) {
        d = x * (1.0 - y) * y;
      } else {
        const auto g = static_cast<float>(x), o = static_cast<float>(y);
        d = static_cast<double>(g * (1.0f - o) * o);
      }
      break;
    case Bin::tanh_backward:
      if (k == wick::kFloat64) {
        d = x * std::fma(-y, y, 1.0);
      } else {
        const auto g = static_cast<float>(x), o = static_cast<float>(y);
        d = static_cast<double>(g * std::fma(-o, o, 1.0f));
      }
      break;
    case Bin::nextafter:
      d = k == wick::kFloat64 ? std::nextafter(x, y)
          : k == wick::kFloat32
              ? static_cast<double>(std::nextafter(static_cast<float>(x), static_cast<float>(y)))
              : bf16_nextafter(x, y);
      break;
    case Bin::bitwise_and:
    case Bin::bitwise_or:
    case Bin::bitwise_xor:
    case Bin::shift_left:
    case Bin::shift_right:
    case Bin::gcd:
    case Bin::lcm:
      fail("a floating bit op reached the reference");
      break;
    case Bin::eq:
      r.i = x == y;
      return r;
    case Bin::ne:
      r.i = x != y;
      return r;
    case Bin::lt:
      r.i = x < y;
      return r;
    case Bin::le:
      r.i = x <= y;
      return r;
    case Bin::gt:
      r.i = x > y;
      return r;
    case Bin::ge:
      r.i = x >= y;
      return r;
  }
  r.d = round_to(k, d);
  return r;
}

}  // namespace wick::fuzz::ops
