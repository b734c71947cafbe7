// grad_cases.hpp: one case per differentiable op of wick/op_list.hpp, shared by the CPU
// gradcheck (tests/test_gradcheck.cpp: float64 against central differences) and the GPU suite
// (tests/cuda/test_autograd.cpp: float32 gradients on the device against the float64 CPU
// ones). Each case is a function of its inputs that uses the op (several of its forms where it
// has them) and creates any other tensor on its inputs' device, so it runs on any device.
#pragma once

#include <cmath>
#include <functional>
#include <map>
#include <vector>

#include "wick/wick.hpp"

namespace grad_cases {

using namespace wick;
using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct GradCase {
  std::vector<Shape> shapes;
  Fn fn;
  bool positive = false;  // inputs drawn from [0.5, 2.5) instead of [-2, 2)
};

// Input k of a case: float64 cpu, requires grad. Values are spread so that ties (max,
// maximum) and kinks (abs, relu, clamp) stay away from the points where the function is not
// differentiable.
inline Tensor input(const Shape& s, bool positive, int k) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  std::vector<double> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) {
    double spread = 0.37 * static_cast<double>(i + 1) + 0.11 * k;
    v[i] = positive ? 0.5 + std::fmod(spread, 2.0) : std::fmod(spread, 4.0) - 2.0 + 0.013;
  }
  return tensor(v, s, TensorOptions(kFloat64)).requires_grad_(true);
}

