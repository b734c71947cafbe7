// matmul_backend.cpp: the run-time choice of the CUDA matmul kernel (wick/matmul_backend.hpp).
// One atomic index into the name list, seeded once from WICK_MATMUL_BACKEND; one atomic flag
// for TF32; a thread-local record of the kernel that ran last.
#include "wick/matmul_backend.hpp"

#include <atomic>
#include <cstdlib>
#include <string>

#include "wick/error.hpp"

namespace wick {
namespace {

// Keep in step with kernels/cuda/gemm/select.cpp (tests/cuda/test_host.cpp checks it).
constexpr const char* kNames[] = {"auto",
                                  "cublas",
                                  "01_naive",
                                  "02_coalesced",
                                  "03_shared_tiles",
                                  "04_blocktile_1d",
                                  "05_blocktile_2d",
                                  "06_vectorized",
                                  "07_warptile",
                                  "08_cp_async",
                                  "08_cp_async_128x256_s3",
                                  "08_cp_async_256x128_s3",
                                  "08_cp_async_128x128_t128_s3",
                                  "08_cp_async_128x128_s3",
                                  "09_tf32_mma",
                                  "10_bf16_mma",
                                  "11_wgmma_tma",
                                  "12_wgmma_wide",
                                  "13_wgmma_tf32"};
constexpr int kAuto = 0, kCublas = 1, kUnset = -1;

std::atomic<int> g_kernel{kUnset};
std::atomic<bool> g_allow_tf32{false};
thread_local const char* t_last = "";

int index_of(std::string_view name, const char* source) {
  if (name == "tiled") return kAuto;
  for (int i = 0; i < static_cast<int>(std::size(kNames)); ++i) {
    if (name == kNames[i]) return i;
  }
  std::string known;
  for (const char* n : kNames) known += std::string(known.empty() ? "" : ", ") + n;
  detail::fail<ValueError>("matmul", source, ": unknown matmul kernel \"", std::string(name),
                           "\"; known: ", known);
}

int from_environment() {
  const char* value = std::getenv("WICK_MATMUL_BACKEND");
  if (value == nullptr || *value == '\0') return kAuto;
  return index_of(value, "WICK_MATMUL_BACKEND");
}

int current() {
  int now = g_kernel.load(std::memory_order_relaxed);
  if (now == kUnset) {
    const int seeded = from_environment();
    // A set_matmul_kernel() that raced with us wins.
    g_kernel.compare_exchange_strong(now, seeded, std::memory_order_relaxed);
    now = g_kernel.load(std::memory_order_relaxed);
  }
  return now;
}

}  // namespace

std::span<const char* const> matmul_kernel_names() { return kNames; }

void set_matmul_kernel(std::string_view name) {
  g_kernel.store(index_of(name, "set_matmul_kernel"), std::memory_order_relaxed);
}

const char* matmul_kernel() { return kNames[current()]; }

void set_allow_tf32(bool allow) { g_allow_tf32.store(allow, std::memory_order_relaxed); }
bool allow_tf32() { return g_allow_tf32.load(std::memory_order_relaxed); }

const char* last_matmul_kernel() { return t_last; }
void detail::note_matmul_kernel(const char* name) { t_last = name; }

void set_matmul_backend(MatmulBackend backend) {
  g_kernel.store(backend == MatmulBackend::Cublas ? kCublas : kAuto, std::memory_order_relaxed);
}

MatmulBackend matmul_backend() {
  return current() == kCublas ? MatmulBackend::Cublas : MatmulBackend::Tiled;
}

const char* matmul_backend_name(MatmulBackend backend) {
  return backend == MatmulBackend::Cublas ? "cublas" : "tiled";
}

}  // namespace wick
