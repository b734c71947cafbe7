// test_errors.cpp: every kind of bad input gives the right wick::Error subclass, with a
// message that names the op and the operands' shapes (and dtypes/devices where they matter),
// and the library keeps working afterwards.
#include "reference.hpp"

using namespace wick;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {
// Runs fn, requires it to throw exactly ErrorKind, and returns the message.
template <typename ErrorKind, typename Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const ErrorKind& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("threw the wrong kind: " << e.what());
  }
  FAIL("did not throw");
  return "";
}
}  // namespace

TEST_CASE("errors: the message style of shared/API.md", "[errors]") {
  std::string m = error_of<ShapeError>([] { matmul(randn({64, 10}), randn({5, 1})); });
  CHECK(m == "matmul: shapes [64, 10] and [5, 1] cannot be multiplied (10 != 5)");
  // Every kind is a wick::Error and a std::exception.
  CHECK_THROWS_AS(matmul(randn({64, 10}), randn({5, 1})), Error);
  CHECK_THROWS_AS(matmul(randn({64, 10}), randn({5, 1})), std::exception);
}

TEST_CASE("errors: shapes that do not broadcast or do not fit", "[errors]") {
  CHECK_THAT(error_of<ShapeError>([] {
               ones({2, 3}) + ones({4});
             }),
             Contains("add") && Contains("[2, 3] float32 cpu") && Contains("[4] float32 cpu"));
  CHECK_THAT(error_of<ShapeError>([] { where(ones({2}, kBool), ones({3}), ones({4})); }),
             Contains("where") && Contains("[3]") && Contains("[4]"));
  CHECK_THAT(error_of<ShapeError>([] {
               matmul(ones({2, 3, 4}), ones({5, 4, 2}));
             }),
             Contains("matmul") && Contains("batch"));
  CHECK_THAT(error_of<ShapeError>([] { matmul(ones({}), ones({3})); }), Contains("matmul"));
  CHECK_THAT(error_of<ShapeError>([] {
               ones({2, 3, 4}).t();
             }),
             Contains("t:") && Contains("[2, 3, 4]"));
  CHECK_THAT(error_of<ShapeError>([] { mm(ones({2, 3, 4}), ones({4, 2})); }), Contains("mm"));
  // mm names itself, not the matmul it calls (found by review).
  CHECK(error_of<ShapeError>([] {
          mm(ones({2, 3}), ones({2, 3}));
        }) == "mm: shapes [2, 3] and [2, 3] cannot be multiplied (3 != 2)");
  CHECK_THAT(error_of<DtypeError>([] {
               mm(ones({2, 3}), ones({3, 2}, kFloat64));
             }),
             Contains("mm:"));
  CHECK_THAT(error_of<ShapeError>([] { ones({2, 3}).expand({4, 3, 2}); }), Contains("expand"));
  CHECK_THAT(error_of<ShapeError>([] { ones({2, 3}).permute({0}); }), Contains("permute"));
  Tensor x = ones({2, 3});
  CHECK_THAT(error_of<ShapeError>([&] {
               x.add_(ones({3, 3}));
             }),
             Contains("add_") && Contains("[2, 3]"));
  CHECK_THAT(error_of<ShapeError>([&] { x.copy_(ones({4})); }), Contains("copy_"));
}

