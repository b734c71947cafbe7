// cpu_allocator.cpp: see cpu_allocator.hpp. Blocks are rounded up to a power of two from 64 B
// to 64 KiB (size classes); each thread keeps up to kBlocksPerClass freed blocks per class and
// hands them out again before asking libc. Larger blocks go straight to aligned_alloc/free. A
// block freed on another thread lands in that thread's cache, which is fine: blocks are
// interchangeable within a class. Under AddressSanitizer the cache is off, so use-after-free
// stays visible. Tested by every CPU test; measured in bench/bench_cpu_ops.cpp (add_small).
#include "cpu_allocator.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <vector>

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

struct BlockCache {
  std::array<std::vector<void*>, kClasses> free_blocks;
  ~BlockCache() {
    for (auto& blocks : free_blocks) {
      for (void* p : blocks) std::free(p);
    }
  }
};

BlockCache& cache() {
  thread_local BlockCache c;
  return c;
}

void free_large(void* ptr, void*) { std::free(ptr); }

// The size class travels in the deleter's context pointer.
void free_small(void* ptr, void* context) {
  const auto cls = static_cast<size_t>(reinterpret_cast<uintptr_t>(context));
  std::vector<void*>& blocks = cache().free_blocks[cls];
  if (blocks.size() < kBlocksPerClass) {
    blocks.push_back(ptr);
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
    std::vector<void*>& blocks = cache().free_blocks[static_cast<size_t>(cls)];
    if (!blocks.empty()) {
      ptr = blocks.back();
      blocks.pop_back();
    } else {
      ptr = std::aligned_alloc(kAlignment, size_t{1} << (cls + kMinShift));
      if (ptr == nullptr) out_of_memory(nbytes);
    }
    if (blocks.capacity() < kBlocksPerClass) blocks.reserve(kBlocksPerClass);
    data = DataPtr{ptr, free_small, reinterpret_cast<void*>(static_cast<uintptr_t>(cls)), device};
  } else {
    // aligned_alloc wants a multiple of the alignment, and may return null for 0.
    size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
    if (rounded < nbytes) out_of_memory(nbytes);
    ptr = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
    if (ptr == nullptr) out_of_memory(nbytes);
    data = DataPtr{ptr, free_large, nullptr, device};
  }
  if (debug_fill()) std::memset(ptr, 0xFF, nbytes);
  return data;
}

}  // namespace wick::detail
