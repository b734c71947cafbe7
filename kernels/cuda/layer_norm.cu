// layer_norm.cu: layer_norm and layer_norm_backward over rows of N = prod(normalized_shape)
// contiguous elements (the boundary packs every operand), with the statistics of the CPU kernels
// (kernels/cpu/layer_norm.cpp): mean and variance in two passes, accumulated in double for
// float32 too; here xhat = (x - mean) * rstd is computed in double and rounded once (the CPU
// works in float32 from the mean split in two floats), then * w + b in the element type; the
// backward recomputes the row statistics from x and works in double throughout.
// Idea: a row is reduced by one warp (N <= kWarpRowMax: 8 rows per block of 256 threads) or by
// one block of 512 threads (longer rows), each lane folding every 32nd (512th) element, so each
// row is read from global memory by neighbouring lanes (coalesced), a few times: the passes
// after the first hit L1/L2 for rows of a few KB.
//  - layer_norm_rows_kernel: forward: sum, sum of squared deviations, write y;
//  - layer_norm_backward_rows_kernel: the same statistics, then sum(gw) and sum(gw xhat), then
//    dx; it saves each row's (mean, rstd) in double when d weight / d bias are wanted;
//  - layer_norm_params_kernel: d weight and d bias, column sums over rows: a block of 32
//    columns x 16 row lanes takes a chunk of the rows (gridDim.y chunks, a fixed split of the
//    rows), each column's 16 partial sums merge in shared memory in a fixed order, and
//    layer_norm_params_finish_kernel adds the chunks in order: the same bits on every run.
// Rows are grid-strided (capped grid), so any number of rows fits one launch.
// Row passes read 16-byte vectors where the rows are aligned: the sums (statistics, and the
// backward's sum(gw) and sum(gw xhat), folded in one pass) with several loads in flight.
// Tested by tests/cuda/test_norm.cpp against the CPU (float64), on the CPU emulator and on an
// H200 (2026-12-04), where the forward ran at 0.40 (rows of 1024) and 0.45 (8192) of the copy
// bandwidth and the backward at 0.25 and 0.27, before the vector loads (docs/gpu-results.md).
// Not measured since: the vector loads of the forward and the backward are predicted to bring
// both to about 0.6-0.8 (several 16-byte loads in flight per lane instead of one scalar).
#include <algorithm>
#include <type_traits>

#include "common.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

constexpr int64_t kWarpRowMax = 4096;  // longest row one warp reduces
constexpr int kRowsPerBlock = 8;       // warps (rows) per block in the warp-per-row form
constexpr int kBlockRowThreads = 512;  // threads per row in the block-per-row form
constexpr int kParamColumns = 32, kParamRowLanes = 16;
constexpr int64_t kParamChunkRows = 512;  // rows per chunk of layer_norm_params_kernel
constexpr int64_t kMaxParamChunks = 256;

template <typename T>
struct LayerNormArgs {
  const T* x;
  const T* g;     // backward: grad_output
  const T* w;     // null without weight
  const T* b;     // forward: null without bias
  T* out;         // forward: y; backward: dx (null when not wanted)
  double* stats;  // backward: (mean, rstd) per row, or null
  int64_t rows, n;
  double eps;
};

struct SumOp {
  __device__ double operator()(double a, double b) const { return a + b; }
};

// The row's sum over its lanes: one warp (blockDim.x == 32) or the whole block.
__device__ __forceinline__ double row_allreduce(double v, double* scratch) {
  return blockDim.x == kWarpSize ? warp_allreduce(v, SumOp{}, kWarpSize)
                                 : block_allreduce(v, SumOp{}, 0.0, scratch);
}

struct Stats {
  double mean, rstd;
};

// The backward's two row sums, folded together in one pass over x, g and w.
struct GradSums {
  double gw = 0, gw_xhat = 0;
  __device__ GradSums& operator+=(const GradSums& other) {
    gw += other.gw;
    gw_xhat += other.gw_xhat;
    return *this;
  }
};

// Steps of loads in flight per lane: 4 vectors of x for the statistics; 2 of x, g (and w) for
// the backward's sums (4 there left ptxas at the 128-register cap of 512-thread blocks, with
// spills for double).
constexpr int kStatSteps = 4;
constexpr int kGradSteps = 2;