TEST_CASE("errors: bad dims and indices", "[errors]") {
  Tensor x = ones({2, 3});
  CHECK_THAT(error_of<IndexError>([&] { sum(x, 2); }), Contains("sum") && Contains("dim 2"));
  CHECK_THAT(error_of<IndexError>([&] { sum(x, -3); }), Contains("-3") && Contains("-2 to 1"));
  CHECK_THAT(error_of<IndexError>([&] { softmax(x, 5); }), Contains("softmax"));
  CHECK_THAT(error_of<IndexError>([&] { x.transpose(0, 2); }), Contains("transpose"));
  CHECK_THAT(error_of<IndexError>([&] { x.select(1, 3); }),
             Contains("select") && Contains("index 3"));
  CHECK_THAT(error_of<IndexError>([&] { x.narrow(1, 2, 2); }), Contains("narrow"));
  CHECK_THAT(error_of<IndexError>([&] { x.permute({0, 0}); }), Contains("repeats"));
  CHECK_THAT(error_of<IndexError>([&] { sum(x, Shape{1, -1}); }), Contains("more than once"));
  CHECK_THAT(error_of<IndexError>([&] { x.size(2); }), Contains("size"));
  // A 0-d tensor has no dim 0 or -1 to ask about: the index read past the empty sizes and gave
  // a stale size (5 from the view's base; found by review). PyTorch raises IndexError.
  Tensor scalar = ones({5}).select(0, 2);
  CHECK_THAT(error_of<IndexError>([&] { scalar.size(0); }), Contains("no dimensions"));
  CHECK_THAT(error_of<IndexError>([&] { scalar.size(-1); }), Contains("size"));
  CHECK_THAT(error_of<IndexError>([&] { x.sum().stride(0); }), Contains("stride"));
  CHECK_THAT(error_of<IndexError>([] { max(zeros({0})); }), Contains("max"));
  CHECK_THAT(error_of<ValueError>([&] { x.slice(1, 0, 3, 0); }), Contains("step"));
  // Reductions built of sum and mean name themselves, not their building blocks (a review found
  // var saying "mean:" and norm "sum:").
  const auto names = [&](const char* op, auto&& call) {
    INFO(op);
    CHECK_THAT(error_of<IndexError>(call), StartsWith(std::string(op) + ":"));
  };
  names("var", [&] { var(x, Shape{1, 1}); });
  names("std", [&] { wick::std(x, Shape{2}); });
  names("var_mean", [&] { var_mean(x, Shape{0, -2}); });
  names("std_mean", [&] { std_mean(x, Shape{5}); });
  names("norm", [&] { norm(x, 2.0, Shape{3}); });
  names("norm", [] { norm(zeros({0, 3}), INFINITY, Shape{0}); });
  CHECK(norm(zeros({0, 3}), INFINITY, Shape{1}).sizes() == Shape{0});  // no empty group
  names("nansum", [&] { nansum(x, Shape{4}); });
  names("nanmean", [&] { nanmean(x, Shape{0, 0}); });
  names("count_nonzero", [&] { count_nonzero(x, Shape{2}); });
  names("any", [&] { any(x, 2); });
  names("all", [&] { all(x, -3); });
}

TEST_CASE("errors: bad view and reshape sizes", "[errors]") {
  Tensor x = ones({2, 3});
  CHECK_THAT(error_of<ShapeError>([&] { x.view({5}); }),
             Contains("view") && Contains("[5]") && Contains("[2, 3]"));
  CHECK_THAT(error_of<ShapeError>([&] {
               x.reshape({-1, -1});
             }),
             Contains("only one dimension can be -1"));
  CHECK_THAT(error_of<ShapeError>([&] { x.reshape({4, -1}); }), Contains("reshape"));
  CHECK_THAT(error_of<ShapeError>([&] { x.view({-2, 3}); }), Contains("view"));
  CHECK_THAT(error_of<ShapeError>([&] { x.t().view({6}); }), Contains("reshape()"));
}

TEST_CASE("errors: dtypes", "[errors]") {
  CHECK_THAT(error_of<DtypeError>([] {
               matmul(ones({2, 2}), ones({2, 2}, kFloat64));
             }),
             Contains("matmul") && Contains("float32") && Contains("float64"));
  CHECK_THAT(error_of<DtypeError>([] { where(ones({2}), ones({2}), ones({2})); }),
             Contains("bool"));
  CHECK_THAT(error_of<DtypeError>([] { mean(ones({2}, kInt64)); }),
             Contains("mean") && Contains("int64"));
  CHECK_THAT(error_of<DtypeError>([] { -ones({2}, kBool); }), Contains("neg"));
  CHECK_THAT(error_of<DtypeError>([] { ones({2}, kBool) - ones({2}, kBool); }), Contains("sub"));
  CHECK_THAT(error_of<DtypeError>([] { softmax(ones({2}, kInt64), 0); }), Contains("softmax"));
  Tensor i = ones({2}, kInt64);
  CHECK_THAT(error_of<DtypeError>([&] { i.add_(0.5); }),
             Contains("add_") && Contains("float32") && Contains("int64"));
  CHECK_THAT(error_of<DtypeError>([&] { i.requires_grad_(); }), Contains("requires_grad_"));
  CHECK_THAT(error_of<DtypeError>([&] { i.data_ptr<float>(); }), Contains("data_ptr"));
  CHECK_THAT(error_of<DtypeError>([] { randn({2}, kInt64); }), Contains("randn"));
}

