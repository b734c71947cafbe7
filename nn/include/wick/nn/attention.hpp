// attention.hpp: scaled dot-product attention and nn::MultiheadAttention, as torch.nn's (1.13):
// the same projections, head split, scaling, mask rules, parameter names (in_proj_weight,
// in_proj_bias, out_proj.weight; q/k/v_proj_weight when kdim or vdim differ), and the averaged
// or per-head attention weights. Built from autograd-aware ops (linear, matmul, softmax,
// masked_fill, dropout), so it runs on either device and backpropagates. Tested against
// python3-torch 1.13 in tests/nn/test_attention.cpp.
#pragma once

#include <optional>
#include <string>
#include <tuple>

#include "wick/nn/layers.hpp"
#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

namespace functional {
// softmax(q k^T / sqrt(d) + mask) v over the last two dims of q [..., L, d], k [..., S, d] and
// v [..., S, dv], batch dims broadcasting. attn_mask broadcasts to [..., L, S]: bool (true =
// may attend, as in PyTorch 2: the opposite of MultiheadAttention's masks) or of q's dtype
// (added). is_causal masks j > i (then attn_mask must be
// undefined). dropout_p applies to the weights (it is the caller's to pass 0 in eval, as
// PyTorch 2's F.scaled_dot_product_attention). A row that may attend nowhere is NaN, as in
// PyTorch.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0,
                                    bool is_causal = false);
}  // namespace functional

class MultiheadAttentionOptions {
 public:
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  MultiheadAttentionOptions& dropout(double p) {
    dropout_ = p;
    return *this;
  }
  MultiheadAttentionOptions& bias(bool on) {
    bias_ = on;
    return *this;
  }
  // The feature sizes of key and value when they differ from embed_dim.
  MultiheadAttentionOptions& kdim(int64_t d) {
    kdim_ = d;
    return *this;
  }
  MultiheadAttentionOptions& vdim(int64_t d) {
    vdim_ = d;
    return *this;
  }
  // [N, L, E] inputs and outputs instead of [L, N, E].
  MultiheadAttentionOptions& batch_first(bool on) {
    batch_first_ = on;
    return *this;
  }
  // Not supported: a ValueError at construction when set true.
  MultiheadAttentionOptions& add_bias_kv(bool on) {
    add_bias_kv_ = on;
    return *this;
  }
  MultiheadAttentionOptions& add_zero_attn(bool on) {
    add_zero_attn_ = on;
    return *this;
  }
  int64_t embed_dim() const { return embed_dim_; }
  int64_t num_heads() const { return num_heads_; }
  double dropout() const { return dropout_; }
  bool bias() const { return bias_; }
  int64_t kdim() const { return kdim_; }
  int64_t vdim() const { return vdim_; }
  bool batch_first() const { return batch_first_; }
  bool add_bias_kv() const { return add_bias_kv_; }
  bool add_zero_attn() const { return add_zero_attn_; }

 private:
  int64_t embed_dim_, num_heads_, kdim_, vdim_;
  double dropout_ = 0;
  bool bias_ = true, batch_first_ = false, add_bias_kv_ = false, add_zero_attn_ = false;
};

// What forward takes besides query, key and value (libtorch passes them positionally; these
// are the same arguments by name).
struct MultiheadAttentionForwardOptions {
  // [N, S] (or [S] unbatched): bool, true = this key is padding; or floating, added.
  Tensor key_padding_mask;
  bool need_weights = true;
  // [L, S] or [N * num_heads, L, S]: bool, true = may not attend; or floating, added.
  Tensor attn_mask;
  // Weights averaged over the heads, [N, L, S]; false: [N, num_heads, L, S].
  bool average_attn_weights = true;
};

// query [L, N, E] (batch_first: [N, L, E]; unbatched: [L, E]); key [S, N, kdim] and value
// [S, N, vdim] alike. Returns (output [L, N, E], weights), weights undefined unless
// need_weights. Parameters: in_proj_weight [3E, E] (or q_proj_weight [E, E], k_proj_weight
// [E, kdim], v_proj_weight [E, vdim]) xavier-uniform, in_proj_bias [3E] zeros, and out_proj, a
// Linear(E, E) whose bias starts at zero, as PyTorch's _reset_parameters. Dropout on the
// attention weights in training only.
class MultiheadAttentionImpl : public Module {
 public:
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {},
                                     bool average_attn_weights = true) const;
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const MultiheadAttentionForwardOptions& options) const;
  void reset_parameters();
  const MultiheadAttentionOptions& options() const { return options_; }
  std::string extra_repr() const override;

  // in_proj_weight with equal dims; the three q/k/v weights otherwise (the others undefined).
  Tensor in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight;
  Tensor in_proj_bias;  // undefined without bias
  Linear out_proj{nullptr};

 private:
  MultiheadAttentionOptions options_;
  bool same_dims_;
};
WICK_MODULE(MultiheadAttention);

}  // namespace wick::nn
