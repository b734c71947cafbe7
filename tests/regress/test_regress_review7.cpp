// test_regress_review7.cpp: what a seventh review against python3-torch 1.13 found
// (docs/reliability.md, "Findings of a seventh review"): lerp's choice of form for negative
// weights and its NaN gradients beside infinite operands, hardswish at +-inf, and the engine
// refusing to add an empty expanded gradient in place. torch's values in the comments.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "wick/nn.hpp"
#include "wick/wick.hpp"

using namespace wick;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
Tensor leaf(std::vector<double> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return tensor(values, Shape{n}, kFloat64).requires_grad_(true);
}
}  // namespace

TEST_CASE("lerp takes PyTorch 1.13's form for negative weights", "[regress]") {
  // weight < 0.5 picks a + w (b - a): lerp([3, -0], [-inf, inf], [-2, -0.5]) = [inf, -inf]
  // (wick gave NaN: the second form's (b - a) * (1 - w) - b is inf - inf).
  const Tensor a = tensor(std::vector<double>{3.0, -0.0}, Shape{2}, kFloat64);
  const Tensor b = tensor(std::vector<double>{-kInf, kInf}, Shape{2}, kFloat64);
  const Tensor w = tensor(std::vector<double>{-2.0, -0.5}, Shape{2}, kFloat64);
  CHECK(lerp(a, b, w).to_vector<double>() == std::vector<double>{kInf, -kInf});
  CHECK(lerp(a, b, Scalar(-2.0)).to_vector<double>() == std::vector<double>{kInf, -kInf});
  // The last bit: torch gives -3.3697429007244444 for this one; |w| < 0.5 gave ...445.
  const double x = -2.9550511796484766, y = -2.81511586964034, weight = -2.963453048782727;
  auto scalar = [](double v) { return tensor(std::vector<double>{v}, Shape{}, kFloat64); };
  CHECK(lerp(scalar(x), scalar(y), Scalar(weight)).item<double>() == -3.3697429007244444);
  CHECK(lerp(scalar(x), scalar(y), scalar(weight)).item<double>() == -3.3697429007244444);
}

TEST_CASE("lerp's gradients beside an infinite operand are not NaN", "[regress][autograd]") {
  // lerp(3, -inf, 0.25): torch's d weight is -inf, d a 0.75, d b 0.25 (wick: NaN from the form
  // where() discarded, 0 * inf). lerp(1, inf, 0.75): d weight inf.
  Tensor a = leaf({3.0, 1.0}), b = leaf({-kInf, kInf}), w = leaf({0.25, 0.75});
  lerp(a, b, w).sum().backward();
  CHECK(w.grad().to_vector<double>() == std::vector<double>{-kInf, kInf});
  CHECK(a.grad().to_vector<double>() == std::vector<double>{0.75, 0.25});
  CHECK(b.grad().to_vector<double>() == std::vector<double>{0.25, 0.75});
}

TEST_CASE("hardswish at +-inf and below -3", "[regress][autograd]") {
  // torch: values [nan, -0.0, -0.0, inf], gradients [0, 0, -0.5, 1] (wick: 0 at -inf, +0.0 at
  // -5, a NaN gradient at +inf).
  Tensor x = leaf({-kInf, -5.0, -3.0, kInf});
  const Tensor y = nn::functional::hardswish(x);
  const std::vector<double> values = y.to_vector<double>();
  CHECK(std::isnan(values[0]));
  CHECK((values[1] == 0.0 && std::signbit(values[1])));
  CHECK((values[2] == 0.0 && std::signbit(values[2])));
  CHECK(values[3] == kInf);
  y.sum().backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{0.0, 0.0, -0.5, 1.0});
}

