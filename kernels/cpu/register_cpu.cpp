// register_cpu.cpp: puts every CPU kernel into core's dispatch table. Called once from
// detail::ensure_initialized() (src/init.cpp), never from a static initialiser.
#include "kernels.hpp"

namespace wick {

void register_cpu_kernels() {
  using namespace cpu;
  auto reg = [](OpId op, KernelFn fn) { register_kernel(op, kCPU, fn); };
  reg(OpId::fill, fill_kernel);
  reg(OpId::arange, arange_kernel);
  register_kernel(OpId::copy, kCPU, copy_kernel, /*computes_bf16=*/true);
  reg(OpId::rand, random_kernel);
  reg(OpId::randn, random_kernel);
  // The elementwise kernels take bfloat16 themselves, widening in registers (loops.hpp,
  // in_compute_type); the others get float32 copies from run_kernel.
  for (OpId op : {OpId::neg, OpId::abs, OpId::exp, OpId::log, OpId::sqrt, OpId::relu, OpId::sigmoid,
                  OpId::tanh, OpId::erf, OpId::pow_scalar, OpId::clamp}) {
    register_kernel(op, kCPU, unary_kernel, /*computes_bf16=*/true);
  }
  for (OpId op : {OpId::add, OpId::sub, OpId::mul, OpId::div, OpId::pow, OpId::maximum,
                  OpId::sigmoid_backward, OpId::tanh_backward, OpId::minimum, OpId::eq, OpId::ne,
                  OpId::lt, OpId::le, OpId::gt, OpId::ge}) {
    register_kernel(op, kCPU, binary_kernel, /*computes_bf16=*/true);
  }
  register_kernel(OpId::where, kCPU, where_kernel, /*computes_bf16=*/true);
  // reduce_kernel sums contiguous bfloat16 itself and hands the other cases to run_in_float32.
  for (OpId op : {OpId::sum, OpId::mean, OpId::max, OpId::min}) {
    register_kernel(op, kCPU, reduce_kernel, /*computes_bf16=*/true);
  }
  // softmax_kernel widens contiguous bfloat16 a row at a time itself (softmax.cpp).
  register_kernel(OpId::softmax, kCPU, softmax_kernel, /*computes_bf16=*/true);
  register_kernel(OpId::log_softmax, kCPU, softmax_kernel, /*computes_bf16=*/true);
  register_kernel(OpId::layer_norm, kCPU, layer_norm_kernel);
  register_kernel(OpId::layer_norm_backward, kCPU, layer_norm_backward_kernel);
  // matmul_kernel multiplies bfloat16 itself where the CPU has AVX512_BF16 (matmul.cpp).
  register_kernel(OpId::matmul, kCPU, matmul_kernel, /*computes_bf16=*/true);
}

}  // namespace wick
