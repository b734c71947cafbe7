// philox.hpp: Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC'11), a counter-based generator: output = f(key, counter), no state. Element i of a random
// tensor depends only on (seed, offset, i), so CPU threads and CUDA threads produce the same
// numbers in any order. Shared verbatim by kernels/cpu/random.cpp and kernels/cuda/random.cu.
// Tested against the published known-answer vectors in tests/test_random.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define WICK_HOST_DEVICE __host__ __device__ __forceinline__
#elif defined(__GNUC__)
// Always inlined, so that the CPU kernel's multiversioned loops (kernels/cpu/random.cpp)
// compile these functions for their own instruction set and vectorise them.
#define WICK_HOST_DEVICE inline __attribute__((always_inline))
#else
#define WICK_HOST_DEVICE inline
#endif

namespace wick::philox {

struct Block {
  uint32_t v[4];
};

WICK_HOST_DEVICE void mulhilo(uint32_t a, uint32_t b, uint32_t& hi, uint32_t& lo) {
  uint64_t product = static_cast<uint64_t>(a) * b;
  hi = static_cast<uint32_t>(product >> 32);
  lo = static_cast<uint32_t>(product);
}

// Ten rounds on counter c with key k.
WICK_HOST_DEVICE Block philox4x32_10(Block c, uint32_t k0, uint32_t k1) {
  constexpr uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    uint32_t hi0, lo0, hi1, lo1;
    mulhilo(kMul0, c.v[0], hi0, lo0);
    mulhilo(kMul1, c.v[2], hi1, lo1);
    c = Block{{hi1 ^ c.v[1] ^ k0, lo1, hi0 ^ c.v[3] ^ k1, lo0}};
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return c;
}

// The four words for block number `block` of the stream (seed, offset): counter = offset+block.
WICK_HOST_DEVICE Block stream_block(uint64_t seed, uint64_t offset, uint64_t block) {
  uint64_t counter = offset + block;
  Block c{{static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0u, 0u}};
  return philox4x32_10(c, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

WICK_HOST_DEVICE uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(x));
#else
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
#endif
}
WICK_HOST_DEVICE double double_of(uint64_t bits) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
#endif
}
// x as a double, exactly: the double 2^52 + x (x in its low mantissa bits) minus 2^52.
WICK_HOST_DEVICE double word_value(uint32_t x) {
  return double_of(0x4330000000000000ull | x) - 4503599627370496.0;
}

// Uniform on [0, 1): float from the top 24 bits, double from all 32. The conversions go
// through signed int32 (x >> 8 < 2^24) and the 2^52 trick (word_value), exact either way: AVX2 has
// no unsigned or int64 conversion to floating point, and with one the CPU's loops over them stayed
// scalar in the AVX2 clone.
WICK_HOST_DEVICE float uniform_float(uint32_t x) {
  return static_cast<float>(static_cast<int32_t>(x >> 8)) * (1.0f / 16777216.0f);
}
WICK_HOST_DEVICE double uniform_double(uint32_t x) { return word_value(x) * (1.0 / 4294967296.0); }

// Element i of rand: word i % 4 of block i / 4.
template <typename T>
WICK_HOST_DEVICE T rand_element(uint64_t seed, uint64_t offset, uint64_t i) {
  Block b = stream_block(seed, offset, i / 4);
  uint32_t word = b.v[i % 4];
  if constexpr (sizeof(T) == 4) {
    return uniform_float(word);
  } else {
    return uniform_double(word);
  }
}

// log(u) for a positive normal double: fdlibm's e_log.c (Sun, 1993) without its special cases
// and its shortcut for u near 1, both branches computed and one selected, so that it has no
// branch and vectorises. Within 1.4 ulp of logl over 2e7 of randn's inputs (tests/test_random.cpp
// checks against std::log). Written out rather than libm's so that the CPU and the GPU, both
// built without contracting a * b + c into an FMA, compute the same bits.
WICK_HOST_DEVICE double log_positive(double u) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kLg1 = 6.666666666666735130e-01, kLg2 = 3.999999999940941908e-01,
                   kLg3 = 2.857142874366239149e-01, kLg4 = 2.222219843214978396e-01,
                   kLg5 = 1.818357216161805012e-01, kLg6 = 1.531383769920937332e-01,
                   kLg7 = 1.479819860511658591e-01;
  const uint64_t bits = bits_of(u);
  int32_t high = static_cast<int32_t>(bits >> 32);
  int32_t exponent = (high >> 20) - 1023;
  high &= 0x000fffff;
  // u = 2^exponent * m with m in [sqrt(2) / 2, sqrt(2)).
  const int32_t halve = (high + 0x95f64) & 0x100000;
  const uint64_t m_high = static_cast<uint32_t>(high | (halve ^ 0x3ff00000));
  const double m = double_of((m_high << 32) | (bits & 0xffffffffu));
  exponent += halve >> 20;
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double dk = static_cast<double>(exponent);
  const double z = s * s;
  const double w = z * z;
  const double t1 = w * (kLg2 + w * (kLg4 + w * kLg6));
  const double t2 = z * (kLg1 + w * (kLg3 + w * (kLg5 + w * kLg7)));
  const double r = t2 + t1;
  const double hfsq = 0.5 * f * f;
  const double far_from_1 = dk * kLn2Hi - ((hfsq - (s * (hfsq + r) + dk * kLn2Lo)) - f);
  const double near_1 = dk * kLn2Hi - ((s * (f - r) - dk * kLn2Lo) - f);
  return ((high - 0x6147a) | (0x6b851 - high)) > 0 ? far_from_1 : near_1;
}

