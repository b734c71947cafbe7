// linalg_common.hpp: the checks and shape helpers that the linalg boundaries share
// (ops_solve.cpp, ops_cholesky.cpp). Internal to core/src.
#pragma once

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick::detail {

// A [..., n, n] of float32 or float64 (LAPACK's types; bfloat16 is refused, as torch's
// linalg), named as `name`'s argument `what`.
inline void check_square(const Tensor& a, const char* name, const char* what = "A") {
  check_defined(name, {&a});
  WICK_CHECK(a.dim() >= 2 && a.size(-1) == a.size(-2), ShapeError, name, what,
             " must be batches of square matrices, got ", describe(a));
  WICK_CHECK(is_floating(a.dtype()) && a.dtype() != kBFloat16, DtypeError, name, what,
             " must be float32 or float64, got ", describe(a));
}

// sizes without their last `count` dims.
inline Shape without_last(Shape sizes, size_t count) {
  for (size_t i = 0; i < count; ++i) sizes.erase(sizes.size() - 1);
  return sizes;
}

// The batch shape of A [..., n, n] and B [..., r, c] broadcast together, with A's and B's own
// last two dims after it: the shapes both expand to before the kernels pack them. Batches that
// do not broadcast are a ShapeError naming `name` and both operands.
inline std::pair<Shape, Shape> broadcast_batch(const Tensor& a, const Tensor& b, const char* name) {
  Shape batch;
  try {
    batch = broadcast_shapes(without_last(a.sizes(), 2), without_last(b.sizes(), 2));
  } catch (const ShapeError&) {
    fail<ShapeError>(name, "the batch dims of A ", describe(a), " and B ", describe(b),
                     " cannot be broadcast");
  }
  Shape a_full = batch, b_full = batch;
  a_full.push_back(a.size(-2));
  a_full.push_back(a.size(-1));
  b_full.push_back(b.size(-2));
  b_full.push_back(b.size(-1));
  return {a_full, b_full};
}

// A zero on the diagonal of the triangular factor t [..., n, n]: a ValueError naming the first
// such matrix of the batch and the diagonal element (1-based, as torch's LinAlgError), found
// only once the check has failed (one reduction and one host read otherwise). `which` ends
// the sentence "the diagonal element k of ...".
inline void check_nonzero_diagonal(const Tensor& t, const char* name, const char* which) {
  if (t.numel() == 0) return;
  const Tensor zero = eq(t.detach().diagonal(0, -2, -1), 0);
  if (!any(zero).item<bool>()) return;
  const std::vector<int64_t> first =
      zero.reshape({-1, t.size(-1)}).nonzero().select(0, 0).to(kCPU).to_vector<int64_t>();
  fail<ValueError>(name, "the matrix is singular: (batch element ", first[0],
                   ") the diagonal element ", first[1] + 1, " of ", which, ", for ", describe(t));
}

}  // namespace wick::detail
