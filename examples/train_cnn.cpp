// examples/train_cnn.cpp: a small convolutional network learns to tell four shapes apart.
// The images (12x12, generated here with a fixed seed) hold one vertical bar, horizontal bar,
// diagonal or hollow square at a random place, with noise. The model is a Sequential of two
// blocks of Conv2d(3x3, padding 1) -> ReLU -> MaxPool2d(2), then Flatten and a Linear layer;
// CrossEntropyLoss and Adam, minibatches of 32. Prints the loss and training accuracy per epoch,
// then the accuracy on a fresh test set (expected >= 95%; the run fails otherwise). Trains on the
// GPU if there is one. Run as a test by tests/nn.
#include <wick/wick.hpp>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

namespace nn = wick::nn;

namespace {

constexpr int64_t kSide = 12, kClasses = 4;

struct DataSet {
  std::vector<float> pixels;  // [n, 1, 12, 12], row-major
  std::vector<int64_t> labels;
  int64_t size() const { return static_cast<int64_t>(labels.size()); }
};

DataSet make_shapes(int per_class, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> place(1, kSide - 6);
  std::normal_distribution<float> noise(0.0f, 0.15f);
  DataSet data;
  for (int i = 0; i < per_class; ++i) {
    for (int64_t cls = 0; cls < kClasses; ++cls) {
      std::vector<float> img(kSide * kSide);
      for (float& v : img) v = noise(rng);
      const int64_t r = place(rng), c = place(rng);
      for (int64_t k = 0; k < 5; ++k) {
        if (cls == 0) img[(r + k) * kSide + c + 2] += 1.0f;  // vertical bar
        if (cls == 1) img[(r + 2) * kSide + c + k] += 1.0f;  // horizontal bar
        if (cls == 2) img[(r + k) * kSide + c + k] += 1.0f;  // diagonal
        if (cls == 3 && k < 4) {                             // hollow 4x4 square
          img[r * kSide + c + k] += 1.0f;
          img[(r + 3) * kSide + c + k] += 1.0f;
          img[(r + k) * kSide + c] += 1.0f;
          img[(r + k) * kSide + c + 3] += 1.0f;
        }
      }
      data.pixels.insert(data.pixels.end(), img.begin(), img.end());
      data.labels.push_back(cls);
    }
  }
  return data;
}

// [N, 1, 12, 12] -> [N, 8, 6, 6] -> [N, 16, 3, 3] -> [N, 144] -> [N, 4].
nn::Sequential make_convnet() {
  return nn::Sequential(nn::Conv2d(nn::Conv2dOptions(1, 8, 3).padding(1)), nn::ReLU(),
                        nn::MaxPool2d(nn::MaxPool2dOptions(2)),
                        nn::Conv2d(nn::Conv2dOptions(8, 16, 3).padding(1)), nn::ReLU(),
                        nn::MaxPool2d(nn::MaxPool2dOptions(2)), nn::Flatten(),
                        nn::Linear(16 * 3 * 3, kClasses));
}

}  // namespace

int main() {
  const wick::Device device = wick::cuda::is_available() ? wick::kCUDA : wick::kCPU;
  std::printf("training on %s\n", device.is_cuda() ? "the GPU" : "the CPU");
  wick::manual_seed(0);
  const DataSet train = make_shapes(200, 1), test = make_shapes(100, 2);
  nn::Sequential model = make_convnet();
  model->to(device);
  nn::CrossEntropyLoss criterion;
  wick::optim::Adam optimizer(model->parameters(), wick::optim::AdamOptions(0.01));

  const int64_t batch = 32, n = train.size(), pixels = kSide * kSide;
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 shuffle_rng(7);
  for (int epoch = 1; epoch <= 8; ++epoch) {
    std::shuffle(order.begin(), order.end(), shuffle_rng);
    double loss_sum = 0;
    int64_t correct = 0;
    for (int64_t start = 0; start < n; start += batch) {
      const int64_t b = std::min(batch, n - start);
      std::vector<float> xs;
      std::vector<int64_t> ys;
      for (int64_t k = start; k < start + b; ++k) {
        const auto i = order[static_cast<size_t>(k)];
        xs.insert(xs.end(), train.pixels.begin() + i * pixels,
                  train.pixels.begin() + (i + 1) * pixels);
        ys.push_back(train.labels[static_cast<size_t>(i)]);
      }
      const wick::Tensor x = wick::tensor(xs, wick::Shape{b, 1, kSide, kSide}).to(device);
      const wick::Tensor y = wick::tensor(ys).to(device);
      const wick::Tensor logits = model(x);
      const wick::Tensor loss = criterion(logits, y);
      optimizer.zero_grad();
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>() * static_cast<double>(b);
      correct += wick::eq(wick::argmax(logits.detach(), 1), y).sum().item<int64_t>();
    }
    std::printf("epoch %d  loss %.4f  train accuracy %6.2f%%\n", epoch,
                loss_sum / static_cast<double>(n),
                100.0 * static_cast<double>(correct) / static_cast<double>(n));
  }

  wick::NoGradGuard no_grad;
  const wick::Tensor test_x =
      wick::tensor(test.pixels, wick::Shape{test.size(), 1, kSide, kSide}).to(device);
  const wick::Tensor predicted = wick::argmax(model(test_x), 1).to(wick::kCPU);
  const double accuracy =
      static_cast<double>(wick::eq(predicted, wick::tensor(test.labels)).sum().item<int64_t>()) /
      static_cast<double>(test.size());
  std::printf("final accuracy: %.2f%% on %lld fresh test images\n", 100 * accuracy,
              static_cast<long long>(test.size()));
  return accuracy >= 0.95 ? 0 : 1;
}