TEST_CASE("errors: devices", "[errors]") {
  CHECK_THAT(error_of<DeviceError>([] { Device("gpu"); }), Contains("unknown device type 'gpu'"));
  CHECK_THAT(error_of<DeviceError>([] { Device("cuda:x"); }), Contains("cuda:x"));
  CHECK_THAT(error_of<DeviceError>([] { Device("cpu:1"); }), Contains("cpu"));
  CHECK_THAT(error_of<DeviceError>([] { Device("cuda:01"); }), Contains("cuda:01"));
  CHECK(Device("cuda:0").index() == 0);
  CHECK(Device("cuda:10").index() == 10);
  if (!cuda::is_available()) {
    std::string m = error_of<DeviceError>([] { ones({2}).to(kCUDA); });
    CHECK_THAT(m, Contains("cuda") && Contains(cuda::unavailable_reason()));
    CHECK_THROWS_AS(zeros({2}, TensorOptions().device(kCUDA)), DeviceError);
    // The factory that asked names itself (it said "allocate:" or "to:").
    CHECK_THAT(error_of<DeviceError>([] { zeros({2}, kCUDA); }), StartsWith("zeros:"));
    CHECK_THAT(error_of<DeviceError>([] { randn({2}, kCUDA); }), StartsWith("randn:"));
    CHECK_THAT(error_of<DeviceError>([] { tensor({1.0}, TensorOptions(kCUDA)); }),
               StartsWith("tensor:"));
    CHECK_THROWS_AS(cuda::synchronize(), DeviceError);
    CHECK_THAT(error_of<DeviceError>([] { cuda::mem_get_info(); }),
               Contains("cuda::mem_get_info") && Contains(cuda::unavailable_reason()));
    CHECK(cuda::device_count() == 0);
    CHECK_FALSE(cuda::unavailable_reason().empty());
  }
}

TEST_CASE("errors: a DeviceType or Dtype cast from an unknown integer", "[errors]") {
  // Found by review: an out-of-range DeviceType indexed the backend table (UBSan), and an
  // unknown Dtype made a tensor of 0-byte elements.
  CHECK_THAT(error_of<DeviceError>([] { Device(static_cast<DeviceType>(7)); }),
             Contains("unknown device type 7"));
  CHECK_THAT(error_of<DtypeError>([] { zeros({2}, static_cast<Dtype>(9)); }),
             Contains("zeros") && Contains("unknown dtype 9"));
  CHECK_THAT(error_of<DtypeError>([] { ones({2}).to(static_cast<Dtype>(9)); }),
             Contains("to") && Contains("unknown dtype 9"));
  CHECK_THROWS_AS(empty({2}, static_cast<Dtype>(-1)), DtypeError);
  CHECK(zeros({2}).sum().item<float>() == 0.0f);
}

TEST_CASE("errors: item() on a tensor of more than one element", "[errors]") {
  CHECK_THAT(error_of<ValueError>([] {
               ones({2, 3}).item<float>();
             }),
             Contains("item") && Contains("[2, 3]"));
  CHECK(ones({1, 1}).item<float>() == 1.0f);
  CHECK_THROWS_AS(zeros({0}).item<float>(), ValueError);
}

