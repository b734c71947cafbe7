// sort.cpp: sort and topk on the CPU (one kernel, OpId::sort; core/src/ops_sort.cpp checks and
// packs). Input [outer, n, inner], outputs values and int64 positions [outer, k, inner]. Each
// line (o, c) is copied into a buffer of (key, position) entries, ordered by the total order
// of kernels/sort_order.hpp, and its first k entries written out: the values are read back
// from the input at each position, so every dtype, bfloat16 included, moves as its bits.
//  - k = n (sort) or k >= n / 4, lines of 256 or more: the radix sort of radix_sort.hpp
//    (stable on keys that encode the total order; 3.0-3.5x libtorch's sort of rows of 1024 and
//    of a 2^20-float line, docs/cpu-kernels.md, "sort and topk");
//  - shorter lines: std::sort of the buffer (the order has no ties, so an unstable sort gives
//    the stable result);
//  - k < n (topk): std::nth_element brings the first k to the front in linear time, then
//    std::sort orders those k: n + k log k work instead of n log n;
//  - k <= n / 64 (topk of a few, as PyTorch's choice): a heap of the first k met so far, which
//    most elements pass with one comparison, without copying the line (3.7x faster than
//    nth_element for the top 5 of 1000: docs/cpu-kernels.md, "sort and topk").
// Lines are split over threads, a buffer per thread. A single long line runs on one thread.
// Tested by tests/test_sort.cpp against std::stable_sort of float64 values and by the op sweep.
#include <algorithm>
#include <vector>

#include "../sort_order.hpp"
#include "kernels.hpp"
#include "loops.hpp"
#include "radix_sort.hpp"

namespace wick::cpu {
namespace {

// Lines at least this long are radix sorted (radix_sort.hpp) when most of them is kept.
constexpr int64_t kRadixMinLine = 256;

template <typename T, bool Descending>
void sort_lines(const OpCall& call) {
  using K = sort_order::Key<T>;
  struct Entry {
    K key;
    int64_t position;
  };
  const Tensor& x = call.in(0);
  const int64_t k = call.ints[0];
  // The input as [outer, n, inner] around the dim (dispatch.hpp's packed-layout helper).
  const GatherLayout l = gather_layout(x, x, call.dim);
  const int64_t outer = l.outer, n = l.n, inner = l.inner;
  const T* src = x.data_ptr<T>();
  T* values = call.out(0).data_ptr<T>();
  int64_t* positions = call.out(1).data_ptr<int64_t>();
  const auto comes_first = [](const Entry& a, const Entry& b) {
    return sort_order::before<Descending>(a.key, a.position, b.key, b.position);
  };
  // About n log n steps a line; at least one line a task.
  const int64_t grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1) / 8);
  // A full sort (or most of one) of a line that is not short: the radix sort.
  const bool use_radix =
      n >= kRadixMinLine && k * 4 >= n && (radix::key_bytes<T>() == 8 || n <= (int64_t{1} << 32));
  parallel_for(outer * inner, grain, [&](int64_t first_line, int64_t end_line) {
    std::vector<Entry> entries;
    radix::Scratch scratch;
    std::vector<int64_t> order;
    for (int64_t line = first_line; line < end_line; ++line) {
      const int64_t o = line / inner, c = line % inner;
      const T* in = src + o * n * inner + c;
      const int64_t out_first = o * k * inner + c;
      const auto write = [&](int64_t j, int64_t position) {
        values[out_first + j * inner] = in[position * inner];
        positions[out_first + j * inner] = position;
      };
      if (use_radix) {
        order.resize(static_cast<size_t>(n));
        radix::sort_positions<T, Descending>(in, n, inner, scratch, order.data());
        for (int64_t j = 0; j < k; ++j) write(j, order[j]);
        continue;
      }
      // The heap holds k entries; the other paths copy the whole line.
      const bool few = k > 0 && k * 64 <= n;
      if (entries.size() < static_cast<size_t>(few ? k : n)) entries.resize(few ? k : n);
      const auto kept = entries.begin() + k;
      if (few) {
        // A few of many: a heap of the first k so far, the last of them on top. Most elements
        // do not come before it: one comparison each, and no copy of the line.
        for (int64_t i = 0; i < k; ++i) entries[i] = Entry{sort_order::key_of(in[i * inner]), i};
        std::make_heap(entries.begin(), kept, comes_first);
        for (int64_t i = k; i < n; ++i) {
          const Entry e{sort_order::key_of(in[i * inner]), i};
          if (!comes_first(e, entries.front())) continue;
          std::pop_heap(entries.begin(), kept, comes_first);
          entries[k - 1] = e;
          std::push_heap(entries.begin(), kept, comes_first);
        }
        std::sort_heap(entries.begin(), kept, comes_first);
      } else {
        for (int64_t i = 0; i < n; ++i) entries[i] = Entry{sort_order::key_of(in[i * inner]), i};
        if (k < n) std::nth_element(entries.begin(), kept, entries.end(), comes_first);
        std::sort(entries.begin(), kept, comes_first);
      }
      for (int64_t j = 0; j < k; ++j) write(j, entries[j].position);
    }
  });
}

}  // namespace

void sort_kernel(const OpCall& call) {
  const bool descending = call.ints[1] != 0;
  WICK_DISPATCH_STORED(call.in(0).dtype(), {
    if (descending) {
      sort_lines<T, true>(call);
    } else {
      sort_lines<T, false>(call);
    }
  })
}

}  // namespace wick::cpu
