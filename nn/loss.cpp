// loss.cpp: mse_loss and cross_entropy as compositions of autograd-aware ops. cross_entropy is
// the stable fused form: log_softmax (max-shifted in its kernel), then the target's entry of
// each row picked with where(one-hot mask), so no 0 * -inf can appear. Tested in
// tests/nn/test_loss.cpp (hand-computed values, gradients, errors) and tests/nn/test_parity.cpp.
#include "wick/nn/loss.hpp"

namespace wick::nn {

namespace {
Tensor reduce(const Tensor& per_element, Reduction reduction) {
  switch (reduction) {
    case Reduction::Mean:
      return per_element.mean();
    case Reduction::Sum:
      return per_element.sum();
    case Reduction::None:
      return per_element;
  }
  return per_element;
}
const char* reduction_name(Reduction r) {
  switch (r) {
    case Reduction::Mean:
      return "mean";
    case Reduction::Sum:
      return "sum";
    case Reduction::None:
      return "none";
  }
  return "?";
}
}  // namespace

Tensor functional::mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  WICK_CHECK(input.sizes() == target.sizes(), ShapeError, "mse_loss", "input ", describe(input),
             " and target ", describe(target), " must have the same shape");
  WICK_CHECK(input.is_floating_point(), DtypeError, "mse_loss", "input ", describe(input),
             " must be floating point");
  Tensor diff = input - target;
  return reduce(diff * diff, reduction);
}

Tensor functional::cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction) {
  WICK_CHECK(input.dim() == 2, ShapeError, "cross_entropy", "input ", describe(input),
             " must be [batch, classes]");
  WICK_CHECK(input.is_floating_point(), DtypeError, "cross_entropy", "input ", describe(input),
             " must be floating point");
  WICK_CHECK(target.dtype() == kInt64, DtypeError, "cross_entropy", "target ", describe(target),
             " must hold int64 class indices");
  WICK_CHECK(target.dim() == 1 && target.size(0) == input.size(0), ShapeError, "cross_entropy",
             "target ", describe(target), " must be [batch] for input ", describe(input));
  WICK_CHECK(target.device() == input.device(), DeviceError, "cross_entropy", "input ",
             describe(input), " and target ", describe(target), " are on different devices");
  const int64_t classes = input.size(1);
  if (target.numel() > 0) {
    const int64_t bad = (sum(lt(target, 0)) + sum(ge(target, classes))).item<int64_t>();
    if (bad > 0) {
      wick::detail::fail<IndexError>("cross_entropy", bad, " target value(s) outside [0, ", classes,
                                     "): min ", min(target).item<int64_t>(), ", max ",
                                     max(target).item<int64_t>());
    }
  }
  Tensor log_probs = log_softmax(input, 1);                                            // [N, C]
  Tensor classes_row = arange(classes, TensorOptions(kInt64).device(input.device()));  // [C]
  Tensor hit = eq(target.unsqueeze(1), classes_row);                                   // [N, C]
  Tensor nll = -where(hit, log_probs, 0.0).sum(1);                                     // [N]
  return reduce(nll, reduction);
}

std::string MSELossImpl::extra_repr() const {
  return std::string("reduction=") + reduction_name(options_.reduction());
}
std::string CrossEntropyLossImpl::extra_repr() const {
  return std::string("reduction=") + reduction_name(options_.reduction());
}

}  // namespace wick::nn
