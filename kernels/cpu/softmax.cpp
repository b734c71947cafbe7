// softmax.cpp: softmax and log_softmax along one dim. Each row (the elements along `dim` for
// one index of the other dims) takes three passes: max, sum of exp(x - max) in double, write.
// Subtracting the max keeps exp from overflowing; rows run in parallel. A float32 row with
// unit stride (softmax over the last dim) goes to vec::softmax_rows_f32: a max, the exps
// written once (vectorised exp, vec_math.hpp, 2 ulp), summed in double and rescaled; about 10x
// the scalar path on Zen 4 (docs/cpu-kernels.md).
#include <cmath>
#include <limits>
#include <vector>

#include "kernels.hpp"
#include "loops.hpp"
#include "vec_kernels.hpp"

namespace wick::cpu {
namespace {

template <typename T>
void run_softmax(const OpCall& call) {
  const Tensor& in = call.in(0);
  const Tensor& out = call.out();  // contiguous
  const int64_t dim = call.dim;
  const int64_t n = in.sizes()[dim];
  const int64_t in_stride = in.strides()[dim];
  const int64_t out_stride = out.strides()[dim];
  const int64_t rows = in.numel() / n;
  const bool log_form = call.op == OpId::log_softmax;
  const T* src = in.data_ptr<T>();
  T* dst = out.data_ptr<T>();
  // Offsets of row r: unravel r over the dims other than `dim`.
  auto row_offset = [&](const Tensor& t, int64_t r) {
    int64_t offset = 0;
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (d == dim) continue;
      offset += (r % t.sizes()[d]) * t.strides()[d];
      r /= t.sizes()[d];
    }
    return offset;
  };
  if constexpr (std::is_same_v<T, float>) {
    // A contiguous input with `dim` not last: `inner` rows side by side at stride `inner`,
    // taken kSoftmaxColumns at a time (vectorised across them) instead of one strided row
    // at a time with double exps (5-7x slower than libtorch: docs/cpu-kernels.md).
    // (n > 1: the stride of a dim of size 1 is anything, and says nothing of the dims after.)
    if (in_stride != 1 && n > 1 && in.is_contiguous()) {
      const int64_t inner = in_stride, outer = rows / inner;
      const int64_t blocks = (inner + vec::kSoftmaxColumns - 1) / vec::kSoftmaxColumns;
      const int64_t per_task = n * vec::kSoftmaxColumns;
      parallel_for(outer * blocks, std::max<int64_t>(1, kParallelGrain / per_task),
                   [&](int64_t t0, int64_t t1) {
                     for (int64_t task = t0; task < t1; ++task) {
                       const int64_t o = task / blocks;
                       const int64_t j0 = (task % blocks) * vec::kSoftmaxColumns;
                       const int64_t offset = o * n * inner + j0;
                       vec::softmax_columns_f32(src + offset, dst + offset, n, inner,
                                                std::min(vec::kSoftmaxColumns, inner - j0),
                                                log_form);
                     }
                   });
      return;
    }
  }
  if constexpr (std::is_same_v<T, float>) {
    // Rows one after another: row r at r * n, no unravelling (two divisions per dim per row
    // and operand; log_softmax over rows of 64 went 981 -> 929 us for 16384 rows on one Zen 5
    // thread, bench/survey_vs_libtorch).
    if (in_stride == 1 && in.is_contiguous()) {
      parallel_for(rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1)),
                   [&](int64_t r0, int64_t r1) {
                     vec::softmax_rows_f32(src + r0 * n, dst + r0 * n, r1 - r0, n, log_form);
                   });
      return;
    }
  }
  parallel_for(
      rows, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1)),
      [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const T* x = src + row_offset(in, r);
          T* y = dst + row_offset(out, r);
          if constexpr (std::is_same_v<T, float>) {
            if (in_stride == 1 && out_stride == 1) {
              vec::softmax_rows_f32(x, y, 1, n, log_form);
              continue;
            }
          }
          T max_value = -std::numeric_limits<T>::infinity();
          for (int64_t i = 0; i < n; ++i) {
            T v = x[i * in_stride];
            max_value = v > max_value ? v : max_value;
          }
          // A row of all -inf: shift by 0, so exp gives 0s and the row becomes 0/0 = nan, as in
          // PyTorch. NaN inputs flow through exp and the sum into every output of their row.
          if (max_value == -std::numeric_limits<T>::infinity()) max_value = 0;
          double total = 0;
          for (int64_t i = 0; i < n; ++i)
            total += std::exp(static_cast<double>(x[i * in_stride] - max_value));
          if (log_form) {
            const double log_total = std::log(total);
            for (int64_t i = 0; i < n; ++i) {
              y[i * out_stride] =
                  static_cast<T>(static_cast<double>(x[i * in_stride] - max_value) - log_total);
            }
          } else {
            const double inv = 1.0 / total;
            for (int64_t i = 0; i < n; ++i) {
              y[i * out_stride] =
                  static_cast<T>(std::exp(static_cast<double>(x[i * in_stride] - max_value)) * inv);
            }
          }
        }
      });
}

