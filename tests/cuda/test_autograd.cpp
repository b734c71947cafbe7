// test_autograd.cpp: gradients on the GPU. Every differentiable op's case of
// tests/grad_cases.hpp (the CPU gradcheck's, enumerated from the op list, so a new op without a
// case fails here too) runs on float32 device tensors; the gradients its backward leaves on the
// device are compared with those of the same case on float64 CPU tensors, which the CPU
// gradcheck has checked against central differences.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "gpu_test.hpp"
#include "grad_cases.hpp"

using namespace gpu_test;

namespace {

// The seed gradient for an output: fixed values of both signs, so that every input's
// gradient mixes its output elements with different weights.
Tensor seed_for(const Tensor& out, TensorOptions options) {
  std::vector<double> v(static_cast<size_t>(out.numel()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = std::fmod(0.61 * static_cast<double>(i + 1), 3.0) - 1.4;
  return tensor(v, out.sizes(), TensorOptions(kFloat64)).to(options.device(), options.dtype());
}

// |got - want| <= 1e-4 (1 + |want|) element by element (gpu_test::check_close): float32
// rounding through the few ops of a case (relative error about 1e-7 each) stays far below it,
// while a wrong rule, a missing accumulation or a lost element is off by O(1).
void check_gradient(const Tensor& got_device, const Tensor& want, const std::string& what) {
  REQUIRE(got_device.defined());
  CHECK(got_device.dtype() == kFloat32);
  check_close(got_device, want, {1e-4, 1e-4}, what);
}

}  // namespace

TEST_CASE("gpu autograd: every differentiable op's float32 gradients match float64 on the CPU",
          "[autograd]") {
  const auto all = grad_cases::cases();
  const TensorOptions on_gpu = TensorOptions().dtype(kFloat32).device(kCUDA);
  for (size_t k = 0; k < kNumOps; ++k) {
    const OpId op = static_cast<OpId>(k);
    if (!op_differentiable(op)) continue;
    DYNAMIC_SECTION("op " << op_name(op)) {
      INFO("no case in tests/grad_cases.hpp for " << op_name(op));
      REQUIRE(all.count(op) == 1);
      const grad_cases::GradCase& c = all.at(op);
      std::vector<Tensor> cpu_inputs, gpu_inputs;
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        cpu_inputs.push_back(grad_cases::input(c.shapes[i], c.positive, static_cast<int>(i)));
        gpu_inputs.push_back(cpu_inputs.back().detach().to(kCUDA, kFloat32).requires_grad_(true));
      }
      const Tensor cpu_out = c.fn(cpu_inputs);
      const Tensor gpu_out = c.fn(gpu_inputs);
      REQUIRE(gpu_out.device().is_cuda());
      cpu_out.backward(seed_for(cpu_out, TensorOptions(kFloat64)));
      gpu_out.backward(seed_for(gpu_out, on_gpu));
      for (size_t i = 0; i < c.shapes.size(); ++i) {
        check_gradient(gpu_inputs[i].grad(), cpu_inputs[i].grad(),
                       "gradient of input " + std::to_string(i) + " " + describe(cpu_inputs[i]));
      }
    }
  }
}

TEST_CASE("gpu autograd: cat and stack join device tensors and split their gradients",
          "[autograd]") {
  PoisonScope poison;
  const Pair a = make_input({3, 5}, kFloat32, Layout::Transposed);
  const Pair b = make_input({3, 2}, kFloat64, Layout::Strided);
  // The device result is the CPU one, bit for bit (copies and an exact float32 -> float64 cast).
  check_close(cat({a.gpu, b.gpu}, 1), cat({a.cpu, b.cpu}, 1), {}, "cat of mixed dtypes");
  check_close(stack({a.gpu, a.gpu * 2}, 2), stack({a.cpu, a.cpu * 2}, 2), {}, "stack");
  // A CPU tensor in a list of device tensors is an error naming both devices.
  try {
    (void)cat({a.gpu, a.cpu});
    FAIL("cat of a cuda and a cpu tensor did not throw");
  } catch (const DeviceError& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("cat") && Catch::Contains("cuda") && Catch::Contains("cpu"));
  }
  Tensor x = a.gpu.detach().requires_grad_(true);
  Tensor y = b.gpu.detach().to(kFloat32).requires_grad_(true);
  (cat({x, y, x}, 1) * 2.0).sum().backward();
  check_close(x.grad(), full({3, 5}, 4.0f), {}, "a tensor listed twice gets both slices");
  check_close(y.grad(), full({3, 2}, 2.0f), {}, "the other input's slice");
}

