// test_cpu_allocator.cpp: the CPU allocator's cache of large blocks (wick/cpu.hpp): a freed
// block serves the next request of its size class, the byte limit holds (eviction, blocks
// larger than the limit, 0 turning it off), empty_cache() gives everything back, values are
// right in reused blocks, and threads can allocate and free at once. Under AddressSanitizer the
// cache is off by design (core/src/cpu_allocator.cpp), and that is what is checked there.
#include <thread>

#include "reference.hpp"

using namespace wick;

#if defined(__SANITIZE_ADDRESS__)
#define WICK_TEST_CACHE_ON 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WICK_TEST_CACHE_ON 0
#endif
#endif
#ifndef WICK_TEST_CACHE_ON
#define WICK_TEST_CACHE_ON 1
#endif

namespace {

// Restores the limit a test changed.
struct LimitScope {
  size_t saved = cpu::cache_stats().limit_bytes;
  ~LimitScope() { cpu::set_cache_limit(saved); }
};

}  // namespace

TEST_CASE("cpu cache: a freed large block serves the next request of its size", "[allocator]") {
  LimitScope scope;
  cpu::empty_cache();
  [[maybe_unused]] const void* first = nullptr;  // read only where the cache is on
  {
    Tensor t = empty({1 << 20});  // 4 MiB
    first = t.raw_data();
  }
  const cpu::CacheStats after_free = cpu::cache_stats();
  Tensor again = empty({(1 << 20) - 5});  // the same size class
  const cpu::CacheStats after_reuse = cpu::cache_stats();
#if WICK_TEST_CACHE_ON
  CHECK(after_free.cached_bytes >= (size_t{4} << 20));
  CHECK(again.raw_data() == first);
  CHECK(after_reuse.reuses == after_free.reuses + 1);
  CHECK(after_reuse.cached_bytes == after_free.cached_bytes - (size_t{4} << 20));
  CHECK(reinterpret_cast<uintptr_t>(again.raw_data()) % (size_t{2} << 20) == 0);  // huge page
#else
  CHECK(after_free.cached_bytes == 0);
  CHECK(after_reuse.reuses == 0);
#endif
  // A reused block holds whatever the op writes, not what the last tensor left.
  Tensor a = arange(0, (1 << 20) - 5, 1, TensorOptions(kFloat32));
  Tensor b = a + 1.0f;
  const std::vector<float> values = b.to_vector<float>();
  CHECK(values.front() == 1.0f);
  CHECK(values.back() == static_cast<float>((1 << 20) - 5));
  cpu::empty_cache();
  CHECK(cpu::cache_stats().cached_bytes == 0);
}

TEST_CASE("cpu cache: the limit holds, and 0 turns the cache off", "[allocator]") {
  LimitScope scope;
  cpu::empty_cache();
  cpu::set_cache_limit(size_t{5} << 20);  // 5 MiB: one 4 MiB block, not two
  { Tensor a = empty({1 << 20}), b = empty({1 << 20}); }
  CHECK(cpu::cache_stats().cached_bytes <= (size_t{5} << 20));
  {
    Tensor big = empty({3 << 20});  // 12 MiB, more than the limit: back to libc when freed
  }
  CHECK(cpu::cache_stats().cached_bytes <= (size_t{5} << 20));
  cpu::set_cache_limit(0);
  CHECK(cpu::cache_stats().cached_bytes == 0);
  const int64_t reuses = cpu::cache_stats().reuses;
  { Tensor a = empty({1 << 20}); }
  Tensor b = empty({1 << 20});
  CHECK(cpu::cache_stats().cached_bytes == 0);
  CHECK(cpu::cache_stats().reuses == reuses);
}

TEST_CASE("cpu cache: threads allocate and free large blocks at once", "[allocator]") {
  LimitScope scope;
  cpu::set_cache_limit(size_t{64} << 20);
  std::vector<std::thread> threads;
  std::vector<double> sums(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &sums] {
      for (int i = 0; i < 50; ++i) {
        const int64_t n = 20000 + 7919 * ((i + t) % 5);  // five size classes above 64 KiB
        Tensor x = full({n}, 1.0f);
        sums[static_cast<size_t>(t)] += x.sum().item().to_double() / static_cast<double>(n);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (double s : sums) CHECK(s == 50.0);
  CHECK(cpu::cache_stats().cached_bytes <= (size_t{64} << 20));
  MemoryStats stats = backend_for(Device(kCPU), "test").memory_stats(0);
  CHECK(stats.reserved_bytes == static_cast<int64_t>(cpu::cache_stats().cached_bytes));
  backend_for(Device(kCPU), "test").empty_cache();
  CHECK(cpu::cache_stats().cached_bytes == 0);
}
