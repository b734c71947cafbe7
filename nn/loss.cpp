// loss.cpp: mse_loss, cross_entropy and nll_loss as compositions of autograd-aware ops.
// cross_entropy is the stable fused form: log_softmax (max-shifted in its kernel), then the
// target's entry of each row picked with gather (ignored rows zeroed with where, so no 0 * -inf
// can appear). Tested in tests/nn/test_loss.cpp (hand-computed values, gradients, errors) and
// tests/nn/test_parity.cpp.
#include "wick/nn/loss.hpp"

#include "loss_common.hpp"
#include "wick/dispatch.hpp"

#include <sstream>

namespace wick::nn {

using detail::reduce;
using detail::reduction_name;

Tensor functional::mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  WICK_CHECK(input.sizes() == target.sizes(), ShapeError, "mse_loss", "input ", describe(input),
             " and target ", describe(target), " must have the same shape");
  WICK_CHECK(input.is_floating_point(), DtypeError, "mse_loss", "input ", describe(input),
             " must be floating point");
  Tensor diff = input - target;
  return reduce(diff * diff, reduction);
}

namespace {

// The problem as rows: input [M, C] with the classes last, an index target [M] or a probability
// target [M, C], and the shape a reduction of none returns (the input's shape without the class
// dim). [C] is one row; [N, C, d1, ...] moves dim 1 last, as PyTorch's K-dim losses do.
struct Rows {
  Tensor input, target;
  Shape out_shape;
};

Rows as_rows(const Tensor& input, const Tensor& target, bool probabilities, const char* op) {
  WICK_CHECK(input.dim() >= 1, ShapeError, op, "input ", describe(input),
             " must be [C], [N, C] or [N, C, d1, ...]");
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  Shape out_shape = input.sizes();
  out_shape.erase(static_cast<size_t>(class_dim));
  if (probabilities) {
    WICK_CHECK(target.sizes() == input.sizes(), ShapeError, op, "probability target ",
               describe(target), " must have the shape of input ", describe(input));
  } else {
    WICK_CHECK(target.sizes() == out_shape, ShapeError, op, "target ", describe(target),
               " must be ", out_shape, " (input ", describe(input),
               " without its class dim) for class indices");
  }
  if (input.dim() == 1) {
    return {input.unsqueeze(0), target.unsqueeze(0), out_shape};
  }
  if (input.dim() == 2) return {input, target, out_shape};
  Shape classes_last;
  for (int64_t d = 0; d < input.dim(); ++d) {
    if (d != 1) classes_last.push_back(d);
  }
  classes_last.push_back(1);
  const int64_t classes = input.size(1);
  Tensor rows = input.permute(classes_last).reshape({-1, classes});
  Tensor target_rows =
      probabilities ? target.permute(classes_last).reshape({-1, classes}) : target.reshape({-1});
  return {rows, target_rows, out_shape};
}

void check_weight(const Tensor& weight, const Tensor& input, int64_t classes, const char* op) {
  if (!weight.defined()) return;
  WICK_CHECK(weight.dim() == 1 && weight.size(0) == classes, ShapeError, op, "weight ",
             describe(weight), " must be [", classes, "], one per class of input ",
             describe(input));
  WICK_CHECK(weight.dtype() == input.dtype(), DtypeError, op, "weight ", describe(weight),
             " must have the dtype of input ", describe(input));
  WICK_CHECK(weight.device() == input.device(), DeviceError, op, "weight ", describe(weight),
             " and input ", describe(input), " are on different devices");
}

// Checks class indices [M] and returns how many equal ignore_index: one reduction, one host
// copy (one device sync on the GPU).
int64_t count_ignored(const Tensor& target, int64_t classes, int64_t ignore_index, const char* op) {
  if (target.numel() == 0) return 0;
  const std::vector<int64_t> counts =
      stack({sum(lt(target, 0)) + sum(ge(target, classes)), sum(eq(target, ignore_index))})
          .to_vector<int64_t>();
  const bool ignore_in_range = ignore_index >= 0 && ignore_index < classes;
  const int64_t bad = counts[0] - (ignore_in_range ? 0 : counts[1]);
  if (bad > 0) {
    wick::detail::fail<IndexError>(
        op, bad, " target value(s) outside [0, ", classes, ") other than ignore_index ",
        ignore_index, ": min ", min(target).item<int64_t>(), ", max ", max(target).item<int64_t>());
  }
  return counts[1];
}

// -sum_c w_c q_c log_probs_c per row for class indices (q one-hot), reduced as PyTorch's
// nll_loss, plus label smoothing as PyTorch's cross_entropy adds it.
Tensor index_loss(const Rows& rows, const Tensor& weight, int64_t ignore_index, int64_t ignored,
                  double smoothing, Reduction reduction) {
  const Tensor& log_probs = rows.input;  // [M, C]
  const int64_t classes = log_probs.size(1);
  const int64_t kept_rows = log_probs.size(0) - ignored;
  Tensor is_ignored = ignored > 0 ? eq(rows.target, ignore_index) : Tensor();
  // An ignored row picks class 0, then its loss is set to 0 by a where (not a product: a -inf
  // log-probability there cannot give 0 * -inf = NaN). One gather per row instead of a
  // one-hot mask over [M, C]: the backward is a scatter_add into a zeros tensor written once.
  const Tensor safe = ignored > 0 ? where(is_ignored, 0, rows.target) : rows.target;  // [M]
  // No classes: every row is ignored (count_ignored refused the rest), and there is no class
  // 0 to pick: the sum over none gives the zeros the where would (and zero weights, so that
  // the weighted mean is 0 / 0 = NaN, as PyTorch's).
  const bool no_classes = classes == 0;
  // count_ignored checked every target (the callers run it first), and safe is in [0, C): the
  // index ops need not check again (on a GPU, a synchronisation each).
  const wick::detail::IndexesInRange targets_checked(/*host_tensors_too=*/true);
  Tensor row_weight;
  if (weight.defined()) {
    row_weight =
        no_classes ? zeros({log_probs.size(0)}, weight.options()) : weight.index_select(0, safe);
  }
  Tensor picked = no_classes ? log_probs.sum(1) : log_probs.gather(1, safe.unsqueeze(1)).squeeze(1);
  if (weight.defined()) picked = picked * row_weight;
  if (ignored > 0) picked = where(is_ignored, 0.0, picked);
  auto reduce_rows = [&](const Tensor& per_row) {
    switch (reduction) {
      case Reduction::None:
        return per_row.reshape(rows.out_shape);
      case Reduction::Sum:
        return per_row.sum();
      case Reduction::Mean:
        break;
    }
    // The mean divides by the kept targets' summed weights, or their count (0/0 = NaN when
    // every target is ignored, as PyTorch).
    if (weight.defined()) {
      return per_row.sum() / (ignored > 0 ? where(is_ignored, 0.0, row_weight) : row_weight).sum();
    }
    if (ignored == 0) return per_row.mean();
    return per_row.sum() / static_cast<double>(kept_rows);
  };
  Tensor loss = reduce_rows(-picked);
  if (smoothing > 0) {
    // The smoothing's uniform target, times C.
    Tensor uniform = -(weight.defined() ? log_probs * weight : log_probs).sum(1);
    if (ignored > 0) uniform = where(is_ignored, 0.0, uniform);
    loss = (1.0 - smoothing) * loss + reduce_rows(uniform) * (smoothing / classes);
  }
  return loss;
}

// -sum_c w_c q_c log_probs_c per row for class probabilities q; the mean is over rows.
Tensor probability_loss(const Rows& rows, const Tensor& weight, double smoothing,
                        Reduction reduction) {
  const int64_t classes = rows.input.size(1);
  Tensor q = smoothing > 0 ? rows.target * (1.0 - smoothing) + smoothing / classes : rows.target;
  Tensor product = rows.input * q;
  if (weight.defined()) product = product * weight;
  Tensor per_row = -product.sum(1);
  switch (reduction) {
    case Reduction::None:
      return per_row.reshape(rows.out_shape);
    case Reduction::Sum:
      return per_row.sum();
    case Reduction::Mean:
      break;
  }
  return per_row.mean();
}

void check_common(const Tensor& input, const Tensor& target, const char* op) {
  WICK_CHECK(input.defined() && target.defined(), ValueError, op,
             "input and target must be defined tensors");
  WICK_CHECK(input.is_floating_point(), DtypeError, op, "input ", describe(input),
             " must be floating point");
  WICK_CHECK(target.device() == input.device(), DeviceError, op, "input ", describe(input),
             " and target ", describe(target), " are on different devices");
}

}  // namespace

