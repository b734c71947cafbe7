// reduce.cu: sum, mean, max and min over any set of dims, with argmax/argmin indices, and prod.
// Idea: the input's dims split into kept dims (one output each, O outputs) and reduced dims
// (R elements per output), each collapsed (common.cuh). If the reduced elements lie closer in
// memory than neighbouring outputs ("inner", e.g. a sum over the last dim, or over everything),
// a group of lanes shares one output: a sub-warp for short rows (several outputs per block) or
// the whole 256-thread block for long ones, each lane walking the row with stride = group size
// (16-byte vector loads where the row is contiguous and aligned), then warp shuffles and, for a
// block, shared memory. Otherwise ("outer", e.g. a sum over dim 0 of a row-major matrix),
// consecutive threads take consecutive outputs (coalesced) and threadIdx.y splits the row;
// the y-partials meet in a shared-memory tree.
// Long rows are cut into chunks of 16384 elements (as the CPU's kBlock) handled by different
// blocks; their partial results go to a buffer and a second kernel combines them. Every
// combination happens in an order fixed by the shape alone: no atomics, results are the same
// on every run (and on every GPU).
// Semantics are those of kernels/cpu/reduce.cpp: float sums accumulate in double, int64 sums
// wrap (uint64), mean = double sum / count, max/min propagate NaN and take the first extreme
// (lowest index) on ties, indices count in the row-major order of the reduced dims.
// Tested by tests/cuda/test_ops.cpp against the CPU float64 reference; measured by bench/gpu
// (sum of 2^26 floats as a fraction of the copy bandwidth): 0.66 on an H200 on 2026-12-04 with
// one 16-byte load in flight per lane; the inner kernel now issues kUnroll = 4 before using them
// (predicted: about 0.9; docs/gpu-results.md has each run).
#include <algorithm>

#include "common.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

constexpr int64_t kChunk = 16384;  // reduced elements per block before a second pass
constexpr int64_t kMaxSplits = 65535;
constexpr int kUnroll = 4;  // vector loads in flight per lane in the inner kernel

template <typename T>
struct Extreme {
  T value;
  int64_t index;  // -1: empty
};

template <typename T>
__device__ __forceinline__ Extreme<T> shfl_down(Extreme<T> e, int delta, int width) {
  return Extreme<T>{gpu::shfl_down(e.value, delta, width), gpu::shfl_down(e.index, delta, width)};
}

template <typename T, bool kMeanOf>
struct SumPolicy {
  using Value = T;
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;  // int64 wraps
  __device__ static Acc identity() { return Acc(0); }
  __device__ static Acc visit(Acc acc, T v, int64_t) { return acc + static_cast<Acc>(v); }
  __device__ static Acc combine(Acc a, Acc b) { return a + b; }
  __device__ static T value(Acc acc, int64_t count) {
    if constexpr (kMeanOf) {
      return static_cast<T>(static_cast<double>(acc) / static_cast<double>(count));
    } else {
      return static_cast<T>(acc);
    }
  }
  __device__ static int64_t index(Acc) { return -1; }
};

// prod (launch_prod below): float products in double, int64 in uint64 (wrapping).
template <typename T>
struct ProdPolicy {
  using Value = T;
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;
  __device__ static Acc identity() { return Acc(1); }
  __device__ static Acc visit(Acc acc, T v, int64_t) { return acc * static_cast<Acc>(v); }
  __device__ static Acc combine(Acc a, Acc b) { return a * b; }
  __device__ static T value(Acc acc, int64_t) { return static_cast<T>(acc); }
  __device__ static int64_t index(Acc) { return -1; }
};

