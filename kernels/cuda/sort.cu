// sort.cu: sort and topk on the GPU (one kernel entry, OpId::sort; core/src/ops_sort.cpp checks
// and packs). Input [outer, n, inner]; outputs values and int64 positions [outer, k, inner].
// A line is (o, c): n elements, `inner` apart in memory. Elements are ordered by the total
// order of kernels/sort_order.hpp (the CPU kernel's), so both give the same permutation.
//  1. sort_tiles_kernel: one block per tile of up to kTile = 4096 elements of a line. It loads
//     the tile's keys and positions into shared memory (padded to a power of two P; padding
//     sorts last), and runs a bitonic sorting network: log2(P) * (log2(P) + 1) / 2 steps, each
//     a compare-exchange of P / 2 pairs by the block's threads between two __syncthreads. A
//     network compares fixed pairs whatever the data, so it suits a block of threads; it is
//     not stable by itself, but no two elements tie in the total order (positions differ).
//     A line of one tile (n <= 4096: most softmax-sized rows) is done here: the first k are
//     written out, their values read back from the input by position (bits moved as they are).
//  2. merge_runs_kernel, for longer lines: the tiles are sorted runs in global memory (key and
//     position), and each pass merges pairs of runs, doubling their width until one run holds
//     the line. One thread per element: its place in the merged run is its place in its own
//     run plus the number of elements of the other run that come before it, found by binary
//     search. log2(n / 4096) passes, each reading and writing every element.
//  3. write_first_kernel: the first k of each merged line, values read back by position.
// Not the fastest GPU sort: a radix sort (CUB's, which torch.sort uses) moves fewer bytes for
// long lines. Neither kernel has run on a GPU yet: speed predicted in docs/gpu-results.md, not
// measured. Tested by tests/cuda/test_sort.cpp (equal bits to the CPU for every dtype, lines
// of 1 to 3 tiles and more, NaN and ties) on the CPU emulator of CUDA.
#include <algorithm>
#include <cstdint>

#include "../sort_order.hpp"
#include "common.cuh"
#include "dynamic_shared.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

using sort_order::Key;

// Elements a block sorts in shared memory: 4096 * (8-byte key + 4-byte position) = 48 KiB, the
// most a block gets without opting in (positions_offset's rounding adds nothing at 4096).
constexpr int kTile = 4096;

struct LineLayout {
  int64_t n = 0, k = 0;
  FastDivmod inner{1};
};

// Offset of element i of line `line` in an [outer, extent, inner] tensor.
__device__ __forceinline__ int64_t offset_in(const LineLayout& l, int64_t line, int64_t extent,
                                             int64_t i) {
  uint64_t o, c;
  l.inner.divmod(static_cast<uint64_t>(line), o, c);
  const auto width = static_cast<int64_t>(l.inner.divisor);
  return (static_cast<int64_t>(o) * extent + i) * width + static_cast<int64_t>(c);
}

// Where the positions start in a tile's shared memory: after the keys, rounded up to 16
// bytes (2 bool keys end at byte 2, where an int32 may not start; a GPU faults on it).
template <typename K>
WICK_GPU_HD size_t positions_offset(int padded) {
  return (static_cast<size_t>(padded) * sizeof(K) + 15) & ~size_t{15};
}

