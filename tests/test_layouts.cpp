// test_layouts.cpp: results take PyTorch's layouts (wick/dim_order.hpp): an elementwise op on
// transposed or permuted operands, clone() and to() give the strides PyTorch 1.13 gives, with
// its values (tests/golden/make_layouts.py); contiguous() is row-major; the CPU loops walk such
// layouts correctly in place and on one and two threads.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "layout_cases.hpp"
#include "wick/dim_order.hpp"

using namespace wick;

namespace {

// Elementwise float32 results against float64 PyTorch values printed from float32: exact for
// arithmetic, a few ulps for exp, tanh and sigmoid, whose implementations differ.
bool close(double got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return std::abs(got - want) <= 2e-6 * std::max(1.0, std::abs(want));
}

}  // namespace

TEST_CASE("layouts: results have PyTorch's sizes, strides and values", "[layouts]") {
  const layout_cases::Inputs inputs{Device(kCPU)};
  std::set<std::string> seen;
  for (const layout_cases::Golden& golden : layout_cases::goldens()) {
    INFO(golden.name);
    seen.insert(golden.name);
    const auto it = layout_cases::cases().find(golden.name);
    REQUIRE(it != layout_cases::cases().end());
    for (int threads : {1, 2}) {
      const int saved = get_num_threads();
      set_num_threads(threads);
      const Tensor result = it->second(inputs);
      set_num_threads(saved);
      CHECK(result.sizes() == golden.sizes);
      CHECK(result.strides() == golden.strides);
      const std::vector<double> values = result.to(kFloat64).to_vector<double>();
      REQUIRE(values.size() == golden.values.size());
      for (size_t k = 0; k < values.size(); ++k) {
        INFO("element " << k);
        CHECK(close(values[k], golden.values[k]));
      }
    }
  }
  CHECK(seen.size() == layout_cases::cases().size());  // every case has a golden row
}

TEST_CASE("layouts: a result laid out as x.t() is dense and stays so through further ops",
          "[layouts]") {
  const Tensor x = randn({64, 48});
  const Tensor y = x.t().exp();
  CHECK_FALSE(y.is_contiguous());
  CHECK(y.strides() == Shape{1, 48});
  CHECK(y.storage()->nbytes() == 64 * 48 * sizeof(float));  // no gaps
  // Row-major on request, with the same values.
  const Tensor c = y.contiguous();
  CHECK(c.is_contiguous());
  CHECK(c.to_vector<float>() == y.to_vector<float>());
  CHECK(c.to_vector<float>() == x.t().contiguous().exp().to_vector<float>());
  // view() needs a row-major-compatible layout, as in PyTorch; reshape() copies.
  CHECK_THROWS_AS(y.view({-1}), ShapeError);
  CHECK(y.reshape({-1}).to_vector<float>() == c.reshape({-1}).to_vector<float>());
}

TEST_CASE("layouts: in-place ops and copies into transposed targets walk them correctly",
          "[layouts]") {
  // Large enough to run on two threads (kParallelGrain) and through the clones.
  const Tensor a = randn({300, 257});
  const Tensor b = randn({257, 300});
  const std::vector<float> want = (a.t().contiguous() + b).to_vector<float>();
  for (int threads : {1, 2}) {
    const int saved = get_num_threads();
    set_num_threads(threads);
    Tensor target = a.clone().t();  // transposed view of a fresh copy
    target.add_(b);
    CHECK(target.to_vector<float>() == want);
    Tensor into = a.clone().t();
    into.copy_(b);
    CHECK(into.to_vector<float>() == b.to_vector<float>());
    set_num_threads(saved);
  }
}

TEST_CASE("layouts: strides of a new result are PyTorch's for every operand order", "[layouts]") {
  // The first input whose strides order two dims decides (a.t() + b: a's layout; b + a.t():
  // b's), a broadcast input (stride 0) leaves the decision to the next one.
  const Tensor a = randn({6, 4}), b = randn({4, 6}), row = randn({6});
  CHECK((a.t() + b).strides() == Shape{1, 4});
  CHECK((b + a.t()).strides() == Shape{6, 1});
  CHECK((row + a.t()).strides() == Shape{1, 4});
  CHECK((a.t() + row).strides() == Shape{1, 4});
  CHECK((a + a).strides() == Shape{4, 1});
  CHECK(detail::is_non_overlapping_and_dense({4, 6}, {1, 4}));
  CHECK_FALSE(detail::is_non_overlapping_and_dense({4, 6}, {1, 8}));
  CHECK_FALSE(detail::is_non_overlapping_and_dense({4, 6}, {0, 1}));
  CHECK(detail::is_non_overlapping_and_dense({4, 1, 6}, {1, 99, 4}));
}

