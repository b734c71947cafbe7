// cuda_emulator.hpp: runs wick's CUDA kernels on the CPU, so that their index maths, edge
// handling, shared-memory staging, warp shuffles and tensor-core fragment layouts are tested
// on every machine, CI included, not only when a GPU is lent. Two uses:
//  - tests/cuda/test_gemm_emulated.cpp includes it before the matmul ladder's headers (no CUDA
//    header needed: it defines dim3 and float4 itself);
//  - tests/cuda/emulator/ compiles the whole CUDA backend with the host compiler, this header
//    forced in first and WICK_GPU_EMULATOR defined (CUDA's own types are used then), against a
//    CUDA runtime and cuBLAS written for it (fake_runtime.cpp), and runs the GPU suite.
// How: the kernel source is compiled with the CUDA keywords defined away (__global__,
// __device__) and __shared__ defined as `static`, so that a shared array is one object seen by
// every thread. A launch runs the blocks of the grid one after another (so `static` is
// exactly one block's shared memory), and the threads of a block as fibers (ucontext) on the
// launching thread, resumed round robin; __syncthreads() is a barrier at which a fiber yields
// until the whole block has arrived, and threadIdx / blockIdx are set before each resume.
// The PTX the kernels use has host versions behind !defined(__CUDACC__): cp.async copies at
// once (zero-filled past src-size), mma.sync gathers the warp's fragments through a buffer
// between two barriers and applies the PTX ISA's m16n8k8 layouts, cvt.rna.tf32 rounds as the
// hardware does. Warp shuffles (__shfl_down_sync, __shfl_sync) exchange values through a
// per-warp buffer between two barriers of the warp's lanes. A launch checks its configuration
// as CUDA does (block size, grid limits) and leaves cudaErrorInvalidConfiguration for
// cudaGetLastError. Launches are serialised, each run to completion, as on one stream.
// What it cannot show: speed, races that only real concurrency exposes (compute-sanitizer's
// racecheck on a GPU does), and code that relies on warp-synchronous execution without
// __syncwarp. Not for AddressSanitizer builds (it does not follow makecontext stacks).
#pragma once

#if defined(__CUDACC__)
#error "cuda_emulator.hpp is for the host compiler"
#endif

#include <ucontext.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#if defined(WICK_GPU_EMULATOR)
// CUDA's declarations and vector types (dim3, float4), then its keywords made plain C++.
#include <cuda_runtime_api.h>
#undef __global__
#undef __device__
#undef __host__
#undef __forceinline__
#undef __launch_bounds__
#undef __shared__
#else
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
#endif

// The built-in variables of the running CUDA thread: set by the scheduler before it resumes
// a thread (all CUDA threads of a launch run as fibers on the launching OS thread).
inline dim3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

namespace emu {

// One CUDA thread: a fiber (ucontext) with its own stack.
struct Fiber {
  ucontext_t context;
  std::unique_ptr<char[]> stack;
  dim3 index;
  bool done = false;
};

// A barrier among `count` fibers: the last to arrive opens the next phase; the others yield
// until it has.
struct Barrier {
  int count = 0, arrived = 0;
  uint64_t phase = 0;
};

struct Launch {
  std::vector<Fiber> fibers;
  ucontext_t scheduler;
  int current = 0;
  Barrier block_barrier;
  std::vector<Barrier> warp_barriers;                // one per warp, its lanes
  std::vector<std::array<uint64_t, 32>> warp_slots;  // shuffle exchange, per warp
  std::vector<std::array<uint32_t, 6>> fragments;    // per thread: mma's a0..a3, b0, b1
  std::function<void()> body;                        // the kernel call of this launch
  bool config_error = false;                         // the last launch's configuration was invalid
};
inline Launch g_launch;
inline std::mutex g_launch_mutex;  // one launch at a time
inline constexpr size_t kFiberStack = size_t{256} << 10;

inline int flat_thread() { return g_launch.current; }

// Back to the scheduler, which resumes the next fiber.
inline void yield() {
  swapcontext(&g_launch.fibers[static_cast<size_t>(g_launch.current)].context, &g_launch.scheduler);
}

inline void arrive_and_wait(Barrier& b) {
  const uint64_t my_phase = b.phase;
  if (++b.arrived == b.count) {
    b.arrived = 0;
    ++b.phase;
    return;
  }
  while (b.phase == my_phase) yield();
}

inline void fiber_entry() {
  g_launch.body();
  g_launch.fibers[static_cast<size_t>(g_launch.current)].done = true;
  // Returning resumes uc_link: the scheduler.
}

// kernel<<<grid, block>>>(args...), on the CPU: the blocks one after another (so `static` is
// exactly one block's shared memory), the threads of a block as fibers switched at barriers.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, const Args&... args) {
  std::lock_guard<std::mutex> lock(g_launch_mutex);
  const uint64_t threads64 = uint64_t{block.x} * block.y * block.z;
  // CUDA's limits: at most 1024 threads per block (64 along z), grid y and z below 2^16, and
  // no empty dimension. A bad launch runs nothing and is reported by cudaGetLastError.
  if (threads64 == 0 || threads64 > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 ||
      grid.z == 0 || grid.y > 65535 || grid.z > 65535) {
    g_launch.config_error = true;
    return;
  }
  blockDim = block;
  gridDim = grid;
  const auto threads = static_cast<int>(threads64);
  Launch& l = g_launch;
  l.body = [&] { kernel(args...); };
  l.fibers.resize(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    Fiber& f = l.fibers[static_cast<size_t>(t)];
    if (!f.stack) f.stack.reset(new char[kFiberStack]);
    const auto ut = static_cast<unsigned>(t);
    f.index = dim3(ut % block.x, (ut / block.x) % block.y, ut / (block.x * block.y));
  }
  l.block_barrier = Barrier{threads, 0, 0};
  const int warps = (threads + 31) / 32;
  l.warp_barriers.assign(static_cast<size_t>(warps), Barrier{});
  for (int w = 0; w < warps; ++w) {
    l.warp_barriers[static_cast<size_t>(w)].count = threads - 32 * w < 32 ? threads - 32 * w : 32;
  }
  l.warp_slots.assign(static_cast<size_t>(warps), {});
  l.fragments.assign(static_cast<size_t>(threads), {});
  for (unsigned bz = 0; bz < grid.z; ++bz) {
    for (unsigned by = 0; by < grid.y; ++by) {
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        blockIdx = dim3(bx, by, bz);
        for (int t = 0; t < threads; ++t) {
          Fiber& f = l.fibers[static_cast<size_t>(t)];
          getcontext(&f.context);
          f.context.uc_stack.ss_sp = f.stack.get();
          f.context.uc_stack.ss_size = kFiberStack;
          f.context.uc_link = &l.scheduler;
          makecontext(&f.context, fiber_entry, 0);
          f.done = false;
        }
        // Round robin until every thread of the block has returned.
        for (int left = threads; left > 0;) {
          left = 0;
          for (int t = 0; t < threads; ++t) {
            Fiber& f = l.fibers[static_cast<size_t>(t)];
            if (f.done) continue;
            l.current = t;
            threadIdx = f.index;
            swapcontext(&l.scheduler, &f.context);
            if (!f.done) ++left;
          }
        }
      }
    }
  }
  l.body = nullptr;
}

}  // namespace emu

