// padding.hpp: functional::pad, as torch.nn.functional.pad. The pad list names the last dims
// first, two numbers each: {left, right} pads the last dim, {left, right, top, bottom} the last
// two. Modes:
//  - kConstant: `value` outside the input (any number of dims; a negative amount crops);
//  - kReflect: the input mirrored at its edge, the edge not repeated (amount < size);
//  - kReplicate: the edge element repeated;
//  - kCircular: the input wrapped around (amount <= size).
// Built from narrow and cat (constant) or one index_select per padded dim (the others), so it
// runs on both devices and its gradient comes from their rules: a mirrored or repeated element
// gets the sum of its copies' gradients. Differences from PyTorch: the non-constant modes take
// any input of more dims than are padded (PyTorch: 2-D to 5-D inputs, padding the last 1-3
// dims), and refuse negative amounts.
#pragma once

#include <cstdint>
#include <vector>

#include "wick/ops.hpp"

namespace wick::nn {

enum class PadMode { Constant, Reflect, Replicate, Circular };
inline constexpr PadMode kConstant = PadMode::Constant;
inline constexpr PadMode kReflect = PadMode::Reflect;
inline constexpr PadMode kReplicate = PadMode::Replicate;
inline constexpr PadMode kCircular = PadMode::Circular;
inline constexpr PadMode kZeros = PadMode::Constant;  // Conv2dOptions::padding_mode's name for it

class PadFuncOptions {
 public:
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT: implicit
  PadFuncOptions& mode(PadMode m) {
    mode_ = m;
    return *this;
  }
  PadFuncOptions& value(double v) {
    value_ = v;
    return *this;
  }
  const std::vector<int64_t>& pad() const { return pad_; }
  PadMode mode() const { return mode_; }
  double value() const { return value_; }

 private:
  std::vector<int64_t> pad_;
  PadMode mode_ = kConstant;
  double value_ = 0;
};

namespace functional {
Tensor pad(const Tensor& input, const PadFuncOptions& options);
}  // namespace functional

}  // namespace wick::nn
