// ops_program.hpp: the program fuzz_ops runs (see fuzz_ops.cpp): the input bytes decode into
// steps over a pool of tensors. The choices (dtypes, shapes, numbers, element values) are
// here; each family of steps has its own file (ops_<family>.cpp), run() is in fuzz_ops.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "ops_binary_reference.hpp"
#include "ops_reference.hpp"

namespace wick::fuzz::ops {

// The lines of `sizes` around dim d as [outer, n, inner] (all: one line of everything). An
// empty tensor may have a huge extent elsewhere: the products saturate at INT64_MAX, and 0
// stays 0.
struct LineSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
inline LineSplit line_split(const Shape& sizes, int64_t d, bool all) {
  LineSplit l;
  for (int64_t i = 0; i < static_cast<int64_t>(sizes.size()); ++i) {
    int64_t& part = all || i == d ? l.n : i < d ? l.outer : l.inner;
    const int64_t size = sizes[static_cast<size_t>(i)];
    if (part != 0 && (size == 0 || __builtin_mul_overflow(part, size, &part))) {
      part = size == 0 ? 0 : INT64_MAX;
    }
  }
  return l;
}

class Program {
 public:
  Program(const uint8_t* data, size_t size) : in_(data, size) {}

  void run();

 private:
  ByteReader in_;
  std::vector<Tensor> pool_;
  uint64_t lcg_ = 0;

  // ---- choices ----

  Dtype dtype() { return kDtypes[in_.below(5)]; }

  // A small shape: rank 0-4, dims 0-5 (numel <= 625).
  Shape small_shape() {
    static constexpr int64_t kDims[8] = {1, 2, 3, 4, 1, 2, 5, 0};
    Shape s;
    const uint32_t rank = in_.below(5);
    for (uint32_t i = 0; i < rank; ++i) s.push_back(kDims[in_.below(8)]);
    return s;
  }

  // A dim value for factories and view arguments: mostly small, sometimes negative, huge, or
  // chosen so that products overflow int64.
  int64_t wild_dim() {
    static constexpr int64_t kWild[16] = {0,
                                          1,
                                          2,
                                          3,
                                          -1,
                                          -2,
                                          int64_t{1} << 31,
                                          (int64_t{1} << 32) + 1,
                                          int64_t{1} << 40,
                                          int64_t{1} << 62,
                                          INT64_MAX,
                                          INT64_MIN,
                                          3037000500,  // its square overflows int64
                                          4,
                                          5,
                                          -3};
    return kWild[in_.below(16)];
  }

  Shape wild_shape() {
    Shape s;
    uint32_t rank = in_.below(6);
    if (in_.below(16) == 0) rank = 17;  // one past Shape::kMaxDims
    std::vector<int64_t> dims;
    for (uint32_t i = 0; i < rank; ++i) dims.push_back(in_.flag() ? wild_dim() : in_.below(4));
    if (dims.size() > static_cast<size_t>(Shape::kMaxDims)) {
      // Shape itself must refuse more than 16 dims with a wick::Error.
      g_step = "Shape of 17 dims";
      outcome(Expect::Error, [&] { Shape bad(dims); });
      dims.resize(Shape::kMaxDims);
    }
    return Shape(dims);
  }

  int64_t small_int() {
    static constexpr int64_t kInts[16] = {
        0, 1, 2, -1, 3, -2, 4, -3, 5, 7, 100, -100, INT64_MAX, INT64_MIN, int64_t{1} << 32,
        // rounds differently to float32 directly and through double
        (int64_t{1} << 54) + (int64_t{1} << 30) + 1};
    return kInts[in_.below(16)];
  }

  Scalar scalar() {
    switch (in_.below(4)) {
      case 0:
        return Scalar(in_.flag());
      case 1:
        return Scalar(small_int());
      case 2:
        return Scalar(static_cast<double>(static_cast<int>(in_.byte()) - 128) / 8.0);
      default:
        return Scalar(wick::fuzz::special_double(in_.byte()));
    }
  }

  uint64_t next_random() {
    lcg_ = lcg_ * 6364136223846793005ull + 1442695040888963407ull;
    return lcg_ >> 17;
  }

