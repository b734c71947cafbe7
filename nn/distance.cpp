// distance.cpp: normalize, cosine_similarity, pairwise_distance and the margin losses of
// distance.hpp, as compositions of autograd-aware ops.
#include "wick/nn/distance.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <sstream>

#include "loss_common.hpp"
#include "wick/nn/activation.hpp"

namespace wick::nn {

using detail::reduce;
using detail::reduction_name;

namespace {

// Three floating operands with the same number of dims (PyTorch's rule for the margin losses).
void check_three_of_one_rank(const char* op, const std::array<const Tensor*, 3>& t,
                             const std::array<const char*, 3>& names) {
  for (size_t i = 0; i < 3; ++i) detail::check_floating_operand(*t[i], names[i], op);
  WICK_CHECK(t[0]->dim() == t[1]->dim() && t[0]->dim() == t[2]->dim(), ShapeError, op, names[0],
             ", ", names[1], " and ", names[2], " should have the same number of dims, got ",
             describe(*t[0]), ", ", describe(*t[1]), " and ", describe(*t[2]));
}

int64_t wrapped(int64_t dim, int64_t ndim, const Tensor& t, const char* op) {
  const int64_t n = std::max<int64_t>(ndim, 1);
  WICK_CHECK(dim >= -n && dim < n, IndexError, op, "dim ", dim, " out of range for ", describe(t));
  return dim < 0 ? dim + n : dim;
}

}  // namespace

Tensor functional::normalize(const Tensor& input, double p, int64_t dim, double eps) {
  detail::check_floating_operand(input, "input", "normalize");
  const int64_t d = wrapped(dim, input.dim(), input, "normalize");
  return input / clamp_min(norm(input, p, Shape{d}, /*keepdim=*/true), eps);
}

Tensor functional::cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  detail::check_floating_operand(x1, "x1", "cosine_similarity");
  detail::check_floating_operand(x2, "x2", "cosine_similarity");
  // PyTorch broadcasts first; the broadcast shape decides the dim. expand keeps the gradient's
  // path (its rule sums the broadcast dims back).
  const Shape shape = broadcast_shapes(x1.sizes(), x2.sizes());
  const Tensor a = x1.expand(shape), b = x2.expand(shape);
  const int64_t d = wrapped(dim, a.dim(), a, "cosine_similarity");
  const Tensor a_unit = a / clamp_min(norm(a, 2.0, Shape{d}, true), eps);
  const Tensor b_unit = b / clamp_min(norm(b, 2.0, Shape{d}, true), eps);
  return sum(a_unit * b_unit, d);
}

Tensor functional::pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps,
                                     bool keepdim) {
  detail::check_floating_operand(x1, "x1", "pairwise_distance");
  detail::check_floating_operand(x2, "x2", "pairwise_distance");
  const Tensor difference = x1 - x2 + eps;
  WICK_CHECK(difference.dim() > 0, ShapeError, "pairwise_distance", "needs at least one dim, got ",
             describe(x1), " and ", describe(x2));
  return norm(difference, p, Shape{difference.dim() - 1}, keepdim);
}

Tensor functional::margin_ranking_loss(const Tensor& input1, const Tensor& input2,
                                       const Tensor& target,
                                       const MarginRankingLossOptions& options) {
  check_three_of_one_rank("margin_ranking_loss", {&input1, &input2, &target},
                          {"input1", "input2", "target"});
  return reduce(clamp_min(-target * (input1 - input2) + options.margin(), 0.0),
                options.reduction());
}

Tensor functional::triplet_margin_loss(const Tensor& anchor, const Tensor& positive,
                                       const Tensor& negative,
                                       const TripletMarginLossOptions& options) {
  check_three_of_one_rank("triplet_margin_loss", {&anchor, &positive, &negative},
                          {"anchor", "positive", "negative"});
  const double p = options.p(), eps = options.eps();
  const Tensor d_positive = pairwise_distance(anchor, positive, p, eps);
  Tensor d_negative = pairwise_distance(anchor, negative, p, eps);
  if (options.swap()) {
    d_negative = minimum(d_negative, pairwise_distance(positive, negative, p, eps));
  }
  return reduce(clamp_min(d_positive - d_negative + options.margin(), 0.0), options.reduction());
}

