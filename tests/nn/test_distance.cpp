// test_distance.cpp: normalize, cosine_similarity, pairwise_distance, margin_ranking_loss,
// triplet_margin_loss, cosine_embedding_loss, hinge_embedding_loss, soft_margin_loss and kl_div
// (wick/nn/distance.hpp) against values and gradients computed by
// python3-torch 1.13 in float64 (distance_golden.inc, written by make_distance_golden.py), zero
// vectors and zero probabilities included; the modules; the errors.
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

using DistanceCase = MultiInputCase;

#include "distance_golden.inc"

using Ts = std::vector<Tensor>;
using Fn = std::function<Tensor(const Ts&)>;

const std::map<std::string, Fn>& calls() {
  using nn::KLDivLossOptions;
  static const std::map<std::string, Fn> c = {
      {"normalize", [](const Ts& x) { return F::normalize(x[0]); }},
      {"normalize, p 1, dim 0", [](const Ts& x) { return F::normalize(x[0], 1.0, 0); }},
      {"normalize, p 3, dim -1", [](const Ts& x) { return F::normalize(x[0], 3.0, -1); }},
      {"cosine_similarity", [](const Ts& x) { return F::cosine_similarity(x[0], x[1]); }},
      {"cosine_similarity, dim 0", [](const Ts& x) { return nn::CosineSimilarity(0)(x[0], x[1]); }},
      {"cosine_similarity, broadcast",
       [](const Ts& x) { return F::cosine_similarity(x[0], x[1], -1); }},
      {"pairwise_distance", [](const Ts& x) { return nn::PairwiseDistance()(x[0], x[1]); }},
      {"pairwise_distance, p 1, keepdim",
       [](const Ts& x) { return F::pairwise_distance(x[0], x[1], 1.0, 1e-6, true); }},
      {"pairwise_distance, p 3", [](const Ts& x) { return F::pairwise_distance(x[0], x[1], 3.0); }},
      {"margin_ranking_loss", [](const Ts& x) { return F::margin_ranking_loss(x[0], x[1], x[2]); }},
      {"margin_ranking_loss, margin 0.5, sum",
       [](const Ts& x) {
         return nn::MarginRankingLoss(nn::MarginRankingLossOptions(nn::kSum).margin(0.5))(
             x[0], x[1], x[2]);
       }},
      {"margin_ranking_loss, none",
       [](const Ts& x) {
         return F::margin_ranking_loss(x[0], x[1], x[2],
                                       nn::MarginRankingLossOptions(nn::kNone).margin(0.25));
       }},
      {"triplet_margin_loss",
       [](const Ts& x) { return nn::TripletMarginLoss()(x[0], x[1], x[2]); }},
      {"triplet_margin_loss, margin 3, p 1, swap, none",
       [](const Ts& x) {
         return F::triplet_margin_loss(
             x[0], x[1], x[2], nn::TripletMarginLossOptions(nn::kNone).margin(3).p(1).swap(true));
       }},
      {"cosine_embedding_loss",
       [](const Ts& x) { return F::cosine_embedding_loss(x[0], x[1], x[2]); }},
      {"cosine_embedding_loss, margin 0.2, none",
       [](const Ts& x) {
         return nn::CosineEmbeddingLoss(nn::MarginLossOptions(nn::kNone).margin(0.2))(x[0], x[1],
                                                                                      x[2]);
       }},
      {"cosine_embedding_loss, 1-D",
       [](const Ts& x) { return F::cosine_embedding_loss(x[0], x[1], x[2]); }},
      {"hinge_embedding_loss", [](const Ts& x) { return nn::HingeEmbeddingLoss()(x[0], x[1]); }},
      {"hinge_embedding_loss, margin 2.5, sum",
       [](const Ts& x) {
         return F::hinge_embedding_loss(x[0], x[1], nn::MarginLossOptions(nn::kSum).margin(2.5));
       }},
      {"soft_margin_loss", [](const Ts& x) { return nn::SoftMarginLoss()(x[0], x[1]); }},
      {"soft_margin_loss, none",
       [](const Ts& x) { return F::soft_margin_loss(x[0], x[1], nn::kNone); }},
      {"kl_div, batchmean", [](const Ts& x) { return nn::KLDivLoss(nn::kBatchMean)(x[0], x[1]); }},
      {"kl_div, mean", [](const Ts& x) { return F::kl_div(x[0], x[1]); }},
      {"kl_div, sum", [](const Ts& x) { return F::kl_div(x[0], x[1], nn::kSum); }},
      {"kl_div, none", [](const Ts& x) { return F::kl_div(x[0], x[1], nn::kNone); }},
      {"kl_div, log_target, batchmean",
       [](const Ts& x) {
         return F::kl_div(x[0], x[1], KLDivLossOptions(nn::kBatchMean).log_target(true));
       }},
  };
  return c;
}

}  // namespace