template <typename T, bool kMax>
struct ExtremePolicy {
  using Value = T;
  using Acc = Extreme<T>;
  // NaN beats everything and nothing beats NaN; otherwise strictly greater (smaller).
  __device__ static bool better(T candidate, T best) {
    if (is_nan(best)) return false;
    if (is_nan(candidate)) return true;
    return kMax ? candidate > best : candidate < best;
  }
  __device__ static Acc identity() { return Acc{T(0), -1}; }
  // Within one lane indices only grow, so "strictly better" keeps the first extreme.
  __device__ static Acc visit(Acc acc, T v, int64_t i) {
    return (acc.index < 0 || better(v, acc.value)) ? Acc{v, i} : acc;
  }
  __device__ static Acc combine(Acc a, Acc b) {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    if (better(b.value, a.value)) return b;
    if (better(a.value, b.value)) return a;
    return b.index < a.index ? b : a;  // equal (or both NaN): the first
  }
  __device__ static T value(Acc acc, int64_t) { return acc.value; }
  __device__ static int64_t index(Acc acc) { return acc.index; }
};

template <typename P>
struct CombineOf {
  __device__ typename P::Acc operator()(typename P::Acc a, typename P::Acc b) const {
    return P::combine(a, b);
  }
};

template <typename P>
struct ReduceArgs {
  using T = typename P::Value;
  using Acc = typename P::Acc;
  const T* in;
  OffsetCalculator<1> outputs;  // output index -> offset of its first input element
  OffsetCalculator<1> reduced;  // reduced index -> offset from there
  int64_t num_outputs;          // O
  int64_t reduce_size;          // R
  int64_t chunk;                // reduced elements per split
  int splits;                   // blockIdx.y range
  T* values;                    // [O], written when splits == 1
  int64_t* indices;             // [O] or null
  Acc* partial;                 // [O][splits], written when splits > 1
};

template <typename P>
__device__ __forceinline__ void store_result(const ReduceArgs<P>& a, int64_t o, int split,
                                             typename P::Acc acc) {
  if (a.splits > 1) {
    a.partial[o * a.splits + split] = acc;
  } else {
    a.values[o] = P::value(acc, a.reduce_size);
    if (a.indices != nullptr) a.indices[o] = P::index(acc);
  }
}

template <typename P>
__device__ __forceinline__ const typename P::Value* output_base(const ReduceArgs<P>& a, int64_t o) {
  int64_t offset[1];
  a.outputs.get(static_cast<uint64_t>(o), offset);
  return a.in + offset[0];
}

// The reduced elements [begin, end) that split `split` (blockIdx.y) covers.
struct ChunkRange {
  int64_t begin, end;
};
template <typename P>
__device__ __forceinline__ ChunkRange chunk_of(const ReduceArgs<P>& a, int split) {
  const int64_t begin = split * a.chunk;
  return {begin, begin + a.chunk < a.reduce_size ? begin + a.chunk : a.reduce_size};
}

