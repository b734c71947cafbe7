// test_thread_pool.cpp: kernels/cpu/thread_pool.hpp. Every chunk runs exactly once; a caller
// finishes a job alone when no worker comes (the case a fork-join team cannot handle: it waits
// at its barrier for every thread); chunks that wait for each other get distinct threads; an
// exception reaches the caller and leaves the pool usable; a parallel loop inside a chunk runs
// serially; several host threads at once; a forked child; OMP_NUM_THREADS's text.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpu_quota.hpp"
#include "loops.hpp"
#include "thread_pool.hpp"
#include "wick/wick.hpp"

using namespace wick;

namespace {
// A job of `chunks` chunks whose chunks wait (up to 10 s) until every chunk has started, so
// that each needs a thread of its own; returns the distinct threads that ran them.
size_t threads_for_waiting_chunks(int64_t chunks) {
  std::atomic<int64_t> started{0};
  std::mutex mutex;
  std::set<std::thread::id> ids;
  cpu::run_chunks(chunks, [&](int64_t) {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
    }
    started.fetch_add(1);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (started.load() < chunks && std::chrono::steady_clock::now() < until) {
      std::this_thread::yield();
    }
  });
  return ids.size();
}

struct HoldWorkers {
  HoldWorkers() { cpu::hold_workers_for_testing(true); }
  ~HoldWorkers() { cpu::hold_workers_for_testing(false); }
  HoldWorkers(const HoldWorkers&) = delete;
  HoldWorkers& operator=(const HoldWorkers&) = delete;
};
}  // namespace

TEST_CASE("pool: every chunk runs exactly once", "[pool]") {
  for (int64_t chunks : {1, 2, 3, 7, 64, 1024}) {
    for (int repeat = 0; repeat < 20; ++repeat) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(chunks));
      cpu::run_chunks(chunks, [&](int64_t c) { runs[static_cast<size_t>(c)].fetch_add(1); });
      int wrong = 0;
      for (const auto& r : runs) wrong += r.load() != 1;
      INFO("chunks " << chunks << ", repeat " << repeat);
      REQUIRE(wrong == 0);
    }
  }
  CHECK_NOTHROW(cpu::run_chunks(0, [](int64_t) { FAIL("a chunk of an empty job ran"); }));
  CHECK_THROWS_AS(cpu::run_chunks(cpu::kMaxChunks + 1, [](int64_t) {}), Error);
}

TEST_CASE("pool: chunks that wait for each other run on distinct threads", "[pool]") {
  for (int64_t chunks : {2, 3, 4}) {
    INFO("chunks " << chunks);
    CHECK(threads_for_waiting_chunks(chunks) == static_cast<size_t>(chunks));
  }
  CHECK(cpu::pool_workers() >= 3);
}

TEST_CASE("pool: the caller runs every chunk no worker claims", "[pool]") {
  (void)threads_for_waiting_chunks(4);  // the workers exist and are warm
  REQUIRE(cpu::pool_workers() >= 3);
  const HoldWorkers hold;
  for (int repeat = 0; repeat < 50; ++repeat) {
    std::set<std::thread::id> ids;  // no lock: only the caller may touch it
    int64_t sum = 0;
    cpu::run_chunks(8, [&](int64_t c) {
      ids.insert(std::this_thread::get_id());
      sum += c;
    });
    REQUIRE(ids.size() == 1);
    REQUIRE(*ids.begin() == std::this_thread::get_id());
    REQUIRE(sum == 28);
  }
}

TEST_CASE("pool: an exception reaches the caller and the pool stays usable", "[pool]") {
  // On the caller: chunk 0 of a job the workers may not join.
  {
    const HoldWorkers hold;
    try {
      cpu::run_chunks(4, [](int64_t c) {
        if (c == 0) throw ValueError("chunk 0 failed");
      });
      FAIL("no exception");
    } catch (const ValueError& e) {
      CHECK(std::string(e.what()) == "chunk 0 failed");
    }
  }
  // On a worker: of two chunks that wait for each other, the one the caller does not run.
  for (int repeat = 0; repeat < 10; ++repeat) {
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<int> started{0};
    try {
      cpu::run_chunks(2, [&](int64_t) {
        started.fetch_add(1);
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (started.load() < 2 && std::chrono::steady_clock::now() < until) {
          std::this_thread::yield();
        }
        if (std::this_thread::get_id() != caller) throw std::runtime_error("worker failed");
      });
      FAIL("no exception");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "worker failed");
    }
  }
  CHECK(threads_for_waiting_chunks(3) == 3);
  manual_seed(5);
  const Tensor x = randn({1 << 20});
  const int saved = get_num_threads();
  set_num_threads(1);
  const Tensor one = x.sum();
  set_num_threads(3);
  CHECK(equal(x.sum(), one));
  set_num_threads(saved);
}