TEST_CASE("distances and their losses: PyTorch's values and gradients", "[nn][distance]") {
  REQUIRE(kDistanceCases.size() == calls().size());
  for (const DistanceCase& c : kDistanceCases) {
    // kl_div's target gradient at a zero probability: torch's is NaN (0 / 0 in its xlogy rule);
    // wick's xlogy rule gives both partials 0 where its first operand is 0, so the target's
    // gradient there is the -input term alone, finite.
    check_multi_input_case(c, calls().at(c.name), [](double got) { CHECK(std::isfinite(got)); });
  }
}

TEST_CASE("distances: edges, module printing and errors", "[nn][distance]") {
  // A zero vector normalises to zeros (eps), and its cosine similarity is 0 (torch: 0, with
  // gradient x2 / (|x2| eps) = 57735026.919 for x2 = ones(3), eps 1e-8).
  const Tensor zeros = wick::zeros({2, 3}).to(wick::kFloat64);
  CHECK(F::normalize(zeros).abs().sum().item<double>() == 0.0);
  Tensor z = zeros.clone().requires_grad_();
  const Tensor cos = F::cosine_similarity(z, wick::ones({2, 3}).to(wick::kFloat64));
  CHECK(cos.abs().sum().item<double>() == 0.0);
  cos.sum().backward();
  CHECK(z.grad().to_vector<double>()[0] == Approx(57735026.9190).epsilon(1e-10));
  // pairwise_distance of 1-D inputs is 0-d; p = 0 counts nonzeros of x1 - x2 + eps (torch: 3).
  CHECK(F::pairwise_distance(wick::ones({3}), wick::ones({3}), 0.0).item<float>() == 3.0f);
  CHECK(F::pairwise_distance(wick::ones({3}), wick::zeros({3})).dim() == 0);
  // kl_div batchmean of a 0-d input is the sum (a batch of one).
  CHECK(F::kl_div(wick::tensor(-1.0).to(wick::kFloat64), wick::tensor(0.5).to(wick::kFloat64),
                  nn::kBatchMean)
            .item<double>() == Approx(0.5 * (std::log(0.5) + 1.0)));
  std::ostringstream printed;
  printed << nn::KLDivLoss(nn::kBatchMean) << " " << nn::TripletMarginLoss() << " "
          << nn::MarginRankingLoss(nn::MarginRankingLossOptions().margin(0.5));
  CHECK(printed.str() ==
        "KLDivLoss(reduction=batchmean) TripletMarginLoss(margin=1, p=2, eps=1e-06, swap=false, "
        "reduction=mean) MarginRankingLoss(margin=0.5, reduction=mean)");
  CHECK_THROWS_AS(F::normalize(wick::tensor({1, 2})), wick::DtypeError);
  CHECK_THROWS_AS(F::normalize(wick::zeros({2, 3}), 2.0, 2), wick::IndexError);
  CHECK_THROWS_AS(F::cosine_similarity(wick::zeros({2, 3}), wick::zeros({2, 4})), wick::ShapeError);
  CHECK_THROWS_WITH(
      F::cosine_embedding_loss(wick::zeros({2, 3}), wick::zeros({2, 3}), wick::ones({3})),
      Catch::Contains("cosine_embedding_loss") && Catch::Contains("one value per row"));
  CHECK_THROWS_AS(F::margin_ranking_loss(wick::zeros({2}), wick::zeros({2}), wick::zeros({1, 2})),
                  wick::ShapeError);
  CHECK_THROWS_AS(
      F::triplet_margin_loss(wick::zeros({2, 3}), wick::zeros({2, 3}), wick::zeros({3})),
      wick::ShapeError);
  CHECK_THROWS_AS(F::kl_div(Tensor(), wick::zeros({2})), wick::ValueError);
  // cosine_embedding_loss: a 1-D target takes 2-D inputs (torch: "1D target tensor expects 2D
  // input tensors").
  CHECK_THROWS_AS(
      F::cosine_embedding_loss(wick::zeros({2, 3, 4}), wick::zeros({2, 3, 4}), wick::ones({2})),
      wick::ShapeError);
  CHECK_THROWS_AS(F::soft_margin_loss(wick::zeros({2, 3}), wick::zeros({3})), wick::ShapeError);
}
