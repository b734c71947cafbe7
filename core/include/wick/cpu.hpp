// cpu.hpp: the CPU allocator's cache of large blocks. Host memory for tensors above 64 KiB is
// rounded up to one of 8 sizes per power of two; a freed block is kept (up to a byte limit) and
// handed to the next request of its size, so a loop that makes the same large temporaries
// every step does not map and fault in fresh pages each time (as the CUDA caching allocator
// does for device memory). The limit starts at 1 GiB or an eighth of the RAM, whichever is
// less; the environment variable WICK_CPU_CACHE_LIMIT_MB sets it at start (0: no cache).
#pragma once

#include <cstddef>
#include <cstdint>

namespace wick::cpu {

struct CacheStats {
  size_t cached_bytes = 0;  // freed blocks held for reuse
  size_t limit_bytes = 0;   // the most it holds
  int64_t reuses = 0;       // requests served from the cache
  int64_t allocations = 0;  // requests that went to the C library
};

CacheStats cache_stats();
// Frees every cached block (tensors in use are not touched).
void empty_cache();
// Sets the byte limit; 0 frees the cache and turns it off. Blocks above the limit are freed.
void set_cache_limit(size_t bytes);

}  // namespace wick::cpu
