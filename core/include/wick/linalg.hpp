// linalg.hpp: square linear systems, inverses, determinants and LU factorisations
// (core/src/ops_solve.cpp), as torch.linalg's, over batches of matrices in the leading dims
// (broadcast between A and B). An LU factorisation with partial pivoting and the two
// triangular substitutions, as kernels on both devices (unblocked: meant for small and medium
// matrices; docs/cpu-kernels.md measures them against LAPACK). Included by wick/wick.hpp.
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

}  // namespace wick
