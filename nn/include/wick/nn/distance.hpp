// distance.hpp: torch.nn.functional's normalize, cosine_similarity and pairwise_distance, the
// CosineSimilarity and PairwiseDistance modules, the margin losses (MarginRankingLoss,
// TripletMarginLoss, CosineEmbeddingLoss, HingeEmbeddingLoss, SoftMarginLoss), and the
// divergence of distributions KLDivLoss. Composites of autograd-aware
// ops (norms through wick::norm, whose square root is guarded at 0, so a zero vector has a finite
// gradient), checked against python3-torch 1.13 in tests/nn/test_distance.cpp.
#pragma once

#include <optional>
#include <string>

#include "wick/nn/loss.hpp"

namespace wick::nn {

namespace functional {
// x / max(||x||_p, eps) along dim.
Tensor normalize(const Tensor& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12);
// The cosine of the angle between x1 and x2 along dim (they broadcast):
// sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)), PyTorch 1.13's form (each norm clamped
// apart).
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
// ||x1 - x2 + eps||_p over the last dim (p = 0 counts nonzeros, inf is the largest magnitude).
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6,
                         bool keepdim = false);
}  // namespace functional

class CosineSimilarityImpl : public Module {
 public:
  explicit CosineSimilarityImpl(int64_t dim = 1, double eps = 1e-8) : dim_(dim), eps_(eps) {}
  Tensor forward(const Tensor& x1, const Tensor& x2) const {
    return functional::cosine_similarity(x1, x2, dim_, eps_);
  }

 private:
  int64_t dim_;
  double eps_;
};
WICK_MODULE(CosineSimilarity);

class PairwiseDistanceImpl : public Module {
 public:
  explicit PairwiseDistanceImpl(double p = 2.0, double eps = 1e-6, bool keepdim = false)
      : p_(p), eps_(eps), keepdim_(keepdim) {}
  Tensor forward(const Tensor& x1, const Tensor& x2) const {
    return functional::pairwise_distance(x1, x2, p_, eps_, keepdim_);
  }

 private:
  double p_, eps_;
  bool keepdim_;
};
WICK_MODULE(PairwiseDistance);

// max(0, -y (x1 - x2) + margin), y of +-1 saying which input should rank higher.
class MarginRankingLossOptions {
 public:
  MarginRankingLossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  MarginRankingLossOptions& margin(double m) {
    margin_ = m;
    return *this;
  }
  MarginRankingLossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  double margin() const { return margin_; }
  Reduction reduction() const { return reduction_; }

 private:
  Reduction reduction_;
  double margin_ = 0.0;
};

// max(0, margin + d(anchor, positive) - d(anchor, negative)) with d = pairwise_distance(p, eps);
// swap: d(anchor, negative) is replaced by d(positive, negative) where that is smaller.
class TripletMarginLossOptions {
 public:
  TripletMarginLossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TripletMarginLossOptions& margin(double m) {
    margin_ = m;
    return *this;
  }
  TripletMarginLossOptions& p(double p) {
    p_ = p;
    return *this;
  }
  TripletMarginLossOptions& eps(double e) {
    eps_ = e;
    return *this;
  }
  TripletMarginLossOptions& swap(bool s) {
    swap_ = s;
    return *this;
  }
  TripletMarginLossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  double margin() const { return margin_; }
  double p() const { return p_; }
  double eps() const { return eps_; }
  bool swap() const { return swap_; }
  Reduction reduction() const { return reduction_; }

 private:
  Reduction reduction_;
  double margin_ = 1.0, p_ = 2.0, eps_ = 1e-6;
  bool swap_ = false;
};

// A margin and a reduction: CosineEmbeddingLoss (margin 0 by default) and HingeEmbeddingLoss
// (margin 1 by default).
class MarginLossOptions {
 public:
  MarginLossOptions(Reduction reduction = kMean) : reduction_(reduction) {}  // NOLINT
  MarginLossOptions& margin(double m) {
    margin_ = m;
    return *this;
  }
  MarginLossOptions& reduction(Reduction r) {
    reduction_ = r;
    return *this;
  }
  std::optional<double> margin() const { return margin_; }
  Reduction reduction() const { return reduction_; }

