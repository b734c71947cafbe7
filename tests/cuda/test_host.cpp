// test_host.cpp: the parts of the CUDA backend that can be checked without a GPU, run on every
// machine (CI included): the caching allocator's block logic through a fake MemorySource with
// a size limit (rounding, pools, splitting, merging, reuse, statistics, the out-of-memory path
// with its release-and-retry and its message), FastDivmod and collapse_dims against their
// definitions, that every Kernel op of the op list has a CUDA kernel, and what a machine
// without a usable GPU answers (is_available false with a reason, a DeviceError for a CUDA
// tensor). The ladder's kernel choice is in test_ladder_choice.cpp, of the same program.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "caching_allocator.hpp"
#include "common.cuh"
#include "wick/wick.hpp"

using namespace wick;
using wick::gpu::Block;
using wick::gpu::CachingAllocator;

namespace {

constexpr size_t kMiB = size_t{1} << 20;

// Host memory posing as a device with `capacity` bytes.
class FakeDevice final : public gpu::MemorySource {
 public:
  explicit FakeDevice(size_t capacity) : capacity_(capacity) {}
  ~FakeDevice() override {
    for (auto& [ptr, size] : live_) std::free(ptr);
  }
  void* raw_allocate(size_t nbytes) override {
    ++mallocs;
    if (used_ + nbytes > capacity_) return nullptr;
    void* p = std::malloc(nbytes);
    live_[p] = nbytes;
    used_ += nbytes;
    return p;
  }
  void raw_free(void* ptr) override {
    ++frees;
    used_ -= live_.at(ptr);
    live_.erase(ptr);
    std::free(ptr);
  }
  void memory_info(size_t* free_bytes, size_t* total_bytes) override {
    *free_bytes = capacity_ - used_;
    *total_bytes = capacity_;
  }
  size_t used() const { return used_; }
  int mallocs = 0, frees = 0;

 private:
  size_t capacity_, used_ = 0;
  std::map<void*, size_t> live_;
};

void* stream0 = nullptr;

}  // namespace

TEST_CASE("caching allocator: sizes are rounded and pools chosen as in PyTorch", "[host]") {
  CHECK(CachingAllocator::round_size(1) == 512);
  CHECK(CachingAllocator::round_size(512) == 512);
  CHECK(CachingAllocator::round_size(513) == 1024);
  CHECK(CachingAllocator::segment_size(512) == 2 * kMiB);
  CHECK(CachingAllocator::segment_size(kMiB) == 2 * kMiB);
  CHECK(CachingAllocator::segment_size(kMiB + 512) == 20 * kMiB);
  CHECK(CachingAllocator::segment_size(10 * kMiB) == 10 * kMiB);
  CHECK(CachingAllocator::segment_size(11 * kMiB + 1) == 12 * kMiB);
}

TEST_CASE("caching allocator: small blocks share a segment, are reused and merge back", "[host]") {
  FakeDevice device(64 * kMiB);
  CachingAllocator alloc(&device, 0);
  Block* a = alloc.allocate(1000, stream0);  // 1024 bytes of a new 2 MiB segment
  Block* b = alloc.allocate(3000, stream0);  // 3072 bytes, split from the same segment
  CHECK(device.mallocs == 1);
  CHECK(a->size == 1024);
  CHECK(b->size == 3072);
  CHECK(b->ptr == a->ptr + 1024);
  MemoryStats s = alloc.stats();
  CHECK(s.allocated_bytes == 4096);
  CHECK(s.reserved_bytes == static_cast<int64_t>(2 * kMiB));
  CHECK(s.num_device_allocs == 1);
  char* a_ptr = a->ptr;
  alloc.free(a);
  Block* c = alloc.allocate(900, stream0);  // best fit: a's old 1024-byte block
  CHECK(c->ptr == a_ptr);
  alloc.free(c);
  alloc.free(b);
  // Everything merged back into one free segment.
  CHECK(alloc.num_segments() == 1);
  CHECK(alloc.stats().allocated_bytes == 0);
  CHECK(alloc.cached_bytes() == 2 * kMiB);
  alloc.empty_cache();
  CHECK(alloc.stats().reserved_bytes == 0);
  CHECK(alloc.stats().num_device_frees == 1);
  CHECK(device.used() == 0);
}

