// transformer.hpp: TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer,
// TransformerDecoder and Transformer, as torch.nn's (1.13): self attention (and, in the
// decoder, attention over the encoder's output) and a feed-forward block, each with dropout, a
// residual and a LayerNorm (after the sum, or before the block with norm_first). Parameter names
// are PyTorch's (self_attn.in_proj_weight, linear1.weight, norm2.bias; layers.0. in the encoder),
// so state dicts carry over. Built from modules built from ops, so it runs on either device. Tested
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

// The decoder layer takes the encoder layer's options (libtorch's class of the same fields).
using TransformerDecoderLayerOptions = TransformerEncoderLayerOptions;

// tgt [T, N, E] and memory [S, N, E] (batch_first: batch first; unbatched: no N): self attention
// over tgt (tgt_mask, tgt_key_padding_mask), attention from tgt to memory (memory_mask,
// memory_key_padding_mask), then the feed-forward block.
class TransformerDecoderLayerImpl : public Module {
 public:
  explicit TransformerDecoderLayerImpl(TransformerDecoderLayerOptions options);
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {}) const;
  const TransformerDecoderLayerOptions& options() const { return options_; }

  MultiheadAttention self_attn{nullptr}, multihead_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr}, dropout3{nullptr};

 private:
  TransformerDecoderLayerOptions options_;
};
WICK_MODULE(TransformerDecoderLayer);

class TransformerDecoderOptions {
 public:
  // num_layers clones of decoder_layer.
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  TransformerDecoderOptions& norm(LayerNorm n) {
    norm_ = std::move(n);
    return *this;
  }
  const TransformerDecoderLayer& decoder_layer() const { return decoder_layer_; }
  int64_t num_layers() const { return num_layers_; }
  const LayerNorm& norm() const { return norm_; }

 private:
  TransformerDecoderLayer decoder_layer_;
  int64_t num_layers_;
  LayerNorm norm_{nullptr};
};

class TransformerDecoderImpl : public Module {
 public:
  explicit TransformerDecoderImpl(const TransformerDecoderOptions& options);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {}) const;

  ModuleList layers{nullptr};
  LayerNorm norm{nullptr};  // empty without one
};
WICK_MODULE(TransformerDecoder);

class TransformerOptions {
 public:
  TransformerOptions(int64_t d_model = 512, int64_t nhead = 8) : layer_(d_model, nhead) {}
  TransformerOptions& num_encoder_layers(int64_t n) {
    num_encoder_layers_ = n;
    return *this;
  }
  TransformerOptions& num_decoder_layers(int64_t n) {
    num_decoder_layers_ = n;
    return *this;
  }
  TransformerOptions& dim_feedforward(int64_t d) {
    layer_.dim_feedforward(d);
    return *this;
  }
  TransformerOptions& dropout(double p) {
    layer_.dropout(p);
    return *this;
  }
  TransformerOptions& activation(Nonlinearity a) {
    layer_.activation(a);
    return *this;
  }
  TransformerOptions& layer_norm_eps(double e) {
    layer_.layer_norm_eps(e);
    return *this;
  }
  TransformerOptions& batch_first(bool on) {
    layer_.batch_first(on);
    return *this;
  }
  TransformerOptions& norm_first(bool on) {
    layer_.norm_first(on);
    return *this;
  }
  // Both stacks' layers are built from these.
  const TransformerEncoderLayerOptions& layer() const { return layer_; }
  int64_t num_encoder_layers() const { return num_encoder_layers_; }
  int64_t num_decoder_layers() const { return num_decoder_layers_; }

 private:
  TransformerEncoderLayerOptions layer_;
  int64_t num_encoder_layers_ = 6, num_decoder_layers_ = 6;
};

// An encoder stack and a decoder stack, each ending in a LayerNorm, as torch.nn.Transformer;
// every parameter of two or more dims starts xavier-uniform (PyTorch's _reset_parameters).
class TransformerImpl : public Module {
 public:
  explicit TransformerImpl(const TransformerOptions& options = {});
  // src [S, N, E], tgt [T, N, E] (or batch first): the decoder's output [T, N, E].
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {},
                 const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& src_key_padding_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {}) const;
  // [size, size] float: 0 on and below the diagonal, -inf above (a causal mask).
  static Tensor generate_square_subsequent_mask(int64_t size, TensorOptions options = {});

  TransformerEncoder encoder{nullptr};
  TransformerDecoder decoder{nullptr};
};
WICK_MODULE(Transformer);

}  // namespace wick::nn