// 16-byte accesses to a row need n a multiple of the vector and an aligned base.
template <typename T>
__device__ __forceinline__ bool vector_ready(const void* p, int64_t n) {
  return n % (16 / static_cast<int64_t>(sizeof(T))) == 0 && is_aligned(p, 16);
}

// The vectors of kVec elements that one step of a lane reads from up to three rows of the same
// length (x; g and w in the backward); a null row is not read and its vector stays unset.
template <typename T, int kVec>
struct RowVectors {
  Vec<T, kVec> x, g, w;
};

template <int kVec, typename T>
__device__ __forceinline__ RowVectors<T, kVec> load_rows(const T* x, const T* g, const T* w,
                                                         int64_t element) {
  RowVectors<T, kVec> v;
  v.x = load_vec<kVec>(x + element);
  if (g != nullptr) v.g = load_vec<kVec>(g + element);
  if (w != nullptr) v.w = load_vec<kVec>(w + element);
  return v;
}

// This lane's fold over its elements of rows of n elements read kVec at a time (kVec = 1: any
// alignment): vector j goes to lane j % lanes, and each lane loads kSteps steps of vectors (one
// per row read) before it uses the first (one scalar load in flight per lane left the forward at
// 0.40 to 0.45 and the backward at 0.25 of the copy bandwidth on an H200, 2026-12-04).
// add(acc, v, k) folds element k of the loaded vectors v into acc; the kSteps accumulators are
// added last, in order.
template <int kVec, int kSteps, typename Acc, typename T, typename Add>
__device__ __forceinline__ Acc lane_fold(const T* x, const T* g, const T* w, int64_t n, Add add) {
  const int lanes = static_cast<int>(blockDim.x);
  const int64_t vectors = n / kVec;
  Acc acc[kSteps] = {};
  int64_t i = threadIdx.x;
  for (; i + (kSteps - 1) * static_cast<int64_t>(lanes) < vectors; i += kSteps * lanes) {
    RowVectors<T, kVec> v[kSteps];
#pragma unroll
    for (int u = 0; u < kSteps; ++u) v[u] = load_rows<kVec>(x, g, w, (i + u * lanes) * kVec);
#pragma unroll
    for (int u = 0; u < kSteps; ++u) {
#pragma unroll
      for (int k = 0; k < kVec; ++k) add(acc[u], v[u], k);
    }
  }
  for (; i < vectors; i += lanes) {
    const RowVectors<T, kVec> v = load_rows<kVec>(x, g, w, i * kVec);
#pragma unroll
    for (int k = 0; k < kVec; ++k) add(acc[0], v, k);
  }
#pragma unroll
  for (int u = 1; u < kSteps; ++u) acc[0] += acc[u];
  return acc[0];
}

// lane_fold in 16-byte vectors where every row read is aligned and n a multiple of the vector,
// else element by element.
template <typename Acc, int kSteps, typename T, typename Add>
__device__ __forceinline__ Acc lane_fold_rows(const T* x, const T* g, const T* w, int64_t n,
                                              Add add) {
  constexpr int kVec = static_cast<int>(16 / sizeof(T));
  if (vector_ready<T>(x, n) && (g == nullptr || vector_ready<T>(g, n)) &&
      (w == nullptr || vector_ready<T>(w, n))) {
    return lane_fold<kVec, kSteps, Acc>(x, g, w, n, add);
  }
  return lane_fold<1, kSteps, Acc>(x, g, w, n, add);
}

// This lane's sum of f(x[i]) in double over its elements of the row.
template <typename T, typename F>
__device__ __forceinline__ double lane_sum(const T* x, int64_t n, F f) {
  return lane_fold_rows<double, kStatSteps>(
      x, static_cast<const T*>(nullptr), static_cast<const T*>(nullptr), n,
      [f](double& acc, const auto& v, int k) { acc += f(static_cast<double>(v.x.v[k])); });
}

// Every thread of the row's group calls it (the reductions).
template <typename T>
__device__ __forceinline__ Stats row_stats(const T* x, int64_t n, double eps, double* scratch) {
  const double sum = lane_sum(x, n, [](double v) { return v; });
  const double mean = row_allreduce(sum, scratch) / static_cast<double>(n);
  const double squares = lane_sum(x, n, [mean](double v) { return (v - mean) * (v - mean); });
  const double var = row_allreduce(squares, scratch) / static_cast<double>(n);
  return {mean, 1.0 / sqrt_of(var + eps)};
}