Tensor functional::cross_entropy(const Tensor& input, const Tensor& target,
                                 const CrossEntropyLossOptions& options) {
  const char* op = "cross_entropy";
  check_common(input, target, op);
  const double smoothing = options.label_smoothing();
  WICK_CHECK(smoothing >= 0.0 && smoothing <= 1.0, ValueError, op, "label_smoothing ", smoothing,
             " must be in [0, 1]");
  // PyTorch's rule: a target of the input's shape holds probabilities, anything else indices.
  const bool probabilities = input.dim() >= 1 && target.sizes() == input.sizes();
  if (probabilities) {
    WICK_CHECK(target.is_floating_point(), DtypeError, op, "target ", describe(target),
               " has the shape of input ", describe(input),
               " so it must hold class probabilities (floating point)");
    WICK_CHECK(options.ignore_index() < 0, ValueError, op, "ignore_index ", options.ignore_index(),
               " applies to class indices, not to probability target ", describe(target));
  } else {
    WICK_CHECK(target.dtype() == kInt64, DtypeError, op, "target ", describe(target),
               " must hold int64 class indices (or class probabilities of input ", describe(input),
               "'s shape)");
  }
  const Rows rows = as_rows(input, target, probabilities, op);
  const int64_t classes = rows.input.size(1);
  check_weight(options.weight(), input, classes, op);
  if (probabilities) {
    return probability_loss({log_softmax(rows.input, 1), rows.target, rows.out_shape},
                            options.weight(), smoothing, options.reduction());
  }
  const int64_t ignored = count_ignored(rows.target, classes, options.ignore_index(), op);
  return index_loss({log_softmax(rows.input, 1), rows.target, rows.out_shape}, options.weight(),
                    options.ignore_index(), ignored, smoothing, options.reduction());
}

