// reduce.cpp: sum, mean, max and min over any set of dims, with argmax/argmin indices.
// The input's dims split into kept dims (one output each) and reduced dims (walked per
// output). Float sums accumulate in double, in fixed blocks of kBlock elements whose partial
// sums are then added in order: the result is the same for any thread count, and a float32
// sum of 10^8 elements stays within float32 rounding of the float64 reference. Unit-stride
// runs go to vec::sum_* (32 or 16 double lanes, vectorised: 6x to 10x the scalar chain). When the
// kept dims are the contiguous inner ones (a sum over rows, "dim 0 of [R, C]"), each output
// is not walked alone down a column: rows are added into a chunk of double accumulators, in
// row order (outer_reduce). max/min take the first extreme (lowest index) and propagate NaN,
// as PyTorch does. Measured in bench/cpu/ (docs/cpu-kernels.md).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"
#include "vec_kernels.hpp"

namespace wick::cpu {
namespace {

constexpr int64_t kBlock = 16384;

// A set of dims (sizes, strides in elements) walked in row-major order.
struct Dims {
  int n = 0;
  int64_t sizes[Shape::kMaxDims];
  int64_t strides[Shape::kMaxDims];
  int64_t numel = 1;

  void add(int64_t size, int64_t stride) {
    if (size == 1) return;
    // Merge with the previous dim when contiguous with it.
    if (n > 0 && strides[n - 1] == stride * size) {
      sizes[n - 1] *= size;
      strides[n - 1] = stride;
    } else {
      sizes[n] = size;
      strides[n] = stride;
      ++n;
    }
    numel *= size;
  }
  int64_t offset_of(int64_t linear) const {
    int64_t offset = 0;
    for (int d = n - 1; d >= 0; --d) {
      offset += (linear % sizes[d]) * strides[d];
      linear /= sizes[d];
    }
    return offset;
  }
};

template <typename T>
using SumAcc =
    std::conditional_t<std::is_floating_point_v<T> || std::is_same_v<T, BFloat16>, double, int64_t>;

// Calls visit(value, reduced_index) for reduced indices [begin, end) from base.
template <typename T, typename Visit>
void walk(const T* base, const Dims& r, int64_t begin, int64_t end, Visit&& visit) {
  if (r.n == 0) {
    visit(base[0], int64_t{0});
    return;
  }
  if (r.n == 1) {
    const int64_t s = r.strides[0];
    for (int64_t i = begin; i < end; ++i) visit(base[i * s], i);
    return;
  }
  int64_t index[Shape::kMaxDims];
  int64_t rest = begin;
  for (int d = r.n - 1; d >= 0; --d) {
    index[d] = rest % r.sizes[d];
    rest /= r.sizes[d];
  }
  const T* p = base + r.offset_of(begin);
  const int inner = r.n - 1;
  for (int64_t i = begin; i < end; ++i) {
    visit(*p, i);
    p += r.strides[inner];
    if (++index[inner] == r.sizes[inner]) {
      for (int d = inner; d > 0 && index[d] == r.sizes[d]; --d) {
        p += r.strides[d - 1] - r.sizes[d] * r.strides[d];
        index[d] = 0;
        ++index[d - 1];
      }
    }
  }
}

// Calls run(pointer, stride, count) for the runs along the innermost reduced dim that cover
// reduced indices [begin, end) from base, in order.
template <typename T, typename Run>
void walk_runs(const T* base, const Dims& r, int64_t begin, int64_t end, Run&& run) {
  if (r.n == 0) {
    run(base, int64_t{1}, int64_t{1});
    return;
  }
  const int inner = r.n - 1;
  const int64_t inner_size = r.sizes[inner];
  int64_t pos = begin;
  while (pos < end) {
    const int64_t within = pos % inner_size;
    const int64_t count = std::min(inner_size - within, end - pos);
    run(base + r.offset_of(pos), r.strides[inner], count);
    pos += count;
  }
}

// The vec kernel's sum of a unit-stride run of a floating dtype (bfloat16 as float32's sum of
// the widened values: the same lanes, the same order).
template <typename T>
double unit_stride_sum(const T* p, int64_t count) {
  if constexpr (std::is_same_v<T, float>) {
    return vec::sum_f32(p, count);
  } else if constexpr (std::is_same_v<T, double>) {
    return vec::sum_f64(p, count);
  } else {
    static_assert(std::is_same_v<T, BFloat16>);
    return vec::sum_bf16(reinterpret_cast<const uint16_t*>(p), count);
  }
}

template <typename T>
SumAcc<T> sum_range(const T* base, const Dims& r, int64_t begin, int64_t end) {
  SumAcc<T> acc = 0;
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, BFloat16>) {
    walk_runs(base, r, begin, end, [&](const T* p, int64_t stride, int64_t count) {
      if (stride == 1) {
        acc += unit_stride_sum(p, count);
      } else {
        double run_sum = 0;
        for (int64_t i = 0; i < count; ++i) {
          if constexpr (std::is_same_v<T, BFloat16>) {
            run_sum += static_cast<float>(p[i * stride]);
          } else {
            run_sum += static_cast<double>(p[i * stride]);
          }
        }
        acc += run_sum;
      }
    });
  } else if constexpr (std::is_same_v<T, int64_t>) {
    // int64 sums wrap on overflow, as PyTorch's do. Wrapping addition is associative, so runs
    // may be summed in any order: a unit-stride run is a plain loop the compiler vectorises
    // (walk()'s per-element index bookkeeping kept sum() of int64 at 0.5-0.6 of libtorch).
    uint64_t wrap = 0;
    walk_runs(base, r, begin, end, [&](const T* p, int64_t stride, int64_t count) {
      uint64_t run = 0;
      if (stride == 1) {
        for (int64_t i = 0; i < count; ++i) run += static_cast<uint64_t>(p[i]);
      } else {
        for (int64_t i = 0; i < count; ++i) run += static_cast<uint64_t>(p[i * stride]);
      }
      wrap += run;
    });
    acc = static_cast<int64_t>(wrap);
  } else {
    walk(base, r, begin, end, [&](T v, int64_t) { acc += static_cast<SumAcc<T>>(v); });
  }
  return acc;
}

template <typename T>
struct Extreme {
  T value;
  int64_t index = -1;
};

template <typename T, bool kMax>
bool better(T candidate, T best) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(best)) return false;
    if (std::isnan(candidate)) return true;
  }
  return kMax ? candidate > best : candidate < best;
}

