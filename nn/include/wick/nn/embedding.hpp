// embedding.hpp: Embedding and functional::embedding, as torch.nn.Embedding: a lookup table of
// num_embeddings rows of embedding_dim values; an int64 input of any shape [*] gives [*, dim],
// row input[...] of the table. Built on wick::index_select (one gather kernel forward; its
// gradient is index_add, which sums repeated indices in input order on every device, so the
// backward is deterministic). Tested against python3-torch 1.13 in tests/nn/test_embedding.cpp.
// Also functional::one_hot, the dense form of class indices.
#pragma once

#include <optional>

#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

// padding_idx: that row gets no gradient (its output is the row as it is: zeros at
// construction). max_norm: before the lookup, every row the input names whose norm_type-norm
// (0: the count of nonzeros, inf and -inf: the largest and smallest magnitude) exceeds max_norm
// is multiplied in place by max_norm / (norm + 1e-7), as PyTorch's embedding_renorm_; the
// distinct indices are read on the host for that (a synchronisation on a GPU). scale_grad_by_freq
// and sparse gradients are not supported (a ValueError when set), rather than ignored.
class EmbeddingFuncOptions {
 public:
  EmbeddingFuncOptions& padding_idx(std::optional<int64_t> p) {
    padding_idx_ = p;
    return *this;
  }
  EmbeddingFuncOptions& max_norm(std::optional<double> m) {
    max_norm_ = m;
    return *this;
  }
  EmbeddingFuncOptions& norm_type(double p) {
    norm_type_ = p;
    return *this;
  }
  EmbeddingFuncOptions& scale_grad_by_freq(bool on) {
    scale_grad_by_freq_ = on;
    return *this;
  }
  EmbeddingFuncOptions& sparse(bool on) {
    sparse_ = on;
    return *this;
  }
  std::optional<int64_t> padding_idx() const { return padding_idx_; }
  std::optional<double> max_norm() const { return max_norm_; }
  double norm_type() const { return norm_type_; }
  bool scale_grad_by_freq() const { return scale_grad_by_freq_; }
  bool sparse() const { return sparse_; }

 private:
  std::optional<int64_t> padding_idx_;
  std::optional<double> max_norm_;
  double norm_type_ = 2.0;
  bool scale_grad_by_freq_ = false;
  bool sparse_ = false;
};

namespace functional {
using EmbeddingFuncOptions = nn::EmbeddingFuncOptions;  // libtorch's F::EmbeddingFuncOptions
// input: int64 indices of any shape, each in [0, weight.size(0)) (else an IndexError naming
// the range); weight: [num_embeddings, embedding_dim]. padding_idx may be negative (counted
// from the end), as PyTorch's. With max_norm the weight is changed in place (not recorded).
Tensor embedding(const Tensor& input, const Tensor& weight,
                 const EmbeddingFuncOptions& options = {});
// torch.nn.functional.one_hot: an int64 tensor of class indices [*] gives int64 [*, C], 1 at
// each index and 0 elsewhere. num_classes = -1 takes C = max + 1 (an empty tensor then is a
// ValueError, as in PyTorch); a negative class or one >= C is an IndexError. Reading the
// values' range is one reduction pair and one copy to the host (a synchronisation on a GPU).
Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);
}  // namespace functional

class EmbeddingOptions {
 public:
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  EmbeddingOptions& padding_idx(std::optional<int64_t> p) {
    func_.padding_idx(p);
    return *this;
  }
  EmbeddingOptions& max_norm(std::optional<double> m) {
    func_.max_norm(m);
    return *this;
  }
  EmbeddingOptions& norm_type(double p) {
    func_.norm_type(p);
    return *this;
  }
  EmbeddingOptions& scale_grad_by_freq(bool on) {
    func_.scale_grad_by_freq(on);
    return *this;
  }
  EmbeddingOptions& sparse(bool on) {
    func_.sparse(on);
    return *this;
  }
  // A given initial table instead of N(0, 1) draws (libtorch's _weight): the module's weight
  // shares its storage, as in PyTorch.
  EmbeddingOptions& _weight(Tensor w) {
    weight_ = std::move(w);
    return *this;
  }
  int64_t num_embeddings() const { return num_embeddings_; }
  int64_t embedding_dim() const { return embedding_dim_; }
  std::optional<int64_t> padding_idx() const { return func_.padding_idx(); }
  std::optional<double> max_norm() const { return func_.max_norm(); }
  double norm_type() const { return func_.norm_type(); }
  bool scale_grad_by_freq() const { return func_.scale_grad_by_freq(); }
  bool sparse() const { return func_.sparse(); }
  const Tensor& _weight() const { return weight_; }
  const EmbeddingFuncOptions& func_options() const { return func_; }

 private:
  int64_t num_embeddings_, embedding_dim_;
  EmbeddingFuncOptions func_;
  Tensor weight_;
};

// from_pretrained: freeze (default true) makes the table a parameter that does not require
// grad, as PyTorch's.
class EmbeddingFromPretrainedOptions {
 public:
  EmbeddingFromPretrainedOptions& freeze(bool on) {
    freeze_ = on;
    return *this;
  }
  EmbeddingFromPretrainedOptions& padding_idx(std::optional<int64_t> p) {
    func_.padding_idx(p);
    return *this;
  }
  EmbeddingFromPretrainedOptions& max_norm(std::optional<double> m) {
    func_.max_norm(m);
    return *this;
  }
  EmbeddingFromPretrainedOptions& norm_type(double p) {
    func_.norm_type(p);
    return *this;
  }
  // As libtorch's; true is refused by the forward (see EmbeddingFuncOptions).
  EmbeddingFromPretrainedOptions& scale_grad_by_freq(bool on) {
    func_.scale_grad_by_freq(on);
    return *this;
  }
  EmbeddingFromPretrainedOptions& sparse(bool on) {
    func_.sparse(on);
    return *this;
  }
  bool freeze() const { return freeze_; }
  const EmbeddingFuncOptions& func_options() const { return func_; }

 private:
  bool freeze_ = true;
  EmbeddingFuncOptions func_;
};

// The parameter weight [num_embeddings, embedding_dim], drawn from N(0, 1) with wick::randn
// (so wick::manual_seed repeats it), the padding_idx row then zeroed, as PyTorch's
// reset_parameters(). float32 on the CPU; use Module::to to move or cast.
class EmbeddingImpl : public Module {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options);
  Tensor forward(const Tensor& input) const;
  // Fresh N(0, 1) rows, the padding row zeroed.
  void reset_parameters();
  const EmbeddingOptions& options() const { return options_; }
  std::string extra_repr() const override;

  Tensor weight;

 private:
  void reset_parameters_padding();
  EmbeddingOptions options_;
};

class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  // A module whose weight is `embeddings` ([num, dim]; storage shared, as
  // torch.nn.Embedding.from_pretrained).
  static Embedding from_pretrained(const Tensor& embeddings,
                                   const EmbeddingFromPretrainedOptions& options = {});
};

}  // namespace wick::nn
