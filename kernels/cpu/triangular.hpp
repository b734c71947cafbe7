// triangular.hpp: the row updates and triangular substitutions that the CPU's LU, Cholesky and
// triangular-solve kernels share (triangular.cpp; lu.cpp, cholesky.cpp). Row-major throughout:
// a substitution subtracts multiples of solved rows of X from the rows below (or above), axpys
// over contiguous columns that the compiler vectorises. Internal to kernels/cpu.
#pragma once

#include <cstdint>
#include <vector>

#include "gemm/gemm.hpp"

namespace wick::cpu {

// y -= a x over n elements (two roundings per element: the files are built with
// -ffp-contract=off, so every clone rounds as the scalar code and the fuzz model).
void subtract_scaled(float* y, const float* x, float a, int64_t n);
void subtract_scaled(double* y, const double* x, double a, int64_t n);

// y -= a[t * a_stride] x[t] for t = 0 .. count-1 in order, rows x[t] = base + t * stride, four
// per pass through y (each element's subtractions stay in order t = 0, 1, ...).
template <typename T>
void subtract_rows(T* y, const T* base, int64_t stride, const T* a, int64_t a_stride, int64_t count,
                   int64_t n);

// c [a.rows x b.cols] (row stride ldc) -= a @ b, through scratch (gemm writes its product);
// `threads` as gemm's (0: all).
template <typename T>
void subtract_product(T* c, int64_t ldc, const gemm::ConstMatrix<T>& a,
                      const gemm::ConstMatrix<T>& b, std::vector<T>& scratch, int threads);

// Columns [c0, c1) of X [n, k] (row stride k), solved in place against the triangle of a
// [n, n] (row stride lda): solve_lower takes a's lower triangle (a L y = x forward), solve_upper
// its upper one (back); `unit`: the diagonal is taken as ones and never read. From
// kTriangularGemmFrom rows on, each block of kTriangularBlock rows first takes the updates of
// all rows solved before it as one GEMM; below it, the row-by-row order, whose values the LU
// fuzz model reproduces bit for bit. A zero on a used diagonal gives inf or NaN, as LAPACK's
// trsm (the callers that must refuse it check first).
inline constexpr int64_t kTriangularBlock = 32, kTriangularGemmFrom = 128;
template <typename T>
void solve_lower(const T* a, int64_t lda, bool unit, T* x, int64_t n, int64_t k, int64_t c0,
                 int64_t c1);
template <typename T>
void solve_upper(const T* a, int64_t lda, bool unit, T* x, int64_t n, int64_t k, int64_t c0,
                 int64_t c1);

// Columns of B solved together: enough to fill a vector loop, few enough that a [n, 64] slab
// of X stays in cache while the triangle streams past.
inline constexpr int64_t kSolveColumns = 64;

}  // namespace wick::cpu