// Inner reduction. blockDim = (lanes, rows): `lanes` threads per output, `rows` outputs per
// block; grid = (ceil(O / rows), splits). kVec > 1: the reduced elements are contiguous and
// every row start and chunk start is aligned to kVec elements.
template <typename P, int kVec>
__global__ void reduce_inner_kernel(ReduceArgs<P> a) {
  using T = typename P::Value;
  using Acc = typename P::Acc;
  __shared__ ReduceScratch<Acc> scratch;
  const int lane = static_cast<int>(threadIdx.x), lanes = static_cast<int>(blockDim.x);
  // Groups of blockDim.y outputs, grid-strided (the grid is capped): the loop's bounds depend
  // on the block alone, so block_reduce's barriers stay uniform.
  const int64_t group_step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  const int split = static_cast<int>(blockIdx.y);
  const auto [begin, end] = chunk_of(a, split);
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.y; first < a.num_outputs;
       first += group_step) {
    const int64_t o = first + threadIdx.y;
    Acc acc = P::identity();
    if (o < a.num_outputs) {
      const T* base = output_base(a, o);
      if constexpr (kVec > 1) {
        Acc lane_acc[kVec];
#pragma unroll
        for (int k = 0; k < kVec; ++k) lane_acc[k] = P::identity();
        // kUnroll vector loads are issued before the first is used: one load in flight per
        // warp left the H200 latency-bound (sum of 2^26 floats at 0.66 of the copy bandwidth,
        // 2026-12-04). Each lane_acc[k] still sees its elements in the same order as with one
        // load per step, so the results are unchanged, bit for bit.
        const int64_t stride = static_cast<int64_t>(lanes) * kVec;
        int64_t r = begin + static_cast<int64_t>(lane) * kVec;
        for (; r + (kUnroll - 1) * stride + kVec <= end; r += kUnroll * stride) {
          Vec<T, kVec> v[kUnroll];
#pragma unroll
          for (int u = 0; u < kUnroll; ++u) v[u] = load_vec<kVec>(base + r + u * stride);
#pragma unroll
          for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
            for (int k = 0; k < kVec; ++k) {
              lane_acc[k] = P::visit(lane_acc[k], v[u].v[k], r + u * stride + k);
            }
          }
        }
        for (; r + kVec <= end; r += stride) {
          const Vec<T, kVec> v = load_vec<kVec>(base + r);
#pragma unroll
          for (int k = 0; k < kVec; ++k) lane_acc[k] = P::visit(lane_acc[k], v.v[k], r + k);
        }
#pragma unroll
        for (int k = 0; k < kVec; ++k) acc = P::combine(acc, lane_acc[k]);
        const int64_t tail = begin + (end - begin) / kVec * kVec;
        for (int64_t r = tail + lane; r < end; r += lanes) acc = P::visit(acc, base[r], r);
      } else {
        for (int64_t r = begin + lane; r < end; r += lanes) {
          int64_t offset[1];
          a.reduced.get(static_cast<uint64_t>(r), offset);
          acc = P::visit(acc, base[offset[0]], r);
        }
      }
    }
    if (lanes <= kWarpSize) {
      acc = warp_reduce(acc, CombineOf<P>{}, lanes);
    } else {
      acc = block_reduce(acc, CombineOf<P>{}, P::identity(), scratch.get());
    }
    if (lane == 0 && o < a.num_outputs) store_result(a, o, split, acc);
  }
}

// Outer reduction. blockDim = (outputs per block, lanes per output), both powers of two with
// product <= kBlockThreads; grid = (ceil(O / blockDim.x), splits).
template <typename P>
__global__ void reduce_outer_kernel(ReduceArgs<P> a) {
  using T = typename P::Value;
  using Acc = typename P::Acc;
  alignas(16) __shared__ unsigned char raw[kBlockThreads * sizeof(Acc)];
  Acc* tree = reinterpret_cast<Acc*>(raw);
  const int x = static_cast<int>(threadIdx.x), y = static_cast<int>(threadIdx.y);
  const int width = static_cast<int>(blockDim.x);
  // Groups of blockDim.x outputs, grid-strided as in the inner kernel.
  const int64_t group_step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int split = static_cast<int>(blockIdx.y);
  const auto [begin, end] = chunk_of(a, split);
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x; first < a.num_outputs;
       first += group_step) {
    const int64_t o = first + threadIdx.x;
    Acc acc = P::identity();
    if (o < a.num_outputs) {
      const T* base = output_base(a, o);
      for (int64_t r = begin + y; r < end; r += blockDim.y) {
        int64_t offset[1];
        a.reduced.get(static_cast<uint64_t>(r), offset);
        acc = P::visit(acc, base[offset[0]], r);
      }
    }
    tree[y * width + x] = acc;
    __syncthreads();
    for (int half = static_cast<int>(blockDim.y) / 2; half > 0; half /= 2) {
      if (y < half)
        tree[y * width + x] = P::combine(tree[y * width + x], tree[(y + half) * width + x]);
      __syncthreads();
    }
    if (y == 0 && o < a.num_outputs) store_result(a, o, split, tree[x]);
    __syncthreads();  // tree is rewritten by the next group
  }
}

