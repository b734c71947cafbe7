// caching_allocator.cpp: the block logic of the caching device allocator (see the header for
// the design and the PyTorch constants it keeps). Tested without a GPU by
// tests/cuda/test_host.cpp through a fake MemorySource; on a GPU by tests/cuda/test_runtime.cpp.
#include "caching_allocator.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "wick/error.hpp"

namespace wick::gpu {

std::string format_bytes(size_t nbytes) {
  char text[64];
  const double b = static_cast<double>(nbytes);
  if (nbytes >= (size_t{1} << 30)) {
    std::snprintf(text, sizeof(text), "%.2f GiB", b / (1 << 30));
  } else if (nbytes >= (size_t{1} << 20)) {
    std::snprintf(text, sizeof(text), "%.2f MiB", b / (1 << 20));
  } else if (nbytes >= (size_t{1} << 10)) {
    std::snprintf(text, sizeof(text), "%.2f KiB", b / (1 << 10));
  } else {
    std::snprintf(text, sizeof(text), "%zu bytes", nbytes);
  }
  return text;
}

bool CachingAllocator::BlockOrder::operator()(const Block* a, const Block* b) const {
  auto sa = reinterpret_cast<uintptr_t>(a->stream), sb = reinterpret_cast<uintptr_t>(b->stream);
  if (sa != sb) return sa < sb;
  if (a->size != b->size) return a->size < b->size;
  return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
}

CachingAllocator::CachingAllocator(MemorySource* source, int device)
    : source_(source), device_(device) {}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  try {
    release_cached();
  } catch (...) {
    // At teardown the driver may already be gone; the memory goes with the process.
  }
  for (Pool* pool : {&small_pool_, &large_pool_}) {
    for (Block* b : *pool) delete b;
    pool->clear();
  }
}

size_t CachingAllocator::round_size(size_t nbytes) {
  if (nbytes < kMinBlockSize) return kMinBlockSize;
  return kMinBlockSize * ((nbytes + kMinBlockSize - 1) / kMinBlockSize);
}

size_t CachingAllocator::segment_size(size_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((rounded + kRoundLarge - 1) / kRoundLarge);
}

Block* CachingAllocator::find_free(Pool& pool, void* stream, size_t size) {
  Block key(this, stream, size, nullptr, false);
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* block = *it;
  pool.erase(it);
  return block;
}

Block* CachingAllocator::allocate(size_t nbytes, void* stream) {
  WICK_CHECK(nbytes <= (size_t{1} << 62), OutOfMemoryError, "allocate", "cannot allocate ", nbytes,
             " bytes on cuda:", device_);
  const size_t size = round_size(nbytes);
  const bool small = size <= kSmallSize;
  std::lock_guard<std::mutex> lock(mutex_);
  Pool& pool = small ? small_pool_ : large_pool_;
  Block* block = find_free(pool, stream, size);
  if (block == nullptr) {
    const size_t segment = segment_size(size);
    void* ptr = source_->raw_allocate(segment);
    if (ptr == nullptr) {
      // Out of memory: give the cache back to the device and try once more.
      release_cached();
      ptr = source_->raw_allocate(segment);
      if (ptr == nullptr) fail_out_of_memory(nbytes, segment);
    }
    block = new Block(this, stream, segment, static_cast<char*>(ptr), small);
    stats_.reserved_bytes += static_cast<int64_t>(segment);
    stats_.num_device_allocs += 1;
    segments_ += 1;
  }
  // Split off the rest when it is worth keeping as a block of its own.
  const size_t rest = block->size - size;
  if (small ? rest >= kMinBlockSize : rest > kSmallSize) {
    auto* remainder = new Block(this, stream, rest, block->ptr + size, small);
    remainder->prev = block;
    remainder->next = block->next;
    if (remainder->next != nullptr) remainder->next->prev = remainder;
    block->next = remainder;
    block->size = size;
    pool.insert(remainder);
  }
  block->allocated = true;
  stats_.allocated_bytes += static_cast<int64_t>(block->size);
  stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
  return block;
}

void CachingAllocator::free(Block* block) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  block->allocated = false;
  stats_.allocated_bytes -= static_cast<int64_t>(block->size);
  Pool& pool = pool_of(block);
  // Merge with free neighbours of the same segment.
  if (Block* prev = block->prev; prev != nullptr && !prev->allocated) {
    pool.erase(prev);
    block->ptr = prev->ptr;
    block->size += prev->size;
    block->prev = prev->prev;
    if (block->prev != nullptr) block->prev->next = block;
    delete prev;
  }
  if (Block* next = block->next; next != nullptr && !next->allocated) {
    pool.erase(next);
    block->size += next->size;
    block->next = next->next;
    if (block->next != nullptr) block->next->prev = block;
    delete next;
  }
  pool.insert(block);
}

void CachingAllocator::release_cached() {
  for (Pool* pool : {&small_pool_, &large_pool_}) {
    for (auto it = pool->begin(); it != pool->end();) {
      Block* b = *it;
      if (b->prev == nullptr && b->next == nullptr) {  // a whole segment, free
        source_->raw_free(b->ptr);
        stats_.reserved_bytes -= static_cast<int64_t>(b->size);
        stats_.num_device_frees += 1;
        segments_ -= 1;
        it = pool->erase(it);
        delete b;
      } else {
        ++it;
      }
    }
  }
}

void CachingAllocator::fail_out_of_memory(size_t nbytes, size_t segment) {
  stats_.num_ooms += 1;
  size_t free_bytes = 0, total_bytes = 0;
  source_->memory_info(&free_bytes, &total_bytes);
  const auto allocated = static_cast<size_t>(stats_.allocated_bytes);
  const auto reserved = static_cast<size_t>(stats_.reserved_bytes);
  std::string device_part = total_bytes > 0 ? ", which has " + format_bytes(free_bytes) +
                                                  " free of " + format_bytes(total_bytes) + " total"
                                            : "";
  detail::fail<OutOfMemoryError>(
      "allocate", "CUDA out of memory: tried to allocate ", format_bytes(nbytes), " (", nbytes,
      " bytes, a segment of ", format_bytes(segment), ") on cuda:", device_, device_part,
      "; wick holds ", format_bytes(allocated), " in tensors and ", format_bytes(reserved),
      " reserved by its caching allocator (", format_bytes(reserved - allocated),
      " cached and free, already released once and retried). Free tensors you no longer need, "
      "use smaller batches, or call wick::cuda::empty_cache() if other programs share the device");
}

void CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  release_cached();
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_peak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
}

size_t CachingAllocator::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<size_t>(stats_.reserved_bytes - stats_.allocated_bytes);
}

int64_t CachingAllocator::num_segments() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return segments_;
}

}  // namespace wick::gpu
