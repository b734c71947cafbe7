// examples/train_lstm.cpp: an LSTM learns to remember. Each sequence holds 8 tokens drawn from
// 0..7; the label is the first token, so the model must carry it through 7 distractors. (At 16
// tokens, wick and python3-torch alike stay at chance for these 400 steps: the task has a long
// plateau before the gates learn to hold the first token.)
// An Embedding(8, 8) feeds an LSTM(8 -> 32, batch_first), whose final hidden state h_n goes
// through a Linear layer to 8 logits; CrossEntropyLoss and Adam on minibatches of 64. Guessing
// scores 12.5%; the run fails unless the model reaches >= 95% on fresh test sequences. Trains on
// the GPU if there is one. Run as a test by tests/nn.
#include <wick/wick.hpp>

#include <cstdio>
#include <random>
#include <tuple>
#include <vector>

namespace nn = wick::nn;

namespace {

constexpr int64_t kTokens = 8, kLength = 8, kHidden = 32;

// n sequences [n, kLength] of int64 tokens and their labels (the first token of each).
std::pair<wick::Tensor, wick::Tensor> make_sequences(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> token(0, kTokens - 1);
  std::vector<int64_t> tokens(static_cast<size_t>(n * kLength)), labels;
  for (int64_t& t : tokens) t = token(rng);
  for (int64_t i = 0; i < n; ++i) labels.push_back(tokens[static_cast<size_t>(i * kLength)]);
  return {wick::tensor(tokens).reshape({n, kLength}), wick::tensor(labels)};
}

struct RecallNetImpl : nn::Module {
  RecallNetImpl()
      : embed(register_module("embed", nn::Embedding(kTokens, 8))),
        lstm(register_module("lstm", nn::LSTM(nn::LSTMOptions(8, kHidden).batch_first(true)))),
        head(register_module("head", nn::Linear(kHidden, kTokens))) {}
  // tokens [N, kLength] -> logits [N, 8], read from the last hidden state.
  wick::Tensor forward(const wick::Tensor& tokens) {
    auto [output, state] = lstm(embed(tokens));
    return head(std::get<0>(state).select(0, 0));  // h_n of the one layer: [N, H]
  }
  nn::Embedding embed;
  nn::LSTM lstm;
  nn::Linear head;
};
WICK_MODULE(RecallNet);

}  // namespace

int main() {
  const wick::Device device = wick::cuda::is_available() ? wick::kCUDA : wick::kCPU;
  std::printf("training on %s\n", device.is_cuda() ? "the GPU" : "the CPU");
  wick::manual_seed(0);
  RecallNet model;
  model->to(device);
  nn::CrossEntropyLoss criterion;
  wick::optim::Adam optimizer(model->parameters(), wick::optim::AdamOptions(0.01));
  const int64_t batch = 64, steps_per_epoch = 50;
  uint32_t seed = 1;
  for (int epoch = 1; epoch <= 8; ++epoch) {
    double loss_sum = 0;
    int64_t correct = 0;
    for (int64_t step = 0; step < steps_per_epoch; ++step) {
      auto [tokens, labels] = make_sequences(batch, seed++);  // fresh data every step
      tokens = tokens.to(device);
      labels = labels.to(device);
      const wick::Tensor logits = model(tokens);
      const wick::Tensor loss = criterion(logits, labels);
      optimizer.zero_grad();
      loss.backward();
      nn::utils::clip_grad_norm_(model->parameters(), 1.0);
      optimizer.step();
      loss_sum += loss.item<double>();
      correct += wick::eq(wick::argmax(logits.detach(), 1), labels).sum().item<int64_t>();
    }
    std::printf(
        "epoch %d  loss %.4f  train accuracy %6.2f%%\n", epoch,
        loss_sum / static_cast<double>(steps_per_epoch),
        100.0 * static_cast<double>(correct) / static_cast<double>(batch * steps_per_epoch));
  }

  wick::NoGradGuard no_grad;
  model->eval();
  const auto [test_tokens, test_labels] = make_sequences(1000, 12345);
  const wick::Tensor predicted = wick::argmax(model(test_tokens.to(device)), 1).to(wick::kCPU);
  const double accuracy =
      static_cast<double>(wick::eq(predicted, test_labels).sum().item<int64_t>()) / 1000.0;
  std::printf("final accuracy: %.2f%% on 1000 fresh test sequences\n", 100 * accuracy);
  return accuracy >= 0.95 ? 0 : 1;
}
