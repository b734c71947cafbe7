// cpu_allocator.cpp: see cpu_allocator.hpp. Small blocks are rounded up to a power of two from
// 64 B to 64 KiB (size classes); each thread keeps up to kBlocksPerClass freed blocks per class
// and hands them out again before asking libc. A block freed on another thread lands in that
// thread's cache, which is fine: blocks are interchangeable within a class.
// Larger blocks are rounded up to one of 8 sizes per power of two (at most 12.5% more) and, when
// freed, kept in one process-wide cache (a mutex: these are rare and each is worth a large
// kernel) up to a byte limit, so that a loop making the same big temporaries does not map fresh
// pages and fault every one of them in on first touch: `a + b` on 2^24 floats reached 0.20x
// memcpy's bandwidth through the API against 1.15x for its kernel (docs/cpu-gemm.md). Blocks of
// 2 MiB and more are 2 MiB aligned and advised for transparent huge pages, so that first touch
// costs one fault per 2 MiB. Under AddressSanitizer both caches are off, so use-after-free
// stays visible. Tested by every CPU test and tests/test_cpu_allocator.cpp; measured in
// bench/cpu (add_op) and bench/bench_cpu_ops.cpp (add_small).
#include "cpu_allocator.hpp"

#include "wick/fork_guard.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "wick/cpu.hpp"
#include "wick/debug.hpp"
#include "wick/error.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define WICK_CPU_BLOCK_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WICK_CPU_BLOCK_CACHE 0
#endif
#endif
#ifndef WICK_CPU_BLOCK_CACHE
#define WICK_CPU_BLOCK_CACHE 1
#endif

namespace wick::detail {
namespace {

constexpr size_t kAlignment = 64;
constexpr int kMinShift = 6;   // 64 B
constexpr int kMaxShift = 16;  // 64 KiB
constexpr int kClasses = kMaxShift - kMinShift + 1;
constexpr size_t kBlocksPerClass = 32;

int size_class(size_t nbytes) {
  int shift = kMinShift;
  while ((size_t{1} << shift) < nbytes) ++shift;
  return shift - kMinShift;
}

// Set when this thread's cache has been destroyed. Thread-locals die before static objects, so
// a global Tensor freed at exit (or a tensor freed by another thread-local's destructor) must
// find the cache gone and free its block directly; a bool needs no destructor and stays
// readable until the thread ends.
thread_local bool t_cache_destroyed __attribute__((tls_model("initial-exec"))) = false;

struct BlockCache {
  std::array<std::vector<void*>, kClasses> free_blocks;
  ~BlockCache() {
    t_cache_destroyed = true;
    for (auto& blocks : free_blocks) {
      for (void* p : blocks) std::free(p);
    }
  }
};

// This thread's cache, or null once it has been destroyed.
BlockCache* cache() {
  if (t_cache_destroyed) return nullptr;
  thread_local BlockCache c;
  return &c;
}

// ---- large blocks ----

constexpr size_t kHugePage = size_t{2} << 20;

// The size a large request is served with: 8 steps per power of two, a multiple of 4 KiB (of
// 2 MiB from 2 MiB up, the huge-page size).
size_t large_size_class(size_t nbytes) {
  size_t octave = size_t{1} << (63 - __builtin_clzll(nbytes));
  size_t step = std::max<size_t>(octave / 8, 4096);
  if (nbytes >= kHugePage) step = std::max(step, kHugePage);
  return (nbytes + step - 1) / step * step;
}

size_t default_cache_limit() {
  if (const char* env = std::getenv("WICK_CPU_CACHE_LIMIT_MB")) {
    char* end = nullptr;
    const unsigned long long mb = std::strtoull(env, &end, 10);
    if (end != env && *end == '\0') return static_cast<size_t>(mb) << 20;
  }
  size_t limit = size_t{1} << 30;  // 1 GiB, or an eighth of the RAM when that is less
#if defined(__linux__)
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) {
    limit = std::min(limit, static_cast<size_t>(pages) * static_cast<size_t>(page) / 8);
  }
#endif
  return limit;
}

class LargeBlockCache {
 public:
  // A cached block of exactly `size` bytes (a size class), or null: the caller then asks libc,
  // which is counted here, under the same lock.
  void* take(size_t size) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = free_.find(size);
    if (it == free_.end() || it->second.empty()) {
      ++allocs_;
      return nullptr;
    }
    void* p = it->second.back();
    it->second.pop_back();
    cached_ -= size;
    ++hits_;
    return p;
  }
  // Keeps a freed block, making room by freeing the largest cached ones; a block larger than
  // the whole limit goes back to libc.
  void give(void* p, size_t size) {
    std::vector<void*> to_free;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (size > limit_) {
        to_free.push_back(p);
      } else {
        while (cached_ + size > limit_ && !free_.empty()) {
          auto largest = std::prev(free_.end());
          if (largest->second.empty()) {
            free_.erase(largest);
            continue;
          }
          to_free.push_back(largest->second.back());
          largest->second.pop_back();
          cached_ -= largest->first;
        }
        free_[size].push_back(p);
        cached_ += size;
      }
    }
    for (void* q : to_free) std::free(q);
  }
  void release_all() {
    std::vector<void*> to_free;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto& [size, blocks] : free_)
        to_free.insert(to_free.end(), blocks.begin(), blocks.end());
      free_.clear();
      cached_ = 0;
    }
    for (void* q : to_free) std::free(q);
  }
  void set_limit(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      limit_ = bytes;
    }
    if (bytes == 0) release_all();
  }
  std::mutex& mutex() { return mutex_; }
  cpu::CacheStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return cpu::CacheStats{cached_, limit_, hits_, allocs_};
  }

 private:
  mutable std::mutex mutex_;
  std::map<size_t, std::vector<void*>> free_;
  size_t cached_ = 0, limit_ = default_cache_limit();
  int64_t hits_ = 0, allocs_ = 0;
};

