// fill_copy.cpp: fill (every element = one value) and copy (elementwise, with a cast between
// any two dtypes, bfloat16 included). Both take any strides; copy's contiguous same-dtype case is a
// memcpy, its transposed same-dtype case goes in tiles (transpose_copy.cpp).
#include <cstring>

#include "kernels.hpp"
#include "loops.hpp"

namespace wick::cpu {

void fill_kernel(const OpCall& call) {
  const Tensor& out = call.out();
  WICK_DISPATCH_ALL(out.dtype(), {
    const T value = call.scalar_a.to<T>();
    map<T>(out, [value]() { return value; }, {});
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
  if (transpose_copy(out, in)) return;
  WICK_DISPATCH_STORED(out.dtype(), {
    using Out = T;
    WICK_DISPATCH_STORED(in.dtype(),
                         { map<Out, T>(out, [](T v) { return convert<Out>(v); }, {&in}); })
  })
}

}  // namespace wick::cpu