TEST_CASE("caching allocator: large blocks split only when the rest exceeds 1 MiB", "[host]") {
  FakeDevice device(256 * kMiB);
  CachingAllocator alloc(&device, 0);
  Block* a = alloc.allocate(3 * kMiB, stream0);  // from a 20 MiB segment, rest 17 MiB kept
  CHECK(a->size == 3 * kMiB);
  CHECK(alloc.stats().reserved_bytes == static_cast<int64_t>(20 * kMiB));
  Block* b = alloc.allocate(16 * kMiB + 512, stream0);  // fits the rest: no new segment
  CHECK(device.mallocs == 1);
  CHECK(b->size == 17 * kMiB);  // the last 512 KiB would be too small to split off
  Block* c = alloc.allocate(15 * kMiB, stream0);  // a segment of its own, rounded to 2 MiB
  CHECK(device.mallocs == 2);
  CHECK(c->size == 16 * kMiB);
  MemoryStats s = alloc.stats();
  CHECK(s.allocated_bytes == static_cast<int64_t>(36 * kMiB));
  CHECK(s.peak_allocated_bytes == static_cast<int64_t>(36 * kMiB));
  alloc.free(a);
  alloc.free(b);
  alloc.free(c);
  alloc.reset_peak();
  CHECK(alloc.stats().peak_allocated_bytes == 0);
  CHECK(alloc.num_segments() == 2);
  // Reused without a device call.
  Block* d = alloc.allocate(19 * kMiB, stream0);
  CHECK(device.mallocs == 2);
  alloc.free(d);
}

TEST_CASE("caching allocator: blocks are reused only on their own stream", "[host]") {
  FakeDevice device(64 * kMiB);
  CachingAllocator alloc(&device, 0);
  int tag = 0;
  void* other = &tag;
  Block* a = alloc.allocate(4096, stream0);
  alloc.free(a);
  Block* b = alloc.allocate(4096, other);
  CHECK(device.mallocs == 2);
  CHECK(b->stream == other);
  alloc.free(b);
}

TEST_CASE("caching allocator: out of memory frees the cache, retries, then throws", "[host]") {
  FakeDevice device(48 * kMiB);
  CachingAllocator alloc(&device, 3);
  Block* a = alloc.allocate(30 * kMiB, stream0);  // a 30 MiB segment
  alloc.free(a);                                  // cached, not returned
  CHECK(alloc.stats().reserved_bytes == static_cast<int64_t>(30 * kMiB));
  // 40 MiB does not fit beside the cached 30: the cache is released and the retry succeeds.
  Block* b = alloc.allocate(40 * kMiB, stream0);
  CHECK(device.frees == 1);
  CHECK(alloc.stats().num_ooms == 0);
  CHECK(alloc.stats().reserved_bytes == static_cast<int64_t>(40 * kMiB));
  // 20 MiB more cannot fit at all: typed error, counted, the allocator still usable.
  std::string message;
  try {
    alloc.allocate(20 * kMiB, stream0);
  } catch (const OutOfMemoryError& e) {
    message = e.what();
  }
  INFO(message);
  CHECK(message.find("CUDA out of memory") != std::string::npos);
  CHECK(message.find("tried to allocate 20.00 MiB") != std::string::npos);
  CHECK(message.find("cuda:3") != std::string::npos);
  CHECK(message.find("8.00 MiB free of 48.00 MiB total") != std::string::npos);
  CHECK(message.find("40.00 MiB in tensors") != std::string::npos);
  CHECK(alloc.stats().num_ooms == 1);
  CHECK(alloc.stats().allocated_bytes == static_cast<int64_t>(40 * kMiB));
  Block* small = alloc.allocate(1000, stream0);
  CHECK(small != nullptr);
  alloc.free(small);
  alloc.free(b);
  alloc.empty_cache();
  CHECK(device.used() == 0);
}