// y = xhat * w + b for one element (w, b: 1 and 0 when absent).
template <typename T>
__device__ __forceinline__ T normalized(T x, const Stats& s, const T* w, const T* b, int64_t i) {
  T v = static_cast<T>((static_cast<double>(x) - s.mean) * s.rstd);
  if (w != nullptr) v = v * w[i];
  if (b != nullptr) v = v + b[i];
  return v;
}

// The first row of this block's group and the step between groups; every thread of a block
// loops the same number of times, so the barriers of block_allreduce stay uniform.
__device__ __forceinline__ int64_t first_row() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.y;
}
__device__ __forceinline__ int64_t row_step() {
  return static_cast<int64_t>(gridDim.x) * blockDim.y;
}

template <typename T>
__global__ void __launch_bounds__(kBlockRowThreads) layer_norm_rows_kernel(LayerNormArgs<T> a) {
  __shared__ ReduceScratch<double> scratch;
  for (int64_t first = first_row(); first < a.rows; first += row_step()) {
    // A row past the end (the last group) computes on row 0's data and writes nothing, so
    // that its warp still joins the reductions.
    const int64_t row = first + threadIdx.y;
    const bool valid = row < a.rows;
    const T* x = a.x + (valid ? row : 0) * a.n;
    const Stats s = row_stats(x, a.n, a.eps, scratch.get());
    if (!valid) continue;
    T* y = a.out + row * a.n;
    constexpr int kVec = static_cast<int>(16 / sizeof(T));
    if (vector_ready<T>(x, a.n) && vector_ready<T>(y, a.n) &&
        (a.w == nullptr || vector_ready<T>(a.w, a.n)) &&
        (a.b == nullptr || vector_ready<T>(a.b, a.n))) {
      // 16-byte loads and stores; the row was just read, so x comes from L1 or L2.
      for (int64_t i = threadIdx.x * static_cast<int64_t>(kVec); i < a.n;
           i += static_cast<int64_t>(blockDim.x) * kVec) {
        const Vec<T, kVec> in = load_vec<kVec>(x + i);
        Vec<T, kVec> out;
#pragma unroll
        for (int k = 0; k < kVec; ++k) out.v[k] = normalized(in.v[k], s, a.w, a.b, i + k);
        store_vec(y + i, out);
      }
    } else {
      for (int64_t i = threadIdx.x; i < a.n; i += blockDim.x) {
        y[i] = normalized(x[i], s, a.w, a.b, i);
      }
    }
  }
}

template <typename T>
__global__ void __launch_bounds__(kBlockRowThreads)
    layer_norm_backward_rows_kernel(LayerNormArgs<T> a) {
  __shared__ ReduceScratch<double> scratch;
  const double inv_n = 1.0 / static_cast<double>(a.n);
  for (int64_t first = first_row(); first < a.rows; first += row_step()) {
    const int64_t row = first + threadIdx.y;
    const bool valid = row < a.rows;
    const int64_t offset = (valid ? row : 0) * a.n;
    const T* x = a.x + offset;
    const T* g = a.g + offset;
    const Stats s = row_stats(x, a.n, a.eps, scratch.get());
    if (valid && a.stats != nullptr && threadIdx.x == 0) {
      a.stats[2 * row] = s.mean;
      a.stats[2 * row + 1] = s.rstd;
    }
    if (a.out == nullptr) continue;  // only the statistics (uniform across the block)
    // g w for element k of loaded vectors (g alone without a weight).
    const auto gw = [&](const auto& v, int k) {
      return a.w != nullptr ? static_cast<double>(v.g.v[k]) * static_cast<double>(v.w.v[k])
                            : static_cast<double>(v.g.v[k]);
    };
    const GradSums sums = lane_fold_rows<GradSums, kGradSteps>(
        x, g, a.w, a.n, [&](GradSums& acc, const auto& v, int k) {
          const double xhat = (static_cast<double>(v.x.v[k]) - s.mean) * s.rstd;
          const double gwk = gw(v, k);
          acc.gw += gwk;
          acc.gw_xhat += gwk * xhat;
        });
    const double mean_gw = row_allreduce(sums.gw, scratch.get()) * inv_n;
    const double mean_gw_xhat = row_allreduce(sums.gw_xhat, scratch.get()) * inv_n;
    if (!valid) continue;
    T* dx = a.out + offset;
    const auto write = [&](auto vec_tag) {
      constexpr int kVec = decltype(vec_tag)::value;
      for (int64_t i = threadIdx.x * static_cast<int64_t>(kVec); i < a.n;
           i += static_cast<int64_t>(blockDim.x) * kVec) {
        const RowVectors<T, kVec> v = load_rows<kVec>(x, g, a.w, i);
        Vec<T, kVec> out;
#pragma unroll
        for (int k = 0; k < kVec; ++k) {
          const double xhat = (static_cast<double>(v.x.v[k]) - s.mean) * s.rstd;
          out.v[k] = static_cast<T>(s.rstd * (gw(v, k) - mean_gw - xhat * mean_gw_xhat));
        }
        store_vec(dx + i, out);
      }
    };
    constexpr int kVec = static_cast<int>(16 / sizeof(T));
    if (vector_ready<T>(x, a.n) && vector_ready<T>(g, a.n) && vector_ready<T>(dx, a.n) &&
        (a.w == nullptr || vector_ready<T>(a.w, a.n))) {
      write(std::integral_constant<int, kVec>{});
    } else {
      write(std::integral_constant<int, 1>{});
    }
  }
}

