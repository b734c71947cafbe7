// rules.cpp: one backward rule per differentiable op of wick/op_list.hpp, in list order (the
// elementwise unary ops' in rules_unary.cpp, gather's and the scatters' in rules_scatter.cpp).
// Each takes the node (saved tensors and attributes) and the output's gradient, and returns
// each input's gradient at the input's shape (sum_to undoes broadcasting). Rules are written
// with ops, so they run on any device. Every rule is exercised by tests/test_gradcheck.cpp,
// which enumerates the op list.
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

#include "node.hpp"
#include "rule_util.hpp"
#include "wick/linalg.hpp"
#include "wick/ops.hpp"

namespace wick {

Tensor sum_to(const Tensor& grad, const Shape& sizes) {
  if (grad.sizes() == sizes) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  Shape dims;
  for (int64_t d = 0; d < grad.dim(); ++d) {
    if (d < lead || (sizes[d - lead] == 1 && grad.sizes()[d] != 1)) dims.push_back(d);
  }
  Tensor reduced = dims.empty() ? grad : sum(grad, dims, true);
  return reduced.reshape(sizes);
}

namespace {

// Elementwise binary.
// With alpha (scalar_a, float32 and float64: a + alpha * b fused), b's gradient is g * alpha.
Grads add_rule(const Node& n, const Tensor& g) {
  return {sum_to(g, in_sizes(n, 0)), sum_to(n.has_a ? g * n.scalar_a : g, in_sizes(n, 1))};
}
Grads sub_rule(const Node& n, const Tensor& g) {
  return {sum_to(g, in_sizes(n, 0)),
          sum_to(n.has_a ? g * -n.scalar_a.to_double() : -g, in_sizes(n, 1))};
}
Grads mul_rule(const Node& n, const Tensor& g) {
  Grads r;
  if (n.edges[0].needed) r[0] = sum_to(g * n.input(1), in_sizes(n, 0));
  if (n.edges[1].needed) r[1] = sum_to(g * n.input(0), in_sizes(n, 1));
  return r;
}
Grads div_rule(const Node& n, const Tensor& g) {
  // Each gradient reads only the inputs it needs (as PyTorch saves them): a divisor that needs
  // no gradient leaves the dividend free to change in place before backward.
  Grads r;
  if (n.edges[0].needed) r[0] = sum_to(g / n.input(1), in_sizes(n, 0));
  // (a / b) / b, as PyTorch: b * b would overflow (or underflow) for |b| past 1.8e19
  // (below 1e-19) in float32 where the quotient is finite.
  if (n.edges[1].needed) {
    const Tensor &a = n.input(0), &b = n.input(1);
    r[1] = sum_to(-g * ((a / b) / b), in_sizes(n, 1));
  }
  return r;
}
Grads pow_rule(const Node& n, const Tensor& g) {
  const Tensor &a = n.input(0), &b = n.input(1), &y = n.result();
  Grads r;
  if (n.edges[0].needed) {
    // b a^(b-1), and 0 where b = 0 (as PyTorch: 0 * 0^-1 would give NaN at a = 0).
    Tensor d = where(eq(b, 0), zeros_like(y), b * pow(a, b - 1));
    r[0] = sum_to(g * d, in_sizes(n, 0));
  }
  if (n.edges[1].needed) {
    // d/db a^b = a^b log a; at a = 0 with b >= 0 PyTorch takes 0 (the limit for b > 0); with
    // b < 0 it keeps inf * -inf = -inf.
    Tensor d = y * log(a);
    d = where(eq(a, 0), where(ge(b, 0), zeros_like(y), d), d);
    r[1] = sum_to(g * d, in_sizes(n, 1));
  }
  return r;
}
// atan2(a, b): d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2), as PyTorch's atan2_backward.
Grads atan2_rule(const Node& n, const Tensor& g) {
  const Tensor &a = n.input(0), &b = n.input(1);
  const Tensor scale = g / (a * a + b * b);
  Grads r;
  if (n.edges[0].needed) r[0] = sum_to(scale * b, in_sizes(n, 0));
  if (n.edges[1].needed) r[1] = sum_to(scale * -a, in_sizes(n, 1));
  return r;
}
// hypot: d/da = a / hypot(a, b), d/db = b / hypot(a, b).
Grads hypot_rule(const Node& n, const Tensor& g) {
  const Tensor& y = n.result();
  Grads r;
  if (n.edges[0].needed) r[0] = sum_to(g * (n.input(0) / y), in_sizes(n, 0));
  if (n.edges[1].needed) r[1] = sum_to(g * (n.input(1) / y), in_sizes(n, 1));
  return r;
}
// fmod and remainder are a - q b with q = trunc(a / b) or floor(a / b), piecewise constant:
// the dividend takes the gradient, the divisor -g q (PyTorch's formulas).
Grads remainder_like_rule(const Node& n, const Tensor& g, bool floored) {
  Grads r;
  if (n.edges[0].needed) r[0] = sum_to(g, in_sizes(n, 0));
  if (n.edges[1].needed) {
    // The quotient as the forward computed it: floor division's (div's "floor" mode, which
    // corrects a / b's rounding: remainder(1, 0.1) is 0.1 - 2^-54 with quotient 9, where
    // floor(1 / 0.1) is 10), or trunc of the rounded a / b, fmod's.
    const Tensor quotient =
        floored ? div(n.input(0), n.input(1), "floor") : trunc(n.input(0) / n.input(1));
    r[1] = sum_to(-g * quotient, in_sizes(n, 1));
  }
  return r;
}
Grads fmod_rule(const Node& n, const Tensor& g) { return remainder_like_rule(n, g, false); }
Grads remainder_rule(const Node& n, const Tensor& g) { return remainder_like_rule(n, g, true); }
// copysign: a's gradient is g times copysign(a, b) / a (the sign a was given), 0 where a is 0;
// b's is zero (PyTorch's copysign_tensor_self_backward).
Grads copysign_rule(const Node& n, const Tensor& g) {
  Grads r;
  if (n.edges[0].needed) {
    const Tensor& a = n.input(0);
    r[0] = sum_to(g * where(eq(a, 0), Scalar(0.0), n.result() / a), in_sizes(n, 0));
  }
  if (n.edges[1].needed) r[1] = zeros(in_sizes(n, 1), g.options());
  return r;
}
// The rounded divisions are piecewise constant: zero for both operands, as PyTorch's div with
// a rounding mode.
Grads rounded_divide_rule(const Node& n, const Tensor& g) {
  Grads r;
  for (int i = 0; i < 2; ++i) {
    if (n.edges[i].needed) r[i] = zeros(in_sizes(n, i), g.options());
  }
  return r;
}
// maximum/minimum: the larger (smaller) input takes the gradient; ties split it in half. As
// PyTorch, an input takes none only where it compares as losing, so a NaN (which compares
// false) gives the whole gradient to both.
Grads extreme_pair_rule(const Node& n, const Tensor& g, bool is_max) {
  const Tensor &a = n.input(0), &b = n.input(1);
  Tensor share = where(eq(a, b), g * 0.5, g);
  return {sum_to(blocked(is_max ? lt(a, b) : gt(a, b), share), in_sizes(n, 0)),
          sum_to(blocked(is_max ? gt(a, b) : lt(a, b), share), in_sizes(n, 1))};
}
Grads maximum_rule(const Node& n, const Tensor& g) { return extreme_pair_rule(n, g, true); }
Grads minimum_rule(const Node& n, const Tensor& g) { return extreme_pair_rule(n, g, false); }
Grads where_rule(const Node& n, const Tensor& g) {
  const Tensor& c = n.input(0);
  Tensor zero = zeros_like(g);
  return {Tensor(), sum_to(where(c, g, zero), in_sizes(n, 1)),
          sum_to(where(c, zero, g), in_sizes(n, 2))};
}

// Reductions: put the reduced dims back (size 1), then broadcast.
Tensor unreduce(const Node& n, const Tensor& g) {
  Tensor k = g;
  if (!n.keepdim) {
    for (size_t d = 0; d < n.ints.size(); ++d) {
      if (n.ints[d]) k = k.unsqueeze(static_cast<int64_t>(d));
    }
  }
  return k.expand(in_sizes(n, 0));
}
// In double: the product of the reduced sizes can pass int64 when another dim is 0 (then the
// gradient is empty and the divisor unused).
double reduced_count(const Node& n) {
  double count = 1;
  for (size_t d = 0; d < n.ints.size(); ++d) {
    if (n.ints[d]) count *= static_cast<double>(in_sizes(n, 0)[d]);
  }
  return count;
}
Grads sum_rule(const Node& n, const Tensor& g) { return {unreduce(n, g).contiguous()}; }
Grads mean_rule(const Node& n, const Tensor& g) { return {unreduce(n, g) / reduced_count(n)}; }
Grads extreme_rule(const Node& n, const Tensor& g) {
  if (n.indices.saved) {
    // Over one dim the gradient needs the indices and the input's sizes only, not its values:
    // an in-place change of the input since is no error (PyTorch keeps only the indices; a
    // review found wick refusing it).
    const Tensor& x = n.input_layout(0);
    // A 0-d input has one element, and it is the extreme.
    if (x.dim() == 0) return {g.reshape({})};
    // Over one dim: the gradient goes to the element each index names.
    int64_t dim = 0;
    while (!n.ints[dim]) ++dim;
    Tensor idx = n.result_indices();
    if (!n.keepdim) idx = idx.unsqueeze(dim);
    Shape pos_shape = Shape::filled(x.sizes().size(), 1);
    pos_shape[dim] = x.sizes()[dim];
    Tensor positions =
        arange(x.sizes()[dim], TensorOptions(kInt64).device(x.device())).view(pos_shape);
    Tensor gk = n.keepdim ? g : g.unsqueeze(dim);
    return {blocked(ne(positions, idx), gk)};
  }
  const Tensor& x = n.input(0);
  // Over everything (or several dims): ties share the gradient equally, as amax's rule. max()
  // and min() over every element also count a NaN as equal to a NaN result, as PyTorch's
  // evenly_distribute_backward (amax over a dim gives NaN everywhere, as PyTorch's).
  Tensor y = n.result();
  Tensor yk = unreduce(n, y);
  Tensor hit = as_float(eq(x, yk), g);
  if (n.over_all) hit = hit + as_float(ne(x, x), g) * as_float(ne(yk, yk), g);
  Tensor count = sum(hit, n.ints.empty() ? Shape{} : [&] {
    Shape dims;
    for (size_t d = 0; d < n.ints.size(); ++d) {
      if (n.ints[d]) dims.push_back(static_cast<int64_t>(d));
    }
    return dims;
  }(), true);
  return {hit * unreduce(n, g) / count};
}

Grads softmax_rule(const Node& n, const Tensor& g) {
  const Tensor& y = n.result();
  return {y * (g - sum(g * y, n.dim, true))};
}
Grads log_softmax_rule(const Node& n, const Tensor& g) {
  const Tensor& y = n.result();
  return {g - exp(y) * sum(g, n.dim, true)};
}

// The fused backward kernel, with the row statistics recomputed from the saved input.
// ints = {normalized dims, has weight, has bias}; inputs x[, weight][, bias].
Grads layer_norm_rule(const Node& n, const Tensor& g) {
  const Tensor& x = n.input(0);
  const bool has_weight = n.ints[1] != 0, has_bias = n.ints[2] != 0;
  const int bias_index = has_weight ? 2 : 1;
  const Tensor weight = has_weight ? n.input(1) : Tensor();
  const Shape normalized(x.sizes().end() - n.ints[0], x.sizes().end());
  auto [d_input, d_weight, d_bias] = layer_norm_backward(
      g, x, normalized, weight, n.scalar_a.to_double(),
      {n.edges[0].needed, has_weight && n.edges[1].needed, has_bias && n.edges[bias_index].needed});
  Grads r;
  r[0] = d_input;
  if (has_weight) r[1] = d_weight;
  if (has_bias) r[bias_index] = d_bias;
  return r;
}

// True when the last two dims are a transposed contiguous matrix (unit stride down the rows).
bool column_major(const Tensor& t) {
  const int64_t rows = t.size(-2), cols = t.size(-1);
  return rows > 1 && cols > 1 && t.stride(-2) == 1 && t.stride(-1) == rows;
}

Grads matmul_rule(const Node& n, const Tensor& g) {
  // A's gradient reads B's values and A's layout only, and the other way round (as PyTorch
  // saves them): a weight changed in place under NoGradGuard before backward is no error
  // when its input needs no gradient.
  const Tensor& a = n.edges[1].needed ? n.input(0) : n.input_layout(0);
  const Tensor& b = n.edges[0].needed ? n.input(1) : n.input_layout(1);
  // Redo the forward's promotion of 1-D operands so that every product is batched 2-D.
  Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
  Tensor b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
  Tensor g2 = g;
  if (a.dim() == 1) g2 = g2.unsqueeze(g2.dim() - (b.dim() == 1 ? 0 : 1));
  if (b.dim() == 1) g2 = g2.unsqueeze(g2.dim());
  Grads r;
  // An operand that is a transposed view (Linear's weight.t()) gets its gradient computed as
  // (B^T A)^T, in the operand's own layout, as PyTorch's mm_mat2_backward: the transpose's
  // rule then hands the weight a contiguous gradient instead of one that accumulate() must
  // copy (a 1024^2 transposed copy per weight and step in an MLP).
  if (n.edges[0].needed) {
    Tensor ga = column_major(a2) ? matmul(b2, g2.transpose(-1, -2)).transpose(-1, -2)
                                 : matmul(g2, b2.transpose(-1, -2));
    r[0] = sum_to(ga, a2.sizes()).reshape(a.sizes());
  }
  if (n.edges[1].needed) {
    // A 2-D B shared by every batch of A (a Linear over [L, N, in]): the batch dims fold into
    // the rows, one [K, batches * M] x [batches * M, N] product. A batched product and then a
    // sum over the batch wrote batches copies of B's gradient and summed them in a strided walk
    // (an LSTM's input weight: 65 of its 118 ms backward, docs/nn.md).
    Tensor a_rows = a2, g_rows = g2;
    if (b2.dim() == 2 && a2.dim() > 2) {
      a_rows = a2.reshape({-1, a2.size(-1)});
      g_rows = g2.reshape({-1, g2.size(-1)});
    }
    Tensor gb = column_major(b2) ? matmul(g_rows.transpose(-1, -2), a_rows).transpose(-1, -2)
                                 : matmul(a_rows.transpose(-1, -2), g_rows);
    r[1] = sum_to(gb, b2.sizes()).reshape(b.sizes());
  }
  return r;
}

// Joining. Each input's gradient is its slice of g along the cat dim; a legacy empty input
// (sizes [0], skipped by the forward's shape checks) gets an empty one.
std::vector<Tensor> cat_rule(const Node& n, const Tensor& g) {
  std::vector<Tensor> r(static_cast<size_t>(n.num_inputs));
  int64_t offset = 0;
  for (int i = 0; i < n.num_inputs; ++i) {
    const Shape& sizes = n.meta(i).sizes;
    if (sizes.size() == 1 && sizes[0] == 0 && g.dim() != 1) {
      if (n.edge(i).needed) r[i] = zeros(sizes, g.options());
      continue;
    }
    const int64_t length = sizes[static_cast<size_t>(n.dim)];
    if (n.edge(i).needed) r[i] = g.narrow(n.dim, offset, length);
    offset += length;
  }
  return r;
}

std::vector<Tensor> stack_rule(const Node& n, const Tensor& g) {
  std::vector<Tensor> r(static_cast<size_t>(n.num_inputs));
  for (int i = 0; i < n.num_inputs; ++i) {
    if (n.edge(i).needed) r[i] = g.select(n.dim, i);
  }
  return r;
}

// Views.
Grads view_rule(const Node& n, const Tensor& g) { return {g.reshape(in_sizes(n, 0))}; }
Grads transpose_rule(const Node& n, const Tensor& g) { return {g.transpose(n.ints[0], n.ints[1])}; }
Grads permute_rule(const Node& n, const Tensor& g) {
  Shape inverse = Shape::filled(n.ints.size(), 0);
  for (size_t i = 0; i < n.ints.size(); ++i) inverse[n.ints[i]] = static_cast<int64_t>(i);
  return {g.permute(inverse)};
}
Grads expand_rule(const Node& n, const Tensor& g) { return {sum_to(g, in_sizes(n, 0))}; }
Grads slice_rule(const Node& n, const Tensor& g) {
  Tensor z = zeros(in_sizes(n, 0), g.options());
  z.slice(n.ints[0], n.ints[1], n.ints[2], n.ints[3]).copy_(g);
  return {z};
}
Grads select_rule(const Node& n, const Tensor& g) {
  Tensor z = zeros(in_sizes(n, 0), g.options());
  z.select(n.ints[0], n.ints[1]).copy_(g);
  return {z};
}
void slice_add_into(const Node& n, const Tensor& g, Tensor& input_grad) {
  input_grad.slice(n.ints[0], n.ints[1], n.ints[2], n.ints[3]).add_(g);
}
void select_add_into(const Node& n, const Tensor& g, Tensor& input_grad) {
  input_grad.select(n.ints[0], n.ints[1]).add_(g);
}
Grads diagonal_rule(const Node& n, const Tensor& g) {
  Tensor z = zeros(in_sizes(n, 0), g.options());
  z.diagonal(n.ints[0], n.ints[1], n.ints[2]).copy_(g);
  return {z};
}
void diagonal_add_into(const Node& n, const Tensor& g, Tensor& input_grad) {
  input_grad.diagonal(n.ints[0], n.ints[1], n.ints[2]).add_(g);
}
// Windows that overlap share elements, so the gradient cannot be added through the unfold
// view in one op (an element would take one window's value, not their sum). It is added one
// window offset at a time (each a strided slice that meets every element once) or one window
// at a time, whichever makes fewer adds; windows that do not overlap take one add.
void unfold_add_into(const Node& n, const Tensor& g, Tensor& input_grad) {
  const int64_t d = n.ints[0], size = n.ints[1], step = n.ints[2];
  if (input_grad.dim() == 0) {
    if (size == 1) input_grad.add_(g.reshape({}));
    return;
  }
  const int64_t windows = g.size(d);
  if (step >= size) {
    input_grad.unfold(d, size, step).add_(g);
  } else if (size <= windows) {
    for (int64_t k = 0; k < size; ++k) {
      input_grad.slice(d, k, k + (windows - 1) * step + 1, step).add_(g.select(-1, k));
    }
  } else {
    for (int64_t w = 0; w < windows; ++w) {
      input_grad.narrow(d, w * step, size).add_(g.select(d, w).movedim(-1, d));
    }
  }
}
Grads unfold_rule(const Node& n, const Tensor& g) {
  Tensor z = zeros(in_sizes(n, 0), g.options());
  unfold_add_into(n, g, z);
  return {z};
}

// Indexing: the two ops are each other's gradients. Only the index is saved (saved_inputs); the
// forward checked its values against the same size along the dim, so on a GPU the rules skip
// that check (detail::IndexesInRange: there it is a synchronisation, and the kernels guard each
// access); a CPU index is checked again (a write through data_ptr is not a version change).
// The zeros are one expanded 0-d tensor: index_add writes them into its output as it copies its
// base, so the table-sized gradient is written once, then added into.
Grads index_select_rule(const Node& n, const Tensor& g) {
  const detail::IndexesInRange checked_by_the_forward;
  return {index_add(zeros({}, g.options()).expand(in_sizes(n, 0)), n.dim, n.input(1), g)};
}
Grads index_add_rule(const Node& n, const Tensor& g) {
  const detail::IndexesInRange checked_by_the_forward;
  Grads r;
  if (n.edges[0].needed) r[0] = g;
  if (n.edges[2].needed) {
    const Tensor rows = index_select(g, n.dim, n.input(1));
    r[2] = n.scalar_a.to_double() == 1.0 ? rows : rows * n.scalar_a;
  }
  return r;
}

// resample: the input's gradient is the transposed taps (resample_backward); the weight's,
// d weight[k][r] = the sum over every other dim of g.select(dim, r) * a.select(dim,
// index[k][r]): the K * R picked rows, split into [K, R] along dim, times g, summed.
Grads resample_rule(const Node& n, const Tensor& g) {
  const detail::IndexesInRange checked_by_the_forward;
  const Tensor& index = n.input(1);
  Grads r;
  if (n.edges[0].needed) {
    r[0] =
        resample_backward(g, n.dim, index, n.input(2), in_sizes(n, 0)[static_cast<size_t>(n.dim)]);
  }
  if (n.edges[2].needed) {
    const int64_t taps = index.size(0), outputs = index.size(1);
    const Tensor picked = index_select(n.input(0), n.dim, index.reshape({taps * outputs}));
    Shape split = picked.sizes();
    split[static_cast<size_t>(n.dim)] = outputs;
    split.insert(static_cast<size_t>(n.dim), taps);
    const Tensor terms = picked.reshape(split) * g.unsqueeze(n.dim);
    Shape others;
    for (int64_t d = 0; d < terms.dim(); ++d) {
      if (d != n.dim && d != n.dim + 1) others.push_back(d);
    }
    r[2] = others.empty() ? terms : terms.sum(others);
  }
  return r;
}

// sort and topk: each value came from the position its index names along dim, and no two came
// from one position, so the gradient is scattered back into zeros (the node saves the indices).
// cummax and cummin too: there one position may give many values, and scatter_add sums their
// gradients.
Grads sort_rule(const Node& n, const Tensor& g) {
  const detail::IndexesInRange positions_of_the_forward;
  return {scatter_add(zeros({}, g.options()).expand(in_sizes(n, 0)), n.dim, n.result_indices(), g)};
}

// g reversed along dim: index_select with a reversed arange made here, so its range needs no
// check (and the reversal is differentiable).
Tensor reversed(const Tensor& g, int64_t dim) {
  const detail::IndexesInRange made_here(/*host_tensors_too=*/true);
  const Tensor reverse = arange(g.size(dim) - 1, -1, -1, TensorOptions(kInt64).device(g.device()));
  return g.index_select(dim, reverse);
}
// Element j of the result: the sum of g over i >= j.
Tensor reverse_cumsum(const Tensor& g, int64_t dim) {
  return reversed(cumsum(reversed(g, dim), dim), dim);
}

// cumsum: the gradient of element j is the sum of g over i >= j: g reversed along dim, summed
// cumulatively, reversed back (as PyTorch's).
Grads cumsum_rule(const Node& n, const Tensor& g) { return {reverse_cumsum(g, n.dim)}; }

// The product of the elements before each one along dim (1 for the first).
Tensor exclusive_cumprod(const Tensor& x, int64_t dim) {
  const int64_t len = x.size(dim);
  return cat({ones_like(x.narrow(dim, 0, 1)), cumprod(x.narrow(dim, 0, len - 1), dim)}, dim);
}

// prod along dim (the output kept as size 1 there): the gradient of x_j is g times the product
// of the others, the product of those before j times that of those after it. No division, so
// a zero gets the product of the rest and, with two zeros in a line, every element gets 0.
Grads prod_rule(const Node& n, const Tensor& g) {
  const Tensor& x = n.input(0);
  if (x.size(n.dim) == 0) return {zeros_like(x)};
  const Tensor before = exclusive_cumprod(x, n.dim);
  const Tensor after = reversed(exclusive_cumprod(reversed(x, n.dim), n.dim), n.dim);
  return {g * (before * after)};
}

// cumprod: d y_i / d x_j = prod_{k <= i, k != j} x_k for i >= j. Before a line's first zero
// that is y_i / x_j, so the gradient is reverse_cumsum(g y) / x (PyTorch's formula). At the
// first zero z it is y_{z-1} times the product of x over (z, i]: the cumprod y' of x with x_z
// replaced by 1, so the gradient there is reverse_cumsum(g y') at z. After z every product
// holds x_z = 0: the gradient is 0.
Grads cumprod_rule(const Node& n, const Tensor& g) {
  const Tensor& x = n.input(0);
  const int64_t dim = n.dim;
  // A line of one element is the identity: its gradient is g, also where x is inf or NaN
  // (the formula's inf / inf), as torch's.
  if (x.dim() == 0 || x.size(dim) == 1) return {g};
  const Tensor is_zero = eq(x, 0);
  const Tensor zeros_so_far = cumsum(is_zero, dim);
  const Tensor before_zero = eq(zeros_so_far, 0);
  const Tensor first_zero = logical_and(is_zero, eq(zeros_so_far, 1));
  const Tensor no_zero_part = reverse_cumsum(g * n.result(), dim) / where(before_zero, x, 1.0);
  const Tensor zero_part = reverse_cumsum(g * cumprod(where(first_zero, 1.0, x), dim), dim);
  return {where(before_zero, no_zero_part, where(first_zero, zero_part, 0.0))};
}

// logcumsumexp: d y_i / d x_j = exp(x_j - y_i) for i >= j, so the gradient of x_j is the sum
// over i >= j of g_i exp(x_j - y_i). PyTorch's formula sums it in log space, the positive and
// the negative parts of g apart (log|g_i| - y_i, a reversed logcumsumexp, then + x_j and exp),
// so that no exp overflows; where g has no part of a sign, the dtype's lowest number stands in
// for log 0 (-inf would make -inf - y NaN where y is -inf too).
Grads logcumsumexp_rule(const Node& n, const Tensor& g) {
  const int64_t dim = n.dim;
  const Tensor& x = n.input(0);
  const Tensor& y = n.result();
  const double lowest = g.dtype() == kFloat64   ? -std::numeric_limits<double>::max()
                        : g.dtype() == kFloat32 ? -std::numeric_limits<float>::max()
                                                : -std::ldexp(2.0 - std::ldexp(1.0, -7), 127);
  const auto from_each_later = [&](const Tensor& log_part) {
    return exp(reversed(logcumsumexp(reversed(log_part - y, dim), dim), dim) + x);
  };
  const Tensor log_abs_g = log(abs(g));
  return {from_each_later(where(gt(g, 0), log_abs_g, lowest)) -
          from_each_later(where(lt(g, 0), log_abs_g, lowest))};
}

// linalg_solve (and linalg_inv, a solve against the identity): X = A^-1 B, so
// dB = A^-T g and dA = -dB X^T: a solve and a matmul. The inputs are A and B broadcast to one
// batch (the expands before them sum the gradients back).
Grads linalg_solve_rule(const Node& n, const Tensor& g) {
  const Tensor d_b = linalg_solve(n.input(0).transpose(-2, -1), g);
  return {-matmul(d_b, n.result().transpose(-2, -1)), d_b};
}

// linalg_solve_triangular (ints = {upper, unitriangular}): X = A^-1 B for A's triangle, so
// dB = A^-T g (a solve with A^T's triangle, the other one) and dA = -dB X^T within the triangle
// the op read, without its diagonal when unit, as torch's.
Grads linalg_solve_triangular_rule(const Node& n, const Tensor& g) {
  const bool upper = n.ints[0] != 0, unit = n.ints[1] != 0;
  const Tensor d_b = linalg_solve_triangular(n.input(0).transpose(-2, -1), g, !upper, true, unit);
  const Tensor d_a = -matmul(d_b, n.result().transpose(-2, -1));
  return {upper ? triu(d_a, unit ? 1 : 0) : tril(d_a, unit ? -1 : 0), d_b};
}

// linalg_cholesky, L of A's lower triangle (upper = true is a transpose around it): torch's
// rule (Murray 2016, arXiv 1602.07527): with P = tril(L^T g) and Phi = P with its diagonal
// halved and mirrored into a symmetric matrix, dA = L^-T Phi L^-1, two triangular solves.
Grads linalg_cholesky_rule(const Node& n, const Tensor& g) {
  const Tensor& l = n.result();
  const Tensor lt = l.transpose(-2, -1);
  const Tensor p = tril(matmul(lt, g));
  const Tensor phi = (p + tril(p, -1).transpose(-2, -1)) * 0.5;
  return {linalg_solve_triangular(l, linalg_solve_triangular(lt, phi, true), false, false)};
}

// det: grad times the cofactor matrix (core/src/ops_solve.cpp).
Grads det_rule(const Node& n, const Tensor& g) { return {det_backward(g, n.input(0), n.result())}; }

const BackwardRule kNoRule{};

}  // namespace

const BackwardRule& backward_rule(OpId op) {
  // {needs_inputs, needs_output, fn}
  if (const BackwardRule* rule = unary_backward_rule(op)) return *rule;  // rules_unary.cpp
  static const BackwardRule add{false, false, add_rule}, sub{false, false, sub_rule},
      mul{true, false, mul_rule}, div{true, false, div_rule}, pow{true, true, pow_rule},
      maximum{true, false, maximum_rule}, minimum{true, false, minimum_rule},
      atan2{true, false, atan2_rule}, hypot{true, true, hypot_rule}, fmod{true, false, fmod_rule},
      rounded_divide{false, false, rounded_divide_rule}, copysign{true, true, copysign_rule},
      remainder{true, false, remainder_rule}, where{true, false, where_rule},
      sum{false, false, sum_rule}, mean{false, false, mean_rule}, extreme{true, true, extreme_rule},
      softmax{false, true, softmax_rule}, log_softmax{false, true, log_softmax_rule},
      layer_norm{true, false, layer_norm_rule}, matmul{true, false, matmul_rule},
      linalg_solve{true, true, linalg_solve_rule}, view{false, false, view_rule},
      linalg_solve_triangular{true, true, linalg_solve_triangular_rule},
      linalg_cholesky{false, true, linalg_cholesky_rule}, det{true, true, det_rule},
      transpose{false, false, transpose_rule}, permute{false, false, permute_rule},
      expand{false, false, expand_rule},
      slice{false, false, slice_rule, nullptr, 0x7, slice_add_into},
      select{false, false, select_rule, nullptr, 0x7, select_add_into},
      diagonal{false, false, diagonal_rule, nullptr, 0x7, diagonal_add_into},
      unfold{false, false, unfold_rule, nullptr, 0x7, unfold_add_into};
  static const BackwardRule index_select{true, false, index_select_rule, nullptr, 0x2},
      index_add{true, false, index_add_rule, nullptr, 0x2}, resample{true, false, resample_rule};
  static const BackwardRule sort{false, false, sort_rule}, cumsum{false, false, cumsum_rule},
      cumprod{true, true, cumprod_rule}, prod{true, false, prod_rule},
      logcumsumexp{true, true, logcumsumexp_rule};
  static const BackwardRule cat{false, false, nullptr, cat_rule},
      stack{false, false, nullptr, stack_rule};
  switch (op) {
    case OpId::add:
      return add;
    case OpId::sub:
      return sub;
    case OpId::mul:
      return mul;
    case OpId::div:
      return div;
    case OpId::pow:
      return pow;
    case OpId::maximum:
      return maximum;
    case OpId::minimum:
      return minimum;
    case OpId::atan2:
      return atan2;
    case OpId::hypot:
      return hypot;
    case OpId::fmod:
      return fmod;
    case OpId::floor_divide:
    case OpId::trunc_divide:
      return rounded_divide;
    case OpId::copysign:
      return copysign;
    case OpId::remainder:
      return remainder;
    case OpId::where:
      return where;
    case OpId::sum:
      return sum;
    case OpId::mean:
      return mean;
    case OpId::max:
    case OpId::min:
      return extreme;
    case OpId::softmax:
      return softmax;
    case OpId::log_softmax:
      return log_softmax;
    case OpId::layer_norm:
      return layer_norm;
    case OpId::matmul:
      return matmul;
    case OpId::linalg_solve:
      return linalg_solve;
    case OpId::linalg_solve_triangular:
      return linalg_solve_triangular;
    case OpId::linalg_cholesky:
      return linalg_cholesky;
    case OpId::index_select:
      return index_select;
    case OpId::index_add:
      return index_add;
    case OpId::det:
      return det;
    case OpId::resample:
      return resample;
    case OpId::gather:
    case OpId::scatter_add:
    case OpId::scatter_reduce:
      return scatter_backward_rule(op);  // rules_scatter.cpp
    case OpId::sort:  // the values' gradient goes back to the positions the indices name
    case OpId::cummax:
    case OpId::cummin:
      return sort;
    case OpId::cumsum:
      return cumsum;
    case OpId::cumprod:
      return cumprod;
    case OpId::logcumsumexp:
      return logcumsumexp;
    case OpId::prod:
      return prod;
    case OpId::view:
      return view;
    case OpId::transpose:
      return transpose;
    case OpId::permute:
      return permute;
    case OpId::expand:
      return expand;
    case OpId::cat:
      return cat;
    case OpId::stack:
      return stack;
    case OpId::slice:
      return slice;
    case OpId::select:
      return select;
    case OpId::diagonal:
      return diagonal;
    case OpId::unfold:
      return unfold;
    default:
      return kNoRule;
  }
}

}  // namespace wick
