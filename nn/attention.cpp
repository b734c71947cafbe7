// attention.cpp: attention as PyTorch 1.13's multi_head_attention_forward computes it. The
// heads are a reshape, not a loop: [L, N, E] -> [L, N * H, d] -> [N * H, L, d], so every head
// of every sample is one batch of one batched matmul. q is scaled by 1 / sqrt(d) before the
// product (PyTorch's order); a mask is turned into an additive one (0 or -inf) and added to
// the scores before the softmax.
#include "wick/nn/attention.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "wick/autograd.hpp"

#include "init_uniform.hpp"

namespace wick::nn {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// A bool mask as 0 / -inf in dtype; a floating one as it is (of dtype, else a DtypeError).
Tensor additive_mask(const char* op, const char* what, const Tensor& mask, Dtype dtype) {
  if (mask.dtype() == kBool) {
    return masked_fill(zeros(mask.sizes(), TensorOptions(dtype).device(mask.device())), mask,
                       kNegInf);
  }
  WICK_CHECK(mask.dtype() == dtype, DtypeError, op, what, " ", describe(mask),
             " must be bool or of the query's dtype, ", dtype);
  return mask;
}

// softmax(q / sqrt(d) k^T + mask) over the last dim, then dropout: the attention weights.
Tensor attention_weights(const Tensor& q, const Tensor& k, const Tensor& mask, double dropout_p) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  Tensor scores = matmul(q * scale, k.transpose(-2, -1));
  if (mask.defined()) scores = mask + scores;
  Tensor weights = softmax(scores, -1);
  if (dropout_p > 0) weights = functional::dropout(weights, dropout_p, true);
  return weights;
}

}  // namespace

Tensor functional::scaled_dot_product_attention(const Tensor& query, const Tensor& key,
                                                const Tensor& value, const Tensor& attn_mask,
                                                double dropout_p, bool is_causal) {
  const char* op = "scaled_dot_product_attention";
  WICK_CHECK(query.defined() && key.defined() && value.defined(), ValueError, op,
             "query, key and value must be defined tensors");
  WICK_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, ShapeError, op, "query ",
             describe(query), ", key ", describe(key), " and value ", describe(value),
             " must have 2 or more dims ([..., L, d], [..., S, d], [..., S, dv])");
  WICK_CHECK(query.size(-1) == key.size(-1) && key.size(-2) == value.size(-2), ShapeError, op,
             "query ", describe(query), " and key ", describe(key),
             " must end in the same d, and key and value ", describe(value),
             " must have the same S");
  WICK_CHECK(query.is_floating_point(), DtypeError, op, "query ", describe(query),
             " must be floating point");
  WICK_CHECK(dropout_p >= 0 && dropout_p <= 1, ValueError, op, "dropout_p ", dropout_p,
             " must be in [0, 1]");
  WICK_CHECK(!(is_causal && attn_mask.defined()), ValueError, op,
             "is_causal and an explicit attn_mask cannot both be given");
  Tensor mask;
  if (is_causal) {
    const int64_t l = query.size(-2), s = key.size(-2);
    const Tensor allowed = tril(ones({l, s}, TensorOptions(kBool).device(query.device())));
    mask = additive_mask(op, "causal mask", logical_not(allowed), query.dtype());
  } else if (attn_mask.defined()) {
    // Here a bool mask says where attention may go (PyTorch 2's function and 1.13's private
    // _scaled_dot_product_attention), the opposite of MultiheadAttention's masks.
    mask = additive_mask(op, "attn_mask",
                         attn_mask.dtype() == kBool ? logical_not(attn_mask) : attn_mask,
                         query.dtype());
  }
  return matmul(attention_weights(query, key, mask, dropout_p), value);
}

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options)
    : options_(options) {
  const char* op = "nn::MultiheadAttention";
  const int64_t e = options.embed_dim(), heads = options.num_heads();
  WICK_CHECK(e > 0 && heads > 0 && e % heads == 0, ValueError, op, "embed_dim ", e,
             " must be a positive multiple of num_heads ", heads);
  WICK_CHECK(options.kdim() > 0 && options.vdim() > 0, ValueError, op, "kdim ", options.kdim(),
             " and vdim ", options.vdim(), " must be positive");
  WICK_CHECK(options.dropout() >= 0 && options.dropout() <= 1, ValueError, op, "dropout ",
             options.dropout(), " must be in [0, 1]");
  WICK_CHECK(!options.add_bias_kv() && !options.add_zero_attn(), ValueError, op,
             "add_bias_kv and add_zero_attn are not supported");
  same_dims_ = options.kdim() == e && options.vdim() == e;
  if (same_dims_) {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * e, e}));
  } else {
    q_proj_weight = register_parameter("q_proj_weight", empty({e, e}));
    k_proj_weight = register_parameter("k_proj_weight", empty({e, options.kdim()}));
    v_proj_weight = register_parameter("v_proj_weight", empty({e, options.vdim()}));
  }
  if (options.bias()) in_proj_bias = register_parameter("in_proj_bias", empty({3 * e}));
  out_proj = register_module("out_proj", Linear(e, e, options.bias()));
  reset_parameters();
}