 private:
  Reduction reduction_;
  std::optional<double> margin_;  // unset: the loss's default
};

// KLDivLoss's reductions: PyTorch's three and batchmean (the sum over the batch size, the
// mathematically right one for KL divergence; mean divides by every element).
enum class KLDivReduction { None, BatchMean, Sum, Mean };
inline constexpr KLDivReduction kBatchMean = KLDivReduction::BatchMean;

// input holds log-probabilities; target probabilities (log-probabilities with log_target).
// Pointwise target (log target - input), 0 where target is 0 (xlogy); with log_target,
// exp(target) (target - input).
class KLDivLossOptions {
 public:
  KLDivLossOptions(KLDivReduction reduction = KLDivReduction::Mean)  // NOLINT: implicit
      : reduction_(reduction) {}
  KLDivLossOptions(Reduction reduction);  // NOLINT: kNone, kMean, kSum as the others'
  KLDivLossOptions& reduction(KLDivReduction r) {
    reduction_ = r;
    return *this;
  }
  KLDivLossOptions& log_target(bool l) {
    log_target_ = l;
    return *this;
  }
  KLDivReduction reduction() const { return reduction_; }
  bool log_target() const { return log_target_; }

 private:
  KLDivReduction reduction_;
  bool log_target_ = false;
};

namespace functional {
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivLossOptions& options = {});
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossOptions& options = {});
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossOptions& options = {});
// y = 1: 1 - cos(x1, x2); y = -1: max(0, cos(x1, x2) - margin), cos along dim 1 of [N, D] inputs
// (dim 0 of [D] ones with a 0-d y) with PyTorch's 1e-12 added to each squared norm.
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const MarginLossOptions& options = {});
// y = 1: x; y = -1: max(0, margin - x); other labels add both.
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const MarginLossOptions& options = {});
// log(1 + exp(-y x)), computed without overflow.
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean);
}  // namespace functional

class MarginRankingLossImpl : public Module {
 public:
  explicit MarginRankingLossImpl(MarginRankingLossOptions options = {}) : options_(options) {}
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) const {
    return functional::margin_ranking_loss(input1, input2, target, options_);
  }
  std::string extra_repr() const override;

 private:
  MarginRankingLossOptions options_;
};
WICK_MODULE(MarginRankingLoss);

class TripletMarginLossImpl : public Module {
 public:
  explicit TripletMarginLossImpl(TripletMarginLossOptions options = {}) : options_(options) {}
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) const {
    return functional::triplet_margin_loss(anchor, positive, negative, options_);
  }
  std::string extra_repr() const override;

 private:
  TripletMarginLossOptions options_;
};
WICK_MODULE(TripletMarginLoss);

class CosineEmbeddingLossImpl : public Module {
 public:
  explicit CosineEmbeddingLossImpl(MarginLossOptions options = {}) : options_(options) {}
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) const {
    return functional::cosine_embedding_loss(input1, input2, target, options_);
  }

 private:
  MarginLossOptions options_;
};
WICK_MODULE(CosineEmbeddingLoss);

class HingeEmbeddingLossImpl : public Module {
 public:
  explicit HingeEmbeddingLossImpl(MarginLossOptions options = {}) : options_(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) const {
    return functional::hinge_embedding_loss(input, target, options_);
  }

 private:
  MarginLossOptions options_;
};
WICK_MODULE(HingeEmbeddingLoss);

class SoftMarginLossImpl : public Module {
 public:
  explicit SoftMarginLossImpl(Reduction reduction = kMean) : reduction_(reduction) {}
  Tensor forward(const Tensor& input, const Tensor& target) const {
    return functional::soft_margin_loss(input, target, reduction_);
  }

 private:
  Reduction reduction_;
};
WICK_MODULE(SoftMarginLoss);

class KLDivLossImpl : public Module {
 public:
  explicit KLDivLossImpl(KLDivLossOptions options = {}) : options_(options) {}
  Tensor forward(const Tensor& input, const Tensor& target) const {
    return functional::kl_div(input, target, options_);
  }
  std::string extra_repr() const override;

 private:
  KLDivLossOptions options_;
};
WICK_MODULE(KLDivLoss);

}  // namespace wick::nn
