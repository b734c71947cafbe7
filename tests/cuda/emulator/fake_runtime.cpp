// fake_runtime.cpp: the parts of the CUDA runtime API and of cuBLAS that wick's CUDA backend
// calls, written for the CPU emulator (tests/cuda/cuda_emulator.hpp): one device, "cuda:0",
// whose memory is host memory (2 GiB of it, so that the out-of-memory path can be reached),
// streams and events that are already complete (every launch runs to completion), and a
// cuBLAS whose GEMMs are plain loops with double accumulation (the tests' reference for the
// ladder kernels). It links in place of libcudart and libcublas, into the emulated library
// only (tests/cuda/emulator/CMakeLists.txt); the real backend never sees it.
// Async copies to or from pinned memory (cudaHostAlloc: only the backend's staging buffers)
// are deferred, as a DMA engine would run them: queued in stream order and carried out when an
// event recorded after them is synchronised, or at any synchronize or other copy, so that a
// staging pipeline that refills a pinned buffer before waiting for the copy reading it, or reads
// one before waiting for the copy filling it, moves the wrong bytes and fails its round trip.
// Kernel launches (cuda_emulator.hpp) do not flush the queue: within one host thread a staged
// copy always ends with a synchronize before to() returns.
// Errors behave as the runtime's: a failed call returns its code and leaves it for
// cudaGetLastError; an invalid launch configuration (the emulator's check) is returned by
// the next cudaGetLastError.
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <unordered_map>

#include "cuda_emulator.hpp"
#include "wick/bfloat16.hpp"

struct CUevent_st {
  double ms = 0;
  uint64_t copies = 0;  // deferred copies queued before it was recorded
};
struct cublasContext {
  cudaStream_t stream = nullptr;
};

namespace {

constexpr size_t kDeviceBytes = size_t{2} << 30;

std::mutex g_mutex;
std::unordered_map<void*, size_t> g_allocations;
size_t g_used = 0;
thread_local cudaError_t t_last_error = cudaSuccess;
thread_local int t_device = 0;

cudaError_t fail(cudaError_t error) {
  t_last_error = error;
  return error;
}

// ---- deferred copies (pinned memory; see the top of the file) ----
struct PendingCopy {
  void* dst;
  const void* src;
  size_t count;
  uint64_t id;
};
std::mutex g_copy_mutex;  // guards the three below; copies run while it is held, so that a
                          // synchronize returns only once they are done, whoever ran them
std::map<uintptr_t, size_t> g_pinned;  // start -> size of each cudaHostAlloc block
std::deque<PendingCopy> g_pending;
uint64_t g_copies_queued = 0;

bool pinned_locked(const void* ptr) {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  auto it = g_pinned.upper_bound(p);
  if (it == g_pinned.begin()) return false;
  --it;
  return p < it->first + it->second;
}
// Carries out the queued copies with ids below `upto` (all of them by default), in order.
void run_pending(uint64_t upto = UINT64_MAX) {
  std::lock_guard<std::mutex> lock(g_copy_mutex);
  while (!g_pending.empty() && g_pending.front().id < upto) {
    const PendingCopy& c = g_pending.front();
    std::memmove(c.dst, c.src, c.count);
    g_pending.pop_front();
  }
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

extern "C" {

cudaError_t cudaRuntimeGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  *device = t_device;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  if (device != 0) return fail(cudaErrorInvalidDevice);
  t_device = device;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device != 0) return fail(cudaErrorInvalidDevice);
  std::memset(prop, 0, sizeof *prop);
  std::strncpy(prop->name, "wick CPU emulator (as sm_90)", sizeof prop->name - 1);
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = 2;
  prop->maxThreadsPerMultiProcessor = 2048;
  prop->maxThreadsPerBlock = 1024;
  prop->warpSize = 32;
  prop->sharedMemPerBlock = 48 << 10;
  prop->totalGlobalMem = kDeviceBytes;
  prop->l2CacheSize = 1 << 20;
  return cudaSuccess;
}
cudaError_t cudaGetLastError(void) {
  cudaError_t error = t_last_error;
  t_last_error = cudaSuccess;
  if (error == cudaSuccess && emu::g_launch.config_error) {
    emu::g_launch.config_error = false;
    error = cudaErrorInvalidConfiguration;
  }
  return error;
}
cudaError_t cudaPeekAtLastError(void) { return t_last_error; }
const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    case cudaErrorInvalidConfiguration:
      return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    default:
      return "cudaErrorUnknown";
  }
}
const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "no error";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorInvalidConfiguration:
      return "invalid configuration argument";
    default:
      return "unknown error (CPU emulator)";
  }
}