void MultiheadAttentionImpl::reset_parameters() {
  NoGradGuard no_grad;
  if (same_dims_) {
    detail::xavier_uniform(in_proj_weight);
  } else {
    detail::xavier_uniform(q_proj_weight);
    detail::xavier_uniform(k_proj_weight);
    detail::xavier_uniform(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    Tensor bias = in_proj_bias;
    bias.zero_();
    Tensor out_bias = out_proj->bias;
    out_bias.zero_();
  }
}

std::string MultiheadAttentionImpl::extra_repr() const {
  std::ostringstream out;
  out << "embed_dim=" << options_.embed_dim() << ", num_heads=" << options_.num_heads();
  if (options_.dropout() != 0) out << ", dropout=" << options_.dropout();
  if (!options_.bias()) out << ", bias=False";
  if (!same_dims_) out << ", kdim=" << options_.kdim() << ", vdim=" << options_.vdim();
  if (options_.batch_first()) out << ", batch_first=True";
  return out.str();
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(
    const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
    bool need_weights, const Tensor& attn_mask, bool average_attn_weights) const {
  return forward(query, key, value,
                 MultiheadAttentionForwardOptions{key_padding_mask, need_weights, attn_mask,
                                                  average_attn_weights});
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const MultiheadAttentionForwardOptions& options) const {
  const char* op = "nn::MultiheadAttention";
  const int64_t e = options_.embed_dim(), heads = options_.num_heads(), head_dim = e / heads;
  WICK_CHECK(query.defined() && key.defined() && value.defined(), ValueError, op,
             "query, key and value must be defined tensors");
  const bool batched = query.dim() == 3;
  WICK_CHECK(
      (query.dim() == 2 || batched) && key.dim() == query.dim() && value.dim() == query.dim(),
      ShapeError, op, "query ", describe(query), ", key ", describe(key), " and value ",
      describe(value), " must all be 3-D (batched) or all 2-D (unbatched)");
  WICK_CHECK(
      query.size(-1) == e && key.size(-1) == options_.kdim() && value.size(-1) == options_.vdim(),
      ShapeError, op, "query ", describe(query), ", key ", describe(key), " and value ",
      describe(value), " must end in embed_dim ", e, ", kdim ", options_.kdim(), " and vdim ",
      options_.vdim());
  const Tensor& weight = same_dims_ ? in_proj_weight : q_proj_weight;
  for (const Tensor* t : {&query, &key, &value}) {
    WICK_CHECK(t->dtype() == weight.dtype() && t->device() == weight.device(), DtypeError, op,
               "input ", describe(*t), " must have the parameters' dtype and device (",
               weight.dtype(), ", ", weight.device(), ")");
  }
  // To [L, N, E].
  auto seq_first = [&](const Tensor& t) {
    return !batched ? t.unsqueeze(1) : options_.batch_first() ? t.transpose(0, 1) : t;
  };
  const Tensor q_in = seq_first(query), k_in = seq_first(key), v_in = seq_first(value);
  const int64_t tgt_len = q_in.size(0), batch = q_in.size(1), src_len = k_in.size(0);
  WICK_CHECK(k_in.size(0) == v_in.size(0) && k_in.size(1) == batch && v_in.size(1) == batch,
             ShapeError, op, "key ", describe(key), " and value ", describe(value),
             " must have the same sequence length, and the batch of query ", describe(query));
  // The projections: rows [0, E), [E, 2E), [2E, 3E) of the packed weight and bias.
  auto bias_part = [&](int64_t i) {
    return in_proj_bias.defined() ? in_proj_bias.narrow(0, i * e, e) : Tensor();
  };
  const Tensor w_q = same_dims_ ? in_proj_weight.narrow(0, 0, e) : q_proj_weight;
  const Tensor w_k = same_dims_ ? in_proj_weight.narrow(0, e, e) : k_proj_weight;
  const Tensor w_v = same_dims_ ? in_proj_weight.narrow(0, 2 * e, e) : v_proj_weight;
  // [len, N, E] -> [N * H, len, d]: every head of every sample a batch of the products.
  auto split_heads = [&](const Tensor& t, int64_t len) {
    return t.reshape({len, batch * heads, head_dim}).transpose(0, 1);
  };
  const Tensor q = split_heads(functional::linear(q_in, w_q, bias_part(0)), tgt_len);
  const Tensor k = split_heads(functional::linear(k_in, w_k, bias_part(1)), src_len);
  const Tensor v = split_heads(functional::linear(v_in, w_v, bias_part(2)), src_len);

  Tensor mask;  // additive, broadcasting to [N * H, L, S]
  if (options.attn_mask.defined()) {
    const Tensor& m = options.attn_mask;
    const bool ok = (m.dim() == 2 && m.sizes() == Shape{tgt_len, src_len}) ||
                    (m.dim() == 3 && m.sizes() == Shape{batch * heads, tgt_len, src_len});
    WICK_CHECK(ok, ShapeError, op, "attn_mask ", describe(m), " must be [", tgt_len, ", ", src_len,
               "] or [", batch * heads, ", ", tgt_len, ", ", src_len, "]");
    mask = additive_mask(op, "attn_mask", m, q.dtype());
    if (m.dim() == 2) mask = mask.unsqueeze(0);
  }
  if (options.key_padding_mask.defined()) {
    const Tensor& m = options.key_padding_mask;
    const Shape want = batched ? Shape{batch, src_len} : Shape{src_len};
    WICK_CHECK(m.sizes() == want, ShapeError, op, "key_padding_mask ", describe(m), " must be ",
               want);
    const Tensor padding = additive_mask(op, "key_padding_mask", m, q.dtype())
                               .reshape({batch, 1, 1, src_len})
                               .expand({batch, heads, 1, src_len})
                               .reshape({batch * heads, 1, src_len});
    mask = mask.defined() ? mask + padding : padding;
  }
  const double p = is_training() ? options_.dropout() : 0.0;
  const Tensor weights = attention_weights(q, k, mask, p);  // [N * H, L, S]
  const Tensor heads_out = matmul(weights, v);              // [N * H, L, d]
  const Tensor joined = heads_out.transpose(0, 1).reshape({tgt_len, batch, e});
  Tensor output = out_proj(joined);
  output = !batched ? output.squeeze(1) : options_.batch_first() ? output.transpose(0, 1) : output;
  Tensor returned_weights;
  if (options.need_weights) {
    returned_weights = weights.reshape({batch, heads, tgt_len, src_len});
    if (options.average_attn_weights) returned_weights = returned_weights.mean(1);
    if (!batched) returned_weights = returned_weights.squeeze(0);
  }
  return {output, returned_weights};
}

}  // namespace wick::nn
