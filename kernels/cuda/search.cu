// search.cu: searchsorted on the GPU (core/src/ops_search.cpp checks, promotes and packs).
// Sequences [rows, m] and values [rows, n], contiguous, one dtype (int64, float32, float64);
// output [rows, n] int64. One thread per value bisects its row with sort_order.hpp's
// insertion_point, the CPU kernel's function, so both give the same positions. Simple, not
// tuned: a row's first probes are read by every thread of its values (cached), and a block
// that shares one row could stage it in shared memory. Not yet run on a GPU: unmeasured.
// Tested by tests/cuda/test_sort.cpp (equal to the CPU) on the CPU emulator of CUDA.
#include <cstdint>

#include "../sort_order.hpp"
#include "common.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

template <typename T, bool kRight>
__global__ void searchsorted_kernel(const T* rows, const T* values, int64_t* out, int64_t total,
                                    int64_t n, int64_t m) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += stride) {
    out[i] = sort_order::insertion_point<kRight>(rows + (i / n) * m, m, values[i]);
  }
}

}  // namespace

void launch_searchsorted(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& seq = call.in(0);
  const Tensor& values = call.in(1);
  const int64_t m = seq.size(1), n = values.size(1), total = values.numel();
  if (total == 0) return;
  const bool right = call.scalar_a.to<bool>();
  const unsigned grid = grid_for(ctx, total);
  WICK_DISPATCH_NUMERIC(seq.dtype(), {
    const auto* rows = static_cast<const T*>(seq.raw_data());
    const auto* probes = static_cast<const T*>(values.raw_data());
    auto* out = static_cast<int64_t*>(call.out().raw_data());
    if (right) {
      launch_kernel(ctx, "searchsorted_kernel", searchsorted_kernel<T, true>, grid, kBlockThreads,
                    0, rows, probes, out, total, n, m);
    } else {
      launch_kernel(ctx, "searchsorted_kernel", searchsorted_kernel<T, false>, grid, kBlockThreads,
                    0, rows, probes, out, total, n, m);
    }
  })
}

}  // namespace wick::gpu