cudaError_t cudaMalloc(void** ptr, size_t size) {
  std::lock_guard<std::mutex> lock(g_mutex);
  *ptr = nullptr;
  if (size > kDeviceBytes - g_used) return fail(cudaErrorMemoryAllocation);
  void* p = std::aligned_alloc(256, (size + 255) / 256 * 256);
  if (p == nullptr) return fail(cudaErrorMemoryAllocation);
  g_allocations[p] = size;
  g_used += size;
  *ptr = p;
  return cudaSuccess;
}
cudaError_t cudaFree(void* ptr) {
  if (ptr == nullptr) return cudaSuccess;
  run_pending();
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = g_allocations.find(ptr);
  if (it == g_allocations.end()) return fail(cudaErrorInvalidValue);
  g_used -= it->second;
  g_allocations.erase(it);
  std::free(ptr);
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  std::lock_guard<std::mutex> lock(g_mutex);
  *free_bytes = kDeviceBytes - g_used;
  *total = kDeviceBytes;
  return cudaSuccess;
}
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int) {
  *ptr = std::malloc(size == 0 ? 1 : size);
  if (*ptr == nullptr) return fail(cudaErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(g_copy_mutex);
  g_pinned[reinterpret_cast<uintptr_t>(*ptr)] = size == 0 ? 1 : size;
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* ptr) {
  run_pending();
  {
    std::lock_guard<std::mutex> lock(g_copy_mutex);
    g_pinned.erase(reinterpret_cast<uintptr_t>(ptr));
  }
  std::free(ptr);
  return cudaSuccess;
}
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind) {
  run_pending();
  if (count) std::memmove(dst, src, count);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind,
                            cudaStream_t) {
  {
    std::lock_guard<std::mutex> lock(g_copy_mutex);
    if (count && (pinned_locked(dst) || pinned_locked(src))) {
      g_pending.push_back(PendingCopy{dst, src, count, g_copies_queued++});
      return cudaSuccess;
    }
  }
  run_pending();  // stream order: what was queued before goes first
  if (count) std::memmove(dst, src, count);
  return cudaSuccess;
}
cudaError_t cudaMemcpyPeerAsync(void* dst, int, const void* src, int, size_t count, cudaStream_t) {
  run_pending();
  if (count) std::memmove(dst, src, count);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t count, cudaStream_t) {
  run_pending();
  if (count) std::memset(ptr, value, count);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) {
  run_pending();
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) {
  run_pending();
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  *event = new CUevent_st;
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) {
  *event = new CUevent_st;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  event->ms = now_ms();
  std::lock_guard<std::mutex> lock(g_copy_mutex);
  event->copies = g_copies_queued;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  run_pending(event->copies);
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  *ms = static_cast<float>(end->ms - start->ms);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}

// ---- cuBLAS ----
// Test hook: the next n GEMM calls fail as cuBLAS does when it cannot allocate its workspace
// (tests/cuda/test_runtime.cpp checks that the backend releases its cache and retries once).
static int g_gemm_alloc_failures = 0;
void wick_fake_cublas_fail_allocs(int n) { g_gemm_alloc_failures = n; }
static bool take_alloc_failure() {
  if (g_gemm_alloc_failures == 0) return false;
  --g_gemm_alloc_failures;
  return true;
}

cublasStatus_t cublasCreate_v2(cublasHandle_t* handle) {
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream) {
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetMathMode(cublasHandle_t, cublasMath_t) { return CUBLAS_STATUS_SUCCESS; }
const char* cublasGetStatusName(cublasStatus_t status) {
  return status == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS"
                                         : "CUBLAS_STATUS_(emulated error)";
}
const char* cublasGetStatusString(cublasStatus_t status) {
  return status == CUBLAS_STATUS_SUCCESS ? "success" : "error (CPU emulator)";
}

}  // extern "C"

