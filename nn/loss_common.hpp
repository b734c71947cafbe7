// loss_common.hpp (private to nn/): the reduction every loss ends with, its name for
// extra_repr, and the check that an operand is a defined floating tensor.
#pragma once

#include "wick/nn/loss.hpp"

namespace wick::nn::detail {

// t must be defined (ValueError) and floating (DtypeError); `what` names it in the message.
inline void check_floating_operand(const Tensor& t, const char* what, const char* op) {
  WICK_CHECK(t.defined(), ValueError, op, what, " must be a defined tensor");
  WICK_CHECK(t.is_floating_point(), DtypeError, op, what, " ", describe(t),
             " must be floating point");
}

inline Tensor reduce(const Tensor& per_element, Reduction reduction) {
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

inline const char* reduction_name(Reduction r) {
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

}  // namespace wick::nn::detail
