// ops_solve.cpp: linalg_solve, linalg_inv, det and slogdet (wick/linalg.hpp) on the LU kernels
// (OpId::lu_factor and lu_solve: kernels/cpu/lu.cpp, kernels/cuda/lu.cu), batched over the
// leading dims, A and B broadcast to one batch and packed first.
//  - linalg_solve and linalg_inv are one recorded op, OpId::linalg_solve, whose rule is
//    closed-form: X = A^-1 B gives dB = A^-T g and dA = -dB X^T (autograd/rules.cpp).
//  - det reads the factorisation's diagonal and the pivots' swap count, and is one recorded op,
//    OpId::det, whose rule is det_backward: the cofactor matrix adj(A)^T, which is det(A) A^-T
//    (on the device, from a second factorisation) where no pivot is zero, and otherwise comes
//    from a float64 LU with complete pivoting on the host (adjugate_transpose below), exact for
//    a singular matrix, where torch 1.13's A^-T formula gives NaN or zeros.
//  - slogdet reads the same, and while its input is recorded for autograd it factors with
//    tensor ops instead (lu_by_ops below, slower): the gradient is then that of the
//    factorisation for the rows chosen. That factorisation, column k: the row with the largest
//    |value| at or below k is swapped into row k (a gather of the rows in their new order), the
//    entries below the pivot become L's multipliers (column / pivot; a zero pivot divides by 1
//    instead, as getrf skips it), and the trailing block loses their outer product with the
//    pivot row.
#include <cmath>
#include <utility>
#include <vector>

#include "internal.hpp"
#include "linalg_common.hpp"
#include "wick/linalg.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

using detail::check_square;
using detail::without_last;

// The kernels' factorisation of A [..., n, n]: LU of A's sizes and pivots [..., n] (row k was
// swapped with row pivots[k] at step k), neither recorded.
struct Factored {
  Tensor lu, pivots;
};

Factored factor(const Tensor& a, const char* name) {
  Factored f{detail::make_empty(a.sizes(), a.dtype(), a.device(), name),
             detail::make_empty(without_last(a.sizes(), 1), kInt64, a.device(), name)};
  if (a.numel() == 0) return f;
  const Tensor packed = detail::packed(a, name);
  OpCall call;
  call.op = OpId::lu_factor;
  call.inputs[0] = &packed;
  call.num_inputs = 1;
  call.outputs = {&f.lu, &f.pivots};
  call.num_outputs = 2;
  run_kernel(call, a.device());
  return f;
}

void check_nonsingular(const Tensor& lu, const char* name) {
  detail::check_nonzero_diagonal(lu, name, "U is zero in its LU factorisation");
}

// X with A X = B from A's factorisation, B [..., n, k] of A's batch; not recorded.
Tensor run_lu_solve(const Factored& f, const Tensor& b, const char* name) {
  Tensor x = detail::make_empty(b.sizes(), b.dtype(), b.device(), name);
  if (x.numel() == 0) return x;
  const Tensor lu = detail::packed(f.lu, name), pivots = detail::packed(f.pivots, name),
               packed = detail::packed(b, name);
  OpCall call;
  call.op = OpId::lu_solve;
  call.inputs = {&lu, &pivots, &packed};
  call.num_inputs = 3;
  call.outputs[0] = &x;
  call.num_outputs = 1;
  run_kernel(call, b.device());
  return x;
}

// X with A X = B for A [..., n, n] and B [..., n, k] of one batch, recorded as linalg_solve.
Tensor solve_recorded(const Tensor& a, const Tensor& b, const char* name) {
  const Factored f = factor(a, name);
  check_nonsingular(f.lu, name);
  Tensor x = run_lu_solve(f, b, name);
  OpCall record;
  record.op = OpId::linalg_solve;
  record.inputs = {&a, &b};
  record.num_inputs = 2;
  record.outputs[0] = &x;
  record.num_outputs = 1;
  detail::maybe_record(record);
  return x;
}

void check_not_recorded(const Tensor& t, const char* name) {
  WICK_CHECK(!(GradMode::is_enabled() && t.requires_grad()), ValueError, name,
             "is not differentiable in wick, and its input requires grad: ", describe(t),
             " (linalg_solve, linalg_inv and det are differentiable; or detach it)");
}

// +1 for an even number of row swaps, -1 for an odd one, in dtype.
Tensor permutation_sign(const Tensor& swaps, Dtype dtype) {
  return (1 - 2 * remainder(swaps, 2)).to(dtype);
}

