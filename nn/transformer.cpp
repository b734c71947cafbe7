// transformer.cpp: the layers as PyTorch 1.13's forward methods (their general path; PyTorch's
// fused inference path computes the same values). The encoder layer:
//   post-norm: x = norm1(x + dropout1(self_attn(x))); x = norm2(x + dropout2(ff(x)))
//   pre-norm:  x = x + dropout1(self_attn(norm1(x))); x = x + dropout2(ff(norm2(x)))
// with ff(x) = linear2(dropout(activation(linear1(x)))); the decoder layer puts attention to
// the memory (dropout2, norm2) between the two, and its feed-forward block uses dropout3, norm3.
#include "wick/nn/transformer.hpp"

#include <cmath>
#include <limits>

#include "wick/autograd.hpp"

#include "init_uniform.hpp"

namespace wick::nn {

namespace {

// linear2(dropout(activation(linear1(x)))), the block both layers share.
Tensor feed_forward(const TransformerEncoderLayerOptions& options, const Linear& linear1,
                    const Dropout& dropout, const Linear& linear2, const Tensor& x) {
  Tensor hidden = linear1(x);
  if (options.activation()) {
    hidden = options.activation()(hidden);
  } else {
    hidden = options.activation_name() == kGELU ? functional::gelu(hidden) : relu(hidden);
  }
  return linear2(dropout(hidden));
}

void check_layer_options(const TransformerEncoderLayerOptions& options, const char* op) {
  WICK_CHECK(options.dim_feedforward() > 0, ValueError, op, "dim_feedforward ",
             options.dim_feedforward(), " must be positive");
  WICK_CHECK(options.activation() || options.activation_name() != kTanh, ValueError, op,
             "activation must be kReLU, kGELU or a function");
}

MultiheadAttention attention_for(const TransformerEncoderLayerOptions& options) {
  return MultiheadAttention(MultiheadAttentionOptions(options.d_model(), options.nhead())
                                .dropout(options.dropout())
                                .batch_first(options.batch_first()));
}

// num_layers clones of prototype (its options, dtype, device and parameter values) into list.
template <typename Layer>
void clone_into(ModuleList& list, const Layer& prototype, int64_t num_layers, const char* op) {
  WICK_CHECK(!prototype.is_empty(), ValueError, op, "the layer is an empty handle");
  // 0 layers is allowed, as torch 1.13: the stack is then its final norm (or the identity).
  WICK_CHECK(num_layers >= 0, ValueError, op, "num_layers ", num_layers, " must be >= 0");
  const std::vector<Tensor> source = prototype->parameters();
  for (int64_t i = 0; i < num_layers; ++i) {
    Layer layer(prototype->options());
    layer->to(source[0].device(), source[0].dtype());
    NoGradGuard no_grad;
    std::vector<Tensor> target = layer->parameters();
    for (size_t p = 0; p < source.size(); ++p) target[p].copy_(source[p]);
    list->push_back(layer);
  }
}

}  // namespace

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options)
    : options_(std::move(options)) {
  check_layer_options(options_, "nn::TransformerEncoderLayer");
  const int64_t d = options_.d_model();
  // PyTorch's registration order, so named_parameters() lists them as its state_dict does.
  self_attn = register_module("self_attn", attention_for(options_));
  linear1 = register_module("linear1", Linear(d, options_.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options_.dropout()));
  linear2 = register_module("linear2", Linear(options_.dim_feedforward(), d));
  norm1 = register_module("norm1", LayerNorm(Shape{d}, options_.layer_norm_eps()));
  norm2 = register_module("norm2", LayerNorm(Shape{d}, options_.layer_norm_eps()));
  dropout1 = register_module("dropout1", Dropout(options_.dropout()));
  dropout2 = register_module("dropout2", Dropout(options_.dropout()));
}

Tensor TransformerEncoderLayerImpl::self_attention_block(const Tensor& x, const Tensor& mask,
                                                         const Tensor& padding) const {
  Tensor attended = std::get<0>(self_attn(x, x, x, padding, /*need_weights=*/false, mask));
  return dropout1(attended);
}

Tensor TransformerEncoderLayerImpl::feed_forward_block(const Tensor& x) const {
  return dropout2(feed_forward(options_, linear1, dropout, linear2, x));
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) const {
  Tensor x = src;
  if (options_.norm_first()) {
    x = x + self_attention_block(norm1(x), src_mask, src_key_padding_mask);
    return x + feed_forward_block(norm2(x));
  }
  x = norm1(x + self_attention_block(x, src_mask, src_key_padding_mask));
  return norm2(x + feed_forward_block(x));
}

