// philox.hpp: Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC'11), a counter-based generator: output = f(key, counter), no state. Element i of a random
// tensor depends only on (seed, offset, i), so CPU threads and CUDA threads produce the same
// numbers in any order. Shared verbatim by kernels/cpu/random.cpp and kernels/cuda/random.cu.
// Tested against the published known-answer vectors in tests/test_random.cpp.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define WICK_HOST_DEVICE __host__ __device__ __forceinline__
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

// Uniform on [0, 1): float from the top 24 bits, double from all 32.
WICK_HOST_DEVICE float uniform_float(uint32_t x) { return (x >> 8) * (1.0f / 16777216.0f); }
WICK_HOST_DEVICE double uniform_double(uint32_t x) { return x * (1.0 / 4294967296.0); }

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

// Box-Muller on one word pair: out[0] = radius * cos(angle), out[1] = radius * sin(angle).
// Computed in double, then rounded to T, so that the CPU and the GPU agree to the last bit for
// float32 except where libm and CUDA's double log/sin/cos differ in the last place (tests allow
// 1 ulp of float32).
template <typename T>
WICK_HOST_DEVICE void box_muller_pair(uint32_t word0, uint32_t word1, T* out) {
  // (x + 0.5) / 2^32 lies in (0, 1), so log never sees 0.
  double u1 = (word0 + 0.5) * (1.0 / 4294967296.0);
  double u2 = (word1 + 0.5) * (1.0 / 4294967296.0);
  double radius = std::sqrt(-2.0 * std::log(u1));
  double angle = 6.283185307179586476925286766559 * u2;
  out[0] = static_cast<T>(radius * std::cos(angle));
  out[1] = static_cast<T>(radius * std::sin(angle));
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
