// ops_compose.cpp: shape and linear-algebra ops that are arrangements of other ops: flip and
// roll (index_select, narrow and cat), repeat, tile and repeat_interleave (expand and
// reshape), diag and trace (index_select, index_add), dot, outer, bmm and addmm (matmul and
// broadcasting), norm (sums, amax/amin, a sqrt guarded at zero), lerp, square, nonzero and
// masked_select (a host copy of the mask, then index_select). Checked here with the op's
// name, then built from ops whose rules give the gradients.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

TensorOptions int64_on(const Tensor& t) { return TensorOptions(kInt64).device(t.device()); }

// Each dim of dims wrapped into [0, ndim), none repeated.
std::vector<int64_t> distinct_dims(const char* op, const Shape& dims, int64_t ndim) {
  std::vector<int64_t> out;
  for (int64_t d : dims) {
    const int64_t w = detail::wrap_dim(d, ndim, op);
    WICK_CHECK(std::find(out.begin(), out.end(), w) == out.end(), ValueError, op, "dim ", d,
               " appears more than once in ", dims);
    out.push_back(w);
  }
  return out;
}

void check_floating(const char* op, const Tensor& a) {
  WICK_CHECK(is_floating(a.dtype()), DtypeError, op, "needs a floating-point tensor, got ",
             describe(a));
}

}  // namespace

Tensor flip(const Tensor& a, const Shape& dims) {
  detail::check_defined("flip", {&a});
  Tensor out = a;
  for (int64_t d : distinct_dims("flip", dims, std::max<int64_t>(a.dim(), 1))) {
    if (a.dim() == 0) break;  // a 0-d tensor has nothing to reverse
    const int64_t n = a.size(d);
    out = index_select(out, d, arange(n - 1, -1, -1, int64_on(a)));
  }
  return a.dim() == 0 || dims.empty() ? out.clone() : out;
}

Tensor roll(const Tensor& a, const Shape& shifts, const Shape& dims) {
  detail::check_defined("roll", {&a});
  if (dims.empty()) {
    WICK_CHECK(shifts.size() == 1, ValueError, "roll",
               "without dims, exactly one shift is taken (over the flattened tensor), got ",
               shifts);
    return roll(a.reshape({-1}), shifts, {0}).reshape(a.sizes());
  }
  WICK_CHECK(shifts.size() == dims.size(), ValueError, "roll", "shifts ", shifts, " and dims ",
             dims, " must have the same length");
  if (a.dim() == 0) {  // one element: dim 0 or -1 rolls it onto itself, as PyTorch's
    for (int64_t d : dims) detail::wrap_dim(d, 1, "roll");
    return a.clone();
  }
  // A dim named twice is rolled twice, one shift after the other, as PyTorch's.
  Tensor out = a;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = detail::wrap_dim(dims[i], a.dim(), "roll"), n = a.size(d);
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;  // in [0, n)
    if (s == 0) continue;
    out = cat({out.narrow(d, n - s, s), out.narrow(d, 0, n - s)}, d);
  }
  return out.is_same(a) ? a.clone() : out;
}

