// loops.hpp: the CPU backend's iteration engine. for_each_strided walks NT tensors of one
// shape, each with its own strides, after dropping size-1 dims and merging dims that are
// contiguous for every operand, and hands the body runs along the innermost dim (or blocks of
// whole rows, for a body that takes them). map() builds typed elementwise kernels on it, with a
// plain loop when every operand is contiguous along the rows (which the compiler vectorises),
// the same loop with the value in a register when some inputs repeat one number along them,
// and a strided loop otherwise. parallel_for splits work over wick's thread pool
// (thread_pool.hpp) above kParallelGrain elements; every split is by element index, so results
// never depend on the thread count or on which thread ran a chunk. Measured in
// bench/bench_cpu_ops.cpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

#include "thread_pool.hpp"
#include "vec_math.hpp"
#include "wick/dim_order.hpp"
#include "wick/tensor.hpp"

// map()'s unit-stride loops are compiled three times (GCC target_clones: x86-64-v4, i.e.
// AVX-512; x86-64-v3, AVX2; and the baseline), and the dynamic loader picks the widest the CPU
// runs, as for vec_kernels.cpp. Built for baseline x86-64 alone, a comparison (4-byte floats
// in, 1-byte bools out) took 128 us on 2^20 floats against 56 multiversioned, and where(mask,
// 0, g) 151 against 100 (bench_vs_libtorch, one thread; docs/cpu-kernels.md). Every clone must
// round as the scalar code, and GCC contracts a * b + c into an FMA in the AVX2 and AVX-512 clones
// even in ISO C++ mode, so every file that calls map() is built with -ffp-contract=off
// (kernels/CMakeLists.txt lists them: binary.cpp, unary.cpp, fill_copy.cpp; a new caller must be
// added there).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define WICK_MAP_CLONES \
  __attribute__((noinline, target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define WICK_MAP_CLONES [[gnu::noinline]]
#endif

namespace wick::cpu {

// Below this many elements a loop runs on one thread: waking a worker costs about as much as
// adding 2^15 floats on this machine (see docs/cpu-kernels.md).
inline constexpr int64_t kParallelGrain = 32768;

// The threads a parallel loop may use: wick::set_num_threads' number, else the default
// (threads.cpp).
int max_threads();
// The CPUs this process may run on (its affinity mask, read once): the most threads that can
// run at once, which bounds the GEMM's team where set_num_threads asks for more.
int available_cpus();

// Calls body(begin, end) over [0, n) in contiguous chunks, one per thread when n is large.
template <typename Body>
void parallel_for(int64_t n, int64_t grain, const Body& body) {
  if (n <= 0) return;
  const int threads = max_threads();
  if (threads > 1 && n >= 2 * grain && !in_parallel_region()) {
    const int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
    run_chunks(chunks, [&](int64_t c) { body(n * c / chunks, n * (c + 1) / chunks); });
    return;
  }
  body(0, n);
}

// The split of the index ops that add in index order (index_add, scatter_add): tasks of (outer
// block o, column range [c0, c1) of `inner`), each of which walks all n index positions, so
// every output element belongs to one task and is added to in order. Columns per task: at
// least 64, or enough for kParallelGrain terms; a task of few terms stays on one thread.
template <typename Body>
void parallel_columns(int64_t outer, int64_t inner, int64_t n, const Body& body) {
  const int64_t per_task =
      std::min(inner, std::max<int64_t>(64, kParallelGrain / std::max<int64_t>(n, 1)));
  if (per_task <= 0) return;
  const int64_t tasks_per_block = (inner + per_task - 1) / per_task;
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(1, n * per_task));
  parallel_for(outer * tasks_per_block, grain, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t c0 = (t % tasks_per_block) * per_task;
      body(t / tasks_per_block, c0, std::min(inner, c0 + per_task));
    }
  });
}