Tensor functional::cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction) {
  return cross_entropy(input, target, CrossEntropyLossOptions(reduction));
}

Tensor functional::nll_loss(const Tensor& input, const Tensor& target,
                            const NLLLossOptions& options) {
  const char* op = "nll_loss";
  check_common(input, target, op);
  WICK_CHECK(target.dtype() == kInt64, DtypeError, op, "target ", describe(target),
             " must hold int64 class indices");
  const Rows rows = as_rows(input, target, /*probabilities=*/false, op);
  const int64_t classes = rows.input.size(1);
  check_weight(options.weight(), input, classes, op);
  const int64_t ignored = count_ignored(rows.target, classes, options.ignore_index(), op);
  return index_loss(rows, options.weight(), options.ignore_index(), ignored, 0.0,
                    options.reduction());
}

Tensor functional::nll_loss(const Tensor& input, const Tensor& target) {
  return nll_loss(input, target, NLLLossOptions());
}

CrossEntropyLossImpl::CrossEntropyLossImpl(CrossEntropyLossOptions options)
    : options_(std::move(options)) {
  if (options_.weight().defined()) weight = register_buffer("weight", options_.weight());
}

Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) const {
  CrossEntropyLossOptions current = options_;
  current.weight(weight);  // the buffer, which Module::to moves
  return functional::cross_entropy(input, target, current);
}

NLLLossImpl::NLLLossImpl(NLLLossOptions options) : options_(std::move(options)) {
  if (options_.weight().defined()) weight = register_buffer("weight", options_.weight());
}

Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) const {
  NLLLossOptions current = options_;
  current.weight(weight);
  return functional::nll_loss(input, target, current);
}

std::string MSELossImpl::extra_repr() const {
  return std::string("reduction=") + reduction_name(options_.reduction());
}
std::string CrossEntropyLossImpl::extra_repr() const {
  std::string repr = std::string("reduction=") + reduction_name(options_.reduction());
  if (options_.ignore_index() != -100)
    repr += ", ignore_index=" + std::to_string(options_.ignore_index());
  if (options_.label_smoothing() != 0) {
    std::ostringstream smoothing;
    smoothing << options_.label_smoothing();
    repr += ", label_smoothing=" + smoothing.str();
  }
  return repr;
}
std::string NLLLossImpl::extra_repr() const {
  std::string repr = std::string("reduction=") + reduction_name(options_.reduction());
  if (options_.ignore_index() != -100)
    repr += ", ignore_index=" + std::to_string(options_.ignore_index());
  return repr;
}

}  // namespace wick::nn
