// softmax_rows.cu: the row kernels of softmax.cu (whose header describes the design):
// softmax_rows_kernel (rows held in registers, read once) and softmax_long_kernel (longer rows,
// online (max, sum) pass then an output pass), each with a 16-byte vector path for contiguous
// aligned rows and a scalar path for any strides.
#include <algorithm>
#include <mutex>
#include <vector>

#include "dynamic_shared.cuh"
#include "softmax.cuh"

namespace wick::gpu::softmax {
namespace {

constexpr int kLongThreads = 512;

// Blocks per SM that __launch_bounds__ asks for, which caps the registers of a thread at
// 65536 / (threads * blocks). The float32 16-byte paths fit 64 registers without spilling
// (ptxas -v, sm_90); float64 (double exp, 2-register values) and the scalar path (a 64-bit
// address per value) spill there, so they get 80 or 128 (float64's long kernel).
template <typename T, int kVec>
inline constexpr int kRowBlocksPerSm = (sizeof(T) == 4 && kVec > 1) ? 4 : 3;
template <typename T>
inline constexpr int kLongBlocksPerSm = sizeof(T) == 4 ? 2 : 1;
constexpr int kUnroll = 4;  // vectors a lane of softmax_long_kernel loads before using any
// Bytes of a long row that softmax_long_kernel keeps in shared memory for its second pass, on
// sm_90 (228 KiB per SM: 2 blocks of 96 KiB beside their scratch), so that only the rest is
// read twice: 37.5% of a row of 65536 float32 elements, and all of one up to 24576.
constexpr int kLongCacheBytes = 96 * 1024;

// Vector j of a row: elements j * kVec .. j * kVec + kVec - 1 of a contiguous row (16 bytes,
// aligned), or for kVec = 1 element j of a row with any stride.
template <int kVec, typename T>
__device__ __forceinline__ Vec<T, kVec> load_row(const T* x, int64_t j, int64_t stride) {
  if constexpr (kVec == 1) {
    return Vec<T, 1>{{x[j * stride]}};
  } else {
    return load_vec<kVec>(x + j * kVec);
  }
}
template <int kVec, typename T>
__device__ __forceinline__ void store_row(T* y, int64_t j, int64_t stride, const Vec<T, kVec>& v) {
  if constexpr (kVec == 1) {
    y[j * stride] = v.v[0];
  } else {
    store_vec<kVec>(y + j * kVec, v);
  }
}

// Combines v over the `lanes` threads of one row: blockDim = (lanes, rows per block), lanes a
// power of two. Up to a warp: shuffles of that width (several rows per warp, no barrier).
// Wider: each warp's result goes to scratch (one slot per warp of the block), and every lane
// combines its row's warps in a fixed order (deterministic). Every thread of the block must
// call it (barriers when lanes > 32, the same for the whole block); it ends with a barrier,
// so scratch can be reused right after.
template <typename T, typename Combine>
__device__ __forceinline__ T row_allreduce(T v, const Combine& combine, int lanes, T* scratch) {
  if (lanes <= kWarpSize) return warp_allreduce(v, combine, lanes);
  const int tid = static_cast<int>(threadIdx.x + threadIdx.y * blockDim.x);
  v = warp_reduce(v, combine);
  if (tid % kWarpSize == 0) scratch[tid / kWarpSize] = v;
  __syncthreads();
  const int warps = lanes / kWarpSize, first = static_cast<int>(threadIdx.y) * warps;
  v = scratch[first];
  for (int w = 1; w < warps; ++w) v = combine(v, scratch[first + w]);
  __syncthreads();
  return v;
}

// blockDim = (lanes, kRowThreads / lanes); lanes * kLaneValues >= n. Each lane holds vectors
// lane, lane + lanes, ... of its row (coalesced: neighbouring lanes, neighbouring vectors), the
// whole row in registers: read once, written once. kVec > 1: n % kVec == 0 and rows contiguous
// and aligned (launch_rows). Groups of rows are grid-strided on a capped grid (2^34 rows of
// n = 1 would pass gridDim.x's 2^31 - 1); the trip count is the same for every thread of a
// block, so row_allreduce's barriers are uniform.
// Float32 rows of 16-byte vectors: 63 registers (ptxas -v, sm_90), 4 blocks (1024 threads) per
// SM; the other paths 78-80 registers, 3 blocks (768 threads).
template <typename T, int kVec>
__global__ void __launch_bounds__(kRowThreads, kRowBlocksPerSm<T, kVec>)
    softmax_rows_kernel(SoftmaxArgs<T> a) {
  constexpr int kVecs = kLaneValues<T> / kVec;
  __shared__ ReduceScratch<T> scratch;
  const int lane = static_cast<int>(threadIdx.x), lanes = static_cast<int>(blockDim.x);
  const int vecs = static_cast<int>(a.n / kVec);  // n <= kLaneValues * kRowThreads here
  const int64_t group_step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.y; first < a.num_rows;
       first += group_step) {
    const int64_t row = first + threadIdx.y;
    const bool valid = row < a.num_rows;
    int64_t offsets[2] = {0, 0};
    if (valid) a.rows.get(static_cast<uint64_t>(row), offsets);
    const T* x = a.in + offsets[0];
    T* y = a.out + offsets[1];

    // All loads first (kVecs in flight per lane), then the max.
    Vec<T, kVec> v[kVecs];
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      const int j = lane + k * lanes;
      if (valid && j < vecs) {
        v[k] = load_row<kVec>(x, j, a.in_stride);
      } else {
#pragma unroll
        for (int e = 0; e < kVec; ++e) v[k].v[e] = neg_inf<T>();
      }
    }
    T m = neg_inf<T>();
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
#pragma unroll
      for (int e = 0; e < kVec; ++e) m = v[k].v[e] > m ? v[k].v[e] : m;
    }
    m = row_allreduce(m, MaxOp{}, lanes, scratch.get());
    const T shift = shift_of(m);
    // softmax keeps exp(x - shift) in place of x, so that each exp is computed once.
    T s = 0;
#pragma unroll
    for (int k = 0; k < kVecs; ++k) {
      if (lane + k * lanes < vecs) {
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          const T ex = exp_of(v[k].v[e] - shift);
          s += ex;
          if (!a.log_form) v[k].v[e] = ex;
        }
      }
    }
    s = row_allreduce(s, SumOp{}, lanes, scratch.get());
    const T scale = scale_of(s, a.log_form);
    if (valid) {
#pragma unroll
      for (int k = 0; k < kVecs; ++k) {
        const int j = lane + k * lanes;
        if (j >= vecs) continue;
        Vec<T, kVec> out;
#pragma unroll
        for (int e = 0; e < kVec; ++e) {
          out.v[e] = a.log_form ? (v[k].v[e] - shift) - scale : v[k].v[e] * scale;
        }
        store_row<kVec>(y, j, a.out_stride, out);
      }
    }
  }
}