// The shape and per-operand byte strides after size-1 dims are dropped, the dims put in memory
// order and mergeable dims merged; dims are ordered outermost first.
template <size_t NT>
struct Layout {
  int ndim = 0;
  int64_t sizes[Shape::kMaxDims];
  int64_t strides[NT][Shape::kMaxDims];  // bytes
  char* base[NT];
  int64_t numel = 1;
};

template <size_t NT>
Layout<NT> make_layout(const std::array<const Tensor*, NT>& ts) {
  Layout<NT> l;
  const Shape& sizes = ts[0]->sizes();
  for (size_t k = 0; k < NT; ++k) l.base[k] = static_cast<char*>(ts[k]->raw_data());
  // Tensor::numel() answers 0 for any 0 among the sizes without multiplying past int64. An
  // empty operand has nothing to walk, and its byte strides may be past int64
  // ([3, 0, 2^63 - 1]): they are never multiplied out.
  l.numel = ts[0]->numel();
  if (l.numel == 0) return l;
  // Dims walked in memory order (wick/dim_order.hpp): row-major when the output is contiguous,
  // else sorted by the output's strides, then the inputs'. An output laid out as x.t() (as
  // exp(x.t()) is) is walked along its columns, where every operand steps one element.
  int order[Shape::kMaxDims];
  const size_t ndim = sizes.size();
  if (ndim > 1 && !ts[0]->is_contiguous()) {
    std::array<const Shape*, NT> strides;
    for (size_t k = 0; k < NT; ++k) strides[k] = &ts[k]->strides();
    int fastest_first[Shape::kMaxDims];
    detail::fastest_dims_first(sizes, strides.data(), NT, fastest_first);
    for (size_t i = 0; i < ndim; ++i) order[i] = fastest_first[ndim - 1 - i];
  } else {
    for (size_t i = 0; i < ndim; ++i) order[i] = static_cast<int>(i);
  }
  for (size_t i = 0; i < ndim; ++i) {
    const size_t d = static_cast<size_t>(order[i]);
    if (sizes[d] == 1) continue;
    // Merge into the previous kept dim when, for every operand, it is contiguous with it.
    bool merge = l.ndim > 0;
    for (size_t k = 0; k < NT && merge; ++k) {
      int64_t elem = static_cast<int64_t>(ts[k]->element_size());
      merge = l.strides[k][l.ndim - 1] == ts[k]->strides()[d] * elem * sizes[d];
    }
    if (merge) {
      l.sizes[l.ndim - 1] *= sizes[d];
      for (size_t k = 0; k < NT; ++k) {
        l.strides[k][l.ndim - 1] =
            ts[k]->strides()[d] * static_cast<int64_t>(ts[k]->element_size());
      }
    } else {
      l.sizes[l.ndim] = sizes[d];
      for (size_t k = 0; k < NT; ++k) {
        l.strides[k][l.ndim] = ts[k]->strides()[d] * static_cast<int64_t>(ts[k]->element_size());
      }
      ++l.ndim;
    }
  }
  return l;
}

