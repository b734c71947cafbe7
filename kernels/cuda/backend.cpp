// backend.cpp: the CUDA DeviceBackend (wick/backend.hpp): whether CUDA can be used and why not,
// devices, the caching allocator per device (caching_allocator.hpp) behind wick's Allocator
// interface, copies between host and devices, synchronize, memory statistics, empty_cache.
// Availability: the runtime is linked, the driver never (libcuda.so.1 is absent on machines
// without a GPU and would stop every binary from starting). cudaDriverGetVersion reports 0
// without a driver, so the reason can say "CUDA driver not found" apart from "no CUDA device".
// Copies follow PyTorch's to(): each returns when the destination is ready to use, and the
// source may be reused as soon as it returns. Copies between host and device above 4 MiB go
// through pinned staging buffers (4 of 8 MiB per device, allocated on the first such copy):
// the host copies chunk i into one while the DMA engine moves chunk i-1 (and up to i-3) from
// the others; device to host runs the same pipeline backwards. Copies under 32 MiB are cut
// into four chunks, so that even a 5 MiB copy overlaps its two halves. Each chunk's host copy
// (pageable <-> pinned) is split over wick's CPU threads (wick::set_num_threads, else the
// default; kernels/cpu/thread_pool.hpp), one per 512 KiB at most, so chunks under 1 MiB and
// every copy of 4 MiB or less never wake a thread; inside a chunk of wick's pool it stays on the
// calling thread. Smaller copies, and all copies when pinned memory cannot be had, are a
// cudaMemcpyAsync from pageable memory and a synchronize. Device to device copies across GPUs
// wait for the source device, copy peer to peer, and wait for the destination.
// Speed: measured 2026-12-04 on an H200 (16 CPU cores; bench/gpu, 256 MiB): 9.0 GB/s host to
// device and 8.4 device to host before this change, when one thread copied each chunk at
// 9-10 GB/s, no faster than cudaMemcpy from pageable memory (8.6 / 12.7); cudaMemcpy from
// pinned memory: 55. Prediction, not a measurement (the next GPU run will measure it): with
// 16 threads the host copy should run at 60-80 GB/s if memcpy scales to ~70% of 16 x 9 GB/s
// within the host's memory bandwidth, more than the DMA takes, so the pipeline should be
// bound by the DMA less its per-chunk gaps (a wake of the pool and a cudaMemcpyAsync,
// ~10 us against ~150 us per 8 MiB chunk): about 40-50 GB/s each way; with 4 threads
// about 30 (4 x 9 less the gaps); with 1 thread the old 9.
// Tested by tests/cuda/test_runtime.cpp (round trips bit-exact around the staging threshold,
// at chunk boundaries, at 1, 3, 4 and 16 threads, the source overwritten at once, several
// host threads and a caller's own OpenMP team copying at once; on the emulator, fake_runtime.cpp
// defers copies to and from pinned memory until their event, so a buffer refilled or read too early
// fails them), allocator statistics, OOM) and tests/cuda/test_host.cpp (the no-driver
// answers); H2D/D2H GB/s measured by bench/gpu.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "caching_allocator.hpp"
#include "runtime.hpp"
#include "thread_pool.hpp"
#include "wick/backend.hpp"
#include "wick/debug.hpp"
#include "wick/threads.hpp"

