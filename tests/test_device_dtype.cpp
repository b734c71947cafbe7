// test_device_dtype.cpp: Device parsing and printing, dtype facts and the promotion rules of
// docs/type-promotion.md (checked against what PyTorch 1.13 gives for the same programs).
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "reference.hpp"

using namespace wick;

TEST_CASE("device: parse, print, compare", "[device]") {
  CHECK(Device("cpu") == Device(kCPU));
  CHECK(Device("cuda").type() == kCUDA);
  CHECK(Device("cuda").index() == -1);
  CHECK(Device("cuda:1").index() == 1);
  CHECK(Device("cuda:1").str() == "cuda:1");
  CHECK(Device(kCUDA, 0) != Device(kCUDA, 1));
  CHECK(Device("cpu").is_cpu());
  CHECK(Device("cuda:3").is_cuda());
  Device implicit = kCPU;
  CHECK(implicit.str() == "cpu");
  std::ostringstream s;
  s << Device("cuda:2") << ' ' << kCPU;
  CHECK(s.str() == "cuda:2 cpu");
}

TEST_CASE("dtype: sizes, names, lattice", "[dtype]") {
  CHECK(element_size(kBool) == 1);
  CHECK(element_size(kInt64) == 8);
  CHECK(element_size(kFloat32) == 4);
  CHECK(element_size(kFloat64) == 8);
  CHECK(kFloat == kFloat32);
  CHECK(kDouble == kFloat64);
  CHECK(kLong == kInt64);
  CHECK(std::string(dtype_name(kFloat64)) == "float64");
  CHECK(promote_types(kBool, kInt64) == kInt64);
  CHECK(promote_types(kInt64, kFloat32) == kFloat32);
  CHECK(promote_types(kFloat32, kFloat64) == kFloat64);
}

TEST_CASE("type promotion: PyTorch's result_type", "[dtype]") {
  Tensor b = ones({2}, kBool), i = ones({2}, kInt64), f = ones({2}), d = ones({2}, kFloat64);
  CHECK((i + f).dtype() == kFloat32);
  CHECK((f + d).dtype() == kFloat64);
  CHECK((b + i).dtype() == kInt64);
  CHECK((b + b).dtype() == kBool);
  CHECK((i + 2).dtype() == kInt64);      // an integer number keeps int64
  CHECK((i + 2.5).dtype() == kFloat32);  // a floating number makes it float32
  CHECK((f + 2.5).dtype() == kFloat32);  // numbers never widen a float tensor
  CHECK((b + 1).dtype() == kInt64);
  CHECK((i / i).dtype() == kFloat32);  // true division
  CHECK((i / 2).to_vector<float>() == std::vector<float>{0.5f, 0.5f});
  CHECK(i.pow(2).dtype() == kInt64);
  CHECK(i.pow(0.5).dtype() == kFloat32);
  CHECK(i.exp().dtype() == kFloat32);
  CHECK(sum(b).dtype() == kInt64);
  CHECK(sum(i).dtype() == kInt64);
  CHECK(i.clamp(0.5).dtype() == kFloat32);
  // 0-d tensors rank between dimensioned tensors and numbers.
  Tensor d0 = scalar_tensor(2.0, kFloat64), i0 = scalar_tensor(3, kInt64);
  CHECK((f + d0).dtype() == kFloat32);  // same category: the dimensioned tensor wins
  CHECK((i + d0).dtype() == kFloat64);  // higher category: the 0-d tensor's dtype counts
  CHECK((d0 + i0).dtype() == kFloat64);
  CHECK((i0 + 2.5).dtype() == kFloat32);
  // Comparisons give bool after promoting both sides.
  CHECK((i < f).dtype() == kBool);
  CHECK((f == 1).to_vector<bool>() == std::vector<bool>{true, true});
  // In place: the result must fit the tensor's dtype.
  Tensor f2 = ones({2});
  f2.add_(d);
  CHECK(f2.dtype() == kFloat32);
  CHECK(f2.to_vector<float>() == std::vector<float>{2, 2});
  Tensor i2 = ones({2}, kInt64);
  CHECK_THROWS_AS(i2.div_(2), DtypeError);
  i2.mul_(b);
  CHECK(i2.dtype() == kInt64);
}

