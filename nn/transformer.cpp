// transformer.cpp: the encoder layer as PyTorch 1.13's TransformerEncoderLayer.forward (its
// general path; PyTorch's fused inference path computes the same values):
//   post-norm: x = norm1(x + dropout1(self_attn(x))); x = norm2(x + dropout2(ff(x)))
//   pre-norm:  x = x + dropout1(self_attn(norm1(x))); x = x + dropout2(ff(norm2(x)))
// with ff(x) = linear2(dropout(activation(linear1(x)))).
#include "wick/nn/transformer.hpp"

#include "wick/autograd.hpp"

namespace wick::nn {

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options)
    : options_(std::move(options)) {
  WICK_CHECK(options_.dim_feedforward() > 0, ValueError, "nn::TransformerEncoderLayer",
             "dim_feedforward ", options_.dim_feedforward(), " must be positive");
  WICK_CHECK(options_.activation() || options_.activation_name() != kTanh, ValueError,
             "nn::TransformerEncoderLayer", "activation must be kReLU, kGELU or a function");
  const int64_t d = options_.d_model();
  // PyTorch's registration order, so named_parameters() lists them as its state_dict does.
  self_attn =
      register_module("self_attn", MultiheadAttention(MultiheadAttentionOptions(d, options_.nhead())
                                                          .dropout(options_.dropout())
                                                          .batch_first(options_.batch_first())));
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
  Tensor hidden = linear1(x);
  if (options_.activation()) {
    hidden = options_.activation()(hidden);
  } else {
    hidden = options_.activation_name() == kGELU ? functional::gelu(hidden) : relu(hidden);
  }
  return dropout2(linear2(dropout(hidden)));
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
  const TransformerEncoderLayer& prototype = options.encoder_layer();
  WICK_CHECK(!prototype.is_empty(), ValueError, "nn::TransformerEncoder",
             "encoder_layer is an empty handle");
  WICK_CHECK(options.num_layers() >= 1, ValueError, "nn::TransformerEncoder", "num_layers ",
             options.num_layers(), " must be at least 1");
  layers = register_module("layers", ModuleList());
  const std::vector<Tensor> source = prototype->parameters();
  for (int64_t i = 0; i < options.num_layers(); ++i) {
    // A clone: the prototype's options, its dtype and device, its parameters' values.
    TransformerEncoderLayer layer(prototype->options());
    layer->to(source[0].device(), source[0].dtype());
    NoGradGuard no_grad;
    std::vector<Tensor> target = layer->parameters();
    for (size_t p = 0; p < source.size(); ++p) target[p].copy_(source[p]);
    layers->push_back(layer);
  }
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

}  // namespace wick::nn
