// aligned_matrix.hpp: the benchmarks' GEMM operands. Matrices start on a 64-byte boundary, as
// wick's tensors do (core/src/cpu_allocator.cpp) and as any BLAS user's buffers should: with
// std::vector's 16-byte alignment every 64-byte row segment of C and B straddles two cache
// lines, which cost wick about 1% of the one-thread figure at N = 1024 (docs/cpu-gemm.md).
// Every library gets the same buffers.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

namespace bench {

template <typename T>
struct Aligned64 {
  using value_type = T;
  Aligned64() = default;
  template <typename U>
  Aligned64(const Aligned64<U>&) {}
  T* allocate(size_t n) {
    void* p = std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }
  bool operator==(const Aligned64&) const { return true; }
};

template <typename T>
using Buffer = std::vector<T, Aligned64<T>>;

// rows x cols values uniform in [-1, 1), the same for the same seed.
template <typename T>
Buffer<T> random_matrix(int64_t rows, int64_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<T> dist(T(-1), T(1));
  Buffer<T> v(static_cast<size_t>(rows * cols));
  for (T& x : v) x = dist(rng);
  return v;
}

}  // namespace bench