TEST_CASE("type promotion: alpha of add and sub takes no part in the dtype", "[dtype]") {
  // As PyTorch 1.13 (values checked there): the result's dtype is that of the two tensors,
  // and alpha must be of its category.
  Tensor b = tensor({1, 0}).to(kBool), i = tensor({1, 2}), f = tensor({1.0, 2.0});
  CHECK(add(i, i, 2).to_vector<int64_t>() == std::vector<int64_t>{3, 6});
  CHECK(add(i, i, 2).dtype() == kInt64);
  // bool: a || (alpha && b); any nonzero alpha is true.
  CHECK(add(b, b, 2).dtype() == kBool);
  CHECK(add(b, b, 2).to_vector<bool>() == std::vector<bool>{true, false});
  CHECK(add(b, b, false).to_vector<bool>() == std::vector<bool>{true, false});
  CHECK(add(i, f, 0.5).to_vector<float>() == std::vector<float>{1.5f, 3.0f});
  CHECK(add(f, i, 0.5).to_vector<float>() == std::vector<float>{1.5f, 3.0f});
  CHECK(sub(f, i, 2).to_vector<float>() == std::vector<float>{-1.0f, -2.0f});
  // "For integral input tensors, argument alpha must not be a floating point number."
  CHECK_THROWS_AS(add(i, i, 0.5), DtypeError);
  CHECK_THROWS_AS(sub(i, i, 0.5), DtypeError);
  CHECK_THROWS_AS(add(i, i, 1.0), DtypeError);  // checked even when alpha is 1
  Tensor i3 = i.clone();
  CHECK_THROWS_AS(i3.add_(i, 0.5), DtypeError);
  CHECK(i3.to_vector<int64_t>() == std::vector<int64_t>{1, 2});  // unchanged
  // "Boolean alpha only supported for Boolean results."
  CHECK_THROWS_AS(add(f, f, true), DtypeError);
  CHECK_THROWS_AS(add(i, i, true), DtypeError);
  try {
    add(i, i, 0.5);
  } catch (const DtypeError& e) {
    CHECK_THAT(e.what(), Catch::Matchers::Contains("add") && Catch::Matchers::Contains("alpha") &&
                             Catch::Matchers::Contains("int64"));
  }
}

TEST_CASE("shapes: printable, indexable, comparable", "[shape]") {
  Shape s{1000, 1000};
  std::ostringstream out;
  out << s;
  CHECK(out.str() == "[1000, 1000]");
  CHECK(s[1] == 1000);
  CHECK(s == std::vector<int64_t>{1000, 1000});
  std::vector<int64_t> v = s;
  CHECK(v.size() == 2);
  CHECK(broadcast_shapes({3, 1, 5}, {4, 5}) == std::vector<int64_t>{3, 4, 5});
  CHECK(broadcast_shapes({0}, {1}) == std::vector<int64_t>{0});
  CHECK_THROWS_AS(broadcast_shapes({3}, {4}), ShapeError);
}

TEST_CASE("comparisons with a number on the left, as libtorch's operators", "[dtype]") {
  // 2 < t and friends did not compile (found by review); each is the mirrored comparison.
  const Tensor t = tensor({1.0, 2.0, 3.0});
  auto bools = [](const Tensor& x) { return x.to_vector<bool>(); };
  CHECK(bools(2 < t) == std::vector<bool>{false, false, true});
  CHECK(bools(2 <= t) == std::vector<bool>{false, true, true});
  CHECK(bools(2.5 > t) == std::vector<bool>{true, true, false});
  CHECK(bools(2 >= t) == std::vector<bool>{true, true, false});
  CHECK(bools(2 == t) == std::vector<bool>{false, true, false});
  CHECK(bools(2 != t) == std::vector<bool>{true, false, true});
  CHECK((1 < arange(3)).dtype() == kBool);
}

