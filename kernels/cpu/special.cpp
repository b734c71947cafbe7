// special.cpp: asinh, acosh, atanh, erfc, erfinv, exp2, lgamma, digamma and polygamma on the CPU
// (core/src/ops_elementwise.cpp's unary boundary sends floating tensors only; bfloat16 arrives
// as float32). Every element is computed in float64 and rounded once, so float32 results are
// within half an ulp of the float64 function's: libm's asinh, acosh, atanh, erfc, exp2 and
// lgamma (lgamma_r, which leaves glibc's global signgam alone, so threads don't race on it), and
// kernels/special_math.hpp's erfinv, digamma and polygamma, which the CUDA kernel
// (kernels/cuda/special.cu) shares. One libm call per element, not vectorised, except float32
// erfc and erfinv: vec_math.hpp's straight-line forms in double (erfc a fit within 1e-10
// relative, erfinv Newton steps on it), through the multiversioned loops (docs/cpu-kernels.md).
// Tested by tests/test_special.cpp and the op sweep.
#include <math.h>

#include <cmath>
#include <type_traits>

#include "../special_math.hpp"
#include "kernels.hpp"
#include "loops.hpp"
#include "map_f32.hpp"

namespace wick::cpu {
namespace {

template <typename T>
void run_special(const OpCall& call) {
  if constexpr (std::is_same_v<T, float>) {
    if (call.op == OpId::erfc) {
      map_f32<float, vec::erfc_f32, vec::erfc_bf16, vec::erfc>(call.out(), call.in(0));
      return;
    }
    if (call.op == OpId::erfinv) {
      map_f32<float, vec::erfinv_f32, vec::erfinv_bf16, vec::erfinv>(call.out(), call.in(0));
      return;
    }
  }
  const std::array<const Tensor*, 1> in{&call.in(0)};
  auto run = [&](auto f) {
    map<T, T>(
        call.out(), [f](T x) { return static_cast<T>(f(static_cast<double>(x))); }, in);
  };
  switch (call.op) {
    case OpId::asinh:
      run([](double x) { return std::asinh(x); });
      break;
    case OpId::acosh:
      run([](double x) { return std::acosh(x); });
      break;
    case OpId::atanh:
      run([](double x) { return std::atanh(x); });
      break;
    case OpId::erfc:
      run([](double x) { return std::erfc(x); });
      break;
    case OpId::erfinv:
      run([](double x) { return special::erfinv(x); });
      break;
    case OpId::exp2:
      run([](double x) { return std::exp2(x); });
      break;
    case OpId::lgamma:
      run([](double x) {
        int sign;
        return lgamma_r(x, &sign);
      });
      break;
    case OpId::digamma:
      run([](double x) { return special::digamma(x); });
      break;
    case OpId::polygamma: {
      const int64_t n = call.scalar_a.to_int64();
      run([n](double x) { return special::polygamma(n, x); });
      break;
    }
    default:
      detail::fail<Error>(op_name(call.op).data(), "internal: not a special op (special.cpp)");
  }
}

}  // namespace

void special_kernel(const OpCall& call) {
  WICK_DISPATCH_FLOATING(call.out().dtype(), { run_special<T>(call); })
}

}  // namespace wick::cpu
