// cuda_api.cpp: wick::cuda, answered through the CUDA backend when one is registered and
// with "no device" otherwise. No CUDA header here: the backend does the CUDA calls.
#include "wick/cuda.hpp"
#include "wick/error.hpp"

namespace wick::cuda {
namespace {
DeviceBackend* usable() {
  DeviceBackend* b = find_backend(kCUDA);
  return (b != nullptr && b->is_available()) ? b : nullptr;
}
int pick(DeviceBackend& b, int index) { return index < 0 ? b.current_device() : index; }
DeviceBackend& need(const char* op) { return backend_for(Device(kCUDA), op); }
}  // namespace

bool is_available() { return usable() != nullptr; }

std::string unavailable_reason() {
  DeviceBackend* b = find_backend(kCUDA);
  if (b == nullptr) return "wick was built without CUDA (configure with -DWICK_CUDA=ON)";
  return b->is_available() ? "" : b->unavailable_reason();
}

int device_count() {
  DeviceBackend* b = usable();
  return b ? b->device_count() : 0;
}
int current_device() { return need("cuda::current_device").current_device(); }
void set_device(int index) {
  DeviceBackend& b = need("cuda::set_device");
  WICK_CHECK(index >= 0 && index < b.device_count(), DeviceError, "cuda::set_device",
             "device index ", index, " out of range (", b.device_count(), " device(s))");
  b.set_device(index);
}
std::string device_name(int index) {
  DeviceBackend& b = need("cuda::device_name");
  return b.device_name(pick(b, index));
}
DeviceProperties get_device_properties(int index) {
  DeviceBackend& b = need("cuda::get_device_properties");
  return b.properties(pick(b, index));
}
void synchronize(int index) {
  // Like torch.cuda.synchronize, this needs a device; without one it is an error, not a no-op.
  DeviceBackend& b = need("cuda::synchronize");
  b.synchronize(pick(b, index));
}
MemoryStats memory_stats(int index) {
  DeviceBackend* b = usable();
  return b ? b->memory_stats(pick(*b, index)) : MemoryStats{};
}
int64_t memory_allocated(int index) { return memory_stats(index).allocated_bytes; }
int64_t memory_reserved(int index) { return memory_stats(index).reserved_bytes; }
int64_t max_memory_allocated(int index) { return memory_stats(index).peak_allocated_bytes; }
void reset_peak_memory_stats(int index) {
  if (DeviceBackend* b = usable()) b->reset_peak_memory_stats(pick(*b, index));
}
void empty_cache() {
  if (DeviceBackend* b = usable()) b->empty_cache();
}
std::pair<int64_t, int64_t> mem_get_info(int index) {
  DeviceBackend& b = need("cuda::mem_get_info");
  const int device = pick(b, index);
  WICK_CHECK(device >= 0 && device < b.device_count(), DeviceError, "cuda::mem_get_info",
             "device index ", device, " out of range (", b.device_count(), " device(s))");
  return b.mem_get_info(device);
}

}  // namespace wick::cuda