Tensor repeat(const Tensor& a, const Shape& repeats) {
  detail::check_defined("repeat", {&a});
  const auto extra = static_cast<int64_t>(repeats.size()) - a.dim();
  WICK_CHECK(extra >= 0, ShapeError, "repeat", "repeats ", repeats,
             " must have at least as many entries as ", describe(a), " has dims");
  WICK_CHECK(repeats.size() <= Shape::kMaxDims, ShapeError, "repeat", "repeats ", repeats,
             " would make a tensor of more than ", Shape::kMaxDims, " dims");
  Shape padded, result;  // a's sizes behind leading 1s, one per count; the result's sizes
  for (size_t i = 0; i < repeats.size(); ++i) {
    const int64_t r = repeats[i];
    WICK_CHECK(r >= 0, ValueError, "repeat", "repeats ", repeats, " must not be negative");
    padded.push_back(static_cast<int64_t>(i) < extra ? 1 : a.size(static_cast<int64_t>(i) - extra));
    result.push_back(r * padded[i]);
  }
  if (repeats.empty()) return a.clone();
  Tensor out;
  if (2 * repeats.size() <= Shape::kMaxDims) {
    // [.., 1, size, ..] expanded to [.., r, size, ..]: each dim repeated r times, one copy.
    Shape interleaved, expanded;
    for (size_t i = 0; i < repeats.size(); ++i) {
      interleaved.push_back(1);
      interleaved.push_back(padded[i]);
      expanded.push_back(repeats[i]);
      expanded.push_back(padded[i]);
    }
    out = a.reshape(interleaved).expand(expanded).reshape(result);
  } else {
    // More than 8 dims: the paired form would pass wick's 16-dim limit, so each dim is
    // repeated as r copies side by side (what repeating a dim is), one dim at a time.
    out = a.reshape(padded);
    for (size_t i = 0; i < repeats.size(); ++i) {
      if (repeats[i] == 1) continue;
      out = cat(std::vector<Tensor>(static_cast<size_t>(repeats[i]), out), static_cast<int64_t>(i));
    }
  }
  // Every count 1 expands nothing, and the reshapes are views: a repeat is a new tensor.
  return out.storage() == a.storage() ? out.clone() : out;
}

Tensor tile(const Tensor& a, const Shape& repeats) {
  detail::check_defined("tile", {&a});
  Shape full = repeats;
  while (static_cast<int64_t>(full.size()) < a.dim()) full.insert(0, 1);
  return repeat(a, full);
}

Tensor repeat_interleave(const Tensor& a, int64_t repeats, std::optional<int64_t> dim) {
  detail::check_defined("repeat_interleave", {&a});
  WICK_CHECK(repeats >= 0, ValueError, "repeat_interleave", "repeats ", repeats,
             " must not be negative");
  if (!dim) return repeat_interleave(a.reshape({-1}), repeats, 0);
  WICK_CHECK(a.dim() > 0, IndexError, "repeat_interleave", "dim ", *dim, " of ", describe(a),
             ": a 0-d tensor has no dims to repeat along (as PyTorch)");
  const int64_t d = detail::wrap_dim(*dim, a.dim(), "repeat_interleave");
  Tensor out;
  if (a.dim() == static_cast<int64_t>(Shape::kMaxDims)) {
    // No room for the extra dim below: each index along d, repeats times, picked by
    // index_select.
    const Tensor rows = arange(a.size(d), int64_on(a)).unsqueeze(1).expand({a.size(d), repeats});
    out = index_select(a, d, rows.reshape({-1}));
  } else {
    Shape expanded = a.sizes(), result = a.sizes();
    expanded.insert(static_cast<size_t>(d) + 1, repeats);
    result[static_cast<size_t>(d)] *= repeats;
    out = a.unsqueeze(d + 1).expand(expanded).reshape(result);
  }
  // repeats 1 expands nothing, and the reshape is a view: the result is a new tensor.
  return out.storage() == a.storage() ? out.clone() : out;
}

Tensor diag(const Tensor& a, int64_t diagonal) {
  detail::check_defined("diag", {&a});
  WICK_CHECK(a.dim() == 1 || a.dim() == 2, ShapeError, "diag", "needs a 1-D or 2-D tensor, got ",
             describe(a));
  if (a.dim() == 1 && a.dtype() == kBool) return diag(a.to(kInt64), diagonal).to(kBool);
  if (a.dim() == 1) {
    // Element i goes to (i + row_offset, i + col_offset) of an [m, m] matrix, m = n + |k|.
    const int64_t n = a.size(0);
    int64_t m = 0, square = 0;
    WICK_CHECK(diagonal > INT64_MIN && !__builtin_add_overflow(n, std::abs(diagonal), &m) &&
                   !__builtin_mul_overflow(m, m, &square),
               ShapeError, "diag", "diagonal ", diagonal, " of ", describe(a),
               " makes a matrix whose size does not fit int64");
    const int64_t row_offset = diagonal < 0 ? -diagonal : 0;
    const int64_t col_offset = diagonal > 0 ? diagonal : 0;
    const Tensor positions = arange(n, int64_on(a)) * (m + 1) + (row_offset * m + col_offset);
    return index_add(zeros({square}, a.options()), 0, positions, a).reshape({m, m});
  }
  return a.diagonal(diagonal).clone();  // a copy, as torch.diag's
}

