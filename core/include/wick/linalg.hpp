// linalg.hpp: square linear systems, inverses, determinants and LU factorisations
// (core/src/ops_solve.cpp), Cholesky factorisations and triangular systems
// (core/src/ops_cholesky.cpp), as torch.linalg's, over batches of matrices in the leading dims
// (broadcast between A and B). An LU factorisation with partial pivoting, a Cholesky
// factorisation and the triangular substitutions, as kernels on both devices (blocked with
// wick's GEMM on the CPU from 128 rows; one block or one launch per column on the GPU, meant
// for small and medium matrices; docs/cpu-kernels.md measures them against LAPACK). Included
// by wick/wick.hpp.
#pragma once

#include <tuple>

#include "wick/tensor.hpp"

namespace wick {

// linalg_solve: X with A @ X = B, A [..., n, n] floating, B [..., n, k] or a vector [..., n]
// (when B has one dim fewer than A and A's shape without its last dim, or is 1-D), of A's
// dtype. A matrix with a zero pivot is singular: a ValueError, as torch's LinAlgError.
Tensor linalg_solve(const Tensor& a, const Tensor& b);
// linalg_inv / inverse: the inverse of each square matrix (singular: a ValueError).
Tensor linalg_inv(const Tensor& a);
Tensor inverse(const Tensor& a);
// det / linalg_det: the determinant of each square matrix (0 for a singular one, 1 for 0 x 0).
// slogdet: (sign, log |det|): sign 0 and -inf for a singular matrix.
Tensor det(const Tensor& a);
Tensor linalg_det(const Tensor& a);
// det's gradient (what its backward rule runs): grad times the cofactor matrix adj(A)^T, which
// is det(A) A^-T for an invertible A and is computed exactly (float64, on the host) for a
// singular one, where PyTorch 1.13's A^-T formula gives NaN or zeros. grad and det have A's
// batch shape.
Tensor det_backward(const Tensor& grad, const Tensor& a, const Tensor& det);
std::tuple<Tensor, Tensor> slogdet(const Tensor& a);

// linalg_lu_factor: (LU, pivots) of each square matrix, as torch.linalg.lu_factor: LU holds U
// on and above the diagonal and L's multipliers below (L's unit diagonal implied); pivots
// [..., n] are 1-based as LAPACK's (row i was swapped with row pivots[i] at step i) but int64,
// wick's only integer dtype. A singular matrix factors (a zero on U's diagonal). Not
// differentiable: an A that autograd records is a ValueError (linalg_solve and det are).
std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& a);
// linalg_lu_solve: X with A X = B from linalg_lu_factor's LU and pivots (B [..., n, k], its
// batch broadcast with LU's). Pivots out of [1, n] are an IndexError (any row may be named, as
// in torch: row i is swapped with row pivots[i] in order); a zero
// on U's diagonal a ValueError. Not differentiable (a recorded LU or B is a ValueError).
Tensor linalg_lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b);

// linalg_cholesky: L, lower triangular with a positive diagonal, with A = L L^T, of each
// symmetric positive-definite matrix of A [..., n, n] (float32 or float64), read from A's lower
// triangle only (LAPACK potrf's rule; the other triangle is never read). upper: U = L^T, with
// A = U^T U, read from A's upper triangle. A matrix that is not positive-definite (a pivot
// <= 0 or NaN) is a ValueError naming the batch element and the order of the leading minor,
// as torch's LinAlgError. Differentiable (torch's rule: a symmetric gradient).
Tensor linalg_cholesky(const Tensor& a, bool upper = false);
// linalg_cholesky_ex: (L, info) without the error: info [...] int64 (torch: int32), 0 or the
// order k of the first leading minor that is not positive-definite; L's columns from k - 1 on
// (its lower triangle) are then NaN. check_errors: raise as linalg_cholesky instead.
std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& a, bool upper = false,
                                              bool check_errors = false);
// linalg_solve_triangular: X with A X = B (left) or X A = B (left = false), A [..., n, n]
// triangular: only its lower (upper) triangle is read, its diagonal taken as ones when
// unitriangular. B [..., n, k] (left) or [..., k, n], batch broadcast with A's, of A's dtype.
// A zero on a read diagonal gives infinities or NaN, as LAPACK's trsm and torch (no error).
// Differentiable in A (within its triangle) and B.
Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left = true,
                               bool unitriangular = false);
// cholesky_solve: X with A X = B from A's Cholesky factor (torch's argument order: B first),
// L lower with A = L L^T, or upper with A = U^T U: two triangular solves, differentiable. L's
// gradient stays in the triangle the solves read (the derivative of what is computed); torch's
// rule also fills the other one, -(C + C^T) L with its unread entries. From linalg_cholesky
// the two agree, since the factorisation's rule reads only that triangle. A zero on L's
// diagonal gives infinities or NaN, as torch's.
Tensor cholesky_solve(const Tensor& b, const Tensor& l, bool upper = false);
// cholesky_inverse: A^-1 from A's Cholesky factor, as cholesky_solve against the identity; a
// zero on the factor's diagonal is a ValueError naming it, as torch's LinAlgError.
Tensor cholesky_inverse(const Tensor& l, bool upper = false);

}  // namespace wick
