// binary.cu: add, sub, mul, div, pow, maximum, minimum, fmod, remainder, floor_divide,
// trunc_divide, and atan2, hypot, copysign, the bitwise ops, gcd, lcm and nextafter
// (kernels/bit_ops.hpp), sigmoid_backward and tanh_backward (floating only) for every dtype the
// boundary lets
// through (inputs arrive expanded to the output's shape and cast to one dtype), on
// elementwise.cuh's engine: vectorised when every operand is contiguous, strided otherwise
// (broadcasting is a zero stride).
// Semantics are those of kernels/cpu/binary.cpp: int64 add/sub/mul wrap (done in uint64), bool
// add is "or" and mul is "and", int64 pow by squaring, maximum/minimum propagate NaN and
// otherwise pick with a > b / a < b (so the same operand as the CPU when equal).
// Tested by tests/cuda/test_ops.cpp against the CPU float64 reference (broadcast pairs,
// transposed, sliced and expanded inputs). Measured by bench/gpu (add, mul on 2^26 floats); no
// GPU run has happened yet, so the figures are pending (docs/gpu-results.md).
#include "../bit_ops.hpp"
#include "../rounded_division.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

struct AddOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, int64_t>) {
      return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    } else if constexpr (std::is_same_v<T, bool>) {
      return a || b;
    } else {
      return a + b;
    }
  }
};
struct SubOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, int64_t>) {
      return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
    } else {
      return a - b;
    }
  }
};
struct MulOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, int64_t>) {
      return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    } else if constexpr (std::is_same_v<T, bool>) {
      return a && b;
    } else {
      return a * b;
    }
  }
};
struct DivOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return a / b;
  }
};
struct PowOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return pow_of(a, b);
    } else {
      if (b < 0) return a == 1 ? 1 : a == -1 ? ((b % 2 == 0) ? 1 : -1) : 0;
      uint64_t result = 1, base = static_cast<uint64_t>(a);
      for (; b > 0; b >>= 1, base *= base) {
        if (b & 1) result *= base;
      }
      return static_cast<T>(result);
    }
  }
};
struct MaximumOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return is_nan(a) ? a : is_nan(b) ? b : (a > b ? a : b);
  }
};
struct MinimumOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return is_nan(a) ? a : is_nan(b) ? b : (a < b ? a : b);
  }
};
// atan2, hypot and fmod from CUDA's math library (float or double overloads spelled out, as
// common.cuh's *_of). Integer fmod and remainder as kernels/cpu/binary.cpp: x % -1 is 0
// (INT64_MIN % -1 overflows); the boundary has already refused a zero divisor.
struct Atan2Op {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    if constexpr (sizeof(T) == 4) {
      return ::atan2f(a, b);
    } else {
      return ::atan2(a, b);
    }
  }
};
struct HypotOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    if constexpr (sizeof(T) == 4) {
      return ::hypotf(a, b);
    } else {
      return ::hypot(a, b);
    }
  }
};
template <typename T>
__device__ __forceinline__ T fmod_of(T a, T b) {
  if constexpr (std::is_same_v<T, float>) {
    return ::fmodf(a, b);
  } else if constexpr (std::is_same_v<T, double>) {
    return ::fmod(a, b);
  } else {
    return b == -1 ? T(0) : a % b;
  }
}
struct FmodOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return fmod_of(a, b);
  }
};
struct CopysignOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    if constexpr (sizeof(T) == 4) {
      return ::copysignf(a, b);
    } else {
      return ::copysign(a, b);
    }
  }
};
// div with rounding_mode "floor" and "trunc": kernels/rounded_division.hpp, shared with the CPU.
struct FloorDivideOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return rounded_division::floor_divide(a, b);
  }
};
struct TruncDivideOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return rounded_division::trunc_divide(a, b);
  }
};
// fmod's result moved to b's sign by adding b (rounded, in floating point), as PyTorch's.
struct RemainderOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    const T mod = fmod_of(a, b);
    return mod != 0 && ((b < 0) != (mod < 0)) ? mod + b : mod;
  }
};
// The integer and bit ops: the boundary sends int64 and bool to and/or/xor, int64 to the rest.
struct BitwiseAndOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return static_cast<T>(a & b);
  }
};
struct BitwiseOrOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return static_cast<T>(a | b);
  }
};
struct BitwiseXorOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    return static_cast<T>(a ^ b);
  }
};
struct ShiftLeftOp {
  __device__ int64_t operator()(int64_t a, int64_t b) const { return bit_ops::shift_left(a, b); }
};
struct ShiftRightOp {
  __device__ int64_t operator()(int64_t a, int64_t b) const { return bit_ops::shift_right(a, b); }
};
struct GcdOp {
  __device__ int64_t operator()(int64_t a, int64_t b) const { return bit_ops::gcd(a, b); }
};
struct LcmOp {
  __device__ int64_t operator()(int64_t a, int64_t b) const { return bit_ops::lcm(a, b); }
};
struct NextafterOp {
  template <typename T>
  __device__ T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, BFloat16>) {
      return bit_ops::nextafter_bf16(a, b);
    } else if constexpr (sizeof(T) == 4) {
      return ::nextafterf(a, b);
    } else {
      return ::nextafter(a, b);
    }
  }
};

