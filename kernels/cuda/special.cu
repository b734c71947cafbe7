// special.cu: asinh, acosh, atanh, erfc, erfinv, exp2, lgamma, digamma and polygamma on the GPU
// (floating tensors only; bfloat16 arrives as float32), on elementwise.cuh's engine. As the CPU
// kernel (kernels/cpu/special.cpp), every element is computed in float64 and rounded once: the
// CUDA Math API's asinh, acosh, atanh, erfc, exp2 and lgamma (1-4 float64 ulp), and
// kernels/special_math.hpp's erfinv, digamma and polygamma, shared with the CPU. float32 results
// therefore agree with the CPU's to an ulp; float64 ones to a few. float64 on purpose: the
// special functions are rare in hot loops, and float32 versions would each need their own
// accuracy work. Not yet run on a GPU: unmeasured. Tested by tests/cuda/test_ops.cpp against
// the CPU float64 reference, on the CPU emulator of CUDA.
#include "../special_math.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

// One functor per op: T in, f(double(x)) rounded to T out.
#define WICK_SPECIAL_OP(Name, expr)             \
  struct Name {                                 \
    template <typename T>                       \
    __device__ T operator()(T in) const {       \
      const double x = static_cast<double>(in); \
      return static_cast<T>(expr);              \
    }                                           \
  };
WICK_SPECIAL_OP(AsinhOp, asinh(x))
WICK_SPECIAL_OP(AcoshOp, acosh(x))
WICK_SPECIAL_OP(AtanhOp, atanh(x))
WICK_SPECIAL_OP(ErfcOp, erfc(x))
WICK_SPECIAL_OP(ErfinvOp, special::erfinv(x))
WICK_SPECIAL_OP(Exp2Op, exp2(x))
WICK_SPECIAL_OP(LgammaOp, lgamma(x))
WICK_SPECIAL_OP(DigammaOp, special::digamma(x))
#undef WICK_SPECIAL_OP

struct PolygammaOp {
  int64_t n;
  template <typename T>
  __device__ T operator()(T in) const {
    return static_cast<T>(special::polygamma(n, static_cast<double>(in)));
  }
};

template <typename T>
void run_special(const OpContext& ctx, const OpCall& call) {
  const Tensor& out = call.out();
  const std::array<const Tensor*, 1> in{&call.in(0)};
  auto run = [&](const auto& fn) { launch_elementwise<T, T>(ctx, out, in, fn); };
  switch (call.op) {
    case OpId::asinh:
      return run(AsinhOp{});
    case OpId::acosh:
      return run(AcoshOp{});
    case OpId::atanh:
      return run(AtanhOp{});
    case OpId::erfc:
      return run(ErfcOp{});
    case OpId::erfinv:
      return run(ErfinvOp{});
    case OpId::exp2:
      return run(Exp2Op{});
    case OpId::lgamma:
      return run(LgammaOp{});
    case OpId::digamma:
      return run(DigammaOp{});
    case OpId::polygamma:
      return run(PolygammaOp{call.scalar_a.to_int64()});
    default:
      detail::fail<Error>(ctx.op, "internal: not a special op");
  }
}

}  // namespace

void launch_special(const OpCall& call) {
  OpContext ctx(call);
  switch (call.out().dtype()) {
    case kFloat32:
      run_special<float>(ctx, call);
      break;
    case kFloat64:
      run_special<double>(ctx, call);
      break;
    default:
      detail::fail<DtypeError>(ctx.op, "no CUDA kernel for ", describe(call.out()));
  }
}

}  // namespace wick::gpu
