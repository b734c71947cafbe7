// test_regress_core.cpp: regressions for core bugs found by fuzz/fuzz_ops.cpp and the
// sanitizer job: signed overflow in stride, slice, narrow and arange arithmetic, float-to-int64
// conversions of numbers int64 cannot hold, and int64 printing through double. Each case names
// the input the fuzzer found (reduced by hand) and what PyTorch does with it. Several only fail
// under UBSan (.ci/sanitize.sh) in a build where the overflow happens to wrap harmlessly;
// docs/reliability.md lists them with the proposed fixes.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <sstream>

#include "wick/wick.hpp"

using namespace wick;

namespace {

template <typename Kind, typename Fn>
bool throws(Fn&& fn) {
  try {
    fn();
  } catch (const Kind&) {
    return true;
  } catch (...) {
    return false;
  }
  return false;
}

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

}  // namespace

TEST_CASE("empty tensors whose strides overflow int64", "[regress][core]") {
  // core/src/tensor.cpp contiguous_strides(): running *= max(size, 1) unchecked. With a 0 dim
  // the element count is 0, so checked_numel() accepts the shape, but the strides of
  // [0, 2^62, 4] do not fit int64: PyTorch says "Stride calculation overflowed".
  CHECK(throws<ShapeError>([] { empty({0, int64_t{1} << 62, 4}); }));
  CHECK(throws<ShapeError>([] { zeros({3, 0, kMax, 2}); }));
  // Strides of [2^62, 0, 4] are [4, 4, 1] and fit: this must work, as in PyTorch
  // (contiguous_strides() also multiplies by the first size, which overflows here for
  // nothing: UB, caught by UBSan only).
  Tensor ok = empty({int64_t{1} << 62, 0, 4});
  CHECK(ok.numel() == 0);
  CHECK(ok.strides() == std::vector<int64_t>{4, 4, 1});
  // The same overflow through view() of an empty tensor.
  CHECK(throws<ShapeError>([] { empty({0}).view({0, int64_t{1} << 62, 4}); }));
}

TEST_CASE("slice with a huge step", "[regress][core]") {
  // core/src/views.cpp Tensor::slice(): (e - s + step - 1) / step, strides[w] *= step and
  // s + len * step overflow for steps near INT64_MAX. Python: list(range(10))[0:10:2**63-1]
  // is [0].
  Tensor t = arange(10);
  Tensor one = t.slice(0, 0, 10, kMax);
  REQUIRE(one.sizes() == std::vector<int64_t>{1});
  CHECK(one.item<int64_t>() == 0);
  Tensor m = arange(80).view({10, 8});
  Tensor row = m.slice(0, 3, 10, int64_t{1} << 62);  // stride 8 * 2^62 overflows
  REQUIRE(row.sizes() == std::vector<int64_t>{1, 8});
  CHECK(row.select(0, 0).to_vector<int64_t>() == m.select(0, 3).to_vector<int64_t>());
}

TEST_CASE("narrow with a length near INT64_MAX", "[regress][core]") {
  // core/src/views.cpp Tensor::narrow(): start + length <= n overflows and passes, giving an
  // empty view instead of an IndexError (PyTorch: "start (2) + length (...) exceeds dimension
  // size (5)").
  Tensor t = arange(5);
  CHECK(throws<IndexError>([&] { t.narrow(0, 2, kMax); }));
  CHECK(throws<IndexError>([&] { t.narrow(0, -1, kMax - 1); }));
}

TEST_CASE("full and fill_ with a float int64 can't hold", "[regress][core]") {
  // Scalar::to<int64_t>() is static_cast<int64_t>(double): UB for NaN, +-inf and values
  // outside int64 (kernels/cpu/fill_copy.cpp fill_kernel). PyTorch: "value cannot be converted
  // to type int64_t without overflow".
  CHECK(throws<Error>([] { full({2}, 1e300, kInt64); }));
  CHECK(throws<Error>([] { full({2}, std::nan(""), kInt64); }));
  CHECK(throws<Error>([] { zeros({2}, kInt64).fill_(-std::numeric_limits<double>::infinity()); }));
  CHECK(throws<Error>([] { zeros({2}, kInt64).fill_(9.3e18); }));
  // In range, a float truncates towards zero (as PyTorch).
  CHECK(full({2}, 2.7, kInt64).to_vector<int64_t>() == std::vector<int64_t>{2, 2});
  CHECK(zeros({1}, kInt64).fill_(-2.7).item<int64_t>() == -2);
}

