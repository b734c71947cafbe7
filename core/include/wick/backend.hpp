// backend.hpp: what a device backend gives core besides kernels (tinygrad's small contract):
// allocate, copy in, copy out, copy across, synchronise, and device facts. The CPU backend is
// always registered; the CUDA one only where it was built and a driver answers. Core reaches
// devices only through this interface, so core/ never includes a CUDA header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "wick/device.hpp"
#include "wick/storage.hpp"

namespace wick {

struct MemoryStats {
  int64_t allocated_bytes = 0;       // in live tensors
  int64_t reserved_bytes = 0;        // held from the driver, cached or in use
  int64_t peak_allocated_bytes = 0;  // since the last reset
  int64_t num_device_allocs = 0;     // calls that reached the driver (cudaMalloc)
  int64_t num_device_frees = 0;
  int64_t num_ooms = 0;
};

// torch.cuda.get_device_properties's main fields.
struct DeviceProperties {
  std::string name;
  int major = 0, minor = 0;  // compute capability
  int multi_processor_count = 0;
  int64_t total_memory = 0;   // bytes
  int64_t l2_cache_size = 0;  // bytes
};

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  virtual DeviceType type() const = 0;
  virtual Allocator& allocator() = 0;
  // Whether a device of this type can be used now, and if not, why.
  virtual bool is_available() const = 0;
  virtual std::string unavailable_reason() const = 0;
  virtual int device_count() const = 0;
  virtual int current_device() const = 0;
  virtual void set_device(int index) = 0;
  // Byte copies; the pointers are already offset. Each returns when dst is ready to use.
  virtual void copy_from_host(void* dst, Device dst_device, const void* src, size_t nbytes) = 0;
  virtual void copy_to_host(void* dst, const void* src, Device src_device, size_t nbytes) = 0;
  virtual void copy_between(void* dst, Device dst_device, const void* src, Device src_device,
                            size_t nbytes) = 0;
  virtual void synchronize(int index) = 0;
  virtual MemoryStats memory_stats(int index) const = 0;
  virtual void reset_peak_memory_stats(int index) = 0;
  virtual void empty_cache() = 0;
  // The device's free and total bytes as its driver counts them (torch.cuda.mem_get_info).
  // Only device types with a driver to ask implement it; the default is a DeviceError.
  virtual std::pair<int64_t, int64_t> mem_get_info(int index) const;
  virtual std::string device_name(int index) const = 0;
  virtual DeviceProperties properties(int index) const = 0;
};

void register_backend(DeviceBackend* backend);  // not owned; lives for the program
DeviceBackend* find_backend(DeviceType type);   // null if none is registered
// The backend for `device`; throws DeviceError naming `op` and the reason if it can't be used.
DeviceBackend& backend_for(Device device, const char* op);
// `device` with a concrete index (cuda -> cuda:current); checks that the index exists.
Device resolve_device(Device device, const char* op);

}  // namespace wick
