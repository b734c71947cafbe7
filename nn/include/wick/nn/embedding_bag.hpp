// embedding_bag.hpp: EmbeddingBag and functional::embedding_bag, as libtorch's: the sum, mean
// or max of each bag of embedding rows, without building the [*, dim] lookup first. Bags are
// the rows of a 2-D input, or the runs of a 1-D input that offsets start. Built on embedding
// (index_select), index_add (sum and mean, in input order: the same bits on every run) and, for
// max, the bag's rows gathered side by side and the first largest chosen, so it runs on both
// devices and is differentiable. The bag layout (offsets, padding entries) is read on the host
// (a synchronisation on a GPU). Tested in tests/nn/test_embedding_bag.cpp against torch 1.13.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "wick/nn/embedding.hpp"
#include "wick/nn/loss.hpp"
#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

enum class EmbeddingBagMode { Sum, Mean, Max };
inline constexpr EmbeddingBagMode kMax = EmbeddingBagMode::Max;

#define WICK_BAG_OPTION(Class, type, name) \
  Class& name(const type& v) {             \
    name##_ = v;                           \
    return *this;                          \
  }                                        \
  const type& name() const { return name##_; }

// F::embedding_bag's options. mode: kSum, kMean (the default) or kMax. offsets: with a 1-D
// input, where each bag starts (the first 0, non-decreasing; with include_last_offset the last
// entry is the end of the last bag). per_sample_weights: one weight per input entry, kSum only.
// padding_idx: entries equal to it are left out (and not counted by kMean). max_norm and
// norm_type: as embedding's. scale_grad_by_freq and sparse are not supported (ValueError).
class EmbeddingBagFuncOptions {
 public:
  WICK_BAG_OPTION(EmbeddingBagFuncOptions, Tensor, offsets)
  WICK_BAG_OPTION(EmbeddingBagFuncOptions, std::optional<double>, max_norm)
  WICK_BAG_OPTION(EmbeddingBagFuncOptions, double, norm_type)
  WICK_BAG_OPTION(EmbeddingBagFuncOptions, bool, scale_grad_by_freq)
  WICK_BAG_OPTION(EmbeddingBagFuncOptions, EmbeddingBagMode, mode)
  WICK_BAG_OPTION(EmbeddingBagFuncOptions, bool, sparse)
  WICK_BAG_OPTION(EmbeddingBagFuncOptions, Tensor, per_sample_weights)
  WICK_BAG_OPTION(EmbeddingBagFuncOptions, bool, include_last_offset)
  WICK_BAG_OPTION(EmbeddingBagFuncOptions, std::optional<int64_t>, padding_idx)
  // libtorch spells the modes kSum and kMean, the reductions' names.
  EmbeddingBagFuncOptions& mode(Reduction r);

 private:
  Tensor offsets_;
  std::optional<double> max_norm_;
  double norm_type_ = 2.0;
  bool scale_grad_by_freq_ = false;
  EmbeddingBagMode mode_ = EmbeddingBagMode::Mean;
  bool sparse_ = false;
  Tensor per_sample_weights_;
  bool include_last_offset_ = false;
  std::optional<int64_t> padding_idx_;
};

class EmbeddingBagOptions {
 public:
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  WICK_BAG_OPTION(EmbeddingBagOptions, int64_t, num_embeddings)
  WICK_BAG_OPTION(EmbeddingBagOptions, int64_t, embedding_dim)
  WICK_BAG_OPTION(EmbeddingBagOptions, std::optional<double>, max_norm)
  WICK_BAG_OPTION(EmbeddingBagOptions, double, norm_type)
  WICK_BAG_OPTION(EmbeddingBagOptions, bool, scale_grad_by_freq)
  WICK_BAG_OPTION(EmbeddingBagOptions, EmbeddingBagMode, mode)
  WICK_BAG_OPTION(EmbeddingBagOptions, bool, sparse)
  WICK_BAG_OPTION(EmbeddingBagOptions, Tensor, _weight)
  WICK_BAG_OPTION(EmbeddingBagOptions, bool, include_last_offset)
  WICK_BAG_OPTION(EmbeddingBagOptions, std::optional<int64_t>, padding_idx)
  EmbeddingBagOptions& mode(Reduction r);

 private:
  int64_t num_embeddings_, embedding_dim_;
  std::optional<double> max_norm_;
  double norm_type_ = 2.0;
  bool scale_grad_by_freq_ = false;
  EmbeddingBagMode mode_ = EmbeddingBagMode::Mean;
  bool sparse_ = false;
  Tensor _weight_;
  bool include_last_offset_ = false;
  std::optional<int64_t> padding_idx_;
};
#undef WICK_BAG_OPTION

namespace functional {
// input: int64 [B, N] (B bags of N) or [T] with offsets [B] (or [B + 1] with
// include_last_offset); weight [num_embeddings, dim], floating. Gives [B, dim]; an empty bag
// gives zeros. Indices outside [0, num_embeddings) are an IndexError.
Tensor embedding_bag(const Tensor& input, const Tensor& weight,
                     const EmbeddingBagFuncOptions& options = {});
}  // namespace functional

// weight [num_embeddings, embedding_dim] from N(0, 1) (wick::randn), the padding row zeroed,
// as PyTorch's reset_parameters(); or _weight as given.
class EmbeddingBagImpl : public Module {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(EmbeddingBagOptions options);
  Tensor forward(const Tensor& input, const Tensor& offsets = {},
                 const Tensor& per_sample_weights = {}) const;
  void reset_parameters();
  const EmbeddingBagOptions& options() const { return options_; }
  std::string extra_repr() const override;

  Tensor weight;

 private:
  EmbeddingBagOptions options_;
};
WICK_MODULE(EmbeddingBag);

}  // namespace wick::nn