// fold over the kVec elements of a vector: one rescale of the running sum (the max moves at
// most once per vector), kVec exps. The max starts from acc.m, so that NaN never wins.
template <typename T, typename S, int kVec>
__device__ __forceinline__ MaxSum<T, S> fold_vec(MaxSum<T, S> acc, const Vec<T, kVec>& v) {
  T m = acc.m;
#pragma unroll
  for (int e = 0; e < kVec; ++e) m = v.v[e] > m ? v.v[e] : m;
  S s = rescale(acc.s, acc.m, m);
  const T shift = shift_of(m);
#pragma unroll
  for (int e = 0; e < kVec; ++e) s += static_cast<S>(exp_of(v.v[e] - shift));
  return MaxSum<T, S>{m, s};
}

// One block (1-D) per row, rows grid-strided. First pass: each lane folds vectors lane,
// lane + 512, ... into an online (max, sum) pair, kUnroll loads in flight; the pairs merge
// across the block. Second pass: the outputs, walking each lane's vectors from the last: what
// the first pass read last is the likeliest to be still in L2, and the row's first
// cache_vecs vectors come from shared memory (dynamic: cache_vecs vectors, up to 96 KiB).
// Float32: 63 registers (16-byte path; 54 scalar), 2 blocks (1024 threads) per SM; float64
// 72-103 registers, 1 block (ptxas -v, sm_90).
template <typename T, int kVec>
__global__ void __launch_bounds__(kLongThreads, kLongBlocksPerSm<T>)
    softmax_long_kernel(SoftmaxArgs<T> a, int64_t cache_vecs) {
  using Acc = OnlineSum<T>;
  __shared__ ReduceScratch<Acc> scratch;
  const int lane = static_cast<int>(threadIdx.x), lanes = static_cast<int>(blockDim.x);
  const int64_t vecs = a.n / kVec;
  // Vectors 0 .. cached - 1 of the row stay in shared memory between the passes. Each is
  // written and read by the same thread (vector j belongs to lane j % lanes in both passes),
  // so no barrier guards them.
  auto* cache = reinterpret_cast<Vec<T, kVec>*>(dynamic_shared());
  const int64_t cached = vecs < cache_vecs ? vecs : cache_vecs;
  for (int64_t row = blockIdx.x; row < a.num_rows; row += gridDim.x) {
    int64_t offsets[2];
    a.rows.get(static_cast<uint64_t>(row), offsets);
    const T* x = a.in + offsets[0];
    T* y = a.out + offsets[1];
    Acc acc{neg_inf<T>(), 0};
    int64_t j = lane;
    for (; j + (kUnroll - 1) * lanes < vecs; j += kUnroll * lanes) {
      Vec<T, kVec> v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) v[u] = load_row<kVec>(x, j + u * lanes, a.in_stride);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (j + u * lanes < cached) cache[j + u * lanes] = v[u];
        acc = fold_vec(acc, v[u]);
      }
    }
    for (; j < vecs; j += lanes) {
      const Vec<T, kVec> v = load_row<kVec>(x, j, a.in_stride);
      if (j < cached) cache[j] = v;
      acc = fold_vec(acc, v);
    }
    acc = block_allreduce(acc, MergeOp{}, Acc{neg_inf<T>(), 0}, scratch.get());
    const T shift = shift_of(acc.m);
    const T scale = scale_of(static_cast<T>(acc.s), a.log_form);  // the sum rounded once
    auto output = [&](Vec<T, kVec> v) {
#pragma unroll
      for (int e = 0; e < kVec; ++e) v.v[e] = output_of(v.v[e], shift, scale, a.log_form);
      return v;
    };
    auto reload = [&](int64_t k) {
      return k < cached ? cache[k] : load_row<kVec>(x, k, a.in_stride);
    };
    if (lane >= vecs) continue;
    j = lane + (vecs - 1 - lane) / lanes * lanes;  // this lane's last vector
    for (; j - (kUnroll - 1) * lanes >= 0; j -= kUnroll * lanes) {
      Vec<T, kVec> v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) v[u] = reload(j - u * lanes);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        store_row<kVec>(y, j - u * lanes, a.out_stride, output(v[u]));
      }
    }
    for (; j >= 0; j -= lanes) store_row<kVec>(y, j, a.out_stride, output(reload(j)));
  }
}

}  // namespace

