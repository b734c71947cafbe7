// caching_allocator.hpp: a caching allocator for device memory after PyTorch's
// CUDACachingAllocator (c10/cuda/CUDACachingAllocator.cpp), kept to its core ideas:
//  - requests are rounded up to 512 bytes; requests up to 1 MiB come from the small pool,
//    whose segments (one cudaMalloc each) are 2 MiB; larger ones from the large pool, whose
//    segments are 20 MiB below 10 MiB and the request rounded up to 2 MiB above;
//  - a free block that is large enough is reused (best fit: smallest size, then lowest
//    address, on the same stream), and split when the rest is worth keeping (>= 512 bytes in
//    the small pool, > 1 MiB in the large pool); freed blocks merge with free neighbours of the
//    same segment;
//  - when the device has no memory left: release every cached segment that is entirely free,
//    retry once, then throw OutOfMemoryError saying what was asked, where, what is free on the
//    device and what wick holds; the allocator stays usable afterwards;
//  - statistics like torch.cuda.memory_stats: allocated (block sizes in use), reserved (all
//    segments), peak allocated, cudaMalloc/cudaFree counts, out-of-memory count.
// Not kept from PyTorch: per-stream event tracking (wick runs one stream per device, Note [One
// stream per device] in runtime.hpp), expandable segments, max_split_size, garbage collection.
// Pure C++: the bytes come from a MemorySource (cudaMalloc in backend.cpp, a fake with a size
// limit in tests/cuda/test_host.cpp), so every path above is tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>

#include "wick/backend.hpp"

namespace wick::gpu {

// Where device bytes come from.
class MemorySource {
 public:
  virtual ~MemorySource() = default;
  // nbytes of device memory, or nullptr when the device is out of memory (with the error
  // cleared); any other failure throws CudaError.
  virtual void* raw_allocate(size_t nbytes) = 0;
  virtual void raw_free(void* ptr) = 0;
  // Free and total bytes of the device, for the out-of-memory message; 0, 0 if unknown.
  virtual void memory_info(size_t* free_bytes, size_t* total_bytes) = 0;
};

class CachingAllocator;

struct Block {
  Block(CachingAllocator* allocator, void* on_stream, size_t bytes, char* address, bool small)
      : owner(allocator), stream(on_stream), size(bytes), ptr(address), small_pool(small) {}

  CachingAllocator* owner;
  void* stream;  // the stream the block is used on (opaque: a cudaStream_t)
  size_t size;   // bytes, a multiple of kMinBlockSize
  char* ptr;
  bool small_pool;
  bool allocated = false;
  Block* prev = nullptr;  // neighbours within the same segment (one cudaMalloc)
  Block* next = nullptr;
};

class CachingAllocator {
 public:
  static constexpr size_t kMinBlockSize = 512;        // every size is a multiple of this
  static constexpr size_t kSmallSize = 1 << 20;       // largest request of the small pool
  static constexpr size_t kSmallBuffer = 2 << 20;     // segment size of the small pool
  static constexpr size_t kLargeBuffer = 20 << 20;    // segment for requests < kMinLargeAlloc
  static constexpr size_t kMinLargeAlloc = 10 << 20;  // from here, segment = request rounded
  static constexpr size_t kRoundLarge = 2 << 20;      // ... up to a multiple of this

  CachingAllocator(MemorySource* source, int device);
  // Returns every segment to the source; blocks still allocated are the caller's bug.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // A block of at least nbytes (> 0) for use on `stream`. Throws OutOfMemoryError after
  // releasing the cache and retrying once; CudaError from the source passes through.
  Block* allocate(size_t nbytes, void* stream);
  // Returns the block to its pool. Never calls the source, never throws.
  void free(Block* block) noexcept;
  // Releases every cached segment that is entirely free (torch.cuda.empty_cache).
  void empty_cache();
  MemoryStats stats() const;
  void reset_peak();
  size_t cached_bytes() const;  // reserved but not allocated
  int64_t num_segments() const;

  static size_t round_size(size_t nbytes);
  static size_t segment_size(size_t rounded);

 private:
  struct BlockOrder {
    bool operator()(const Block* a, const Block* b) const;
  };
  using Pool = std::set<Block*, BlockOrder>;

  Pool& pool_of(const Block* block) { return block->small_pool ? small_pool_ : large_pool_; }
  Block* find_free(Pool& pool, void* stream, size_t size);
  void release_cached();                                                // lock held
  [[noreturn]] void fail_out_of_memory(size_t nbytes, size_t segment);  // lock held

  MemorySource* source_;
  int device_;
  mutable std::mutex mutex_;
  Pool small_pool_, large_pool_;  // free blocks only
  MemoryStats stats_;
  int64_t segments_ = 0;
};

// "1.50 GiB", "512 bytes": for messages.
std::string format_bytes(size_t nbytes);

}  // namespace wick::gpu