// The extreme of the reduced range [begin, end); its index only where want_index (amax and
// amin ask for none).
template <typename T, bool kMax>
Extreme<T> extreme_range(const T* base, const Dims& r, int64_t begin, int64_t end,
                         bool want_index) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    // One unit-stride run (max over the last dim, or over everything): the vectorised lanes.
    // The walk below tests NaN with branches per element: max over the rows of a [1024, 1024]
    // with indices took 1.18-1.64 ms, now 0.50-0.52 (docs/cpu-kernels.md). Without the index
    // the lanes keep no block numbers: amax over the rows of a [1024, 1024] on one Zen 4
    // thread went from 4.0x libtorch's time to 1.3x (docs/cpu-kernels.md, "AVX-512 sums").
    const bool one_run = r.n == 1 && r.strides[0] == 1;
    if (one_run && !want_index && end - begin >= vec::kExtremeValueMinRun) {
      if constexpr (std::is_same_v<T, float>) {
        return {vec::extreme_value_f32(base + begin, end - begin, kMax), -1};
      } else {
        return {vec::extreme_value_f64(base + begin, end - begin, kMax), -1};
      }
    }
    if (one_run) {
      Extreme<T> e{T{}, begin};
      if constexpr (std::is_same_v<T, float>) {
        e.index += vec::extreme_f32(base + begin, end - begin, kMax, &e.value);
      } else {
        e.index += vec::extreme_f64(base + begin, end - begin, kMax, &e.value);
      }
      return e;
    }
  }
  Extreme<T> e{T{}, -1};
  walk(base, r, begin, end, [&](T v, int64_t i) {
    if (e.index < 0 || better<T, kMax>(v, e.value)) e = {v, i};
  });
  return e;
}