TEST_CASE("pool: a parallel loop inside a chunk runs serially on that chunk's thread", "[pool]") {
  std::atomic<int> inner_on_other_thread{0}, inner_calls{0}, outside_region{0}, not_busy{0};
  cpu::run_chunks(3, [&](int64_t) {
    if (!cpu::in_parallel_region()) outside_region.fetch_add(1);
    if (!cpu::pool_busy()) not_busy.fetch_add(1);
    const std::thread::id me = std::this_thread::get_id();
    cpu::run_chunks(4, [&](int64_t) {
      inner_calls.fetch_add(1);
      if (std::this_thread::get_id() != me) inner_on_other_thread.fetch_add(1);
    });
  });
  CHECK(inner_calls.load() == 12);
  CHECK(inner_on_other_thread.load() == 0);
  CHECK(outside_region.load() == 0);
  CHECK(not_busy.load() == 0);  // the job holds the pool while its chunks run
  CHECK_FALSE(cpu::in_parallel_region());
  CHECK_FALSE(cpu::pool_busy());
}

TEST_CASE("pool: several host threads run jobs at once", "[pool]") {
  constexpr int kHosts = 4, kJobs = 200;
  std::atomic<int> wrong{0};
  std::vector<std::thread> hosts;
  for (int h = 0; h < kHosts; ++h) {
    hosts.emplace_back([&, h] {
      for (int j = 0; j < kJobs; ++j) {
        const int64_t chunks = 1 + (h + j) % 5;
        std::vector<int64_t> out(static_cast<size_t>(chunks), -1);
        cpu::run_chunks(chunks, [&](int64_t c) { out[static_cast<size_t>(c)] = c * h + j; });
        for (int64_t c = 0; c < chunks; ++c) {
          if (out[static_cast<size_t>(c)] != c * h + j) wrong.fetch_add(1);
        }
      }
    });
  }
  for (auto& t : hosts) t.join();
  CHECK(wrong.load() == 0);
}

TEST_CASE("pool: a forked child makes a pool of its own", "[pool][fork]") {
  (void)threads_for_waiting_chunks(2);  // the parent's pool exists
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The parent's workers do not exist here; waiting chunks need two live threads.
    const bool ok = threads_for_waiting_chunks(2) == 2 && cpu::pool_workers() >= 1;
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("pool: set_num_threads beyond the CPUs does not make the GEMM a team that large",
          "[pool][fork]") {
  // In a fresh child (its own pool): set_num_threads(1024) and a 700^3 product. Before the fix
  // the GEMM split into 1024 cells, started 1023 workers and asked for 986 MB of packing
  // blocks; now its team is at most the CPUs this process may run on. Same bits either way.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    manual_seed(1);
    Tensor a = randn({700, 700});  // before the setting: parallel loops are not capped
    set_num_threads(1024);
    Tensor wide = matmul(a, a);
    const int workers = cpu::pool_workers();
    set_num_threads(1);
    const bool same = equal(wide, matmul(a, a));
    ::_exit(workers < cpu::available_cpus() && same ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("threads: OMP_NUM_THREADS's text", "[num_threads]") {
  CHECK(cpu::omp_num_threads_setting(nullptr) == 0);
  CHECK(cpu::omp_num_threads_setting("") == 0);
  CHECK(cpu::omp_num_threads_setting("4") == 4);
  CHECK(cpu::omp_num_threads_setting(" 8 ") == 8);
  CHECK(cpu::omp_num_threads_setting("4,2") == 4);
  CHECK(cpu::omp_num_threads_setting("2000") == kMaxNumThreads);
  CHECK(cpu::omp_num_threads_setting("99999999999999999999") == kMaxNumThreads);
  CHECK(cpu::omp_num_threads_setting("0") == 0);
  CHECK(cpu::omp_num_threads_setting("-3") == 0);
  CHECK(cpu::omp_num_threads_setting("-99999999999999999999") == 0);
  CHECK(cpu::omp_num_threads_setting("four") == 0);
  CHECK(cpu::omp_num_threads_setting("4x") == 0);
}
