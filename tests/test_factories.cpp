// test_factories.cpp: every factory of shared/API.md with its dtype, device and
// requires_grad options; tensor() from host data; item/to_vector/data_ptr.
#include "reference.hpp"

using namespace wick;

TEST_CASE("factories: values, dtypes, options", "[factories]") {
  CHECK(zeros({2, 3}).to_vector<float>() == std::vector<float>(6, 0.0f));
  CHECK(ones({2}, kInt64).to_vector<int64_t>() == std::vector<int64_t>{1, 1});
  CHECK(full({2}, 3).dtype() == kInt64);  // dtype follows the value, as torch.full
  CHECK(full({2}, 3.5).dtype() == kFloat32);
  CHECK(full({2}, true).dtype() == kBool);
  CHECK(full({2}, 3.5, kFloat64).to_vector<double>() == std::vector<double>{3.5, 3.5});
  CHECK(empty({3, 0}).numel() == 0);
  CHECK(arange(5).dtype() == kInt64);
  CHECK(arange(5).to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(arange(1, 2, 0.25).to_vector<float>() == std::vector<float>{1, 1.25, 1.5, 1.75});
  CHECK(arange(5, 0, -2).to_vector<int64_t>() == std::vector<int64_t>{5, 3, 1});
  CHECK(arange(3, TensorOptions(kFloat64)).dtype() == kFloat64);
  CHECK_THROWS_AS(arange(0, 5, -1), ValueError);
  CHECK_THROWS_AS(arange(0, 5, 0), ValueError);
  CHECK(eye(3).to_vector<float>() == std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1});
  Tensor r = randn({4, 5}, TensorOptions().dtype(kFloat64).requires_grad(true));
  CHECK(r.requires_grad());
  CHECK(r.dtype() == kFloat64);
  CHECK(zeros_like(r).dtype() == kFloat64);
  CHECK_FALSE(zeros_like(r).requires_grad());
  CHECK(ones_like(r).sizes() == r.sizes());
  CHECK(full_like(r, 2).to_vector<double>() == std::vector<double>(20, 2.0));
  CHECK(empty_like(r).sizes() == r.sizes());
  CHECK(rand_like(r).dtype() == kFloat64);
  CHECK(randn_like(r).sizes() == r.sizes());
  CHECK(zeros_like(r, kInt64).dtype() == kInt64);
  CHECK(scalar_tensor(2.5).dim() == 0);
  // torch.scalar_tensor: the default float dtype whatever the number (found by review: 3 gave
  // int64, and arange(6) + scalar_tensor(3) stayed int64).
  CHECK(scalar_tensor(3).dtype() == kFloat32);
  CHECK(scalar_tensor(true).item<float>() == 1.0f);
  CHECK((arange(6) + scalar_tensor(3)).dtype() == kFloat32);
  CHECK(scalar_tensor(3, kInt64).dtype() == kInt64);
  CHECK_THROWS_WITH(scalar_tensor(1e300), Catch::Contains("scalar_tensor"));
}

