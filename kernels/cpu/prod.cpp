// prod.cpp: the product of each line on the CPU (core/src/ops_scan.cpp checks, casts and packs).
// Input [outer, n, inner] and output [outer, 1, inner], contiguous, of one dtype (int64,
// float32, float64). Products accumulate in double for floats (float32 rounds once, and its
// partial products cannot overflow where the result does not) and in uint64 for int64 (which
// wraps as PyTorch's int64 product does).
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

namespace wick::cpu {
namespace {

constexpr int64_t kBlock = 16384;
constexpr int kLanes = 8;

template <typename T>
using ProdAcc = std::conditional_t<std::is_integral_v<T>, uint64_t, double>;

template <typename T>
ProdAcc<T> block_product(const T* p, int64_t count) {
  using Acc = ProdAcc<T>;
  Acc lane[kLanes];
  std::fill(lane, lane + kLanes, Acc{1});
  int64_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    for (int k = 0; k < kLanes; ++k) lane[k] *= static_cast<Acc>(p[i + k]);
  }
  for (int k = 0; i < count; ++i, ++k) lane[k] *= static_cast<Acc>(p[i]);
  // A fixed tree: (0 1) (2 3) (4 5) (6 7), then pairs of those.
  for (int width = 1; width < kLanes; width *= 2) {
    for (int k = 0; k < kLanes; k += 2 * width) lane[k] *= lane[k + width];
  }
  return lane[0];
}

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
  parallel_columns(outer, inner, n, [&](int64_t o, int64_t c0, int64_t c1) {
    std::vector<Acc> acc(static_cast<size_t>(c1 - c0), Acc{1});
    for (int64_t i = 0; i < n; ++i) {
      const T* row = src + (o * n + i) * inner;
      for (int64_t c = c0; c < c1; ++c) acc[static_cast<size_t>(c - c0)] *= static_cast<Acc>(row[c]);
    }
    for (int64_t c = c0; c < c1; ++c) dst[o * inner + c] = static_cast<T>(acc[static_cast<size_t>(c - c0)]);
  });
}

}  // namespace

void prod_kernel(const OpCall& call) {
  WICK_DISPATCH_NUMERIC(call.in(0).dtype(), { prod_lines<T>(call); })
}

}  // namespace wick::cpu
