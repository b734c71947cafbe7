// test_attention.cpp: MultiheadAttention, TransformerEncoderLayer and TransformerEncoder against
// torch.nn's (python3-torch 1.13, float64; attention_golden.inc from make_attention_golden.py):
// outputs, attention weights, and the gradients of the inputs and every parameter, in float64
// and float32; scaled_dot_product_attention; gradcheck; names; errors.
#include <catch2/catch.hpp>
#include <cmath>
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
  } else {
    auto layer_options = nn::TransformerEncoderLayerOptions(k[0], k[1])
                             .dim_feedforward(k[2])
                             .dropout(0.0)
                             .norm_first(k[3] != 0)
                             .activation(k[4] != 0 ? nn::kGELU : nn::kReLU)
                             .batch_first(k[5] != 0);
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

TEST_CASE("MultiheadAttention and the Transformer encoder match PyTorch", "[nn][attention]") {
  REQUIRE(kAttentionCases.size() == 7);
  for (const AttentionCase& c : kAttentionCases) check_case(c, wick::kFloat64, 1e-11);
  for (const AttentionCase& c : kAttentionCases) check_case(c, wick::kFloat32, 5e-5);
}
