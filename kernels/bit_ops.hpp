// bit_ops.hpp: the element functions of the integer and bit ops, one definition for the CPU
// kernel (kernels/cpu/binary.cpp) and the CUDA one (kernels/cuda/binary.cu):
//  - shifts of int64 by an int64 count. C leaves a count outside [0, 63] undefined, and the
//    hardware disagrees (x86 takes it mod 64, a GPU's shf saturates), so PyTorch 1.13 gave
//    different bits on its two devices. The rule here is PyTorch 2.1's, on both: such a count
//    shifts every bit out, giving 0 to the left and the sign (0 or -1) to the right. A left
//    shift drops the bits past 63 (done in uint64, so it is never undefined).
//  - gcd and lcm: PyTorch's calc_gcd (Euclid on the absolute values, which wrap: |INT64_MIN| is
//    INT64_MIN, so gcd(INT64_MIN, 0) is INT64_MIN and gcd(5, INT64_MIN) is -1, as there) and
//    lcm = |a / gcd * b|, wrapping. The two divisions that overflow (INT64_MIN % -1 and
//    INT64_MIN / -1, which trap on x86: PyTorch dies of SIGFPE) give the wrapped results 0 and
//    INT64_MIN here.
//  - nextafter of bfloat16: one step of its 16-bit pattern (float's nextafter would step by
//    float's much smaller ulp and round back). float and double use libm's.
#pragma once

#include <math.h>

#include <cstdint>

#include "wick/bfloat16.hpp"

#if defined(__CUDACC__)
#define WICK_BITS_HD __host__ __device__ __forceinline__
#else
#define WICK_BITS_HD inline
#endif

namespace wick::bit_ops {

// Written as selects on one unsigned compare (a count below 0 is a huge unsigned one), not
// as branches, so that the CPU loops vectorise them (AVX2's variable left shift).
WICK_BITS_HD int64_t shift_left(int64_t a, int64_t count) {
  const auto c = static_cast<uint64_t>(count);
  const uint64_t shifted = static_cast<uint64_t>(a) << (c & 63);
  return static_cast<int64_t>(c < 64 ? shifted : 0);
}

WICK_BITS_HD int64_t shift_right(int64_t a, int64_t count) {
  const auto c = static_cast<uint64_t>(count);
  return a >> (c < 64 ? c : 63);  // arithmetic: C++20 defines >> of a negative value as sign fill
}

WICK_BITS_HD int64_t wrapped_abs(int64_t a) {
  return a < 0 ? static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(a)) : a;
}

WICK_BITS_HD int64_t gcd(int64_t a_in, int64_t b_in) {
  int64_t a = wrapped_abs(a_in), b = wrapped_abs(b_in);
  while (a != 0) {
    const int64_t c = a;
    a = a == -1 ? 0 : b % a;  // x % -1 is 0; INT64_MIN % -1 would trap
    b = c;
  }
  return b;
}

WICK_BITS_HD int64_t lcm(int64_t a, int64_t b) {
  const int64_t g = gcd(a, b);
  if (g == 0) return 0;
  const int64_t quotient = g == -1 ? static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(a))
                                   : a / g;  // INT64_MIN / -1 wraps to INT64_MIN
  return wrapped_abs(
      static_cast<int64_t>(static_cast<uint64_t>(quotient) * static_cast<uint64_t>(b)));
}

// The next float or double after a toward b on its bit pattern (Bits: uint32_t or uint64_t),
// the same value as libm's nextafter. Every choice is a mask and a blend, not a branch or a
// select (GCC keeps those as jumps on floating compares), so the CPU loops vectorise it:
// glibc's nextafterf is a call of about 11 ns per element. NaN operands give a + b (a NaN).
template <typename Bits, typename F>
WICK_BITS_HD F nextafter_bits(F a, F b) {
  Bits ua, ub;
  __builtin_memcpy(&ua, &a, sizeof(F));
  __builtin_memcpy(&ub, &b, sizeof(F));
  const F nan_sum = a + b;
  Bits un;
  __builtin_memcpy(&un, &nan_sum, sizeof(F));
  auto mask = [](bool c) { return Bits{0} - static_cast<Bits>(c); };  // all ones where c
  auto blend = [](Bits m, Bits x, Bits y) { return (x & m) | (y & ~m); };
  const Bits sign = Bits{1} << (sizeof(F) * 8 - 1);
  // One step of the pattern: +1 away from zero, -1 (all ones) toward it.
  const Bits moved = ua + (mask((a < b) != (a > F(0))) | Bits{1});
  Bits r = blend(mask(a == F(0)), (ub & sign) | Bits{1}, moved);
  r = blend(mask(a == b), ub, r);
  r = blend(mask((a != a) | (b != b)), un, r);
  F out;
  __builtin_memcpy(&out, &r, sizeof(F));
  return out;
}

// The next bfloat16 after a toward b: NaN if either is NaN, b if they are equal (so
// nextafter(-0, 0) is 0), the smallest subnormal of b's sign from a zero, else one step of the
// pattern away from or toward zero.
WICK_BITS_HD BFloat16 nextafter_bf16(BFloat16 a, BFloat16 b) {
  const float x = static_cast<float>(a), y = static_cast<float>(b);
  if (x != x || y != y) return BFloat16::from_bits(0x7fc0);
  if (x == y) return b;
  if (x == 0.0f) return BFloat16::from_bits(static_cast<uint16_t>((y < 0.0f ? 0x8000 : 0) | 1));
  const bool away_from_zero = (x < y) == (x > 0.0f);
  return BFloat16::from_bits(static_cast<uint16_t>(away_from_zero ? a.bits + 1 : a.bits - 1));
}

}  // namespace wick::bit_ops