// The factorisation in tensor ops, for slogdet while autograd records it: LU and the
// swap count [...].
std::tuple<Tensor, Tensor> lu_by_ops(const Tensor& a) {
  const int64_t n = a.size(-1);
  const TensorOptions index_options = TensorOptions(kInt64).device(a.device());
  const Tensor positions = arange(n, index_options);
  Tensor lu = a;
  Tensor swaps = zeros(without_last(a.sizes(), 2), index_options);
  for (int64_t k = 0; k < n; ++k) {
    const Tensor column = lu.narrow(-2, k, n - k).select(-1, k);
    const Tensor pivot_row = argmax(abs(column.detach()), -1) + k;  // [...]
    const Tensor p = pivot_row.unsqueeze(-1);
    const Tensor order = where(eq(positions, k), p, where(eq(positions, p), Scalar(k), positions));
    lu = gather(lu, -2, order.unsqueeze(-1).expand(lu.sizes()));
    swaps = swaps + ne(pivot_row, k).to(kInt64);
    if (k + 1 == n) break;
    const int64_t m = n - k - 1;
    const Tensor pivot = lu.narrow(-2, k, 1).narrow(-1, k, 1);  // [..., 1, 1]
    const Tensor divisor = where(eq(pivot.detach(), 0), Scalar(1.0), pivot);
    const Tensor multipliers = lu.narrow(-2, k + 1, m).narrow(-1, k, 1) / divisor;
    const Tensor pivot_rest = lu.narrow(-2, k, 1).narrow(-1, k + 1, m);  // [..., 1, m]
    const Tensor trailing = lu.narrow(-2, k + 1, m).narrow(-1, k + 1, m) - multipliers * pivot_rest;
    const Tensor lower = cat({lu.narrow(-2, k + 1, m).narrow(-1, 0, k), multipliers, trailing}, -1);
    lu = cat({lu.narrow(-2, 0, k + 1), lower}, -2);
  }
  return {lu, swaps};
}

// LU's diagonal and the permutation's sign: from the kernels, or from lu_by_ops while a is
// recorded.
std::tuple<Tensor, Tensor> diagonal_and_sign(const Tensor& a, const char* name) {
  check_square(a, name);
  if (a.numel() == 0) {  // no matrix, or 0 x 0 ones (det 1): nothing to factor, whatever n is
    return {a.diagonal(0, -2, -1), ones(without_last(a.sizes(), 2), a.options())};
  }
  if (GradMode::is_enabled() && a.requires_grad()) {
    const auto [lu, swaps] = lu_by_ops(a);
    return {lu.diagonal(0, -2, -1), permutation_sign(swaps, a.dtype())};
  }
  const Factored f = factor(a, name);
  const Tensor positions = arange(a.size(-1), TensorOptions(kInt64).device(a.device()));
  const Tensor swaps = sum(ne(f.pivots, positions), -1);
  return {f.lu.diagonal(0, -2, -1), permutation_sign(swaps, a.dtype())};
}

}  // namespace

Tensor linalg_solve(const Tensor& a, const Tensor& b) {
  const char* name = "linalg_solve";
  check_square(a, name);
  detail::check_defined(name, {&b});
  detail::check_same_device(name, {&a, &b});
  WICK_CHECK(a.dtype() == b.dtype(), DtypeError, name, "A and B must have one dtype, got ",
             describe(a), " and ", describe(b));
  const Shape a_rows = without_last(a.sizes(), 1);
  const bool vector = b.dim() == 1 || (b.dim() == a.dim() - 1 && b.sizes() == a_rows);
  const Tensor b2 = vector ? b.unsqueeze(-1) : b;
  WICK_CHECK(b2.dim() >= 2 && b2.size(-2) == a.size(-1), ShapeError, name, "B must have A's ",
             a.size(-1), " rows, got ", describe(a), " and ", describe(b));
  const auto [a_full, b_full] = detail::broadcast_batch(a, b2, name);
  const Tensor x = solve_recorded(a.expand(a_full), b2.expand(b_full), name);
  return vector ? x.squeeze(-1) : x;
}

Tensor linalg_inv(const Tensor& a) {
  check_square(a, "linalg_inv");
  // An empty batch needs no identity (of a size that may not fit in memory): solve against A.
  if (a.numel() == 0) return solve_recorded(a, a, "linalg_inv");
  const Tensor identity = eye(a.size(-1), TensorOptions(a.dtype()).device(a.device()));
  return solve_recorded(a, identity.expand(a.sizes()), "linalg_inv");
}
Tensor inverse(const Tensor& a) { return linalg_inv(a); }

