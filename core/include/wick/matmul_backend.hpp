// matmul_backend.hpp: which implementation runs matmul on CUDA tensors, chosen at run time:
// wick's own shared-memory tiled kernel (kernels/cuda/matmul.cu, the default) or cuBLAS
// (kernels/cuda/matmul_cublas.cpp, the reference the CUDA tests compare against). The
// environment variable WICK_MATMUL_BACKEND=tiled|cublas sets the starting choice. cuBLAS has no
// int64 GEMM, so int64 matmul always runs the tiled kernel; the CPU has one implementation and
// ignores this setting. No CUDA header here: core stays CUDA-free.
// Tested in tests/cuda/test_matmul.cpp (both backends against the CPU float64 reference).
#pragma once

#include <cstdint>

namespace wick {

enum class MatmulBackend : uint8_t { Tiled, Cublas };

// Applies to matmuls issued after the call, on every thread.
void set_matmul_backend(MatmulBackend backend);
// The current choice; on first use read from WICK_MATMUL_BACKEND (ValueError if it is set to
// anything but "tiled" or "cublas").
MatmulBackend matmul_backend();
const char* matmul_backend_name(MatmulBackend backend);  // "tiled", "cublas"

}  // namespace wick
