// matmul_backend.hpp: which kernel runs matmul on CUDA tensors, chosen at run time.
//  - "auto" (the default): wick picks the fastest of its own kernels that can take the dtype,
//    layout and device (kernels/cuda/gemm/select.cpp says how);
//  - "cublas": cuBLAS (kernels/cuda/matmul_cublas.cpp), the reference of the tests and benches;
//  - a step of the matmul ladder by name, "01_naive" ... "13_wgmma_tf32" (docs/gemm.md), for
//    teaching and comparison, and step 8's tile variants ("08_cp_async_128x256_s3" ...), which
//    run by name only until a GPU has measured them.
// A forced kernel runs every matmul it can take; one it cannot take (cuBLAS and int64, a
// float32-only step and float64, a 128-bit-load step and a strided view, a tensor-core step
// below sm_80, a bfloat16 step and any other dtype) runs the automatic choice instead, and
// last_matmul_kernel() says which ran. bfloat16 matmuls run step 11 on sm_90 (K-major operands,
// sm_90a code built), else step 10 where it can take them, else float32 copies through the
// automatic float32 choice, rounded once.
// TF32 tensor cores round float32 inputs to 10 mantissa bits; as in PyTorch
// (torch.backends.cuda.matmul.allow_tf32) "auto" uses them only after set_allow_tf32(true).
// The environment variable WICK_MATMUL_BACKEND sets the starting kernel ("tiled" is an old
// name of "auto"); the CPU has one implementation and ignores all of this. No CUDA header here:
// core stays CUDA-free. Tested in tests/cuda (host-side tests and the GPU suite).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace wick {

// Every name set_matmul_kernel() takes, in ladder order: "auto", "cublas", "01_naive", ...
std::span<const char* const> matmul_kernel_names();

// Applies to matmuls issued after the call, on every thread. ValueError for an unknown name.
void set_matmul_kernel(std::string_view name);
// The current choice; on first use read from WICK_MATMUL_BACKEND (ValueError if unknown).
const char* matmul_kernel();

// Whether "auto" may use TF32 tensor cores for float32 (default false).
void set_allow_tf32(bool allow);
bool allow_tf32();

// The kernel that ran the last CUDA matmul issued by this thread ("" before the first).
const char* last_matmul_kernel();

// The first interface, kept: Tiled is "auto", Cublas is "cublas".
enum class MatmulBackend : uint8_t { Tiled, Cublas };
void set_matmul_backend(MatmulBackend backend);
MatmulBackend matmul_backend();                          // Cublas iff the kernel is "cublas"
const char* matmul_backend_name(MatmulBackend backend);  // "tiled", "cublas"

namespace detail {
// Called by the CUDA backend with the name (a static string) of the kernel it ran.
void note_matmul_kernel(const char* name);
}  // namespace detail

}  // namespace wick