namespace {

// adj(A)^T of each matrix of a [..., n, n] (n >= 1), the gradient of det, in float64 on the
// host from an LU with complete pivoting, PAQ = LU, so that the zero pivots are the last ones
// and their number is n - rank (partial pivoting can leave a zero pivot before a nonzero one in
// a matrix of rank n - 1). With A = P^T L U Q^T, adj(A) = s Q adj(U) L^-1 P, s the sign of both
// permutations. No zero pivot: adj(A)^T = det(A) A^-T. One, the last: adj(U) = c x y^T with c
// the product of the other pivots, U x = 0 (x_last = 1) and y = e_last, so
// adj(A)^T = s c (P^T L^-T y) (Q x)^T. Two or more: rank n - 2 or less, adj(A) = 0.
Tensor adjugate_transpose(const Tensor& a) {
  const int64_t n = a.size(-1);
  const Tensor host = a.detach().to(kCPU).to(kFloat64).contiguous();
  const std::vector<double> values = host.to_vector<double>();
  std::vector<double> out(values.size(), 0.0);
  const auto un = static_cast<size_t>(n);
  for (size_t base = 0; base < values.size(); base += un * un) {
    std::vector<double> lu(values.begin() + static_cast<std::ptrdiff_t>(base),
                           values.begin() + static_cast<std::ptrdiff_t>(base + un * un));
    auto at = [&](size_t r, size_t c) -> double& { return lu[r * un + c]; };
    // (PAQ)[r][c] = A[rows[r]][cols[c]].
    std::vector<size_t> rows(un), cols(un);
    for (size_t i = 0; i < un; ++i) rows[i] = cols[i] = i;
    double sign = 1.0;
    size_t rank = un;
    for (size_t k = 0; k < un; ++k) {
      size_t pr = k, pc = k;
      for (size_t i = k; i < un; ++i) {
        for (size_t j = k; j < un; ++j) {
          if (std::abs(at(i, j)) > std::abs(at(pr, pc))) {
            pr = i;
            pc = j;
          }
        }
      }
      if (at(pr, pc) == 0.0) {  // the trailing block is zero: rank k
        rank = k;
        break;
      }
      if (pr != k) {
        for (size_t c = 0; c < un; ++c) std::swap(at(k, c), at(pr, c));
        std::swap(rows[k], rows[pr]);
        sign = -sign;
      }
      if (pc != k) {
        for (size_t r = 0; r < un; ++r) std::swap(at(r, k), at(r, pc));
        std::swap(cols[k], cols[pc]);
        sign = -sign;
      }
      for (size_t i = k + 1; i < un; ++i) {
        at(i, k) /= at(k, k);
        for (size_t c = k + 1; c < un; ++c) at(i, c) -= at(i, k) * at(k, c);
      }
    }
    double* adj_t = out.data() + base;
    if (rank + 1 < un) continue;  // rank n - 2 or less: adj(A) = 0
    double scale = sign;
    if (rank == un) {
      // det(A) A^-T: column j of A^-1 is Q U^-1 L^-1 P e_j, and A^-T[j][i] = A^-1[i][j].
      for (size_t k = 0; k < un; ++k) scale *= at(k, k);
      for (size_t j = 0; j < un; ++j) {
        std::vector<double> z(un), column(un);
        for (size_t r = 0; r < un; ++r) z[r] = rows[r] == j ? 1.0 : 0.0;
        for (size_t r = 0; r < un; ++r) {
          for (size_t c = 0; c < r; ++c) z[r] -= at(r, c) * z[c];
        }
        for (size_t r = un; r-- > 0;) {
          for (size_t c = r + 1; c < un; ++c) z[r] -= at(r, c) * z[c];
          z[r] /= at(r, r);
        }
        for (size_t c = 0; c < un; ++c) column[cols[c]] = z[c];
        for (size_t i = 0; i < un; ++i) adj_t[j * un + i] = scale * column[i];
      }
      continue;
    }
    // Rank n - 1: the one zero pivot is the last.
    const size_t last = un - 1;
    for (size_t j = 0; j < last; ++j) scale *= at(j, j);
    std::vector<double> x(un, 0.0), v(un, 0.0), w(un), qx(un);
    x[last] = 1.0;
    for (size_t i = last; i-- > 0;) {
      double acc = 0.0;
      for (size_t j = i + 1; j < un; ++j) acc += at(i, j) * x[j];
      x[i] = -acc / at(i, i);
    }
    // v = L^-T e_last (L unit lower), then w = P^T v and Q x.
    v[last] = 1.0;
    for (size_t i = last; i-- > 0;) {
      for (size_t j = i + 1; j < un; ++j) v[i] -= at(j, i) * v[j];
    }
    for (size_t r = 0; r < un; ++r) {
      w[rows[r]] = v[r];
      qx[cols[r]] = x[r];
    }
    for (size_t i = 0; i < un; ++i) {
      for (size_t j = 0; j < un; ++j) adj_t[i * un + j] = scale * w[i] * qx[j];
    }
  }
  return tensor(out, host.sizes(), TensorOptions(kFloat64)).to(a.dtype()).to(a.device());
}

}  // namespace