TEST_CASE("caching allocator: random traffic keeps the books balanced", "[host]") {
  FakeDevice device(4096 * kMiB);  // never touched: only addresses are handed out
  CachingAllocator alloc(&device, 0);
  std::mt19937_64 rng(7);
  std::vector<Block*> live;
  int64_t expected = 0;
  for (int step = 0; step < 4000; ++step) {
    if (!live.empty() && (rng() % 3 == 0 || live.size() > 100)) {
      size_t i = rng() % live.size();
      expected -= static_cast<int64_t>(live[i]->size);
      alloc.free(live[i]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      size_t nbytes = (rng() % 4 == 0) ? 1 + rng() % (12 * kMiB) : 1 + rng() % 70000;
      Block* b = alloc.allocate(nbytes, stream0);
      REQUIRE(b->size >= nbytes);
      // No two live blocks overlap.
      for (Block* other : live) {
        REQUIRE((b->ptr + b->size <= other->ptr || other->ptr + other->size <= b->ptr));
      }
      expected += static_cast<int64_t>(b->size);
      live.push_back(b);
    }
    REQUIRE(alloc.stats().allocated_bytes == expected);
  }
  for (Block* b : live) alloc.free(b);
  CHECK(alloc.stats().allocated_bytes == 0);
  alloc.empty_cache();
  CHECK(alloc.stats().reserved_bytes == 0);
  CHECK(device.used() == 0);
  CHECK(alloc.stats().num_device_allocs == alloc.stats().num_device_frees);
}

TEST_CASE("FastDivmod divides like the / operator", "[host]") {
  std::mt19937_64 rng(11);
  std::vector<uint64_t> divisors = {1,
                                    2,
                                    3,
                                    5,
                                    7,
                                    10,
                                    64,
                                    917,
                                    1029,
                                    65535,
                                    65537,
                                    (1ull << 31) - 1,
                                    1ull << 32,
                                    (1ull << 32) + 1,
                                    (1ull << 62) + 12345,
                                    1ull << 63};
  for (int i = 0; i < 200; ++i) divisors.push_back(1 + rng() % ((1ull << (1 + rng() % 62))));
  for (uint64_t d : divisors) {
    gpu::FastDivmod f(d);
    std::vector<uint64_t> ns = {0, 1, d - 1, d, d + 1, (1ull << 63) - 1, (1ull << 63) - d};
    for (int i = 0; i < 200; ++i) ns.push_back(rng() >> 1);
    for (int i = 0; i < 50; ++i) ns.push_back(rng() % (d * 3 + 1));
    for (uint64_t n : ns) {
      if (n >= (1ull << 63)) continue;
      uint64_t q, r;
      f.divmod(n, q, r);
      if (q != n / d || r != n % d) {
        FAIL("n = " << n << ", d = " << d << ": got " << q << " r " << r);
      }
    }
  }
}

TEST_CASE("collapse_dims merges what every operand walks contiguously", "[host]") {
  // A contiguous [4, 5, 6] against a broadcast [1, 5, 6] operand: merges to one dim of 30
  // inside a dim of 4, with stride 0 for the broadcast operand.
  Shape sizes{4, 5, 6};
  Shape out_strides{30, 6, 1}, in_strides{0, 6, 1};
  auto layout = gpu::collapse_dims<2>(sizes, {&out_strides, &in_strides});
  REQUIRE(layout.ndim == 2);
  CHECK(layout.sizes[0] == 30);  // innermost first
  CHECK(layout.sizes[1] == 4);
  CHECK(layout.strides[0][1] == 30);
  CHECK(layout.strides[1][1] == 0);
  CHECK(!layout.contiguous());
  // Size-1 dims vanish; fully contiguous collapses to one dim.
  Shape s2{1, 7, 1, 3}, c2{21, 3, 3, 1};
  auto l2 = gpu::collapse_dims<1>(s2, {&c2});
  CHECK(l2.ndim == 1);
  CHECK(l2.contiguous());
  // The offsets of every element match the strides' definition (a transposed operand).
  Shape s3{3, 4, 5}, a3{20, 5, 1}, b3{1, 3, 12};
  auto l3 = gpu::collapse_dims<2>(s3, {&a3, &b3});
  gpu::OffsetCalculator<2> calc(l3);
  int64_t linear = 0;
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      for (int64_t k = 0; k < 5; ++k, ++linear) {
        int64_t off[2];
        calc.get(static_cast<uint64_t>(linear), off);
        REQUIRE(off[0] == i * 20 + j * 5 + k);
        REQUIRE(off[1] == i * 1 + j * 3 + k * 12);
      }
    }
  }
  // An empty layout: one dim of 0, whatever the sizes before the 0 multiply to
  // ([2^63-1, 2, 0] would overflow) and whatever the strides times sizes reach.
  const int64_t big = std::numeric_limits<int64_t>::max();
  Shape s4{big, 2, 0}, c4{2, 1, 1}, d4{big, big, 1};
  auto l4 = gpu::collapse_dims<2>(s4, {&c4, &d4});
  CHECK(l4.numel == 0);
  CHECK(l4.ndim == 1);
  CHECK(l4.sizes[0] == 0);
}

// Row-major multi-index of `linear` over `sizes`, dotted with `strides`.
int64_t offset_of(int64_t linear, const std::vector<int64_t>& sizes,
                  const std::vector<int64_t>& strides) {
  int64_t offset = 0;
  for (size_t d = sizes.size(); d-- > 0;) {
    offset += (linear % sizes[d]) * strides[d];
    linear /= sizes[d];
  }
  return offset;
}

