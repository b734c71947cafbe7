// examples/train_ddp.cpp: train_mlp's task, data-parallel over the processes of an MPI job.
//   mpirun -np N train_ddp [EPOCHS] [float32|float64]      (or ./train_ddp: one process)
// Two interleaved spirals (1000 training points), an MLP 2-64-64-2 with ReLU, CrossEntropyLoss,
// Adam (lr 0.01, halved every 20 epochs), a global batch of 64 split as N x 64/N. A
// DistributedSampler gives each rank its share, reshuffled per epoch with a seed shared by all
// ranks; DistributedDataParallel makes rank 0's initial weights everyone's and averages the
// gradients after each backward. Each process takes GPU local_rank where GPUs exist, else the
// CPU. Rank 0 prints the loss and training accuracy of each epoch over the whole data set (the
// ranks' sums), then the accuracy on a fresh test set (expected >= 95%; the run fails
// otherwise). When N divides 1000 and 64 (N = 1, 2, 4, 8) every step sees the samples one
// process sees with the whole batch, so the loss curve is one process's up to float rounding;
// tests/distributed/check_train_ddp.cmake compares -np 2 against -np 1.
#include <wick/distributed.hpp>
#include <wick/wick.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace dist = wick::distributed;
namespace nn = wick::nn;

namespace {

struct DataSet {
  std::vector<double> x;  // [n, 2], row-major
  std::vector<int64_t> y;
  int64_t size() const { return static_cast<int64_t>(y.size()); }
};

// As train_mlp: points along r = theta for theta in [0, 3 pi], class 1 the rotation of class 0
// by pi, with Gaussian noise; coordinates scaled to about [-1, 1].
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
      data.x.push_back(sign * r * std::cos(theta) + noise(rng));
      data.x.push_back(sign * r * std::sin(theta) + noise(rng));
      data.y.push_back(cls);
    }
  }
  return data;
}

}  // namespace

int main(int argc, char** argv) {
  const int epochs = argc > 1 ? std::atoi(argv[1]) : 60;
  const wick::Dtype dtype =
      argc > 2 && std::string(argv[2]) == "float64" ? wick::kFloat64 : wick::kFloat32;
  auto group = dist::ProcessGroup::world();
  const int rank = group->rank(), world = group->size();
  const wick::Device device = group->default_device();
  if (device.is_cuda()) wick::cuda::set_device(device.index());

  const DataSet train = two_spirals(500, 1);
  const DataSet test = two_spirals(500, 2);
  const int64_t global_batch = 64, batch = global_batch / world;
  if (rank == 0) {
    std::printf("train_ddp: %d process(es) on %s, global batch %lld = %d x %lld, %s\n", world,
                device.str().c_str(), static_cast<long long>(batch * world), world,
                static_cast<long long>(batch), wick::dtype_name(dtype));
    if (global_batch % world != 0 || train.size() % world != 0) {
      std::printf(
          "note: %d does not divide 64 and 1000; the curve will differ from one "
          "process's\n",
          world);
    }
  }

  wick::manual_seed(0);
  nn::Sequential model(nn::Linear(2, 64), nn::ReLU(), nn::Linear(64, 64), nn::ReLU(),
                       nn::Linear(64, 2));
  model->to(device, dtype);
  dist::DistributedDataParallel ddp(model, group);  // rank 0's weights for everyone
  nn::CrossEntropyLoss criterion;
  wick::optim::Adam optimizer(model->parameters(), wick::optim::AdamOptions(0.01));
  dist::DistributedSampler sampler(train.size(), *group, dist::DistributedSamplerOptions{true, 7});

  for (int epoch = 1; epoch <= epochs; ++epoch) {
    sampler.set_epoch(epoch);
    const std::vector<int64_t> mine = sampler.indices();
    const auto n = static_cast<int64_t>(mine.size());
    double loss_sum = 0, correct = 0;
    for (int64_t start = 0; start < n; start += batch) {
      const int64_t b = std::min(batch, n - start);
      std::vector<double> xs;
      std::vector<int64_t> ys;
      for (int64_t k = start; k < start + b; ++k) {
        const auto i = static_cast<size_t>(mine[static_cast<size_t>(k)]);
        xs.insert(xs.end(), {train.x[2 * i], train.x[2 * i + 1]});
        ys.push_back(train.y[i]);
      }
      wick::Tensor x = wick::tensor(xs, wick::Shape{b, 2}).to(device, dtype);
      wick::Tensor y = wick::tensor(ys).to(device);
      wick::Tensor logits = model(x);
      wick::Tensor loss = criterion(logits, y);
      optimizer.zero_grad();
      loss.backward();
      ddp.average_gradients();
      optimizer.step();
      loss_sum += loss.item<double>() * static_cast<double>(b);
      correct +=
          static_cast<double>(wick::eq(wick::argmax(logits.detach(), 1), y).sum().item<int64_t>());
    }
    // The epoch's totals over every rank.
    wick::Tensor totals =
        wick::tensor(std::vector<double>{loss_sum, correct, static_cast<double>(n)});
    group->all_reduce(totals, dist::ReduceOp::Sum);
    const std::vector<double> t = totals.to_vector<double>();
    if (rank == 0) {
      std::printf("epoch %2d  loss %.9f  train accuracy %6.2f%%  lr %.4g\n", epoch, t[0] / t[2],
                  100.0 * t[1] / t[2], optimizer.lr());
      std::fflush(stdout);
    }
    if (epoch % 20 == 0) optimizer.set_lr(optimizer.lr() * 0.5);
  }

  // Every rank holds the same weights; rank 0 reports the test accuracy.
  int exit_code = 0;
  if (rank == 0) {
    wick::NoGradGuard no_grad;
    wick::Tensor x = wick::tensor(test.x, wick::Shape{test.size(), 2}).to(device, dtype);
    wick::Tensor hits = wick::eq(wick::argmax(model(x), 1), wick::tensor(test.y).to(device)).sum();
    const double accuracy =
        static_cast<double>(hits.item<int64_t>()) / static_cast<double>(test.size());
    std::printf("final accuracy: %.2f%% on %lld fresh test points\n", 100 * accuracy,
                static_cast<long long>(test.size()));
    exit_code = epochs >= 60 && accuracy < 0.95 ? 1 : 0;
  }
  wick::Tensor verdict = wick::tensor(std::vector<int64_t>{exit_code});
  group->broadcast(verdict, 0);
  return static_cast<int>(verdict.item<int64_t>());
}