  // A value for an element of dtype d: mostly small numbers, with a density of specials.
  V random_value(Dtype d, uint32_t special_rate) {
    const uint64_t r = next_random();
    V v;
    if (d == wick::kBool) {
      v.i = static_cast<int64_t>(r & 1);
    } else if (d == wick::kInt64) {
      v.i = (r % 64 < special_rate) ? small_int_from(r >> 8) : static_cast<int64_t>(r % 9) - 4;
    } else {
      if (r % 64 < special_rate) {
        v.d = wick::fuzz::special_double(static_cast<uint8_t>(r >> 8));
      } else {
        v.d = static_cast<double>(static_cast<int64_t>(r % 33) - 16) / 4.0;
      }
      v.d = round_to(d, v.d);
    }
    return v;
  }
  static int64_t small_int_from(uint64_t r) {
    static constexpr int64_t kInts[8] = {INT64_MAX, INT64_MIN, int64_t{1} << 32, -1000,
                                         1000,      3,         int64_t{1} << 62, -7};
    return kInts[r % 8];
  }

  // A tensor from the pool (nullptr when empty).
  const Tensor* pick() {
    if (pool_.empty()) return nullptr;
    return &pool_[in_.below(static_cast<uint32_t>(pool_.size()))];
  }

  void add(const Tensor& t) {
    if (!t.defined() || t.numel() > kMaxElems) return;
    // [0, 2^62, 2^62] (from expand()): any op that allocates a result of its shape must throw
    // (strides past int64), which would make the pool useless.
    if (strides_overflow(t.sizes())) return;
    if (pool_.size() < kPoolSize) {
      pool_.push_back(t);
    } else {
      pool_[in_.below(kPoolSize)] = t;
    }
  }

  enum class Un {
    neg,
    abs,
    exp,
    log,
    sqrt,
    relu,
    sigmoid,
    tanh,
    pow_scalar,
    clamp,
    sin,
    cos,
    rsqrt,
    reciprocal,
    floor,
    ceil,
    round,
    trunc,
    sign,
    tan,
    asin,
    acos,
    atan,
    sinh,
    cosh,
    log2,
    log10,
    asinh,
    acosh,
    atanh,
    erfc,
    exp2,
    lgamma,
    erfinv
  };
  enum class Red { sum, mean, max, min, amax, amin, argmax, argmin };

  // ---- ops_create.cpp ----
  void create();
  void factory();
  void arange(Dtype d);

  // ---- ops_elementwise.cpp ----
  void unary();
  void where();

  // ---- ops_binary.cpp ----
  Ref binary_ref(Bin op, const Operand& a, const Operand& b, Expect& expect);
  static bool alpha_fits(Dtype k, const Scalar& alpha);
  Ref scaled_by_alpha(Dtype k, const Ref& rb, const Scalar& alpha);
  Ref fused_alpha_ref(Bin op, const Ref& ra, const Ref& rb, Dtype k, const Scalar& alpha,
                      Expect& expect);
  void binary();
  static Tensor run_binary(Bin op, uint32_t form, const Tensor& a, const Tensor* b, const Scalar& s,
                           bool use_alpha);

  // ---- ops_reduce.cpp ----
  void reduce();
  void softmax();
  void matmul();

  // ---- ops_views.cpp ----
  template <typename Map>
  void expect_view(const Tensor& t, const Tensor& v, const Shape& want_sizes, Map&& map);
  void view();

  // ---- ops_join.cpp ----
  void join();

  // ---- ops_norm.cpp ----
  void layer_norm();

  // ---- ops_linalg.cpp ----
  void linalg();

  // ---- ops_index.cpp ----
  void index_ops();
  void take_along(const Tensor& self, const Tensor& index, int64_t dim, bool with_dim);
  // ---- ops_sort.cpp ----
  void sort_ops();
  void order_stats_op();
  // ---- ops_scan.cpp ----
  void scan_op();
  void running_op();

  // ---- ops_inplace.cpp ----
  static std::vector<int64_t> footprint(const Tensor& t);
  void inplace();
  void cast_ops();
  void misc();
};

}  // namespace wick::fuzz::ops