// Sum over the reduced range for one output, in fixed blocks combined in order.
template <typename T>
SumAcc<T> blocked_sum(const T* base, const Dims& r, bool parallel) {
  // One short unit-stride run (a row): straight to the kernel, whose result sum_range would
  // add to 0.0 (it is never -0.0). Through walk_runs, rows of 10 spent as long in the calls
  // around the kernel as in it.
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, BFloat16>) {
    if (r.n == 1 && r.strides[0] == 1 && r.numel <= kBlock) return unit_stride_sum(base, r.numel);
  }
  int64_t blocks = (r.numel + kBlock - 1) / kBlock;
  if (blocks <= 1) return sum_range(base, r, 0, r.numel);
  std::vector<SumAcc<T>> partial(static_cast<size_t>(blocks));
  auto run = [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      partial[b] = sum_range(base, r, b * kBlock, std::min(r.numel, (b + 1) * kBlock));
    }
  };
  parallel ? parallel_for(blocks, 1, run) : run(0, blocks);
  SumAcc<T> total = 0;
  if constexpr (std::is_same_v<T, int64_t>) {
    uint64_t wrap = 0;
    for (SumAcc<T> p : partial) wrap += static_cast<uint64_t>(p);
    total = static_cast<int64_t>(wrap);
  } else {
    for (SumAcc<T> p : partial) total += p;
  }
  return total;
}

template <typename T, bool kMax>
Extreme<T> blocked_extreme(const T* base, const Dims& r, bool parallel, bool want_index) {
  int64_t blocks = (r.numel + kBlock - 1) / kBlock;
  if (blocks <= 1) return extreme_range<T, kMax>(base, r, 0, r.numel, want_index);
  std::vector<Extreme<T>> partial(static_cast<size_t>(blocks));
  auto run = [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      partial[b] = extreme_range<T, kMax>(base, r, b * kBlock, std::min(r.numel, (b + 1) * kBlock),
                                          want_index);
    }
  };
  parallel ? parallel_for(blocks, 1, run) : run(0, blocks);
  Extreme<T> best = partial[0];
  for (const Extreme<T>& p : partial) {
    if (better<T, kMax>(p.value, best.value)) best = p;
  }
  return best;
}

// The kept dims end with a unit-stride dim of n_inner outputs; for each index of the kept
// dims before it and each chunk of kChunk outputs, walk the reduced indices in order and fold
// each contiguous row chunk into accumulators. Same order per output for any thread count.
constexpr int64_t kChunk = 512;

// values (and indices, or nullptr) receive the outputs contiguous in kept order.
template <typename T>
void outer_reduce(const OpCall& call, const T* data, const Dims& kept, const Dims& reduced,
                  T* values, int64_t* indices) {
  const int64_t n_inner = kept.sizes[kept.n - 1];
  Dims kept_outer;
  for (int d = 0; d + 1 < kept.n; ++d) kept_outer.add(kept.sizes[d], kept.strides[d]);
  const int64_t chunks = (n_inner + kChunk - 1) / kChunk;
  const int64_t rows = reduced.numel;
  const int inner = reduced.n - 1;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, rows * kChunk));
  parallel_for(kept_outer.numel * chunks, grain, [&](int64_t t0, int64_t t1) {
    double acc[kChunk];
    T best[kChunk];
    int64_t best_index[kChunk];
    for (int64_t task = t0; task < t1; ++task) {
      const int64_t outer = task / chunks, j0 = (task % chunks) * kChunk;
      const int64_t width = std::min(kChunk, n_inner - j0);
      const T* base = data + kept_outer.offset_of(outer) + j0;
      const int64_t out0 = outer * n_inner + j0;  // outputs are contiguous, in kept order
      // Walk the reduced indices in order, with the row pointer stepped like walk().
      int64_t index[Shape::kMaxDims] = {};
      const T* row = base;
      auto next_row = [&] {
        row += reduced.strides[inner];
        if (++index[inner] == reduced.sizes[inner]) {
          for (int d = inner; d > 0 && index[d] == reduced.sizes[d]; --d) {
            row += reduced.strides[d - 1] - reduced.sizes[d] * reduced.strides[d];
            index[d] = 0;
            ++index[d - 1];
          }
        }
      };
      if (call.op == OpId::sum || call.op == OpId::mean) {
        std::fill(acc, acc + width, 0.0);
        bool folded = false;
        if constexpr (std::is_same_v<T, float>) {
          // One reduced dim: its rows at one stride, four at a time (1.6-2.0x slower than
          // libtorch's sum over dim 0 with an acc update per element; docs/cpu-kernels.md).
          if (reduced.n == 1) {
            vec::accumulate_rows_f32(acc, row, reduced.strides[0], rows, width);
            folded = true;
          }
        } else if constexpr (std::is_same_v<T, BFloat16>) {
          if (reduced.n == 1) {
            vec::accumulate_rows_bf16(acc, reinterpret_cast<const uint16_t*>(row),
                                      reduced.strides[0], rows, width);
            folded = true;
          }
        }
        for (int64_t i = 0; i < rows && !folded; ++i, next_row()) {
          if constexpr (std::is_same_v<T, float>) {
            vec::accumulate_f32(acc, row, width);
          } else if constexpr (std::is_same_v<T, double>) {
            vec::accumulate_f64(acc, row, width);
          } else if constexpr (std::is_same_v<T, BFloat16>) {
            vec::accumulate_bf16(acc, reinterpret_cast<const uint16_t*>(row), width);
          }
        }
        const double count = static_cast<double>(rows);
        for (int64_t j = 0; j < width; ++j) {
          values[out0 + j] = static_cast<T>(call.op == OpId::mean ? acc[j] / count : acc[j]);
        }
      } else {
        const bool is_max = call.op == OpId::max;
        for (int64_t j = 0; j < width; ++j) best[j] = row[j];
        std::fill(best_index, best_index + width, int64_t{0});
        next_row();
        for (int64_t i = 1; i < rows; ++i, next_row()) {
          if constexpr (std::is_same_v<T, float>) {
            vec::fold_extreme_f32(best, indices ? best_index : nullptr, row, i, width, is_max);
          } else if constexpr (std::is_same_v<T, double>) {
            vec::fold_extreme_f64(best, indices ? best_index : nullptr, row, i, width, is_max);
          }
        }
        for (int64_t j = 0; j < width; ++j) values[out0 + j] = best[j];
        if (indices) {
          for (int64_t j = 0; j < width; ++j) indices[out0 + j] = best_index[j];
        }
      }
    }
  });
}

