// rules_scatter.cpp: the backward rules of gather, scatter_add and scatter_reduce (which also
// records scatter, index_copy and index_fill: ints = {ScatterMode, include_self}). The src of a
// recorded scatter has the index's shape (a larger src is narrowed before the op is recorded).
// The forward checked the index against the same sizes, so the rules skip that check on a GPU
// (detail::IndexesInRange).
// scatter_reduce's rules are PyTorch's (FunctionsManual.cpp, scatter_reduce_backward):
//  - sum: self gets g; src gets g gathered at its targets;
//  - assign (scatter): the same, but the overwritten targets of self get zero;
//  - mean: both get g / count, count = the elements averaged into each target;
//  - amax, amin: a target's gradient is shared evenly among the elements equal to the result
//    (self where included, and src). Unlike PyTorch, NaN counts as equal to a NaN result, so a
//    NaN that won gets the gradient (PyTorch gives NaN to every element of that target), and a
//    self left out by include_self = false never takes a share;
//  - prod: each element gets g times the product of the others, computed as result / element
//    where the element is not zero, and as a second product with the zero replaced by 1 where
//    it is a target's only zero in src (a target with two zeros gives zero to all).
// Where include_self is false, the targets' own values get no gradient.
#include "node.hpp"
#include "rule_util.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// x == y, or both NaN.
Tensor same_value(const Tensor& x, const Tensor& y) {
  return logical_or(eq(x, y), logical_and(isnan(x), isnan(y)));
}

Grads gather_rule(const Node& n, const Tensor& g) {
  const detail::IndexesInRange checked_by_the_forward;
  return {scatter_add(zeros({}, g.options()).expand(in_sizes(n, 0)), n.dim, n.input(1), g)};
}

Grads scatter_add_rule(const Node& n, const Tensor& g) {
  const detail::IndexesInRange checked_by_the_forward;
  Grads r;
  if (n.edges[0].needed) r[0] = g;
  if (n.edges[2].needed) {
    // An empty index adds nothing (and src's shape was not checked against it).
    const Tensor& index = n.input(1);
    r[2] = index.numel() == 0 ? zeros(in_sizes(n, 2), g.options()) : gather(g, n.dim, index);
  }
  return r;
}

// The gradients of self and src for the extreme modes (amax, amin).
std::pair<Tensor, Tensor> extreme_grads(const Node& n, const Tensor& g, bool include_self) {
  const int64_t d = n.dim;
  const Tensor& index = n.input(1);
  const Tensor& result = n.result();
  const Tensor value = gather(result, d, index);
  Tensor self_won = same_value(n.input(0), result);
  if (!include_self) self_won = scatter(self_won, d, index, false);
  const Tensor src_won = same_value(n.input(2), value);
  const Tensor winners = scatter_add(self_won.to(g.dtype()), d, index, src_won.to(g.dtype()));
  // Every target has a winner: itself where no index names it, else the result's element.
  const Tensor share = g / winners;
  return {where(self_won, share, Scalar(0.0)),
          where(src_won, gather(share, d, index), Scalar(0.0))};
}

// The gradients of self and src for prod: the product of the others.
std::pair<Tensor, Tensor> prod_grads(const Node& n, const Tensor& g, bool include_self) {
  const int64_t d = n.dim;
  const Tensor& index = n.input(1);
  const Tensor &self = n.input(0), &src = n.input(2), &result = n.result();
  const Tensor self_ones = where(eq(self, 0), Scalar(1), self);
  const Tensor self_grad =
      g * scatter_reduce(self_ones, d, index, src, "prod", include_self) / self_ones;
  const Tensor src_zero = eq(src, 0);
  const Tensor zeros_at_target = gather(
      scatter_add(zeros({}, g.options()).expand(result.sizes()), d, index, src_zero.to(g.dtype())),
      d, index);
  const Tensor only_zero = logical_and(src_zero, eq(zeros_at_target, 1));
  const Tensor others_with_one =
      scatter_reduce(self, d, index, where(only_zero, Scalar(1), src), "prod", include_self);
  const Tensor src_grad = where(only_zero, gather(g * others_with_one, d, index),
                                gather(g * result, d, index) / where(src_zero, Scalar(1), src));
  return {self_grad, src_grad};
}

Grads scatter_reduce_rule(const Node& n, const Tensor& g) {
  const detail::IndexesInRange checked_by_the_forward;
  const auto mode = static_cast<ScatterMode>(n.ints[0]);
  const bool include_self = n.ints[1] != 0;
  const int64_t d = n.dim;
  const Tensor& index = n.input(1);
  Grads r;
  if (index.numel() == 0) {
    if (n.edges[0].needed) r[0] = g;
    if (n.edges[2].needed) r[2] = zeros(in_sizes(n, 2), g.options());
    return r;
  }
  Tensor self_grad, src_grad;
  switch (mode) {
    case ScatterMode::sum:
    case ScatterMode::assign:
      self_grad = g;
      src_grad = gather(g, d, index);
      break;
    case ScatterMode::mean: {
      const Tensor counts =
          clamp_min(scatter_add(full({}, include_self ? 1 : 0, g.options()).expand(g.sizes()), d,
                                index, ones({}, g.options()).expand(index.sizes())),
                    1);
      self_grad = g / counts;
      src_grad = gather(self_grad, d, index);
      break;
    }
    case ScatterMode::amax:
    case ScatterMode::amin:
      std::tie(self_grad, src_grad) = extreme_grads(n, g, include_self);
      break;
    case ScatterMode::prod:
      std::tie(self_grad, src_grad) = prod_grads(n, g, include_self);
      break;
  }
  if (n.edges[0].needed) {
    // The targets' old values were overwritten (scatter) or left out (include_self false).
    r[0] =
        include_self && mode != ScatterMode::assign ? self_grad : scatter(self_grad, d, index, 0.0);
  }
  if (n.edges[2].needed) r[2] = src_grad;
  return r;
}

}  // namespace

const BackwardRule& scatter_backward_rule(OpId op) {
  // gather and scatter_add save only the index (bit 1); scatter_reduce saves all three and its
  // result (amax, amin and prod read them).
  static const BackwardRule gather{true, false, gather_rule, nullptr, 0x2},
      scatter_add{true, false, scatter_add_rule, nullptr, 0x2},
      scatter_reduce{true, true, scatter_reduce_rule, nullptr, 0x7};
  if (op == OpId::gather) return gather;
  if (op == OpId::scatter_add) return scatter_add;
  return scatter_reduce;
}

}  // namespace wick
