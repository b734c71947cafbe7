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
// exactly one block's shared memory), and the threads of a block as fibers (own stacks) on the
// launching thread, resumed in rounds in the order of the schedule (forward, reverse, or
// shuffled with uneven warp speeds: "the schedule" below); __syncthreads() is a barrier at
// which a fiber yields
// until the whole block has arrived, and threadIdx / blockIdx are set before each resume.
// The PTX the kernels use has host versions behind !defined(__CUDACC__): cp.async copies land
// at the cp.async.wait_group that retires their group (zero-filled past src-size; poison in
// the destination until then), mma.sync gathers the warp's fragments through a buffer
// between two barriers and applies the PTX ISA's m16n8k8 layouts, cvt.rna.tf32 and cvt.rn.tf32
// round as the hardware does. Warp shuffles (__shfl_down_sync, __shfl_sync) exchange values through
// a per-warp buffer between two barriers of the warp's lanes, and stop the program when their mask
// names a lane the block does not have (a full mask in a partial warp). A launch checks its
// configuration as CUDA does (block size, grid limits) and leaves cudaErrorInvalidConfiguration for
// cudaGetLastError. Launches are serialised, each run to completion, as on one stream.
// What it cannot show: speed, races that no order of whole steps between waits exposes
// (compute-sanitizer's racecheck on a GPU checks every access), and code that relies on
// warp-synchronous execution without
// __syncwarp. Not for AddressSanitizer builds (it does not follow makecontext stacks).
#pragma once

#if defined(__CUDACC__)
#error "cuda_emulator.hpp is for the host compiler"
#endif

#include <ucontext.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <utility>
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
#undef __grid_constant__
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
#define __grid_constant__

namespace emu {

// ---- switching fibers ----
// On x86-64 a fiber switch is a stack-pointer swap (wick_emu_switch below): it pushes the
// callee-saved registers, MXCSR and the x87 control word, stores the stack pointer, loads the
// other fiber's and pops its. glibc's swapcontext does the same plus a sigprocmask system call
// each way, and getcontext another: those calls were most of the emulated GPU suite's time
// (2 min 17 s of system time in a 4 min 42 s run). Elsewhere ucontext remains.
#if defined(__x86_64__)
#define WICK_EMU_FAST_SWITCH 1
extern "C" void wick_emu_switch(void** save_sp, void* load_sp);
// Weak: every file that includes this header defines it; the linker keeps one.
asm(R"(
  .pushsection .text
  .weak wick_emu_switch
  .type wick_emu_switch, @function
wick_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size wick_emu_switch, .-wick_emu_switch
  .popsection
)");
#else
#define WICK_EMU_FAST_SWITCH 0
#endif

// One CUDA thread: a fiber with its own stack.
struct Fiber {
#if WICK_EMU_FAST_SWITCH
  void* sp = nullptr;  // its saved stack pointer while it is not running
#else
  ucontext_t context;
#endif
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
#if WICK_EMU_FAST_SWITCH
  void* scheduler_sp = nullptr;
#else
  ucontext_t scheduler;
#endif
  int current = 0;
  Barrier block_barrier;
  std::vector<Barrier> warp_barriers;                // one per warp, its lanes
  std::vector<std::array<uint64_t, 32>> warp_slots;  // shuffle exchange, per warp
  std::vector<std::array<uint32_t, 6>> fragments;    // per thread: mma's a0..a3, b0, b1
  std::function<void()> body;                        // the kernel call of this launch
  bool config_error = false;                         // the last launch's configuration was invalid
  // Dynamic shared memory (extern __shared__), 1024-byte aligned, and the mbarriers in it.
  std::unique_ptr<unsigned char[]> dynamic_storage;
  unsigned char* dynamic_shared = nullptr;
  size_t dynamic_bytes = 0;
  struct Mbarrier {
    uint32_t count = 0, pending = 0;
    int64_t tx = 0;
    uint32_t phase = 0;
  };
  std::map<const void*, Mbarrier> mbarriers;
  // cp.async, per thread: the copies issued since the last commit, then the committed groups,
  // oldest first. A copy's source is read when it is issued; its destination holds poison
  // until the cp.async.wait_group that retires its group writes it (cp_async16 below).
  struct CpAsyncCopy {
    unsigned char* dst;
    std::array<unsigned char, 16> bytes;
  };
  struct CpAsyncQueue {
    std::vector<CpAsyncCopy> open;
    std::vector<std::vector<CpAsyncCopy>> committed;
  };
  std::vector<CpAsyncQueue> cp_async;
};
inline Launch g_launch;
inline std::mutex g_launch_mutex;  // one launch at a time

// A kernel's dynamic shared memory past 48 KiB must be asked for first, as on a GPU:
// cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) records
// `bytes` here (fake_runtime.cpp); a launch that asks for more than its kernel's limit is a
// configuration error, as the GPU reports one (cudaErrorInvalidValue at launch). Per kernel,
// not per device: the emulator has one device.
inline constexpr size_t kDefaultDynamicShared = size_t{48} << 10;
inline std::mutex g_attribute_mutex;
inline std::map<const void*, size_t> g_max_dynamic_shared;
inline void set_max_dynamic_shared(const void* kernel, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_attribute_mutex);
  g_max_dynamic_shared[kernel] = bytes;
}
inline size_t max_dynamic_shared(const void* kernel) {
  std::lock_guard<std::mutex> lock(g_attribute_mutex);
  auto it = g_max_dynamic_shared.find(kernel);
  return it == g_max_dynamic_shared.end() ? kDefaultDynamicShared : it->second;
}
inline constexpr size_t kFiberStack = size_t{256} << 10;