Tensor functional::cosine_embedding_loss(const Tensor& input1, const Tensor& input2,
                                         const Tensor& target, const MarginLossOptions& options) {
  const char* op = "cosine_embedding_loss";
  detail::check_floating_operand(input1, "input1", op);
  detail::check_floating_operand(input2, "input2", op);
  detail::check_floating_operand(target, "target", op);
  WICK_CHECK(input1.sizes() == input2.sizes(), ShapeError, op, "input1 ", describe(input1),
             " and input2 ", describe(input2), " must have the same shape");
  WICK_CHECK((target.dim() == 1 && input1.dim() == 2) || (target.dim() == 0 && input1.dim() == 1),
             ShapeError, op, "a 1-D target takes 2-D inputs and a 0-d target 1-D ones, got ",
             describe(target), " and ", describe(input1));
  WICK_CHECK(target.dim() == 0 || target.size(0) == input1.size(0), ShapeError, op, "target ",
             describe(target), " must have one value per row of input1 ", describe(input1));
  const int64_t d = input1.dim() - 1;
  constexpr double kEpsilon = 1e-12;  // PyTorch's, added to each squared norm
  const Tensor dot = sum(input1 * input2, d);
  const Tensor norms =
      sqrt((sum(input1 * input1, d) + kEpsilon) * (sum(input2 * input2, d) + kEpsilon));
  const Tensor cos = dot / norms;
  const double margin = options.margin().value_or(0.0);
  const Tensor loss = where(eq(target, 1.0), 1.0 - cos, 0.0) +
                      where(eq(target, -1.0), clamp_min(cos - margin, 0.0), 0.0);
  return reduce(loss, options.reduction());
}

Tensor functional::hinge_embedding_loss(const Tensor& input, const Tensor& target,
                                        const MarginLossOptions& options) {
  const char* op = "hinge_embedding_loss";
  detail::check_floating_operand(input, "input", op);
  detail::check_floating_operand(target, "target", op);
  const double margin = options.margin().value_or(1.0);
  // PyTorch's: the margin part where target != 1, the input where target != -1.
  const Tensor loss = where(ne(target, 1.0), clamp_min(margin - input, 0.0), 0.0) +
                      where(ne(target, -1.0), input, 0.0);
  return reduce(loss, options.reduction());
}

Tensor functional::soft_margin_loss(const Tensor& input, const Tensor& target,
                                    Reduction reduction) {
  const char* op = "soft_margin_loss";
  detail::check_floating_operand(input, "input", op);
  detail::check_floating_operand(target, "target", op);
  WICK_CHECK(input.sizes() == target.sizes(), ShapeError, op, "input ", describe(input),
             " and target ", describe(target), " must have the same shape");
  // log(1 + exp(-y x)): softplus, which never overflows, with no threshold (past softplus'
  // default of 20 it would return -y x itself, 2e-9 off).
  return reduce(softplus(-target * input, 1.0, std::numeric_limits<double>::infinity()), reduction);
}

KLDivLossOptions::KLDivLossOptions(Reduction reduction)
    : reduction_(reduction == kNone  ? KLDivReduction::None
                 : reduction == kSum ? KLDivReduction::Sum
                                     : KLDivReduction::Mean) {}

Tensor functional::kl_div(const Tensor& input, const Tensor& target,
                          const KLDivLossOptions& options) {
  const char* op = "kl_div";
  detail::check_floating_operand(input, "input", op);
  detail::check_floating_operand(target, "target", op);
  const Tensor pointwise = options.log_target() ? exp(target) * (target - input)
                                                : xlogy(target, target) - target * input;
  switch (options.reduction()) {
    case KLDivReduction::None:
      return pointwise;
    case KLDivReduction::Sum:
      return pointwise.sum();
    case KLDivReduction::Mean:
      return pointwise.mean();
    case KLDivReduction::BatchMean:
      // The batch is the first dim; a 0-d input is a batch of one.
      return input.dim() == 0 ? pointwise.sum() : pointwise.sum() / input.size(0);
  }
  return pointwise;
}

std::string KLDivLossImpl::extra_repr() const {
  static const char* const kNames[] = {"none", "batchmean", "sum", "mean"};
  return std::string("reduction=") + kNames[static_cast<int>(options_.reduction())] +
         (options_.log_target() ? ", log_target=true" : "");
}

std::string MarginRankingLossImpl::extra_repr() const {
  std::ostringstream out;
  out << "margin=" << options_.margin() << ", reduction=" << reduction_name(options_.reduction());
  return out.str();
}

std::string TripletMarginLossImpl::extra_repr() const {
  std::ostringstream out;
  out << "margin=" << options_.margin() << ", p=" << options_.p() << ", eps=" << options_.eps()
      << ", swap=" << (options_.swap() ? "true" : "false")
      << ", reduction=" << reduction_name(options_.reduction());
  return out.str();
}

}  // namespace wick::nn
