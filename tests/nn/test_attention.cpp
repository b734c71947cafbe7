// test_attention.cpp: MultiheadAttention, the Transformer encoder and decoder (layers and
// stacks) and nn::Transformer against
// torch.nn's (python3-torch 1.13, float64; attention_golden.inc from make_attention_golden.py):
// outputs, attention weights, and the gradients of the inputs and every parameter, in float64
// and float32; scaled_dot_product_attention; gradcheck; names; errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>
#include <wick/wick.hpp>

#include "golden_check.hpp"

namespace nn = wick::nn;
using wick::Tensor;

namespace {

struct AttentionCase {
  std::string name, kind;
  std::vector<int64_t> config;
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<std::vector<double>> inputs;
  int padding_kind;
  std::vector<int64_t> padding_shape;
  std::vector<double> padding;
  int mask_kind;
  std::vector<int64_t> mask_shape;
  std::vector<double> mask;
  std::vector<std::vector<double>> params;
  std::vector<double> seed, seed_weights, out, weights;
  std::vector<int64_t> weights_shape;
  std::vector<std::vector<double>> grad_inputs, grad_params;
};

#include "attention_golden.inc"

// A golden mask: undefined (kind 0), bool (1) or of dtype (2).
Tensor mask_of(int kind, const std::vector<int64_t>& shape, const std::vector<double>& values,
               wick::Dtype dtype) {
  if (kind == 0) return Tensor();
  const Tensor t = wick::tensor(values, wick::Shape(shape), wick::TensorOptions(wick::kFloat64));
  return kind == 1 ? wick::ne(t, 0.0) : t.to(dtype);
}

// An encoder or decoder layer's options from a golden config {E, heads, feed-forward,
// norm_first, gelu, batch_first, ...} (the decoder's options are the encoder's class).
nn::TransformerEncoderLayerOptions layer_options_of(const std::vector<int64_t>& k) {
  return nn::TransformerEncoderLayerOptions(k[0], k[1])
      .dim_feedforward(k[2])
      .dropout(0.0)
      .norm_first(k[3] != 0)
      .activation(k[4] != 0 ? nn::kGELU : nn::kReLU)
      .batch_first(k[5] != 0);
}

void check_case(const AttentionCase& c, wick::Dtype dtype, double rel) {
  INFO("case " << c.name << " in " << dtype);
  const auto opts = wick::TensorOptions(dtype);
  const std::vector<int64_t>& k = c.config;
  std::shared_ptr<nn::Module> module;
  std::function<std::tuple<Tensor, Tensor>(const std::vector<Tensor>&, const Tensor&,
                                           const Tensor&)>
      run;
  if (c.kind == "MHA") {
    nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(k[0], k[1])
                                   .kdim(k[2])
                                   .vdim(k[3])
                                   .bias(k[4] != 0)
                                   .batch_first(k[5] != 0));
    const bool average = k[6] != 0, need_weights = k[7] != 0;
    module = mha.ptr();
    run = [=](const std::vector<Tensor>& in, const Tensor& padding, const Tensor& mask) {
      return mha(in[0], in[1], in[2], padding, need_weights, mask, average);
    };
  } else if (c.kind == "transformer") {
    nn::Transformer model(nn::TransformerOptions(k[0], k[1])
                              .dim_feedforward(k[2])
                              .dropout(0.0)
                              .num_encoder_layers(k[6])
                              .num_decoder_layers(k[7]));
    module = model.ptr();
    run = [=](const std::vector<Tensor>& in, const Tensor& padding, const Tensor& mask) {
      return std::make_tuple(
          model(in[0], in[1], Tensor(), mask, Tensor(), padding, Tensor(), padding), Tensor());
    };
  } else if (c.kind == "decoder") {
    const auto layer_options = layer_options_of(k);
    if (k[6] == 0) {
      nn::TransformerDecoderLayer layer(layer_options);
      module = layer.ptr();
      run = [=](const std::vector<Tensor>& in, const Tensor& padding, const Tensor& mask) {
        return std::make_tuple(layer(in[0], in[1], mask, Tensor(), Tensor(), padding), Tensor());
      };
    } else {
      auto options =
          nn::TransformerDecoderOptions(nn::TransformerDecoderLayer(layer_options), k[6]);
      if (k[7] != 0) options.norm(nn::LayerNorm(wick::Shape{k[0]}));
      nn::TransformerDecoder decoder(options);
      module = decoder.ptr();
      run = [=](const std::vector<Tensor>& in, const Tensor& padding, const Tensor& mask) {
        return std::make_tuple(decoder(in[0], in[1], mask, Tensor(), Tensor(), padding), Tensor());
      };
    }
  } else {
    const auto layer_options = layer_options_of(k);
    if (k[6] == 0) {
      nn::TransformerEncoderLayer layer(layer_options);
      module = layer.ptr();
      run = [=](const std::vector<Tensor>& in, const Tensor& padding, const Tensor& mask) {
        return std::make_tuple(layer(in[0], mask, padding), Tensor());
      };
    } else {
      auto options =
          nn::TransformerEncoderOptions(nn::TransformerEncoderLayer(layer_options), k[6]);
      if (k[7] != 0) options.norm(nn::LayerNorm(wick::Shape{k[0]}));
      nn::TransformerEncoder encoder(options);
      module = encoder.ptr();
      run = [=](const std::vector<Tensor>& in, const Tensor& padding, const Tensor& mask) {
        return std::make_tuple(encoder(in[0], mask, padding), Tensor());
      };
    }
  }
  module->to(dtype);
  std::vector<Tensor> params = module->parameters();
  REQUIRE(params.size() == c.params.size());
  {
    wick::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i) {
      params[i].copy_(wick::tensor(c.params[i], opts).reshape(params[i].sizes()));
    }
  }
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    inputs.push_back(
        wick::tensor(c.inputs[i], wick::Shape(c.input_shapes[i]), opts).requires_grad_());
  }
  const Tensor padding = mask_of(c.padding_kind, c.padding_shape, c.padding, dtype);
  const Tensor mask = mask_of(c.mask_kind, c.mask_shape, c.mask, dtype);
  auto [out, weights] = run(inputs, padding, mask);
  check_values(out, c.out, rel, "output");
  Tensor loss = (out * wick::tensor(c.seed, out.sizes(), opts)).sum();
  REQUIRE(weights.defined() == !c.weights.empty());
  if (weights.defined()) {
    CHECK(weights.sizes() == wick::Shape(c.weights_shape));
    check_values(weights, c.weights, rel, "attention weights");
    loss = loss + (weights * wick::tensor(c.seed_weights, weights.sizes(), opts)).sum();
  }
  loss.backward();
  for (size_t i = 0; i < inputs.size(); ++i) {
    INFO("input " << i);
    check_values(inputs[i].grad(), c.grad_inputs[i], rel, "d input");
  }
  for (size_t i = 0; i < params.size(); ++i) {
    INFO("parameter " << module->named_parameters()[i].first);
    check_values(params[i].grad(), c.grad_params[i], rel, "d parameter");
  }
}

}  // namespace