inline int flat_thread() { return g_launch.current; }

// ---- the schedule ----
// The order in which a launch runs its blocks and resumes a block's threads: set by
// WICK_EMU_SCHEDULE, `forward` (the default: block 0 and thread 0 first), `reverse`, or
// `shuffle`: pseudo-random (from WICK_EMU_SEED) block order, thread order at every round, and
// warp speeds: each block gives each warp a speed, resumed at every round, at one round in 4 or
// at one in 32, so that some warps run many barrier-free steps ahead of others, as warps do on
// a GPU. A correct kernel gives the same result in every order (up to the order of atomic
// float additions); one with a missing __syncthreads does not: a thread that reads shared
// memory before its writer has reached the barrier sees stale data in forward order when the
// writer is a higher thread, in reverse order when it is a lower one; a thread that overwrites
// data before the others have read it shows in forward order when the readers come later in
// the same round, and in the shuffled order when a slow warp reads a round or more later.
// The GPU suite runs in all three (tests/cuda/emulator/CMakeLists.txt, tests/cuda/CMakeLists.txt).
enum class Schedule { kForward, kReverse, kShuffle };
struct ScheduleConfig {
  Schedule kind = Schedule::kForward;
  uint64_t state = 0x9E3779B97F4A7C15ull;  // the shuffle's generator (splitmix64)
};
inline ScheduleConfig schedule_from_env() {
  ScheduleConfig c;
  if (const char* kind = std::getenv("WICK_EMU_SCHEDULE")) {
    if (std::strcmp(kind, "reverse") == 0)
      c.kind = Schedule::kReverse;
    else if (std::strcmp(kind, "shuffle") == 0)
      c.kind = Schedule::kShuffle;
    else if (std::strcmp(kind, "forward") != 0) {
      std::fprintf(
          stderr, "cuda_emulator: WICK_EMU_SCHEDULE=%s is not forward, reverse or shuffle\n", kind);
      std::abort();  // a test harness setting, never reached from the library
    }
  }
  if (const char* seed = std::getenv("WICK_EMU_SEED")) c.state ^= std::strtoull(seed, nullptr, 10);
  return c;
}
inline ScheduleConfig g_schedule = schedule_from_env();

