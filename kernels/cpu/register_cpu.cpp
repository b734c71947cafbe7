// register_cpu.cpp: puts every CPU kernel into core's dispatch table. Called once from
// detail::ensure_initialized() (src/init.cpp), never from a static initialiser.
#include "gemm/gemm.hpp"
#include "gemm/kernels.hpp"
#include "kernels.hpp"
#include "loops.hpp"
#include "vec_kernels.hpp"

namespace wick {

namespace {
// The function-local statics that ops would initialise on first use (the thread default, the
// CPU's ISA, caches and blocking, the sum kernels' forms), initialised here instead: inside
// ensure_initialized(), which the fork handler runs to completion before any fork
// (core/src/fork_guard.cpp), so that no fork lands inside one of their initialisations (the
// child would wait on its guard for good: a review's fork test hung that way in max_threads).
void warm_up_statics() {
  using namespace cpu;
  (void)max_threads();
  (void)available_cpus();
  const float f = 1;
  const uint16_t h = 0x3f80;  // bfloat16 1.0
  double out = 0;
  (void)vec::sum_f32(&f, 1);
  (void)vec::sum_bf16(&h, 1);
  vec::sum_rows_f32(&f, 1, 1, 1, &out);
  vec::accumulate_rows_bf16(&out, &h, 1, 1, 1);
  (void)gemm::best_supported_isa();
  (void)gemm::cpu_has_avx512_bf16();
  const gemm::Isa isa = gemm::active_isa();
  (void)gemm::blocking_for<float>(isa);
  (void)gemm::blocking_for<double>(isa);
}
}  // namespace

void register_cpu_kernels() {
  using namespace cpu;
  warm_up_statics();
  auto reg = [](OpId op, KernelFn fn) { register_kernel(op, kCPU, fn); };
  reg(OpId::fill, fill_kernel);
  reg(OpId::arange, arange_kernel);
  register_kernel(OpId::copy, kCPU, copy_kernel, /*computes_bf16=*/true);
  reg(OpId::rand, random_kernel);
  reg(OpId::randn, random_kernel);
  // The elementwise kernels take bfloat16 themselves, widening in registers (loops.hpp,
  // in_compute_type); the others get float32 copies from run_kernel.
  for (OpId op :
       {OpId::neg,     OpId::abs,   OpId::exp,        OpId::log,   OpId::sqrt,  OpId::relu,
        OpId::sigmoid, OpId::tanh,  OpId::erf,        OpId::log1p, OpId::expm1, OpId::sin,
        OpId::cos,     OpId::rsqrt, OpId::reciprocal, OpId::floor, OpId::ceil,  OpId::round,
        OpId::trunc,   OpId::sign,  OpId::pow_scalar, OpId::clamp, OpId::tan,   OpId::asin,
        OpId::acos,    OpId::atan,  OpId::sinh,       OpId::cosh,  OpId::log2,  OpId::log10}) {
    register_kernel(op, kCPU, unary_kernel, /*computes_bf16=*/true);
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
                  OpId::sigmoid_backward,
                  OpId::tanh_backward,
                  OpId::minimum,
                  OpId::bitwise_and,
                  OpId::bitwise_or,
                  OpId::bitwise_xor,
                  OpId::bitwise_left_shift,
                  OpId::bitwise_right_shift,
                  OpId::gcd,
                  OpId::lcm,
                  OpId::nextafter,
                  OpId::eq,
                  OpId::ne,
                  OpId::lt,
                  OpId::le,
                  OpId::gt,
                  OpId::ge}) {
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
  register_kernel(OpId::resample, kCPU, resample_kernel);
  register_kernel(OpId::resample_backward, kCPU, resample_backward_kernel);
  // matmul_kernel multiplies bfloat16 itself where the CPU has AVX512_BF16 (matmul.cpp).
  register_kernel(OpId::matmul, kCPU, matmul_kernel, /*computes_bf16=*/true);
  // index_select only moves elements, so it takes bfloat16 as it is; index_add's boundary
  // computes bfloat16 in float32 itself (its output holds self's values on entry).
  register_kernel(OpId::index_select, kCPU, index_select_kernel, /*computes_bf16=*/true);
  register_kernel(OpId::index_add, kCPU, index_add_kernel, /*computes_bf16=*/true);
  // The same for gather and scatter_reduce.
  register_kernel(OpId::gather, kCPU, gather_kernel, /*computes_bf16=*/true);
  register_kernel(OpId::scatter_reduce, kCPU, scatter_reduce_kernel, /*computes_bf16=*/true);
  // sort compares bfloat16 as float and moves its bits.
  register_kernel(OpId::sort, kCPU, sort_kernel, /*computes_bf16=*/true);
  register_kernel(OpId::cumsum, kCPU, cumsum_kernel);
  register_kernel(OpId::searchsorted, kCPU, searchsorted_kernel);
  register_kernel(OpId::lu_factor, kCPU, lu_factor_kernel);
  register_kernel(OpId::lu_solve, kCPU, lu_solve_kernel);
  register_kernel(OpId::cholesky_factor, kCPU, cholesky_factor_kernel);
  register_kernel(OpId::triangular_solve, kCPU, triangular_solve_kernel);
  register_kernel(OpId::cumprod, kCPU, cumprod_kernel);
  register_kernel(OpId::cummax, kCPU, cum_extreme_kernel);
  register_kernel(OpId::cummin, kCPU, cum_extreme_kernel);
  register_kernel(OpId::logcumsumexp, kCPU, logcumsumexp_kernel);
  register_kernel(OpId::prod, kCPU, prod_kernel);
  for (OpId op : {OpId::asinh, OpId::acosh, OpId::atanh, OpId::erfc, OpId::erfinv, OpId::exp2,
                  OpId::lgamma, OpId::digamma, OpId::polygamma}) {
    register_kernel(op, kCPU, special_kernel);
  }
}

}  // namespace wick
