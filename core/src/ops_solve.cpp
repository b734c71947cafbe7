// ops_solve.cpp: linalg_solve, linalg_inv, det and slogdet (wick/linalg.hpp) from an LU
// factorisation with partial pivoting written in tensor ops, batched over the leading dims:
//  - column k: the row with the largest |value| at or below k is swapped into row k (a gather
//    of the rows in their new order; the permutation and the swap count are kept), the entries
//    below the pivot become L's multipliers (column / pivot; a zero pivot, whose column is then
//    all zeros, divides by 1 instead, as LAPACK's getrf skips it), and the trailing block loses
//    their outer product with the pivot row;
//  - solve: B's rows permuted, forward substitution through the unit lower triangle and back
//    substitution through the upper one, one row at a time (a matmul with the rows found so far).
// Every step is an op on both devices and autograd follows (the pivot choice is an index, so
// the gradient is that of the factorisation for the rows chosen).
#include "internal.hpp"
#include "wick/linalg.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

struct Lu {
  Tensor lu;     // [..., n, n]: U on and above the diagonal, L's multipliers below (unit diagonal)
  Tensor perm;   // [..., n] int64: row i of the factored matrix is row perm[i] of A
  Tensor swaps;  // [...] int64: how many row swaps were made
};

void check_square(const Tensor& a, const char* name) {
  detail::check_defined(name, {&a});
  WICK_CHECK(a.dim() >= 2 && a.size(-1) == a.size(-2), ShapeError, name,
             "A must be batches of square matrices, got ", describe(a));
  WICK_CHECK(is_floating(a.dtype()) && a.dtype() != kBFloat16, DtypeError, name,
             "A must be float32 or float64, got ", describe(a));
}

Lu lu_factor(const Tensor& a) {
  const int64_t n = a.size(-1);
  const TensorOptions index_options = TensorOptions(kInt64).device(a.device());
  Shape batch = a.sizes();
  batch.erase(batch.size() - 1);
  batch.erase(batch.size() - 1);
  Shape perm_sizes = batch;
  perm_sizes.push_back(n);
  const Tensor positions = arange(n, index_options);
  Lu f{a, positions.expand(perm_sizes), zeros(batch, index_options)};
  for (int64_t k = 0; k < n; ++k) {
    const Tensor column = f.lu.narrow(-2, k, n - k).select(-1, k);
    const Tensor pivot_row = argmax(abs(column.detach()), -1) + k;  // [...]
    const Tensor p = pivot_row.unsqueeze(-1);
    const Tensor order = where(eq(positions, k), p, where(eq(positions, p), Scalar(k), positions));
    f.lu = gather(f.lu, -2, order.unsqueeze(-1).expand(f.lu.sizes()));
    f.perm = gather(f.perm, -1, order);
    f.swaps = f.swaps + ne(pivot_row, k).to(kInt64);
    if (k + 1 == n) break;
    const int64_t m = n - k - 1;
    const Tensor pivot = f.lu.narrow(-2, k, 1).narrow(-1, k, 1);  // [..., 1, 1]
    const Tensor divisor = where(eq(pivot.detach(), 0), Scalar(1.0), pivot);
    const Tensor multipliers = f.lu.narrow(-2, k + 1, m).narrow(-1, k, 1) / divisor;
    const Tensor pivot_rest = f.lu.narrow(-2, k, 1).narrow(-1, k + 1, m);  // [..., 1, m]
    const Tensor trailing =
        f.lu.narrow(-2, k + 1, m).narrow(-1, k + 1, m) - multipliers * pivot_rest;
    const Tensor lower =
        cat({f.lu.narrow(-2, k + 1, m).narrow(-1, 0, k), multipliers, trailing}, -1);
    f.lu = cat({f.lu.narrow(-2, 0, k + 1), lower}, -2);
  }
  return f;
}

void check_nonsingular(const Lu& f, const char* name) {
  if (f.lu.numel() == 0) return;
  const bool singular = any(eq(f.lu.detach().diagonal(0, -2, -1), 0)).item<bool>();
  WICK_CHECK(!singular, ValueError, name,
             "the matrix is singular (a zero pivot in its LU factorisation), for ", describe(f.lu));
}