TEST_CASE("MultiheadAttention, the Transformer encoder and decoder, Transformer match PyTorch",
          "[nn][attention]") {
  REQUIRE(kAttentionCases.size() == 11);
  for (const AttentionCase& c : kAttentionCases) check_case(c, wick::kFloat64, 1e-11);
  for (const AttentionCase& c : kAttentionCases) check_case(c, wick::kFloat32, 5e-5);
}

TEST_CASE("scaled_dot_product_attention against a float64 loop, with masks", "[nn][attention]") {
  wick::manual_seed(51);
  const Tensor q = wick::randn({2, 3, 4}, wick::kFloat64),
               k = wick::randn({2, 5, 4}, wick::kFloat64);
  const Tensor v = wick::randn({2, 5, 6}, wick::kFloat64);
  // true = may attend, as PyTorch 2's function (and 1.13's _scaled_dot_product_attention):
  // row 1 may attend keys 0 and 1 only.
  Tensor bool_mask = wick::ones({3, 5}, wick::kBool);
  bool_mask.select(0, 1).narrow(0, 2, 3).fill_(false);
  const Tensor float_mask = wick::randn({3, 5}, wick::kFloat64);
  const std::vector<double> qv = q.to_vector<double>(), kv = k.to_vector<double>();
  const std::vector<double> vv = v.to_vector<double>(), fv = float_mask.to_vector<double>();
  const std::vector<double> bv = bool_mask.to(wick::kFloat64).to_vector<double>();
  // mode 0: no mask, 1: bool, 2: float, 3: causal.
  auto reference = [&](int mode) {
    std::vector<double> out;
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t i = 0; i < 3; ++i) {
        std::vector<double> score(5);
        double top = -INFINITY;
        for (int64_t j = 0; j < 5; ++j) {
          double s = 0;
          for (int64_t d = 0; d < 4; ++d) {
            s += qv[static_cast<size_t>((b * 3 + i) * 4 + d)] *
                 kv[static_cast<size_t>((b * 5 + j) * 4 + d)];
          }
          s /= 2.0;  // sqrt(4)
          if (mode == 1 && bv[static_cast<size_t>(i * 5 + j)] == 0) s = -INFINITY;
          if (mode == 2) s += fv[static_cast<size_t>(i * 5 + j)];
          if (mode == 3 && j > i) s = -INFINITY;
          score[static_cast<size_t>(j)] = s;
          top = std::max(top, s);
        }
        double total = 0;
        for (double& s : score) total += (s = std::exp(s - top));
        for (int64_t d = 0; d < 6; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < 5; ++j) {
            acc += score[static_cast<size_t>(j)] / total *
                   vv[static_cast<size_t>((b * 5 + j) * 6 + d)];
          }
          out.push_back(acc);
        }
      }
    }
    return out;
  };
  namespace F = nn::functional;
  check_values(F::scaled_dot_product_attention(q, k, v), reference(0), 1e-12, "no mask");
  check_values(F::scaled_dot_product_attention(q, k, v, bool_mask), reference(1), 1e-12, "bool");
  check_values(F::scaled_dot_product_attention(q, k, v, float_mask), reference(2), 1e-12, "float");
  check_values(F::scaled_dot_product_attention(q, k, v, {}, 0.0, true), reference(3), 1e-12,
               "causal");
  CHECK(wick::autograd::gradcheck(
            [&](const std::vector<Tensor>& in) {
              return F::scaled_dot_product_attention(in[0], in[1], in[2], float_mask).reshape({-1});
            },
            {q.detach().requires_grad_(), k.detach().requires_grad_(),
             v.detach().requires_grad_()}) == "");
  CHECK_THROWS_AS(F::scaled_dot_product_attention(q, k.narrow(2, 0, 3), v), wick::ShapeError);
  CHECK_THROWS_AS(F::scaled_dot_product_attention(q, k, v, bool_mask, 0.0, true), wick::ValueError);
  CHECK_THROWS_AS(F::scaled_dot_product_attention(q, k, v, wick::zeros({3, 5}, wick::kInt64)),
                  wick::DtypeError);
}