inline uint64_t next_random() {
  uint64_t z = (g_schedule.state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The threads a block resumes at each round, in order: all of them, forward or reversed, or
// for `shuffle` those of the warps whose turn it is, shuffled.
class ThreadSchedule {
 public:
  explicit ThreadSchedule(int threads) : threads_(threads), warp_period_((threads + 31) / 32, 1) {
    if (g_schedule.kind != Schedule::kShuffle) return;
    static constexpr uint32_t kPeriods[3] = {1, 4, 32};
    for (uint32_t& period : warp_period_) period = kPeriods[next_random() % 3];
  }
  const std::vector<int>& next_round() {
    order_.clear();
    if (g_schedule.kind != Schedule::kShuffle) {
      for (int i = 0; i < threads_; ++i)
        order_.push_back(g_schedule.kind == Schedule::kReverse ? threads_ - 1 - i : i);
      return order_;
    }
    for (size_t w = 0; w < warp_period_.size(); ++w) {
      if (next_random() % warp_period_[w] != 0) continue;
      const int end = std::min(threads_, 32 * static_cast<int>(w + 1));
      for (int t = 32 * static_cast<int>(w); t < end; ++t) order_.push_back(t);
    }
    for (size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[next_random() % i]);
    return order_;
  }

 private:
  int threads_;
  std::vector<uint32_t> warp_period_;  // resumed at one round in this many
  std::vector<int> order_;
};

// The blocks of a grid of n as i = 0..n-1 maps them: forward, reversed, or (i * a + c) mod n
// with a prime to n (a permutation without a table: grids can have millions of blocks; below
// 2^32 blocks, so that i * a fits in 64 bits, and in forward order above).
struct BlockOrder {
  uint64_t n, a = 1, c = 0;
  bool reverse = false;
  explicit BlockOrder(uint64_t n_) : n(n_) {
    if (g_schedule.kind == Schedule::kReverse) {
      reverse = true;
    } else if (g_schedule.kind == Schedule::kShuffle && n > 1 && n < (uint64_t{1} << 32)) {
      do a = next_random() % n;
      while (std::gcd(a, n) != 1);
      c = next_random() % n;
    }
  }
  uint64_t operator()(uint64_t i) const { return reverse ? n - 1 - i : (i * a + c) % n; }
};

// Back to the scheduler, which resumes the next fiber.
inline void yield() {
#if WICK_EMU_FAST_SWITCH
  wick_emu_switch(&g_launch.fibers[static_cast<size_t>(g_launch.current)].sp,
                  g_launch.scheduler_sp);
#else
  swapcontext(&g_launch.fibers[static_cast<size_t>(g_launch.current)].context, &g_launch.scheduler);
#endif
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
#if WICK_EMU_FAST_SWITCH
  yield();  // for good: a finished fiber is never resumed
  __builtin_unreachable();
#endif
  // (ucontext) Returning resumes uc_link: the scheduler.
}

// Makes f start at fiber_entry on its own stack when next switched to.
inline void start_fiber(Fiber& f) {
#if WICK_EMU_FAST_SWITCH
  // The frame wick_emu_switch pops, from the top of the stack down: a zero in place of
  // fiber_entry's return address (it never returns), fiber_entry as the switch's return
  // address, six zero registers, then MXCSR and the x87 control word as they are now. The
  // top is 16-byte aligned, so fiber_entry starts with the stack aligned as a call leaves it.
  const auto top = reinterpret_cast<uintptr_t>(f.stack.get() + kFiberStack) & ~uintptr_t{15};
  auto* words = reinterpret_cast<uint64_t*>(top) - 9;
  std::memset(words, 0, 9 * sizeof(uint64_t));
  words[7] = reinterpret_cast<uint64_t>(&fiber_entry);
  uint32_t control[2] = {0, 0};
  asm volatile("stmxcsr %0" : "=m"(control[0]));
  asm volatile("fnstcw %0" : "=m"(control[1]));
  std::memcpy(words, control, sizeof control);
  f.sp = words;
#else
  getcontext(&f.context);
  f.context.uc_stack.ss_sp = f.stack.get();
  f.context.uc_stack.ss_size = kFiberStack;
  f.context.uc_link = &g_launch.scheduler;
  makecontext(&f.context, fiber_entry, 0);
#endif
  f.done = false;
}

inline void resume_fiber(Fiber& f) {
#if WICK_EMU_FAST_SWITCH
  wick_emu_switch(&g_launch.scheduler_sp, f.sp);
#else
  swapcontext(&g_launch.scheduler, &f.context);
#endif
}

// kernel<<<grid, block>>>(args...), on the CPU: the blocks one after another (so `static` is
// exactly one block's shared memory), the threads of a block as fibers switched at barriers.
template <typename... Params, typename... Args>
void launch_shared(void (*kernel)(Params...), dim3 grid, dim3 block, size_t shared_bytes,
                   const Args&... args) {
  std::lock_guard<std::mutex> lock(g_launch_mutex);
  // CUDA's limit for one block's dynamic shared memory on sm_90, which a kernel gets past
  // 48 KiB only after cudaFuncSetAttribute.
  if (shared_bytes > 227 * 1024 ||
      shared_bytes > max_dynamic_shared(reinterpret_cast<const void*>(kernel))) {
    g_launch.config_error = true;
    return;
  }
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
  l.dynamic_bytes = shared_bytes;
  l.dynamic_storage.reset(shared_bytes > 0 ? new unsigned char[shared_bytes + 1024] : nullptr);
  l.dynamic_shared =
      shared_bytes > 0
          ? l.dynamic_storage.get() +
                ((1024 - reinterpret_cast<uintptr_t>(l.dynamic_storage.get()) % 1024) % 1024)
          : nullptr;
  const uint64_t blocks = uint64_t{grid.x} * grid.y * grid.z;
  const BlockOrder block_order(blocks);
  for (uint64_t i = 0; i < blocks; ++i) {
    const uint64_t b = block_order(i);
    blockIdx = dim3(static_cast<unsigned>(b % grid.x), static_cast<unsigned>(b / grid.x % grid.y),
                    static_cast<unsigned>(b / grid.x / grid.y));
    l.mbarriers.clear();
    l.cp_async.assign(static_cast<size_t>(threads), {});  // a block's copies die with it
    if (shared_bytes > 0) std::memset(l.dynamic_shared, 0xA5, shared_bytes);  // garbage
    for (int t = 0; t < threads; ++t) {
      start_fiber(l.fibers[static_cast<size_t>(t)]);
    }
    // Rounds until every thread of the block has returned: each round resumes the schedule's
    // threads of that round that are unfinished, and each runs to its next wait.
    ThreadSchedule schedule(threads);
    for (int left = threads; left > 0;) {
      for (const int t : schedule.next_round()) {
        Fiber& f = l.fibers[static_cast<size_t>(t)];
        if (f.done) continue;
        l.current = t;
        threadIdx = f.index;
        resume_fiber(f);
        if (f.done) --left;
      }
    }
  }
  l.body = nullptr;
}

template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, const Args&... args) {
  launch_shared(kernel, grid, block, 0, args...);
}

}  // namespace emu