// outer_reduce for kept dims of which one, not the last, is unit-stride in the input (the
// batch sum of a transposed [B, N, K] view): that dim is moved last, the rows are folded into
// a buffer in that order, and the buffer is copied to the outputs in kept order. The copy is
// the output's size, a fraction 1 / rows of what is read. Before, each output walked its column
// alone at the batch stride: sum(0) of a [64, 1024, 256] transposed view took 99 ms, 0.77 of
// libtorch's speed on one thread (docs/cpu-kernels.md, "Reductions with a transposed output").
template <typename T>
void outer_reduce_permuted(const OpCall& call, const T* data, const Dims& kept, int unit_dim,
                           const Dims& reduced) {
  Dims moved;  // kept with unit_dim last; dims left in place are not merged (their order holds)
  int64_t out_strides[Shape::kMaxDims];  // per dim of `moved`: its stride in the outputs
  int64_t stride = 1;
  int64_t kept_out_strides[Shape::kMaxDims];
  for (int d = kept.n - 1; d >= 0; --d) {
    kept_out_strides[d] = stride;
    stride *= kept.sizes[d];
  }
  for (int d = 0; d < kept.n; ++d) {
    if (d == unit_dim) continue;
    out_strides[moved.n] = kept_out_strides[d];
    moved.sizes[moved.n] = kept.sizes[d];
    moved.strides[moved.n++] = kept.strides[d];
  }
  out_strides[moved.n] = kept_out_strides[unit_dim];
  moved.sizes[moved.n] = kept.sizes[unit_dim];
  moved.strides[moved.n++] = 1;
  moved.numel = kept.numel;
  const bool want_indices = call.num_outputs > 1;
  std::vector<T> values(static_cast<size_t>(kept.numel));
  std::vector<int64_t> indices(want_indices ? static_cast<size_t>(kept.numel) : 0);
  outer_reduce<T>(call, data, moved, reduced, values.data(),
                  want_indices ? indices.data() : nullptr);
  T* out_values = call.out(0).data_ptr<T>();
  int64_t* out_indices = want_indices ? call.out(1).data_ptr<int64_t>() : nullptr;
  const int inner = moved.n - 1;
  const int64_t n_inner = moved.sizes[inner], inner_out_stride = out_strides[inner];
  for (int64_t outer = 0; outer < kept.numel / n_inner; ++outer) {
    int64_t rest = outer, offset = 0;
    for (int d = inner - 1; d >= 0; --d) {
      offset += (rest % moved.sizes[d]) * out_strides[d];
      rest /= moved.sizes[d];
    }
    const size_t from = static_cast<size_t>(outer * n_inner);
    for (int64_t j = 0; j < n_inner; ++j)
      out_values[offset + j * inner_out_stride] = values[from + j];
    if (out_indices != nullptr) {
      for (int64_t j = 0; j < n_inner; ++j) {
        out_indices[offset + j * inner_out_stride] = indices[from + j];
      }
    }
  }
}

