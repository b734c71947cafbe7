// test_threads.cpp: wick::set_num_threads / get_num_threads (wick/threads.hpp). The setting
// decides how many threads a large parallel loop (loops.hpp's parallel_for, which every CPU
// kernel uses) may use, for calls from any host thread; bad values are ValueErrors that leave it
// unchanged; results do not depend on it. The default is OMP_NUM_THREADS, else the CPUs capped
// by the cgroup CPU limit (cpu_quota.hpp: parsed here from fake /proc and /sys/fs/cgroup trees).
// The pool itself is tested in test_thread_pool.cpp.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cpu_quota.hpp"
#include "loops.hpp"
#include "wick/wick.hpp"

using namespace wick;

namespace {
// The distinct threads that ran the chunks of a large parallel loop whose chunks wait (up to
// 10 s) until `expected` threads have arrived: chunks are claimed, so a quick caller could
// otherwise run every chunk itself before a worker wakes.
size_t threads_in_a_large_loop(size_t expected) {
  std::mutex mutex;
  std::set<std::thread::id> ids;
  cpu::parallel_for(64 * cpu::kParallelGrain, cpu::kParallelGrain, [&](int64_t, int64_t) {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < until) {
      {
        const std::lock_guard<std::mutex> lock(mutex);
        if (ids.size() >= expected) break;
      }
      std::this_thread::yield();
    }
  });
  return ids.size();
}

// Restores the setting a test found.
struct RestoreThreads {
  int saved = get_num_threads();
  ~RestoreThreads() { set_num_threads(saved); }
};
}  // namespace

TEST_CASE("threads: set_num_threads decides the team of every host thread", "[num_threads]") {
  RestoreThreads restore;
  REQUIRE(get_num_threads() >= 1);
  // Three threads even on a 2-CPU machine: the setting, not the CPU count, decides.
  for (int n : {1, 3, 2}) {
    set_num_threads(n);
    CHECK(get_num_threads() == n);
    CHECK(threads_in_a_large_loop(static_cast<size_t>(n)) == static_cast<size_t>(n));
    // Another host thread sees the same setting.
    size_t from_other = 0;
    int reported = 0;
    std::thread other([&] {
      reported = get_num_threads();
      from_other = threads_in_a_large_loop(static_cast<size_t>(n));
    });
    other.join();
    CHECK(reported == n);
    CHECK(from_other == static_cast<size_t>(n));
  }
}

TEST_CASE("threads: a number outside 1..kMaxNumThreads is a ValueError and changes nothing",
          "[num_threads]") {
  RestoreThreads restore;
  set_num_threads(2);
  const int before = get_num_threads();
  for (int bad : {0, -1, -2147483647 - 1, kMaxNumThreads + 1, 2147483647}) {
    try {
      set_num_threads(bad);
      FAIL("set_num_threads(" << bad << ") did not throw");
    } catch (const ValueError& e) {
      const std::string message = e.what();
      CHECK(message.find("set_num_threads") != std::string::npos);
      CHECK(message.find(std::to_string(bad)) != std::string::npos);
    }
    CHECK(get_num_threads() == before);
  }
  set_num_threads(kMaxNumThreads);  // the largest accepted (no op runs on it here)
  CHECK(get_num_threads() == kMaxNumThreads);
}

TEST_CASE("threads: results do not depend on the setting", "[num_threads]") {
  RestoreThreads restore;
  manual_seed(3);
  const Tensor a = randn({384, 300}), b = randn({300, 257}), x = randn({1 << 20});
  const auto run = [&] { return std::tuple{matmul(a, b), x.sum(), a.softmax(1), (x * 2.0).exp()}; };
  set_num_threads(1);
  const auto [m1, s1, p1, e1] = run();
  set_num_threads(2);
  const auto [m2, s2, p2, e2] = run();
  CHECK(equal(m1, m2));
  CHECK(equal(s1, s2));
  CHECK(equal(p1, p2));
  CHECK(equal(e1, e2));
}

// Run alone by CTest with OMP_NUM_THREADS=2000 ("cpu.threads: OMP_NUM_THREADS past the cap"),
// before anything sets the count: wick caps the default it takes from OMP_NUM_THREADS, so the
// count it reports can be set back (a restore of 2000 would throw).
TEST_CASE("threads: OMP_NUM_THREADS past kMaxNumThreads is capped", "[.omp_env]") {
  const char* env = std::getenv("OMP_NUM_THREADS");
  REQUIRE(env != nullptr);  // CTest's case sets it
  REQUIRE(std::string(env) == "2000");
  CHECK(get_num_threads() == kMaxNumThreads);
  const int saved = get_num_threads();
  set_num_threads(1);
  CHECK_NOTHROW(set_num_threads(saved));
}