Tensor trace(const Tensor& a) {
  detail::check_defined("trace", {&a});
  WICK_CHECK(a.dim() == 2, ShapeError, "trace", "needs a 2-D tensor, got ", describe(a));
  return a.diagonal().sum();  // no copy of the diagonal
}

Tensor dot(const Tensor& a, const Tensor& b) {
  detail::check_defined("dot", {&a, &b});
  WICK_CHECK(a.dim() == 1 && b.dim() == 1 && a.size(0) == b.size(0), ShapeError, "dot",
             "needs two 1-D tensors of one length, got ", describe(a), " and ", describe(b));
  WICK_CHECK(a.dtype() == b.dtype(), DtypeError, "dot", "needs one dtype, got ", describe(a),
             " and ", describe(b));
  return detail::matmul_named(a, b, "dot");
}

Tensor outer(const Tensor& a, const Tensor& b) {
  detail::check_defined("outer", {&a, &b});
  WICK_CHECK(a.dim() == 1 && b.dim() == 1, ShapeError, "outer", "needs two 1-D tensors, got ",
             describe(a), " and ", describe(b));
  return mul(a.unsqueeze(1), b.unsqueeze(0));
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  detail::check_defined("bmm", {&a, &b});
  WICK_CHECK(a.dim() == 3 && b.dim() == 3 && a.size(0) == b.size(0) && a.size(2) == b.size(1),
             ShapeError, "bmm", "needs [b, n, k] and [b, k, m], got ", describe(a), " and ",
             describe(b));
  return detail::matmul_named(a, b, "bmm");
}

Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta,
             const Scalar& alpha) {
  detail::check_defined("addmm", {&c, &a, &b});
  WICK_CHECK(a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(0), ShapeError, "addmm",
             "needs [n, k] and [k, m] matrices, got ", describe(a), " and ", describe(b));
  return detail::add_scaled_product("addmm", c, matmul(a, b), beta, alpha, /*same_dtype=*/true,
                                    /*exact_integer_scalars=*/false);
}

Tensor detail::zero_gradient_link(const Tensor& t) {
  if (!(t.requires_grad() && GradMode::is_enabled())) return Tensor();
  // where() sends its gradient to the branch it took, here always the number.
  return where(ones(t.sizes(), TensorOptions(kBool).device(t.device())), -0.0, t);
}

Tensor detail::add_scaled_product(const char* op, const Tensor& c, Tensor product,
                                  const Scalar& beta, const Scalar& alpha, bool same_dtype,
                                  bool exact_integer_scalars) {
  bool fits = true;
  try {
    fits = broadcast_shapes(c.sizes(), product.sizes()) == product.sizes();
  } catch (const ShapeError&) {
    fits = false;
  }
  WICK_CHECK(fits, ShapeError, op, "the input ", describe(c),
             " must broadcast to the product's shape ", product.sizes());
  const Dtype k = product.dtype();
  WICK_CHECK(!same_dtype || c.dtype() == k, DtypeError, op, "the input ", describe(c),
             " must have the product's dtype ", k);
  Scalar scale_c = beta, scale_product = alpha;
  if (!is_floating(k)) {
    for (Scalar* s : {&scale_c, &scale_product}) {
      if (!s->is_floating()) continue;
      WICK_CHECK(!exact_integer_scalars, DtypeError, op,
                 "for integral input tensors, alpha and beta must not be floating point, got ", *s);
      *s = Scalar(static_cast<int64_t>(s->to_double()));
    }
  }
  if (scale_product.to_double() != 1.0) product = product * scale_product;
  if (scale_c.to_double() == 0.0) {
    const Tensor link = zero_gradient_link(c);
    return link.defined() ? product + link.to(k) : product;
  }
  const Tensor input = c.dtype() == k ? c : c.to(k);
  return scale_c.to_double() == 1.0 ? input + product : input * scale_c + product;
}

