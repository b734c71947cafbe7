// cpu_allocator.hpp: host memory for CPU tensors: 64-byte aligned (a cache line; enough for
// AVX-512 loads), with a small per-thread cache of freed blocks for sizes up to 64 KiB, so that
// the small tensors of a training step don't pay glibc's aligned_alloc (~400 instructions a
// call, measured with callgrind on the seed step) every time. Not part of the public API.
#pragma once

#include "wick/storage.hpp"

namespace wick::detail {

class CpuAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes, Device device) override;
};

}  // namespace wick::detail
