// test_loss_likelihood.cpp: poisson_nll_loss and gaussian_nll_loss (wick/nn/loss_likelihood.hpp)
// against values and gradients computed by python3-torch 1.13 in float64
// (likelihood_golden.inc, written by make_likelihood_golden.py): log and plain rates, Stirling's
// term, a variance below eps, one variance per row; the modules; the errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include <wick/wick.hpp>

#include "golden_check.hpp"

namespace nn = wick::nn;
namespace F = wick::nn::functional;
using wick::Tensor;

namespace {

#include "likelihood_golden.inc"

using Ts = std::vector<Tensor>;

const std::map<std::string, std::function<Tensor(const Ts&)>>& calls() {
  using nn::GaussianNLLLossOptions;
  using nn::PoissonNLLLossOptions;
  static const std::map<std::string, std::function<Tensor(const Ts&)>> c = {
      {"poisson_nll_loss", [](const Ts& x) { return nn::PoissonNLLLoss()(x[0], x[1]); }},
      {"poisson_nll_loss, rate, none",
       [](const Ts& x) {
         return F::poisson_nll_loss(x[0], x[1], PoissonNLLLossOptions(nn::kNone).log_input(false));
       }},
      {"poisson_nll_loss, full, sum",
       [](const Ts& x) {
         return F::poisson_nll_loss(x[0], x[1], PoissonNLLLossOptions(nn::kSum).full(true));
       }},
      {"gaussian_nll_loss", [](const Ts& x) { return nn::GaussianNLLLoss()(x[0], x[1], x[2]); }},
      {"gaussian_nll_loss, full, none",
       [](const Ts& x) {
         return F::gaussian_nll_loss(x[0], x[1], x[2],
                                     GaussianNLLLossOptions(nn::kNone).full(true));
       }},
      {"gaussian_nll_loss, one variance per row",
       [](const Ts& x) { return F::gaussian_nll_loss(x[0], x[1], x[2]); }},
      {"gaussian_nll_loss, [N, 1] variance, sum",
       [](const Ts& x) {
         return F::gaussian_nll_loss(x[0], x[1], x[2], GaussianNLLLossOptions(nn::kSum).eps(0.5));
       }},
  };
  return c;
}

}  // namespace

TEST_CASE("poisson and gaussian NLL: PyTorch's values and gradients", "[nn][loss]") {
  REQUIRE(kLikelihoodCases.size() == calls().size());
  for (const MultiInputCase& c : kLikelihoodCases) {
    // Stirling's term's target gradient at a count of 0: torch's is NaN (its log(target)
    // before the mask); wick evaluates the term on counts clamped to >= 1, so it is finite.
    check_multi_input_case(c, calls().at(c.name), [](double got) { CHECK(std::isfinite(got)); });
  }
}

TEST_CASE("poisson and gaussian NLL: printing and errors", "[nn][loss]") {
  std::ostringstream printed;
  printed << nn::PoissonNLLLoss() << " "
          << nn::GaussianNLLLoss(nn::GaussianNLLLossOptions().full(true));
  CHECK(printed.str() ==
        "PoissonNLLLoss(log_input=true, full=false, eps=1e-08, reduction=mean) "
        "GaussianNLLLoss(full=true, eps=1e-06, reduction=mean)");
  const Tensor x = wick::zeros({3, 4}).to(wick::kFloat64);
  // torch: "var has negative entry/entries", "var is of incorrect size".
  try {
    F::gaussian_nll_loss(x, x, -wick::ones({3, 4}).to(wick::kFloat64));
    FAIL("no error");
  } catch (const wick::ValueError& e) {
    CHECK_THAT(e.what(), Catch::Contains("gaussian_nll_loss") && Catch::Contains("negative"));
  }
  CHECK_THROWS_AS(F::gaussian_nll_loss(x, x, wick::ones({2, 4}).to(wick::kFloat64)),
                  wick::ShapeError);
  CHECK_THROWS_AS(F::poisson_nll_loss(wick::tensor({1, 2}), x), wick::DtypeError);
  CHECK_THROWS_AS(F::gaussian_nll_loss(x, Tensor(), x), wick::ValueError);
}