// Calls run(ptrs, inner_strides, count) for runs of up to `count` elements along the
// innermost dim, covering every element of the operands once.
//
// A `run` that also takes (row_strides, rows) is given whole blocks instead: `rows` runs of the
// full innermost dim, the second starting row_strides[k] bytes after the first, and so on
// (rows is 1 for a partial run, and row_strides then is not to be used). map() loops over the
// rows inside its multiversioned clones: [64,128,1] + [1,128,128] made 8192 calls of 128
// elements, each through the ifunc, the checks of the strides and the carry below, and took
// 1.3x the time of a plain loop over the same rows (docs/cpu-kernels.md).
template <size_t NT, typename Run>
void for_each_strided(const std::array<const Tensor*, NT>& ts, const Run& run) {
  constexpr bool kRows = requires(char** p, const int64_t* s, int64_t n) { run(p, s, n, s, n); };
  // One run of `count` elements: to run() as one row when it takes rows.
  const auto run_one = [&](char** p, const int64_t* s, int64_t count) {
    if constexpr (kRows) {
      run(p, s, count, s, int64_t{1});
    } else {
      run(p, s, count);
    }
  };
  Layout<NT> l = make_layout(ts);
  if (l.numel == 0) return;
  if (l.ndim == 0) {
    std::array<int64_t, NT> zero{};
    run_one(l.base, zero.data(), int64_t{1});
    return;
  }
  const int inner = l.ndim - 1;
  const int64_t inner_size = l.sizes[inner];
  std::array<int64_t, NT> inner_strides, row_strides{};
  for (size_t k = 0; k < NT; ++k) inner_strides[k] = l.strides[k][inner];
  if (inner > 0) {
    for (size_t k = 0; k < NT; ++k) row_strides[k] = l.strides[k][inner - 1];
  }
  parallel_for(l.numel, kParallelGrain, [&](int64_t begin, int64_t end) {
    // Multi-index of `begin`, and the pointers there.
    int64_t index[Shape::kMaxDims];
    int64_t rest = begin;
    char* ptrs[NT];
    for (size_t k = 0; k < NT; ++k) ptrs[k] = l.base[k];
    for (int d = inner; d >= 0; --d) {
      index[d] = rest % l.sizes[d];
      rest /= l.sizes[d];
      for (size_t k = 0; k < NT; ++k) ptrs[k] += index[d] * l.strides[k][d];
    }
    // Dims from d outwards that reached their size wrap to 0 and step the dim outside them.
    const auto carry_from = [&](int d) {
      for (; d > 0 && index[d] == l.sizes[d]; --d) {
        for (size_t k = 0; k < NT; ++k) {
          ptrs[k] += l.strides[k][d - 1] - l.sizes[d] * l.strides[k][d];
        }
        index[d] = 0;
        ++index[d - 1];
      }
    };
    int64_t pos = begin;
    while (pos < end) {
      if constexpr (kRows) {
        // Whole rows from here along the next dim out, up to its end or the chunk's.
        const int64_t rows =
            inner > 0 && index[inner] == 0
                ? std::min(l.sizes[inner - 1] - index[inner - 1], (end - pos) / inner_size)
                : 0;
        if (rows > 1) {
          run(ptrs, inner_strides.data(), inner_size, row_strides.data(), rows);
          pos += rows * inner_size;
          for (size_t k = 0; k < NT; ++k) ptrs[k] += rows * row_strides[k];
          index[inner - 1] += rows;
          carry_from(inner - 1);
          continue;
        }
      }
      int64_t count = std::min(inner_size - index[inner], end - pos);
      run_one(ptrs, inner_strides.data(), count);
      pos += count;
      // Advance to the start of the next run: step the inner index, then carry outwards.
      for (size_t k = 0; k < NT; ++k) ptrs[k] += count * l.strides[k][inner];
      index[inner] += count;
      carry_from(inner);
    }
  });
}

// map()'s path for inputs of stride 0 (and add-with-alpha's) takes runs of at least this many
// elements; shorter runs stay in the strided loop.
inline constexpr int64_t kMinSplatRun = 64;

// Input K's element j: the value held in a register when bit K of Repeated is set.
template <unsigned Repeated, size_t K, typename T>
T element(const T* p, T value, int64_t j) {
  if constexpr (((Repeated >> K) & 1u) != 0) {
    return value;
  } else {
    return p[j];
  }
}

// `rows` rows of n elements, row r of operand k at p[k] + r * rs[k] (rs is not read for one
// row), where the inputs of bit K in Repeated repeat one value along the row (stride 0).
template <unsigned Repeated, typename Out, typename... In, typename Fn, size_t... K>
[[gnu::always_inline]] inline void map_repeated_loop(const Fn& fn, char** p, const int64_t* rs,
                                                     int64_t n, int64_t rows,
                                                     std::index_sequence<K...>) {
  for (int64_t r = 0; r < rows; ++r) {
    Out* o = reinterpret_cast<Out*>(p[0] + r * rs[0]);
    const std::tuple<const In*...> ip{reinterpret_cast<const In*>(p[K + 1] + r * rs[K + 1])...};
    const std::tuple<In...> values{*std::get<K>(ip)...};
    for (int64_t j = 0; j < n; ++j) {
      o[j] = fn(element<Repeated, K>(std::get<K>(ip), std::get<K>(values), j)...);
    }
  }
}

