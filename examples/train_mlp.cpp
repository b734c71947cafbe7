// examples/train_mlp.cpp: a small classification task solved end to end. Two interleaved
// spirals (1.5 turns each, generated here with a fixed seed), an MLP 2-64-64-2 with ReLU,
// CrossEntropyLoss and Adam (learning rate halved every 20 epochs by StepLR), minibatches of
// 64 reshuffled each epoch. Prints loss and training accuracy per epoch, then the accuracy on a
// fresh test set (expected >= 95%; the run fails otherwise). Trains on the GPU if there is one.
// With an argument PREFIX it also saves PREFIX.model.safetensors (the weights, readable by
// torch.nn.Sequential) and PREFIX.data.safetensors (test set, logits, accuracy), loads the
// weights back into a fresh model and checks that its outputs are bit-identical.
// Run as a test by tests/nn (and tests/nn/interop.py checks the saved model in PyTorch).
#include <wick/wick.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace nn = wick::nn;

namespace {

struct DataSet {
  std::vector<float> x;  // [n, 2], row-major
  std::vector<int64_t> y;
  int64_t size() const { return static_cast<int64_t>(y.size()); }
};

// Points along r = theta for theta in [0, 3 pi], class 1 the rotation of class 0 by pi, with
// Gaussian noise; coordinates scaled to about [-1, 1].
DataSet two_spirals(int per_class, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, 0.02);
  const double pi = 3.14159265358979323846, turns = 3 * pi;
  DataSet data;
  for (int i = 0; i < per_class; ++i) {
    for (int cls = 0; cls < 2; ++cls) {
      const double theta = std::sqrt(uniform(rng)) * turns;
      const double r = theta / turns, sign = cls == 0 ? 1.0 : -1.0;
      data.x.push_back(static_cast<float>(sign * r * std::cos(theta) + noise(rng)));
      data.x.push_back(static_cast<float>(sign * r * std::sin(theta) + noise(rng)));
      data.y.push_back(cls);
    }
  }
  return data;
}

nn::Sequential make_mlp() {
  return nn::Sequential(nn::Linear(2, 64), nn::ReLU(), nn::Linear(64, 64), nn::ReLU(),
                        nn::Linear(64, 2));
}

double accuracy(const wick::Tensor& logits, const wick::Tensor& labels) {
  wick::Tensor hits = wick::eq(wick::argmax(logits, 1), labels).sum();
  return static_cast<double>(hits.item<int64_t>()) / static_cast<double>(labels.numel());
}

}  // namespace

int main(int argc, char** argv) {
  wick::Device device = wick::cuda::is_available() ? wick::kCUDA : wick::kCPU;
  wick::manual_seed(0);
  const DataSet train = two_spirals(500, 1);
  const DataSet test = two_spirals(500, 2);
  nn::Sequential model = make_mlp();
  model->to(device);
  nn::CrossEntropyLoss criterion;
  wick::optim::Adam optimizer(model->parameters(), wick::optim::AdamOptions(0.01));
  wick::optim::StepLR schedule(optimizer, /*step_size=*/20, /*gamma=*/0.5);

  const int64_t batch = 64, n = train.size();
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 shuffle_rng(7);
  for (int epoch = 1; epoch <= 60; ++epoch) {
    std::shuffle(order.begin(), order.end(), shuffle_rng);
    double loss_sum = 0;
    int64_t correct = 0;
    for (int64_t start = 0; start < n; start += batch) {
      const int64_t b = std::min(batch, n - start);
      std::vector<float> xs;
      std::vector<int64_t> ys;
      for (int64_t k = start; k < start + b; ++k) {
        const auto i = static_cast<size_t>(order[static_cast<size_t>(k)]);
        xs.insert(xs.end(), {train.x[2 * i], train.x[2 * i + 1]});
        ys.push_back(train.y[i]);
      }
      wick::Tensor x = wick::tensor(xs, wick::Shape{b, 2}).to(device);
      wick::Tensor y = wick::tensor(ys).to(device);
      wick::Tensor logits = model(x);
      wick::Tensor loss = criterion(logits, y);
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>() * static_cast<double>(b);
      correct += wick::eq(wick::argmax(logits.detach(), 1), y).sum().item<int64_t>();
    }
    std::printf("epoch %2d  loss %.4f  train accuracy %6.2f%%  lr %.4g\n", epoch,
                loss_sum / static_cast<double>(n),
                100.0 * static_cast<double>(correct) / static_cast<double>(n), optimizer.lr());
    schedule.step();
  }

  wick::Tensor test_x = wick::tensor(test.x, wick::Shape{test.size(), 2});
  wick::Tensor test_y = wick::tensor(test.y);
  wick::Tensor logits;
  {
    wick::NoGradGuard no_grad;
    logits = model(test_x.to(device)).to(wick::kCPU);
  }
  const double test_accuracy = accuracy(logits, test_y);
  std::printf("final accuracy: %.2f%% on %lld fresh test points\n", 100 * test_accuracy,
              static_cast<long long>(test.size()));
  bool ok = test_accuracy >= 0.95;

  if (argc > 1) {
    const std::string prefix = argv[1];
    wick::save(model, prefix + ".model.safetensors");
    wick::save({{"x", test_x},
                {"y", test_y},
                {"logits", logits},
                {"accuracy", wick::scalar_tensor(test_accuracy, wick::kFloat64)}},
               prefix + ".data.safetensors");
    nn::Sequential reloaded = make_mlp();
    wick::load(reloaded, prefix + ".model.safetensors");
    wick::NoGradGuard no_grad;
    const bool same = wick::equal(reloaded(test_x), logits);
    std::printf("saved %s.model.safetensors; reloaded model outputs %s\n", prefix.c_str(),
                same ? "bit-identical" : "DIFFER");
    ok = ok && same;
  }
  return ok ? 0 : 1;
}