TEST_CASE("gpu autograd: LayerNorm and Dropout on the device", "[autograd]") {
  namespace F = nn::functional;
  // layer_norm's float32 device values and gradients against float64 on the CPU.
  const Tensor x = grad_cases::input({3, 2, 5}, false, 0);
  const Tensor w = grad_cases::input({2, 5}, false, 1), b = grad_cases::input({2, 5}, false, 2);
  std::vector<Tensor> gpu;
  for (const Tensor& t : {x, w, b}) gpu.push_back(t.detach().to(kCUDA, kFloat32).requires_grad_());
  const Tensor cpu_out = F::layer_norm(x, {2, 5}, w, b, 1e-3);
  const Tensor gpu_out = F::layer_norm(gpu[0], {2, 5}, gpu[1], gpu[2], 1e-3);
  check_gradient(gpu_out.detach(), cpu_out.detach(), "layer_norm values");
  cpu_out.backward(seed_for(cpu_out, TensorOptions(kFloat64)));
  gpu_out.backward(seed_for(gpu_out, TensorOptions().dtype(kFloat32).device(kCUDA)));
  check_gradient(gpu[0].grad(), x.grad(), "layer_norm: input gradient");
  check_gradient(gpu[1].grad(), w.grad(), "layer_norm: weight gradient");
  check_gradient(gpu[2].grad(), b.grad(), "layer_norm: bias gradient");
  // dropout draws its mask from the Philox stream both devices share: the same seed drops the
  // same elements, and the kept ones are scaled alike.
  const Tensor ones_cpu = ones({64, 33});
  manual_seed(5);
  const Tensor on_cpu = F::dropout(ones_cpu, 0.3, true);
  manual_seed(5);
  const Tensor on_gpu = F::dropout(ones_cpu.to(kCUDA), 0.3, true);
  check_close(on_gpu, on_cpu, {}, "dropout mask and scale");
}