// map()'s rows where some inputs repeat one value (stride 0) and the others are contiguous: one
// loop per pattern of repeated inputs, the value in a register, so it vectorises as the
// contiguous loop does and a select stays branch-free. (A buffer holding the value in memory
// made a * 0.5 take 103-160 us from build to build, same instructions, samples on the store.)
template <typename Out, typename... In, typename Fn>
WICK_MAP_CLONES void map_repeated_run(const Fn& fn, char** p, const int64_t* s, const int64_t* rs,
                                      int64_t n, int64_t rows) {
  unsigned repeated = 0;
  for (size_t k = 0; k < sizeof...(In); ++k) repeated |= (s[k + 1] == 0 ? 1u : 0u) << k;
  // The lambda is inlined by force: a lambda left as its own function is compiled for the
  // baseline target, not for the clone that calls it (where's loop stayed at SSE speed).
  [&]<unsigned... M>(std::integer_sequence<unsigned, M...>) __attribute__((always_inline)) {
    (void)((repeated == M ? (map_repeated_loop<M, Out, In...>(fn, p, rs, n, rows,
                                                              std::index_sequence_for<In...>{}),
                             true)
                          : false) ||
           ...);
  }
  (std::make_integer_sequence<unsigned, 1u << sizeof...(In)>{});
}

// map()'s loop where every operand is contiguous along the rows (rows as map_repeated_loop's).
template <typename Out, typename... In, typename Fn>
[[gnu::always_inline]] inline void map_contiguous_loop(const Fn& fn, char** p, const int64_t* rs,
                                                       int64_t n, int64_t rows) {
  [&]<size_t... K>(std::index_sequence<K...>) __attribute__((always_inline)) {
    for (int64_t r = 0; r < rows; ++r) {
      Out* o = reinterpret_cast<Out*>(p[0] + r * rs[0]);
      const std::tuple<const In*...> ip{reinterpret_cast<const In*>(p[K + 1] + r * rs[K + 1])...};
      for (int64_t j = 0; j < n; ++j) o[j] = fn(std::get<K>(ip)[j]...);
    }
  }
  (std::index_sequence_for<In...>{});
}
// The same loop, multiversioned, for blocks long enough to pay for the call through the ifunc:
// runs of 2 or 3 elements (a slice of a few columns) measured 9-23% slower through it.
inline constexpr int64_t kMinCloneRun = 32;
template <typename Out, typename... In, typename Fn>
WICK_MAP_CLONES void map_contiguous_run(const Fn& fn, char** p, const int64_t* rs, int64_t n,
                                        int64_t rows) {
  map_contiguous_loop<Out, In...>(fn, p, rs, n, rows);
}