TEST_CASE("empty expanded gradients accumulate, and an empty expanded tensor is writable",
          "[regress][autograd]") {
  // Two uses of an empty [0, 4] tensor: the engine added the second gradient into the first,
  // an expanded [0, 4] with stride 0, and add_ refused it as self-overlapping (torch: fine).
  Tensor x = zeros({0, 4}, kFloat64).requires_grad_(true);
  const Tensor l = x * 1.0;
  (l.sum(1) + l.sum(1) * 2.0).sum().backward();
  CHECK(x.grad().sizes() == Shape{0, 4});
  Tensor expanded = zeros({0, 1}).expand({0, 4});
  CHECK_NOTHROW(expanded.add_(1.0));
  // cross_entropy with label smoothing on an empty batch (its first real-world trigger).
  Tensor logits = zeros({0, 3}, kFloat64).requires_grad_(true);
  const Tensor target = zeros({0}, kInt64);
  const Tensor loss = nn::functional::cross_entropy(
      logits, target, nn::CrossEntropyLossOptions().label_smoothing(0.1).reduction(nn::kSum));
  loss.backward();
  CHECK(logits.grad().sizes() == Shape{0, 3});
  // A non-empty expanded tensor is still refused.
  Tensor wide = zeros({1, 1}).expand({2, 4});
  CHECK_THROWS_AS(wide.add_(1.0), ValueError);
}

TEST_CASE("braced empty dims reduce every dim, not dim 0", "[regress]") {
  // var and std too: var(x, {}, false) took var(x, int64_t dim, bool unbiased), dim 0.
  // {} matched the int64_t dim overload exactly, so x.sum({}) was x.sum(0): [5, 7, 9] where
  // torch's x.sum(()) is 21 (mean 3.5, amax 6; keepdim gives [1, 1]).
  const Tensor x = arange(1, 7, 1, TensorOptions(kFloat64)).reshape({2, 3});
  CHECK(x.sum({}).item<double>() == 21.0);
  CHECK(sum(x, {}).item<double>() == 21.0);
  CHECK(x.sum({}, true).sizes() == Shape{1, 1});
  CHECK(x.mean({}).item<double>() == 3.5);
  CHECK(mean(x, {}).item<double>() == 3.5);
  CHECK(amax(x, {}).item<double>() == 6.0);
  CHECK(amin(x, {}).item<double>() == 1.0);
  CHECK(x.amax({}).item<double>() == 6.0);
  CHECK(x.amin({}, true).sizes() == Shape{1, 1});
  double total = 0;
  for (int i = 1; i <= 6; ++i) total += std::exp(static_cast<double>(i));
  CHECK(x.logsumexp({}).item<double>() == Approx(std::log(total)));
  CHECK(logsumexp(x, {}).item<double>() == Approx(std::log(total)));
  CHECK(var(x, {}, false).item<double>() == Approx(17.5 / 6.0));
  CHECK(x.std({}, true, true).sizes() == Shape{1, 1});
  CHECK(x.var({}, true).item<double>() == Approx(3.5));
  // One braced dim is still that dim.
  CHECK(x.sum({1}).to_vector<double>() == std::vector<double>{6.0, 15.0});
  CHECK(amax(x, {0}).to_vector<double>() == std::vector<double>{4.0, 5.0, 6.0});
}

TEST_CASE("histc over a range near the dtype's largest value", "[regress]") {
  // (x - low) and (high - low) overflowed float32 to inf, inf / inf gave NaN, and the int64 cast
  // reached bincount, which refused it (its error, not histc's). Now: [1, 1, 0, 1]... as the
  // exact positions say: -3e38 in bin 0, 0 in bin 2, 3e38 (== high) in bin 3.
  const Tensor x = tensor(std::vector<float>{-3e38f, 3e38f, 0.0f}, Shape{3}, kFloat32);
  CHECK(histc(x, 4).to_vector<float>() == std::vector<float>{1, 0, 1, 1});
  const Tensor y = tensor(std::vector<double>{-1e308, 1e308, 0.0}, Shape{3}, kFloat64);
  CHECK(histc(y, 4).to_vector<double>() == std::vector<double>{1, 0, 1, 1});
  const Tensor z = tensor(std::vector<float>{0.0f, 1.0f}, Shape{2}, kFloat32);
  CHECK(histc(z, 4, -3e38, 3e38).to_vector<float>() == std::vector<float>{0, 0, 2, 0});
}

TEST_CASE("square of bool is int64; aminmax's empty-dim error names aminmax", "[regress]") {
  // torch: square(tensor([True, False])) = tensor([1, 0]) (int64, pow's promotion).
  const Tensor flags = tensor(std::vector<double>{1, 0}, Shape{2}, kFloat64).to(kBool);
  const Tensor squared = square(flags);
  CHECK(squared.dtype() == kInt64);
  CHECK(squared.to_vector<int64_t>() == std::vector<int64_t>{1, 0});
  CHECK_THROWS_AS(aminmax(zeros({0, 3}), 0), IndexError);
  CHECK_THROWS_WITH(aminmax(zeros({0, 3}), 0), Catch::Matchers::StartsWith("aminmax"));
  CHECK_THROWS_WITH(aminmax(zeros({0})), Catch::Matchers::StartsWith("aminmax"));
  const auto [low, high] = aminmax(zeros({0, 3}), 1);
  CHECK(low.sizes() == Shape{0});
}

