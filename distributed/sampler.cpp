// sampler.cpp: DistributedSampler and random_permutation (sampler.hpp), PyTorch's
// DistributedSampler rules with a generator of our own so that the order is the same on every
// platform and standard library. Tested by tests/distributed/test_sampler.cpp.
#include "wick/distributed/sampler.hpp"

#include "wick/ops.hpp"

namespace wick::distributed {
namespace {

// SplitMix64 (Steele, Lea, Flood 2014): a 64-bit state, one add and a finaliser per draw.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform on [0, bound), without modulo bias (rejects the low remainder).
  uint64_t below(uint64_t bound) {
    const uint64_t threshold = (0 - bound) % bound;
    for (;;) {
      const uint64_t r = next();
      if (r >= threshold) return r % bound;
    }
  }

 private:
  uint64_t state_;
};

}  // namespace

std::vector<int64_t> random_permutation(int64_t n, uint64_t seed, int64_t epoch) {
  WICK_CHECK(n >= 0, ValueError, "random_permutation", "n must be >= 0, got ", n);
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  // Mix the epoch into the seed through one SplitMix64 step, so nearby (seed, epoch) pairs
  // give unrelated streams.
  SplitMix64 rng(SplitMix64(seed).next() ^ static_cast<uint64_t>(epoch) * 0xd1b54a32d192ed03ull);
  for (int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(rng.below(static_cast<uint64_t>(i) + 1));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  return order;
}

DistributedSampler::DistributedSampler(int64_t dataset_size, int num_replicas, int rank,
                                       DistributedSamplerOptions options)
    : dataset_size_(dataset_size), num_replicas_(num_replicas), rank_(rank), options_(options) {
  WICK_CHECK(dataset_size >= 0, ValueError, "DistributedSampler",
             "the data set size must be >= 0, got ", dataset_size);
  WICK_CHECK(num_replicas >= 1, ValueError, "DistributedSampler", "num_replicas must be >= 1, got ",
             num_replicas);
  WICK_CHECK(rank >= 0 && rank < num_replicas, IndexError, "DistributedSampler", "rank ", rank,
             " is not in [0, ", num_replicas, ")");
  const int64_t r = num_replicas;
  num_samples_ = options.drop_last ? dataset_size / r : (dataset_size + r - 1) / r;
}

namespace {
uint64_t shared_seed(ProcessGroup& group, uint64_t seed) {
  Tensor value = tensor(std::vector<int64_t>{static_cast<int64_t>(seed)});
  group.broadcast(value, 0);
  return static_cast<uint64_t>(value.item<int64_t>());
}
}  // namespace

DistributedSampler::DistributedSampler(int64_t dataset_size, ProcessGroup& group,
                                       DistributedSamplerOptions options)
    : DistributedSampler(dataset_size, group.size(), group.rank(), options) {
  options_.seed = shared_seed(group, options.seed);
}

std::vector<int64_t> DistributedSampler::epoch_order() const {
  std::vector<int64_t> order;
  if (options_.shuffle) {
    order = random_permutation(dataset_size_, options_.seed, epoch_);
  } else {
    order.resize(static_cast<size_t>(dataset_size_));
    for (int64_t i = 0; i < dataset_size_; ++i) order[static_cast<size_t>(i)] = i;
  }
  const auto total = static_cast<size_t>(total_size());
  if (order.size() > total) {
    order.resize(total);  // drop_last
  } else if (!order.empty()) {
    // Pad by repeating the head (several times when the data set is smaller than the ranks).
    const size_t n = order.size();
    for (size_t i = n; i < total; ++i) order.push_back(order[(i - n) % n]);
  }
  return order;
}

std::vector<int64_t> DistributedSampler::indices() const {
  const std::vector<int64_t> order = epoch_order();
  std::vector<int64_t> mine;
  mine.reserve(static_cast<size_t>(num_samples_));
  for (size_t i = static_cast<size_t>(rank_); i < order.size();
       i += static_cast<size_t>(num_replicas_)) {
    mine.push_back(order[i]);
  }
  return mine;
}

}  // namespace wick::distributed
