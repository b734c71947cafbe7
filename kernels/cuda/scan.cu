// scan.cu: cumsum and cumprod on the GPU (core/src/ops_scan.cpp checks, casts and packs). Input
// and output [outer, n, inner] of one dtype (int64, float32, float64). One thread per line
// (o, c) adds (multiplies) the line's n elements in order into an accumulator (float32 in
// float64; int64 wrapping) and writes every partial sum (product), rounded once: the CPU
// kernel's order (kernels/cpu/scan.cpp), so both give the same bits (adds or multiplies only,
// so no FMA contraction can differ).
// The simple version: parallel across lines only. Neighbouring threads take neighbouring columns,
// so for inner >= 32 (a cumsum over a leading dim) a warp's accesses are coalesced; for rows
// (inner == 1) each thread walks its own row, n elements apart from its neighbours, and a few
// long rows run on a few threads. A warp-per-row scan (shuffles within 32-element chunks, a
// carry between them) is the next step if rows matter; it would add in another order, so its
// float results would be close to the CPU's, not equal. Not yet run on a GPU: unmeasured.
// Tested by tests/cuda/test_sort.cpp (equal bits to the CPU) on the CPU emulator of CUDA.
#include <cstdint>
#include <type_traits>

#include "common.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

// Line t = o * inner + c.
template <typename T, bool kProduct>
__global__ void scan_lines_kernel(const T* x, T* y, int64_t lines, FastDivmod inner, int64_t n) {
  using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, double>;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const auto width = static_cast<int64_t>(inner.divisor);
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < lines;
       t += stride) {
    uint64_t o, c;
    inner.divmod(static_cast<uint64_t>(t), o, c);
    const int64_t first = static_cast<int64_t>(o) * n * width + static_cast<int64_t>(c);
    Acc acc = kProduct ? 1 : 0;
    for (int64_t i = 0; i < n; ++i) {
      const Acc v = static_cast<Acc>(x[first + i * width]);  // uint64: int64 wraps
      if constexpr (kProduct) {
        acc *= v;
      } else {
        acc += v;
      }
      y[first + i * width] = static_cast<T>(acc);
    }
  }
}

}  // namespace

void launch_scan(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& x = call.in(0);
  const GatherLayout l = gather_layout(x, x, call.dim);  // [outer, n, inner] around dim
  const int64_t n = l.n, inner = l.inner, lines = l.outer * l.inner;
  if (lines == 0 || n == 0) return;
  const unsigned grid = grid_for(ctx, lines);
  WICK_DISPATCH_NUMERIC(x.dtype(), {
    const auto* src = static_cast<const T*>(x.raw_data());
    auto* dst = static_cast<T*>(call.out().raw_data());
    const FastDivmod line_div(static_cast<uint64_t>(inner));
    if (call.op == OpId::cumprod) {
      launch_kernel(ctx, "scan_lines_kernel", scan_lines_kernel<T, true>, grid, kBlockThreads, 0,
                    src, dst, lines, line_div, n);
    } else {
      launch_kernel(ctx, "scan_lines_kernel", scan_lines_kernel<T, false>, grid, kBlockThreads, 0,
                    src, dst, lines, line_div, n);
    }
  })
}

}  // namespace wick::gpu
