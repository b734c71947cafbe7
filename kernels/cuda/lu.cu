// lu.cu: lu_factor and lu_solve on the GPU (core/src/ops_solve.cpp checks and packs; the
// contract is the CPU kernels', kernels/cpu/lu.cpp: LU with partial pivoting, LAPACK's pivot
// rule, 0-based int64 pivots; then the two triangular substitutions).
//  - lu_factor: one block per matrix (blocks loop over the batch). Step k: every thread finds
//    the first largest |value| among its rows of column k, a tree in shared memory picks the
//    block's (the lowest row on ties, so the CPU's choice), the rows are swapped, the column
//    below is divided by the pivot, and the trailing block loses the outer product, its
//    elements spread over the threads. 3 barriers per column, every access in global memory.
//    Matrices from 256 rows in batches of at most 4: the same step in two launches per column,
//    the pivot by one block and the trailing update by the whole grid.
//  - lu_solve: one thread per column of B: it copies its column, swaps it as the pivots say
//    and substitutes forward and back; neighbouring threads read the same L and U element
//    (one broadcast load) and neighbouring X elements.
// Meant for batches of small and medium matrices; a large one gets the grid, but as n
// rank-1 updates (memory-bound: the trailing block is read and written once per column), not
// blocked with a GEMM as cuSOLVER's getrf. Not yet run on a GPU: unmeasured. Tested by
// tests/cuda/test_compose.cpp (equal to the CPU) on the CPU emulator of CUDA.
#include <cstdint>

#include "common.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

constexpr int kLuThreads = 256;  // a power of two: the pivot search halves it
// From this size, in batches of at most kGridBatch, a matrix is factored by the whole grid.
constexpr int64_t kGridFrom = 256, kGridBatch = 4;

// Step k's pivot on one matrix f, by the whole block: the search (every thread its first
// largest |value| among its rows, then a tree in shared memory, the lowest row on ties), the
// row swap, and the multipliers (the column below divided by the pivot; a zero pivot divides
// nothing, LAPACK's rule, and its column still updates the trailing block). Ends with a barrier.
template <typename T>
__device__ void pivot_step(T* f, int64_t* piv, int64_t n, int64_t k, double* best_abs,
                           int64_t* best_row) {
  const int tid = static_cast<int>(threadIdx.x);
  const int64_t threads = blockDim.x;
  // Read before the first barrier: after the tree's barriers a thread may swap it.
  const T diagonal = f[k * n + k];
  double mine = -1;  // this thread's first largest |value| (NaN never wins; -1: no row yet)
  int64_t row = -1;
  for (int64_t i = k + tid; i < n; i += threads) {
    const T v = f[i * n + k];
    const double magnitude = static_cast<double>(v < T(0) ? -v : v);
    if (magnitude > mine) {
      mine = magnitude;
      row = i;
    }
  }
  best_abs[tid] = mine;
  best_row[tid] = row;
  __syncthreads();
  for (int half = kLuThreads / 2; half > 0; half /= 2) {
    if (tid < half) {
      const double other = best_abs[tid + half];
      const int64_t other_row = best_row[tid + half];
      if (other > best_abs[tid] || (other == best_abs[tid] && other_row < best_row[tid])) {
        best_abs[tid] = other;
        best_row[tid] = other_row;
      }
    }
    __syncthreads();
  }
  // A NaN on the diagonal stays the pivot, as on the CPU (nothing compares larger).
  const int64_t p = (diagonal != diagonal || best_row[0] < 0) ? k : best_row[0];
  if (tid == 0) piv[k] = p;
  if (p != k) {
    for (int64_t j = tid; j < n; j += threads) {
      const T t = f[k * n + j];
      f[k * n + j] = f[p * n + j];
      f[p * n + j] = t;
    }
  }
  __syncthreads();  // the swap is seen, and best_row[0] read, before anyone goes on
  const T pivot = f[k * n + k];
  if (pivot != T(0)) {
    for (int64_t i = k + 1 + tid; i < n; i += threads) f[i * n + k] /= pivot;
  }
  __syncthreads();
}

// The trailing block of step k, elements [first, n_elements) step `step` of its (n-k-1)^2.
template <typename T>
__device__ void eliminate(T* f, int64_t n, int64_t k, int64_t first, int64_t step) {
  const int64_t rest = n - k - 1;
  for (int64_t e = first; e < rest * rest; e += step) {
    const int64_t i = k + 1 + e / rest, j = k + 1 + e % rest;
    f[i * n + j] -= f[i * n + k] * f[k * n + j];
  }
}