TransformerEncoderImpl::TransformerEncoderImpl(const TransformerEncoderOptions& options) {
  layers = register_module("layers", ModuleList());
  clone_into(layers, options.encoder_layer(), options.num_layers(), "nn::TransformerEncoder");
  if (!options.norm().is_empty()) norm = register_module("norm", options.norm());
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& mask,
                                       const Tensor& src_key_padding_mask) const {
  Tensor x = src;
  for (size_t i = 0; i < layers->size(); ++i) {
    x = layers->at<TransformerEncoderLayerImpl>(i).forward(x, mask, src_key_padding_mask);
  }
  return norm.is_empty() ? x : norm(x);
}

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(TransformerDecoderLayerOptions options)
    : options_(std::move(options)) {
  check_layer_options(options_, "nn::TransformerDecoderLayer");
  const int64_t d = options_.d_model();
  self_attn = register_module("self_attn", attention_for(options_));
  multihead_attn = register_module("multihead_attn", attention_for(options_));
  linear1 = register_module("linear1", Linear(d, options_.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options_.dropout()));
  linear2 = register_module("linear2", Linear(options_.dim_feedforward(), d));
  norm1 = register_module("norm1", LayerNorm(Shape{d}, options_.layer_norm_eps()));
  norm2 = register_module("norm2", LayerNorm(Shape{d}, options_.layer_norm_eps()));
  norm3 = register_module("norm3", LayerNorm(Shape{d}, options_.layer_norm_eps()));
  dropout1 = register_module("dropout1", Dropout(options_.dropout()));
  dropout2 = register_module("dropout2", Dropout(options_.dropout()));
  dropout3 = register_module("dropout3", Dropout(options_.dropout()));
}

Tensor TransformerDecoderLayerImpl::forward(const Tensor& tgt, const Tensor& memory,
                                            const Tensor& tgt_mask, const Tensor& memory_mask,
                                            const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask) const {
  auto self_block = [&](const Tensor& x) {
    return dropout1(std::get<0>(self_attn(x, x, x, tgt_key_padding_mask, false, tgt_mask)));
  };
  auto memory_block = [&](const Tensor& x) {
    return dropout2(std::get<0>(
        multihead_attn(x, memory, memory, memory_key_padding_mask, false, memory_mask)));
  };
  auto ff_block = [&](const Tensor& x) {
    return dropout3(feed_forward(options_, linear1, dropout, linear2, x));
  };
  Tensor x = tgt;
  if (options_.norm_first()) {
    x = x + self_block(norm1(x));
    x = x + memory_block(norm2(x));
    return x + ff_block(norm3(x));
  }
  x = norm1(x + self_block(x));
  x = norm2(x + memory_block(x));
  return norm3(x + ff_block(x));
}

TransformerDecoderImpl::TransformerDecoderImpl(const TransformerDecoderOptions& options) {
  layers = register_module("layers", ModuleList());
  clone_into(layers, options.decoder_layer(), options.num_layers(), "nn::TransformerDecoder");
  if (!options.norm().is_empty()) norm = register_module("norm", options.norm());
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory,
                                       const Tensor& tgt_mask, const Tensor& memory_mask,
                                       const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask) const {
  Tensor x = tgt;
  for (size_t i = 0; i < layers->size(); ++i) {
    x = layers->at<TransformerDecoderLayerImpl>(i).forward(
        x, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
  }
  return norm.is_empty() ? x : norm(x);
}

TransformerImpl::TransformerImpl(const TransformerOptions& options) {
  const auto& layer = options.layer();
  const Shape model{layer.d_model()};
  encoder = register_module(
      "encoder", TransformerEncoder(TransformerEncoderOptions(TransformerEncoderLayer(layer),
                                                              options.num_encoder_layers())
                                        .norm(LayerNorm(model, layer.layer_norm_eps()))));
  decoder = register_module(
      "decoder", TransformerDecoder(TransformerDecoderOptions(TransformerDecoderLayer(layer),
                                                              options.num_decoder_layers())
                                        .norm(LayerNorm(model, layer.layer_norm_eps()))));
  // PyTorch's _reset_parameters: xavier_uniform_ on every parameter of 2 or more dims.
  NoGradGuard no_grad;
  for (Tensor p : parameters()) {
    if (p.dim() < 2) continue;
    detail::xavier_uniform(p);
  }
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask,
                                const Tensor& tgt_mask, const Tensor& memory_mask,
                                const Tensor& src_key_padding_mask,
                                const Tensor& tgt_key_padding_mask,
                                const Tensor& memory_key_padding_mask) const {
  const Tensor memory = encoder(src, src_mask, src_key_padding_mask);
  return decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t size, TensorOptions options) {
  WICK_CHECK(size >= 0, ValueError, "nn::Transformer::generate_square_subsequent_mask", "size ",
             size, " must not be negative");
  const Tensor above = triu(ones({size, size}, TensorOptions(kBool).device(options.device())), 1);
  return masked_fill(zeros({size, size}, options), above, -std::numeric_limits<double>::infinity());
}

}  // namespace wick::nn