template <typename T>
void run_reduce(const OpCall& call) {
  const Tensor& in = call.in(0);
  const Tensor& out = call.out(0);
  const bool want_indices = call.num_outputs > 1;
  if (in.numel() == 0) {
    // Reducing nothing (the output is not empty: the boundary runs no kernel then): sum is 0
    // and mean is 0/0 = NaN (the boundary rejects max/min). Decided before the dims are
    // merged, since an empty tensor's other sizes and strides may not multiply within int64.
    const T identity = call.op == OpId::mean ? static_cast<T>(NAN) : T(0);
    std::fill(out.data_ptr<T>(), out.data_ptr<T>() + out.numel(), identity);
    return;
  }
  Dims kept, reduced;
  for (int64_t d = 0; d < in.dim(); ++d) {
    (call.ints[d] ? reduced : kept).add(in.sizes()[d], in.strides()[d]);
  }
  const T* data = in.data_ptr<T>();
  T* values = out.data_ptr<T>();
  int64_t* indices = want_indices ? call.out(1).data_ptr<int64_t>() : nullptr;
  const int64_t n_out = kept.numel;
  // Outputs contiguous in the input and rows to fold: the row-wise walk (float and double; the
  // int64 sums keep the general path, whose wrap-around order is the same anyway). From 2
  // outputs: below 16 the general path's scalar column walk made a [256, 10] sum over dim 0 4x
  // slower (docs/cpu-kernels.md, "Reductions over dim 0 of narrow outputs").
  const bool rows_to_fold = kept.n >= 1 && kept.strides[kept.n - 1] == 1 && reduced.n >= 1 &&
                            reduced.strides[reduced.n - 1] != 1 && kept.sizes[kept.n - 1] >= 2;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if (rows_to_fold) {
      outer_reduce<T>(call, data, kept, reduced, values, indices);
      return;
    }
    // The same with the unit-stride kept dim elsewhere than last.
    if (kept.n >= 2 && reduced.n >= 1 && reduced.strides[reduced.n - 1] != 1) {
      for (int d = 0; d + 1 < kept.n; ++d) {
        if (kept.strides[d] == 1) {
          outer_reduce_permuted<T>(call, data, kept, d, reduced);
          return;
        }
      }
    }
  }
  // bfloat16 computes here only sums over a contiguous input: the float32 kernel would walk the
  // widened copy in the same order (folding rows, or along the last dims), so the result has
  // its bits. Other bfloat16 reductions (max and min, strided inputs) run on float32 copies
  // (run_in_float32), as every kernel that does not take bfloat16; a mean is a sum first
  // (bf16_mean).
  if constexpr (std::is_same_v<T, BFloat16>) {
    if (!in.is_contiguous() || call.op != OpId::sum) {
      detail::run_in_float32(reduce_kernel, call, kCPU);
      return;
    }
    if (rows_to_fold) {  // the float32 kernel's outer_reduce, on the widened elements
      outer_reduce<T>(call, data, kept, reduced, values, indices);
      return;
    }
  }
  // Each output a whole unit-stride row (a sum over the last dims of a contiguous input): the
  // rows' sums in batches (vec::sum_rows_f32: four rows at once on AVX-512), with the bits
  // blocked_sum gives each, without its per-output offset and blocking. Sums over the rows of a
  // [16384, 64] took 0.60 of libtorch's speed on one Zen 4 thread (docs/cpu-kernels.md).
  if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, BFloat16>) {
    const bool sum_like = call.op == OpId::sum || call.op == OpId::mean;  // bfloat16: sums only
    if (sum_like && kept.n == 1 && reduced.n == 1 && reduced.strides[0] == 1 &&
        reduced.numel <= kBlock) {
      const int64_t n = reduced.numel, stride = kept.strides[0];
      const bool mean = call.op == OpId::mean;
      parallel_for(n_out, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t o0, int64_t o1) {
        constexpr int64_t kBatch = 256;
        double sums[kBatch];
        for (int64_t b = o0; b < o1; b += kBatch) {
          const int64_t count = std::min(kBatch, o1 - b);
          if constexpr (std::is_same_v<T, float>) {
            vec::sum_rows_f32(data + b * stride, stride, count, n, sums);
          } else {
            for (int64_t i = 0; i < count; ++i) {
              sums[i] = unit_stride_sum(data + (b + i) * stride, n);
            }
          }
          for (int64_t i = 0; i < count; ++i) {
            values[b + i] = static_cast<T>(mean ? sums[i] / static_cast<double>(n) : sums[i]);
          }
        }
      });
      return;
    }
  }
  // Many outputs: one thread per range of outputs. Few: split each output's range instead.
  const bool per_output_parallel = n_out >= 2 * max_threads();
  parallel_for(n_out,
               per_output_parallel
                   ? std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, reduced.numel))
                   : n_out + 1,
               [&](int64_t o0, int64_t o1) {
                 for (int64_t o = o0; o < o1; ++o) {
                   const T* base = data + kept.offset_of(o);
                   switch (call.op) {
                     case OpId::sum:
                       values[o] = static_cast<T>(blocked_sum(base, reduced, !per_output_parallel));
                       break;
                     case OpId::mean:
                       if constexpr (std::is_floating_point_v<T>) {  // bfloat16: bf16_mean
                         values[o] = static_cast<T>(
                             static_cast<double>(blocked_sum(base, reduced, !per_output_parallel)) /
                             static_cast<double>(reduced.numel));
                       }
                       break;
                     case OpId::max:
                     case OpId::min:
                       if constexpr (!std::is_same_v<T, BFloat16>) {
                         Extreme<T> e =
                             call.op == OpId::max
                                 ? blocked_extreme<T, true>(base, reduced, !per_output_parallel,
                                                            want_indices)
                                 : blocked_extreme<T, false>(base, reduced, !per_output_parallel,
                                                             want_indices);
                         values[o] = e.value;
                         if (indices) indices[o] = e.index;
                       }
                       break;
                     default:
                       break;
                   }
                 }
               });
}

