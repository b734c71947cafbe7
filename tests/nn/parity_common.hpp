// parity_common.hpp: the PyTorch parity check of tests/golden (make_golden.py writes the files
// and documents the model, data, loss and configurations), shared by the CPU test
// (tests/nn/test_parity.cpp) and the GPU suite (tests/cuda/test_parity.cpp). From the same
// initial weights and data, 10 steps of each optimizer configuration must give the same
// losses, final gradients and final parameters, measured per tensor as
// max|wick - torch| / max|torch|. WICK_GOLDEN_DIR names the folder of the golden files.
#pragma once

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <wick/wick.hpp>

namespace parity {

namespace nn = wick::nn;
namespace optim = wick::optim;
using wick::Tensor;

inline double relative_error(const Tensor& got, const Tensor& want) {
  REQUIRE(got.sizes() == want.sizes());
  const auto a = got.to_vector<double>(), b = want.to_vector<double>();
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return scale == 0 ? diff : diff / scale;
}

struct Config {
  const char* name;
  std::function<std::unique_ptr<optim::Optimizer>(std::vector<Tensor>)> make;
  int halve_lr_after;  // 0: never
};

// The same configurations as CONFIGS in tests/golden/make_golden.py.
inline std::vector<Config> configs() {
  using P = std::vector<Tensor>;
  return {
      {"sgd_nesterov",
       [](P p) {
         return std::make_unique<optim::SGD>(
             p,
             optim::SGDOptions(0.1).momentum(0.9).dampening(0).weight_decay(0.01).nesterov(true));
       },
       5},
      {"sgd_dampening",
       [](P p) {
         return std::make_unique<optim::SGD>(
             p, optim::SGDOptions(0.05).momentum(0.8).dampening(0.3).weight_decay(0));
       },
       0},
      {"sgd_plain", [](P p) { return std::make_unique<optim::SGD>(p, optim::SGDOptions(0.2)); }, 0},
      {"adam", [](P p) { return std::make_unique<optim::Adam>(p, optim::AdamOptions(0.01)); }, 5},
      {"adam_amsgrad_wd",
       [](P p) {
         return std::make_unique<optim::Adam>(
             p,
             optim::AdamOptions(0.02).betas(0.8, 0.99).eps(1e-6).weight_decay(0.01).amsgrad(true));
       },
       0},
      {"adamw", [](P p) { return std::make_unique<optim::AdamW>(p, optim::AdamWOptions(0.01)); },
       0},
      {"adamw_amsgrad",
       [](P p) {
         return std::make_unique<optim::AdamW>(p, optim::AdamWOptions(0.02)
                                                      .betas(0.85, 0.995)
                                                      .eps(1e-7)
                                                      .weight_decay(0.1)
                                                      .amsgrad(true));
       },
       0},
  };
}

// Runs every configuration on `device` (inputs and model moved there) and checks losses,
// final gradients and parameters against the golden file, read back on the CPU.
inline void check_parity(wick::Dtype dtype, const std::string& file, double tolerance,
                         wick::Device device = wick::kCPU) {
  const auto golden = wick::load_tensors(std::string(WICK_GOLDEN_DIR) + "/" + file);
  const Tensor x = golden.at("x").to(device);
  const Tensor y = golden.at("y").to(device);
  const Tensor t = golden.at("t").to(device);
  REQUIRE(x.dtype() == dtype);
  REQUIRE(y.dtype() == wick::kInt64);
  double worst_loss = 0, worst_grad = 0, worst_param = 0;
  for (const Config& config : configs()) {
    INFO(file << " " << config.name);
    nn::Sequential model(nn::Linear(4, 8), nn::Tanh(), nn::Linear(8, 8), nn::ReLU(),
                         nn::Linear(8, 3));
    model->to(dtype);
    model->to(device);
    {
      wick::NoGradGuard no_grad;
      for (auto& [name, p] : model->named_parameters()) {
        p.copy_(golden.at("init." + name).to(device));
      }
    }
    auto optimizer = config.make(model->parameters());
    nn::CrossEntropyLoss cross_entropy;
    nn::MSELoss mse;
    std::vector<double> losses;
    for (int step = 0; step < 10; ++step) {
      optimizer->zero_grad();
      Tensor out = model(x);
      Tensor loss = cross_entropy(out, y) + 0.5 * mse(wick::sigmoid(out), t);
      loss.backward();
      optimizer->step();
      losses.push_back(loss.item<double>());
      if (config.halve_lr_after == step + 1) optimizer->set_lr(optimizer->lr() * 0.5);
    }
    const double loss_error =
        relative_error(wick::tensor(losses), golden.at(std::string(config.name) + ".losses"));
    double grad_error = 0, param_error = 0;
    for (auto& [name, p] : model->named_parameters()) {
      REQUIRE(p.dtype() == dtype);
      REQUIRE(p.device().type() == device.type());
      grad_error = std::max(grad_error,
                            relative_error(p.grad().to(wick::kCPU),
                                           golden.at(std::string(config.name) + ".grad." + name)));
      param_error = std::max(
          param_error,
          relative_error(p.to(wick::kCPU), golden.at(std::string(config.name) + ".param." + name)));
    }
    CHECK(loss_error <= tolerance);
    CHECK(grad_error <= tolerance);
    CHECK(param_error <= tolerance);
    std::printf("parity %s %s %-16s loss %.2e  grad %.2e  param %.2e\n",
                device == wick::kCPU ? "cpu" : "cuda", file.c_str(), config.name, loss_error,
                grad_error, param_error);
    worst_loss = std::max(worst_loss, loss_error);
    worst_grad = std::max(worst_grad, grad_error);
    worst_param = std::max(worst_param, param_error);
  }
  std::printf("parity %s worst: loss %.2e  grad %.2e  param %.2e (tolerance %.0e)\n", file.c_str(),
              worst_loss, worst_grad, worst_param, tolerance);
}

}  // namespace parity
