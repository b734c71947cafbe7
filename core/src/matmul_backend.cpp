// matmul_backend.cpp: the run-time choice between wick's tiled CUDA matmul and cuBLAS
// (wick/matmul_backend.hpp). One atomic, seeded once from WICK_MATMUL_BACKEND.
#include "wick/matmul_backend.hpp"

#include <atomic>
#include <cstdlib>
#include <string>

#include "wick/error.hpp"

namespace wick {
namespace {

constexpr int kUnset = -1;
std::atomic<int> g_backend{kUnset};

int from_environment() {
  const char* value = std::getenv("WICK_MATMUL_BACKEND");
  if (value == nullptr || *value == '\0') return static_cast<int>(MatmulBackend::Tiled);
  std::string v(value);
  if (v == "tiled") return static_cast<int>(MatmulBackend::Tiled);
  if (v == "cublas") return static_cast<int>(MatmulBackend::Cublas);
  detail::fail<ValueError>("matmul", "WICK_MATMUL_BACKEND must be \"tiled\" or \"cublas\", got \"",
                           v, "\"");
}

}  // namespace

void set_matmul_backend(MatmulBackend backend) {
  g_backend.store(static_cast<int>(backend), std::memory_order_relaxed);
}

MatmulBackend matmul_backend() {
  int current = g_backend.load(std::memory_order_relaxed);
  if (current == kUnset) {
    int seeded = from_environment();
    // A set_matmul_backend() that raced with us wins.
    g_backend.compare_exchange_strong(current, seeded, std::memory_order_relaxed);
    current = g_backend.load(std::memory_order_relaxed);
  }
  return static_cast<MatmulBackend>(current);
}

const char* matmul_backend_name(MatmulBackend backend) {
  return backend == MatmulBackend::Cublas ? "cublas" : "tiled";
}

}  // namespace wick