TEST_CASE("errors: sizes whose element or byte count overflows, and failed allocations",
          "[errors]") {
  const int64_t big = int64_t{1} << 40;
  CHECK_THAT(error_of<ShapeError>([&] {
               empty({big, big});
             }),
             Contains("empty") && Contains("int64"));
  CHECK_THAT(error_of<ShapeError>([] { empty({int64_t{1} << 61}, kFloat64); }), Contains("bytes"));
  CHECK_THAT(error_of<ShapeError>([] { zeros({-1}); }), Contains("negative"));
  CHECK_THAT(error_of<ShapeError>([&] { ones({1}).expand({big, big}); }), Contains("expand"));
  CHECK_THAT(error_of<ShapeError>([] { Shape(std::vector<int64_t>(17, 1)); }), Contains("16"));
  // 4 TiB: more than this machine can map. A typed error, and the next allocation works.
  CHECK_THAT(error_of<OutOfMemoryError>([&] { empty({big}); }), Contains("out of memory"));
  CHECK(ones({1000}).sum().item<float>() == 1000.0f);
}

TEST_CASE("errors: in-place writes that cannot be done", "[errors]") {
  Tensor e = zeros({1, 3}).expand({4, 3});
  CHECK_THAT(error_of<ValueError>([&] { e.add_(1.0); }), Contains("add_") && Contains("expanded"));
  CHECK_THAT(error_of<ValueError>([&] { e.copy_(ones({4, 3})); }), Contains("copy_"));
  // The library still works after every error above.
  Tensor ok = arange(6).view({2, 3}).to(kFloat32);
  CHECK(matmul(ok, ok.t()).to_vector<float>() == std::vector<float>{5, 14, 14, 50});
}

// An undefined tensor (default-constructed, moved from) given to an op: the error names the op
// and the operand (it said "tensor: use of an undefined tensor"; found by review).
TEST_CASE("errors: an undefined tensor names the op it was given to", "[errors]") {
  Tensor undefined, x = zeros({2});
  CHECK_THAT(error_of<ValueError>([&] { undefined + 1.0; }), Contains("add: operand 1 of 2"));
  CHECK_THAT(error_of<ValueError>([&] { x* undefined; }), Contains("mul: operand 2 of 2"));
  CHECK_THAT(error_of<ValueError>([&] { exp(undefined); }), Contains("exp:"));
  CHECK_THAT(error_of<ValueError>([&] { x.copy_(undefined); }), Contains("copy_:"));
  CHECK_THAT(error_of<ValueError>([&] { x.add_(undefined); }), Contains("add_:"));
  CHECK_THAT(error_of<ValueError>([&] { x.sub_(undefined, 2.0); }), Contains("sub_:"));
  CHECK_THAT(error_of<ValueError>([&] { matmul(x, undefined); }), Contains("matmul:"));
  CHECK_THAT(error_of<ValueError>([&] { undefined.sum(); }), Contains("sum:"));
  CHECK_THAT(error_of<ValueError>([&] { softmax(undefined, 0); }), Contains("softmax:"));
  CHECK_THAT(error_of<ValueError>([&] { where(undefined, x, x); }), Contains("where:"));
  // Views, copies, factories of a like and autograd entry points too (a second review found
  // them saying "tensor:").
  CHECK_THAT(error_of<ValueError>([&] { undefined.view({2}); }), Contains("view:"));
  CHECK_THAT(error_of<ValueError>([&] { undefined.t(); }), Contains("t:"));
  CHECK_THAT(error_of<ValueError>([&] { undefined.slice(0, 0, 1); }), Contains("slice:"));
  CHECK_THAT(error_of<ValueError>([&] { undefined.expand({2}); }), Contains("expand:"));
  CHECK_THAT(error_of<ValueError>([&] { undefined.clone(); }), Contains("clone:"));
  CHECK_THAT(error_of<ValueError>([&] { undefined.to(kFloat64); }), Contains("to:"));
  CHECK_THAT(error_of<ValueError>([&] { undefined.zero_(); }), Contains("zero_:"));
  CHECK_THAT(error_of<ValueError>([&] { zeros_like(undefined); }), Contains("zeros_like:"));
  CHECK_THAT(error_of<ValueError>([&] { undefined.requires_grad_(); }),
             Contains("requires_grad_:"));
  CHECK_THAT(error_of<ValueError>([&] { undefined.backward(); }), Contains("backward:"));
  // zero_ names itself where it refuses an expanded tensor.
  CHECK_THAT(error_of<ValueError>([&] { zeros({1}).expand({3}).zero_(); }), Contains("zero_:"));
  CHECK(ref::values(x + 1.0) == std::vector<double>{1, 1});  // and wick goes on
}

