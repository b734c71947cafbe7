// register_cuda.cpp: register_cuda_backend(), called once from detail::ensure_initialized()
// (src/init.cpp) in builds with CUDA: registers the CUDA DeviceBackend (backend.cpp) and a
// kernel for every Kernel op of wick/op_list.hpp. No CUDA call happens here, so a machine
// without a driver starts as fast as any. Each kernel is wrapped so that, with WICK_CUDA_SYNC=1,
// the device is synchronised after the op and an asynchronous fault is reported by it.
// tests/cuda/test_host.cpp checks that every Kernel op has a CUDA kernel.
#include "kernels.hpp"
#include "runtime.hpp"

namespace wick {
namespace gpu {
void register_backend_object();  // backend.cpp

namespace {
template <void (*Launch)(const OpCall&)>
void run_op(const OpCall& call) {
  Launch(call);
  finish_op(call);
}
}  // namespace
}  // namespace gpu

void register_cuda_backend() {
  using namespace gpu;
  register_backend_object();
  auto reg = [](OpId op, KernelFn fn) { register_kernel(op, kCUDA, fn); };
  reg(OpId::fill, run_op<launch_fill>);
  reg(OpId::arange, run_op<launch_arange>);
  register_kernel(OpId::copy, kCUDA, run_op<launch_copy>, /*computes_bf16=*/true);
  reg(OpId::rand, run_op<launch_random>);
  reg(OpId::randn, run_op<launch_random>);
  for (OpId op :
       {OpId::neg,     OpId::abs,   OpId::exp,        OpId::log,   OpId::sqrt,  OpId::relu,
        OpId::sigmoid, OpId::tanh,  OpId::erf,        OpId::log1p, OpId::expm1, OpId::sin,
        OpId::cos,     OpId::rsqrt, OpId::reciprocal, OpId::floor, OpId::ceil,  OpId::round,
        OpId::trunc,   OpId::sign,  OpId::pow_scalar, OpId::clamp, OpId::tan,   OpId::asin,
        OpId::acos,    OpId::atan,  OpId::sinh,       OpId::cosh,  OpId::log2,  OpId::log10}) {
    reg(op, run_op<launch_unary>);
  }
  for (OpId op : {OpId::add,
                  OpId::sub,
                  OpId::mul,
                  OpId::div,
                  OpId::pow,
                  OpId::maximum,
                  OpId::atan2,
                  OpId::hypot,
                  OpId::fmod,
                  OpId::remainder,
                  OpId::floor_divide,
                  OpId::trunc_divide,
                  OpId::copysign,
                  OpId::minimum,
                  OpId::sigmoid_backward,
                  OpId::tanh_backward,
                  OpId::bitwise_and,
                  OpId::bitwise_or,
                  OpId::bitwise_xor,
                  OpId::bitwise_left_shift,
                  OpId::bitwise_right_shift,
                  OpId::gcd,
                  OpId::lcm}) {
    reg(op, run_op<launch_binary>);
  }
  // nextafter steps bfloat16 by its own ulp: widened to float32 it would round back.
  register_kernel(OpId::nextafter, kCUDA, run_op<launch_nextafter>, /*computes_bf16=*/true);
  for (OpId op : {OpId::eq, OpId::ne, OpId::lt, OpId::le, OpId::gt, OpId::ge}) {
    reg(op, run_op<launch_compare>);
  }
  reg(OpId::where, run_op<launch_where>);
  for (OpId op : {OpId::sum, OpId::mean, OpId::max, OpId::min}) reg(op, run_op<launch_reduce>);
  reg(OpId::softmax, run_op<launch_softmax>);
  reg(OpId::log_softmax, run_op<launch_softmax>);
  reg(OpId::layer_norm, run_op<launch_layer_norm>);
  reg(OpId::layer_norm_backward, run_op<launch_layer_norm_backward>);
  reg(OpId::resample, run_op<launch_resample>);
  reg(OpId::resample_backward, run_op<launch_resample_backward>);
  // index_select moves raw bits, so it takes bfloat16 as it is; index_add's boundary computes
  // bfloat16 in float32 itself (its output holds self's values on entry).
  register_kernel(OpId::index_select, kCUDA, run_op<launch_index_select>, /*computes_bf16=*/true);
  register_kernel(OpId::index_add, kCUDA, run_op<launch_index_add>, /*computes_bf16=*/true);
  // The same for gather and scatter_reduce.
  register_kernel(OpId::gather, kCUDA, run_op<launch_gather>, /*computes_bf16=*/true);
  register_kernel(OpId::scatter_reduce, kCUDA, run_op<launch_scatter_reduce>,
                  /*computes_bf16=*/true);
  // sort compares bfloat16 as float and moves its bits.
  register_kernel(OpId::sort, kCUDA, run_op<launch_sort>, /*computes_bf16=*/true);
  reg(OpId::cumsum, run_op<launch_scan>);
  reg(OpId::cumprod, run_op<launch_scan>);
  for (OpId op : {OpId::asinh, OpId::acosh, OpId::atanh, OpId::erfc, OpId::erfinv, OpId::exp2,
                  OpId::lgamma, OpId::digamma, OpId::polygamma}) {
    reg(op, run_op<launch_special>);
  }
  reg(OpId::cummax, run_op<launch_scan>);
  reg(OpId::cummin, run_op<launch_scan>);
  reg(OpId::logcumsumexp, run_op<launch_scan>);
  reg(OpId::searchsorted, run_op<launch_searchsorted>);
  reg(OpId::lu_factor, run_op<launch_lu_factor>);
  reg(OpId::lu_solve, run_op<launch_lu_solve>);
  reg(OpId::cholesky_factor, run_op<launch_cholesky_factor>);
  reg(OpId::triangular_solve, run_op<launch_triangular_solve>);
  reg(OpId::prod, run_op<launch_prod>);
  // The matmul takes bfloat16 itself: step 10's tensor cores (gemm/10_bf16_mma.cuh).
  register_kernel(OpId::matmul, kCUDA, run_op<launch_matmul>, /*computes_bf16=*/true);
}

}  // namespace wick
