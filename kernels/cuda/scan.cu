// scan.cu: the scans on the GPU (core/src/ops_scan.cpp checks, casts and packs): cumsum,
// cumprod, cummax, cummin and logcumsumexp. Input and outputs [outer, n, inner] of the input's
// dtype (int64, float32, float64; cummax/cummin add int64 indices). One thread per line (o, c)
// walks the line's n elements in order with one running state and writes every partial result:
// the CPU kernel's order and steps (kernels/cpu/scan.cpp, kernels/scan_step.hpp), so both give
// the same bits: sums and products in float64 (int64 wrapping), adds or multiplies only, so no
// FMA contraction can differ; cummax/cummin compare only. The steps themselves are
// kernels/scan_step.hpp's, shared with the CPU; this file walks the lines. logcumsumexp's exp and
// log1p are CUDA's, within 2 ulp of glibc's in float64, so its results may differ from the CPU's in
// the last bit of a float64 (rarely of a float32). The simple version: parallel across lines only.
// Neighbouring threads take neighbouring columns, so for inner >= 32 (a scan over a leading dim) a
// warp's accesses are coalesced; for rows (inner == 1) each thread walks its own row, n elements
// apart from its neighbours, and a few long rows run on a few threads. A warp-per-row scan
// (shuffles within 32-element chunks, a carry between them) is the next step if rows matter; it
// would combine in another order, so its float results would be close to the CPU's, not equal. Not
// yet run on a GPU: unmeasured. Tested by tests/cuda/test_sort.cpp (equal bits to the CPU) on the
// CPU emulator of CUDA.
#include <cstdint>
#include <type_traits>

#include "../scan_step.hpp"
#include "common.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

// One thread per line t = o * inner + c; scan is a kernels/scan_step.hpp struct.
template <typename Scan>
__global__ void scan_lines_kernel(Scan scan, int64_t lines, FastDivmod inner, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const auto width = static_cast<int64_t>(inner.divisor);
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < lines;
       t += stride) {
    uint64_t o, c;
    inner.divmod(static_cast<uint64_t>(t), o, c);
    const int64_t first = static_cast<int64_t>(o) * n * width + static_cast<int64_t>(c);
    auto state = scan.start();
    for (int64_t i = 0; i < n; ++i) scan.step(state, first + i * width, i);
  }
}

template <typename Scan>
void launch_lines(OpContext& ctx, const Scan& scan, int64_t lines, const FastDivmod& inner,
                  int64_t n) {
  launch_kernel(ctx, "scan_lines_kernel", scan_lines_kernel<Scan>, grid_for(ctx, lines),
                kBlockThreads, 0, scan, lines, inner, n);
}

}  // namespace

void launch_scan(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& x = call.in(0);
  const GatherLayout l = gather_layout(x, x, call.dim);  // [outer, n, inner] around dim
  const int64_t n = l.n, inner = l.inner, lines = l.outer * l.inner;
  if (lines == 0 || n == 0) return;
  const FastDivmod line_div(static_cast<uint64_t>(inner));
  const OpId op = call.op;
  WICK_DISPATCH_NUMERIC(x.dtype(), {
    const auto* src = static_cast<const T*>(x.raw_data());
    auto* dst = static_cast<T*>(call.out().raw_data());
    if (op == OpId::cumsum) {
      launch_lines(ctx, scan_step::SumOrProduct<T, false>{src, dst}, lines, line_div, n);
    } else if (op == OpId::cumprod) {
      launch_lines(ctx, scan_step::SumOrProduct<T, true>{src, dst}, lines, line_div, n);
    } else if (op == OpId::cummax || op == OpId::cummin) {
      auto* indices = static_cast<int64_t*>(call.out(1).raw_data());
      if (op == OpId::cummin) {
        launch_lines(ctx, scan_step::ExtremeSoFar<T, true>{src, dst, indices}, lines, line_div, n);
      } else {
        launch_lines(ctx, scan_step::ExtremeSoFar<T, false>{src, dst, indices}, lines, line_div, n);
      }
    } else if constexpr (std::is_floating_point_v<T>) {  // logcumsumexp
      launch_lines(ctx, scan_step::LogSumExpSoFar<T>{src, dst}, lines, line_div, n);
    }
  })
}

}  // namespace wick::gpu