TEST_CASE("arange into int64 past its range", "[regress][core]") {
  // core/src/factories.cpp arange(): static_cast<int64_t>(s + i * st) of a double outside
  // int64 is UB; 1e19 does not fit.
  CHECK(throws<Error>(
      [] { arange(Scalar(0.0), Scalar(3e19), Scalar(1e19), TensorOptions(kInt64)); }));
}

TEST_CASE("arange with a step whose multiples overflow", "[regress][core]") {
  // core/src/factories.cpp arange(): si + i * sti computes i * sti first, which overflows
  // although every value lies between start and end (UB; wraps to the right answer on x86,
  // so this fails under UBSan only). Fix: accumulate (v += step) or compute in uint64.
  const int64_t start = -9'000'000'000'000'000'000, end = 9'000'000'000'000'000'000;
  const int64_t step = 8'000'000'000'000'000'000;
  Tensor t = arange(start, end, step);
  CHECK(t.to_vector<int64_t>() ==
        std::vector<int64_t>{start, -1'000'000'000'000'000'000, 7'000'000'000'000'000'000});
}

TEST_CASE("printing int64 values near INT64_MAX", "[regress][core]") {
  // core/src/print.cpp: int64 values are printed through double: static_cast<long long>(v) of
  // 2^63 (INT64_MAX rounded) is UB, and 2^53 + 1 prints as 2^53.
  std::ostringstream out;
  out << tensor(std::vector<int64_t>{kMax, 9'007'199'254'740'993});
  CHECK(out.str().find("9223372036854775807") != std::string::npos);
  CHECK(out.str().find("9007199254740993") != std::string::npos);
}

TEST_CASE("flatten of a 0-d tensor checks its dims", "[regress][core]") {
  // core/src/views.cpp Tensor::flatten(): a 0-d tensor returns reshape({1}) before wrapping
  // start_dim/end_dim, so flatten(5, 3) works; PyTorch wraps first (a 0-d tensor takes dims
  // -1 and 0) and raises IndexError.
  Tensor s = scalar_tensor(1.0);
  CHECK(throws<IndexError>([&] { s.flatten(5, 3); }));
  CHECK(s.flatten(0, -1).sizes() == std::vector<int64_t>{1});
}

TEST_CASE("unsqueeze of an empty tensor with a huge dim", "[regress][core]") {
  // core/src/views.cpp Tensor::unsqueeze(): the new dim's stride is strides[w] * sizes[w],
  // which overflows for [2^63-1, 0, 3] (strides [3, 3, 1]): UB, caught by UBSan. The new dim
  // has size 1, so its stride never steps; any value that fits will do.
  const int64_t big = std::numeric_limits<int64_t>::max();
  Tensor t = zeros({big, 0, 3});
  Tensor u = t.unsqueeze(0);
  CHECK(u.sizes() == std::vector<int64_t>{1, big, 0, 3});
  CHECK(u.numel() == 0);
  CHECK(empty({big, 1, 0, 3}).unsqueeze(1).sizes() == std::vector<int64_t>{big, 1, 1, 0, 3});
}

TEST_CASE("reductions of an empty tensor whose reduced sizes overflow int64", "[regress][core]") {
  // core/src/ops_reduce.cpp reduce(): reduced_count *= size over the reduced dims overflows
  // for [2^63-1, 0, 3] reduced over dims 0 and 2 (UB, caught by UBSan); the result is empty
  // (the 0 dim is kept), as in PyTorch. Same product in autograd/rules.cpp reduced_count().
  const int64_t big = std::numeric_limits<int64_t>::max();
  Tensor t = zeros({big, 0, 3});
  CHECK(t.sum(Shape{0, 2}).sizes() == std::vector<int64_t>{0});
  CHECK(t.mean(Shape{0, 2}, true).sizes() == std::vector<int64_t>{1, 0, 1});
  CHECK(t.to(kInt64).sum(Shape{0, 2}).sizes() == std::vector<int64_t>{0});
  Tensor x = zeros({big, 0, 3}, TensorOptions(kFloat64)).requires_grad_(true);
  x.mean(Shape{0, 2}).sum().backward();
  CHECK(x.grad().sizes() == x.sizes());
}

TEST_CASE("flatten of an empty tensor whose merged size overflows", "[regress][core]") {
  // core/src/views.cpp Tensor::flatten(): merged *= sizes[i] unchecked. [2^63-1, 0, 3]
  // permuted to [0, 3, 2^63-1] flattened over dims 1-2 multiplies 3 * (2^63-1) (UB); the
  // merged size does not fit int64, so the answer is a ShapeError.
  const int64_t big = std::numeric_limits<int64_t>::max();
  Tensor p = zeros({big, 0, 3}).permute({1, 2, 0});
  REQUIRE(p.sizes() == std::vector<int64_t>{0, 3, big});
  CHECK(throws<ShapeError>([&] { p.flatten(1, 2); }));
  CHECK(p.flatten(0, 1).sizes() == std::vector<int64_t>{0, big});
}

TEST_CASE("numel of a view that puts the 0 after sizes whose product overflows",
          "[regress][core]") {
  // core/src/tensor.cpp Tensor::numel(): multiplied the sizes in order, so [2^62, 0, 2, 1]
  // transposed to [2^62, 1, 2, 0] computed 2^62 * 2 before reaching the 0 (UB, found by
  // fuzz_ops under UBSan). Same order problem for a reduction's input dims in
  // kernels/cpu/reduce.cpp, now decided before the dims are merged.
  const int64_t big = int64_t{1} << 62;
  Tensor t = zeros({big, 0, 2, 1}, TensorOptions(kInt64));
  Tensor v = t.transpose(-1, -3);
  CHECK(v.sizes() == std::vector<int64_t>{big, 1, 2, 0});
  CHECK(v.numel() == 0);
  CHECK(v.contiguous().numel() == 0);
  Tensor w = zeros({3, 0}).expand({2, 3, 0}).permute({2, 0, 1});
  CHECK(w.sum(Shape{0}).sizes() == std::vector<int64_t>{2, 3});
  CHECK(w.sum(Shape{0}).abs().sum().item<double>() == 0.0);
  // Reduce away the 0 dim of [0, 2^61, 2]: 2^62 float outputs, 2^64 bytes: an error.
  Tensor e = zeros({big / 2, 2, 0}).permute({2, 0, 1});
  CHECK(throws<Error>([&] { e.sum(Shape{0}); }));
  CHECK(zeros({2, big / 2, 0}).permute({2, 0, 1}).sum(Shape{0, 1, 2}).item<double>() == 0.0);
}

TEST_CASE("select and slice far into an empty tensor", "[regress][core]") {
  // core/src/views.cpp Tensor::select()/slice(): the view's offset index * stride overflowed
  // for select(0, 2^63 - 4) of [2^63-1, 0, 1, 4] (stride 4; UB, found by fuzz_ops under UBSan).
  // The view is empty and reads nothing, so its offset stays the input's.
  const int64_t big = std::numeric_limits<int64_t>::max();
  Tensor t = zeros({big, 0, 1, 4});
  Tensor s = t.select(0, -3);
  CHECK(s.sizes() == std::vector<int64_t>{0, 1, 4});
  CHECK(s.numel() == 0);
  Tensor l = t.slice(0, big - 5, big);
  CHECK(l.sizes() == std::vector<int64_t>{5, 0, 1, 4});
  CHECK(t.narrow(0, big - 3, 2).sizes() == std::vector<int64_t>{2, 0, 1, 4});
  CHECK(l.contiguous().numel() == 0);
}

TEST_CASE("bfloat16 reductions of an empty tensor whose byte strides overflow", "[regress][core]") {
  // kernels/cpu/loops.hpp make_layout(): stride * element size overflowed for an empty
  // [3, 0, 2^63-1] tensor (strides [2^63-1, 2^63-1, 1]; UB, found by fuzz_ops under UBSan once
  // it made bfloat16 tensors). The float32 widening of a bfloat16 input copies even an empty
  // tensor; the layout of an empty operand now stops before any stride is multiplied out.
  const int64_t big = std::numeric_limits<int64_t>::max();
  Tensor t = empty({3, 0, big}, TensorOptions(kBFloat16));
  Tensor m = t.mean();
  CHECK(m.dtype() == kBFloat16);
  CHECK(std::isnan(m.item<double>()));
  CHECK(t.sum().item<double>() == 0.0);
  CHECK(t.to(kFloat32).sizes() == t.sizes());
}

TEST_CASE("an empty tensor whose sizes before the 0 overflow when multiplied", "[regress][core]") {
  // core/src/device.cpp checked_numel(): the running product of [2^63-1, 2, 0, 1] overflowed
  // before it reached the 0, so clone() of an existing empty tensor (made by permute) threw
  // "has more elements than int64 can count" (found by fuzz_ops). A 0 anywhere gives 0 now.
  // PyTorch clones it too; its strides [2, 1, 1, 1] fit.
  const int64_t big = std::numeric_limits<int64_t>::max();
  Tensor t = zeros({2, 0, big, 1}).permute({2, 0, 1, 3});
  REQUIRE(t.sizes() == std::vector<int64_t>{big, 2, 0, 1});
  CHECK(t.clone().sizes() == t.sizes());
  CHECK(t.contiguous().numel() == 0);
  CHECK(empty({big, 2, 0, 1}).numel() == 0);
  CHECK((t + 1.0).sizes() == t.sizes());
  // reshape's product of the given sizes likewise (views.cpp infer_size(); flatten of
  // [2^62, 1, 3, 3, 0] over dims 1..3 threw "size [2^62, 9, 0] overflows int64").
  Tensor wide = zeros({int64_t{1} << 62, 1, 3, 3, 0});
  CHECK(wide.flatten(1, -2).sizes() == std::vector<int64_t>{int64_t{1} << 62, 9, 0});
  CHECK(wide.reshape({int64_t{1} << 62, 9, 0}).numel() == 0);
  CHECK(throws<ShapeError>([&] { wide.reshape({0, -1}); }));
  // Still an error: a count past int64 with no 0, and strides past int64.
  CHECK(throws<ShapeError>([&] { empty({big, 2}); }));
  CHECK(throws<ShapeError>([&] { empty({0, int64_t{1} << 62, 4}); }));
}

TEST_CASE("softmax over a dim of size 1 whose stride is not the inner size", "[regress][core]") {
  // kernels/cpu/softmax.cpp: the column kernel (a contiguous input, dim not last) took the
  // dim's stride for the inner size; a size-1 dim may have any stride ([1, 1] with strides
  // [5, 1] is contiguous), so no column was computed and the output kept its poison (found by
  // fuzz_ops in CI: log_softmax dim 0 of [1, 1] gave NaN). PyTorch: 1 and 0.
  Tensor x = zeros({1, 5}).narrow(1, 0, 1);
  REQUIRE(x.is_contiguous());
  REQUIRE(x.stride(0) == 5);
  CHECK(softmax(x, 0).item<double>() == 1.0);
  CHECK(log_softmax(x, 0).item<double>() == 0.0);
  Tensor y = zeros({1, 3, 2}).narrow(2, 0, 1).expand({1, 3, 1}).contiguous();
  CHECK(softmax(zeros({1, 70}).unsqueeze(0), 1).sizes() == std::vector<int64_t>{1, 1, 70});
  CHECK(softmax(zeros({1, 70}).unsqueeze(0), 1).sum().item<double>() == 70.0);
  CHECK(log_softmax(y, 0).sum().item<double>() == 0.0);
}

TEST_CASE("cat and stack of empty tensors whose parts' offsets overflow", "[regress][core]") {
  // core/src/ops_join.cpp computed each part's offset (offset * stride) even for an empty
  // result: cat along 0 of [3037000500, 4294967297, 0] twice multiplied 3037000500 by the
  // stride 4294967297, a signed overflow (found by fuzz_ops under UBSan in CI); stack of three
  // [2^62, 0] multiplied 2 by the stride 2^62. Nothing is copied now.
  const Tensor a = empty({3037000500, 4294967297, 0}, kFloat64);
  CHECK(cat({a, a}, 0).sizes() == std::vector<int64_t>{6074001000, 4294967297, 0});
  const Tensor b = empty({int64_t{1} << 62, 0});
  CHECK(stack({b, b, b}, 0).sizes() == std::vector<int64_t>{3, int64_t{1} << 62, 0});
}

TEST_CASE("layer_norm of empty tensors whose normalized dims overflow when multiplied",
          "[regress][core]") {
  // core/src/ops_norm.cpp multiplied normalized_shape's dims left to right: over
  // [2, 2^62, 0] it computed 2 * 2^62, a signed overflow, before reaching the 0 (found by
  // fuzz_ops under UBSan in CI). The row length is 0 there now; both ops return empty results
  // and zero-size gradients of weight and bias.
  const int64_t huge = int64_t{1} << 62;
  const Tensor x = empty({2, huge, 0});
  const Tensor w = empty({2, huge, 0}), b = empty({2, huge, 0});
  CHECK(layer_norm(x, {2, huge, 0}, w, b).sizes() == x.sizes());
  CHECK(layer_norm(x, {huge, 0}).sizes() == x.sizes());
  const auto grads = layer_norm_backward(x, x, {2, huge, 0}, w, 1e-5, {true, true, true});
  CHECK(grads[0].sizes() == x.sizes());
  CHECK(grads[1].sizes() == w.sizes());
  CHECK(grads[2].sizes() == w.sizes());
  // A shape that does not fit is refused before its (wrapped) product is used.
  CHECK_THROWS_AS(layer_norm(x, {huge, 4}), ShapeError);
}
