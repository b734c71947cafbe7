// examples/train_transformer.cpp: a Transformer encoder learns to sort. Each input is 8 digits
// (0..9); the target at each position is the digit that belongs there once the sequence is
// sorted, which no position can know without attending to all the others. Digits and positions
// are embedded (nn::Embedding, positions learned), two nn::TransformerEncoderLayers (4 heads,
// pre-norm, batch_first) mix them, and a Linear layer reads 10 logits per position.
// CrossEntropyLoss and AdamW on fresh minibatches of 64. Prints the loss and the share of
// digits in place; the run fails unless >= 95% of the digits of 1000 fresh test sequences are
// right. Trains on the GPU if there is one. Run as a test by tests/nn.
#include <wick/wick.hpp>

#include <cstdio>
#include <iostream>

namespace nn = wick::nn;
using wick::indexing::Slice;

namespace {

constexpr int64_t kDigits = 10, kLength = 8, kWidth = 32;

struct SorterImpl : nn::Module {
  SorterImpl()
      : digits(register_module("digits", nn::Embedding(kDigits, kWidth))),
        positions(register_module("positions", nn::Embedding(kLength, kWidth))),
        encoder(register_module(
            "encoder", nn::TransformerEncoder(nn::TransformerEncoderOptions(
                           nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(kWidth, 4)
                                                           .dim_feedforward(64)
                                                           .dropout(0.0)
                                                           .norm_first(true)
                                                           .batch_first(true)),
                           2)))),
        head(register_module("head", nn::Linear(kWidth, kDigits))) {}
  // tokens [N, 8] -> logits [N, 8, 10].
  wick::Tensor forward(const wick::Tensor& tokens) {
    const wick::Tensor where =
        wick::arange(kLength, wick::TensorOptions(wick::kInt64).device(tokens.device()));
    return head(encoder(digits(tokens) + positions(where)));
  }
  nn::Embedding digits, positions;
  nn::TransformerEncoder encoder;
  nn::Linear head;
};
WICK_MODULE(Sorter);

}  // namespace

int main() {
  const wick::Device device = wick::cuda::is_available() ? wick::kCUDA : wick::kCPU;
  std::printf("training on %s\n", device.is_cuda() ? "the GPU" : "the CPU");
  wick::manual_seed(0);
  Sorter model;
  model->to(device);
  nn::CrossEntropyLoss criterion;
  wick::optim::AdamW optimizer(model->parameters(), wick::optim::AdamWOptions(0.003));
  const auto on_device = wick::TensorOptions(wick::kInt64).device(device);
  for (int epoch = 1; epoch <= 6; ++epoch) {
    double loss_sum = 0, right = 0;
    const int steps = 100;
    for (int step = 0; step < steps; ++step) {
      const wick::Tensor tokens = wick::randint(0, kDigits, {64, kLength}, on_device);
      const wick::Tensor sorted = std::get<0>(tokens.sort(1));
      const wick::Tensor logits = model(tokens);
      const wick::Tensor loss = criterion(logits.reshape({-1, kDigits}), sorted.reshape({-1}));
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>();
      right += wick::eq(logits.detach().argmax(2), sorted).to(wick::kFloat64).mean().item<double>();
    }
    std::printf("epoch %d  loss %.4f  digits in place %6.2f%%\n", epoch, loss_sum / steps,
                100.0 * right / steps);
  }
  wick::NoGradGuard no_grad;
  model->eval();
  const wick::Tensor tokens = wick::randint(0, kDigits, {1000, kLength}, on_device);
  const wick::Tensor sorted = std::get<0>(tokens.sort(1));
  const wick::Tensor hits = wick::eq(model(tokens).argmax(2), sorted);
  const double digit_accuracy = hits.to(wick::kFloat64).mean().item<double>();
  const double sequence_accuracy = hits.all(1).to(wick::kFloat64).mean().item<double>();
  // One example, read back with libtorch-style indexing.
  const wick::Tensor first = tokens.index({Slice(0, 1)});
  std::cout << "first test sequence: " << first.index({0}).to(wick::kCPU) << " -> "
            << model(first).argmax(2).index({0}).to(wick::kCPU) << "\n";
  std::printf("final accuracy: %.2f%% of digits, %.2f%% of whole sequences, on 1000 fresh ones\n",
              100 * digit_accuracy, 100 * sequence_accuracy);
  return digit_accuracy >= 0.95 ? 0 : 1;
}
