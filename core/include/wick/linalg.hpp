// linalg.hpp: square linear systems, inverses and determinants (core/src/ops_solve.cpp), as
// torch.linalg's, over batches of matrices in the leading dims (broadcast between A and B).
// Made of other ops (an LU factorisation with partial pivoting, column by column, then the two
// triangular substitutions row by row), so they run on both devices and autograd differentiates
// through the factorisation. n steps of a few kernels each: meant for small and medium
// matrices, not a LAPACK. Included by wick/wick.hpp.
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

}  // namespace wick