TEST_CASE("gpu autograd: the pointwise losses on the device", "[autograd]") {
  namespace F = nn::functional;
  // Each loss's float32 device values and input/target gradients against float64 on the CPU;
  // the inputs cover both sides of every threshold (|d| against beta and delta, logits of both
  // signs and 0, probabilities in (0, 1)).
  const Tensor x = grad_cases::input({4, 6}, false, 3) * 2.0;
  const Tensor y = grad_cases::input({4, 6}, false, 4);
  const Tensor p = sigmoid(grad_cases::input({4, 6}, false, 5) * 3.0);
  const Tensor q = rand({4, 6}, TensorOptions(kFloat64));
  const Tensor pw = tensor({0.5, 2.0, 1.0, 3.0, 1.5, 0.25}, TensorOptions(kFloat64));
  using Loss = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>;
  const std::vector<std::tuple<std::string, Loss, Tensor, Tensor>> losses = {
      {"l1_loss",
       [](const Tensor& a, const Tensor& b, const Tensor&) {
         return F::l1_loss(a, b, F::L1LossFuncOptions(nn::kNone));
       },
       x, y},
      {"smooth_l1_loss",
       [](const Tensor& a, const Tensor& b, const Tensor&) {
         return F::smooth_l1_loss(a, b, F::SmoothL1LossFuncOptions(nn::kNone).beta(0.8));
       },
       x, y},
      {"huber_loss",
       [](const Tensor& a, const Tensor& b, const Tensor&) {
         return F::huber_loss(a, b, F::HuberLossFuncOptions(nn::kNone).delta(1.2));
       },
       x, y},
      {"binary_cross_entropy",
       [](const Tensor& a, const Tensor& b, const Tensor&) {
         return F::binary_cross_entropy(a, b, F::BinaryCrossEntropyFuncOptions(nn::kNone));
       },
       p, q},
      {"binary_cross_entropy_with_logits",
       [](const Tensor& a, const Tensor& b, const Tensor& w) {
         return F::binary_cross_entropy_with_logits(
             a, b, F::BinaryCrossEntropyWithLogitsFuncOptions(nn::kNone).pos_weight(w));
       },
       x, q},
  };
  for (const auto& [name, loss, input, target] : losses) {
    const Tensor xc = input.detach().requires_grad_(), yc = target.detach().requires_grad_();
    const Tensor xg = input.detach().to(kCUDA, kFloat32).requires_grad_();
    const Tensor yg = target.detach().to(kCUDA, kFloat32).requires_grad_();
    const Tensor cpu_out = loss(xc, yc, pw);
    const Tensor gpu_out = loss(xg, yg, pw.to(kCUDA, kFloat32));
    REQUIRE(gpu_out.device().is_cuda());
    check_gradient(gpu_out.detach(), cpu_out.detach(), name + " values");
    cpu_out.backward(seed_for(cpu_out, TensorOptions(kFloat64)));
    gpu_out.backward(seed_for(gpu_out, TensorOptions().dtype(kFloat32).device(kCUDA)));
    check_gradient(xg.grad(), xc.grad(), name + ": input gradient");
    check_gradient(yg.grad(), yc.grad(), name + ": target gradient");
  }
  // binary_cross_entropy's range check reads the device tensor: a typed error, then it works.
  CHECK_THROWS_AS(F::binary_cross_entropy(full({3}, 1.5f).to(kCUDA), zeros({3}).to(kCUDA)),
                  ValueError);
  CHECK(F::binary_cross_entropy(full({3}, 0.5f).to(kCUDA), ones({3}).to(kCUDA)).item<double>() ==
        Approx(std::log(2.0)));
}

TEST_CASE("gpu autograd: var and std on the device", "[autograd]") {
  // Compositions of mean, sub, mul and sum: float32 device values and gradients against float64
  // on the CPU, over all elements and over dims.
  const Tensor x = grad_cases::input({5, 7}, false, 6) * 3.0 + 2.0;
  for (const Shape& dims : {Shape{}, Shape{0}, Shape{1}}) {
    for (bool unbiased : {true, false}) {
      const Tensor xc = x.detach().requires_grad_();
      const Tensor xg = x.detach().to(kCUDA, kFloat32).requires_grad_();
      const Tensor cpu_out = xc.var(dims, unbiased) + xc.std(dims, unbiased);
      const Tensor gpu_out = xg.var(dims, unbiased) + xg.std(dims, unbiased);
      std::ostringstream name;
      name << "var + std over " << dims;
      const std::string what = name.str();
      check_gradient(gpu_out.detach(), cpu_out.detach(), what + " values");
      cpu_out.backward(seed_for(cpu_out, TensorOptions(kFloat64)));
      gpu_out.backward(seed_for(gpu_out, TensorOptions().dtype(kFloat32).device(kCUDA)));
      check_gradient(xg.grad(), xc.grad(), what + ": gradient");
    }
  }
  const Tensor chosen = where(tensor({true, false}).to(kCUDA), 2.5, -1);
  CHECK(chosen.device().is_cuda());
  CHECK(chosen.to(kCPU).to_vector<float>() == std::vector<float>{2.5f, -1.0f});
}