TEST_CASE("det's gradient at a singular matrix is the cofactor matrix", "[regress][autograd]") {
  // Columns 0 and 1 proportional: the factorisation meets a zero pivot at step 1 of 3. The
  // gradient is adj(A)^T, the cofactors (central differences agree); wick gave rows 2 and 3 as
  // [-13.5, 6.75, 0] and [0, 0, 0] (torch 1.13: all zeros, also wrong).
  Tensor a = tensor(std::vector<double>{1, 2, 3, 2, 4, 1, 0.5, 1, 7}, Shape{3, 3}, kFloat64)
                 .requires_grad_(true);
  const Tensor d = det(a);
  CHECK(d.item<double>() == 0.0);
  d.backward();
  const std::vector<double> want = {27, -13.5, 0, -11, 5.5, 0, -10, 5, 0};
  const std::vector<double> got = a.grad().to_vector<double>();
  for (size_t i = 0; i < want.size(); ++i) CHECK(got[i] == Approx(want[i]).margin(1e-12));

  // A batch: the singular one, one of rank 1 (adjugate 0), and an invertible one, whose
  // gradient stays det(A) A^-T.
  Tensor batch = tensor(std::vector<double>{1, 2, 3, 2, 4, 1, 0.5, 1, 7,  //
                                            1, 1, 1, 2, 2, 2, 3,   3, 3,  //
                                            2, 0, 1, 1, 3, 0, 0,   1, 4},
                        Shape{3, 3, 3}, kFloat64)
                     .requires_grad_(true);
  const Tensor dets = det(batch);
  CHECK(dets.to_vector<double>() == std::vector<double>{0, 0, 25});
  (dets * tensor(std::vector<double>{1, 1, 2}, Shape{3}, kFloat64)).sum().backward();
  const Tensor g = batch.grad();
  const std::vector<double> first = g.select(0, 0).reshape({-1}).to_vector<double>();
  for (size_t i = 0; i < want.size(); ++i) CHECK(first[i] == Approx(want[i]).margin(1e-12));
  CHECK(g.select(0, 1).abs().max().item<double>() == 0.0);
  // Partial pivoting leaves two zero pivots in these matrices of rank n - 1: their adjugates
  // are not 0 (a review of this fix caught it; torch 1.13 gives 0).
  Tensor shift =
      tensor(std::vector<double>{0, 1, 0, 0}, Shape{2, 2}, kFloat64).requires_grad_(true);
  det(shift).backward();
  CHECK(shift.grad().to_vector<double>() == std::vector<double>{0, 0, -1, 0});
  Tensor nilpotent = tensor(std::vector<double>{0, 1, 0, 0, 0, 1, 0, 0, 0}, Shape{3, 3}, kFloat64)
                         .requires_grad_(true);
  det(nilpotent).backward();
  CHECK(nilpotent.grad().to_vector<double>() == std::vector<double>{0, 0, 0, 0, 0, 0, 1, 0, 0});
  const Tensor m = batch.detach().select(0, 2);
  const Tensor expected = linalg_inv(m).t() * 25.0 * 2.0;
  CHECK((g.select(0, 2) - expected).abs().max().item<double>() <= 1e-12);
}

TEST_CASE("prelu's weight gradient beside +inf", "[regress][autograd]") {
  // torch: prelu([inf, -1, 2], [0.25]) = [inf, -0.25, 2], d weight -1, d x [1, 0.25, 1] (the
  // weight's side, where() discarded at +inf, gave 0 * inf = NaN; found reviewing this session).
  Tensor x = leaf({kInf, -1.0, 2.0}), w = leaf({0.25});
  const Tensor y = nn::functional::prelu(x, w);
  CHECK(y.to_vector<double>() == std::vector<double>{kInf, -0.25, 2.0});
  y.sum().backward();
  CHECK(w.grad().to_vector<double>() == std::vector<double>{-1.0});
  CHECK(x.grad().to_vector<double>() == std::vector<double>{1.0, 0.25, 1.0});
}