// blockDim (kParamColumns, kParamRowLanes); block (bx, c) sums columns bx * 32 + threadIdx.x
// over the rows of chunk c into partial[c][0][col] (g * xhat) and partial[c][1][col] (g).
template <typename T>
__global__ void layer_norm_params_kernel(LayerNormArgs<T> a, double* partial) {
  __shared__ double sums[2][kParamRowLanes][kParamColumns];
  const int64_t col = static_cast<int64_t>(blockIdx.x) * kParamColumns + threadIdx.x;
  const int64_t chunks = gridDim.y;
  const int64_t r0 = a.rows * blockIdx.y / chunks, r1 = a.rows * (blockIdx.y + 1) / chunks;
  double dw = 0, db = 0;
  if (col < a.n) {
    for (int64_t r = r0 + threadIdx.y; r < r1; r += kParamRowLanes) {
      const double g = static_cast<double>(a.g[r * a.n + col]);
      const double xhat =
          (static_cast<double>(a.x[r * a.n + col]) - a.stats[2 * r]) * a.stats[2 * r + 1];
      dw += g * xhat;
      db += g;
    }
  }
  sums[0][threadIdx.y][threadIdx.x] = dw;
  sums[1][threadIdx.y][threadIdx.x] = db;
  __syncthreads();
  if (threadIdx.y < 2 && col < a.n) {
    double total = 0;
    for (int k = 0; k < kParamRowLanes; ++k) total += sums[threadIdx.y][k][threadIdx.x];
    partial[(static_cast<int64_t>(blockIdx.y) * 2 + threadIdx.y) * a.n + col] = total;
  }
}

// out[j] for j < 2n (d weight, then d bias): the chunks' partial sums added in chunk order.
template <typename T>
__global__ void layer_norm_params_finish_kernel(const double* partial, T* out, int64_t n,
                                                int64_t chunks) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < 2 * n;
       j += step) {
    const int64_t half = j / n, col = j % n;
    double total = 0;
    for (int64_t c = 0; c < chunks; ++c) total += partial[(c * 2 + half) * n + col];
    out[j] = static_cast<T>(total);
  }
}

int64_t row_length(const Tensor& x, int64_t normalized_dims) {
  int64_t n = 1;
  for (int64_t d = x.dim() - normalized_dims; d < x.dim(); ++d) n *= x.size(d);
  return n;
}

// The rows kernels' shape: a warp per row (8 per block) or a block per row.
void rows_launch_shape(const OpContext& ctx, int64_t rows, int64_t n, dim3* grid, dim3* block) {
  if (n <= kWarpRowMax) {
    *block = dim3(kWarpSize, kRowsPerBlock);
    *grid =
        dim3(capped_grid(ctx, ceil_div<int64_t>(rows, kRowsPerBlock), kWarpSize * kRowsPerBlock));
  } else {
    *block = dim3(kBlockRowThreads, 1);
    *grid = dim3(capped_grid(ctx, rows, kBlockRowThreads));
  }
}

