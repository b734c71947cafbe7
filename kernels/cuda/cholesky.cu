// cholesky.cu: cholesky_factor and triangular_solve on the GPU (core/src/ops_cholesky.cpp
// checks and packs; the contracts are the CPU kernels', kernels/cpu/cholesky.cpp and
// triangular.cpp).
//  - cholesky_factor: A [batch, n, n] -> L (A's lower triangle read, zeros above) and info
//    [batch] (0, or k + 1 when the leading minor of order k + 1 is not positive-definite; L's
//    columns from k on are then NaN, as on the CPU). Column j, one thread per row i >= j:
//    every thread computes the pivot d = A[j][j] - L[j, :j] . L[j, :j] itself (the same
//    operations in the same order, so the same value in every thread: no barrier and no
//    broadcast needed), then L[i][j] = (A[i][j] - L[i, :j] . L[j, :j]) / sqrt(d). A is read
//    from the input and L written to the output, so a column reads only finished columns of L.
//    A failed pivot (<= 0 or NaN, LAPACK's test) gives sqrt(d) = NaN, which every later column
//    inherits; the row-j thread records the order in info unless an earlier column did (only
//    that thread touches info in its launch). Small and medium matrices: one block per matrix,
//    a barrier per column. From kGridFrom rows, in batches of at most kGridBatch: one launch
//    per column over the whole grid.
//  - triangular_solve: one thread per column of B, forward (lower) or back (upper)
//    substitution, the diagonal taken as ones when unit; neighbouring threads read the same A
//    element (one broadcast load) and neighbouring X elements.
// Meant for batches of small and medium matrices: every access goes to global memory and a
// large matrix takes n launches, not blocked as cuSOLVER's potrf. Not yet run on a GPU:
// unmeasured. Tested on the CPU emulator of CUDA against the CPU kernels
// (tests/cuda/test_compose.cpp).
#include <cstdint>

#include "common.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

constexpr int kCholeskyThreads = 256;
constexpr int64_t kGridFrom = 256, kGridBatch = 4;

// Rows i = j + first, j + first + step, ... of column j of one matrix (a: its input, l: its
// output, info: its flag).
template <typename T>
__device__ void cholesky_column(const T* a, T* l, int64_t* info, int64_t n, int64_t j,
                                int64_t first, int64_t step) {
  const T* pivot_row = l + j * n;
  T d = a[j * n + j];
  for (int64_t t = 0; t < j; ++t) d -= pivot_row[t] * pivot_row[t];
  const bool positive = d > T(0);
  const T diagonal = sqrt_of(positive ? d : T(-1));  // sqrt(-1): NaN
  for (int64_t i = j + first; i < n; i += step) {
    if (i == j) {
      l[j * n + j] = diagonal;
      if (!positive && *info == 0) *info = j + 1;
      continue;
    }
    const T* row = l + i * n;
    T s = a[i * n + j];
    for (int64_t t = 0; t < j; ++t) s -= row[t] * pivot_row[t];
    l[i * n + j] = s / diagonal;
  }
}

// Zeros above the diagonal and info = 0, elements [first, n * n) step `step` of one matrix.
template <typename T>
__device__ void cholesky_start(T* l, int64_t* info, int64_t n, int64_t first, int64_t step) {
  for (int64_t e = first; e < n * n; e += step) {
    if (e % n > e / n) l[e] = T(0);
  }
  if (first == 0) *info = 0;
}

template <typename T>
__global__ void cholesky_kernel(const T* a, T* l, int64_t* info, int64_t batch, int64_t n) {
  for (int64_t m = blockIdx.x; m < batch; m += gridDim.x) {
    const T* given = a + m * n * n;
    T* f = l + m * n * n;
    cholesky_start(f, info + m, n, threadIdx.x, blockDim.x);
    __syncthreads();
    for (int64_t j = 0; j < n; ++j) {
      cholesky_column(given, f, info + m, n, j, threadIdx.x, blockDim.x);
      __syncthreads();
    }
  }
}

template <typename T>
__global__ void cholesky_start_kernel(T* l, int64_t* info, int64_t n) {
  cholesky_start(l, info, n, static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x,
                 static_cast<int64_t>(gridDim.x) * blockDim.x);
}
template <typename T>
__global__ void cholesky_column_kernel(const T* a, T* l, int64_t* info, int64_t n, int64_t j) {
  cholesky_column(a, l, info, n, j, static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x,
                  static_cast<int64_t>(gridDim.x) * blockDim.x);
}

template <typename T>
__global__ void triangular_solve_kernel(const T* a, const T* b, T* x, int64_t batch, int64_t n,
                                        int64_t k, bool upper, bool unit) {
  const int64_t total = batch * k, stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += stride) {
    const int64_t m = t / k;
    const T* f = a + m * n * n;
    T* column = x + m * n * k + t % k;
    const T* given = b + m * n * k + t % k;
    for (int64_t step = 0; step < n; ++step) {
      const int64_t i = upper ? n - 1 - step : step;
      T s = given[i * k];
      if (upper) {
        for (int64_t j = i + 1; j < n; ++j) s -= f[i * n + j] * column[j * k];
      } else {
        for (int64_t j = 0; j < i; ++j) s -= f[i * n + j] * column[j * k];
      }
      column[i * k] = unit ? s : s / f[i * n + i];
    }
  }
}

}  // namespace

void launch_cholesky_factor(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& a = call.in(0);
  const int64_t n = a.size(-1), batch = call.out(1).numel();
  if (batch == 0) return;
  int64_t* info = static_cast<int64_t*>(call.out(1).raw_data());
  if (n == 0) {
    WICK_CUDA_CHECK(
        cudaMemsetAsync(info, 0, static_cast<size_t>(batch) * sizeof(int64_t), ctx.stream), ctx.op,
        ctx.device);
    return;
  }
  WICK_DISPATCH_FLOATING(a.dtype(), {
    const T* given = static_cast<const T*>(a.raw_data());
    T* l = static_cast<T*>(call.out(0).raw_data());
    if (n < kGridFrom || batch > kGridBatch) {
      launch_kernel(ctx, "cholesky_kernel", cholesky_kernel<T>,
                    capped_grid(ctx, batch, kCholeskyThreads), kCholeskyThreads, 0, given, l, info,
                    batch, n);
      return;
    }
    for (int64_t m = 0; m < batch; ++m) {
      launch_kernel(ctx, "cholesky_start_kernel", cholesky_start_kernel<T>, grid_for(ctx, n * n),
                    kBlockThreads, 0, l + m * n * n, info + m, n);
      for (int64_t j = 0; j < n; ++j) {
        launch_kernel(ctx, "cholesky_column_kernel", cholesky_column_kernel<T>,
                      grid_for(ctx, n - j), kBlockThreads, 0, given + m * n * n, l + m * n * n,
                      info + m, n, j);
      }
    }
  })
}

void launch_triangular_solve(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& b = call.in(1);
  const int64_t n = b.size(-2), k = b.size(-1);
  if (n == 0 || k == 0) return;
  const int64_t batch = b.numel() / (n * k);
  const bool upper = call.ints[0] != 0, unit = call.ints[1] != 0;
  WICK_DISPATCH_FLOATING(b.dtype(), {
    launch_kernel(ctx, "triangular_solve_kernel", triangular_solve_kernel<T>,
                  grid_for(ctx, batch * k), kBlockThreads, 0,
                  static_cast<const T*>(call.in(0).raw_data()), static_cast<const T*>(b.raw_data()),
                  static_cast<T*>(call.out(0).raw_data()), batch, n, k, upper, unit);
  })
}

}  // namespace wick::gpu