TEST_CASE("layouts: large operands laid out across the result give the same values", "[layouts]") {
  // Past ops_elementwise.cpp's kRelayoutMinElements, a dense input whose layout crosses the
  // result's is copied into the result's layout first; values must not change, and an
  // in-place target with gaps (a slice) must not be taken as the copy's layout.
  const Tensor a = randn({300, 257}), b = randn({257, 300});
  const Tensor at = a.t().contiguous();
  const Tensor mask = randn({257, 300}) > 0.0;
  for (int threads : {1, 2}) {
    const int saved = get_num_threads();
    set_num_threads(threads);
    CHECK((a.t() + b).to_vector<float>() == (at + b).to_vector<float>());
    CHECK((b + a.t()).to_vector<float>() == (b + at).to_vector<float>());
    CHECK((b * a.t()).strides() == b.strides());
    CHECK(where(mask, a.t(), b).to_vector<float>() == where(mask, at, b).to_vector<float>());
    CHECK((a.t().to(kFloat64) - b).to_vector<double>() ==
          (at.to(kFloat64) - b).to_vector<double>());
    Tensor target = b.clone();
    target.add_(a.t());
    CHECK(target.to_vector<float>() == (b + at).to_vector<float>());
    Tensor big = zeros({257, 700});
    Tensor slice = big.narrow(1, 5, 300);
    slice.add_(a.t());
    CHECK(slice.to_vector<float>() == at.to_vector<float>());
    CHECK(big.narrow(1, 0, 5).abs().sum().item<float>() == 0.0f);
    CHECK(big.narrow(1, 305, 395).abs().sum().item<float>() == 0.0f);
    set_num_threads(saved);
  }
}

TEST_CASE("layouts: softmax of a transposed input equals softmax of its contiguous copy",
          "[layouts]") {
  // The boundary packs a CPU input whose softmax dim is strided and which is not contiguous
  // (ops_linalg.cpp), so the vectorised row and column kernels run: the same bits.
  const Tensor x = randn({300, 257});
  const Tensor xt = x.t(), packed = x.t().contiguous();
  for (int64_t dim : {0, 1}) {
    INFO("dim " << dim);
    CHECK(xt.softmax(dim).to_vector<float>() == packed.softmax(dim).to_vector<float>());
    CHECK(xt.log_softmax(dim).to_vector<float>() == packed.log_softmax(dim).to_vector<float>());
    CHECK(xt.softmax(dim).is_contiguous());  // as PyTorch 1.13's softmax
  }
  // A slice with gaps along the softmax dim, in float64, against the unpacked definition.
  const Tensor y = randn({6, 40}, kFloat64).slice(1, 0, 40, 3);
  const Tensor e = (y - y.amax(1, true)).exp();
  const std::vector<double> got = y.softmax(1).to_vector<double>();
  const std::vector<double> want = (e / e.sum(1, true)).to_vector<double>();
  for (size_t k = 0; k < got.size(); ++k) CHECK(std::abs(got[k] - want[k]) <= 1e-15);
}

TEST_CASE("layouts: reductions over every dim of a dense non-row-major tensor", "[layouts]") {
  // ops_reduce.cpp walks such a tensor's memory in order as one dim (sum, mean, max, min; not
  // argmax, whose index is row-major). Values: those of the row-major copy (sums within
  // rounding, extremes exactly), every keepdim form, an offset into the storage, autograd.
  const Tensor base = randn({3, 40, 50}, kFloat64);
  const Tensor z = base.slice(0, 1).permute({2, 0, 1});  // [50, 2, 40], offset 2000
  REQUIRE_FALSE(z.is_contiguous());
  REQUIRE(z.storage_offset() == 2000);
  const Tensor zc = z.contiguous();
  CHECK(std::abs(z.sum().item<double>() - zc.sum().item<double>()) <= 1e-12);
  CHECK(std::abs(z.mean().item<double>() - zc.mean().item<double>()) <= 1e-14);
  CHECK(z.max().item<double>() == zc.max().item<double>());
  CHECK(z.min().item<double>() == zc.min().item<double>());
  CHECK(z.argmax().item<int64_t>() == zc.argmax().item<int64_t>());
  const Tensor kept = z.sum({0, 1, 2}, true);
  CHECK(kept.sizes() == Shape{1, 1, 1});
  CHECK(std::abs(kept.item<double>() - zc.sum().item<double>()) <= 1e-12);
  CHECK(z.sum().dim() == 0);
  // NaN still wins.
  Tensor with_nan = randn({64, 48});
  with_nan.select(0, 5).select(0, 7).fill_(std::nan(""));
  CHECK(std::isnan(with_nan.t().max().item<float>()));
  CHECK(std::isnan(with_nan.t().sum().item<float>()));
  // Gradients flow back to the transposed leaf's layout.
  Tensor w = randn({30, 20});
  w.requires_grad_(true);
  (w.t() * 2.0).sum().backward();
  CHECK(w.grad().to_vector<float>() == std::vector<float>(600, 2.0f));
}
