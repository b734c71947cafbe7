// fill_copy.cpp: fill (every element = one value), arange, and copy (elementwise, with a cast
// between any two dtypes, bfloat16 included). fill and copy take any strides, arange writes a
// contiguous 1-D result; copy's contiguous same-dtype
// case is a memcpy, its contiguous float -> int64 case a vec_cast.cpp loop, its transposed
// same-dtype case goes in tiles (transpose_copy.cpp).
#include <cstring>

#include "kernels.hpp"
#include "loops.hpp"
#include "vec_kernels.hpp"

namespace wick::cpu {

void fill_kernel(const OpCall& call) {
  const Tensor& out = call.out();
  WICK_DISPATCH_ALL(out.dtype(), {
    const T value = call.scalar_a.to<T>();
    map<T>(out, [value]() { return value; }, {});
  })
}

namespace {
// out[i] = start + i * step for i in [b, e), each value rounded once to T. The numbers come in
// as parameters: read through a lambda's captures instead, a store through `out` might alias
// them, and GCC kept the step in memory and the loop scalar (301 us for 2^20 int64 values on
// one thread, against 84 us for full()). Both loops come in loops.hpp's three clones (AVX-512,
// AVX2, baseline), which round the same.
template <typename T>
WICK_MAP_CLONES void arange_doubles(T* out, int64_t b, int64_t e, double start, double step) {
  // i = b + j with j an int32 induction variable, converted to double per element (SSE2 has
  // that conversion; none from int64, and a double induction variable does not vectorise
  // without reassociation): 1137 us for 2^20 float32 values as a running double, 420 with an
  // int64 -> float conversion per element, whose cvtsi2ss waits on its target register.
  while (b < e) {
    const double base = static_cast<double>(b);
    const auto count = static_cast<int32_t>(std::min<int64_t>(e - b, INT32_MAX));
    T* dst = out + b;
    for (int32_t j = 0; j < count; ++j) {
      dst[j] = static_cast<T>(start + (base + static_cast<double>(j)) * step);
    }
    b += count;
  }
}
template <typename T>
WICK_MAP_CLONES void arange_int64s(T* out, int64_t b, int64_t e, uint64_t start, uint64_t step) {
  // A running sum in uint64 (wrapping: every value lies between start and end, but i * step
  // alone may overflow), so no 64-bit vector multiply is needed.
  uint64_t value = start + static_cast<uint64_t>(b) * step;
  for (int64_t i = b; i < e; ++i, value += step)
    out[i] = static_cast<T>(static_cast<int64_t>(value));
}
}  // namespace

// Element i = start + i * step (dispatch.hpp): int64 numbers count in int64, doubles in
// double, as factories.cpp's arange did on the host before 2026-12-04 (one thread, then a copy
// to the device).
void arange_kernel(const OpCall& call) {
  const Tensor& out = call.out();
  const int64_t n = out.numel();
  WICK_DISPATCH_ALL(out.dtype(), {
    T* p = out.data_ptr<T>();
    if (call.scalar_a.is_floating()) {
      const double start = call.scalar_a.to_double(), step = call.scalar_b.to_double();
      parallel_for(n, kParallelGrain,
                   [=](int64_t b, int64_t e) { arange_doubles(p, b, e, start, step); });
      return;
    }
    const int64_t start = call.scalar_a.to_int64(), step = call.scalar_b.to_int64();
    const auto last = static_cast<int64_t>(
        static_cast<uint64_t>(start) + static_cast<uint64_t>(n - 1) * static_cast<uint64_t>(step));
    constexpr int64_t kExact = int64_t{1} << 52;  // start, last and every i * step exact in double
    if constexpr (std::is_floating_point_v<T>) {
      if (start > -kExact && start < kExact && last > -kExact && last < kExact) {
        const auto start_d = static_cast<double>(start), step_d = static_cast<double>(step);
        parallel_for(n, kParallelGrain,
                     [=](int64_t b, int64_t e) { arange_doubles(p, b, e, start_d, step_d); });
        return;
      }
    }
    parallel_for(n, kParallelGrain, [=](int64_t b, int64_t e) {
      arange_int64s(p, b, e, static_cast<uint64_t>(start), static_cast<uint64_t>(step));
    });
  })
}

void copy_kernel(const OpCall& call) {
  const Tensor& out = call.out();
  const Tensor& in = call.in(0);
  if (out.dtype() == in.dtype() && out.is_contiguous() && in.is_contiguous()) {
    char* dst = static_cast<char*>(out.raw_data());
    const char* src = static_cast<const char*>(in.raw_data());
    size_t elem = out.element_size();
    parallel_for(out.numel(), kParallelGrain * 4, [&](int64_t b, int64_t e) {
      std::memcpy(dst + b * elem, src + b * elem, (e - b) * elem);
    });
    return;
  }
  if (out.dtype() == Dtype::Int64 && out.is_contiguous() && in.is_contiguous() &&
      (in.dtype() == Dtype::Float32 || in.dtype() == Dtype::Float64)) {
    auto* dst = static_cast<int64_t*>(out.raw_data());
    const void* src = in.raw_data();
    const bool f32 = in.dtype() == Dtype::Float32;
    parallel_for(out.numel(), kParallelGrain * 4, [=](int64_t b, int64_t e) {
      if (f32)
        vec::cast_f32_i64(static_cast<const float*>(src) + b, dst + b, e - b);
      else
        vec::cast_f64_i64(static_cast<const double*>(src) + b, dst + b, e - b);
    });
    return;
  }
  if (transpose_copy(out, in)) return;
  WICK_DISPATCH_STORED(out.dtype(), {
    using Out = T;
    WICK_DISPATCH_STORED(in.dtype(),
                         { map<Out, T>(out, [](T v) { return convert<Out>(v); }, {&in}); })
  })
}

}  // namespace wick::cpu