// bfloat16, contiguous: the float32 code above on bfloat16 elements (vec::softmax_*_bf16: each
// element widened where it is read, each output rounded where it is written, exp(x - max) in a
// float32 scratch per task), instead of run_in_float32's whole copies, which cost three more
// passes over memory (0.73-0.94 of libtorch's speed over rows of 1024 before, one thread). The
// bits are those of softmax on the float32 copy, rounded. Other layouts get whole float32 copies.
void run_softmax_bf16(const OpCall& call) {
  const Tensor& in = call.in(0);
  const Tensor& out = call.out();  // contiguous
  const int64_t n = in.sizes()[call.dim];
  if (!in.is_contiguous() || in.numel() == 0) {
    detail::run_in_float32(softmax_kernel, call, kCPU);
    return;
  }
  const bool log_form = call.op == OpId::log_softmax;
  const auto* src = reinterpret_cast<const uint16_t*>(in.data_ptr<BFloat16>());
  auto* dst = reinterpret_cast<uint16_t*>(out.data_ptr<BFloat16>());
  const int64_t inner = in.strides()[call.dim], rows = in.numel() / n;
  if (inner == 1 || n == 1) {  // rows of n one after another
    parallel_for(rows, std::max<int64_t>(1, kParallelGrain / n), [&](int64_t r0, int64_t r1) {
      std::vector<float> scratch(static_cast<size_t>(vec::softmax_rows_scratch(n)));
      vec::softmax_rows_bf16(src + r0 * n, dst + r0 * n, scratch.data(), r1 - r0, n, log_form);
    });
    return;
  }
  // `inner` rows side by side at stride `inner`, kSoftmaxColumns of them per task.
  const int64_t outer = rows / inner;
  const int64_t blocks = (inner + vec::kSoftmaxColumns - 1) / vec::kSoftmaxColumns;
  const int64_t per_task = n * vec::kSoftmaxColumns;
  parallel_for(outer * blocks, std::max<int64_t>(1, kParallelGrain / per_task),
               [&](int64_t t0, int64_t t1) {
                 std::vector<float> scratch(static_cast<size_t>(per_task));
                 for (int64_t task = t0; task < t1; ++task) {
                   const int64_t o = task / blocks;
                   const int64_t j0 = (task % blocks) * vec::kSoftmaxColumns;
                   const int64_t offset = o * n * inner + j0;
                   vec::softmax_columns_bf16(src + offset, dst + offset, scratch.data(), n, inner,
                                             std::min(vec::kSoftmaxColumns, inner - j0), log_form);
                 }
               });
}

}  // namespace

void softmax_kernel(const OpCall& call) {
  if (call.out().dtype() == kBFloat16) {
    run_softmax_bf16(call);
    return;
  }
  WICK_DISPATCH_FLOATING(call.out().dtype(), run_softmax<T>(call))
}

}  // namespace wick::cpu