// Second pass: one warp per output combines its `splits` partials (lane j takes j, j + 32, ...,
// then a fixed shuffle tree).
template <typename P>
__global__ void reduce_partials_kernel(const typename P::Acc* partial, int64_t num_outputs,
                                       int splits, int64_t reduce_size, typename P::Value* values,
                                       int64_t* indices) {
  using Acc = typename P::Acc;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int64_t warps_per_block = blockDim.x / kWarpSize;
  const int64_t step = static_cast<int64_t>(gridDim.x) * warps_per_block;
  for (int64_t first = static_cast<int64_t>(blockIdx.x) * warps_per_block; first < num_outputs;
       first += step) {
    const int64_t o = first + threadIdx.x / kWarpSize;
    Acc acc = P::identity();
    if (o < num_outputs) {
      for (int s = lane; s < splits; s += kWarpSize) acc = P::combine(acc, partial[o * splits + s]);
    }
    acc = warp_reduce(acc, CombineOf<P>{});
    if (lane == 0 && o < num_outputs) {
      values[o] = P::value(acc, reduce_size);
      if (indices != nullptr) indices[o] = P::index(acc);
    }
  }
}

int next_pow2(int64_t n, int cap) {
  int p = 1;
  while (p < cap && p < n) p *= 2;
  return p;
}

template <typename P>
void run_reduce(const OpContext& ctx, const OpCall& call) {
  using T = typename P::Value;
  using Acc = typename P::Acc;
  const Tensor& in = call.in(0);
  const StridedLayout<1> kept = select_dims(in.sizes(), in.strides(), call.ints, 0);
  const StridedLayout<1> red = select_dims(in.sizes(), in.strides(), call.ints, 1);
  const int64_t num_outputs = kept.numel, reduce_size = red.numel;
  if (num_outputs == 0) return;

  ReduceArgs<P> args{};
  args.in = static_cast<const T*>(in.raw_data());
  args.outputs = OffsetCalculator<1>(kept);
  args.reduced = OffsetCalculator<1>(red);
  args.num_outputs = num_outputs;
  args.reduce_size = reduce_size;
  args.chunk = kChunk;
  if (ceil_div<int64_t>(reduce_size, args.chunk) > kMaxSplits) {
    args.chunk = ceil_div<int64_t>(ceil_div<int64_t>(reduce_size, kMaxSplits), 16) * 16;
  }
  args.splits = reduce_size > args.chunk ? static_cast<int>(ceil_div(reduce_size, args.chunk)) : 1;
  args.values = static_cast<T*>(call.out(0).raw_data());
  args.indices = call.num_outputs > 1 ? static_cast<int64_t*>(call.out(1).raw_data()) : nullptr;
  std::optional<DeviceBuffer> partial;
  if (args.splits > 1) {
    partial.emplace(static_cast<size_t>(num_outputs) * args.splits * sizeof(Acc), ctx);
    args.partial = partial->as<Acc>();
  }
  const int64_t per_split = std::min(reduce_size, args.chunk);

  // Inner when the reduced elements are nearer each other than neighbouring outputs.
  const int64_t red_stride = red.ndim > 0 ? red.strides[0][0] : 0;
  const int64_t kept_stride = kept.ndim > 0 ? kept.strides[0][0] : 0;
  const bool inner = kept.ndim == 0 || (red.ndim > 0 && red_stride <= kept_stride);
  if (inner) {
    const int lanes = per_split > 1024 ? kBlockThreads : next_pow2(per_split, kWarpSize);
    const int rows = kBlockThreads / lanes;
    const dim3 grid(capped_grid(ctx, ceil_div<int64_t>(num_outputs, rows), kBlockThreads),
                    static_cast<unsigned>(args.splits));
    const dim3 block(static_cast<unsigned>(lanes), static_cast<unsigned>(rows));
    constexpr int kVec = static_cast<int>(16 / sizeof(T));
    bool vec = lanes >= kWarpSize && red.ndim == 1 && red_stride == 1 && args.chunk % kVec == 0 &&
               is_aligned(args.in, 16);
    for (int d = 0; d < kept.ndim && vec; ++d) {
      vec = (kept.strides[0][d] * static_cast<int64_t>(sizeof(T))) % 16 == 0;
    }
    if (vec) {
      launch_kernel(ctx, "reduce_inner_kernel", reduce_inner_kernel<P, kVec>, grid, block, 0, args);
    } else {
      launch_kernel(ctx, "reduce_inner_kernel", reduce_inner_kernel<P, 1>, grid, block, 0, args);
    }
  } else {
    int width = next_pow2(num_outputs, kWarpSize);
    const int lanes = next_pow2(per_split, kBlockThreads / width);
    width = next_pow2(num_outputs, kBlockThreads / lanes);
    const dim3 grid(capped_grid(ctx, ceil_div<int64_t>(num_outputs, width), width * lanes),
                    static_cast<unsigned>(args.splits));
    const dim3 block(static_cast<unsigned>(width), static_cast<unsigned>(lanes));
    launch_kernel(ctx, "reduce_outer_kernel", reduce_outer_kernel<P>, grid, block, 0, args);
  }
  if (args.splits > 1) {
    constexpr int kOutputsPerBlock = kBlockThreads / kWarpSize;
    launch_kernel(ctx, "reduce_partials_kernel", reduce_partials_kernel<P>,
                  capped_grid(ctx, ceil_div<int64_t>(num_outputs, kOutputsPerBlock), kBlockThreads),
                  kBlockThreads, 0, static_cast<const Acc*>(args.partial), num_outputs, args.splits,
                  reduce_size, args.values, args.indices);
  }
}

}  // namespace

