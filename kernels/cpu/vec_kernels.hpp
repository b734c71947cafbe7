// vec_kernels.hpp: contiguous float loops that the other CPU kernels hand their unit-stride
// runs to. vec_kernels.cpp, vec_sums.cpp (the sums) and vec_extremes.cpp (max and min) compile
// each one three times (GCC target_clones, vec_clones.hpp: x86-64-v4, i.e. AVX-512; x86-64-v3,
// i.e. AVX2+FMA; and the baseline), and the dynamic loader picks the widest the CPU runs;
// elsewhere they are plain loops. The files are built with -ffp-contract=off, so every clone
// rounds exactly as the scalar code does: results do not depend on the CPU.
#pragma once

#include <cstdint>

namespace wick::cpu::vec {

void exp_f32(const float* x, float* y, int64_t n);
void sigmoid_f32(const float* x, float* y, int64_t n);
void tanh_f32(const float* x, float* y, int64_t n);
void log_f32(const float* x, float* y, int64_t n);
void sin_f32(const float* x, float* y, int64_t n);  // vec_math.hpp's sin and cos
void cos_f32(const float* x, float* y, int64_t n);
// vec_math.hpp's float-in, double-inside functions (within 1 ulp; tan as sin and cos).
void tan_f32(const float* x, float* y, int64_t n);
void atan_f32(const float* x, float* y, int64_t n);
void asin_f32(const float* x, float* y, int64_t n);
void acos_f32(const float* x, float* y, int64_t n);
void sinh_f32(const float* x, float* y, int64_t n);
void cosh_f32(const float* x, float* y, int64_t n);
void expm1_f32(const float* x, float* y, int64_t n);
void log1p_f32(const float* x, float* y, int64_t n);
void log2_f32(const float* x, float* y, int64_t n);
void log10_f32(const float* x, float* y, int64_t n);
void erf_f32(const float* x, float* y, int64_t n);
void erfc_f32(const float* x, float* y, int64_t n);
void erfinv_f32(const float* x, float* y, int64_t n);

// The same on bfloat16 bit patterns: each element widened, the float32 function, the result
// rounded once (the bits of the float32 op followed by a cast).
void exp_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void sigmoid_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void tanh_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void log_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void sin_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void cos_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void tan_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void atan_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void asin_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void acos_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void sinh_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void cosh_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void expm1_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void log1p_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void log2_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void log10_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void erf_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void erfc_bf16(const uint16_t* x, uint16_t* y, int64_t n);
void erfinv_bf16(const uint16_t* x, uint16_t* y, int64_t n);
// out[i] = atan2(a[i], b[i]) and hypot(a[i], b[i]) (vec_math.hpp, in double inside).
void atan2_f32(const float* a, const float* b, float* out, int64_t n);
void hypot_f32(const float* a, const float* b, float* out, int64_t n);
void atan2_bf16(const uint16_t* a, const uint16_t* b, uint16_t* out, int64_t n);
void hypot_bf16(const uint16_t* a, const uint16_t* b, uint16_t* out, int64_t n);
// out[i] = fmod(a[i], b[i]) and remainder(a[i], b[i]) (vec_math.hpp: exact in double where
// |a / b| < 2^29, libm's fmod elsewhere). out may be a or b.
void fmod_f32(const float* a, const float* b, float* out, int64_t n);
void remainder_f32(const float* a, const float* b, float* out, int64_t n);
void fmod_bf16(const uint16_t* a, const uint16_t* b, uint16_t* out, int64_t n);
void remainder_bf16(const uint16_t* a, const uint16_t* b, uint16_t* out, int64_t n);
// out[i] = floor_divide(a[i], b[i]) (div with rounding_mode "floor"), from the same exact fmod
// (vec_math.hpp: floor_divide_from_fmod; kernels/rounded_division.hpp out of its range).
void floor_divide_f32(const float* a, const float* b, float* out, int64_t n);
void floor_divide_bf16(const uint16_t* a, const uint16_t* b, uint16_t* out, int64_t n);

// out[i] = fma(b[i], alpha, a[i]): a + alpha * b with one rounding, as PyTorch's add/sub with
// alpha (out may be a: the in-place form).
void axpy_f32(const float* a, const float* b, float alpha, float* out, int64_t n);
void axpy_f64(const double* a, const double* b, double alpha, double* out, int64_t n);
// The same over blocks of rows with byte strides, as for_each_strided gives them (p and s
// ordered out, a, b; row r of operand k at p[k] + r * rs[k], rs unread for one row): unit-stride
// rows, rows where a or b repeats one value, and any other strides, in the FMA clones where
// std::fma is one instruction instead of a call to libm's fmaf.
void axpy_rows_f32(char* const* p, const int64_t* s, const int64_t* rs, int64_t n, int64_t rows,
                   float alpha);
void axpy_rows_f64(char* const* p, const int64_t* s, const int64_t* rs, int64_t n, int64_t rows,
                   double alpha);

// The dot product of two contiguous vectors with std::fma into L partial sums in the operands'
// type (L = 32 for float, 16 for double), lane j taking elements j, j + L, ..., added pairwise
// in a fixed order at
// the end: the same bits from every clone (fma is exact everywhere), any thread count. The
// matrix-vector products of matmul.cpp (docs/cpu-gemm.md, "Matrix times vector").
float dot_f32(const float* a, const float* b, int64_t n);
double dot_f64(const double* a, const double* b, int64_t n);
// out[r] = dot(a + r * row_stride, b, n) for r < rows, with dot_*'s bits, two rows at a time
// (the vector's loads shared).
void dot_rows_f32(const float* a, int64_t row_stride, int64_t rows, const float* b, int64_t n,
                  float* out);
void dot_rows_f64(const double* a, int64_t row_stride, int64_t rows, const double* b, int64_t n,
                  double* out);

// Sums in double: L partial sums (L = 32 for float32, 16 for float64), lane j taking elements
// j, j + L, ..., added pairwise in a fixed order at the end. Error about n/L * 2^-53 relative to
// sum |x|: float32-exact far past 10^8. sum_bf16 gives the bits of sum_f32 of the widened
// elements.
double sum_f32(const float* x, int64_t n);
// out[r] = sum_f32(x + r * stride, n) for r < rows, bit for bit; on AVX-512 four runs at once
// (their last halving steps share vectors: sums over the rows of a [16384, 64], docs/).
void sum_rows_f32(const float* x, int64_t stride, int64_t rows, int64_t n, double* out);
double sum_f64(const double* x, int64_t n);
double sum_bf16(const uint16_t* x, int64_t n);
// sum_f32 and sum_bf16 come in three forms with the same bits (a NaN result's sign and payload
// aside: which NaN an add returns depends on the order of its operands): the plain loop (kLanes,
// any CPU), and hand-written ones for AVX2 and for AVX-512; they run the widest one the CPU has.
// The *_form calls run a given form (kLanes where the CPU lacks it), for the tests that the
// forms agree.
enum class SumForm { kLanes, kAvx2, kAvx512 };
bool sum_form_supported(SumForm form);
double sum_f32_form(SumForm form, const float* x, int64_t n);
double sum_bf16_form(SumForm form, const uint16_t* x, int64_t n);
// best[j] = the larger (is_max) or smaller of best[j] and row[j] for j < n, with PyTorch's
// rules: a NaN wins and stays, a tie keeps the earlier value; where best_index is not null,
// best_index[j] = row_index where row[j] was taken (the rows of max/min over outer dims).
void fold_extreme_f32(float* best, int64_t* best_index, const float* row, int64_t row_index,
                      int64_t n, bool is_max);
void fold_extreme_f64(double* best, int64_t* best_index, const double* row, int64_t row_index,
                      int64_t n, bool is_max);

// The index of the first extreme of x[0, n) (n >= 1) with the same rules (the first NaN if
// there is one, else the first of the largest or smallest values), and that value in *value:
// max/min over a unit-stride run (the last dim), vectorised in lanes.
int64_t extreme_f32(const float* x, int64_t n, bool is_max, float* value);
int64_t extreme_f64(const double* x, int64_t n, bool is_max, double* value);
// extreme_*'s value alone, the same bits (amax, amin, and max or min of everything); runs
// shorter than kExtremeValueMinRun take extreme_*, at the cost of one more call.
constexpr int64_t kExtremeValueMinRun = 64;
float extreme_value_f32(const float* x, int64_t n, bool is_max);
double extreme_value_f64(const double* x, int64_t n, bool is_max);

// acc[j] += x[j] for j < n (the rows of a reduction over outer dims).
void accumulate_f32(double* acc, const float* x, int64_t n);
// acc[j] += the rows x[j + r * stride] for r < rows, four rows added in double before each
// update of acc (a load, add and store of acc per four elements instead of per element); the
// order is fixed, so the sum does not depend on the thread count.
void accumulate_rows_f32(double* acc, const float* x, int64_t stride, int64_t rows, int64_t n);
void accumulate_f64(double* acc, const double* x, int64_t n);
// The same two over bfloat16 bit patterns, each element widened: the float32 forms' sums of
// the widened values, bit for bit.
void accumulate_bf16(double* acc, const uint16_t* x, int64_t n);
void accumulate_rows_bf16(double* acc, const uint16_t* x, int64_t stride, int64_t rows, int64_t n);
// accumulate_rows_bf16 in a given form (the plain loop's clone for kLanes and kAvx2; kAvx512
// where the CPU has it), for the tests: every form gives the same bits (a NaN's sign and payload
// aside, as for the sums).
void accumulate_rows_bf16_form(SumForm form, double* acc, const uint16_t* x, int64_t stride,
                               int64_t rows, int64_t n);

// Softmax over `rows` rows of n, one after another: y = exp(x - max) / sum, or log_softmax:
// y = x - max - log(sum), with the sum in double. max ignores NaN (NaN flows through exp into
// the sum, so a NaN row is all NaN, as in PyTorch); a row of -inf gets shift 0 (0/0 = NaN
// everywhere, as in PyTorch). Short rows go in groups of softmax_row_group(n), whose logs or
// reciprocals are one vector loop.
void softmax_rows_f32(const float* x, float* y, int64_t rows, int64_t n, bool log_form);
inline constexpr int64_t kSoftmaxRowGroup = 16;
// Rows per group: up to 4096 elements (16 KiB of exps, next to the input in L1).
inline int64_t softmax_row_group(int64_t n) {
  if (n <= 4096 / kSoftmaxRowGroup) return kSoftmaxRowGroup;
  return n >= 4096 ? 1 : 4096 / n;
}
// The floats of scratch that softmax_rows_bf16 needs for rows of n.
inline int64_t softmax_rows_scratch(int64_t n) { return softmax_row_group(n) * n; }
// The same for `width` rows side by side (width <= kSoftmaxColumns): row j holds elements
// x[j], x[j + stride], ..., x[j + (n - 1) stride] (softmax over a dim that is not the last of a
// contiguous tensor), with the arithmetic of softmax_rows_f32 vectorised across the rows.
inline constexpr int64_t kSoftmaxColumns = 64;
void softmax_columns_f32(const float* x, float* y, int64_t n, int64_t stride, int64_t width,
                         bool log_form);
// The same two on bfloat16 bit patterns, computed in float32 (each element widened where it is
// read, each output rounded once where it is written: the float32 functions' bits on the
// widened input, rounded), with exp(x - max) kept in `scratch`: softmax_rows_scratch(n) floats
// for rows, n * width for side-by-side rows.
void softmax_rows_bf16(const uint16_t* x, uint16_t* y, float* scratch, int64_t rows, int64_t n,
                       bool log_form);
void softmax_columns_bf16(const uint16_t* x, uint16_t* y, float* scratch, int64_t n, int64_t stride,
                          int64_t width, bool log_form);

// y[i] = x[i] cast to int64 as loops.hpp's convert does (vec_cast.cpp).
void cast_f32_i64(const float* x, int64_t* y, int64_t n);
void cast_f64_i64(const double* x, int64_t* y, int64_t n);

}  // namespace wick::cpu::vec