namespace wick::gpu {
namespace {

std::string version_string(int version) {  // 13000 -> "13.0"
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

struct Probe {
  bool available = false;
  std::string reason;
  int device_count = 0;
};

// Asks the runtime once whether CUDA can be used. Never throws.
Probe probe_cuda() noexcept {
  Probe p;
  try {
    int runtime = 0, driver = 0;
    (void)cudaRuntimeGetVersion(&runtime);
    cudaError_t error = cudaDriverGetVersion(&driver);
    if (error != cudaSuccess || driver == 0) {
      (void)cudaGetLastError();
      p.reason =
          "CUDA driver not found (no libcuda.so.1 on this machine; wick was built with "
          "the CUDA " +
          version_string(runtime) + " runtime)";
      return p;
    }
    int count = 0;
    error = cudaGetDeviceCount(&count);
    (void)cudaGetLastError();
    if (error == cudaErrorNoDevice || (error == cudaSuccess && count <= 0)) {
      p.reason = "no CUDA device (the CUDA " + version_string(driver) +
                 " driver reports none; check CUDA_VISIBLE_DEVICES)";
    } else if (error == cudaErrorInsufficientDriver) {
      p.reason = "CUDA driver too old: it supports CUDA " + version_string(driver) +
                 ", wick was built with the CUDA " + version_string(runtime) + " runtime";
    } else if (error == cudaErrorStubLibrary) {
      p.reason = "CUDA driver not found (only the stub libcuda.so of the toolkit is installed)";
    } else if (error != cudaSuccess) {
      p.reason = std::string("CUDA cannot be initialised: cudaGetDeviceCount failed: ") +
                 cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")";
    } else {
      p.available = true;
      p.device_count = count;
    }
  } catch (...) {
    p.available = false;
    p.reason = "CUDA cannot be initialised (unexpected error while asking the runtime)";
  }
  return p;
}

const Probe& probe() {
  static const Probe p = probe_cuda();
  return p;
}

// ---- device memory ----
class CudaMemorySource final : public MemorySource {
 public:
  explicit CudaMemorySource(int device) : device_(device) {}
  void* raw_allocate(size_t nbytes) override {
    DeviceGuard guard(device_, "allocate");
    void* ptr = nullptr;
    const cudaError_t error = cudaMalloc(&ptr, nbytes);
    if (error == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // not sticky: clear it so the next check does not see it
      return nullptr;
    }
    check_cuda(error, "cudaMalloc", "allocate", device_);
    return ptr;
  }
  void raw_free(void* ptr) override {
    DeviceGuard guard(device_, "free");
    // Cached blocks may still be read by queued kernels (Note [One stream per device]).
    // cudaFree waits for the device too; the explicit wait documents it.
    WICK_CUDA_CHECK(cudaDeviceSynchronize(), "free", device_);
    WICK_CUDA_CHECK(cudaFree(ptr), "free", device_);
  }
  void memory_info(size_t* free_bytes, size_t* total_bytes) override {
    *free_bytes = *total_bytes = 0;
    try {
      DeviceGuard guard(device_, "allocate");
      if (cudaMemGetInfo(free_bytes, total_bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        *free_bytes = *total_bytes = 0;
      }
    } catch (const Error&) {
      // Only for the message; leave it out.
    }
  }

 private:
  int device_;
};

// Pinned host buffers for large transfers (see the top of the file): kBuffers of kChunk
// bytes, 32 MiB of locked RAM per device, allocated on the first copy above kThreshold.
struct Staging {
  static constexpr size_t kThreshold = size_t{4} << 20;  // staged above this many bytes
  static constexpr size_t kChunk = size_t{8} << 20;
  static constexpr int kBuffers = 4;
  // The chunk a copy of nbytes (> kThreshold) is cut into: kChunk for large copies; a
  // kBuffers-th of the copy (64 KiB multiples, at least 1 MiB) below kBuffers * kChunk, so
  // that a 5 MiB copy is a pipeline of four chunks rather than one copy into a buffer
  // followed by one DMA, with nothing overlapping.
  static size_t chunk_for(size_t nbytes) {
    constexpr size_t kGranule = size_t{64} << 10, kMinChunk = size_t{1} << 20;
    const size_t quarter = (nbytes + kBuffers - 1) / kBuffers;
    return std::clamp((quarter + kGranule - 1) / kGranule * kGranule, kMinChunk, kChunk);
  }
  void* host[kBuffers] = {};
  cudaEvent_t done[kBuffers] = {};
  bool tried = false;
  bool usable = false;
};

// Below this many bytes per thread, a copy between pageable and pinned memory stays on fewer
// threads: one thread copies 512 KiB in about 50 us (~10 GB/s), against a few microseconds to
// wake a worker, so a chunk under 1 MiB runs on the calling thread alone and an 8 MiB chunk on
// at most 16 threads.
constexpr size_t kCopyBytesPerThread = size_t{512} << 10;

// std::memcpy split over wick's CPU threads (wick::get_num_threads(), so set_num_threads
// holds here as for every CPU op), in contiguous slices cut at 4 KiB so that no two threads
// write one page. One thread copies about 9-10 GB/s, well under what a PCIe 5 DMA engine takes
// from pinned memory (~55 GB/s), so a single-threaded copy was the bound of every staged
// transfer. From several host threads at once, the pool serves one and the others copy alone
// (thread_pool.hpp).
void parallel_memcpy(void* dst, const void* src, size_t n) {
  const size_t most = n / kCopyBytesPerThread;
  const int64_t slices =
      static_cast<int64_t>(std::min<size_t>(static_cast<size_t>(wick::get_num_threads()), most));
  if (slices <= 1) {
    std::memcpy(dst, src, n);
    return;
  }
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
  constexpr size_t kPage = 4096;
  const auto cut = [&](int64_t t) {
    return t == slices ? n
                       : n / kPage * static_cast<size_t>(t) / static_cast<size_t>(slices) * kPage;
  };
  wick::cpu::run_chunks(slices, [&](int64_t t) {
    const size_t begin = cut(t), end = cut(t + 1);
    std::memcpy(d + begin, s + begin, end - begin);
  });
}

struct DeviceState {
  std::once_flag once;
  std::unique_ptr<CudaMemorySource> source;
  std::unique_ptr<CachingAllocator> allocator;
  std::mutex staging_mutex;
  Staging staging;
};

void block_deleter(void* /*ptr*/, void* context) {
  auto* block = static_cast<Block*>(context);
  block->owner->free(block);
}

class CudaBackend final : public DeviceBackend, public Allocator {
 public:
  CudaBackend() = default;

  // ---- DeviceBackend ----
  DeviceType type() const override { return kCUDA; }
  Allocator& allocator() override { return *this; }
  bool is_available() const override { return probe().available; }
  std::string unavailable_reason() const override { return probe().reason; }
  int device_count() const override { return probe().device_count; }
  int current_device() const override {
    int device = 0;
    WICK_CUDA_CHECK(cudaGetDevice(&device), "cuda::current_device", -1);
    return device;
  }
  void set_device(int index) override {
    WICK_CUDA_CHECK(cudaSetDevice(index), "cuda::set_device", index);
  }

  void copy_from_host(void* dst, Device dst_device, const void* src, size_t nbytes) override {
    if (nbytes == 0) return;
    const int device = dst_device.index();
    DeviceGuard guard(device, "to");
    Staging* staging = nbytes > Staging::kThreshold ? &staging_for(device) : nullptr;
    if (staging == nullptr || !staging->usable) {
      WICK_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, nullptr), "to",
                      device);
      WICK_CUDA_CHECK(cudaStreamSynchronize(nullptr), "to", device);
      return;
    }
    std::lock_guard<std::mutex> lock(state(device).staging_mutex);
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    const size_t step = Staging::chunk_for(nbytes);
    for (size_t offset = 0, chunk = 0; offset < nbytes; offset += step, ++chunk) {
      const int b = static_cast<int>(chunk % Staging::kBuffers);
      const size_t len = std::min(step, nbytes - offset);
      // Wait until the DMA that last read this buffer is done, refill it, send it.
      WICK_CUDA_CHECK(cudaEventSynchronize(staging->done[b]), "to", device);
      parallel_memcpy(staging->host[b], s + offset, len);
      WICK_CUDA_CHECK(
          cudaMemcpyAsync(d + offset, staging->host[b], len, cudaMemcpyHostToDevice, nullptr), "to",
          device);
      WICK_CUDA_CHECK(cudaEventRecord(staging->done[b], nullptr), "to", device);
    }
    // The destination is ready, and the caller may reuse the source (it was only read while
    // filling the pinned buffers, all before this returns).
    WICK_CUDA_CHECK(cudaStreamSynchronize(nullptr), "to", device);
  }

  void copy_to_host(void* dst, const void* src, Device src_device, size_t nbytes) override {
    if (nbytes == 0) return;
    const int device = src_device.index();
    DeviceGuard guard(device, "to");
    Staging* staging = nbytes > Staging::kThreshold ? &staging_for(device) : nullptr;
    if (staging == nullptr || !staging->usable) {
      WICK_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, nullptr), "to",
                      device);
      WICK_CUDA_CHECK(cudaStreamSynchronize(nullptr), "to", device);
      return;
    }
    std::lock_guard<std::mutex> lock(state(device).staging_mutex);
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    const size_t step = Staging::chunk_for(nbytes);
    const size_t chunks = (nbytes + step - 1) / step;
    auto length = [&](size_t chunk) { return std::min(step, nbytes - chunk * step); };
    auto issue = [&](size_t chunk) {
      const int b = static_cast<int>(chunk % Staging::kBuffers);
      WICK_CUDA_CHECK(cudaMemcpyAsync(staging->host[b], s + chunk * step, length(chunk),
                                      cudaMemcpyDeviceToHost, nullptr),
                      "to", device);
      WICK_CUDA_CHECK(cudaEventRecord(staging->done[b], nullptr), "to", device);
    };
    // The DMA engine fills every buffer ahead; each is emptied as soon as its chunk lands and
    // refilled with the chunk kBuffers further on.
    for (size_t chunk = 0; chunk < chunks && chunk < Staging::kBuffers; ++chunk) issue(chunk);
    for (size_t chunk = 0; chunk < chunks; ++chunk) {
      const int b = static_cast<int>(chunk % Staging::kBuffers);
      WICK_CUDA_CHECK(cudaEventSynchronize(staging->done[b]), "to", device);
      parallel_memcpy(d + chunk * step, staging->host[b], length(chunk));
      if (chunk + Staging::kBuffers < chunks) issue(chunk + Staging::kBuffers);
    }
  }