inline void __syncthreads() { emu::arrive_and_wait(emu::g_launch.block_barrier); }

// The round-to-nearest arithmetic intrinsics: one rounding each (the host build targets x86-64
// without -mfma, so no product here is contracted into an FMA).
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }

// cp.async.cg.shared.global [dst], [src], 16, src_bytes; cp.async.commit_group;
// cp.async.wait_group N (gemm/08_cp_async.cuh's wrappers call these on the host). As on a GPU
// the copies are asynchronous: a copy lands in shared memory only when this thread's
// cp.async.wait_group retires its group (every committed group but the newest N), and until
// then its 16 bytes hold poison (0xFF bytes: NaN as float32 and as bfloat16). So a wait_group
// count that leaves the slice being read in flight, a missing commit, a read of a stage before
// the barrier that follows the others' waits, and a copy issued into a stage that other warps
// still read all give NaN, which the tests see. Addresses must be 16-byte aligned (the PTX ISA:
// naturally aligned to cp-size), else the emulator stops, as a GPU faults.
namespace emu {
[[noreturn]] inline void fail(const char* why);
inline void cp_async16(void* dst, const void* src, int src_bytes) {
  if (reinterpret_cast<uintptr_t>(dst) % 16 != 0 ||
      (src_bytes > 0 && reinterpret_cast<uintptr_t>(src) % 16 != 0)) {
    fail("cp.async: a 16-byte copy's address is not 16-byte aligned");
  }
  if (src_bytes < 0 || src_bytes > 16) fail("cp.async: src-size is not in 0..16");
  Launch::CpAsyncCopy copy{static_cast<unsigned char*>(dst), {}};
  std::memcpy(copy.bytes.data(), src, static_cast<size_t>(src_bytes));  // the rest stays 0
  std::memset(dst, 0xFF, 16);
  g_launch.cp_async[static_cast<size_t>(flat_thread())].open.push_back(copy);
}
inline void cp_async_commit() {
  Launch::CpAsyncQueue& q = g_launch.cp_async[static_cast<size_t>(flat_thread())];
  q.committed.push_back(std::move(q.open));
  q.open.clear();
}
inline void cp_async_wait(int pending) {
  Launch::CpAsyncQueue& q = g_launch.cp_async[static_cast<size_t>(flat_thread())];
  const size_t keep = static_cast<size_t>(pending);
  if (q.committed.size() <= keep) return;
  const size_t retire = q.committed.size() - keep;
  for (size_t i = 0; i < retire; ++i) {
    for (const Launch::CpAsyncCopy& c : q.committed[i]) std::memcpy(c.dst, c.bytes.data(), 16);
  }
  q.committed.erase(q.committed.begin(), q.committed.begin() + static_cast<std::ptrdiff_t>(retire));
}
}  // namespace emu