TEST_CASE("gpu autograd: BatchNorm1d on the device", "[autograd]") {
  // A training step and an eval step on float32 device tensors against float64 on the CPU:
  // outputs, input/weight/bias gradients and the running statistics the step moved.
  const Tensor x = grad_cases::input({6, 3, 4}, false, 7) * 2.0 + 1.0;
  nn::BatchNorm1d cpu_bn(3), gpu_bn(3);
  cpu_bn->to(kFloat64);
  gpu_bn->to(kCUDA);
  const Tensor xc = x.detach().requires_grad_();
  const Tensor xg = x.detach().to(kCUDA, kFloat32).requires_grad_();
  const Tensor cpu_out = cpu_bn(xc), gpu_out = gpu_bn(xg);
  check_gradient(gpu_out.detach(), cpu_out.detach(), "batch_norm values");
  cpu_out.backward(seed_for(cpu_out, TensorOptions(kFloat64)));
  gpu_out.backward(seed_for(gpu_out, TensorOptions().dtype(kFloat32).device(kCUDA)));
  check_gradient(xg.grad(), xc.grad(), "batch_norm: input gradient");
  check_gradient(gpu_bn->weight.grad(), cpu_bn->weight.grad(), "batch_norm: weight gradient");
  check_gradient(gpu_bn->bias.grad(), cpu_bn->bias.grad(), "batch_norm: bias gradient");
  check_gradient(gpu_bn->running_var, cpu_bn->running_var, "batch_norm: running_var");
  CHECK(gpu_bn->num_batches_tracked.device().is_cuda());
  cpu_bn->eval();
  gpu_bn->eval();
  check_gradient(gpu_bn(xg).detach(), cpu_bn(xc).detach(), "batch_norm: eval values");
}

TEST_CASE("gpu autograd: BatchNorm2d and GroupNorm on the device", "[autograd]") {
  // [N, C, H, W] float32 device tensors against float64 on the CPU: a training step's values and
  // input gradients, and BatchNorm2d's running variance.
  const Tensor x = grad_cases::input({4, 6, 3, 2}, false, 9) * 1.5 - 0.5;
  nn::BatchNorm2d cpu_bn(6), gpu_bn(6);
  nn::GroupNorm cpu_gn(3, 6), gpu_gn(3, 6);
  cpu_bn->to(kFloat64);
  cpu_gn->to(kFloat64);
  gpu_bn->to(kCUDA);
  gpu_gn->to(kCUDA);
  const Tensor xc = x.detach().requires_grad_();
  const Tensor xg = x.detach().to(kCUDA, kFloat32).requires_grad_();
  const Tensor cpu_out = cpu_gn(cpu_bn(xc)), gpu_out = gpu_gn(gpu_bn(xg));
  REQUIRE(gpu_out.device().is_cuda());
  check_gradient(gpu_out.detach(), cpu_out.detach(), "batch_norm2d then group_norm values");
  cpu_out.backward(seed_for(cpu_out, TensorOptions(kFloat64)));
  gpu_out.backward(seed_for(gpu_out, TensorOptions().dtype(kFloat32).device(kCUDA)));
  check_gradient(xg.grad(), xc.grad(), "input gradient");
  check_gradient(gpu_gn->weight.grad(), cpu_gn->weight.grad(), "group_norm: weight gradient");
  check_gradient(gpu_bn->running_var, cpu_bn->running_var, "batch_norm2d: running_var");
}