inline void __syncthreads() { emu::arrive_and_wait(emu::g_launch.block_barrier); }

// __shfl_down_sync / __shfl_sync for 4- and 8-byte values: every lane of the warp that is part
// of the block must call them together (wick's warp reductions do).
namespace emu {
template <typename T>
T shuffle(T v, int source_lane, bool take) {
  static_assert(sizeof(T) <= 8, "shuffles move at most 8 bytes");
  const int tid = flat_thread(), warp = tid / 32, lane = tid % 32;
  uint64_t mine = 0;
  std::memcpy(&mine, &v, sizeof(T));
  g_launch.warp_slots[static_cast<size_t>(warp)][static_cast<size_t>(lane)] = mine;
  arrive_and_wait(g_launch.warp_barriers[static_cast<size_t>(warp)]);
  T out = v;
  if (take) {
    std::memcpy(&out,
                &g_launch.warp_slots[static_cast<size_t>(warp)][static_cast<size_t>(source_lane)],
                sizeof(T));
  }
  arrive_and_wait(g_launch.warp_barriers[static_cast<size_t>(warp)]);
  return out;
}
}  // namespace emu

template <typename T>
T __shfl_down_sync(unsigned /*mask*/, T v, unsigned delta, int width = 32) {
  const int lane = emu::flat_thread() % 32;
  const int d = static_cast<int>(delta);
  return emu::shuffle(v, lane + d, lane % width + d < width);
}

template <typename T>
T __shfl_sync(unsigned /*mask*/, T v, int src_lane, int width = 32) {
  const int lane = emu::flat_thread() % 32;
  return emu::shuffle(v, lane / width * width + src_lane % width, true);
}

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

// mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32, d += A (16 x 16) B (16 x 8), two
// bfloat16 per register (the lower k in bits 0-15), with the PTX ISA's layouts:
//   A: register r of lane (g, tig) holds (g + 8 (r & 1), 2 tig + 8 (r >> 1)) and the next k
//   B: register r holds (2 tig + 8 r, g) and the next k
//   C/D: as m16n8k8 above.
// Products of bfloat16 are exact in float, so only the order of the FP32 sums is the
// emulator's (the hardware's order is unspecified; the tests allow for it).
inline void emulated_mma_m16n8k16_bf16(float (&d)[4], const uint32_t (&a)[4],
                                       const uint32_t (&b)[2]) {
  const int tid = emu::flat_thread();
  const int warp_base = tid / 32 * 32, lane = tid % 32;
  emu::g_launch.fragments[static_cast<size_t>(tid)] = {a[0], a[1], a[2], a[3], b[0], b[1]};
  __syncthreads();
  const auto half = [](uint32_t reg, int k) {
    const uint32_t bits = (k % 2 == 0 ? reg : reg >> 16) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  };
  const auto a_at = [&](int row, int k) {
    const int owner = warp_base + (row % 8) * 4 + (k % 8) / 2;
    const int reg = (row >= 8 ? 1 : 0) + (k >= 8 ? 2 : 0);
    return half(emu::g_launch.fragments[static_cast<size_t>(owner)][static_cast<size_t>(reg)], k);
  };
  const auto b_at = [&](int k, int col) {
    const int owner = warp_base + col * 4 + (k % 8) / 2;
    return half(emu::g_launch.fragments[static_cast<size_t>(owner)][k >= 8 ? 5 : 4], k);
  };
  const int g = lane / 4, tig = lane % 4;
  for (int r = 0; r < 4; ++r) {
    const int row = g + (r >= 2 ? 8 : 0), col = 2 * tig + (r & 1);
    float sum = d[r];
    for (int k = 0; k < 16; ++k) sum = std::fma(a_at(row, k), b_at(k, col), sum);
    d[r] = sum;
  }
  __syncthreads();  // before the next call overwrites the fragments
}