// The mean of bfloat16 as PyTorch 1.13 computes it on the CPU (mean_out: sum_out, then div_ by
// the count): the sum rounded to bfloat16, divided by the count as a bfloat16 number (3000
// becomes 3008), rounded again. Checked against python3-torch on five shapes, 0 of 4500
// outputs different; the float32 mean rounded once differed in up to 190 of 1000.
void bf16_mean(const OpCall& call) {
  OpCall sum_call = call;
  sum_call.op = OpId::sum;
  reduce_kernel(sum_call);
  const Tensor& out = call.out(0);  // contiguous
  if (out.numel() == 0) return;
  const int64_t count = call.in(0).numel() / out.numel();
  const float divisor = vec::bf16_to_float(vec::float_to_bf16(static_cast<float>(count)));
  auto* values = static_cast<uint16_t*>(out.raw_data());
  for (int64_t i = 0; i < out.numel(); ++i) {
    values[i] = vec::float_to_bf16(vec::bf16_to_float(values[i]) / divisor);
  }
}

}  // namespace

void reduce_kernel(const OpCall& call) {
  if (call.op == OpId::mean && call.in(0).dtype() == kBFloat16 &&
      call.out(0).dtype() == kBFloat16) {
    bf16_mean(call);
    return;
  }
  if (call.in(0).dtype() == kBFloat16 || call.out(0).dtype() == kBFloat16) {
    if (call.in(0).dtype() == kBFloat16 && call.out(0).dtype() == kBFloat16) {
      run_reduce<BFloat16>(call);
    } else {
      detail::run_in_float32(reduce_kernel, call, kCPU);
    }
    return;
  }
  if (call.op == OpId::mean) {
    WICK_DISPATCH_FLOATING(call.out().dtype(), run_reduce<T>(call))
    return;
  }
  WICK_DISPATCH_ALL(call.out().dtype(), run_reduce<T>(call))
}

}  // namespace wick::cpu