TEST_CASE("gpu autograd: LSTM and GRU through time on the device", "[autograd]") {
  // A bidirectional two-layer LSTM feeding a GRU, float32 on the device against the same
  // parameters in float64 on the CPU: outputs, final states, input and weight gradients.
  const Tensor x = grad_cases::input({5, 3, 4}, false, 11);
  nn::LSTM cpu_lstm(nn::LSTMOptions(4, 3).num_layers(2).bidirectional(true));
  nn::GRU cpu_gru(nn::GRUOptions(6, 2).batch_first(true));
  nn::LSTM gpu_lstm(nn::LSTMOptions(4, 3).num_layers(2).bidirectional(true));
  nn::GRU gpu_gru(nn::GRUOptions(6, 2).batch_first(true));
  {
    NoGradGuard no_grad;
    std::vector<Tensor> cpu_params = cpu_lstm->parameters(), gpu_params = gpu_lstm->parameters();
    for (const Tensor& p : cpu_gru->parameters()) cpu_params.push_back(p);
    for (const Tensor& p : gpu_gru->parameters()) gpu_params.push_back(p);
    for (size_t i = 0; i < cpu_params.size(); ++i) gpu_params[i].copy_(cpu_params[i]);
  }
  cpu_lstm->to(kFloat64);
  cpu_gru->to(kFloat64);
  gpu_lstm->to(kCUDA);
  gpu_gru->to(kCUDA);
  const Tensor xc = x.detach().requires_grad_();
  const Tensor xg = x.detach().to(kCUDA, kFloat32).requires_grad_();
  auto run = [](nn::LSTM& lstm, nn::GRU& gru, const Tensor& input) {
    auto [seq, state] = lstm(input);
    auto [out, h] = gru(seq.transpose(0, 1));
    return cat({out.reshape({-1}), h.reshape({-1}), std::get<1>(state).reshape({-1})});
  };
  const Tensor cpu_out = run(cpu_lstm, cpu_gru, xc), gpu_out = run(gpu_lstm, gpu_gru, xg);
  REQUIRE(gpu_out.device().is_cuda());
  check_gradient(gpu_out.detach(), cpu_out.detach(), "lstm then gru values");
  cpu_out.backward(seed_for(cpu_out, TensorOptions(kFloat64)));
  gpu_out.backward(seed_for(gpu_out, TensorOptions().dtype(kFloat32).device(kCUDA)));
  check_gradient(xg.grad(), xc.grad(), "input gradient");
  check_gradient(gpu_lstm->parameters()[4].grad(), cpu_lstm->parameters()[4].grad(),
                 "lstm weight_ih_l0_reverse gradient");
  check_gradient(gpu_gru->parameters()[1].grad(), cpu_gru->parameters()[1].grad(),
                 "gru weight_hh_l0 gradient");
}

TEST_CASE("gpu autograd: a Transformer encoder layer with masks on the device", "[autograd]") {
  // A post-norm encoder layer (its MultiheadAttention with a causal bool mask and a padding
  // mask), float32 on the device against the same parameters in float64 on the CPU: outputs,
  // input gradient and the attention's projection gradient.
  const Tensor x = grad_cases::input({5, 2, 8}, false, 13);
  auto options = nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0);
  nn::TransformerEncoderLayer cpu_layer(options), gpu_layer(options);
  {
    NoGradGuard no_grad;
    std::vector<Tensor> from = cpu_layer->parameters(), to = gpu_layer->parameters();
    for (size_t i = 0; i < from.size(); ++i) to[i].copy_(from[i]);
  }
  cpu_layer->to(kFloat64);
  gpu_layer->to(kCUDA);
  const Tensor causal = triu(ones({5, 5}, kBool), 1);
  Tensor padding = zeros({2, 5}, kBool);
  padding.select(0, 0).narrow(0, 4, 1).fill_(true);
  const Tensor xc = x.detach().requires_grad_();
  const Tensor xg = x.detach().to(kCUDA, kFloat32).requires_grad_();
  const Tensor cpu_out = cpu_layer(xc, causal, padding);
  const Tensor gpu_out = gpu_layer(xg, causal.to(kCUDA), padding.to(kCUDA));
  REQUIRE(gpu_out.device().is_cuda());
  check_gradient(gpu_out.detach(), cpu_out.detach(), "encoder layer values");
  cpu_out.backward(seed_for(cpu_out, TensorOptions(kFloat64)));
  gpu_out.backward(seed_for(gpu_out, TensorOptions().dtype(kFloat32).device(kCUDA)));
  check_gradient(xg.grad(), xc.grad(), "input gradient");
  check_gradient(gpu_layer->self_attn->in_proj_weight.grad(),
                 cpu_layer->self_attn->in_proj_weight.grad(), "in_proj_weight gradient");
}

