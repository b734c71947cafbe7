// storage.hpp: bytes on one device, with no shape and no dtype (PyTorch c10's Storage).
// An Allocator per device type hands out DataPtrs (pointer + deleter + device); a StorageImpl
// owns one and frees it through the deleter when the last Tensor that uses it goes away.
// The version counter counts in-place writes, for autograd's saved-tensor check.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "wick/device.hpp"

namespace wick {

struct DataPtr {
  void* ptr = nullptr;
  void (*deleter)(void* ptr, void* context) = nullptr;
  void* context = nullptr;
  Device device;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns nbytes of memory on `device` (nbytes may be 0), or throws OutOfMemoryError.
  virtual DataPtr allocate(size_t nbytes, Device device) = 0;
};

class StorageImpl {
 public:
  StorageImpl(DataPtr data, size_t nbytes) : data_(data), nbytes_(nbytes) {}
  ~StorageImpl() {
    if (data_.deleter != nullptr) data_.deleter(data_.ptr, data_.context);
  }
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;

  void* data() const { return data_.ptr; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return data_.device; }
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }
  // Set once a view of this storage was recorded by autograd: an in-place write to a tensor of
  // the graph here would change those views' values behind their history, so autograd refuses
  // it (PyTorch rebases the views; wick does not).
  bool has_grad_views() const { return grad_views_.load(std::memory_order_relaxed); }
  void mark_grad_views() { grad_views_.store(true, std::memory_order_relaxed); }

 private:
  DataPtr data_;
  size_t nbytes_;
  std::atomic<uint32_t> version_{0};
  std::atomic<bool> grad_views_{false};
};

using Storage = std::shared_ptr<StorageImpl>;

// Allocates nbytes on device through that device type's registered allocator.
Storage make_storage(size_t nbytes, Device device, const char* op = "allocate");

}  // namespace wick
