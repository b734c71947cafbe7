// test_sampler.cpp: DistributedSampler and random_permutation. Without communication: the
// permutation is one, fixed by (seed, epoch) (known values pin it across platforms); PyTorch's
// padding and drop_last rules; shares that cover the data set; per-step batches of n ranks that
// equal one process's batch of n times the size. With the group: rank 0's seed reaches every
// rank, and the ranks' shares gathered together cover the data set. Run with 1, 2 and 3 ranks.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "test_support.hpp"

namespace dist = wick::distributed;
using wick_test::group;

TEST_CASE("sampler: random_permutation is a fixed permutation of (seed, epoch)", "[sampler]") {
  const std::vector<int64_t> p = dist::random_permutation(1000, 42, 3);
  std::vector<int64_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 1000; ++i) CHECK(sorted[static_cast<size_t>(i)] == i);
  CHECK(p == dist::random_permutation(1000, 42, 3));
  CHECK(p != dist::random_permutation(1000, 42, 4));
  CHECK(p != dist::random_permutation(1000, 43, 3));
  // Pinned values: the same on every platform and standard library.
  CHECK(dist::random_permutation(8, 0, 0) == std::vector<int64_t>{1, 0, 6, 4, 3, 5, 2, 7});
  CHECK(dist::random_permutation(0, 1, 1).empty());
  CHECK(dist::random_permutation(1, 1, 1) == std::vector<int64_t>{0});
}

TEST_CASE("sampler: PyTorch's sizes, padding and drop_last", "[sampler]") {
  dist::DistributedSamplerOptions no_shuffle;
  no_shuffle.shuffle = false;
  // 10 samples over 3 ranks: 4 each, padded with the head (0, 1).
  std::vector<std::vector<int64_t>> shares;
  for (int r = 0; r < 3; ++r) {
    dist::DistributedSampler s(10, 3, r, no_shuffle);
    CHECK(s.num_samples() == 4);
    CHECK(s.total_size() == 12);
    shares.push_back(s.indices());
  }
  CHECK(shares[0] == std::vector<int64_t>{0, 3, 6, 9});
  CHECK(shares[1] == std::vector<int64_t>{1, 4, 7, 0});
  CHECK(shares[2] == std::vector<int64_t>{2, 5, 8, 1});
  // drop_last: 3 each, the tail (9) dropped.
  no_shuffle.drop_last = true;
  dist::DistributedSampler dropped(10, 3, 2, no_shuffle);
  CHECK(dropped.num_samples() == 3);
  CHECK(dropped.indices() == std::vector<int64_t>{2, 5, 8});
  // Fewer samples than ranks: padding repeats the data set.
  dist::DistributedSampler tiny(2, 5, 4, dist::DistributedSamplerOptions{false, 0, false});
  CHECK(tiny.epoch_order() == std::vector<int64_t>{0, 1, 0, 1, 0});
  CHECK(tiny.indices() == std::vector<int64_t>{0});
  CHECK_THROWS_AS(dist::DistributedSampler(10, 3, 3), wick::IndexError);
  CHECK_THROWS_AS(dist::DistributedSampler(10, 0, 0), wick::ValueError);
}

TEST_CASE("sampler: shares cover the data set, reshuffle per epoch, batch like one process",
          "[sampler]") {
  for (int replicas : {1, 2, 3, 4}) {
    for (int64_t n : {12, 1000, 1001}) {
      INFO(replicas << " ranks, " << n << " samples");
      std::multiset<int64_t> seen;
      std::vector<std::vector<int64_t>> shares;
      for (int r = 0; r < replicas; ++r) {
        dist::DistributedSampler s(n, replicas, r, dist::DistributedSamplerOptions{true, 7, false});
        s.set_epoch(5);
        shares.push_back(s.indices());
        seen.insert(shares.back().begin(), shares.back().end());
        dist::DistributedSampler next(n, replicas, r,
                                      dist::DistributedSamplerOptions{true, 7, false});
        next.set_epoch(6);
        CHECK(next.indices() != shares.back());
      }
      for (int64_t i = 0; i < n; ++i) CHECK(seen.count(i) >= 1);
      CHECK(static_cast<int64_t>(seen.size()) == (n + replicas - 1) / replicas * replicas);
      // Step k of every rank with batches of b covers the single process's step k with R b.
      if (n % replicas == 0) {
        const int64_t b = 4;
        dist::DistributedSampler single(n, 1, 0, dist::DistributedSamplerOptions{true, 7, false});
        single.set_epoch(5);
        const std::vector<int64_t> order = single.indices();
        const int64_t per_rank = n / replicas;
        for (int64_t start = 0; start < per_rank; start += b) {
          std::multiset<int64_t> step;
          for (const auto& share : shares) {
            for (int64_t k = start; k < std::min(start + b, per_rank); ++k) {
              step.insert(share[static_cast<size_t>(k)]);
            }
          }
          const int64_t lo = start * replicas, hi = std::min((start + b) * replicas, n);
          CHECK(step == std::multiset<int64_t>(order.begin() + lo, order.begin() + hi));
        }
      }
    }
  }
}

TEST_CASE("sampler: rank 0's seed is shared, and the ranks' shares cover the data set",
          "[sampler]") {
  const int rank = group().rank(), n = group().size();
  dist::DistributedSampler sampler(
      101, group(),
      dist::DistributedSamplerOptions{true, static_cast<uint64_t>(1234 + rank), false});
  CHECK(sampler.seed() == 1234);
  sampler.set_epoch(2);
  const std::vector<int64_t> mine = sampler.indices();
  const std::vector<int64_t> all = group().all_gather(wick::tensor(mine)).to_vector<int64_t>();
  std::set<int64_t> covered(all.begin(), all.end());
  CHECK(covered.size() == 101);
  CHECK(static_cast<int64_t>(all.size()) == (101 + n - 1) / n * n);
  // Every rank computed the same epoch order.
  dist::DistributedSampler single(101, 1, 0, dist::DistributedSamplerOptions{true, 1234, false});
  single.set_epoch(2);
  const std::vector<int64_t> order = sampler.epoch_order();
  CHECK(std::vector<int64_t>(order.begin(), order.begin() + 101) == single.indices());
}