template <typename T>
void run_forward(const OpContext& ctx, const OpCall& call) {
  const Tensor& x = call.in(0);
  const bool has_weight = call.ints[1] != 0, has_bias = call.ints[2] != 0;
  LayerNormArgs<T> a{};
  a.x = x.data_ptr<T>();
  a.w = has_weight ? call.in(1).data_ptr<T>() : nullptr;
  a.b = has_bias ? call.in(has_weight ? 2 : 1).data_ptr<T>() : nullptr;
  a.out = call.out().data_ptr<T>();
  a.n = row_length(x, call.ints[0]);
  a.rows = x.numel() / a.n;
  a.eps = call.scalar_a.to_double();
  dim3 grid, block;
  rows_launch_shape(ctx, a.rows, a.n, &grid, &block);
  launch_kernel(ctx, "layer_norm_rows_kernel", layer_norm_rows_kernel<T>, grid, block, 0, a);
}

template <typename T>
void run_backward(const OpContext& ctx, const OpCall& call) {
  const Tensor& x = call.in(1);
  const bool has_weight = call.ints[1] != 0;
  const bool want_input = call.ints[2] != 0, want_params = call.ints[3] != 0;
  LayerNormArgs<T> a{};
  a.g = call.in(0).data_ptr<T>();
  a.x = x.data_ptr<T>();
  a.w = has_weight ? call.in(2).data_ptr<T>() : nullptr;
  a.out = want_input ? call.out(0).data_ptr<T>() : nullptr;
  a.n = row_length(x, call.ints[0]);
  a.rows = x.numel() / a.n;
  a.eps = call.scalar_a.to_double();
  const int64_t chunks =
      std::min(kMaxParamChunks, std::max<int64_t>(1, ceil_div<int64_t>(a.rows, kParamChunkRows)));
  // Dropped after the launches are queued: safe on the one stream (runtime.hpp).
  DeviceBuffer stats(want_params ? static_cast<size_t>(a.rows) * 2 * sizeof(double) : 0, ctx);
  DeviceBuffer partial(want_params ? static_cast<size_t>(chunks * 2 * a.n) * sizeof(double) : 0,
                       ctx);
  a.stats = stats.as<double>();
  dim3 grid, block;
  rows_launch_shape(ctx, a.rows, a.n, &grid, &block);
  launch_kernel(ctx, "layer_norm_backward_rows_kernel", layer_norm_backward_rows_kernel<T>, grid,
                block, 0, a);
  if (!want_params) return;
  const dim3 param_grid(
      exact_grid_x(ctx, ceil_div<int64_t>(a.n, kParamColumns), "layer_norm_params_kernel"),
      static_cast<unsigned>(chunks));
  launch_kernel(ctx, "layer_norm_params_kernel", layer_norm_params_kernel<T>, param_grid,
                dim3(kParamColumns, kParamRowLanes), 0, a, partial.as<double>());
  launch_kernel(ctx, "layer_norm_params_finish_kernel", layer_norm_params_finish_kernel<T>,
                grid_for(ctx, 2 * a.n), dim3(kBlockThreads), 0,
                static_cast<const double*>(partial.as<double>()), call.out(1).data_ptr<T>(), a.n,
                chunks);
}

}  // namespace

void launch_layer_norm(const OpCall& call) {
  OpContext ctx(call);
  switch (call.in(0).dtype()) {
    case kFloat32:
      run_forward<float>(ctx, call);
      break;
    case kFloat64:
      run_forward<double>(ctx, call);
      break;
    default:
      detail::fail<DtypeError>(ctx.op, "needs a floating-point input, got ", describe(call.in(0)));
  }
}

void launch_layer_norm_backward(const OpCall& call) {
  OpContext ctx(call);
  switch (call.in(1).dtype()) {
    case kFloat32:
      run_backward<float>(ctx, call);
      break;
    case kFloat64:
      run_backward<double>(ctx, call);
      break;
    default:
      detail::fail<DtypeError>(ctx.op, "needs a floating-point input, got ", describe(call.in(1)));
  }
}

}  // namespace wick::gpu