TEST_CASE("floating to int64 casts truncate as cvttsd2si, in every lane", "[dtype]") {
  // Random bit patterns cover every exponent (NaN, infinities, subnormals, 2^52..2^64), plus
  // the edges; float64, float32 and bfloat16 sources, contiguous (the vectorised loops) and
  // strided. The reference is the scalar rule: out of [-2^63, 2^63) or NaN gives INT64_MIN.
  std::mt19937_64 bits(7);
  std::vector<double> values{0.0,
                             -0.0,
                             0.5,
                             -0.5,
                             0.999999,
                             -1.999999,
                             1e300,
                             -1e300,
                             4.5e15,
                             -4.5e15,
                             9.2e18,
                             -9.2e18,
                             std::ldexp(1.0, 63),
                             -std::ldexp(1.0, 63),
                             std::ldexp(1.0, 62) * 1.5,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::nan(""),
                             std::numeric_limits<double>::denorm_min()};
  for (int i = 0; i < 4000; ++i) {
    const uint64_t b = bits();
    double d;
    std::memcpy(&d, &b, sizeof(d));
    values.push_back(d);
    values.push_back(static_cast<double>(static_cast<int64_t>(b) >> (b % 64)));  // integers
  }
  auto reference = [](double v) {
    return !(v >= -9223372036854775808.0 && v < 9223372036854775808.0)
               ? std::numeric_limits<int64_t>::min()
               : static_cast<int64_t>(v);
  };
  const Tensor wide = tensor(values, {static_cast<int64_t>(values.size())}, kFloat64);
  for (Dtype source : {kFloat64, kFloat32, kBFloat16}) {
    const Tensor x = wide.to(source);
    const std::vector<double> held = x.to(kFloat64).to_vector<double>();
    for (const Tensor& layout : {x, stack({x, x}, 1).select(1, 0)}) {
      const std::vector<int64_t> got = layout.to(kInt64).contiguous().to_vector<int64_t>();
      size_t wrong = 0;
      for (size_t i = 0; i < held.size(); ++i) wrong += got[i] != reference(held[i]);
      INFO(source << (layout.is_contiguous() ? " contiguous" : " strided"));
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("floating to int64 casts: the int32 fast path of whole in-range blocks", "[dtype]") {
  // vec_cast.cpp converts blocks of 64 whose every |x| < 2^31 through int32: values of every
  // magnitude below 2^31 (the largest float32 under it, -2^31 itself, fractions either side of
  // zero), one out-of-range value or NaN planted in some blocks, and runs starting at every
  // offset in a block, so that blocks and the tail fall in different places.
  std::mt19937_64 bits(11);
  std::vector<double> values;
  for (int i = 0; i < 3000; ++i) {
    const double magnitude = std::ldexp(static_cast<double>(bits() % 1000000) / 1e6, bits() % 32);
    values.push_back((bits() & 1) ? magnitude : -magnitude);
  }
  for (double edge : {2147483520.0, -2147483520.0, -2147483648.0, -0.75, 0.75, -1.5, 1.5,
                      2147483647.0, 2147483648.0, std::nan(""), 1e19, -1e300})
    values[bits() % values.size()] = edge;
  auto reference = [](double v) {
    return !(v >= -9223372036854775808.0 && v < 9223372036854775808.0)
               ? std::numeric_limits<int64_t>::min()
               : static_cast<int64_t>(v);
  };
  const auto count = static_cast<int64_t>(values.size());
  const Tensor wide = tensor(values, {count}, kFloat64);
  for (Dtype source : {kFloat64, kFloat32}) {
    const Tensor x = wide.to(source);
    const std::vector<double> held = x.to(kFloat64).to_vector<double>();
    for (int64_t start : {0, 1, 7, 63}) {
      const std::vector<int64_t> got = x.slice(0, start, count).to(kInt64).to_vector<int64_t>();
      size_t wrong = 0;
      for (size_t i = 0; i < got.size(); ++i) wrong += got[i] != reference(held[start + i]);
      INFO(source << " from " << start);
      CHECK(wrong == 0);
    }
  }
}
