// rounded_division.hpp: a / b rounded to an integer value, toward zero (trunc_divide: div with
// rounding_mode "trunc") or down (floor_divide: rounding_mode "floor", Python's //), one
// definition for the CPU kernel (kernels/cpu/binary.cpp) and the CUDA one (kernels/cuda/
// binary.cu). PyTorch 1.13's formulas (c10/util/generic_math.h), so values match its own:
//  - integers: C's truncating quotient; floor subtracts one where the remainder is nonzero and
//    the signs differ. The boundary refuses a zero divisor. x / -1 is -x, wrapping: INT64_MIN /
//    -1 overflows (x86 traps on it; PyTorch 1.13 dies of SIGFPE there).
//  - floating point: trunc(a / b). floor is Python's float floordiv: q = (a - fmod(a, b)) / b,
//    one less where fmod's sign differs from b's, then floored and rounded up when more than
//    half above (q's own rounding); a zero quotient takes a / b's sign, and b == 0 gives a / b
//    (inf or NaN). Not floor(a / b): 1 // 0.1 is 9 (0.1 is above 1/10), floor(1 / 0.1) is 10.
#pragma once

#include <math.h>

#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#define WICK_DIVIDE_HD __host__ __device__ __forceinline__
#else
#define WICK_DIVIDE_HD inline
#endif

namespace wick::rounded_division {

template <typename T>
WICK_DIVIDE_HD T negated_wrapping(T a) {
  return static_cast<T>(uint64_t{0} - static_cast<uint64_t>(a));
}

// libm's float or double function, spelled out (device code has no std:: overloads).
template <typename T>
WICK_DIVIDE_HD T trunc_of(T x) {
  if constexpr (sizeof(T) == 4) {
    return truncf(x);
  } else {
    return trunc(x);
  }
}
template <typename T>
WICK_DIVIDE_HD T floor_of(T x) {
  if constexpr (sizeof(T) == 4) {
    return floorf(x);
  } else {
    return floor(x);
  }
}
template <typename T>
WICK_DIVIDE_HD T fmod_of(T a, T b) {
  if constexpr (sizeof(T) == 4) {
    return fmodf(a, b);
  } else {
    return fmod(a, b);
  }
}
template <typename T>
WICK_DIVIDE_HD T copysign_of(T magnitude, T sign) {
  if constexpr (sizeof(T) == 4) {
    return copysignf(magnitude, sign);
  } else {
    return copysign(magnitude, sign);
  }
}

template <typename T>
WICK_DIVIDE_HD T trunc_divide(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return b == -1 ? negated_wrapping(a) : a / b;
  } else {
    return trunc_of(a / b);
  }
}

template <typename T>
WICK_DIVIDE_HD T floor_divide(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b == -1) return negated_wrapping(a);
    const T quotient = a / b, rest = a % b;
    return rest != 0 && ((rest < 0) != (b < 0)) ? quotient - 1 : quotient;
  } else {
    if (b == 0) return a / b;
    const T mod = fmod_of(a, b);
    T quotient = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) quotient -= T(1);
    if (quotient == 0) return copysign_of(T(0), a / b);
    T floored = floor_of(quotient);
    if (quotient - floored > T(0.5)) floored += T(1);
    return floored;
  }
}

}  // namespace wick::rounded_division
