// vec_kernels.hpp: contiguous float loops that the other CPU kernels hand their unit-stride
// runs to. vec_kernels.cpp compiles each one three times (GCC target_clones: x86-64-v4, i.e.
// AVX-512; x86-64-v3, i.e. AVX2+FMA; and the baseline), and the dynamic loader picks the widest
// the CPU runs; elsewhere they are plain loops. The file is built with -ffp-contract=off, so
// every clone rounds exactly as the scalar code does: results do not depend on the CPU.
#pragma once

#include <cstdint>

namespace wick::cpu::vec {

void exp_f32(const float* x, float* y, int64_t n);
void sigmoid_f32(const float* x, float* y, int64_t n);
void tanh_f32(const float* x, float* y, int64_t n);

// out[i] = fma(b[i], alpha, a[i]): a + alpha * b with one rounding, as PyTorch's add/sub with
// alpha (out may be a: the in-place form).
void axpy_f32(const float* a, const float* b, float alpha, float* out, int64_t n);
void axpy_f64(const double* a, const double* b, double alpha, double* out, int64_t n);
// The same with byte strides (a transposed operand, short broadcast rows): in the FMA clones
// std::fma is one instruction instead of a call to libm's fmaf.
void axpy_strided_f32(const char* a, int64_t sa, const char* b, int64_t sb, float alpha, char* out,
                      int64_t so, int64_t n);
void axpy_strided_f64(const char* a, int64_t sa, const char* b, int64_t sb, double alpha, char* out,
                      int64_t so, int64_t n);

// Sums in double: L partial sums (L = 32 for float32, 16 for float64), lane j taking elements
// j, j + L, ..., added pairwise in a fixed order at the end. Error about n/L * 2^-53 relative to
// sum |x|: float32-exact far past 10^8. sum_f32 runs a hand-written AVX2 form on AVX2 machines
// without AVX-512; sum_f32_lanes is the plain loop (what the others run), for the test that the
// two give the same bits.
double sum_f32(const float* x, int64_t n);
double sum_f32_lanes(const float* x, int64_t n);
double sum_f64(const double* x, int64_t n);
// acc[j] += x[j] for j < n (the rows of a reduction over outer dims).
void accumulate_f32(double* acc, const float* x, int64_t n);
void accumulate_f64(double* acc, const double* x, int64_t n);

// One softmax row: y = exp(x - max) / sum, or log_softmax: y = x - max - log(sum), with the
// sum in double. max ignores NaN (NaN flows through exp into the sum, so a NaN row is all NaN,
// as in PyTorch); a row of -inf gets shift 0 (0/0 = NaN everywhere, as in PyTorch).
void softmax_row_f32(const float* x, float* y, int64_t n, bool log_form);

}  // namespace wick::cpu::vec