TEST_CASE("MultiheadAttention: names, printing, initialisation, dropout, gradcheck",
          "[nn][attention]") {
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(8, 2).dropout(0.5));
  std::vector<std::string> names;
  for (const auto& [name, p] : mha->named_parameters()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight",
                                          "out_proj.bias"});
  CHECK(wick::equal(mha->in_proj_bias, wick::zeros({24})));
  CHECK(wick::equal(mha->out_proj->bias, wick::zeros({8})));
  // Xavier uniform: |w| <= sqrt(6 / (8 + 24)).
  CHECK(wick::abs(mha->in_proj_weight).max().item<float>() <= std::sqrt(6.0f / 32.0f));
  std::ostringstream printed;
  printed << mha;
  CHECK(printed.str() ==
        "MultiheadAttention(\n  embed_dim=8, num_heads=2, dropout=0.5\n  (out_proj): "
        "Linear(in_features=8, "
        "out_features=8, bias=true)\n)");
  const Tensor x = wick::randn({4, 2, 8});
  // Dropout on the weights in training: two calls differ; in eval they agree.
  CHECK_FALSE(wick::equal(std::get<0>(mha(x, x, x)), std::get<0>(mha(x, x, x))));
  mha->eval();
  CHECK(wick::equal(std::get<0>(mha(x, x, x)), std::get<0>(mha(x, x, x))));
  // Each row of the averaged weights sums to 1.
  const Tensor weights = std::get<1>(mha(x, x, x));
  CHECK(wick::allclose(weights.sum(2), wick::ones({2, 4}), 1e-5, 1e-6));
  nn::MultiheadAttention small(nn::MultiheadAttentionOptions(4, 2).kdim(3).vdim(2));
  small->to(wick::kFloat64);
  const auto opts = wick::TensorOptions(wick::kFloat64).requires_grad(true);
  wick::manual_seed(52);
  CHECK(wick::autograd::gradcheck(
            [&](const std::vector<Tensor>& in) {
              auto [out, w] = small(in[0], in[1], in[2]);
              return wick::cat({out.reshape({-1}), w.reshape({-1})});
            },
            {wick::randn({3, 2, 4}, opts), wick::randn({5, 2, 3}, opts),
             wick::randn({5, 2, 2}, opts)}) == "");
}