// Never destroyed: tensors that outlive static destruction (globals of a user's program) still
// free into it at exit.
// Its lock is guarded across fork (wick/fork_guard.hpp): a child forked while another thread
// freed a block would otherwise wait for it forever.
LargeBlockCache& large_cache() {
  static LargeBlockCache* cache = [] {
    auto* c = new LargeBlockCache;
    detail::guard_across_fork(c->mutex(), detail::ForkRank::kLargeBlocks);
    return c;
  }();
  return *cache;
}
// Made when the library loads, before any thread: a fork while a thread ran the first call's
// initialisation would leave the child waiting on its guard for good.
[[maybe_unused]] LargeBlockCache& g_large_cache_at_load = large_cache();

// The size class travels in the deleter's context pointer.
void free_large(void* ptr, void* context) {
  const auto size = static_cast<size_t>(reinterpret_cast<uintptr_t>(context));
  if (WICK_CPU_BLOCK_CACHE) {
    large_cache().give(ptr, size);
  } else {
    std::free(ptr);
  }
}

void* allocate_large(size_t size) {
  if (WICK_CPU_BLOCK_CACHE) {
    if (void* p = large_cache().take(size)) return p;
  }
  // aligned_alloc wants a size that is a multiple of the alignment (AddressSanitizer's returns
  // null otherwise): the size classes from 2 MiB up are, the exact sizes without the cache not.
  const size_t alignment = size % kHugePage == 0 ? kHugePage : kAlignment;
  void* p = std::aligned_alloc(alignment, size);
  if (p == nullptr && WICK_CPU_BLOCK_CACHE) {  // the cache may hold what libc needs
    large_cache().release_all();
    p = std::aligned_alloc(alignment, size);
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (p != nullptr && alignment == kHugePage) madvise(p, size, MADV_HUGEPAGE);
#endif
  return p;
}

// The size class travels in the deleter's context pointer.
void free_small(void* ptr, void* context) {
  const auto cls = static_cast<size_t>(reinterpret_cast<uintptr_t>(context));
  BlockCache* c = cache();
  if (c != nullptr && c->free_blocks[cls].size() < kBlocksPerClass) {
    c->free_blocks[cls].push_back(ptr);
  } else {
    std::free(ptr);
  }
}

[[noreturn]] void out_of_memory(size_t nbytes) {
  fail<OutOfMemoryError>("cpu allocator", "out of memory: tried to allocate ", nbytes, " bytes (",
                         static_cast<double>(nbytes) / (1 << 30), " GiB) on cpu");
}

}  // namespace

DataPtr CpuAllocator::allocate(size_t nbytes, Device device) {
  void* ptr = nullptr;
  DataPtr data;
  if (WICK_CPU_BLOCK_CACHE && nbytes <= (size_t{1} << kMaxShift)) {
    const int cls = size_class(nbytes);
    BlockCache* c = cache();
    std::vector<void*>* blocks = c ? &c->free_blocks[static_cast<size_t>(cls)] : nullptr;
    if (blocks != nullptr && !blocks->empty()) {
      ptr = blocks->back();
      blocks->pop_back();
    } else {
      ptr = std::aligned_alloc(kAlignment, size_t{1} << (cls + kMinShift));
      if (ptr == nullptr) out_of_memory(nbytes);
    }
    if (blocks != nullptr && blocks->capacity() < kBlocksPerClass) blocks->reserve(kBlocksPerClass);
    data = DataPtr{ptr, free_small, reinterpret_cast<void*>(static_cast<uintptr_t>(cls)), device};
  } else {
    if (nbytes > (size_t{1} << 62)) out_of_memory(nbytes);  // the size class would overflow
    // Without the caches (AddressSanitizer) a block is its request rounded to the alignment, so
    // that an overrun past the end is still caught.
    const size_t size =
        WICK_CPU_BLOCK_CACHE
            ? large_size_class(std::max<size_t>(nbytes, kAlignment))
            : (std::max<size_t>(nbytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
    ptr = allocate_large(size);
    if (ptr == nullptr) out_of_memory(nbytes);
    data = DataPtr{ptr, free_large, reinterpret_cast<void*>(static_cast<uintptr_t>(size)), device};
  }
  if (debug_fill()) std::memset(ptr, 0xFF, nbytes);
  return data;
}

}  // namespace wick::detail

namespace wick::cpu {
CacheStats cache_stats() { return detail::large_cache().stats(); }
void empty_cache() { detail::large_cache().release_all(); }
void set_cache_limit(size_t bytes) { detail::large_cache().set_limit(bytes); }
}  // namespace wick::cpu
