// shape.hpp: Shape, a list of at most kMaxDims int64 values held inline (no heap), used for
// sizes and for strides (in elements). Printable as "[1000, 1000]", indexable, comparable with
// std::vector<int64_t>, and convertible to one. Note [Max dims]: NumPy caps arrays at 32 (now
// 64) dims; we cap at 16 so that a TensorImpl needs no allocation beyond itself.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <vector>

#include "wick/error.hpp"

namespace wick {

class Shape {
 public:
  static constexpr int kMaxDims = 16;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) { assign(dims.begin(), dims.end()); }
  Shape(const std::vector<int64_t>& dims) { assign(dims.begin(), dims.end()); }  // NOLINT
  template <typename It>
  Shape(It first, It last) {
    assign(first, last);
  }
  // n dims, all equal to value.
  static Shape filled(size_t n, int64_t value) {
    Shape s;
    s.resize(n, value);
    return s;
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t operator[](size_t i) const { return dims_[i]; }
  int64_t& operator[](size_t i) { return dims_[i]; }
  const int64_t* data() const { return dims_.data(); }
  int64_t* data() { return dims_.data(); }
  const int64_t* begin() const { return dims_.data(); }
  const int64_t* end() const { return dims_.data() + size_; }
  int64_t* begin() { return dims_.data(); }
  int64_t* end() { return dims_.data() + size_; }
  int64_t front() const { return dims_[0]; }
  int64_t back() const { return dims_[size_ - 1]; }

  void push_back(int64_t v) {
    check_room(size_ + 1);
    dims_[size_++] = v;
  }
  void insert(size_t pos, int64_t v) {
    check_room(size_ + 1);
    std::copy_backward(begin() + pos, end(), end() + 1);
    dims_[pos] = v;
    ++size_;
  }
  void erase(size_t pos) {
    std::copy(begin() + pos + 1, end(), begin() + pos);
    --size_;
  }
  void resize(size_t n, int64_t value = 0) {
    check_room(n);
    for (size_t i = size_; i < n; ++i) dims_[i] = value;
    size_ = static_cast<uint8_t>(n);
  }

  std::vector<int64_t> vec() const { return std::vector<int64_t>(begin(), end()); }
  operator std::vector<int64_t>() const { return vec(); }  // NOLINT

  friend bool operator==(const Shape& a, const Shape& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const Shape& a, const std::vector<int64_t>& b) {
    return a.size_ == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator==(const std::vector<int64_t>& a, const Shape& b) { return b == a; }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }
  friend bool operator!=(const Shape& a, const std::vector<int64_t>& b) { return !(a == b); }
  friend bool operator!=(const std::vector<int64_t>& a, const Shape& b) { return !(b == a); }

 private:
  template <typename It>
  void assign(It first, It last) {
    size_t n = static_cast<size_t>(std::distance(first, last));
    check_room(n);
    std::copy(first, last, dims_.begin());
    size_ = static_cast<uint8_t>(n);
  }
  static void check_room(size_t n) {
    WICK_CHECK(n <= kMaxDims, ShapeError, "shape", "a tensor has at most ", int(kMaxDims),
               " dims, got ", n);
  }

  std::array<int64_t, kMaxDims> dims_{};
  uint8_t size_ = 0;
};

std::ostream& operator<<(std::ostream& out, const Shape& shape);

// Product of the dims; throws ShapeError naming `op` if it overflows int64 or a dim is negative.
int64_t checked_numel(const Shape& sizes, const char* op);

}  // namespace wick