TEST_CASE("gpu autograd: conv1d and adaptive_avg_pool2d on the device", "[autograd]") {
  namespace F = nn::functional;
  const Tensor x = grad_cases::input({2, 4, 9}, false, 17);
  const Tensor w = grad_cases::input({6, 2, 3}, false, 18);
  const Tensor img = grad_cases::input({2, 3, 5, 7}, false, 19);
  auto run = [](const Tensor& input, const Tensor& weight, const Tensor& image) {
    const Tensor y = F::conv1d(input, weight,
                               nn::Conv1dFuncOptions().stride(2).padding(1).dilation(2).groups(2));
    const Tensor p = F::adaptive_avg_pool2d(image, nn::Size2(3, 2));
    return cat({y.reshape({-1}), p.reshape({-1})});
  };
  const Tensor xc = x.detach().requires_grad_(), wc = w.detach().requires_grad_();
  const Tensor ic = img.detach().requires_grad_();
  const Tensor xg = x.detach().to(kCUDA, kFloat32).requires_grad_();
  const Tensor wg = w.detach().to(kCUDA, kFloat32).requires_grad_();
  const Tensor ig = img.detach().to(kCUDA, kFloat32).requires_grad_();
  const Tensor cpu_out = run(xc, wc, ic), gpu_out = run(xg, wg, ig);
  REQUIRE(gpu_out.device().is_cuda());
  check_gradient(gpu_out.detach(), cpu_out.detach(), "conv1d and pool values");
  cpu_out.backward(seed_for(cpu_out, TensorOptions(kFloat64)));
  gpu_out.backward(seed_for(gpu_out, TensorOptions().dtype(kFloat32).device(kCUDA)));
  check_gradient(xg.grad(), xc.grad(), "conv1d input gradient");
  check_gradient(wg.grad(), wc.grad(), "conv1d weight gradient");
  check_gradient(ig.grad(), ic.grad(), "pool input gradient");
}

TEST_CASE("gpu autograd: Embedding with padding_idx and max_norm on the device", "[autograd]") {
  // A float32 device table against the same float64 table on the CPU: values after max_norm's
  // in-place renormalisation, outputs, and the table's gradient (repeated tokens and padding).
  const Tensor tokens = tensor({{3, 1, 1, 0}, {5, 3, 3, 1}});
  const Tensor table = grad_cases::input({6, 4}, false, 5) * 0.8;
  nn::Embedding cpu_emb(nn::EmbeddingOptions(6, 4).padding_idx(1).max_norm(1.2)._weight(table));
  nn::Embedding gpu_emb(nn::EmbeddingOptions(6, 4).padding_idx(1).max_norm(1.2)._weight(table));
  cpu_emb->to(kFloat64);
  gpu_emb->to(kCUDA, kFloat32);
  const Tensor cpu_out = cpu_emb(tokens), gpu_out = gpu_emb(tokens.to(kCUDA));
  REQUIRE(gpu_out.device().is_cuda());
  check_gradient(gpu_out.detach(), cpu_out.detach(), "embedding values");
  check_gradient(gpu_emb->weight.detach(), cpu_emb->weight.detach(), "embedding: renormed table");
  cpu_out.backward(seed_for(cpu_out, TensorOptions(kFloat64)));
  gpu_out.backward(seed_for(gpu_out, TensorOptions().dtype(kFloat32).device(kCUDA)));
  check_gradient(gpu_emb->weight.grad(), cpu_emb->weight.grad(), "embedding: table gradient");
  CHECK(gpu_emb->weight.grad().select(0, 1).abs().sum().item<double>() == 0.0);
}