  void copy_between(void* dst, Device dst_device, const void* src, Device src_device,
                    size_t nbytes) override {
    if (nbytes == 0) return;
    const int to = dst_device.index(), from = src_device.index();
    {
      DeviceGuard guard(from, "to");
      WICK_CUDA_CHECK(cudaStreamSynchronize(nullptr), "to", from);
    }
    DeviceGuard guard(to, "to");
    if (to == from) {
      WICK_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, nullptr), "to",
                      to);
    } else {
      WICK_CUDA_CHECK(cudaMemcpyPeerAsync(dst, to, src, from, nbytes, nullptr), "to", to);
    }
    WICK_CUDA_CHECK(cudaStreamSynchronize(nullptr), "to", to);
  }

  void synchronize(int index) override {
    check_index(index, "cuda::synchronize");
    DeviceGuard guard(index, "cuda::synchronize");
    WICK_CUDA_CHECK(cudaDeviceSynchronize(), "cuda::synchronize", index);
  }

  MemoryStats memory_stats(int index) const override { return allocator_for(index).stats(); }
  std::pair<int64_t, int64_t> mem_get_info(int index) const override {
    DeviceGuard guard(index, "cuda::mem_get_info");
    size_t free_bytes = 0, total_bytes = 0;
    WICK_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes), "cuda::mem_get_info", index);
    return {static_cast<int64_t>(free_bytes), static_cast<int64_t>(total_bytes)};
  }
  void reset_peak_memory_stats(int index) override { allocator_for(index).reset_peak(); }
  void empty_cache() override {
    if (!is_available()) return;
    // Through state(), whose call_once orders this read after another thread's first use of
    // the device (reading s.allocator directly raced with it). An allocator made here for a
    // device never used costs no CUDA call and has nothing to release.
    for (int d = 0; d < device_count(); ++d) allocator_for(d).empty_cache();
  }
  std::string device_name(int index) const override {
    // A bad index is a DeviceError, as for set_device and memory_stats, not a CudaError from
    // cudaGetDeviceProperties.
    check_index(index, "cuda::device_name");
    return device_info(index).name;
  }

  DeviceProperties properties(int index) const override {
    check_index(index, "cuda::get_device_properties");
    const DeviceInfo& info = device_info(index);
    return DeviceProperties{info.name,
                            info.major,
                            info.minor,
                            info.sm_count,
                            static_cast<int64_t>(info.total_memory),
                            static_cast<int64_t>(info.l2_bytes)};
  }

  // ---- Allocator ----
  DataPtr allocate(size_t nbytes, Device device) override {
    const int index = device.index();
    if (nbytes == 0) return DataPtr{nullptr, nullptr, nullptr, device};
    Block* block = allocator_for(index).allocate(nbytes, nullptr);
    if (debug_fill()) {
      // Fresh memory as 0xFF bytes (NaN for floats), as the CPU allocator does in debug mode.
      DeviceGuard guard(index, "allocate");
      cudaError_t error = cudaMemsetAsync(block->ptr, 0xFF, nbytes, nullptr);
      if (error != cudaSuccess) {
        block->owner->free(block);
        check_cuda(error, "cudaMemsetAsync", "allocate", index);
      }
    }
    return DataPtr{block->ptr, block_deleter, block, device};
  }

 private:
  // One state per device, made on first use (registering the backend touches no CUDA call).
  const std::vector<std::unique_ptr<DeviceState>>& states() const {
    std::call_once(states_once_, [this] {
      for (int d = 0; d < probe().device_count; ++d) {
        states_.push_back(std::make_unique<DeviceState>());
      }
    });
    return states_;
  }
  void check_index(int index, const char* op) const {
    const size_t count = states().size();
    WICK_CHECK(index >= 0 && index < static_cast<int>(count), DeviceError, op, "device index ",
               index, " out of range (", count, " device(s))");
  }
  DeviceState& state(int index) const {
    check_index(index, "cuda");
    DeviceState& s = *states()[static_cast<size_t>(index)];
    std::call_once(s.once, [&] {
      s.source = std::make_unique<CudaMemorySource>(index);
      s.allocator = std::make_unique<CachingAllocator>(s.source.get(), index);
    });
    return s;
  }
  CachingAllocator& allocator_for(int index) const { return *state(index).allocator; }

  // The device's staging buffers, allocated on the first large copy. Pinned memory can run out
  // (it is locked RAM); then copies go straight from pageable memory.
  Staging& staging_for(int index) {
    DeviceState& s = state(index);
    std::lock_guard<std::mutex> lock(s.staging_mutex);
    Staging& st = s.staging;
    if (!st.tried) {
      st.tried = true;
      cudaError_t failure = cudaSuccess;
      for (int b = 0; b < Staging::kBuffers && failure == cudaSuccess; ++b) {
        failure = cudaHostAlloc(&st.host[b], Staging::kChunk, cudaHostAllocPortable);
        if (failure != cudaSuccess) {
          st.host[b] = nullptr;
        } else {
          failure = cudaEventCreateWithFlags(&st.done[b], cudaEventDisableTiming);
          if (failure != cudaSuccess) st.done[b] = nullptr;
        }
      }
      st.usable = failure == cudaSuccess;
      if (!st.usable) {
        // Give back what was allocated before the failure (locked RAM that the pageable path
        // never uses), then: out of pinned memory is no error, anything else is reported.
        for (int b = 0; b < Staging::kBuffers; ++b) {
          if (st.host[b] != nullptr) (void)cudaFreeHost(st.host[b]);
          if (st.done[b] != nullptr) (void)cudaEventDestroy(st.done[b]);
          st.host[b] = nullptr;
          st.done[b] = nullptr;
        }
        (void)cudaGetLastError();
        if (failure != cudaErrorMemoryAllocation) {
          throw_cuda_error(failure, "cudaHostAlloc", "to", index);
        }
      }
    }
    return st;
  }

  mutable std::once_flag states_once_;
  mutable std::vector<std::unique_ptr<DeviceState>> states_;
};

}  // namespace

DataPtr allocate_device(size_t nbytes, int device) {
  DeviceBackend* backend = find_backend(kCUDA);
  return backend->allocator().allocate(nbytes, Device(kCUDA, device));
}

// Registers the backend object (it lives for the program: freeing device memory after the
// CUDA runtime has shut down at exit would fail). Kernels: register_cuda.cpp.
void register_backend_object() {
  static auto* backend = new CudaBackend();
  register_backend(backend);
}

}  // namespace wick::gpu
