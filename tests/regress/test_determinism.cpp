// test_determinism.cpp: deterministic mode (wick/deterministic.hpp). Checks that the switch
// turns the NaN fill of new allocations on and restores it, that every threaded CPU kernel
// gives the same bits for 1, 2 and 4 threads (sizes above the parallel grain and above
// the reductions' 16384-element blocks), that training an MLP (as examples/train_mlp.cpp, and a
// wider one whose products use several threads) gives bitwise-identical losses run to run and
// for 1 and 2 threads, and, where there is a GPU, that GPU results repeat bit for bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "wick/deterministic.hpp"
#include "wick/wick.hpp"

using namespace wick;

namespace {

// Runs fn with wick's CPU ops on n threads (wick::set_num_threads), then restores the count.
template <typename Fn>
auto with_threads(int n, Fn&& fn) {
  const int previous = get_num_threads();
  set_num_threads(n);
  auto result = fn();
  set_num_threads(previous);
  return result;
}

// The bytes of a tensor's values (contiguous copy on the CPU).
std::vector<unsigned char> bits(const Tensor& t) {
  Tensor c = t.detach().to(kCPU).contiguous();
  std::vector<unsigned char> out(c.nbytes());
  if (!out.empty()) std::memcpy(out.data(), c.raw_data(), out.size());
  return out;
}

// Every threaded CPU kernel on sizes that split across threads, from a fixed seed.
std::vector<std::vector<unsigned char>> cpu_results() {
  manual_seed(1234);
  std::vector<std::vector<unsigned char>> r;
  Tensor big = randn({1 << 18});  // 262144 floats: 16 reduction blocks
  Tensor big64 = randn({1 << 17}, kFloat64);
  Tensor m = randn({700, 300});
  Tensor a = randn({257, 300}), b = randn({300, 263});
  Tensor a64 = randn({129, 500}, kFloat64), b64 = randn({500, 131}, kFloat64);
  r.push_back(bits(big));  // Philox: independent of threads
  r.push_back(bits(big.sum()));
  r.push_back(bits(big.mean()));
  r.push_back(bits(big64.sum()));
  r.push_back(bits(m.sum(0)));                  // few outputs, long rows
  r.push_back(bits(m.sum(1)));                  // many outputs
  r.push_back(bits(m.transpose(0, 1).sum(1)));  // strided rows
  r.push_back(bits(std::get<1>(m.max(0))));
  r.push_back(bits(big.argmax()));
  r.push_back(bits(matmul(a, b)));
  r.push_back(bits(matmul(a.t().contiguous().t(), b)));  // transposed A
  r.push_back(bits(matmul(a64, b64)));
  r.push_back(bits(matmul(randn({8, 40, 30}), randn({8, 30, 20}))));  // batched
  r.push_back(bits(softmax(m, 1)));
  r.push_back(bits(log_softmax(m, 0)));
  r.push_back(bits(exp(big) * big + 1.0));
  r.push_back(bits(big.to(kFloat64)));
  return r;
}

struct Spirals {
  Tensor x, y;
};

// Two interleaved spirals, as examples/train_mlp.cpp makes them.
Spirals spirals(int per_class, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, 0.02);
  const double turns = 3 * 3.14159265358979323846;
  std::vector<float> xs;
  std::vector<int64_t> ys;
  for (int i = 0; i < per_class; ++i) {
    for (int cls = 0; cls < 2; ++cls) {
      const double theta = std::sqrt(uniform(rng)) * turns;
      const double r = theta / turns, sign = cls == 0 ? 1.0 : -1.0;
      xs.push_back(static_cast<float>(sign * r * std::cos(theta) + noise(rng)));
      xs.push_back(static_cast<float>(sign * r * std::sin(theta) + noise(rng)));
      ys.push_back(cls);
    }
  }
  return {tensor(xs, Shape{2 * per_class, 2}), tensor(ys)};
}

// Trains an MLP 2-hidden-hidden-2 (ReLU, CrossEntropyLoss, Adam) on minibatches and returns
// every step's loss as float bits.
std::vector<uint32_t> train_losses(int64_t hidden, int64_t batch, int steps, Device device = kCPU) {
  manual_seed(0);
  const Spirals data = spirals(256, 1);
  nn::Sequential model(nn::Linear(2, hidden), nn::ReLU(), nn::Linear(hidden, hidden), nn::ReLU(),
                       nn::Linear(hidden, 2));
  model->to(device);
  nn::CrossEntropyLoss criterion;
  optim::Adam optimizer(model->parameters(), optim::AdamOptions(0.01));
  std::vector<uint32_t> losses;
  const int64_t n = data.y.numel();
  for (int step = 0; step < steps; ++step) {
    const int64_t start = (step * batch) % n;
    const int64_t b = std::min(batch, n - start);
    Tensor x = data.x.narrow(0, start, b).to(device), y = data.y.narrow(0, start, b).to(device);
    Tensor loss = criterion(model(x), y);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    const float value = loss.item<float>();
    uint32_t word;
    std::memcpy(&word, &value, sizeof word);
    losses.push_back(word);
  }
  return losses;
}

}  // namespace