namespace {

// Column-major C (m x n, ldc) = alpha op(A) op(B) + beta C for each of `count` batches.
template <typename T>
cublasStatus_t gemm_strided_batched(cublasOperation_t transa, cublasOperation_t transb, int m,
                                    int n, int k, const T* alpha, const T* a, int lda,
                                    long long stride_a, const T* b, int ldb, long long stride_b,
                                    const T* beta, T* c, int ldc, long long stride_c, int count) {
  if (m < 0 || n < 0 || k < 0 || count < 0) return CUBLAS_STATUS_INVALID_VALUE;
  const bool ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
  for (int z = 0; z < count; ++z) {
    const T* az = a + z * stride_a;
    const T* bz = b + z * stride_b;
    T* cz = c + z * stride_c;
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < m; ++i) {
        double acc = 0;
        for (int l = 0; l < k; ++l) {
          const double x = ta ? az[l + static_cast<long long>(i) * lda]
                              : az[i + static_cast<long long>(l) * lda];
          const double y = tb ? bz[j + static_cast<long long>(l) * ldb]
                              : bz[l + static_cast<long long>(j) * ldb];
          acc += x * y;
        }
        T& out = cz[i + static_cast<long long>(j) * ldc];
        const double prior = *beta == T(0) ? 0.0 : static_cast<double>(*beta) * out;
        out = static_cast<T>(static_cast<double>(*alpha) * acc + prior);
      }
    }
  }
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const float* alpha, const float* A, int lda,
                                         long long int strideA, const float* B, int ldb,
                                         long long int strideB, const float* beta, float* C,
                                         int ldc, long long int strideC, int batchCount) {
  if (take_alloc_failure()) return CUBLAS_STATUS_ALLOC_FAILED;
  return gemm_strided_batched(transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB,
                              beta, C, ldc, strideC, batchCount);
}
// The bfloat16 form only (A, B and C CUDA_R_16BF, FP32 compute, float alpha and beta): what
// matmul_cublas.cpp calls. Accumulates in double and rounds once to bfloat16.
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t, cublasOperation_t transa,
                                          cublasOperation_t transb, int m, int n, int k,
                                          const void* alpha, const void* A, cudaDataType Atype,
                                          int lda, long long int strideA, const void* B,
                                          cudaDataType Btype, int ldb, long long int strideB,
                                          const void* beta, void* C, cudaDataType Ctype, int ldc,
                                          long long int strideC, int batchCount,
                                          cublasComputeType_t computeType, cublasGemmAlgo_t) {
  if (Atype != CUDA_R_16BF || Btype != CUDA_R_16BF || Ctype != CUDA_R_16BF ||
      computeType != CUBLAS_COMPUTE_32F) {
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (m < 0 || n < 0 || k < 0 || batchCount < 0) return CUBLAS_STATUS_INVALID_VALUE;
  const bool ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
  const float scale = *static_cast<const float*>(alpha), keep = *static_cast<const float*>(beta);
  const auto* a = static_cast<const wick::BFloat16*>(A);
  const auto* b = static_cast<const wick::BFloat16*>(B);
  auto* c = static_cast<wick::BFloat16*>(C);
  for (int z = 0; z < batchCount; ++z) {
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < m; ++i) {
        double acc = 0;
        for (int l = 0; l < k; ++l) {
          const float x =
              static_cast<float>(ta ? a[z * strideA + l + static_cast<long long>(i) * lda]
                                    : a[z * strideA + i + static_cast<long long>(l) * lda]);
          const float y =
              static_cast<float>(tb ? b[z * strideB + j + static_cast<long long>(l) * ldb]
                                    : b[z * strideB + l + static_cast<long long>(j) * ldb]);
          acc += static_cast<double>(x) * y;
        }
        wick::BFloat16& out = c[z * strideC + i + static_cast<long long>(j) * ldc];
        const double prior = keep == 0 ? 0.0 : static_cast<double>(keep) * static_cast<float>(out);
        out = wick::BFloat16(static_cast<float>(scale * acc + prior));
      }
    }
  }
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const double* alpha, const double* A, int lda,
                                         long long int strideA, const double* B, int ldb,
                                         long long int strideB, const double* beta, double* C,
                                         int ldc, long long int strideC, int batchCount) {
  if (take_alloc_failure()) return CUBLAS_STATUS_ALLOC_FAILED;
  return gemm_strided_batched(transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB,
                              beta, C, ldc, strideC, batchCount);
}

}  // extern "C"

