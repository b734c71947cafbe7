// backend.cpp: the backend registry, the CPU backend (cpu_allocator.cpp's memory, memcpy),
// and the kernel table that run_kernel dispatches through.
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include "cpu_allocator.hpp"
#include "internal.hpp"
#include "wick/backend.hpp"
#include "wick/cpu.hpp"
#include "wick/debug.hpp"
#include "wick/dispatch.hpp"

namespace wick {
namespace {

class CpuBackend final : public DeviceBackend {
 public:
  DeviceType type() const override { return kCPU; }
  Allocator& allocator() override { return allocator_; }
  bool is_available() const override { return true; }
  std::string unavailable_reason() const override { return ""; }
  int device_count() const override { return 1; }
  int current_device() const override { return 0; }
  void set_device(int) override {}
  void copy_from_host(void* dst, Device, const void* src, size_t nbytes) override {
    if (nbytes) std::memcpy(dst, src, nbytes);
  }
  void copy_to_host(void* dst, const void* src, Device, size_t nbytes) override {
    if (nbytes) std::memcpy(dst, src, nbytes);
  }
  void copy_between(void* dst, Device, const void* src, Device, size_t nbytes) override {
    if (nbytes) std::memcpy(dst, src, nbytes);
  }
  void synchronize(int) override {}
  MemoryStats memory_stats(int) const override {
    const cpu::CacheStats cache = cpu::cache_stats();
    MemoryStats stats;
    stats.reserved_bytes = static_cast<int64_t>(cache.cached_bytes);  // held, not in use
    stats.num_device_allocs = cache.allocations;
    return stats;
  }
  void reset_peak_memory_stats(int) override {}
  void empty_cache() override { cpu::empty_cache(); }
  std::string device_name(int) const override { return "cpu"; }
  DeviceProperties properties(int) const override { return DeviceProperties{"cpu", 0, 0, 1, 0, 0}; }