TEST_CASE("errors: cat and stack", "[errors]") {
  const Tensor a = ones({2, 3}), b = ones({2, 4}, TensorOptions(kInt64));
  CHECK_THAT(error_of<ValueError>([] { cat({}); }), Contains("cat") && Contains("non-empty"));
  CHECK_THAT(error_of<ValueError>([] { stack({}, 1); }), Contains("stack"));
  CHECK_THAT(error_of<ValueError>([&] {
               cat({a, Tensor()});
             }),
             Contains("cat") && Contains("tensor 1") && Contains("undefined"));
  // Every size but dim's must match: the message names the dims, sizes and operands.
  CHECK_THAT(error_of<ShapeError>([&] {
               cat({a, b}, 0);
             }),
             Contains("cat") && Contains("except in dimension 0") && Contains("got size 4") &&
                 Contains("[2, 3] float32 cpu") && Contains("[2, 4] int64 cpu"));
  CHECK_THAT(error_of<ShapeError>([&] {
               cat({a, ones({2, 3, 1})}, 1);
             }),
             Contains("same number of dimensions: got 2 and 3"));
  CHECK_THAT(error_of<ShapeError>([&] {
               cat({a, ones({})});
             }),
             Contains("zero-dimensional tensor (at position 1)"));
  CHECK_THAT(error_of<IndexError>([&] { cat({a, a}, 2); }), Contains("cat"));
  CHECK(cat({zeros({0})}, 3).sizes() == std::vector<int64_t>{0});  // as PyTorch: no dim check
  CHECK_THAT(error_of<ShapeError>([&] {
               stack({a, b});
             }),
             Contains("stack") && Contains("[2, 3] at entry 0 and [2, 4] at entry 1"));
  CHECK_THAT(error_of<IndexError>([&] { stack({a, a}, 3); }), Contains("stack"));
  CHECK(stack({a, a}, -3).sizes() == std::vector<int64_t>{2, 2, 3});
  // After the errors: cat joins as before.
  CHECK(cat({a, b}, 1).to_vector<float>() == std::vector<float>(14, 1.0f));
}

TEST_CASE("errors: an empty hook, an unsigned value past int64, item<BFloat16> out of range",
          "[errors]") {
  // Found by review: the hook threw std::bad_function_call from a later backward, UINT64_MAX
  // became -1, and item<BFloat16>() of 1e300 gave inf where item<float>() refuses.
  Tensor leaf = ones({2}).requires_grad_();
  CHECK_THAT(error_of<ValueError>([&] { autograd::register_grad_ready_hook(leaf, nullptr); }),
             Contains("register_grad_ready_hook"));
  (leaf * 2).sum().backward();  // and backward still works
  CHECK(leaf.grad().to_vector<float>() == std::vector<float>{2, 2});
  CHECK_THAT(error_of<ValueError>([] {
               tensor(std::vector<uint64_t>{1, std::numeric_limits<uint64_t>::max()});
             }),
             Contains("tensor") && Contains("int64"));
  CHECK(tensor(std::vector<uint64_t>{7}).item<int64_t>() == 7);
  CHECK_THAT(error_of<ValueError>([] { full({}, 1e300, kFloat64).item<BFloat16>(); }),
             Contains("bfloat16"));
  CHECK(static_cast<float>(full({}, 3e38, kFloat64).item<BFloat16>()) > 2.9e38f);
}
