// index.cu: index_select and index_add on the GPU. The boundary (core/src/ops_index.cpp) packs
// every operand contiguous and checks every index value on the host side first (a device-side
// assert, PyTorch's way, would end the process), so `self` is [outer, size, inner], the index n
// int64 values in [0, size), and the output (or source) [outer, n, inner].
//  - index_select_kernel: one thread per output element (grid-stride), as a copy: consecutive
//    threads read consecutive elements of a row, so reads and writes are coalesced for rows of
//    32 elements or more. It moves raw bits (1, 2, 4 or 8 bytes), so every dtype, bfloat16
//    included, takes one kernel per element size.
//  - index_add: the boundary has filled the output with self's values; index_add_columns_kernel
//    runs one thread per (outer, column) pair walks the whole index in order and adds alpha *
//    source row i into row index[i]. A repeated index is therefore added in index order, the CPU
//    kernel's order (kernels/cpu/index.cpp): the same bits on both, and the same bits on every
//    run, without atomics (no wick kernel uses floating-point atomics).
// The cost of that order: the walk over the index is serial per column, so an embedding's
// backward (outer 1, inner = the embedding width, n = the number of tokens) runs inner threads
// for n dependent steps each. Predicted, not measured (no GPU was lent when this was written):
// latency-bound, about n x 0.5 us at n = 8192, D = 768 (a few ms, against tens of us for an
// atomic scatter). PyTorch's deterministic path sorts the index and sums each row's segment in
// parallel; that is the next step here.
// Tested by tests/cuda/test_ops.cpp (the op sweep, against the CPU) and test_autograd.cpp (the
// embedding case), on the CPU emulator of CUDA.
#include <cstdint>

#include "common.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

struct IndexLayout {
  int64_t outer = 1, size = 1, inner = 1, n = 0;
};

IndexLayout layout_of(const Tensor& self, int64_t dim, const Tensor& index) {
  IndexLayout l;
  for (int64_t d = 0; d < dim; ++d) l.outer *= self.size(d);
  for (int64_t d = dim + 1; d < self.dim(); ++d) l.inner *= self.size(d);
  l.size = self.size(dim);
  l.n = index.numel();
  return l;
}

template <typename Bits>
__global__ void index_select_kernel(Bits* out, const Bits* self, const int64_t* index,
                                    int64_t total, FastDivmod inner, FastDivmod n, int64_t size) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += stride) {
    uint64_t row, column, o, i;
    inner.divmod(static_cast<uint64_t>(e), row, column);
    n.divmod(row, o, i);
    const int64_t source_row = static_cast<int64_t>(o) * size + index[i];
    out[e] = self[source_row * static_cast<int64_t>(inner.divisor) + static_cast<int64_t>(column)];
  }
}

template <typename T>
__device__ __forceinline__ T add_scaled(T acc, T alpha, T x) {
  if constexpr (std::is_integral_v<T>) {
    // int64 wraps, as on the CPU (signed overflow is undefined).
    return static_cast<T>(static_cast<uint64_t>(acc) +
                          static_cast<uint64_t>(alpha) * static_cast<uint64_t>(x));
  } else {
    return acc + alpha * x;
  }
}

template <typename T>
__global__ void index_add_columns_kernel(T* out, const T* source, const int64_t* index, T alpha,
                                         int64_t columns, FastDivmod inner, int64_t size,
                                         int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const auto width = static_cast<int64_t>(inner.divisor);
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < columns;
       t += stride) {
    uint64_t o, c;
    inner.divmod(static_cast<uint64_t>(t), o, c);
    T* out_block = out + static_cast<int64_t>(o) * size * width + static_cast<int64_t>(c);
    const T* source_column = source + static_cast<int64_t>(o) * n * width + static_cast<int64_t>(c);
    for (int64_t i = 0; i < n; ++i) {
      T* target = out_block + index[i] * width;
      *target = add_scaled(*target, alpha, source_column[i * width]);
    }
  }
}

}  // namespace

void launch_index_select(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& self = call.in(0);
  const Tensor& out = call.out();
  const IndexLayout l = layout_of(self, call.dim, call.in(1));
  const int64_t total = out.numel();
  const auto* index = static_cast<const int64_t*>(call.in(1).raw_data());
  const unsigned grid = grid_for(ctx, total);
  auto run = [&](auto bits) {
    using Bits = decltype(bits);
    launch_kernel(ctx, "index_select_kernel", index_select_kernel<Bits>, grid, kBlockThreads, 0,
                  static_cast<Bits*>(out.raw_data()), static_cast<const Bits*>(self.raw_data()),
                  index, total, FastDivmod(static_cast<uint64_t>(l.inner)),
                  FastDivmod(static_cast<uint64_t>(l.n)), l.size);
  };
  switch (element_size(self.dtype())) {
    case 1:
      run(uint8_t{});
      break;
    case 2:
      run(uint16_t{});
      break;
    case 4:
      run(uint32_t{});
      break;
    default:
      run(uint64_t{});
      break;
  }
}

void launch_index_add(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& self = call.in(0);
  const Tensor& out = call.out();
  WICK_CHECK(self.dtype() != kBFloat16 && self.dtype() != kBool, DtypeError, ctx.op,
             "the kernel adds int64, float32 and float64, got ", describe(self));
  const IndexLayout l = layout_of(self, call.dim, call.in(1));
  const int64_t columns = l.outer * l.inner;
  if (l.n == 0 || columns == 0) return;
  const auto* index = static_cast<const int64_t*>(call.in(1).raw_data());
  const unsigned grid = grid_for(ctx, columns);
  WICK_DISPATCH_NUMERIC(self.dtype(), {
    launch_kernel(ctx, "index_add_columns_kernel", index_add_columns_kernel<T>, grid, kBlockThreads,
                  0, static_cast<T*>(out.raw_data()), static_cast<const T*>(call.in(2).raw_data()),
                  index, call.scalar_a.to<T>(), columns, FastDivmod(static_cast<uint64_t>(l.inner)),
                  l.size, l.n);
  })
}

}  // namespace wick::gpu
