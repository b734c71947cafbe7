// dynamic_shared.cuh: the running block's dynamic shared memory (the bytes a launch asks for
// beyond the static __shared__ arrays), one declaration for every kernel that uses it (step 11
// and 12 of the matmul ladder, softmax_long_kernel). Self-contained, like the gemm/ kernels, so
// that the CPU emulator compiles it on its own: there emu::dynamic_shared() stands in.
#pragma once

namespace wick::gpu {

__device__ __forceinline__ unsigned char* dynamic_shared() {
#if defined(__CUDACC__)
  extern __shared__ __align__(16) unsigned char wick_dynamic_shared[];
  return wick_dynamic_shared;
#else
  return emu::dynamic_shared();  // tests/cuda/cuda_emulator_hopper.hpp
#endif
}

}  // namespace wick::gpu
