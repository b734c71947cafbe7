// unary.cu: neg, abs, exp, log, sqrt, relu, sigmoid, tanh, erf, log1p, expm1, sin, cos, rsqrt,
// reciprocal, floor, ceil, round, trunc, sign, pow with a scalar exponent, and clamp, for the
// dtypes the boundary lets through (floating for exp/log/sqrt/sigmoid/tanh/erf/log1p/expm1/sin/
// cos/rsqrt/reciprocal, int64 and floating for the rest), on elementwise.cuh's
// engine (vectorised when contiguous). Semantics are those of kernels/cpu/unary.cpp: NaN propagates
// (relu(nan) = nan, clamp(nan) = nan), int64 neg/abs wrap (done in uint64), int64 pow by squaring
// with PyTorch's rule for negative exponents, pow(x, 2) = x * x. Functions are CUDA's
// full-precision ones (no fast math): within 1-4 float32 ulp of the CPU's libm. Tested by
// tests/cuda/test_ops.cpp against the CPU float64 reference.
#include "elementwise.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

template <typename T>
__device__ __forceinline__ T wrap_neg(T x) {
  return static_cast<T>(0ull - static_cast<uint64_t>(x));
}

// Integer power by squaring; negative exponents give 1/base^e truncated (0 unless |base| = 1).
__device__ __forceinline__ int64_t int_pow(int64_t base, int64_t e) {
  if (e < 0) {
    if (base == 1) return 1;
    if (base == -1) return (e % 2 == 0) ? 1 : -1;
    return 0;
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  while (e > 0) {
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<int64_t>(result);
}

struct NegOp {
  template <typename T>
  __device__ T operator()(T x) const {
    if constexpr (std::is_same_v<T, int64_t>) {
      return wrap_neg(x);
    } else {
      return -x;
    }
  }
};
struct AbsOp {
  template <typename T>
  __device__ T operator()(T x) const {
    if constexpr (std::is_same_v<T, int64_t>) {
      return x < 0 ? wrap_neg(x) : x;
    } else {
      return fabs_of(x);
    }
  }
};
struct ReluOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return T(0) > x ? T(0) : x;  // NaN and -0 pass through, as in PyTorch (relu(-0.) = -0.)
  }
};
template <typename T>
struct ClampOp {
  bool has_lo, has_hi;
  T lo, hi;
  __device__ T operator()(T x) const {
    // As the CPU kernel: with both bounds, a NaN bound makes the result NaN.
    if (has_lo && has_hi && (is_nan(lo) || is_nan(hi))) return is_nan(lo) ? lo : hi;
    if (is_nan(x)) return x;
    if (has_lo && x < lo) x = lo;
    if (has_hi && x > hi) x = hi;
    return x;
  }
};
struct IntPowScalarOp {
  int64_t exponent;
  __device__ int64_t operator()(int64_t x) const { return int_pow(x, exponent); }
};
template <typename T>
struct PowScalarOp {
  T exponent;
  __device__ T operator()(T x) const { return pow_of(x, exponent); }
};
// The exponents PyTorch 1.13 sends to other kernels (see kernels/cpu/unary.cpp): the same
// formulas, so that the edges (pow(-0., 0.5) = -0., pow(-inf, 0.5) = nan) agree.
struct SquareOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return x * x;
  }
};
struct CubeOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return x * x * x;
  }
};
struct RsqrtOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return T(1) / sqrt_of(x);
  }
};
struct ReciprocalOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return T(1) / x;
  }
};
struct InverseSquareOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return T(1) / (x * x);
  }
};
struct ExpOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return exp_of(x);
  }
};
struct LogOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return log_of(x);
  }
};
struct SqrtOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return sqrt_of(x);
  }
};
struct TanhOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return tanh_of(x);
  }
};
struct ErfOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return erf(x);  // erff for float: CUDA's is within 2 ulp (CUDA Math API, "Standard Functions")
  }
};
struct Log1pOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return log1p(x);  // log1pf for float: within 1 ulp (CUDA Math API)
  }
};
struct Expm1Op {
  template <typename T>
  __device__ T operator()(T x) const {
    return expm1(x);  // expm1f for float: within 1 ulp (CUDA Math API)
  }
};
struct SinOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return sin(x);  // sinf for float: within 2 ulp (CUDA Math API), full range reduction
  }
};
struct CosOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return cos(x);  // cosf for float: within 2 ulp (CUDA Math API)
  }
};
// tan, asin, acos, atan, sinh, cosh, log2 and log10: the CUDA Math API's functions (float:
// within 1-4 ulp; double: 1-2 ulp), one functor each.
#define WICK_MATH_OP(Name, fn)           \
  struct Name {                          \
    template <typename T>                \
    __device__ T operator()(T x) const { \
      return fn(x);                      \
    }                                    \
  };