TEST_CASE("tensor(): from host data", "[factories]") {
  Tensor a = tensor(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(a.sizes() == std::vector<int64_t>{2, 3});
  CHECK(a.dtype() == kFloat32);
  CHECK(a.select(1, 2).to_vector<float>() == std::vector<float>{3, 6});
  CHECK(tensor(std::vector<int>{1, 2}).dtype() == kInt64);
  CHECK(tensor(std::vector<bool>{true, false}).to_vector<bool>() == std::vector<bool>{true, false});
  CHECK(tensor(std::vector<double>{1.5}).dtype() == kFloat64);
  CHECK(tensor({1.0, 2.0}).dtype() == kFloat32);
  CHECK(tensor(std::vector<int>{1, 2}, kFloat64).dtype() == kFloat64);
  CHECK_THROWS_AS(tensor(std::vector<float>{1, 2, 3}, Shape{2, 2}), ShapeError);
}

TEST_CASE("element access: item, to_vector, data_ptr, queries", "[factories]") {
  Tensor t = arange(6).view({2, 3}).to(kFloat64);
  CHECK(t.data_ptr<double>()[4] == 4.0);
  CHECK(t.t().to_vector<double>() == std::vector<double>{0, 3, 1, 4, 2, 5});
  CHECK(t.t().to_vector<int64_t>() == std::vector<int64_t>{0, 3, 1, 4, 2, 5});
  CHECK(t.sum().item<double>() == 15.0);
  CHECK(t.sum().item<int64_t>() == 15);
  CHECK(t.size(-1) == 3);
  CHECK(t.dim() == 2);
  CHECK(t.numel() == 6);
  CHECK(t.is_contiguous());
  CHECK_FALSE(t.t().is_contiguous());
  CHECK(t.device() == Device(kCPU));
  CHECK(t.cpu().is_same(t));
  CHECK(t.to(kFloat64).is_same(t));  // no-op moves return the same tensor, as PyTorch
  CHECK(t.to(Device(kCPU), kFloat32).dtype() == kFloat32);
  // Host memory is 64-byte aligned.
  for (int64_t n : {1, 3, 17, 1000}) {
    CHECK(reinterpret_cast<uintptr_t>(empty({n}).data_ptr<float>()) % 64 == 0);
  }
}

TEST_CASE("an integer number becomes a float32 in one rounding", "[factories][dtype]") {
  // 2^54 + 2^30 + 1 is just past halfway between the floats 2^54 and 2^54 + 2^31: rounded
  // directly (as c10 and PyTorch 1.13 do) it is 2^54 + 2^31; through double it would first
  // become 2^54 + 2^30, exactly halfway, and then 2^54 (ties to even).
  const int64_t v = (int64_t{1} << 54) + (int64_t{1} << 30) + 1;
  const double want = static_cast<double>((int64_t{1} << 54) + (int64_t{1} << 31));
  CHECK(full({1}, v, kFloat32).item<double>() == want);
  CHECK((zeros({1}) + v).item<double>() == want);
  CHECK(scalar_tensor(v, kInt64).to(kFloat32).item<double>() == want);
  CHECK(scalar_tensor(v).item<double>() == want);
  CHECK(Scalar(v).to<float>() == static_cast<float>(want));
}

TEST_CASE("tensor from nested lists, as torch::tensor", "[factories]") {
  // Shapes from the nesting, row-major values, dtype as Python's torch.tensor.
  Tensor m = tensor({{1.5, 2}, {3, 4}});
  CHECK(m.sizes() == Shape{2, 2});
  CHECK(m.dtype() == kFloat32);
  CHECK(m.to_vector<float>() == std::vector<float>{1.5f, 2, 3, 4});
  Tensor column = tensor({{1.0}, {2.0}, {3.0}});
  CHECK(column.sizes() == Shape{3, 1});
  Tensor ints = tensor({{1, 2, 3}, {4, 5, 6}});
  CHECK(ints.dtype() == kInt64);
  CHECK(ints.sizes() == Shape{2, 3});
  CHECK(ints.to_vector<int64_t>() == std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  CHECK(tensor({int64_t{9007199254740993}}).item<int64_t>() == 9007199254740993);  // 2^53 + 1
  CHECK(tensor({true, false}).dtype() == kBool);
  CHECK(tensor({true, 2}).dtype() == kInt64);
  CHECK(tensor({1, 2.5f}).dtype() == kFloat32);
  Tensor cube = tensor({{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}, kFloat64);
  CHECK(cube.sizes() == Shape{2, 2, 2});
  CHECK(cube.dtype() == kFloat64);
  CHECK(cube.select(0, 1).select(0, 0).to_vector<double>() == std::vector<double>{5, 6});
  CHECK(tensor({2.7, -1.2}, kInt64).to_vector<int64_t>() == std::vector<int64_t>{2, -1});
  Tensor empty = tensor({});
  CHECK(empty.sizes() == Shape{0});
  CHECK(empty.dtype() == kFloat32);
  CHECK(tensor({{}, {}}).sizes() == Shape{2, 0});
  CHECK(tensor({{1.0, 2.0}}, TensorOptions().requires_grad(true)).requires_grad());
  // Ragged lists and lists mixed with numbers are ShapeErrors that say where.
  CHECK_THROWS_WITH(tensor({{1, 2}, {3}}), Catch::Contains("tensor") && Catch::Contains("ragged") &&
                                               Catch::Contains("[2, 2]"));
  CHECK_THROWS_AS(tensor({{1, 2}, 3}), ShapeError);
  CHECK_THROWS_AS(tensor({1, {2, 3}}), ShapeError);
  CHECK_THROWS_AS(tensor({{{1}}, {{2, 3}}}), ShapeError);
  // Past int64's range is a ValueError (torch.tensor: "Overflow"), not a wrap to a negative.
  CHECK_THROWS_AS(tensor({std::numeric_limits<uint64_t>::max()}), ValueError);
  CHECK(tensor({uint64_t{1} << 62}).item<int64_t>() == int64_t{1} << 62);
  // Non-finite floats stay floats (no int64 copy of them is made: that cast would be undefined).
  Tensor odd = tensor({std::nan(""), std::numeric_limits<double>::infinity(), 1e300});
  CHECK(std::isnan(odd.to_vector<float>()[0]));
  CHECK(std::isinf(odd.to_vector<float>()[2]));
  CHECK(tensor({true, false, true}, kFloat32).to_vector<float>() == std::vector<float>{1, 0, 1});
}
