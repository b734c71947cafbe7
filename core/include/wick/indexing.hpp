// indexing.hpp: libtorch's Tensor::index and index_put_ with its index kinds
// (torch::indexing): an integer (selects, removing the dim), Slice(start, stop, step) (a view),
// None (a new dim of size 1), Ellipsis (as many ":" as needed), true / false (a new dim of
// size 1 / 0), an int64 tensor (picks along a dim; several such tensors, side by side, pick
// elements together, broadcast against each other, as PyTorch's advanced indexing), and a bool
// tensor (a mask over as many dims as it has). Built from select, slice, unsqueeze,
// index_select and nonzero, so it runs and differentiates on both devices.
//   x.index({Slice(), 0})                x[:, 0]
//   x.index({"...", Slice(None, 2)})     x[..., :2]   (Ellipsis or "...")
//   logits.index({arange(n), target})    logits[arange(n), target]
//   x.index_put_({mask}, 0.0)            x[mask] = 0
//   x.index_put_({rows}, values)         x[rows] = values   (repeated rows: the last one wins)
//   x.index_put_({rows}, values, true)   x.index_put_((rows,), values, accumulate=True)
// Not supported (a ValueError that says so): tensor indices separated by other indices (PyTorch
// moves their result dims to the front there).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

#include "wick/tensor.hpp"

namespace wick::indexing {

// None is std::nullopt, as in libtorch: Slice(None, 3) and x.index({None}) both read well.
inline constexpr std::nullopt_t None = std::nullopt;
struct EllipsisIndexType {};
inline constexpr EllipsisIndexType Ellipsis{};

class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {}
  std::optional<int64_t> start() const { return start_; }
  std::optional<int64_t> stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

class TensorIndex {
 public:
  TensorIndex(int64_t i) : value_(i) {}              // NOLINT: implicit, as libtorch's
  TensorIndex(int i) : value_(int64_t{i}) {}         // NOLINT
  TensorIndex(bool b) : value_(b) {}                 // NOLINT
  TensorIndex(Slice s) : value_(s) {}                // NOLINT
  TensorIndex(std::nullopt_t) : value_(NewDim{}) {}  // NOLINT: None
  TensorIndex(EllipsisIndexType) : value_(EllipsisIndexType{}) {}  // NOLINT
  TensorIndex(const char* text);                   // NOLINT: "..." (anything else: ValueError)
  TensorIndex(Tensor t) : value_(std::move(t)) {}  // NOLINT

  struct NewDim {};
  using Value = std::variant<int64_t, bool, Slice, NewDim, EllipsisIndexType, Tensor>;
  const Value& value() const { return value_; }

 private:
  Value value_;
};

}  // namespace wick::indexing
