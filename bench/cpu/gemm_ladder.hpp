// gemm_ladder.hpp: the first rungs of docs/cpu-gemm.md's worklog, bench-only: C = A @ B for
// row-major float matrices on one thread, each rung one idea more than the last. The later
// rungs (packing, micro-kernel, threads) are the library's own gemm() with its ISA forced, so
// the bench times the code wick runs. Compiled with the bench's flags (baseline x86-64: the
// compiler may vectorise with SSE2 only).
#pragma once

#include <algorithm>
#include <cstdint>

namespace ladder {

// 1. naive: one dot product per element of C; B is walked down a column (stride n).
inline void naive(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += a[i * k + p] * b[p * n + j];
      c[i * n + j] = acc;
    }
  }
}

// 2. loop order i, k, j: the inner loop runs along rows of B and C, unit stride, vectorised.
inline void loop_order(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n) {
  std::fill(c, c + m * n, 0.0f);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t p = 0; p < k; ++p) {
      const float av = a[i * k + p];
      for (int64_t j = 0; j < n; ++j) c[i * n + j] += av * b[p * n + j];
    }
  }
}

// 3. cache blocking: the same loops over 64 x 256 x 512 blocks of C rows, depth and columns,
// so that the 256 x 512 block of B is reused from L2 by 64 rows of A.
inline void blocked(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n) {
  constexpr int64_t kMb = 64, kKb = 256, kNb = 512;
  std::fill(c, c + m * n, 0.0f);
  for (int64_t j0 = 0; j0 < n; j0 += kNb) {
    const int64_t j1 = std::min(n, j0 + kNb);
    for (int64_t p0 = 0; p0 < k; p0 += kKb) {
      const int64_t p1 = std::min(k, p0 + kKb);
      for (int64_t i0 = 0; i0 < m; i0 += kMb) {
        const int64_t i1 = std::min(m, i0 + kMb);
        for (int64_t i = i0; i < i1; ++i) {
          for (int64_t p = p0; p < p1; ++p) {
            const float av = a[i * k + p];
            for (int64_t j = j0; j < j1; ++j) c[i * n + j] += av * b[p * n + j];
          }
        }
      }
    }
  }
}

}  // namespace ladder
