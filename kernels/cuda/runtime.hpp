// runtime.hpp: the CUDA backend's host-side plumbing, shared by every file of kernels/cuda:
//  - the one error helper: every CUDA runtime call, every cuBLAS call and every kernel launch
//    goes through check_cuda / check_cublas / check_launch, which throw wick::CudaError naming
//    the call, the op and the device (never abort, never exit);
//  - DeviceGuard (switch the current device for a scope), per-device facts, OpContext (what a
//    kernel launcher needs: op name, device, stream), temporary device buffers from the
//    caching allocator, and the WICK_CUDA_SYNC switch.
// Host code only, so the .cpp files of the backend include it too. Device code is in common.cuh.
// Note [One stream per device]: every wick op, copy and cuBLAS call runs on the legacy default
// stream of its device, as PyTorch's default stream. Work is therefore ordered per device, a
// block freed to the caching allocator may be handed out again at once (the next user's work
// queues behind the last user's), and a temporary buffer may be dropped as soon as the launches
// that use it are queued. Transfers to the host synchronise, so to(kCPU) returns ready data.
// Tested by tests/cuda (on a GPU) and tests/cuda/test_host.cpp (on any machine).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "wick/dispatch.hpp"
#include "wick/error.hpp"
#include "wick/storage.hpp"

namespace wick::gpu {

// ---- errors ----
// Throws CudaError: "<op>: <call> failed on cuda:<device>: <error name> (<error text>)".
[[noreturn]] void throw_cuda_error(cudaError_t error, const char* call, const char* op, int device);
[[noreturn]] void throw_cublas_error(int status, const char* call, const char* op, int device);

inline void check_cuda(cudaError_t error, const char* call, const char* op, int device) {
  if (__builtin_expect(error != cudaSuccess, 0)) throw_cuda_error(error, call, op, device);
}
// status is a cublasStatus_t (0 = CUBLAS_STATUS_SUCCESS); an int so that this header needs no
// cuBLAS header.
inline void check_cublas(int status, const char* call, const char* op, int device) {
  if (__builtin_expect(status != 0, 0)) throw_cublas_error(status, call, op, device);
}

}  // namespace wick::gpu

// WICK_CUDA_CHECK(cudaMemcpyAsync(...), op, device): the call's text goes into the message.
#define WICK_CUDA_CHECK(expr, op, device) ::wick::gpu::check_cuda((expr), #expr, (op), (device))
#define WICK_CUBLAS_CHECK(expr, op, device) \
  ::wick::gpu::check_cublas(static_cast<int>(expr), #expr, (op), (device))

namespace wick::gpu {
// cuBLAS takes its workspace with cudaMalloc, outside wick's caching allocator: when the cache
// holds the free memory, cublasCreate or a GEMM fails with CUBLAS_STATUS_ALLOC_FAILED although
// releasing the cache would let it run (found by review). As the allocator does for its own
// requests: release every device's cached blocks and try once more.
constexpr int kCublasAllocFailed = 3;  // CUBLAS_STATUS_ALLOC_FAILED
void release_cached_device_memory();
template <typename Call>
void check_cublas_retrying(Call&& call, const char* text, const char* op, int device) {
  int status = static_cast<int>(call());
  if (status == kCublasAllocFailed) {
    release_cached_device_memory();
    status = static_cast<int>(call());
  }
  check_cublas(status, text, op, device);
}
}  // namespace wick::gpu

// WICK_CUBLAS_RETRY(cublasSgemm(...), op, device): WICK_CUBLAS_CHECK, retried once after the
// cache is released when cuBLAS could not allocate.
#define WICK_CUBLAS_RETRY(expr, op, device) \
  ::wick::gpu::check_cublas_retrying([&] { return (expr); }, #expr, (op), (device))

namespace wick::gpu {

// ---- devices ----
// Makes `device` current for the scope and restores the previous one (errors on restore are
// ignored: a destructor must not throw). device < 0 leaves the current device alone.
class DeviceGuard {
 public:
  DeviceGuard(int device, const char* op);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

// Facts read once per device with cudaGetDeviceProperties.
struct DeviceInfo {
  std::string name;
  int sm_count = 1;
  int max_threads_per_sm = 2048;
  int major = 0, minor = 0;
  size_t total_memory = 0;
  size_t l2_bytes = 0;
};
const DeviceInfo& device_info(int device);

// ---- switches read once from the environment ----
// WICK_CUDA_SYNC=1: synchronise after every kernel and op, so that an asynchronous fault is
// reported by the op that caused it (slow; for debugging).
bool sync_every_op();

// ---- what a kernel launcher works with ----
struct OpContext {
  // For a kernel entry: the op's name and the device of its first output, made current.
  explicit OpContext(const OpCall& call);
  OpContext(const char* op, int device);

  const char* op;
  int device;
  cudaStream_t stream = nullptr;  // the legacy default stream (Note [One stream per device])
  DeviceGuard guard;
};

// After a launch: cudaGetLastError (a bad launch configuration shows here); with
// WICK_CUDA_SYNC also synchronises and checks, naming the kernel.
void check_launch(const OpContext& ctx, const char* kernel);
// After a whole op, from the registered entry (register_cuda.cpp): with WICK_CUDA_SYNC,
// synchronises the op's device and checks.
void finish_op(const OpCall& call);

// Device bytes from the caching allocator of `device` (nbytes may be 0: a null pointer).
DataPtr allocate_device(size_t nbytes, int device);

// A temporary device buffer, returned to the cache when it goes out of scope. Dropping it right
// after queueing the launches that use it is safe (Note [One stream per device]).
class DeviceBuffer {
 public:
  DeviceBuffer(size_t nbytes, const OpContext& ctx) : data_(allocate_device(nbytes, ctx.device)) {}
  ~DeviceBuffer() {
    if (data_.deleter != nullptr) data_.deleter(data_.ptr, data_.context);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_.ptr);
  }

 private:
  DataPtr data_;
};

// The cuBLAS handle of `device`, created on first use, bound to the device's stream
// (a cublasHandle_t, as void* so that this header needs no cuBLAS header).
void* cublas_handle(int device);

}  // namespace wick::gpu