TEST_CASE("select_dims: reduction outputs and reduced indices in row-major order", "[host]") {
  // reduce.cu reads input element (o, r) at outputs(o) + reduced(r), with o the row-major index
  // over the kept dims (the keepdim output is contiguous) and r the row-major index over the
  // reduced dims (what argmax returns); checked against that definition for random shapes,
  // masks and strides (permuted, sliced, broadcast with stride 0).
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 400; ++trial) {
    const int nd = 1 + static_cast<int>(rng() % 5);
    Shape sizes, strides, mask;
    std::vector<int64_t> kept_sizes, kept_strides, red_sizes, red_strides;
    for (int d = 0; d < nd; ++d) {
      const int64_t size = 1 + static_cast<int64_t>(rng() % 4);
      const int64_t stride = rng() % 5 == 0 ? 0 : 1 + static_cast<int64_t>(rng() % 40);
      const int64_t reduced = static_cast<int64_t>(rng() % 2);
      sizes.push_back(size);
      strides.push_back(stride);
      mask.push_back(reduced);
      (reduced ? red_sizes : kept_sizes).push_back(size);
      (reduced ? red_strides : kept_strides).push_back(stride);
    }
    if (trial % 3 == 0) {  // row-major strides, so that dims merge
      int64_t s = 1;
      for (int d = nd; d-- > 0;) {
        strides[static_cast<size_t>(d)] = s;
        s *= sizes[static_cast<size_t>(d)];
      }
      kept_strides.clear();
      red_strides.clear();
      for (int d = 0; d < nd; ++d) {
        (mask[static_cast<size_t>(d)] ? red_strides : kept_strides)
            .push_back(strides[static_cast<size_t>(d)]);
      }
    }
    const auto kept = gpu::select_dims(sizes, strides, mask, 0);
    const auto red = gpu::select_dims(sizes, strides, mask, 1);
    const gpu::OffsetCalculator<1> outputs(kept), reduced(red);
    int64_t num_kept = 1, num_red = 1;
    for (int64_t v : kept_sizes) num_kept *= v;
    for (int64_t v : red_sizes) num_red *= v;
    REQUIRE(kept.numel == num_kept);
    REQUIRE(red.numel == num_red);
    for (int64_t o = 0; o < num_kept; ++o) {
      int64_t off[1];
      outputs.get(static_cast<uint64_t>(o), off);
      REQUIRE(off[0] == offset_of(o, kept_sizes, kept_strides));
    }
    for (int64_t r = 0; r < num_red; ++r) {
      int64_t off[1];
      reduced.get(static_cast<uint64_t>(r), off);
      REQUIRE(off[0] == offset_of(r, red_sizes, red_strides));
    }
  }
}

TEST_CASE("every Kernel op of the op list has a CUDA kernel", "[host]") {
  for (size_t i = 0; i < kNumOps; ++i) {
    auto op = static_cast<OpId>(i);
    if (op_kind(op) != OpKind::Kernel) continue;
    INFO("op " << op_name(op));
    CHECK(supports(op, kCUDA));
  }
}

TEST_CASE("a failed CUDA runtime call is reported once, not again by the next launch", "[host]") {
  // Without a driver every runtime call fails with the same sticky error: nothing to check.
  if (!cuda::is_available()) return;
  // cudaGetDeviceProperties on a device that does not exist: a CudaError, and the runtime's
  // last-error slot is cleared, so the next kernel's launch check does not report it as its own.
  CHECK_THROWS_AS(gpu::device_info(1 << 20), CudaError);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK_THROWS_AS(gpu::check_cuda(cudaSetDevice(1 << 20), "cudaSetDevice", "test", 1 << 20),
                  CudaError);
  CHECK(cudaGetLastError() == cudaSuccess);
  Tensor t = ones({1000}, TensorOptions().device(kCUDA));
  CHECK((t + 1).sum().item<float>() == 2000.0f);
}

TEST_CASE("without a usable GPU, CUDA says why and CUDA tensors are a DeviceError", "[host]") {
  if (cuda::is_available()) {
    CHECK(cuda::unavailable_reason().empty());
    CHECK(cuda::device_count() >= 1);
    return;
  }
  const std::string reason = cuda::unavailable_reason();
  INFO(reason);
  CHECK((reason.rfind("CUDA driver not found", 0) == 0 || reason.rfind("no CUDA device", 0) == 0 ||
         reason.rfind("CUDA driver too old", 0) == 0 || reason.rfind("CUDA cannot", 0) == 0));
  CHECK(cuda::device_count() == 0);
  CHECK(cuda::memory_allocated() == 0);
  CHECK_NOTHROW(cuda::empty_cache());
  try {
    (void)zeros({2, 3}, TensorOptions().device(kCUDA));
    FAIL("a CUDA tensor was made without a GPU");
  } catch (const DeviceError& e) {
    CHECK(std::string(e.what()).find(reason) != std::string::npos);
  }
  CHECK_THROWS_AS(ones({2}).to(kCUDA), DeviceError);
  CHECK_THROWS_AS(cuda::synchronize(), DeviceError);
}