WICK_MATH_OP(TanOp, tan)
WICK_MATH_OP(AsinOp, asin)
WICK_MATH_OP(AcosOp, acos)
WICK_MATH_OP(AtanOp, atan)
WICK_MATH_OP(SinhOp, sinh)
WICK_MATH_OP(CoshOp, cosh)
WICK_MATH_OP(Log2Op, log2)
WICK_MATH_OP(Log10Op, log10)
#undef WICK_MATH_OP
// Rounding to integral values: exact, so both devices give the same bits. int64 passes through.
template <OpId kOp>
struct RoundingOp {
  template <typename T>
  __device__ T operator()(T x) const {
    if constexpr (std::is_same_v<T, int64_t>) {
      return x;
    } else if constexpr (kOp == OpId::floor) {
      return floor(x);
    } else if constexpr (kOp == OpId::ceil) {
      return ceil(x);
    } else if constexpr (kOp == OpId::round) {
      return rint(x);  // ties to even, as the CPU's nearbyint and PyTorch
    } else {
      return trunc(x);
    }
  }
};
struct SignOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return static_cast<T>(int(T(0) < x) - int(x < T(0)));  // NaN and -0 give +0, as the CPU
  }
};
struct SigmoidOp {
  template <typename T>
  __device__ T operator()(T x) const {
    return T(1) / (T(1) + exp_of(-x));
  }
};

template <typename T>
void run_unary(const OpContext& ctx, const OpCall& call) {
  const Tensor& out = call.out();
  const std::array<const Tensor*, 1> in{&call.in(0)};
  auto run = [&](const auto& fn) { launch_elementwise<T, T>(ctx, out, in, fn); };
  switch (call.op) {
    case OpId::neg:
      run(NegOp{});
      return;
    case OpId::abs:
      run(AbsOp{});
      return;
    case OpId::relu:
      run(ReluOp{});
      return;
    case OpId::floor:
      run(RoundingOp<OpId::floor>{});
      return;
    case OpId::ceil:
      run(RoundingOp<OpId::ceil>{});
      return;
    case OpId::round:
      run(RoundingOp<OpId::round>{});
      return;
    case OpId::trunc:
      run(RoundingOp<OpId::trunc>{});
      return;
    case OpId::sign:
      run(SignOp{});
      return;
    case OpId::clamp: {
      run(ClampOp<T>{call.has_a, call.has_b, call.has_a ? call.scalar_a.to<T>() : T(0),
                     call.has_b ? call.scalar_b.to<T>() : T(0)});
      return;
    }
    case OpId::pow_scalar:
      if constexpr (std::is_same_v<T, int64_t>) {
        run(IntPowScalarOp{call.scalar_a.to_int64()});
      } else {
        const T e = call.scalar_a.to<T>();
        const double written = call.has_b ? call.scalar_b.to_double() : call.scalar_a.to_double();
        if (written == 0.5) {
          run(SqrtOp{});  // pow(x, 0.5) is PyTorch's sqrt kernel
        } else if (written == -0.5) {
          run(RsqrtOp{});
        } else if (written == -1.0) {
          run(ReciprocalOp{});
        } else if (e == T(2)) {
          run(SquareOp{});
        } else if (e == T(3)) {
          run(CubeOp{});
        } else if (e == T(-2)) {
          run(InverseSquareOp{});
        } else {
          run(PowScalarOp<T>{e});
        }
      }
      return;
    default:
      break;
  }
  if constexpr (std::is_floating_point_v<T>) {
    switch (call.op) {
      case OpId::exp:
        run(ExpOp{});
        return;
      case OpId::log:
        run(LogOp{});
        return;
      case OpId::sqrt:
        run(SqrtOp{});
        return;
      case OpId::tanh:
        run(TanhOp{});
        return;
      case OpId::sigmoid:
        run(SigmoidOp{});
        return;
      case OpId::erf:
        run(ErfOp{});
        return;
      case OpId::log1p:
        run(Log1pOp{});
        return;
      case OpId::expm1:
        run(Expm1Op{});
        return;
      case OpId::sin:
        run(SinOp{});
        return;
      case OpId::cos:
        run(CosOp{});
        return;
      case OpId::tan:
        run(TanOp{});
        return;
      case OpId::asin:
        run(AsinOp{});
        return;
      case OpId::acos:
        run(AcosOp{});
        return;
      case OpId::atan:
        run(AtanOp{});
        return;
      case OpId::sinh:
        run(SinhOp{});
        return;
      case OpId::cosh:
        run(CoshOp{});
        return;
      case OpId::log2:
        run(Log2Op{});
        return;
      case OpId::log10:
        run(Log10Op{});
        return;
      case OpId::rsqrt:
        run(RsqrtOp{});
        return;
      case OpId::reciprocal:
        run(ReciprocalOp{});
        return;
      default:
        break;
    }
  }
  detail::fail<DtypeError>(ctx.op, "no CUDA kernel for ", describe(out));
}

}  // namespace

void launch_unary(const OpCall& call) {
  OpContext ctx(call);
  switch (call.out().dtype()) {
    case kInt64:
      run_unary<int64_t>(ctx, call);
      break;
    case kFloat32:
      run_unary<float>(ctx, call);
      break;
    case kFloat64:
      run_unary<double>(ctx, call);
      break;
    default:
      detail::fail<DtypeError>(ctx.op, "no CUDA kernel for ", describe(call.out()));
  }
}

}  // namespace wick::gpu
