// compare.cu: the six comparisons (eq, ne, lt, le, gt, ge: two inputs of one dtype, a bool
// output) and where(condition, a, b), for every dtype, on elementwise.cuh's engine (vectorised
// when every operand is contiguous: 16 bytes of the widest operand per thread).
// Semantics are C++'s, as in kernels/cpu/binary.cpp: every comparison with NaN is false except
// ne; where picks a where the condition byte is true.
// Tested by tests/cuda/test_ops.cpp against the CPU kernels (exact).
#include "elementwise.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

struct EqOp {
  template <typename T>
  __device__ bool operator()(T a, T b) const {
    return a == b;
  }
};
struct NeOp {
  template <typename T>
  __device__ bool operator()(T a, T b) const {
    return a != b;
  }
};
struct LtOp {
  template <typename T>
  __device__ bool operator()(T a, T b) const {
    return a < b;
  }
};
struct LeOp {
  template <typename T>
  __device__ bool operator()(T a, T b) const {
    return a <= b;
  }
};
struct GtOp {
  template <typename T>
  __device__ bool operator()(T a, T b) const {
    return a > b;
  }
};
struct GeOp {
  template <typename T>
  __device__ bool operator()(T a, T b) const {
    return a >= b;
  }
};
struct WhereOp {
  template <typename T>
  __device__ T operator()(bool condition, T a, T b) const {
    return condition ? a : b;
  }
};

template <typename T>
void run_compare(const OpContext& ctx, const OpCall& call) {
  const Tensor& out = call.out();
  const std::array<const Tensor*, 2> in{&call.in(0), &call.in(1)};
  auto run = [&](const auto& fn) { launch_elementwise<bool, T, T>(ctx, out, in, fn); };
  switch (call.op) {
    case OpId::eq:
      run(EqOp{});
      return;
    case OpId::ne:
      run(NeOp{});
      return;
    case OpId::lt:
      run(LtOp{});
      return;
    case OpId::le:
      run(LeOp{});
      return;
    case OpId::gt:
      run(GtOp{});
      return;
    case OpId::ge:
      run(GeOp{});
      return;
    default:
      detail::fail<DtypeError>(ctx.op, "is not a comparison");
  }
}

}  // namespace

void launch_compare(const OpCall& call) {
  OpContext ctx(call);
  WICK_DISPATCH_ALL(call.in(0).dtype(), run_compare<T>(ctx, call))
}

void launch_where(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& out = call.out();
  WICK_DISPATCH_ALL(out.dtype(), {
    launch_elementwise<T, bool, T, T>(ctx, out, {&call.in(0), &call.in(1), &call.in(2)}, WhereOp{});
  })
}

}  // namespace wick::gpu
