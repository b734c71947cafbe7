// loss_common.hpp (private to nn/): the reduction every loss ends with, and its name for
// extra_repr.
#pragma once

#include "wick/nn/loss.hpp"

namespace wick::nn::detail {

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