// Block b sorts tile b % tiles of line b / tiles. With one tile a line, it writes the first k
// to values and positions; otherwise the whole tile to the runs (line-major, n per line).
template <typename T, bool Descending>
__global__ void sort_tiles_kernel(const T* x, LineLayout l, int64_t tiles, int64_t blocks,
                                  int padded, T* values, int64_t* positions, Key<T>* run_keys,
                                  int64_t* run_positions) {
  using K = Key<T>;
  K* keys = reinterpret_cast<K*>(dynamic_shared());
  int32_t* slot_position =
      reinterpret_cast<int32_t*>(dynamic_shared() + positions_offset<K>(padded));
  const auto width = static_cast<int64_t>(l.inner.divisor);
  for (int64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const int64_t line = b / tiles, first = (b % tiles) * kTile;
    const int count = static_cast<int>(l.n - first < kTile ? l.n - first : kTile);
    const T* in = x + offset_in(l, line, l.n, 0);
    for (int i = threadIdx.x; i < padded; i += blockDim.x) {
      keys[i] = i < count ? sort_order::key_of(in[(first + i) * width]) : K{};
      slot_position[i] = i;  // positions >= count are padding, after every element
    }
    // Does slot a's element come before slot b's?
    const auto comes_first = [&](int a, int b) {
      const int pa = slot_position[a], pb = slot_position[b];
      if (pa >= count || pb >= count) return pa < pb;
      return sort_order::before<Descending>(keys[a], pa, keys[b], pb);
    };
    for (int size = 2; size <= padded; size <<= 1) {
      for (int stride = size >> 1; stride > 0; stride >>= 1) {
        __syncthreads();
        for (int t = threadIdx.x; t < padded / 2; t += blockDim.x) {
          const int low = 2 * t - (t & (stride - 1)), high = low + stride;
          const bool ascending_block = (low & size) == 0;
          if (comes_first(high, low) == ascending_block) {
            const K key = keys[low];
            keys[low] = keys[high];
            keys[high] = key;
            const int32_t position = slot_position[low];
            slot_position[low] = slot_position[high];
            slot_position[high] = position;
          }
        }
      }
    }
    __syncthreads();
    if (tiles == 1) {
      for (int j = threadIdx.x; j < l.k; j += blockDim.x) {
        const int64_t at = offset_in(l, line, l.k, j), position = slot_position[j];
        positions[at] = position;
        values[at] = in[position * width];
      }
    } else {
      for (int j = threadIdx.x; j < count; j += blockDim.x) {
        run_keys[line * l.n + first + j] = keys[j];
        run_positions[line * l.n + first + j] = first + slot_position[j];
      }
    }
    __syncthreads();  // the next tile's loads overwrite shared memory
  }
}

// One pass: runs of `run` elements (sorted) -> runs of 2 * run, for every line at once.
template <typename K, bool Descending>
__global__ void merge_runs_kernel(const K* keys_in, const int64_t* positions_in, K* keys_out,
                                  int64_t* positions_out, FastDivmod n_div, int64_t total,
                                  int64_t run) {
  const auto n = static_cast<int64_t>(n_div.divisor);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += stride) {
    uint64_t line_u, p_u;
    n_div.divmod(static_cast<uint64_t>(e), line_u, p_u);
    const int64_t base = static_cast<int64_t>(line_u) * n, p = static_cast<int64_t>(p_u);
    const int64_t own = p / run, own_first = own * run, pair_first = (own & ~int64_t{1}) * run;
    const int64_t other_first = (own & 1) != 0 ? pair_first : pair_first + run;
    const int64_t other_end = other_first + run < n ? other_first + run : n;
    const K key = keys_in[e];
    const int64_t position = positions_in[e];
    // How many of the other run come before this element (none where that run is empty).
    int64_t low = other_first, high = other_end > other_first ? other_end : other_first;
    while (low < high) {
      const int64_t mid = low + (high - low) / 2;
      if (sort_order::before<Descending>(keys_in[base + mid], positions_in[base + mid], key,
                                         position)) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    const int64_t to = base + pair_first + (p - own_first) + (low - other_first);
    keys_out[to] = key;
    positions_out[to] = position;
  }
}