// sin(2 pi t) and cos(2 pi t) for t in [0, 1]: t = q / 4 + r exactly (q the nearest quarter
// turn, |r| <= 1/8), then fdlibm's k_sin.c and k_cos.c on x = 2 pi r, |x| <= pi / 4, and the
// quarter turn by selects. Reducing t before multiplying by 2 pi keeps the angle's rounding
// out: within 1.8 x 2^-54 of sinl and cosl of 2 pi t (libm's cos(2 pi t), whose argument is
// rounded first, was 11.6 x 2^-54 off).
WICK_HOST_DEVICE void sincos_turns(double t, double* sin_out, double* cos_out) {
  constexpr double kS1 = -1.66666666666666324348e-01, kS2 = 8.33333333332248946124e-03,
                   kS3 = -1.98412698298579493134e-04, kS4 = 2.75573137070700676789e-06,
                   kS5 = -2.50507602534068634195e-08, kS6 = 1.58969099521155010221e-10;
  constexpr double kC1 = 4.16666666666666019037e-02, kC2 = -1.38888888888741095749e-03,
                   kC3 = 2.48015872894767294178e-05, kC4 = -2.75573143513906633035e-07,
                   kC5 = 2.08757232129817482790e-09, kC6 = -1.13596475577881948265e-11;
  // int32, not int64: AVX2 converts only 32-bit integers (the quarter is 0 .. 4).
  const int32_t quarter = static_cast<int32_t>(t * 4.0 + 0.5);
  const double r = t - static_cast<double>(quarter) * 0.25;
  const double x = r * 6.283185307179586476925286766559;
  const double z = x * x;
  const double sin_x = x + z * x * (kS1 + z * (kS2 + z * (kS3 + z * (kS4 + z * (kS5 + z * kS6)))));
  const double rc = z * (kC1 + z * (kC2 + z * (kC3 + z * (kC4 + z * (kC5 + z * kC6)))));
  // k_cos.c: 1 - x^2/2 loses bits when x^2/2 is large, so qx (0, x^2/4 truncated, or 0.28125)
  // is taken out of both terms first.
  const uint32_t ix = static_cast<uint32_t>(bits_of(x) >> 32) & 0x7fffffffu;
  const double truncated = double_of(static_cast<uint64_t>(ix - 0x00200000u) << 32);
  const double qx = ix < 0x3fd33333u ? 0.0 : (ix > 0x3fe90000u ? 0.28125 : truncated);
  const double cos_x = (1.0 - qx) - ((0.5 * z - qx) - z * rc);
  const int32_t q = quarter & 3;
  *cos_out = q == 0 ? cos_x : q == 1 ? -sin_x : q == 2 ? -cos_x : sin_x;
  *sin_out = q == 0 ? sin_x : q == 1 ? cos_x : q == 2 ? -sin_x : -cos_x;
}

// Box-Muller on one word pair: out[0] = radius * cos(angle), out[1] = radius * sin(angle),
// radius = sqrt(-2 log u1), angle = 2 pi u2. Computed in double with log_positive and
// sincos_turns, then rounded to T: the CPU and the GPU give the same bits.
template <typename T>
WICK_HOST_DEVICE void box_muller_pair(uint32_t word0, uint32_t word1, T* out) {
  // (x + 0.5) / 2^32 lies in (0, 1), so log never sees 0.
  const double u1 = (word_value(word0) + 0.5) * (1.0 / 4294967296.0);
  const double u2 = (word_value(word1) + 0.5) * (1.0 / 4294967296.0);
  const double radius = std::sqrt(-2.0 * log_positive(u1));
  double sin_angle, cos_angle;
  sincos_turns(u2, &sin_angle, &cos_angle);
  out[0] = static_cast<T>(radius * cos_angle);
  out[1] = static_cast<T>(radius * sin_angle);
}

// Element i of randn: Box-Muller on the word pair (2j, 2j+1) of block i / 4 that holds i;
// even i take the cosine, odd i the sine. The reference the kernels, which compute each block
// and each pair once, are tested against.
template <typename T>
WICK_HOST_DEVICE T randn_element(uint64_t seed, uint64_t offset, uint64_t i) {
  Block b = stream_block(seed, offset, i / 4);
  uint32_t pair = static_cast<uint32_t>(i % 4) & ~1u;
  T values[2];
  box_muller_pair<T>(b.v[pair], b.v[pair + 1], values);
  return values[i % 2];
}

// Blocks a call for n elements uses: the generator's offset advances by this much.
WICK_HOST_DEVICE uint64_t blocks_for(uint64_t n) { return (n + 3) / 4; }

}  // namespace wick::philox
