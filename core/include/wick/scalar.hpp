// scalar.hpp: a number passed to an op (a + 2.5, fill_(0), clamp(-1, 1)). It remembers whether
// it was written as a bool, an integer or a floating number, because PyTorch's promotion treats
// int64_tensor + 2 (stays int64) differently from int64_tensor + 2.5 (becomes float32).
#pragma once

#include <cstdint>
#include <ostream>
#include <type_traits>

#include "wick/dtype.hpp"

namespace wick {

class Scalar {
 public:
  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool v) : kind_(kBool), i_(v), d_(v) {}  // NOLINT
  template <typename T,
            std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(kInt64), i_(static_cast<int64_t>(v)), d_(static_cast<double>(v)) {}  // NOLINT
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(kFloat64), i_(0), d_(static_cast<double>(v)) {}  // NOLINT

  // The category the number was written in: kBool, kInt64 or kFloat64.
  Dtype kind() const { return kind_; }
  bool is_floating() const { return kind_ == kFloat64; }
  double to_double() const { return d_; }
  int64_t to_int64() const { return kind_ == kFloat64 ? static_cast<int64_t>(d_) : i_; }
  template <typename T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      return kind_ == kFloat64 ? d_ != 0.0 : i_ != 0;
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(to_int64());
    } else {
      // An integer converts directly, as c10 does: through double, 2^54 + 2^30 + 1 would round
      // twice and give 2^54 as a float instead of 2^54 + 2^31.
      return kind_ == kFloat64 ? static_cast<T>(d_) : static_cast<T>(i_);
    }
  }

 private:
  Dtype kind_;
  int64_t i_;
  double d_;
};

std::ostream& operator<<(std::ostream& out, const Scalar& s);

}  // namespace wick
