// test_paired.cpp: bench/paired.hpp, the interleaved timing behind the report's comparisons
// with OpenBLAS and libtorch: rotating order, one entry per round, short calls batched, and
// the statistics. No timing is asserted beyond what any clock guarantees.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>
#include <vector>

#include "paired.hpp"

TEST_CASE("paired: each round runs every implementation once, in rotating order", "[paired]") {
  std::vector<int> order;
  // Calls of 100 us: longer than the batching threshold, so one call per block.
  const auto sleeper = [&order](int id) {
    return [&order, id] {
      order.push_back(id);
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    };
  };
  paired::Options opt;
  opt.rounds = 4;
  const auto seconds = paired::time_interleaved({sleeper(0), sleeper(1), sleeper(2)}, opt);
  REQUIRE(seconds.size() == 3);
  for (const auto& s : seconds) {
    REQUIRE(s.size() == 4);
    for (double t : s) CHECK(t >= 100e-6);
  }
  CHECK(order == std::vector<int>{0, 1, 2, 1, 2, 0, 2, 0, 1, 0, 1, 2});
}

TEST_CASE("paired: calls shorter than the clock's resolution are timed in batches", "[paired]") {
  long calls = 0;
  volatile long sink = 0;
  const double per_call = paired::time_block(
      [&] {
        ++calls;
        sink = sink + 1;
      },
      0);
  // One block of a near-empty call: the batch doubled until it lasted kMinSampleS, so there
  // were many calls, and the time per call is the batch's time divided by its size.
  CHECK(calls >= 64);
  CHECK(per_call > 0);
  CHECK(per_call < paired::kMinSampleS);
}

TEST_CASE("paired: a block drops its first call when it has more", "[paired]") {
  int calls = 0;
  const double per_call = paired::time_block(
      [&] {
        // The first call is slow (a pool waking up); the rest take 100 us.
        std::this_thread::sleep_for(std::chrono::microseconds(calls++ == 0 ? 20000 : 100));
      },
      0.05);
  CHECK(calls > 2);
  CHECK(per_call < 0.01);
}

TEST_CASE("paired: median, quantiles and per-round speed ratios", "[paired]") {
  CHECK(paired::median({3, 1, 2}) == 2);
  CHECK(paired::median({4, 1, 3, 2}) == 2.5);
  CHECK(paired::median({}) == 0);
  CHECK(paired::quantile({1, 2, 3, 4, 5}, 0.25) == 2);
  CHECK(paired::quantile({1, 2}, 0.5) == 1.5);
  CHECK(paired::quantile({10, 0}, 1.0) == 10);
  // impl took 1 s and 2 s, the reference 2 s and 2 s: impl was 2x and 1x as fast.
  CHECK(paired::speed_ratios({1, 2}, {2, 2}) == std::vector<double>{2, 1});
  // A round without a positive time gives no ratio; unequal lengths pair what exists.
  CHECK(paired::speed_ratios({0, 4, 1}, {1, 2}) == std::vector<double>{0.5});
}