void launch_reduce(const OpCall& call) {
  OpContext ctx(call);
  const Dtype dtype = call.out(0).dtype();
  switch (call.op) {
    case OpId::sum:
      if (dtype == kInt64) return run_reduce<SumPolicy<int64_t, false>>(ctx, call);
      if (dtype == kFloat32) return run_reduce<SumPolicy<float, false>>(ctx, call);
      if (dtype == kFloat64) return run_reduce<SumPolicy<double, false>>(ctx, call);
      break;
    case OpId::mean:
      if (dtype == kFloat32) return run_reduce<SumPolicy<float, true>>(ctx, call);
      if (dtype == kFloat64) return run_reduce<SumPolicy<double, true>>(ctx, call);
      break;
    case OpId::max:
    case OpId::min: {
      const bool is_max = call.op == OpId::max;
      WICK_DISPATCH_ALL(dtype, {
        if (is_max) return run_reduce<ExtremePolicy<T, true>>(ctx, call);
        return run_reduce<ExtremePolicy<T, false>>(ctx, call);
      })
      break;
    }
    default:
      break;
  }
  detail::fail<DtypeError>(ctx.op, "no CUDA kernel for ", describe(call.in(0)));
}

// prod's contract (core/src/ops_scan.cpp): the input packed, the product along call.dim into
// an output of the input's sizes with that dim 1. The reduction above with that one dim
// flagged: the same kernels, multiplying. Its order (lanes, then a shuffle tree) differs from
// the CPU's blocks of eight lanes, so float results agree to rounding, not to the bit.
void launch_prod(const OpCall& call) {
  OpContext ctx(call);
  OpCall reduce_call = call;
  reduce_call.ints = Shape::filled(static_cast<size_t>(call.in(0).dim()), 0);
  reduce_call.ints[call.dim] = 1;
  switch (call.out(0).dtype()) {
    case kInt64:
      return run_reduce<ProdPolicy<int64_t>>(ctx, reduce_call);
    case kFloat32:
      return run_reduce<ProdPolicy<float>>(ctx, reduce_call);
    case kFloat64:
      return run_reduce<ProdPolicy<double>>(ctx, reduce_call);
    default:
      break;
  }
  detail::fail<DtypeError>(ctx.op, "no CUDA kernel for ", describe(call.in(0)));
}

}  // namespace wick::gpu