// The first k of each sorted line: element (line, j) for e = line * k + j.
template <typename T>
__global__ void write_first_kernel(const T* x, const int64_t* run_positions, T* values,
                                   int64_t* positions, LineLayout l, FastDivmod k_div,
                                   int64_t total) {
  const auto width = static_cast<int64_t>(l.inner.divisor);
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += stride) {
    uint64_t line, j;
    k_div.divmod(static_cast<uint64_t>(e), line, j);
    const auto ln = static_cast<int64_t>(line);
    const int64_t position = run_positions[ln * l.n + static_cast<int64_t>(j)];
    const int64_t at = offset_in(l, ln, l.k, static_cast<int64_t>(j));
    positions[at] = position;
    values[at] = x[offset_in(l, ln, l.n, 0) + position * width];
  }
}

template <typename T, bool Descending>
void sort_lines(const OpContext& ctx, const OpCall& call, const LineLayout& l, int64_t lines) {
  using K = Key<T>;
  const T* x = static_cast<const T*>(call.in(0).raw_data());
  T* values = static_cast<T*>(call.out(0).raw_data());
  auto* positions = static_cast<int64_t*>(call.out(1).raw_data());
  const int64_t tiles = ceil_div<int64_t>(l.n, kTile);
  int padded = 1;
  while (padded < std::min<int64_t>(l.n, kTile)) padded <<= 1;
  const int threads = std::clamp(padded / 2, kWarpSize, 1024);
  const size_t shared = positions_offset<K>(padded) + static_cast<size_t>(padded) * sizeof(int32_t);
  const int64_t blocks = lines * tiles;
  const unsigned grid = capped_grid(ctx, blocks, threads);
  if (tiles == 1) {
    launch_kernel(ctx, "sort_tiles_kernel", sort_tiles_kernel<T, Descending>, grid, threads, shared,
                  x, l, tiles, blocks, padded, values, positions, static_cast<K*>(nullptr),
                  static_cast<int64_t*>(nullptr));
    return;
  }
  const int64_t total = lines * l.n;
  const auto count = static_cast<size_t>(total);
  DeviceBuffer keys_a(count * sizeof(K), ctx), keys_b(count * sizeof(K), ctx);
  DeviceBuffer positions_a(count * sizeof(int64_t), ctx), positions_b(count * sizeof(int64_t), ctx);
  K* keys[2] = {keys_a.as<K>(), keys_b.as<K>()};
  int64_t* run_positions[2] = {positions_a.as<int64_t>(), positions_b.as<int64_t>()};
  launch_kernel(ctx, "sort_tiles_kernel", sort_tiles_kernel<T, Descending>, grid, threads, shared,
                x, l, tiles, blocks, padded, values, positions, keys[0], run_positions[0]);
  int current = 0;
  const FastDivmod n_div(static_cast<uint64_t>(l.n));
  for (int64_t run = kTile; run < l.n; run *= 2) {
    launch_kernel(ctx, "merge_runs_kernel", merge_runs_kernel<K, Descending>, grid_for(ctx, total),
                  kBlockThreads, 0, keys[current], run_positions[current], keys[1 - current],
                  run_positions[1 - current], n_div, total, run);
    current = 1 - current;
  }
  const int64_t kept = lines * l.k;
  launch_kernel(ctx, "write_first_kernel", write_first_kernel<T>, grid_for(ctx, kept),
                kBlockThreads, 0, x, run_positions[current], values, positions, l,
                FastDivmod(static_cast<uint64_t>(l.k)), kept);
}

}  // namespace

void launch_sort(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& x = call.in(0);
  const GatherLayout packed = gather_layout(x, x, call.dim);  // [outer, n, inner] around dim
  LineLayout l;
  l.n = packed.n;
  l.k = call.ints[0];
  l.inner = FastDivmod(static_cast<uint64_t>(packed.inner));
  const int64_t lines = packed.outer * packed.inner;
  if (lines == 0 || l.k == 0) return;
  const bool descending = call.ints[1] != 0;
  WICK_DISPATCH_STORED(x.dtype(), {
    if (descending) {
      sort_lines<T, true>(ctx, call, l, lines);
    } else {
      sort_lines<T, false>(ctx, call, l, lines);
    }
  })
}

}  // namespace wick::gpu