 private:
  detail::CpuAllocator allocator_;
};

CpuBackend g_cpu_backend;
std::atomic<bool> g_debug_fill{false};
std::array<std::atomic<DeviceBackend*>, kNumDeviceTypes> g_backends{&g_cpu_backend, nullptr};
std::array<std::array<KernelFn, kNumDeviceTypes>, kNumOps> g_kernels{};
std::array<std::array<bool, kNumDeviceTypes>, kNumOps> g_computes_bf16{};

}  // namespace

void set_debug_fill(bool on) { g_debug_fill.store(on); }
bool debug_fill() { return g_debug_fill.load(std::memory_order_relaxed); }

std::pair<int64_t, int64_t> DeviceBackend::mem_get_info(int) const {
  detail::fail<DeviceError>("mem_get_info", "not available for ", device_type_name(type()),
                            " devices");
}

void register_backend(DeviceBackend* backend) {
  g_backends[static_cast<int>(backend->type())].store(backend);
}

DeviceBackend* find_backend(DeviceType type) {
  detail::ensure_initialized();
  return g_backends[static_cast<int>(type)].load();
}

DeviceBackend& backend_for(Device device, const char* op) {
  DeviceBackend* backend = find_backend(device.type());
  if (backend == nullptr) {
    detail::fail<DeviceError>(op, "cannot use device ", device,
                              ": wick was built without CUDA (configure with -DWICK_CUDA=ON)");
  }
  if (!backend->is_available()) {
    detail::fail<DeviceError>(op, "cannot use device ", device, ": ",
                              backend->unavailable_reason());
  }
  return *backend;
}

Device resolve_device(Device device, const char* op) {
  if (device.is_cpu()) return device;
  DeviceBackend& backend = backend_for(device, op);
  int index = device.has_index() ? device.index() : backend.current_device();
  WICK_CHECK(index < backend.device_count(), DeviceError, op, "device ", device,
             " does not exist (", backend.device_count(), " ", device.type(), " device(s))");
  return Device(device.type(), index);
}

Storage make_storage(size_t nbytes, Device device, const char* op) {
  if (device.is_cpu()) {  // the common case, without the backend lookup
    return std::make_shared<StorageImpl>(g_cpu_backend.allocator().allocate(nbytes, device),
                                         nbytes);
  }
  Device resolved = resolve_device(device, op);
  DataPtr data = backend_for(resolved, op).allocator().allocate(nbytes, resolved);
  return std::make_shared<StorageImpl>(data, nbytes);
}

void register_kernel(OpId op, DeviceType device, KernelFn fn, bool computes_bf16) {
  g_kernels[static_cast<size_t>(op)][static_cast<int>(device)] = fn;
  g_computes_bf16[static_cast<size_t>(op)][static_cast<int>(device)] = computes_bf16;
}

bool supports(OpId op, DeviceType device) {
  detail::ensure_initialized();
  return g_kernels[static_cast<size_t>(op)][static_cast<int>(device)] != nullptr;
}

namespace {

bool touches_bf16(const OpCall& call) {
  for (int i = 0; i < call.num_inputs; ++i) {
    if (call.in(i).dtype() == kBFloat16) return true;
  }
  for (int i = 0; i < call.num_outputs; ++i) {
    if (call.out(i).dtype() == kBFloat16) return true;
  }
  return false;
}

// bfloat16 in float32, as PyTorch computes it on the CPU: bfloat16 inputs are widened (exactly),
// the kernel runs on float32 tensors, and each bfloat16 output receives its float32 result
// rounded once, through the copy kernel (which also writes strided and in-place outputs).
// Kernels therefore never see bfloat16 unless they say they compute it (register_kernel).
}  // namespace

void detail::run_in_float32(KernelFn fn, const OpCall& call, Device device) {
  OpCall wide = call;
  std::array<Tensor, 3> inputs;
  std::array<Tensor, 2> outputs;
  for (int i = 0; i < call.num_inputs; ++i) {
    if (call.in(i).dtype() != kBFloat16) continue;
    inputs[i] = detail::make_empty(call.in(i).sizes(), kFloat32, device, "bfloat16 widening");
    OpCall cast;
    cast.op = OpId::copy;
    cast.inputs[0] = call.inputs[i];
    cast.num_inputs = 1;
    cast.outputs[0] = &inputs[i];
    cast.num_outputs = 1;
    run_kernel(cast, device);
    wide.inputs[i] = &inputs[i];
  }
  for (int i = 0; i < call.num_outputs; ++i) {
    if (call.out(i).dtype() != kBFloat16) continue;
    outputs[i] = detail::make_empty(call.out(i).sizes(), kFloat32, device, "bfloat16 widening");
    wide.outputs[i] = &outputs[i];
  }
  fn(wide);
  for (int i = 0; i < call.num_outputs; ++i) {
    if (call.out(i).dtype() != kBFloat16) continue;
    OpCall cast;
    cast.op = OpId::copy;
    cast.inputs[0] = &outputs[i];
    cast.num_inputs = 1;
    cast.outputs[0] = call.outputs[i];
    cast.num_outputs = 1;
    run_kernel(cast, device);
  }
}

void run_kernel(const OpCall& call, Device device) {
  detail::ensure_initialized();
  const size_t op = static_cast<size_t>(call.op);
  const int type = static_cast<int>(device.type());
  KernelFn fn = g_kernels[op][type];
  if (fn == nullptr) {
    detail::fail<DeviceError>(std::string(op_name(call.op)).c_str(), "no kernel for device ",
                              device, " in this build");
  }
  if (!g_computes_bf16[op][type] && touches_bf16(call)) {
    detail::run_in_float32(fn, call, device);
    return;
  }
  fn(call);
}

namespace detail {
void unhandled_dtype(Dtype dtype, const char* where) {
  fail<Error>("kernel", "internal: dtype ", dtype, " reached a kernel without a case for it (",
              where, ")");
}
}  // namespace detail

}  // namespace wick