// __shfl_down_sync / __shfl_sync for 4- and 8-byte values: every lane of the warp that is part
// of the block must call them together (wick's warp reductions do).
namespace emu {
[[noreturn]] inline void fail(const char* why);

// The lanes a shuffle's mask names must all be threads of the block, and include the caller:
// on a GPU a full mask in a partial warp (a block whose size is not a multiple of 32) reads
// garbage from the missing lanes or hangs. The emulator stops with a message instead.
inline void check_shuffle_mask(unsigned mask, int warp, int lane) {
  const int present = g_launch.warp_barriers[static_cast<size_t>(warp)].count;
  const unsigned lanes = present >= 32 ? 0xffffffffu : (1u << present) - 1u;
  if ((mask & ~lanes) != 0u) fail("a shuffle's mask names lanes missing from a partial warp");
  if ((mask & (1u << lane)) == 0u) fail("a shuffle's mask leaves out its own lane");
}

template <typename T>
T shuffle(T v, int source_lane, bool take, unsigned mask) {
  static_assert(sizeof(T) <= 8, "shuffles move at most 8 bytes");
  const int tid = flat_thread(), warp = tid / 32, lane = tid % 32;
  check_shuffle_mask(mask, warp, lane);
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
T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  const int lane = emu::flat_thread() % 32;
  const int d = static_cast<int>(delta);
  return emu::shuffle(v, lane + d, lane % width + d < width, mask);
}

template <typename T>
T __shfl_sync(unsigned mask, T v, int src_lane, int width = 32) {
  const int lane = emu::flat_thread() % 32;
  return emu::shuffle(v, lane / width * width + src_lane % width, true, mask);
}

// cvt.rna.tf32.f32: keep 10 mantissa bits, rounding to nearest with ties away from zero.
inline uint32_t emulated_tf32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  if (!std::isfinite(x)) return bits;
  return (bits + 0x1000u) & 0xffffe000u;
}

// cvt.rn.tf32.f32 (sm_90): keep 10 mantissa bits, rounding to nearest with ties to even.
inline uint32_t emulated_tf32_rn(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  if (!std::isfinite(x)) return bits;
  return (bits + 0xfffu + ((bits >> 13) & 1u)) & 0xffffe000u;
}

// mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32, d += A (16 x 8) B (8 x 8), with the
// fragment layouts of the PTX ISA (groupID = lane / 4, tig = lane % 4):
//   A: a0 (g, tig), a1 (g + 8, tig), a2 (g, tig + 4), a3 (g + 8, tig + 4)
//   B: b0 (tig, g), b1 (tig + 4, g)
//   C/D: c0 (g, 2 tig), c1 (g, 2 tig + 1), c2 (g + 8, 2 tig), c3 (g + 8, 2 tig + 1).
// The tensor core reads only the top 19 bits (sign, exponent, 10 mantissa bits) of each A and
// B register: an fp32 value that was not rounded to TF32 first is truncated (so a kernel that
// forgets to round shows an error about 2.6x larger, biased towards zero; the tests see it).
// Every lane of a whole warp must call it together (the ladder's do); they meet at a warp
// barrier, not the block's, so that the other warps run on as they do on a GPU (a missing
// __syncthreads around the stages shows).
inline void emulated_mma_m16n8k8_tf32(float (&d)[4], const uint32_t (&a)[4],
                                      const uint32_t (&b)[2]) {
  const int tid = emu::flat_thread();
  const int warp_base = tid / 32 * 32, lane = tid % 32;
  emu::g_launch.fragments[static_cast<size_t>(tid)] = {a[0], a[1], a[2], a[3], b[0], b[1]};
  emu::Barrier& warp = emu::g_launch.warp_barriers[static_cast<size_t>(tid / 32)];
  if (warp.count < 32) emu::fail("mma.sync needs a whole warp, and this one is partial");
  emu::arrive_and_wait(warp);  // the warp's lanes only, as on a GPU: not a block barrier
  const auto value = [](uint32_t bits) {
    bits &= 0xffffe000u;  // TF32: the low 13 mantissa bits are ignored
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
  emu::arrive_and_wait(warp);  // before the next call overwrites the fragments
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

// ldmatrix.sync.aligned.m8n8.x4{.trans}.shared.b16: the warp loads four 8 x 8 matrices of
// 16-bit elements; lane l names row l % 8 of matrix l / 8 (16 bytes, 16-byte aligned). Lane t
// receives in register j, from matrix j: row t / 4, elements 2 (t % 4) and 2 (t % 4) + 1 (the
// first in bits 0-15); with .trans, column t / 4, rows 2 (t % 4) and 2 (t % 4) + 1.
template <bool kTrans>
inline void emulated_ldmatrix_x4(uint32_t (&r)[4], const void* row) {
  const int tid = emu::flat_thread(), warp = tid / 32, lane = tid % 32;
  if (emu::g_launch.warp_barriers[static_cast<size_t>(warp)].count < 32) {
    emu::fail("ldmatrix needs a whole warp, and this one is partial");
  }
  if (reinterpret_cast<uintptr_t>(row) % 16 != 0) {
    emu::fail("ldmatrix: a row address is not 16-byte aligned");
  }
  auto& slots = emu::g_launch.warp_slots[static_cast<size_t>(warp)];
  slots[static_cast<size_t>(lane)] = reinterpret_cast<uintptr_t>(row);
  emu::arrive_and_wait(emu::g_launch.warp_barriers[static_cast<size_t>(warp)]);
  const auto element = [&](int matrix, int row_in_matrix, int column) {
    uint16_t bits;
    const auto* p = reinterpret_cast<const unsigned char*>(
        slots[static_cast<size_t>(8 * matrix + row_in_matrix)]);
    std::memcpy(&bits, p + 2 * column, 2);
    return static_cast<uint32_t>(bits);
  };
  for (int j = 0; j < 4; ++j) {
    const int g = lane / 4, pair = 2 * (lane % 4);
    r[j] = kTrans ? element(j, pair, g) | (element(j, pair + 1, g) << 16)
                  : element(j, g, pair) | (element(j, g, pair + 1) << 16);
  }
  emu::arrive_and_wait(emu::g_launch.warp_barriers[static_cast<size_t>(warp)]);
}

// ---- Hopper (sm_90a): dynamic shared memory, mbarrier, TMA, wgmma ----
#include "cuda_emulator_hopper.hpp"
