// prod.cpp: the product of each line on the CPU (core/src/ops_scan.cpp checks, casts and packs).
// Input [outer, n, inner] and output [outer, 1, inner], contiguous, of one dtype (int64,
// float32, float64). Products accumulate in double for floats (float32 rounds once, and its
// partial products overflow only past 1e308, not at float32's 3e38) and in uint64 for int64
// (which wraps as PyTorch's int64 product does).
// Rows (inner == 1, a product over the last dim or over everything): each row is cut into
// blocks of kBlock elements; a block multiplies into kLanes independent accumulators (element
// i into lane i % kLanes), so the multiplies pipeline instead of waiting on one chain (4 cycles
// per double multiply), then the lanes and the blocks are combined in a fixed order. The
// result depends on the shape alone, not on the thread count. Columns (inner > 1): a row of
// accumulators multiplied by each of the n rows in turn, along memory.
// Tested by tests/test_scan.cpp against float64 products.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"
#include "vec_clones.hpp"

namespace wick::cpu {
namespace {

constexpr int64_t kBlock = 16384;
constexpr int kLanes = 32;         // four AVX-512 vectors of doubles (eight AVX2 ones)
constexpr int64_t kColumns = 512;  // accumulators per column task (4 KiB of doubles)

template <typename T>
using ProdAcc = std::conditional_t<std::is_integral_v<T>, uint64_t, double>;

template <typename T>
[[gnu::always_inline]] inline ProdAcc<T> block_product_of(const T* p, int64_t count) {
  using Acc = ProdAcc<T>;
  Acc lane[kLanes];
  std::fill(lane, lane + kLanes, Acc{1});
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    for (int k = 0; k < kLanes; ++k) lane[k] *= static_cast<Acc>(p[i + k]);
  }
  for (int k = 0; i < count; ++i, ++k) lane[k] *= static_cast<Acc>(p[i]);
  // A fixed tree: (0 1) (2 3) ... (30 31), then pairs of those, up to lane 0.
  for (int width = 1; width < kLanes; width *= 2) {
    for (int k = 0; k < kLanes; k += 2 * width) lane[k] *= lane[k + width];
  }
  return lane[0];
}

template <typename T>
[[gnu::always_inline]] inline void multiply_row_of(ProdAcc<T>* acc, const T* row, int64_t width) {
  for (int64_t c = 0; c < width; ++c) acc[c] *= static_cast<ProdAcc<T>>(row[c]);
}

}  // namespace

// Compiled for AVX-512, AVX2 and the baseline, one picked per CPU (vec_clones.hpp): the
// library's baseline is SSE2, where these loops ran two doubles at a time.
WICK_VEC_CLONES double block_product(const float* p, int64_t count) {
  return block_product_of(p, count);
}
WICK_VEC_CLONES double block_product(const double* p, int64_t count) {
  return block_product_of(p, count);
}
WICK_VEC_CLONES uint64_t block_product(const int64_t* p, int64_t count) {
  return block_product_of(p, count);
}
WICK_VEC_CLONES void multiply_row(double* acc, const float* row, int64_t width) {
  multiply_row_of(acc, row, width);
}
WICK_VEC_CLONES void multiply_row(double* acc, const double* row, int64_t width) {
  multiply_row_of(acc, row, width);
}
WICK_VEC_CLONES void multiply_row(uint64_t* acc, const int64_t* row, int64_t width) {
  multiply_row_of(acc, row, width);
}

namespace {

template <typename T>
void prod_lines(const OpCall& call) {
  using Acc = ProdAcc<T>;
  const Tensor& x = call.in(0);
  const GatherLayout l = gather_layout(x, x, call.dim);  // [outer, n, inner] around dim
  const int64_t outer = l.outer, n = l.n, inner = l.inner;
  const T* src = x.data_ptr<T>();
  T* dst = call.out().data_ptr<T>();
  if (inner == 1) {
    const int64_t blocks = std::max<int64_t>(1, (n + kBlock - 1) / kBlock);
    std::vector<Acc> partial(static_cast<size_t>(outer * blocks));
    parallel_for(outer * blocks, std::max<int64_t>(1, kParallelGrain / std::min(n + 1, kBlock)),
                 [&](int64_t t0, int64_t t1) {
                   for (int64_t t = t0; t < t1; ++t) {
                     const int64_t row = t / blocks, begin = (t % blocks) * kBlock;
                     partial[static_cast<size_t>(t)] =
                         block_product(src + row * n + begin, std::min(kBlock, n - begin));
                   }
                 });
    for (int64_t row = 0; row < outer; ++row) {
      Acc total{1};
      for (int64_t b = 0; b < blocks; ++b) total *= partial[static_cast<size_t>(row * blocks + b)];
      dst[row] = static_cast<T>(total);
    }
    return;
  }
  // Tasks of (outer index, kColumns columns): a row of accumulators that stays in L1 while
  // the n rows stream through it, along memory.
  const int64_t chunks = (inner + kColumns - 1) / kColumns;
  parallel_for(outer * chunks,
               std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, n * kColumns)),
               [&](int64_t t0, int64_t t1) {
                 Acc acc[kColumns];
                 for (int64_t t = t0; t < t1; ++t) {
                   const int64_t o = t / chunks, c0 = (t % chunks) * kColumns;
                   const int64_t width = std::min(kColumns, inner - c0);
                   std::fill(acc, acc + width, Acc{1});
                   for (int64_t i = 0; i < n; ++i) {
                     multiply_row(acc, src + (o * n + i) * inner + c0, width);
                   }
                   for (int64_t c = 0; c < width; ++c)
                     dst[o * inner + c0 + c] = static_cast<T>(acc[c]);
                 }
               });
}

}  // namespace

void prod_kernel(const OpCall& call) {
  WICK_DISPATCH_NUMERIC(call.in(0).dtype(), { prod_lines<T>(call); })
}

}  // namespace wick::cpu