// Small and medium matrices: one block per matrix (blocks loop over the batch), every step in
// the block, 3 barriers per column.
template <typename T>
__global__ void lu_factor_kernel(const T* a, T* lu, int64_t* pivots, int64_t batch, int64_t n) {
  __shared__ double best_abs[kLuThreads];
  __shared__ int64_t best_row[kLuThreads];
  const int64_t elements = n * n;
  for (int64_t m = blockIdx.x; m < batch; m += gridDim.x) {
    T* f = lu + m * elements;
    for (int64_t e = threadIdx.x; e < elements; e += blockDim.x) f[e] = a[m * elements + e];
    __syncthreads();
    for (int64_t k = 0; k < n; ++k) {
      pivot_step(f, pivots + m * n, n, k, best_abs, best_row);
      eliminate(f, n, k, threadIdx.x, blockDim.x);
      __syncthreads();
    }
  }
}

// Large matrices in small batches: per column, one block finds the pivot (lu_pivot_kernel) and
// the whole grid updates the trailing block (lu_eliminate_kernel): two launches per column.
template <typename T>
__global__ void lu_pivot_kernel(T* f, int64_t* piv, int64_t n, int64_t k) {
  __shared__ double best_abs[kLuThreads];
  __shared__ int64_t best_row[kLuThreads];
  pivot_step(f, piv, n, k, best_abs, best_row);
}
template <typename T>
__global__ void lu_eliminate_kernel(T* f, int64_t n, int64_t k) {
  eliminate(f, n, k, static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x,
            static_cast<int64_t>(gridDim.x) * blockDim.x);
}

template <typename T>
__global__ void lu_solve_kernel(const T* lu, const int64_t* pivots, const T* b, T* x, int64_t batch,
                                int64_t n, int64_t k) {
  const int64_t total = batch * k, stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += stride) {
    const int64_t m = t / k;
    const T* f = lu + m * n * n;
    const int64_t* piv = pivots + m * n;
    T* column = x + m * n * k + t % k;
    const T* given = b + m * n * k + t % k;
    for (int64_t i = 0; i < n; ++i) column[i * k] = given[i * k];
    for (int64_t i = 0; i < n; ++i) {
      if (piv[i] != i) {
        const T v = column[i * k];
        column[i * k] = column[piv[i] * k];
        column[piv[i] * k] = v;
      }
    }
    for (int64_t i = 1; i < n; ++i) {  // L y = P b; L's diagonal is 1
      T s = column[i * k];
      for (int64_t j = 0; j < i; ++j) s -= f[i * n + j] * column[j * k];
      column[i * k] = s;
    }
    for (int64_t i = n - 1; i >= 0; --i) {  // U x = y
      T s = column[i * k];
      for (int64_t j = i + 1; j < n; ++j) s -= f[i * n + j] * column[j * k];
      column[i * k] = s / f[i * n + i];
    }
  }
}

}  // namespace

void launch_lu_factor(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& a = call.in(0);
  const int64_t n = a.size(-1);
  if (n == 0) return;
  const int64_t batch = a.numel() / (n * n);
  WICK_DISPATCH_FLOATING(a.dtype(), {
    T* lu = static_cast<T*>(call.out(0).raw_data());
    int64_t* pivots = static_cast<int64_t*>(call.out(1).raw_data());
    if (n < kGridFrom || batch > kGridBatch) {
      launch_kernel(ctx, "lu_factor_kernel", lu_factor_kernel<T>,
                    capped_grid(ctx, batch, kLuThreads), kLuThreads, 0,
                    static_cast<const T*>(a.raw_data()), lu, pivots, batch, n);
      return;
    }
    WICK_CUDA_CHECK(cudaMemcpyAsync(lu, a.raw_data(), static_cast<size_t>(a.numel()) * sizeof(T),
                                    cudaMemcpyDeviceToDevice, ctx.stream),
                    ctx.op, ctx.device);
    for (int64_t m = 0; m < batch; ++m) {
      T* f = lu + m * n * n;
      for (int64_t k = 0; k < n; ++k) {
        launch_kernel(ctx, "lu_pivot_kernel", lu_pivot_kernel<T>, 1, kLuThreads, 0, f,
                      pivots + m * n, n, k);
        if (k + 1 < n) {
          launch_kernel(ctx, "lu_eliminate_kernel", lu_eliminate_kernel<T>,
                        grid_for(ctx, (n - k - 1) * (n - k - 1)), kBlockThreads, 0, f, n, k);
        }
      }
    }
  })
}

void launch_lu_solve(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& b = call.in(2);
  const int64_t n = b.size(-2), k = b.size(-1);
  if (n == 0 || k == 0) return;
  const int64_t batch = b.numel() / (n * k);
  WICK_DISPATCH_FLOATING(b.dtype(), {
    launch_kernel(ctx, "lu_solve_kernel", lu_solve_kernel<T>, grid_for(ctx, batch * k),
                  kBlockThreads, 0, static_cast<const T*>(call.in(0).raw_data()),
                  static_cast<const int64_t*>(call.in(1).raw_data()),
                  static_cast<const T*>(b.raw_data()), static_cast<T*>(call.out(0).raw_data()),
                  batch, n, k);
  })
}

}  // namespace wick::gpu