TEST_CASE("deterministic mode: the switch, and NaN fill of new memory", "[determinism]") {
  REQUIRE_FALSE(are_deterministic_algorithms_enabled());
  const bool fill_before = debug_fill();
  {
    DeterministicGuard guard;
    CHECK(are_deterministic_algorithms_enabled());
    CHECK(debug_fill());
    for (double v : empty({5}).to_vector<double>()) CHECK(std::isnan(v));
    for (double v : empty({3}, kFloat64).to_vector<double>()) CHECK(std::isnan(v));
    for (int64_t v : empty({3}, kInt64).to_vector<int64_t>()) CHECK(v == -1);
    use_deterministic_algorithms(true);  // idempotent
    CHECK(debug_fill());
  }
  CHECK_FALSE(are_deterministic_algorithms_enabled());
  CHECK(debug_fill() == fill_before);
  CHECK_NOTHROW(detail::alert_not_deterministic("test", "nothing"));
}

TEST_CASE("deterministic mode: an op without a deterministic form throws in the mode",
          "[determinism]") {
  DeterministicGuard guard;
  CHECK_THROWS_AS(detail::alert_not_deterministic("index_add_", "atomicAdd on float"),
                  NondeterministicError);
  try {
    detail::alert_not_deterministic("index_add_", "atomicAdd on float");
  } catch (const NondeterministicError& e) {
    CHECK(std::string(e.what()).find("index_add_") != std::string::npos);
    CHECK(std::string(e.what()).find("use_deterministic_algorithms") != std::string::npos);
  }
}

TEST_CASE("deterministic mode: CPU kernels give the same bits for 1, 2 and 4 threads",
          "[determinism][threads]") {
  DeterministicGuard guard;
  const auto one = with_threads(1, cpu_results);
  const auto two = with_threads(2, cpu_results);
  const auto four = with_threads(4, cpu_results);
  const auto again = with_threads(2, cpu_results);
  REQUIRE(one.size() == two.size());
  for (size_t i = 0; i < one.size(); ++i) {
    INFO("result " << i);
    CHECK(one[i] == two[i]);
    CHECK(one[i] == four[i]);
    CHECK(two[i] == again[i]);
  }
}

TEST_CASE("deterministic mode: MLP training losses are bitwise identical for 1 and 2 threads",
          "[determinism][threads]") {
  DeterministicGuard guard;
  // The example's MLP (2-64-64-2, batches of 64), and a wider one whose products and
  // reductions are large enough to use several threads.
  for (const auto& shape : {std::pair<int64_t, int64_t>{64, 64}, {256, 512}}) {
    const int64_t hidden = shape.first, batch = shape.second;  // (clang 14 can't capture a binding)
    INFO("hidden " << hidden << ", batch " << batch);
    const auto one = with_threads(1, [&] { return train_losses(hidden, batch, 12); });
    const auto two = with_threads(2, [&] { return train_losses(hidden, batch, 12); });
    const auto again = with_threads(2, [&] { return train_losses(hidden, batch, 12); });
    CHECK(one == two);
    CHECK(two == again);
    // The losses went down (the run trained at all).
    float first, last;
    std::memcpy(&first, &one.front(), 4);
    std::memcpy(&last, &one.back(), 4);
    CHECK(last < first);
  }
}

TEST_CASE("deterministic mode: GPU results repeat bit for bit", "[determinism][cuda]") {
  if (!cuda::is_available()) {
    WARN("no GPU: skipped");
    return;
  }
  DeterministicGuard guard;
  auto run = [] {
    manual_seed(99);
    std::vector<std::vector<unsigned char>> r;
    Tensor x = randn({1 << 20}, TensorOptions().device(kCUDA));
    Tensor m = randn({513, 1031}, TensorOptions().device(kCUDA));
    r.push_back(bits(x));
    r.push_back(bits(x.sum()));
    r.push_back(bits(m.sum(0)));
    r.push_back(bits(m.sum(1)));
    r.push_back(bits(std::get<1>(m.max(1))));
    r.push_back(bits(softmax(m, 1)));
    r.push_back(bits(matmul(m, m.t())));
    return r;
  };
  const auto first = run();
  const auto second = run();
  CHECK(first == second);
  CHECK(train_losses(256, 512, 8, kCUDA) == train_losses(256, 512, 8, kCUDA));
}