inline std::map<OpId, GradCase> cases() {
  using V = const std::vector<Tensor>&;
  const bool pos = true;
  return {
      {OpId::copy, {{{3, 4}}, [](V x) { return x[0].t().clone() * 1.5; }}},
      {OpId::neg, {{{5}}, [](V x) { return -x[0]; }}},
      {OpId::abs, {{{2, 3}}, [](V x) { return x[0].abs(); }}},
      {OpId::exp, {{{2, 3}}, [](V x) { return x[0].exp(); }}},
      {OpId::log, {{{2, 3}}, [](V x) { return x[0].log(); }, pos}},
      {OpId::sqrt, {{{4}}, [](V x) { return x[0].sqrt(); }, pos}},
      {OpId::relu, {{{2, 3}}, [](V x) { return x[0].relu(); }}},
      {OpId::sigmoid, {{{2, 3}}, [](V x) { return x[0].sigmoid(); }}},
      {OpId::tanh, {{{2, 3}}, [](V x) { return x[0].tanh(); }}},
      {OpId::erf, {{{2, 3}}, [](V x) { return x[0].erf(); }}},
      {OpId::log1p, {{{2, 3}}, [](V x) { return x[0].log1p(); }, pos}},
      {OpId::expm1, {{{2, 3}}, [](V x) { return x[0].expm1(); }}},
      {OpId::sin, {{{2, 3}}, [](V x) { return x[0].sin(); }}},
      // Inside each domain: tan away from its poles, asin and acos in (-1, 1), logs above 0.
      {OpId::tan, {{{2, 3}}, [](V x) { return (x[0].tanh() * 1.2).tan(); }}},
      {OpId::asin, {{{2, 3}}, [](V x) { return (x[0].tanh() * 0.9).asin(); }}},
      {OpId::acos, {{{2, 3}}, [](V x) { return (x[0].tanh() * 0.9).acos(); }}},
      {OpId::atan, {{{2, 3}}, [](V x) { return x[0].atan(); }}},
      {OpId::sinh, {{{2, 3}}, [](V x) { return x[0].sinh(); }}},
      {OpId::cosh, {{{2, 3}}, [](V x) { return x[0].cosh(); }}},
      {OpId::log2, {{{2, 3}}, [](V x) { return (x[0] * x[0] + 0.5).log2(); }}},
      {OpId::log10, {{{2, 3}}, [](V x) { return (x[0] * x[0] + 0.5).log10(); }}},
      {OpId::asinh, {{{2, 3}}, [](V x) { return x[0].asinh(); }}},
      {OpId::acosh, {{{2, 3}}, [](V x) { return (x[0] * x[0] + 1.5).acosh(); }}},
      {OpId::atanh, {{{2, 3}}, [](V x) { return (x[0] * 0.4).atanh(); }}},
      {OpId::erfc, {{{2, 3}}, [](V x) { return x[0].erfc(); }}},
      {OpId::erfinv, {{{2, 3}}, [](V x) { return (x[0] * 0.45).erfinv(); }}},
      {OpId::exp2, {{{2, 3}}, [](V x) { return x[0].exp2(); }}},
      // lgamma's gradient is digamma, digamma's polygamma(1, .), polygamma(2, .)'s
      // polygamma(3, .) (the zeta path).
      {OpId::lgamma, {{{2, 3}}, [](V x) { return (x[0] * x[0] + 0.3).lgamma(); }}},
      {OpId::digamma, {{{2, 3}}, [](V x) { return x[0].digamma(); }}},
      {OpId::polygamma, {{{2, 3}}, [](V x) { return (x[0] * x[0] + 0.2).polygamma(2); }}},
      {OpId::cos, {{{2, 3}}, [](V x) { return x[0].cos(); }}},
      {OpId::rsqrt, {{{2, 3}}, [](V x) { return x[0].rsqrt(); }, pos}},
      {OpId::reciprocal, {{{2, 3}}, [](V x) { return x[0].reciprocal(); }, pos}},
      // Flat almost everywhere: each times x, so that the case has a gradient to compare.
      {OpId::floor, {{{2, 3}}, [](V x) { return x[0].floor() * x[0]; }}},
      {OpId::ceil, {{{2, 3}}, [](V x) { return x[0].ceil() * x[0]; }}},
      {OpId::round, {{{2, 3}}, [](V x) { return x[0].round() * x[0]; }}},
      {OpId::trunc, {{{2, 3}}, [](V x) { return x[0].trunc() * x[0]; }}},
      {OpId::sign, {{{2, 3}}, [](V x) { return x[0].sign() * x[0]; }}},
      {OpId::pow_scalar,
       {{{4}}, [](V x) { return x[0].pow(2.5) + x[0].pow(3) + x[0].pow(0); }, pos}},
      {OpId::clamp, {{{3, 3}}, [](V x) { return x[0].clamp(-1.0, 1.0) + x[0].clamp_min(0.3); }}},
      {OpId::add, {{{2, 3}, {3}}, [](V x) { return add(x[0], x[1], 0.5) + x[1] + 2.0; }}},
      {OpId::sub, {{{2, 1}, {3}}, [](V x) { return sub(x[0], x[1], 1.5) - (1.0 - x[1]); }}},
      {OpId::mul, {{{2, 3}, {2, 1}}, [](V x) { return x[0] * x[1] * 3.0; }}},
      {OpId::div, {{{2, 3}, {3}}, [](V x) { return x[0] / x[1] + 1.0 / x[1]; }, pos}},
      {OpId::pow, {{{2, 3}, {3}}, [](V x) { return x[0].pow(x[1]); }, pos}},
      {OpId::maximum, {{{2, 3}, {3}}, [](V x) { return maximum(x[0], x[1] * 0.9); }}},
      {OpId::atan2, {{{2, 3}, {3}}, [](V x) { return atan2(x[0], x[1]) + x[1].atan2(x[0]); }}},
      {OpId::hypot, {{{2, 3}, {2, 1}}, [](V x) { return hypot(x[0], x[1]); }}},
      // Dividends and divisors whose quotients stay 0.02 or more from an integer (the jumps).
      {OpId::fmod,
       {{{2, 3}, {3}}, [](V x) { return fmod(x[0] * 3.0 - 4.0, x[1]) + x[0].fmod(0.7); }, pos}},
      {OpId::remainder,
       {{{2, 3}, {3}},
        [](V x) { return remainder(x[0] * 3.0 - 4.0, -x[1]) + remainder(2.5, x[1]); },
        pos}},
      // Zero gradients (piecewise constant), seen through a product that carries the quotient.
      {OpId::floor_divide,
       {{{2, 3}, {3}},
        [](V x) { return floor_divide(x[0] * 3.0 - 4.0, x[1]) * x[0] + x[0].floor_divide(0.7); },
        pos}},
      {OpId::copysign,
       {{{2, 3}, {3}}, [](V x) { return copysign(x[0], x[1]) + x[0].copysign(-1.5) * x[1]; }}},
      {OpId::trunc_divide,
       {{{2, 3}, {3}},
        [](V x) { return div(x[0] * 3.0 - 4.0, x[1], "trunc") * x[1] + x[0].div(0.7, "trunc"); },
        pos}},
      {OpId::minimum, {{{2, 3}, {3}}, [](V x) { return minimum(x[0], x[1] * 0.9); }}},
      // Their own gradients (double backward through sigmoid and tanh), both operands broadcast.
      {OpId::sigmoid_backward,
       {{{2, 3}, {3}}, [](V x) { return sigmoid_backward(x[0], x[1] * 0.3); }}},
      {OpId::tanh_backward, {{{2, 1}, {3}}, [](V x) { return tanh_backward(x[0], x[1]); }}},
      {OpId::where, {{{2, 3}, {3}}, [](V x) { return where(x[0].detach() > 0, x[0], x[1]); }}},
      {OpId::sum,
       {{{2, 3, 4}},
        [](V x) {
          return x[0].sum(1) + x[0].sum({0, 2}, true).sum() + x[0].sum();
        }}},
      {OpId::mean, {{{2, 3, 4}}, [](V x) { return x[0].mean(-1, true) + x[0].mean(); }}},
      {OpId::max,
       {{{3, 4}}, [](V x) { return std::get<0>(x[0].max(1)) + x[0].max() + x[0].amax(0).sum(); }}},
      {OpId::min, {{{3, 4}}, [](V x) { return std::get<0>(x[0].min(0, true)) + x[0].min(); }}},
      {OpId::softmax, {{{3, 4}}, [](V x) { return x[0].softmax(1) * x[0] + x[0].softmax(0); }}},
      {OpId::log_softmax, {{{3, 4}}, [](V x) { return x[0].log_softmax(-1) * x[0]; }}},
      {OpId::layer_norm,
       {{{3, 2, 4}, {2, 4}, {4}},
        [](V x) {
          // Over two dims with a weight; over one with a bias only; one leaf as weight and bias.
          return layer_norm(x[0], {2, 4}, x[1], {}, 1e-3) + layer_norm(x[0], {4}, {}, x[2]) * x[0] +
                 layer_norm(x[0].transpose(0, 1), {4}, x[2], x[2]).transpose(0, 1);
        }}},
      {OpId::matmul,
       {{{2, 1, 3, 4}, {3, 4, 2}, {2}}, [](V x) { return matmul(matmul(x[0], x[1]), x[2]); }}},
      {OpId::index_select,
       {{{4, 3}},
        [](V x) {
          // Repeated rows along dim 0, columns along dim 1 (outer > 1), a transposed table.
          const auto on = TensorOptions().dtype(kInt64).device(x[0].device());
          const Tensor rows = x[0].index_select(0, tensor({2, 0, 2, 1}, on));
          const Tensor columns = x[0].index_select(1, tensor({2, 0, 1}, on));
          return rows * columns + x[0].t().index_select(0, tensor({1, 1, 0}, on)).t();
        }}},
      {OpId::index_add,
       {{{4, 3}, {5, 3}, {4, 2}},
        [](V x) {
          const auto on = TensorOptions().dtype(kInt64).device(x[0].device());
          const Tensor a = x[0].index_add(0, tensor({1, 3, 1, 0, 1}, on), x[1]);
          const Tensor b = x[0].index_add(1, tensor({2, 2}, on), x[2], 0.5);
          return a * b;
        }}},
      {OpId::resample,
       {{{3, 4}, {2, 5}},
        [](V x) {
          // Along dim 1 (inner 1) and dim 0 of a transposed view, repeated sources; the weight
          // is a leaf too.
          const auto on = TensorOptions().dtype(kInt64).device(x[0].device());
          const Tensor index = tensor({0, 3, 3, 1, 2, 1, 0, 2, 2, 3}, on).reshape({2, 5});
          return resample(x[0], 1, index, x[1]) + resample(x[0].t(), 0, index, x[1]).t().sum(0);
        }}},
      {OpId::gather,
       {{{3, 4}},
        [](V x) {
          // Along each dim, repeated picks, an index narrower than self outside dim.
          const auto on = TensorOptions().dtype(kInt64).device(x[0].device());
          const Tensor rows = x[0].gather(0, tensor({{2, 0, 2, 1}, {2, 2, 0, 1}}, on));
          const Tensor columns = x[0].gather(1, tensor({{3, 3}, {0, 1}}, on));
          return rows.sum(0) * columns.sum() + x[0].t().gather(1, tensor({{0}, {2}}, on)).sum();
        }}},
      {OpId::scatter_add,
       {{{3, 4}, {2, 4}, {3, 3}},
        [](V x) {
          const auto on = TensorOptions().dtype(kInt64).device(x[0].device());
          // Repeated targets along dim 0; along dim 1 with src larger than the index.
          const Tensor a = x[0].scatter_add(0, tensor({{1, 1, 0, 2}, {1, 0, 0, 2}}, on), x[1]);
          const Tensor b = x[0].scatter_add(1, tensor({{3, 3}, {0, 1}}, on), x[2]);
          return a * b;
        }}},
      {OpId::scatter_reduce,
       {{{3, 4}, {2, 4}, {3, 3}},
        [](V x) {
          const auto on = TensorOptions().dtype(kInt64).device(x[0].device());
          // Every mode with and without self: repeated targets along dim 0 (src with one
          // exact zero, for prod's only-zero rule), src larger than the index along dim 1.
          const Tensor repeats = tensor({{1, 1, 0, 2}, {1, 0, 0, 2}}, on);
          const Tensor wider = tensor({{3, 3}, {0, 1}}, on);
          // x[1]'s first element as drawn (a constant, not the perturbed value).
          const double first =
              input({2, 4}, false, 1).detach().select(0, 0).select(0, 0).item<double>();
          const Tensor with_zero = x[1] - first;
          const Tensor w = arange(12, x[0].options()).reshape({3, 4}) + 1.0;
          Tensor total = zeros({}, x[0].options());
          for (const char* mode : {"sum", "prod", "mean", "amax", "amin"}) {
            for (bool self : {true, false}) {
              const Tensor a = x[0].scatter_reduce(0, repeats, with_zero, mode, self);
              const Tensor b = x[0].scatter_reduce(1, wider, x[2], mode, self);
              total = total + (a * w).sum() + (b * b).sum();
            }
          }
          // scatter, index_copy and index_fill without repeated targets (a repeated target's
          // loser gets a gradient in PyTorch's rule, which no finite difference sees).
          const Tensor once = tensor({{1, 2, 0, 2}, {0, 0, 1, 1}}, on);
          const Tensor copied = x[0].index_copy(1, tensor({2, 0}, on), x[2].narrow(1, 0, 2));
          const Tensor filled =
              x[0].index_fill(0, tensor({-1}, on), x[2].select(0, 1).select(0, 1));
          return total + (x[0].scatter(0, once, x[1]) * w).sum() + (copied * w).sum() +
                 (filled * w).sum() +
                 (take_along_dim(x[0], tensor({{0}, {3}, {1}}, on), 1) * x[2]).sum();
        }}},
      {OpId::linalg_solve,
       {{{2, 3, 3}, {3, 2}},
        [](V x) {
          // Diagonally dominated, so well conditioned; B broadcast over A's batch, a vector
          // right-hand side, and the inverse (a solve against the identity).
          const Tensor a = x[0] + eye(3, x[0].options()) * 4.0;
          return linalg_solve(a, x[1]).sum(-1) * 2.0 + linalg_solve(a, x[1].select(1, 0)) +
                 linalg_inv(a).sum(-1);
        }}},
      {OpId::linalg_cholesky,
       {{{2, 3, 3}},
        [](V x) {
          // The factor of a symmetric positive-definite input made from x (the op reads one
          // triangle, so finite differences must move both), lower and upper.
          const Tensor a = matmul(x[0], x[0].transpose(-2, -1)) + eye(3, x[0].options());
          return linalg_cholesky(a).sum(-1) + linalg_cholesky(a, true).sum(-2) * 0.5;
        }}},
      {OpId::linalg_solve_triangular,
       {{{2, 3, 3}, {3, 2}},
        [](V x) {
          // Lower and upper, from the left and the right (unit diagonal), B broadcast.
          const Tensor a = x[0] * 0.3 + eye(3, x[0].options()) * 2.0;
          return linalg_solve_triangular(a, x[1], false).sum(-1) +
                 linalg_solve_triangular(a, x[1].t(), true, false, true).sum(-2);
        }}},
      {OpId::det,
       {{{2, 3, 3}, {4, 4}},
        [](V x) {
          // A batch, and a transposed view times the determinant of a product.
          return det(x[0]).sum() * det(x[1].t()) + det(matmul(x[1], x[1]));
        }}},
      {OpId::sort,
       {{{3, 4}},
        [](V x) {
          // A full sort along each dim (descending too) and a top-k: products, so that the
          // gradient depends on where each value went.
          const Tensor w = arange(12, x[0].options()) + 1.0;
          const Tensor rows = std::get<0>(x[0].sort(1, true));
          const Tensor columns = std::get<0>(x[0].sort(0));
          const Tensor top = std::get<0>(x[0].t().topk(2, 1, false));
          return (rows.reshape({12}) * w).sum() * columns.reshape({12}).sum() + (top * top).sum();
        }}},
      {OpId::cumsum,
       {{{3, 4}},
        [](V x) {
          // Along each dim, and a transposed input: weighted, so the order matters.
          const Tensor w = arange(12, x[0].options()).reshape({3, 4}) + 1.0;
          return (x[0].cumsum(1) * w).sum() * x[0].cumsum(0).sum() +
                 (x[0].t().cumsum(1) * w.t()).sum();
        }}},
      {OpId::cumprod,
       {{{3, 4}},
        [](V x) {
          // Along each dim and a transposed input, with a zero in one line (x * 0 keeps the
          // graph: the zero's gradient is the product of the others).
          const Tensor w = arange(12, x[0].options()).reshape({3, 4}) + 1.0;
          const Tensor zeroed = x[0] * (ne(arange(12, x[0].options()).reshape({3, 4}), 5.0) * 1.0);
          return (zeroed.cumprod(1) * w).sum() + x[0].cumprod(0).sum() +
                 (x[0].t().cumprod(1) * w.t()).sum();
        }}},
      {OpId::cummax,
       {{{3, 4}},
        [](V x) {
          // Along each dim and a transposed input, weighted; the random inputs are distinct,
          // so no position changes under gradcheck's perturbation.
          const Tensor w = arange(12, x[0].options()).reshape({3, 4}) + 1.0;
          return (std::get<0>(x[0].cummax(1)) * w).sum() + std::get<0>(x[0].cummax(0)).sum() +
                 (std::get<0>(x[0].t().cummax(1)) * w.t()).sum();
        }}},
      {OpId::cummin,
       {{{3, 4}},
        [](V x) {
          const Tensor w = arange(12, x[0].options()).reshape({3, 4}) + 1.0;
          return (std::get<0>(x[0].cummin(1)) * w).sum() * std::get<0>(x[0].cummin(0)).sum();
        }}},
      {OpId::logcumsumexp,
       {{{3, 4}},
        [](V x) {
          // Weights of both signs (the formula's two parts), along each dim and transposed.
          const Tensor w = arange(12, x[0].options()).reshape({3, 4}) - 5.5;
          return (x[0].logcumsumexp(1) * w).sum() + x[0].logcumsumexp(0).sum() +
                 (x[0].t().logcumsumexp(1) * w.t()).sum();
        }}},
      {OpId::prod,
       {{{3, 4}},
        [](V x) {
          // Along each dim (kept and not), over everything, and a line with a zero.
          const Tensor mask = ne(arange(12, x[0].options()).reshape({3, 4}), 6.0) * 1.0;
          return x[0].prod(1).sum() * x[0].prod(0, true).sum() + x[0].t().prod() +
                 (x[0] * mask).prod(1).sum();
        }}},
      {OpId::cat,
       {{{2, 3}, {2, 1}, {2, 2}},
        [](V x) {
          // Each input twice in one cat (two edges into one leaf), a transposed input and a
          // legacy empty.
          Tensor joined = cat({x[0], x[1], zeros({0}, x[0].options()), x[0], x[2]}, -1);
          Tensor rows = cat({x[0].t(), x[2].t()}, 0);
          return joined * 1.5 + rows.sum(0).sum();
        }}},
      {OpId::stack,
       {{{2, 3}, {2, 3}},
        [](V x) {
          // Along a middle dim and the last, one input twice, a view as an input.
          return stack({x[0], x[1], x[0]}, 1) * 2.0 +
                 stack({x[1].t(), x[0].t()}, -1).sum({0, 1}).sum();
        }}},
      {OpId::view,
       {{{2, 6}},
        [](V x) {
          return x[0].view({3, 4}).reshape({4, 3}).unsqueeze(0).flatten() * x[0].view({12});
        }}},
      {OpId::transpose, {{{2, 3}}, [](V x) { return x[0].t() * 2.0 + x[0].transpose(0, 1); }}},
      {OpId::permute,
       {{{2, 3, 4}},
        [](V x) {
          return x[0].permute({2, 0, 1}) * x[0].permute({2, 0, 1});
        }}},
      {OpId::expand,
       {{{3, 1}},
        [](V x) {
          return x[0].expand({2, 3, 4}) * 1.5;
        }}},
      {OpId::slice, {{{5, 4}}, [](V x) { return x[0].slice(0, 1, 5, 2) * x[0].narrow(0, 0, 2); }}},
      {OpId::select, {{{5, 4}}, [](V x) { return x[0].select(1, 2) * x[0].select(0, -1).sum(); }}},
      {OpId::diagonal,
       {{{3, 4, 5}}, [](V x) { return x[0].diagonal(1, 0, 2) * x[0].diagonal(-1, 2, 1).sum(); }}},
      // Overlapping windows (added by window offset, then by window) and disjoint ones.
      {OpId::unfold,
       {{{7, 3}},
        [](V x) {
          return x[0].unfold(0, 3, 2) * x[0].unfold(0, 5, 1).sum() + x[0].unfold(0, 2, 3).sum();
        }}},
  };
}

}  // namespace grad_cases