Tensor norm(const Tensor& a, double p, const Shape& dims, bool keepdim) {
  detail::check_defined("norm", {&a});
  check_floating("norm", a);
  WICK_CHECK(p >= 0 || std::isinf(p), ValueError, "norm", "p ", p, " must be 0, positive or +-inf");
  const Shape reduced = detail::reduce_mask(dims, a.dim(), dims.empty(), "norm");
  for (size_t d = 0; std::isinf(p) && d < reduced.size(); ++d) {
    // amax/amin would refuse it under their own name; torch.linalg.vector_norm refuses too.
    WICK_CHECK(!(reduced[d] != 0 && a.size(static_cast<int64_t>(d)) == 0), IndexError, "norm",
               "the ", p, "-norm of ", describe(a), " over dim ", d, " of size 0 has no value");
  }
  if (std::isinf(p)) return p > 0 ? amax(abs(a), dims, keepdim) : amin(abs(a), dims, keepdim);
  if (p == 0) {
    // A count: a's values reach it through no differentiable path, but a recorded a stays in
    // the graph with a zero gradient, as PyTorch's (cdist(x, y, 0).backward() refused: review).
    const Tensor count = sum(ne(a.detach(), 0), dims, keepdim).to(a.dtype());
    const Tensor link = detail::zero_gradient_link(a);
    return link.defined() ? count + sum(link, dims, keepdim) : count;
  }
  if (p == 1) return sum(abs(a), dims, keepdim);
  // Below p = 1, |x|^p's slope is infinite at 0 (0 * inf = NaN in the chain rule); zeros
  // take the unchosen branch of a where(), so their gradient is 0, as PyTorch's norm_backward.
  Tensor powered;
  if (p == 2) {
    powered = a * a;
  } else if (p < 1) {
    const Tensor zero_element = eq(a.detach(), 0);
    powered = where(zero_element, 0.0, pow(where(zero_element, 1.0, abs(a)), p));
  } else {
    powered = pow(abs(a), p);
  }
  const Tensor total = sum(powered, dims, keepdim);
  // root(total) with total = 0 replaced by 1 inside the root: the chosen branch is 0 there, so
  // no gradient flows into the root's infinite slope at zero.
  const Tensor zero = eq(total.detach(), 0);
  const Tensor safe = where(zero, ones_like(total), total);
  const Tensor root = p == 2 ? sqrt(safe) : pow(safe, 1.0 / p);
  return where(zero, zeros_like(total), root);
}

Tensor lerp(const Tensor& a, const Tensor& b, const Scalar& weight) {
  detail::check_defined("lerp", {&a, &b});
  const double w = weight.to_double();
  // PyTorch 1.13's choice of form: weight < 0.5 (not |weight|), so a negative weight takes the
  // first; the two differ in the last bit and where an operand is infinite.
  return w < 0.5 ? a + (b - a) * w : b - (b - a) * (1.0 - w);
}

Tensor lerp(const Tensor& a, const Tensor& b, const Tensor& weight) {
  detail::check_defined("lerp", {&a, &b, &weight});
  // The two forms a + w (b - a) (weight < 0.5, as PyTorch 1.13) and b - (b - a) (1 - w), written
  // as where(c, a, b) + where(c, w, w - 1) (b - a): the same bits (w - 1 is -(1 - w) exactly),
  // but weight and b - a enter once, so no discarded form turns an infinite b - a into a NaN
  // gradient (0 * inf).
  const Tensor first = lt(weight.detach(), 0.5);
  return where(first, a, b) + where(first, weight, weight - 1) * (b - a);
}