// ---- the cgroup CPU limit (cpu_quota.hpp), on files that mimic /proc and /sys/fs/cgroup ----
namespace {
// Paths relative to a fake root, and their text.
using Files = std::vector<std::pair<std::string, std::string>>;

// A temporary folder with the given files, removed at the end.
struct FakeRoot {
  std::filesystem::path dir;
  explicit FakeRoot(const Files& files) {
    static int counter = 0;
    dir = std::filesystem::temp_directory_path() /
          ("wick-cgroup-" + std::to_string(::getpid()) + "-" + std::to_string(++counter));
    for (const auto& [path, text] : files) {
      const auto file = dir / path;
      std::filesystem::create_directories(file.parent_path());
      std::ofstream(file) << text;
    }
  }
  ~FakeRoot() { std::filesystem::remove_all(dir); }
  std::string root() const { return dir.string(); }
};
}  // namespace

TEST_CASE("threads: cgroup cpu.max and cfs quota texts", "[num_threads][cgroup]") {
  CHECK(cpu::parse_cpu_max("150000 100000\n") == 1.5);
  CHECK(cpu::parse_cpu_max("400000 100000") == 4.0);
  CHECK_FALSE(cpu::parse_cpu_max("max 100000\n").has_value());
  CHECK_FALSE(cpu::parse_cpu_max("").has_value());
  CHECK_FALSE(cpu::parse_cpu_max("100000").has_value());
  CHECK_FALSE(cpu::parse_cpu_max("abc 100000").has_value());
  CHECK_FALSE(cpu::parse_cpu_max("100000 0").has_value());
  CHECK(cpu::parse_cfs_quota("50000\n", "100000\n") == 0.5);
  CHECK_FALSE(cpu::parse_cfs_quota("-1\n", "100000\n").has_value());
  CHECK_FALSE(cpu::parse_cfs_quota("50000x", "100000").has_value());
  CHECK(cpu::threads_for_cpu_limit(0.5) == 1);
  CHECK(cpu::threads_for_cpu_limit(1.0) == 1);
  CHECK(cpu::threads_for_cpu_limit(2.5) == 3);
  CHECK(cpu::threads_for_cpu_limit(16.0) == 16);
}

TEST_CASE("threads: the tightest cgroup limit on the process's path", "[num_threads][cgroup]") {
  SECTION("v2: a parent's limit holds for its child") {
    const FakeRoot fake(Files{{"proc/self/cgroup", "0::/jobs/build\n"},
                              {"sys/fs/cgroup/cpu.max", "max 100000\n"},
                              {"sys/fs/cgroup/jobs/cpu.max", "250000 100000\n"},
                              {"sys/fs/cgroup/jobs/build/cpu.max", "max 100000\n"}});
    CHECK(cpu::cgroup_cpu_limit(fake.root()) == 2.5);
  }
  SECTION("v2: the child's limit when it is tighter") {
    const FakeRoot fake(Files{{"proc/self/cgroup", "0::/jobs/build\n"},
                              {"sys/fs/cgroup/jobs/cpu.max", "800000 100000\n"},
                              {"sys/fs/cgroup/jobs/build/cpu.max", "200000 100000\n"}});
    CHECK(cpu::cgroup_cpu_limit(fake.root()) == 2.0);
  }
  SECTION("v2 in a container: the path is the host's, the mount root is the container's") {
    const FakeRoot fake(Files{{"proc/self/cgroup", "0::/kubepods/pod1/c2\n"},
                              {"sys/fs/cgroup/cpu.max", "400000 100000\n"}});
    CHECK(cpu::cgroup_cpu_limit(fake.root()) == 4.0);
  }
  SECTION("v1: the cpu controller's quota and period") {
    const FakeRoot fake(
        Files{{"proc/self/cgroup", "4:memory:/x\n3:cpu,cpuacct:/docker/abc\n"},
              {"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n"},
              {"sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n"},
              {"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "300000\n"},
              {"sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n"}});
    CHECK(cpu::cgroup_cpu_limit(fake.root()) == 3.0);
  }
  SECTION("no limit anywhere, or nothing to read") {
    const FakeRoot unlimited(
        {{"proc/self/cgroup", "0::/\n"}, {"sys/fs/cgroup/cpu.max", "max 100000\n"}});
    CHECK_FALSE(cpu::cgroup_cpu_limit(unlimited.root()).has_value());
    const FakeRoot v1_unlimited(Files{{"proc/self/cgroup", "1:cpu:/\n"},
                                      {"sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n"},
                                      {"sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n"}});
    CHECK_FALSE(cpu::cgroup_cpu_limit(v1_unlimited.root()).has_value());
    const FakeRoot empty(Files{{"proc/self/cgroup", "garbage without colons\n"}});
    CHECK_FALSE(cpu::cgroup_cpu_limit(empty.root()).has_value());
    CHECK_FALSE(cpu::cgroup_cpu_limit(empty.root() + "/missing").has_value());
  }
}

// This process's own limit: the default thread count never exceeds it (unless OMP_NUM_THREADS
// is set, which CTest's runs here do not do for this case).
TEST_CASE("threads: the default respects this machine's cgroup limit", "[num_threads][cgroup]") {
  const int limit = cpu::cgroup_thread_limit();
  INFO("cgroup thread limit " << limit << " (0: none)");
  const auto cpus = cpu::cgroup_cpu_limit();
  CHECK(limit == (cpus ? cpu::threads_for_cpu_limit(*cpus) : 0));
}
