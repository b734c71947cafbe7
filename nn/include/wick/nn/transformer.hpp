// transformer.hpp: TransformerEncoderLayer and TransformerEncoder, as torch.nn's (1.13): self
// attention and a feed-forward block, each with dropout, a residual and a LayerNorm (after the
// sum, or before the block with norm_first). Parameter names are PyTorch's
// (self_attn.in_proj_weight, linear1.weight, norm2.bias; layers.0. in the encoder), so state
// dicts carry over. Built from modules built from ops, so it runs on either device. Tested
// against python3-torch 1.13 in tests/nn/test_attention.cpp.
#pragma once

#include <functional>
#include <string>

#include "wick/nn/attention.hpp"
#include "wick/nn/layers.hpp"
#include "wick/nn/module.hpp"
#include "wick/nn/rnn.hpp"

namespace wick::nn {

class TransformerEncoderLayerOptions {
 public:
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead)
      : d_model_(d_model), nhead_(nhead) {}
  TransformerEncoderLayerOptions& dim_feedforward(int64_t d) {
    dim_feedforward_ = d;
    return *this;
  }
  TransformerEncoderLayerOptions& dropout(double p) {
    dropout_ = p;
    return *this;
  }
  // kReLU (the default) or kGELU; or any function of one tensor.
  TransformerEncoderLayerOptions& activation(Nonlinearity a) {
    activation_name_ = a;
    activation_ = nullptr;
    return *this;
  }
  TransformerEncoderLayerOptions& activation(std::function<Tensor(const Tensor&)> f) {
    activation_ = std::move(f);
    return *this;
  }
  TransformerEncoderLayerOptions& layer_norm_eps(double e) {
    layer_norm_eps_ = e;
    return *this;
  }
  TransformerEncoderLayerOptions& batch_first(bool on) {
    batch_first_ = on;
    return *this;
  }
  TransformerEncoderLayerOptions& norm_first(bool on) {
    norm_first_ = on;
    return *this;
  }
  int64_t d_model() const { return d_model_; }
  int64_t nhead() const { return nhead_; }
  int64_t dim_feedforward() const { return dim_feedforward_; }
  double dropout() const { return dropout_; }
  Nonlinearity activation_name() const { return activation_name_; }
  const std::function<Tensor(const Tensor&)>& activation() const { return activation_; }
  double layer_norm_eps() const { return layer_norm_eps_; }
  bool batch_first() const { return batch_first_; }
  bool norm_first() const { return norm_first_; }

 private:
  int64_t d_model_, nhead_, dim_feedforward_ = 2048;
  double dropout_ = 0.1;
  Nonlinearity activation_name_ = kReLU;
  std::function<Tensor(const Tensor&)> activation_;  // set: used instead of activation_name_
  double layer_norm_eps_ = 1e-5;
  bool batch_first_ = false, norm_first_ = false;
};

// src [S, N, E] (batch_first: [N, S, E]; unbatched [S, E]); src_mask and src_key_padding_mask
// as MultiheadAttention's attn_mask and key_padding_mask.
class TransformerEncoderLayerImpl : public Module {
 public:
  explicit TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options);
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  Tensor forward(const Tensor& src, const Tensor& src_mask = {},
                 const Tensor& src_key_padding_mask = {}) const;
  const TransformerEncoderLayerOptions& options() const { return options_; }

  MultiheadAttention self_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr};
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr};

 private:
  Tensor self_attention_block(const Tensor& x, const Tensor& mask, const Tensor& padding) const;
  Tensor feed_forward_block(const Tensor& x) const;
  TransformerEncoderLayerOptions options_;
};
WICK_MODULE(TransformerEncoderLayer);

class TransformerEncoderOptions {
 public:
  // num_layers copies of encoder_layer: same options, same initial parameters (its clones).
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  // A LayerNorm applied to the last layer's output.
  TransformerEncoderOptions& norm(LayerNorm n) {
    norm_ = std::move(n);
    return *this;
  }
  const TransformerEncoderLayer& encoder_layer() const { return encoder_layer_; }
  int64_t num_layers() const { return num_layers_; }
  const LayerNorm& norm() const { return norm_; }

 private:
  TransformerEncoderLayer encoder_layer_;
  int64_t num_layers_;
  LayerNorm norm_{nullptr};
};

class TransformerEncoderImpl : public Module {
 public:
  explicit TransformerEncoderImpl(const TransformerEncoderOptions& options);
  Tensor forward(const Tensor& src, const Tensor& mask = {},
                 const Tensor& src_key_padding_mask = {}) const;

  ModuleList layers{nullptr};
  LayerNorm norm{nullptr};  // empty without one
};
WICK_MODULE(TransformerEncoder);

}  // namespace wick::nn