Tensor square(const Tensor& a) {
  detail::check_defined("square", {&a});
  // bool squares to int64, as PyTorch's pow(a, 2).
  if (a.dtype() == kBool) return a.to(kInt64) * a.to(kInt64);
  return a * a;
}

Tensor nonzero(const Tensor& a) {
  detail::check_defined("nonzero", {&a});
  const std::vector<int64_t> flags = ne(a.detach(), 0).to(kInt64).to(kCPU).to_vector<int64_t>();
  const int64_t ndim = a.dim();
  std::vector<int64_t> positions;
  for (int64_t i = 0; i < static_cast<int64_t>(flags.size()); ++i) {
    if (flags[static_cast<size_t>(i)] == 0) continue;
    int64_t rest = i;
    const size_t at = positions.size();
    positions.resize(at + static_cast<size_t>(ndim));
    for (int64_t d = ndim - 1; d >= 0; --d) {
      positions[at + static_cast<size_t>(d)] = rest % a.size(d);
      rest /= a.size(d);
    }
  }
  const auto found = static_cast<int64_t>(ndim == 0 ? std::count(flags.begin(), flags.end(), 1)
                                                    : positions.size() / static_cast<size_t>(ndim));
  return tensor(positions, Shape{found, ndim}, int64_on(a));
}

Tensor masked_select(const Tensor& a, const Tensor& mask) {
  detail::check_defined("masked_select", {&a, &mask});
  detail::check_same_device("masked_select", {&a, &mask});
  WICK_CHECK(mask.dtype() == kBool, DtypeError, "masked_select", "mask ", describe(mask),
             " must be bool");
  Shape shape;
  try {
    shape = broadcast_shapes(a.sizes(), mask.sizes());
  } catch (const ShapeError&) {
    detail::fail<ShapeError>("masked_select", "the shapes do not broadcast: ", describe(a), " and ",
                             describe(mask));
  }
  const Tensor flat_mask = mask.expand(shape).reshape({-1});
  const Tensor picked = nonzero(flat_mask).reshape({-1});
  return index_select(a.expand(shape).reshape({-1}), 0, picked);
}

Tensor Tensor::operator[](int64_t index) const { return select(0, index); }
Tensor Tensor::flip(const Shape& dims) const { return wick::flip(*this, dims); }
Tensor Tensor::roll(const Shape& shifts, const Shape& dims) const {
  return wick::roll(*this, shifts, dims);
}
Tensor Tensor::repeat(const Shape& repeats) const { return wick::repeat(*this, repeats); }
Tensor Tensor::tile(const Shape& repeats) const { return wick::tile(*this, repeats); }
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim) const {
  return wick::repeat_interleave(*this, repeats, dim);
}
Tensor Tensor::diag(int64_t diagonal) const { return wick::diag(*this, diagonal); }
Tensor Tensor::trace() const { return wick::trace(*this); }
Tensor Tensor::dot(const Tensor& other) const { return wick::dot(*this, other); }
Tensor Tensor::outer(const Tensor& other) const { return wick::outer(*this, other); }
Tensor Tensor::bmm(const Tensor& other) const { return wick::bmm(*this, other); }
Tensor Tensor::norm(double p, const Shape& dims, bool keepdim) const {
  return wick::norm(*this, p, dims, keepdim);
}
Tensor Tensor::lerp(const Tensor& end, const Scalar& weight) const {
  return wick::lerp(*this, end, weight);
}
Tensor Tensor::square() const { return wick::square(*this); }
Tensor Tensor::nonzero() const { return wick::nonzero(*this); }
Tensor Tensor::masked_select(const Tensor& mask) const { return wick::masked_select(*this, mask); }

}  // namespace wick