// The gradients of sigmoid and tanh from their result, rounded as the CPU kernel and
// PyTorch's: (g * (1 - y)) * y, and g * fma(-y, y, 1) (fmaf for float, as AxpyOp below).
struct SigmoidBackwardOp {
  template <typename T>
  __device__ T operator()(T g, T y) const {
    return g * (T(1) - y) * y;
  }
};
struct TanhBackwardOp {
  template <typename T>
  __device__ T operator()(T g, T y) const {
    if constexpr (std::is_same_v<T, float>) {
      return g * fmaf(-y, y, 1.0f);
    } else {
      return g * fma(-y, y, 1.0);
    }
  }
};

// add and sub with alpha (call.has_a, floating only): a + alpha * b with one rounding, as
// the CPU kernel and PyTorch's (sub passes -alpha). fmaf for float: fma's double overload
// would round twice on the emulator's host compiler.
template <typename T>
struct AxpyOp {
  T alpha;
  __device__ T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, float>) {
      return fmaf(b, alpha, a);
    } else {
      return fma(b, alpha, a);
    }
  }
};

template <typename T>
void run_binary(const OpContext& ctx, const OpCall& call) {
  const Tensor& out = call.out();
  const std::array<const Tensor*, 2> in{&call.in(0), &call.in(1)};
  auto run = [&](const auto& fn) { launch_elementwise<T, T, T>(ctx, out, in, fn); };
  if constexpr (std::is_floating_point_v<T>) {
    if (call.has_a && (call.op == OpId::add || call.op == OpId::sub)) {
      const T alpha = call.scalar_a.to<T>();
      run(AxpyOp<T>{call.op == OpId::add ? alpha : -alpha});
      return;
    }
  }
  switch (call.op) {
    case OpId::add:
      run(AddOp{});
      return;
    case OpId::mul:
      run(MulOp{});
      return;
    case OpId::maximum:
      run(MaximumOp{});
      return;
    case OpId::minimum:
      run(MinimumOp{});
      return;
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (call.op) {
      case OpId::bitwise_and:
        run(BitwiseAndOp{});
        return;
      case OpId::bitwise_or:
        run(BitwiseOrOp{});
        return;
      case OpId::bitwise_xor:
        run(BitwiseXorOp{});
        return;
      default:
        break;
    }
  }
  if constexpr (std::is_same_v<T, int64_t>) {
    switch (call.op) {
      case OpId::bitwise_left_shift:
        run(ShiftLeftOp{});
        return;
      case OpId::bitwise_right_shift:
        run(ShiftRightOp{});
        return;
      case OpId::gcd:
        run(GcdOp{});
        return;
      case OpId::lcm:
        run(LcmOp{});
        return;
      default:
        break;
    }
  }
  if constexpr (!std::is_same_v<T, bool>) {
    switch (call.op) {
      case OpId::sub:
        run(SubOp{});
        return;
      case OpId::pow:
        run(PowOp{});
        return;
      case OpId::div:
        if constexpr (std::is_floating_point_v<T>) {
          run(DivOp{});
          return;
        }
        break;
      case OpId::fmod:
        run(FmodOp{});
        return;
      case OpId::remainder:
        run(RemainderOp{});
        return;
      case OpId::floor_divide:
        run(FloorDivideOp{});
        return;
      case OpId::trunc_divide:
        run(TruncDivideOp{});
        return;
      case OpId::atan2:
        if constexpr (std::is_floating_point_v<T>) {
          run(Atan2Op{});
          return;
        }
        break;
      case OpId::hypot:
        if constexpr (std::is_floating_point_v<T>) {
          run(HypotOp{});
          return;
        }
        break;
      case OpId::copysign:
        if constexpr (std::is_floating_point_v<T>) {
          run(CopysignOp{});
          return;
        }
        break;
      case OpId::sigmoid_backward:
        if constexpr (std::is_floating_point_v<T>) {
          run(SigmoidBackwardOp{});
          return;
        }
        break;
      case OpId::tanh_backward:
        if constexpr (std::is_floating_point_v<T>) {
          run(TanhBackwardOp{});
          return;
        }
        break;
      default:
        break;
    }
  }
  detail::fail<DtypeError>(ctx.op, "no CUDA kernel for ", describe(call.in(0)), " and ",
                           describe(call.in(1)));
}

}  // namespace

void launch_binary(const OpCall& call) {
  OpContext ctx(call);
  WICK_DISPATCH_ALL(call.in(0).dtype(), run_binary<T>(ctx, call))
}

void launch_nextafter(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& out = call.out();
  const std::array<const Tensor*, 2> in{&call.in(0), &call.in(1)};
  switch (out.dtype()) {
    case kFloat32:
      launch_elementwise<float, float, float>(ctx, out, in, NextafterOp{});
      return;
    case kFloat64:
      launch_elementwise<double, double, double>(ctx, out, in, NextafterOp{});
      return;
    case kBFloat16:
      launch_elementwise<BFloat16, BFloat16, BFloat16>(ctx, out, in, NextafterOp{});
      return;
    default:
      detail::fail<DtypeError>(ctx.op, "no CUDA kernel for ", describe(call.in(0)), " and ",
                               describe(call.in(1)));
  }
}

}  // namespace wick::gpu
