// ops_matrix.cpp: kron, rot90, diag_embed, baddbmm, histc, mv and tensordot, arrangements of
// views, where, bmm, mm, masked_select and bincount: both devices come with those ops, and
// autograd (histc has none, as PyTorch's). Checked here with the op's name.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {

Tensor kron(const Tensor& a, const Tensor& b) {
  const char* name = "kron";
  detail::check_defined(name, {&a, &b});
  detail::check_same_device(name, {&a, &b});
  const int64_t nd = std::max(a.dim(), b.dim());
  // Both padded with leading 1s to nd dims; a as [a0, 1, a1, 1, ...] and b as
  // [1, b0, 1, b1, ...], so that their product is [a0, b0, a1, b1, ...], merged pairwise.
  Shape a_sizes, b_sizes, out_sizes;
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t ai = i - (nd - a.dim()), bi = i - (nd - b.dim());
    const int64_t as = ai >= 0 ? a.size(ai) : 1, bs = bi >= 0 ? b.size(bi) : 1;
    a_sizes.push_back(as);
    a_sizes.push_back(1);
    b_sizes.push_back(1);
    b_sizes.push_back(bs);
    out_sizes.push_back(as * bs);
  }
  return (a.reshape(a_sizes) * b.reshape(b_sizes)).reshape(out_sizes);
}

Tensor rot90(const Tensor& a, int64_t k, const Shape& dims) {
  const char* name = "rot90";
  detail::check_defined(name, {&a});
  WICK_CHECK(dims.size() == 2, ValueError, name, "needs 2 dims to turn in, got ", dims.size());
  WICK_CHECK(a.dim() >= 2, ShapeError, name, "needs at least 2 dims, got ", describe(a));
  const int64_t d0 = detail::wrap_dim(dims[0], a.dim(), name);
  const int64_t d1 = detail::wrap_dim(dims[1], a.dim(), name);
  WICK_CHECK(d0 != d1, ValueError, name, "the two dims must differ, got ", dims[0], " and ",
             dims[1], " for ", describe(a));
  switch (((k % 4) + 4) % 4) {
    case 1:
      return a.flip({d1}).transpose(d0, d1);
    case 2:
      return a.flip({d0, d1});
    case 3:
      return a.flip({d0}).transpose(d0, d1);
    default:
      return a.clone();
  }
}

Tensor diag_embed(const Tensor& a, int64_t offset, int64_t dim1, int64_t dim2) {
  const char* name = "diag_embed";
  detail::check_defined(name, {&a});
  WICK_CHECK(a.dim() >= 1, ShapeError, name, "needs at least 1 dim, got ", describe(a));
  const int64_t nd = a.dim() + 1;
  const int64_t r = detail::wrap_dim(dim1, nd, name), c = detail::wrap_dim(dim2, nd, name);
  WICK_CHECK(r != c, ValueError, name, "dim1 and dim2 must differ, got ", dim1, " and ", dim2,
             " for ", describe(a));
  const int64_t shift = std::abs(offset);
  const int64_t m = a.size(-1) + shift;
  Shape pad_sizes = a.sizes();
  pad_sizes[pad_sizes.size() - 1] = shift;
  const Tensor padded =
      shift == 0 ? a : cat({a, zeros(pad_sizes, TensorOptions(a.dtype()).device(a.device()))}, -1);
  // Element (i, j) of the new [m, m] is on the diagonal when j - i == offset; it holds a[i]
  // (offset >= 0: the rows take a) or a[j] (offset < 0: the columns do).
  const TensorOptions index_options = TensorOptions(kInt64).device(a.device());
  const Tensor rows = arange(m, index_options).unsqueeze(1);
  const Tensor cols = arange(m, index_options).unsqueeze(0);
  const Tensor on_diagonal = eq(cols - rows, offset);
  const Tensor values = offset >= 0 ? padded.unsqueeze(-1) : padded.unsqueeze(-2);
  // The zero as a 0-d tensor of a's dtype: a number 0 would turn bool into int64.
  const Tensor zero = zeros({}, TensorOptions(a.dtype()).device(a.device()));
  const Tensor square = where(on_diagonal, values, zero);  // [..., m, m]
  // Move the last two dims to r and c; the others keep their order.
  Shape order;
  int64_t next = 0;
  for (int64_t i = 0; i < nd; ++i) order.push_back(i == r ? nd - 2 : i == c ? nd - 1 : next++);
  return square.permute(order);
}

Tensor baddbmm(const Tensor& a, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  const char* name = "baddbmm";
  detail::check_defined(name, {&a, &batch1, &batch2});
  detail::check_same_device(name, {&a, &batch1, &batch2});
  return detail::add_scaled_product(name, a, bmm(batch1, batch2), beta, alpha,
                                    /*same_dtype=*/false, /*exact_integer_scalars=*/false);
}