Tensor det(const Tensor& a) {
  // The value from the kernels' factorisation, recorded as one op: its rule is det_backward.
  const auto [diagonal, sign_of] = diagonal_and_sign(a.detach(), "det");
  Tensor value = prod(diagonal, -1) * sign_of;
  OpCall record;
  record.op = OpId::det;
  record.inputs = {&a};
  record.num_inputs = 1;
  record.outputs[0] = &value;
  record.num_outputs = 1;
  detail::maybe_record(record);
  return value;
}

Tensor det_backward(const Tensor& grad, const Tensor& a, const Tensor& det) {
  const char* name = "det_backward";
  check_square(a, name);
  detail::check_defined(name, {&grad, &det});
  WICK_CHECK(grad.sizes() == without_last(a.sizes(), 2) && det.sizes() == grad.sizes(), ShapeError,
             name, "expected a gradient and a determinant of the batch shape of ", describe(a),
             ", got ", detail::describe_all({&grad, &det}));
  if (a.numel() == 0) return zeros_like(a);
  const Tensor g = grad.unsqueeze(-1).unsqueeze(-1);
  const Factored f = factor(a.detach(), name);
  // A zero pivot anywhere: the adjugate from a complete-pivoting LU on the host (det A^-T does
  // not exist there). Otherwise det(A) A^-T on the device, A^-1 from the same factorisation.
  if (any(eq(f.lu.diagonal(0, -2, -1), 0)).item<bool>()) return g * adjugate_transpose(a);
  const Tensor identity = eye(a.size(-1), TensorOptions(a.dtype()).device(a.device()));
  const Tensor inverse = run_lu_solve(f, identity.expand(a.sizes()), name);
  return g * det.detach().unsqueeze(-1).unsqueeze(-1) * inverse.transpose(-2, -1);
}
Tensor linalg_det(const Tensor& a) { return det(a); }

std::tuple<Tensor, Tensor> slogdet(const Tensor& a) {
  const auto [diagonal, sign_of] = diagonal_and_sign(a, "slogdet");
  return {prod(sign(diagonal.detach()), -1) * sign_of, sum(log(abs(diagonal)), -1)};
}

std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& a) {
  const char* name = "linalg_lu_factor";
  check_square(a, name);
  check_not_recorded(a, name);
  const Factored f = factor(a, name);
  return {f.lu, f.pivots + 1};
}

Tensor linalg_lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b) {
  const char* name = "linalg_lu_solve";
  check_square(lu, name);
  detail::check_defined(name, {&pivots, &b});
  detail::check_same_device(name, {&lu, &pivots, &b});
  check_not_recorded(lu, name);
  check_not_recorded(b, name);
  const int64_t n = lu.size(-1);
  WICK_CHECK(pivots.dtype() == kInt64 && pivots.sizes() == without_last(lu.sizes(), 1), ShapeError,
             name, "pivots must be int64 of LU's sizes without the last, got ", describe(lu),
             " and ", describe(pivots));
  WICK_CHECK(b.dtype() == lu.dtype(), DtypeError, name, "LU and B must have one dtype, got ",
             describe(lu), " and ", describe(b));
  WICK_CHECK(b.dim() >= 2 && b.size(-2) == n, ShapeError, name, "B must be [..., ", n,
             ", k] for LU ", describe(lu), ", got ", describe(b));
  // The kernels swap row i with row pivots[i] - 1, any row of the matrix (LAPACK's laswp and
  // torch take any, not only those at or below i); one reduction and one host read (a
  // synchronisation on a GPU) for both bounds.
  if (pivots.numel() > 0) {
    const bool in_range = all(logical_and(ge(pivots, 1), le(pivots, n))).item<bool>();
    WICK_CHECK(in_range, IndexError, name, "pivots must be in [1, ", n, "], got ", describe(pivots),
               " with values from ", pivots.min().item<int64_t>(), " to ",
               pivots.max().item<int64_t>());
  }
  check_nonsingular(lu, name);
  const Shape batch = broadcast_shapes(without_last(lu.sizes(), 2), without_last(b.sizes(), 2));
  Shape lu_full = batch, pivots_full = batch, b_full = batch;
  lu_full.push_back(n);
  lu_full.push_back(n);
  pivots_full.push_back(n);
  b_full.push_back(n);
  b_full.push_back(b.size(-1));
  return run_lu_solve({lu.expand(lu_full), (pivots - 1).expand(pivots_full)}, b.expand(b_full),
                      name);
}

}  // namespace wick
