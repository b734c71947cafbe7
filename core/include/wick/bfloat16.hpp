// bfloat16.hpp: wick::BFloat16, the 16-bit "brain float": float32's sign and 8-bit exponent with
// a 7-bit mantissa, so the same range as float32 at about 3 significant digits. It is the input
// format of the tensor cores' BF16 path (kernels/cuda/gemm/10_bf16_mma.cuh). The struct only
// stores and converts; ops on bfloat16 tensors compute in float32 and round once (kernels/cpu/
// loops.hpp, core/src/backend.cpp), as PyTorch does on the CPU. Float -> bfloat16 rounds to
// nearest, ties to even, keeps NaN a (quiet) NaN; bfloat16 -> float is exact. For device code too.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define WICK_BF16_HD __host__ __device__ inline
#else
#define WICK_BF16_HD inline
#endif

namespace wick {

struct BFloat16 {
  uint16_t bits;  // no initialiser: trivial, like float, so arrays of it can live in shared memory

  BFloat16() = default;
  WICK_BF16_HD explicit BFloat16(float value) : bits(round_from_float(value)) {}
  WICK_BF16_HD explicit operator float() const { return to_float(bits); }

  WICK_BF16_HD static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  WICK_BF16_HD static uint16_t round_from_float(float value) {
    uint32_t u = 0;
    std::memcpy(&u, &value, sizeof(u));
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);  // NaN
    // Round to nearest even: add 0x7fff plus the lowest kept bit, then truncate. Values past
    // the largest bfloat16 round to infinity, as IEEE rounding does.
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
  WICK_BF16_HD static float to_float(uint16_t b) {
    const uint32_t u = static_cast<uint32_t>(b) << 16;
    float f = 0;
    std::memcpy(&f, &u, sizeof(f));
    return f;
  }
};

static_assert(sizeof(BFloat16) == 2, "BFloat16 must be two bytes");

}  // namespace wick
