// ops_cholesky.cpp: linalg_cholesky(_ex), linalg_solve_triangular, cholesky_solve and
// cholesky_inverse (wick/linalg.hpp) on two kernels, cholesky_factor and triangular_solve
// (kernels/cpu/cholesky.cpp and triangular.cpp, kernels/cuda/cholesky.cu), batched over the
// leading dims, A and B broadcast to one batch and packed first.
//  - The factorisation is recorded as linalg_cholesky of A's lower triangle; upper = true
//    factors A^T (a view) and returns the factor's transpose (a view), so both take one rule
//    (autograd/rules.cpp: torch's, after Murray 2016).
//  - A triangular solve is recorded as linalg_solve_triangular with A on the left (ints =
//    {upper, unitriangular}); left = false solves A^T X^T = B^T instead, in views.
//  - cholesky_solve and cholesky_inverse are two triangular solves.
#include "internal.hpp"
#include "linalg_common.hpp"
#include "wick/linalg.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

using detail::check_square;
using detail::without_last;

struct Factor {
  Tensor l, info;
};

// L of A's lower triangle and info, recorded as linalg_cholesky.
Factor factor_lower(const Tensor& a, const char* name) {
  Factor f{detail::make_empty(a.sizes(), a.dtype(), a.device(), name),
           detail::make_empty(without_last(a.sizes(), 2), kInt64, a.device(), name)};
  if (f.info.numel() > 0) {
    const Tensor packed = detail::packed(a, name);
    OpCall call;
    call.op = OpId::cholesky_factor;
    call.inputs[0] = &packed;
    call.num_inputs = 1;
    call.outputs = {&f.l, &f.info};
    call.num_outputs = 2;
    run_kernel(call, a.device());
  }
  OpCall record;
  record.op = OpId::linalg_cholesky;
  record.inputs[0] = &a;
  record.num_inputs = 1;
  record.outputs[0] = &f.l;
  record.num_outputs = 1;
  detail::maybe_record(record);
  return f;
}

// A failed factorisation: a ValueError naming the first such matrix of the batch (when A has
// one) and the order of its leading minor, found only once the check has failed.
void check_positive_definite(const Tensor& info, const Tensor& a, const char* name) {
  if (info.numel() == 0) return;
  const Tensor failed = ne(info.reshape({-1}), 0);
  if (!any(failed).item<bool>()) return;
  const int64_t element = failed.nonzero().select(0, 0).select(0, 0).item<int64_t>();
  const int64_t order = info.reshape({-1}).select(0, element).item<int64_t>();
  if (a.dim() > 2) {
    detail::fail<ValueError>(
        name, "(batch element ", element,
        ") the input is not positive-definite:", " the leading minor of order ", order,
        " is not positive-definite, for ", describe(a));
  }
  detail::fail<ValueError>(name, "the input is not positive-definite: the leading minor of order ",
                           order, " is not positive-definite, for ", describe(a));
}

// X with A X = B for A's triangle, A [..., n, n] and B [..., n, k] of one batch; recorded.
Tensor solve_recorded(const Tensor& a, const Tensor& b, bool upper, bool unit, const char* name) {
  Tensor x = detail::make_empty(b.sizes(), b.dtype(), b.device(), name);
  const Shape flags{upper ? 1 : 0, unit ? 1 : 0};
  if (x.numel() > 0) {
    const Tensor packed_a = detail::packed(a, name), packed_b = detail::packed(b, name);
    OpCall call;
    call.op = OpId::triangular_solve;
    call.inputs = {&packed_a, &packed_b};
    call.num_inputs = 2;
    call.outputs[0] = &x;
    call.num_outputs = 1;
    call.ints = flags;
    run_kernel(call, b.device());
  }
  OpCall record;
  record.op = OpId::linalg_solve_triangular;
  record.inputs = {&a, &b};
  record.num_inputs = 2;
  record.outputs[0] = &x;
  record.num_outputs = 1;
  record.ints = flags;
  detail::maybe_record(record);
  return x;
}

// A [..., n, n] and B [..., n, k] (the side A multiplies: `rows` = true), or [..., k, n], one
// dtype, one device.
void check_system(const Tensor& a, const Tensor& b, bool rows, const char* name,
                  const char* what_a) {
  check_square(a, name, what_a);
  detail::check_defined(name, {&b});
  detail::check_same_device(name, {&a, &b});
  WICK_CHECK(a.dtype() == b.dtype(), DtypeError, name, what_a, " and B must have one dtype, got ",
             describe(a), " and ", describe(b));
  const int64_t n = a.size(-1);
  WICK_CHECK(b.dim() >= 2 && b.size(rows ? -2 : -1) == n, ShapeError, name, "B must be [..., ",
             rows ? std::to_string(n) + ", k" : "k, " + std::to_string(n), "] for ", what_a, " ",
             describe(a), ", got ", describe(b));
}

Tensor solve_left(const Tensor& a, const Tensor& b, bool upper, bool unit, const char* name) {
  const auto [a_full, b_full] = detail::broadcast_batch(a, b, name);
  return solve_recorded(a.expand(a_full), b.expand(b_full), upper, unit, name);
}

}  // namespace

std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& a, bool upper, bool check_errors) {
  const char* name = "linalg_cholesky";
  check_square(a, name);
  // A's upper triangle is the lower triangle of A^T.
  const Factor f = factor_lower(upper ? a.transpose(-2, -1) : a, name);
  if (check_errors) check_positive_definite(f.info, a, name);
  return {upper ? f.l.transpose(-2, -1) : f.l, f.info};
}

Tensor linalg_cholesky(const Tensor& a, bool upper) {
  return std::get<0>(linalg_cholesky_ex(a, upper, true));
}

Tensor linalg_solve_triangular(const Tensor& a, const Tensor& b, bool upper, bool left,
                               bool unitriangular) {
  const char* name = "linalg_solve_triangular";
  detail::check_defined(name, {&a, &b});
  check_system(a, b, left, name, "A");
  if (left) return solve_left(a, b, upper, unitriangular, name);
  // X A = B: A^T X^T = B^T, with A^T's other triangle.
  return solve_left(a.transpose(-2, -1), b.transpose(-2, -1), !upper, unitriangular, name)
      .transpose(-2, -1);
}

Tensor cholesky_solve(const Tensor& b, const Tensor& l, bool upper) {
  const char* name = "cholesky_solve";
  detail::check_defined(name, {&b, &l});  // torch's order: B, then L
  check_system(l, b, true, name, "L");
  const Tensor lt = l.transpose(-2, -1);
  // A = L L^T: L Y = B, then L^T X = Y; A = U^T U: U^T Y = B, then U X = Y.
  const Tensor y = solve_left(upper ? lt : l, b, false, false, name);
  return solve_left(upper ? l : lt, y, true, false, name);
}

Tensor cholesky_inverse(const Tensor& l, bool upper) {
  check_square(l, "cholesky_inverse", "L");
  // A zero on the factor's diagonal: torch's LinAlgError (cholesky_solve itself gives inf).
  detail::check_nonzero_diagonal(l, "cholesky_inverse", "L is zero");
  // An empty batch needs no identity (of a size that may not fit in memory).
  if (l.numel() == 0) return cholesky_solve(l, l, upper);
  const Tensor identity = eye(l.size(-1), TensorOptions(l.dtype()).device(l.device()));
  return cholesky_solve(identity.expand(l.sizes()), l, upper);
}

}  // namespace wick