TEST_CASE("attention and the encoder reject bad input with clear errors", "[nn][attention]") {
  CHECK_THROWS_WITH(nn::MultiheadAttention(6, 4), Catch::Contains("nn::MultiheadAttention") &&
                                                      Catch::Contains("embed_dim 6") &&
                                                      Catch::Contains("num_heads 4"));
  CHECK_THROWS_AS(nn::MultiheadAttention(nn::MultiheadAttentionOptions(4, 2).add_bias_kv(true)),
                  wick::ValueError);
  nn::MultiheadAttention mha(8, 2);
  const Tensor x = wick::randn({4, 2, 8});
  CHECK_THROWS_WITH(mha(x, wick::randn({4, 2, 7}), x),
                    Catch::Contains("[4, 2, 7]") && Catch::Contains("kdim 8"));
  CHECK_THROWS_AS(mha(x, x, wick::randn({3, 2, 8})), wick::ShapeError);
  CHECK_THROWS_AS(mha(x, wick::randn({4, 8}), x), wick::ShapeError);
  CHECK_THROWS_WITH(mha(x, x, x, wick::zeros({2, 3}, wick::kBool)),
                    Catch::Contains("key_padding_mask") && Catch::Contains("[2, 4]"));
  CHECK_THROWS_WITH(mha(x, x, x, Tensor(), true, wick::zeros({4, 5}, wick::kBool)),
                    Catch::Contains("attn_mask") && Catch::Contains("[4, 4] or [4, 4, 4]"));
  CHECK_THROWS_AS(mha(x, x, x, Tensor(), true, wick::zeros({4, 4}, wick::kInt64)),
                  wick::DtypeError);
  CHECK_THROWS_AS(mha(x.to(wick::kFloat64), x.to(wick::kFloat64), x.to(wick::kFloat64)),
                  wick::DtypeError);
  CHECK_THROWS_AS(
      nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(8, 2).activation(nn::kTanh)),
      wick::ValueError);
  CHECK_THROWS_AS(nn::TransformerEncoder(nn::TransformerEncoderOptions(
                      nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(8, 2)), -1)),
                  wick::ValueError);  // 0 layers is allowed, as torch 1.13
  CHECK_THROWS_AS(nn::RNN(nn::RNNOptions(2, 3).nonlinearity(nn::kGELU)), wick::ValueError);
  // Still works after the refusals.
  CHECK(std::get<0>(mha(x, x, x)).sizes() == wick::Shape{4, 2, 8});
}