// X with (P A) X = P B for B [..., n, k] already broadcast to A's batch.
Tensor substitute(const Lu& f, const Tensor& b) {
  const int64_t n = f.lu.size(-1);
  const Tensor rows = gather(b, -2, f.perm.unsqueeze(-1).expand(b.sizes()));
  std::vector<Tensor> y;  // forward: L y = P b, L unit lower triangular
  for (int64_t i = 0; i < n; ++i) {
    Tensor row = rows.narrow(-2, i, 1);
    if (i > 0) row = row - matmul(f.lu.narrow(-2, i, 1).narrow(-1, 0, i), cat(y, -2));
    y.push_back(row);
  }
  std::vector<Tensor> x(static_cast<size_t>(n));  // back: U x = y
  for (int64_t i = n - 1; i >= 0; --i) {
    Tensor row = y[static_cast<size_t>(i)];
    if (i + 1 < n) {
      const std::vector<Tensor> below(x.begin() + i + 1, x.end());
      row = row - matmul(f.lu.narrow(-2, i, 1).narrow(-1, i + 1, n - i - 1), cat(below, -2));
    }
    x[static_cast<size_t>(i)] = row / f.lu.narrow(-2, i, 1).narrow(-1, i, 1);
  }
  return n == 0 ? b : cat(x, -2);
}

// The sign of each permutation: +1 for an even number of swaps, -1 for an odd one.
Tensor permutation_sign(const Lu& f, Dtype dtype) {
  return (1 - 2 * remainder(f.swaps, 2)).to(dtype);
}

}  // namespace

Tensor linalg_solve(const Tensor& a, const Tensor& b) {
  const char* name = "linalg_solve";
  check_square(a, name);
  detail::check_defined(name, {&b});
  detail::check_same_device(name, {&a, &b});
  WICK_CHECK(a.dtype() == b.dtype(), DtypeError, name, "A and B must have one dtype, got ",
             describe(a), " and ", describe(b));
  Shape a_rows = a.sizes();
  a_rows.erase(a_rows.size() - 1);
  const bool vector = b.dim() == 1 || (b.dim() == a.dim() - 1 && b.sizes() == a_rows);
  const Tensor b2 = vector ? b.unsqueeze(-1) : b;
  WICK_CHECK(b2.dim() >= 2 && b2.size(-2) == a.size(-1), ShapeError, name, "B must have A's ",
             a.size(-1), " rows, got ", describe(a), " and ", describe(b));
  // Broadcast the batch dims.
  Shape a_batch = a.sizes(), b_batch = b2.sizes();
  a_batch.erase(a_batch.size() - 1);
  a_batch.erase(a_batch.size() - 1);
  b_batch.erase(b_batch.size() - 1);
  b_batch.erase(b_batch.size() - 1);
  Shape batch = broadcast_shapes(a_batch, b_batch);
  Shape a_full = batch, b_full = batch;
  a_full.push_back(a.size(-2));
  a_full.push_back(a.size(-1));
  b_full.push_back(b2.size(-2));
  b_full.push_back(b2.size(-1));
  const Lu f = lu_factor(a.expand(a_full));
  check_nonsingular(f, name);
  const Tensor x = substitute(f, b2.expand(b_full));
  return vector ? x.squeeze(-1) : x;
}

Tensor linalg_inv(const Tensor& a) {
  check_square(a, "linalg_inv");
  const Tensor identity = eye(a.size(-1), TensorOptions(a.dtype()).device(a.device()));
  const Lu f = lu_factor(a);
  check_nonsingular(f, "linalg_inv");
  return substitute(f, identity.expand(a.sizes()));
}
Tensor inverse(const Tensor& a) { return linalg_inv(a); }

Tensor det(const Tensor& a) {
  check_square(a, "det");
  const Lu f = lu_factor(a);
  return prod(f.lu.diagonal(0, -2, -1), -1) * permutation_sign(f, a.dtype());
}
Tensor linalg_det(const Tensor& a) { return det(a); }

std::tuple<Tensor, Tensor> slogdet(const Tensor& a) {
  check_square(a, "slogdet");
  const Lu f = lu_factor(a);
  const Tensor diagonal = f.lu.diagonal(0, -2, -1);
  const Tensor sign_of = prod(sign(diagonal.detach()), -1) * permutation_sign(f, a.dtype());
  return {sign_of, sum(log(abs(diagonal)), -1)};
}

}  // namespace wick
