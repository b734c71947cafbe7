// map_f32.hpp: out = f(in) for float32 and bfloat16 tensors through vec_kernels.cpp's
// multiversioned loops (internal to kernels/cpu: unary.cpp, special.cpp).
#pragma once

#include <type_traits>

#include "loops.hpp"
#include "vec_kernels.hpp"
#include "vec_math.hpp"

namespace wick::cpu {

// out = f(in) computed in float32, unit-stride runs through vec_kernels.cpp's clones (kFloat for
// float32 tensors, kBFloat16 for bfloat16 ones, which widens and rounds in registers), other
// runs through the scalar form, whose bits are the same.
template <typename S, void (*kFloat)(const float*, float*, int64_t),
          void (*kBFloat16)(const uint16_t*, uint16_t*, int64_t), float (*kScalar)(float)>
void map_f32(const Tensor& out, const Tensor& in) {
  using Bits = std::conditional_t<std::is_same_v<S, BFloat16>, uint16_t, float>;
  for_each_strided<2>({&out, &in}, [](char** p, const int64_t* s, int64_t n) {
    const Bits* x = reinterpret_cast<const Bits*>(p[1]);
    Bits* y = reinterpret_cast<Bits*>(p[0]);
    if (s[0] == sizeof(Bits) && s[1] == sizeof(Bits)) {
      if constexpr (std::is_same_v<S, BFloat16>) {
        kBFloat16(x, y, n);
      } else {
        kFloat(x, y, n);
      }
      return;
    }
    for (int64_t j = 0; j < n; ++j) {
      const Bits v = *reinterpret_cast<const Bits*>(p[1] + j * s[1]);
      Bits& r = *reinterpret_cast<Bits*>(p[0] + j * s[0]);
      if constexpr (std::is_same_v<S, BFloat16>) {
        r = vec::float_to_bf16(kScalar(vec::bf16_to_float(v)));
      } else {
        r = kScalar(v);
      }
    }
  });
}

}  // namespace wick::cpu