TEST_CASE("the encoder: clones, names, and a model that learns to sort", "[nn][attention]") {
  wick::manual_seed(9);
  nn::TransformerEncoderLayer layer(
      nn::TransformerEncoderLayerOptions(16, 2).dim_feedforward(32).dropout(0.0).batch_first(true));
  nn::TransformerEncoder encoder(nn::TransformerEncoderOptions(layer, 2));
  CHECK(encoder->named_parameters()[0].first == "layers.0.self_attn.in_proj_weight");
  CHECK(encoder->named_parameters().back().first == "layers.1.norm2.bias");
  // The clones start equal to the prototype and are separate tensors.
  const auto& first = encoder->layers->at<nn::TransformerEncoderLayerImpl>(0);
  CHECK(wick::equal(first.linear1->weight, layer->linear1->weight));
  CHECK(first.linear1->weight.data_ptr<float>() != layer->linear1->weight.data_ptr<float>());
  // Tokens 0..7 in 6 positions; the target at each position is the sorted sequence's token
  // there, which needs every position to see the others. 250 Adam steps bring the error rate
  // under 10% (chance: 87.5%).
  nn::Embedding embed(8, 16);
  const Tensor positions = wick::randn({1, 6, 16}) * 0.5;
  nn::Linear head(16, 8);
  std::vector<Tensor> params = encoder->parameters();
  for (const auto& m : {embed->parameters(), head->parameters()}) {
    params.insert(params.end(), m.begin(), m.end());
  }
  wick::optim::Adam adam(params, wick::optim::AdamOptions(0.003));
  auto batch = [](int64_t n) {
    const Tensor tokens = (wick::rand({n, 6}) * 8).to(wick::kInt64).clamp(0, 7);
    return std::make_pair(tokens, std::get<0>(tokens.sort(1)));
  };
  auto logits_of = [&](const Tensor& tokens) {
    return head(encoder(embed(tokens) + positions)).reshape({-1, 8});
  };
  for (int step = 0; step < 250; ++step) {
    auto [tokens, target] = batch(64);
    Tensor loss = nn::functional::cross_entropy(logits_of(tokens), target.reshape({-1}));
    adam.zero_grad();
    loss.backward();
    adam.step();
  }
  auto [tokens, target] = batch(256);
  const Tensor predicted = wick::argmax(logits_of(tokens), 1);
  const double errors =
      wick::ne(predicted, target.reshape({-1})).to(wick::kFloat64).mean().item<double>();
  INFO("error rate " << errors);
  CHECK(errors < 0.1);
}

TEST_CASE("Transformer: names, xavier initialisation, the causal mask, a decoder's errors",
          "[nn][attention]") {
  nn::Transformer model(nn::TransformerOptions(16, 4)
                            .num_encoder_layers(2)
                            .num_decoder_layers(1)
                            .dim_feedforward(32)
                            .dropout(0.0));
  const auto named = model->named_parameters();
  CHECK(named.front().first == "encoder.layers.0.self_attn.in_proj_weight");
  CHECK(named.back().first == "decoder.norm.bias");
  bool has_cross_attention = false;
  for (const auto& [name, p] : named) {
    has_cross_attention |= name == "decoder.layers.0.multihead_attn.out_proj.weight";
    if (p.dim() >= 2) {  // xavier-uniform: |w| <= sqrt(6 / (fan_out + fan_in))
      INFO(name);
      CHECK(wick::abs(p).max().item<float>() <=
            std::sqrt(6.0f / static_cast<float>(p.size(0) + p.size(1))));
    }
  }
  CHECK(has_cross_attention);
  const Tensor mask = nn::Transformer::Impl::generate_square_subsequent_mask(3);
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(mask.to_vector<float>() == std::vector<float>{0, -inf, -inf, 0, 0, -inf, 0, 0, 0});
  const Tensor src = wick::randn({5, 2, 16}), tgt = wick::randn({3, 2, 16});
  CHECK(model(src, tgt, Tensor(), mask).sizes() == wick::Shape{3, 2, 16});
  nn::TransformerDecoderLayer layer(nn::TransformerDecoderLayerOptions(16, 4).dim_feedforward(8));
  CHECK_THROWS_WITH(layer(tgt, wick::randn({5, 2, 12})),
                    Catch::Contains("nn::MultiheadAttention") && Catch::Contains("[5, 2, 12]"));
  CHECK_THROWS_AS(layer(tgt, src, wick::zeros({3, 4}, wick::kBool)), wick::ShapeError);
  CHECK_THROWS_AS(nn::TransformerDecoder(nn::TransformerDecoderOptions(layer, -1)),
                  wick::ValueError);
  const Tensor through = nn::TransformerDecoder(nn::TransformerDecoderOptions(layer, 0))(tgt, src);
  CHECK(wick::equal(through, tgt));  // 0 layers and no norm: the identity, as torch 1.13
  CHECK(layer(tgt, src).sizes() == wick::Shape{3, 2, 16});
}
