// gemm_emulator.hpp: runs the matmul ladder's CUDA kernels (kernels/cuda/gemm/) on the CPU, so
// that their index maths, edge handling, shared-memory staging and tensor-core fragment
// layouts are tested on every machine, CI included, not only when a GPU is lent.
// How: the kernel source is compiled by the host compiler with the CUDA keywords defined away
// (__global__, __device__) and __shared__ defined as `static`, so that a shared array is one
// object seen by every thread. A launch starts one std::thread per CUDA thread of a block;
// they run the blocks of the grid one after another (so `static` is exactly one block's
// shared memory), __syncthreads() is a std::barrier of the block, and threadIdx / blockIdx are
// thread_local. The PTX instructions the kernels use have host versions behind
// !defined(__CUDACC__): cp.async copies at once (zero-filled past src-size), mma.sync gathers
// the warp's fragments through a buffer between two barriers and applies the documented
// m16n8k8 layouts, cvt.rna.tf32 rounds as the hardware does.
// What it cannot show: speed, races that only real concurrency exposes (compute-sanitizer's
// racecheck on a GPU does), warp-synchronous behaviour. Include it before any ladder header,
// and no CUDA header in the same file.
#pragma once

#if defined(__CUDACC__)
#error "gemm_emulator.hpp is for the host compiler"
#endif

#include <array>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) float2 {
  float x, y;
};

inline thread_local dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

namespace emu {

struct Launch {
  std::barrier<>* barrier = nullptr;
  std::vector<std::array<uint32_t, 6>> fragments;  // per thread: mma's a0..a3, b0, b1
};
inline Launch g_launch;

inline int flat_thread() {
  return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

// kernel<<<grid, block>>>(args...), on the CPU.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, const Args&... args) {
  blockDim = block;
  gridDim = grid;
  const unsigned threads = block.x * block.y * block.z;
  std::barrier<> barrier(threads);
  g_launch.barrier = &barrier;
  g_launch.fragments.assign(threads, {});
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      threadIdx = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
      for (unsigned bz = 0; bz < grid.z; ++bz) {
        for (unsigned by = 0; by < grid.y; ++by) {
          for (unsigned bx = 0; bx < grid.x; ++bx) {
            blockIdx = dim3(bx, by, bz);
            kernel(args...);
            barrier.arrive_and_wait();  // the block is done before its shared memory is reused
          }
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  g_launch.barrier = nullptr;
}

}  // namespace emu

inline void __syncthreads() { emu::g_launch.barrier->arrive_and_wait(); }

// cvt.rna.tf32.f32: keep 10 mantissa bits, rounding to nearest with ties away from zero.
inline uint32_t emulated_tf32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  if (!std::isfinite(x)) return bits;
  return (bits + 0x1000u) & 0xffffe000u;
}

// mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32, d += A (16 x 8) B (8 x 8), with the
// fragment layouts of the PTX ISA (groupID = lane / 4, tig = lane % 4):
//   A: a0 (g, tig), a1 (g + 8, tig), a2 (g, tig + 4), a3 (g + 8, tig + 4)
//   B: b0 (tig, g), b1 (tig + 4, g)
//   C/D: c0 (g, 2 tig), c1 (g, 2 tig + 1), c2 (g + 8, 2 tig), c3 (g + 8, 2 tig + 1).
// Every thread of the block must call it the same number of times (the ladder's do).
inline void emulated_mma_m16n8k8_tf32(float (&d)[4], const uint32_t (&a)[4],
                                      const uint32_t (&b)[2]) {
  const int tid = emu::flat_thread();
  const int warp_base = tid / 32 * 32, lane = tid % 32;
  emu::g_launch.fragments[static_cast<size_t>(tid)] = {a[0], a[1], a[2], a[3], b[0], b[1]};
  __syncthreads();
  const auto value = [](uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  };
  const auto a_at = [&](int row, int k) {
    const int owner = warp_base + (row % 8) * 4 + k % 4;
    const int reg = (row >= 8 ? 1 : 0) + (k >= 4 ? 2 : 0);
    return value(emu::g_launch.fragments[static_cast<size_t>(owner)][static_cast<size_t>(reg)]);
  };
  const auto b_at = [&](int k, int col) {
    const int owner = warp_base + col * 4 + k % 4;
    return value(emu::g_launch.fragments[static_cast<size_t>(owner)][k >= 4 ? 5 : 4]);
  };
  const int g = lane / 4, tig = lane % 4;
  for (int r = 0; r < 4; ++r) {
    const int row = g + (r >= 2 ? 8 : 0), col = 2 * tig + (r & 1);
    float sum = d[r];
    for (int k = 0; k < 8; ++k) sum = std::fma(a_at(row, k), b_at(k, col), sum);
    d[r] = sum;
  }
  __syncthreads();  // before the next call overwrites the fragments
}