extern "C" cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, const void*) {
  std::memset(attributes, 0, sizeof *attributes);
  attributes->ptxVersion = 90;  // the emulator runs every path of the device code
  attributes->binaryVersion = 90;
  attributes->maxThreadsPerBlock = 1024;
  return cudaSuccess;
}

// ---- steps 11 to 13 (gemm/hopper.cu): the kernel attribute call and the driver's tensor-map
// encoder, which the emulator's TMA (cuda_emulator.hpp) reads back. ----
extern "C" cudaError_t cudaFuncSetAttribute(const void* kernel, cudaFuncAttribute attribute,
                                            int value) {
  if (attribute == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || value > 227 * 1024) return cudaErrorInvalidValue;
    emu::set_max_dynamic_shared(kernel, static_cast<size_t>(value));
  }
  return cudaSuccess;
}

namespace {

// cuTensorMapEncodeTiled for the forms wick uses: 3-d, bfloat16 (steps 11, 12) or float32 (step
// 13), no interleave, the 128-byte swizzle (or none), element strides of 1. Checks TMA's rules the
// way the driver would.
CUresult fake_encode_tiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                           void* address, const cuuint64_t* dims, const cuuint64_t* strides,
                           const cuuint32_t* box, const cuuint32_t* element_strides,
                           CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                           CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  const bool bf16 = type == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  if ((!bf16 && type != CU_TENSOR_MAP_DATA_TYPE_FLOAT32) || rank != 3 ||
      interleave != CU_TENSOR_MAP_INTERLEAVE_NONE ||
      (swizzle != CU_TENSOR_MAP_SWIZZLE_128B && swizzle != CU_TENSOR_MAP_SWIZZLE_NONE)) {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (reinterpret_cast<uintptr_t>(address) % 16 != 0) return CUDA_ERROR_INVALID_VALUE;
  for (int i = 0; i < 3; ++i) {
    if (dims[i] == 0 || dims[i] > (uint64_t{1} << 32) || box[i] == 0 || box[i] > 256 ||
        element_strides[i] != 1) {
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  for (int i = 0; i < 2; ++i) {
    if (strides[i] % 16 != 0 || strides[i] >= (uint64_t{1} << 40)) return CUDA_ERROR_INVALID_VALUE;
  }
  // Each stride covers the dims inside it (cuda.h: globalStrides[i] is at least
  // globalStrides[i-1] * globalDim[i]); the driver may be laxer, wick asks no more.
  const uint32_t e = bf16 ? 2 : 4;  // bytes an element
  if (strides[0] < dims[0] * e || (dims[2] > 1 && strides[1] < strides[0] * dims[1])) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if ((box[0] * e) % 16 != 0 || (swizzle == CU_TENSOR_MAP_SWIZZLE_128B && box[0] * e > 128)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const uint64_t d[3] = {dims[0], dims[1], dims[2]};
  const uint64_t s[2] = {strides[0], strides[1]};
  const uint32_t b[3] = {box[0], box[1], box[2]};
  emu::encode_tensor_map(reinterpret_cast<uint64_t*>(map), address, e, d, s, b,
                         swizzle == CU_TENSOR_MAP_SWIZZLE_128B ? 128 : 0);
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** function,
                                                        unsigned int, unsigned long long,
                                                        cudaDriverEntryPointQueryResult* status) {
  *function = nullptr;
  if (std::strcmp(symbol, "cuTensorMapEncodeTiled") == 0) {
    *function = reinterpret_cast<void*>(&fake_encode_tiled);
  }
  if (status != nullptr) {
    *status = *function ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  }
  return cudaSuccess;
}