template <typename T>
void launch_rows(const OpContext& ctx, const SoftmaxArgs<T>& args, bool vec) {
  // The fewest lanes that hold the row: short rows share warps (shuffles of that width) and
  // blocks, and no lane idles for want of elements.
  int lanes = 1;
  while (static_cast<int64_t>(lanes) * kLaneValues<T> < args.n) lanes *= 2;
  const int rows_per_block = kRowThreads / lanes;
  const dim3 block(static_cast<unsigned>(lanes), static_cast<unsigned>(rows_per_block));
  const unsigned grid =
      capped_grid(ctx, ceil_div<int64_t>(args.num_rows, rows_per_block), kRowThreads);
  if (vec) {
    launch_kernel(ctx, "softmax_rows_kernel", softmax_rows_kernel<T, kVecWidth<T>>, grid, block, 0,
                  args);
  } else {
    launch_kernel(ctx, "softmax_rows_kernel", softmax_rows_kernel<T, 1>, grid, block, 0, args);
  }
}

namespace {

// Launches softmax_long_kernel with the row's first vectors cached in shared memory: on sm_90
// up to kLongCacheBytes (past CUDA's default 48 KiB, which a kernel must ask for once per
// device), no more than the row; elsewhere (smaller or differently shared SMs) none.
template <typename T, int kVec>
void launch_long(const OpContext& ctx, const SoftmaxArgs<T>& args) {
  auto* kernel = &softmax_long_kernel<T, kVec>;
  const int64_t vec_bytes = static_cast<int64_t>(sizeof(Vec<T, kVec>));
  int64_t cache_vecs = 0;
  if (device_info(ctx.device).major == 9) {
    static std::mutex mutex;
    static std::vector<bool> allowed;  // per device
    std::lock_guard<std::mutex> lock(mutex);
    const auto device = static_cast<size_t>(ctx.device);
    if (allowed.size() <= device) allowed.resize(device + 1, false);
    if (!allowed[device]) {
      check_cuda(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, kLongCacheBytes),
                 "cudaFuncSetAttribute", ctx.op, ctx.device);
      allowed[device] = true;
    }
    cache_vecs = std::min<int64_t>(kLongCacheBytes / vec_bytes, args.n / kVec);
  }
  launch_kernel(ctx, "softmax_long_kernel", kernel, capped_grid(ctx, args.num_rows, kLongThreads),
                kLongThreads, static_cast<size_t>(cache_vecs * vec_bytes), args, cache_vecs);
}

}  // namespace

template <typename T>
void launch_long_rows(const OpContext& ctx, const SoftmaxArgs<T>& args, bool vec) {
  if (vec) {
    launch_long<T, kVecWidth<T>>(ctx, args);
  } else {
    launch_long<T, 1>(ctx, args);
  }
}

template void launch_rows<float>(const OpContext&, const SoftmaxArgs<float>&, bool);
template void launch_rows<double>(const OpContext&, const SoftmaxArgs<double>&, bool);
template void launch_long_rows<float>(const OpContext&, const SoftmaxArgs<float>&, bool);
template void launch_long_rows<double>(const OpContext&, const SoftmaxArgs<double>&, bool);

}  // namespace wick::gpu::softmax