// out[i] = fn(in[i]...) elementwise, with Out and In the C++ element types.
template <typename Out, typename... In, typename Fn>
void map(const Tensor& out, const Fn& fn, const std::array<const Tensor*, sizeof...(In)>& in) {
  constexpr size_t NT = 1 + sizeof...(In);
  std::array<const Tensor*, NT> ts;
  ts[0] = &out;
  for (size_t k = 0; k < sizeof...(In); ++k) ts[k + 1] = in[k];
  constexpr std::array<int64_t, NT> sizes_of{static_cast<int64_t>(sizeof(Out)),
                                             static_cast<int64_t>(sizeof(In))...};
  for_each_strided<NT>(
      ts, [&](char** p, const int64_t* s, int64_t n, const int64_t* rs, int64_t rows) {
        bool contiguous = true;
        for (size_t k = 0; k < NT; ++k) contiguous = contiguous && s[k] == sizes_of[k];
        // Runs of repeated inputs go to map_repeated_run from kMinSplatRun elements; shorter ones
        // (an [N, 2] op with an [N, 1] operand) stay in the strided loop, 8x faster for them than
        // the chunked buffer it replaced.
        auto repeats_only = [&] {
          bool ok = n >= kMinSplatRun && s[0] == sizes_of[0];
          for (size_t k = 1; k < NT; ++k) ok = ok && (s[k] == sizes_of[k] || s[k] == 0);
          return ok;
        };
        if (contiguous && n * rows < kMinCloneRun) {
          map_contiguous_loop<Out, In...>(fn, p, rs, n, rows);
        } else if (contiguous) {
          map_contiguous_run<Out, In...>(fn, p, rs, n, rows);
        } else if (repeats_only()) {
          map_repeated_run<Out, In...>(fn, p, s, rs, n, rows);
        } else {
          [&]<size_t... K>(std::index_sequence<K...>) {
            for (int64_t r = 0; r < rows; ++r) {
              char* const o = p[0] + r * rs[0];
              [[maybe_unused]] const std::array<const char*, sizeof...(In)> q{p[K + 1] +
                                                                              r * rs[K + 1]...};
              for (int64_t j = 0; j < n; ++j) {
                *reinterpret_cast<Out*>(o + j * s[0]) =
                    fn(*reinterpret_cast<const In*>(q[K] + j * s[K + 1])...);
              }
            }
          }
          (std::index_sequence_for<In...>{});
        }
      });
}

// bfloat16 elementwise ops compute in float32 and round once, as PyTorch does on the CPU.
// Kernels instantiated for a storage type S take S's values, and compute_t<S> is the type their
// arithmetic runs in: float for bfloat16, S itself otherwise. in_compute_type<S>(fn) adapts a
// lambda written for compute_t<S> to S's elements: for bfloat16 it widens each operand
// (exactly: a shift) and rounds a float result (ties to even; a bool result stays a bool),
// inside map()'s loop, so the conversions stay in registers and vectorise with the arithmetic.
// (Before, run_kernel widened whole tensors and narrowed the result: three passes over memory
// and two temporary tensors, 3.96-4.42x libtorch's time for [1024, 1024] ops; docs/cpu-kernels.md.)
template <typename S>
using compute_t = std::conditional_t<std::is_same_v<S, BFloat16>, float, S>;

//
// kExact: fn's result is always one of its operands, or its negation or absolute value (relu,
// neg, abs, maximum, minimum), so it is a bfloat16 value already and its low 16 bits are zero:
// the narrowing keeps the high half instead of rounding (bf16 relu took 1.41-1.46x libtorch's
// time with the rounding's adds and NaN select).
template <typename S, bool kExact = false, typename Fn>
auto in_compute_type(const Fn& fn) {
  if constexpr (!std::is_same_v<S, BFloat16>) {
    return fn;
  } else {
    return [fn](auto... x) __attribute__((always_inline)) {
      using Result = decltype(fn(vec::bf16_to_float(x.bits)...));
      if constexpr (std::is_same_v<Result, float> && kExact) {
        return BFloat16::from_bits(
            static_cast<uint16_t>(vec::float_bits(fn(vec::bf16_to_float(x.bits)...)) >> 16));
      } else if constexpr (std::is_same_v<Result, float>) {
        return BFloat16::from_bits(vec::float_to_bf16(fn(vec::bf16_to_float(x.bits)...)));
      } else {
        return fn(vec::bf16_to_float(x.bits)...);
      }
    };
  }
}

// Converts between element types the way PyTorch does on x86: floating -> integer truncates,
// and NaN or out-of-range values become INT64_MIN (what cvttsd2si gives) instead of UB.
// bfloat16 converts through float32, as c10::BFloat16 does.
template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same_v<From, BFloat16> && !std::is_same_v<To, BFloat16>) {
    return convert<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, BFloat16> && !std::is_same_v<From, BFloat16>) {
    return BFloat16::from_bits(vec::float_to_bf16(static_cast<float>(v)));  // vectorises
  } else if constexpr (std::is_same_v<To, int64_t> && std::is_floating_point_v<From>) {
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return INT64_MIN;
    return static_cast<int64_t>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace wick::cpu