Tensor histc(const Tensor& a, int64_t bins, double min, double max) {
  const char* name = "histc";
  detail::check_defined(name, {&a});
  WICK_CHECK(is_floating(a.dtype()), DtypeError, name, "needs a floating input, got ", describe(a));
  WICK_CHECK(bins > 0, ValueError, name, "bins must be > 0, got ", bins);
  WICK_CHECK(!(min > max), ValueError, name, "max must be larger than min, got min ", min,
             " and max ", max);
  double low = min, high = max;
  if (low == high && a.numel() > 0) {
    low = wick::min(a).to(kCPU).to(kFloat64).item<double>();
    high = wick::max(a).to(kCPU).to(kFloat64).item<double>();
  }
  if (low == high) {
    low -= 1;
    high += 1;
  }
  WICK_CHECK(std::isfinite(low) && std::isfinite(high), ValueError, name, "range of [", low, ", ",
             high, "] is not finite, for ", describe(a));
  // The edges and the position in a's dtype, as PyTorch's kernel computes them:
  // (x - low) * bins / (high - low), truncated; x == high goes in the last bin.
  const Tensor edges =
      tensor(std::vector<double>{low, high}, TensorOptions(kFloat64)).to(a.dtype());
  const double low_d = edges[0].item<double>(), high_d = edges[1].item<double>();
  // NaN fails both compares and is left out (PyTorch 1.13's CPU kernel counts it in the first
  // bin, which looks like an accident of its range test).
  const Tensor inside = logical_and(ge(a, low_d), le(a, high_d));
  const Tensor picked = masked_select(a, inside);
  const Tensor width =
      tensor(std::vector<double>{high_d - low_d}, TensorOptions(kFloat64)).to(a.dtype());
  const Tensor in_dtype = (picked - low_d) * static_cast<double>(bins) / width[0].item<double>();
  // Where x - low or high - low overflows a's dtype (a range near its largest value), the
  // position in float64 from halves, which cannot overflow.
  const Tensor from_halves = (picked.to(kFloat64) * 0.5 - low_d * 0.5) /
                             (high_d * 0.5 - low_d * 0.5) * static_cast<double>(bins);
  const Tensor position = clamp(where(isfinite(in_dtype), in_dtype.to(kFloat64), from_halves),
                                Scalar(0.0), Scalar(static_cast<double>(bins - 1)))
                              .to(kInt64);
  return bincount(position, std::nullopt, bins).to(a.dtype());
}

Tensor mv(const Tensor& matrix, const Tensor& vector) {
  detail::check_defined("mv", {&matrix, &vector});
  WICK_CHECK(matrix.dim() == 2 && vector.dim() == 1, ShapeError, "mv",
             "expects a matrix and a vector, got ", detail::describe_all({&matrix, &vector}));
  WICK_CHECK(matrix.size(1) == vector.size(0), ShapeError, "mv",
             "size mismatch: ", detail::describe_all({&matrix, &vector}));
  return detail::matmul_named(matrix, vector, "mv");
}

Tensor tensordot(const Tensor& a, const Tensor& b, const Shape& dims_a, const Shape& dims_b) {
  const char* op = "tensordot";
  detail::check_defined(op, {&a, &b});
  WICK_CHECK(dims_a.size() == dims_b.size(), ShapeError, op,
             "both tensors need as many contracted dims, got ", dims_a, " and ", dims_b);
  std::vector<bool> contracted_a(static_cast<size_t>(a.dim()), false);
  std::vector<bool> contracted_b(static_cast<size_t>(b.dim()), false);
  Shape front_b, back_a;  // a's contracted dims go last, b's first, in the listed order
  int64_t k = 1;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    const int64_t da = detail::wrap_dim(dims_a[i], a.dim(), op);
    const int64_t db = detail::wrap_dim(dims_b[i], b.dim(), op);
    WICK_CHECK(a.size(da) == b.size(db), ShapeError, op, "contracted dims must match: dim ", da,
               " of ", describe(a), " has size ", a.size(da), ", dim ", db, " of ", describe(b),
               " has size ", b.size(db));
    WICK_CHECK(!contracted_a[static_cast<size_t>(da)] && !contracted_b[static_cast<size_t>(db)],
               ShapeError, op, "a dim is contracted twice in ", dims_a, " and ", dims_b);
    contracted_a[static_cast<size_t>(da)] = contracted_b[static_cast<size_t>(db)] = true;
    back_a.push_back(da);
    front_b.push_back(db);
    k *= a.size(da);
  }
  Shape order_a, order_b = front_b, out_shape;
  int64_t m = 1, n = 1;
  for (int64_t d = 0; d < a.dim(); ++d) {
    if (contracted_a[static_cast<size_t>(d)]) continue;
    order_a.push_back(d);
    out_shape.push_back(a.size(d));
    m *= a.size(d);
  }
  for (int64_t d : back_a) order_a.push_back(d);
  for (int64_t d = 0; d < b.dim(); ++d) {
    if (contracted_b[static_cast<size_t>(d)]) continue;
    order_b.push_back(d);
    out_shape.push_back(b.size(d));
    n *= b.size(d);
  }
  const Tensor left = a.permute(order_a).reshape({m, k});
  const Tensor right = b.permute(order_b).reshape({k, n});
  return mm(left, right).reshape(out_shape);
}
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims) {
  detail::check_defined("tensordot", {&a, &b});
  WICK_CHECK(dims >= 0 && dims <= a.dim() && dims <= b.dim(), ShapeError, "tensordot",
             "dims must be in [0, ", std::min(a.dim(), b.dim()), "], got ", dims, " for ",
             detail::describe_all({&a, &b}));
  // The last `dims` dims of a against the first of b.
  Shape dims_a, dims_b;
  for (int64_t i = 0; i < dims; ++i) {
    dims_a.push_back(a.dim() - dims + i);
    dims_b.push_back(i);
  }
  return tensordot(a, b, dims_a, dims_b);
}

Tensor Tensor::mv(const Tensor& vector) const { return wick::mv(*this, vector); }
Tensor Tensor::rot90(int64_t k, const Shape& dims) const { return wick::rot90(*this, k, dims); }
Tensor Tensor::diag_embed(int64_t offset, int64_t dim1, int64_t dim2) const {
  return wick::diag_embed(*this, offset, dim1, dim2);
}
Tensor Tensor::histc(int64_t bins, double min, double max) const {
  return wick::histc(*this, bins, min, max);
}

}  // namespace wick
