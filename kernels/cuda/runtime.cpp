// runtime.cpp: the CUDA backend's error helpers, device guard, device facts, the
// WICK_CUDA_SYNC switch and the per-device cuBLAS handles (see runtime.hpp).
#include "runtime.hpp"

#include <cublas_v2.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "wick/cuda.hpp"

namespace wick::gpu {
namespace {

std::string device_label(int device) {
  if (device >= 0) return "cuda:" + std::to_string(device);
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current >= 0) {
    return "cuda:" + std::to_string(current);
  }
  return "cuda";
}

// Errors that a kernel leaves behind and a later, innocent call reports.
bool is_asynchronous_fault(cudaError_t error) {
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}

bool env_flag(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
}

}  // namespace

void throw_cuda_error(cudaError_t error, const char* call, const char* op, int device) {
  // A failed runtime call also leaves its error in the thread's last-error slot, which
  // check_launch reads with cudaGetLastError: not cleared here, a non-sticky error (an invalid
  // device index, an invalid argument) would be reported again as the launch failure of the
  // next, innocent kernel. Sticky errors (a kernel fault) stay whatever this does. Cleared
  // after device_label, whose cudaGetDevice may fail too.
  const std::string where = device_label(device);
  (void)cudaGetLastError();
  std::string hint;
  if (is_asynchronous_fault(error) && !sync_every_op()) {
    hint =
        "; the fault may come from earlier asynchronous work: rerun with WICK_CUDA_SYNC=1 to "
        "find the op that caused it";
  }
  detail::fail<CudaError>(op, call, " failed on ", where, ": ", cudaGetErrorName(error), " (",
                          cudaGetErrorString(error), ")", hint);
}

void release_cached_device_memory() { cuda::empty_cache(); }

void throw_cublas_error(int status, const char* call, const char* op, int device) {
  const std::string where = device_label(device);
  (void)cudaGetLastError();  // a runtime error cuBLAS met inside: reported here, not again
  auto s = static_cast<cublasStatus_t>(status);
  detail::fail<CudaError>(op, call, " failed on ", where, ": ", cublasGetStatusName(s), " (",
                          cublasGetStatusString(s), ")");
}

DeviceGuard::DeviceGuard(int device, const char* op) {
  if (device < 0) return;
  int current = -1;
  WICK_CUDA_CHECK(cudaGetDevice(&current), op, device);
  if (current != device) {
    WICK_CUDA_CHECK(cudaSetDevice(device), op, device);
    previous_ = current;
  }
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0) {
    // Cannot throw here; a failure would also have failed the calls inside the scope.
    if (cudaSetDevice(previous_) != cudaSuccess) (void)cudaGetLastError();
  }
}

// Every launch asks (grid sizes), so the answer for devices 0..63 is published in a lock-free
// slot once made; the mutex and the map are taken only the first time per device (and for
// indices past the slots, which no machine has).
const DeviceInfo& device_info(int device) {
  constexpr int kFastSlots = 64;
  static std::array<std::atomic<const DeviceInfo*>, kFastSlots> published{};
  const bool has_slot = device >= 0 && device < kFastSlots;
  if (has_slot) {
    if (const DeviceInfo* ready = published[device].load(std::memory_order_acquire)) return *ready;
  }
  static std::mutex mutex;
  static auto* infos = new std::map<int, std::unique_ptr<DeviceInfo>>();  // lives to the end
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<DeviceInfo>& slot = (*infos)[device];
  if (!slot) {
    cudaDeviceProp prop{};
    WICK_CUDA_CHECK(cudaGetDeviceProperties(&prop, device), "device properties", device);
    auto info = std::make_unique<DeviceInfo>();
    info->name = prop.name;
    info->sm_count = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    info->max_threads_per_sm =
        prop.maxThreadsPerMultiProcessor > 0 ? prop.maxThreadsPerMultiProcessor : 1024;
    info->major = prop.major;
    info->minor = prop.minor;
    info->total_memory = prop.totalGlobalMem;
    info->l2_bytes = static_cast<size_t>(prop.l2CacheSize);
    slot = std::move(info);
  }
  if (has_slot) published[device].store(slot.get(), std::memory_order_release);
  return *slot;
}

bool sync_every_op() {
  static const bool on = env_flag("WICK_CUDA_SYNC");
  return on;
}

OpContext::OpContext(const OpCall& call)
    : OpContext(op_name(call.op).data(), call.out(0).device().index()) {}

OpContext::OpContext(const char* name, int index) : op(name), device(index), guard(index, name) {}

void check_launch(const OpContext& ctx, const char* kernel) {
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) {
    throw_cuda_error(error, (std::string("launch of ") + kernel).c_str(), ctx.op, ctx.device);
  }
  if (sync_every_op()) {
    error = cudaStreamSynchronize(ctx.stream);
    if (error != cudaSuccess) {
      (void)cudaGetLastError();
      throw_cuda_error(error, (std::string(kernel) + " (found by WICK_CUDA_SYNC=1)").c_str(),
                       ctx.op, ctx.device);
    }
  }
}

void finish_op(const OpCall& call) {
  if (!sync_every_op()) return;
  OpContext ctx(call);
  cudaError_t error = cudaStreamSynchronize(ctx.stream);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();
    throw_cuda_error(error, "the op (found by WICK_CUDA_SYNC=1)", ctx.op, ctx.device);
  }
}

void* cublas_handle(int device) {
  static std::mutex mutex;
  static auto* handles = new std::map<int, cublasHandle_t>();  // lives to the end, as the driver
  std::lock_guard<std::mutex> lock(mutex);
  cublasHandle_t& handle = (*handles)[device];
  if (handle == nullptr) {
    DeviceGuard guard(device, "matmul");
    cublasHandle_t created = nullptr;
    WICK_CUBLAS_RETRY(cublasCreate(&created), "matmul", device);
    // The device's legacy default stream (Note [One stream per device]); plain FP32/FP64
    // arithmetic (no TF32), since cuBLAS is the reference the tests compare against.
    // A failure to configure it destroys it (not leaked, and not kept half set up).
    try {
      WICK_CUBLAS_CHECK(cublasSetStream(created, nullptr), "matmul", device);
      WICK_CUBLAS_CHECK(cublasSetMathMode(created, CUBLAS_DEFAULT_MATH), "matmul", device);
    } catch (...) {
      (void)cublasDestroy(created);
      throw;
    }
    handle = created;
  }
  return handle;
}

}  // namespace wick::gpu
