// test_emulator_schedules.cpp: the three schedules of cuda_emulator.hpp (WICK_EMU_SCHEDULE)
// against small kernels with a missing __syncthreads, one per kind of race, and their
// corrected forms. This is what running the GPU suite in all three schedules buys: each racy
// kernel gives a wrong result in at least one schedule, no schedule catches all three, and the
// corrected kernels are right in every one. (A GPU's racecheck is still the real test.)
#include <catch2/catch.hpp>

#include "cuda_emulator.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

constexpr int kThreads = 64;  // two warps
constexpr int kBlocks = 64;

// Thread 0 writes a value that every thread of the block reads: without the barrier, a thread
// resumed before thread 0 in the same round reads the value left by an earlier block.
template <bool kBarrier>
void broadcast_kernel(int* out, int stamp) {
  __shared__ int value;
  if (threadIdx.x == 0) value = stamp + static_cast<int>(blockIdx.x);
  if (kBarrier) __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

// Each thread reads the slot its higher neighbour writes (the last thread its own).
template <bool kBarrier>
void neighbour_kernel(int* out, int stamp) {
  __shared__ int slots[kThreads];
  const int t = static_cast<int>(threadIdx.x);
  slots[t] = stamp + t;
  if (kBarrier) __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = slots[t + 1 < kThreads ? t + 1 : t];
}

// Each thread reads the other warp's slot, then after some warp-level work overwrites its own:
// without the second barrier, a warp that runs ahead overwrites a slot the other warp has not
// read yet. The window is several warp steps long, so only uneven warp speeds show it.
template <bool kBarrier>
void overwrite_kernel(int* out, int stamp) {
  __shared__ int slots[kThreads];
  const int t = static_cast<int>(threadIdx.x);
  slots[t] = stamp;
  __syncthreads();
  const int seen = slots[(t + 32) % kThreads];
  int carried = seen;
  for (int step = 0; step < 4; ++step) carried = __shfl_sync(0xffffffffu, carried, (t + 1) % 32);
  if (kBarrier) __syncthreads();
  slots[t] = stamp + 1;
  out[blockIdx.x * blockDim.x + threadIdx.x] = seen + (carried - stamp);  // carried == stamp
}

// Whether the kernel's output is what a GPU with the barrier gives, under the schedule.
using Kernel = void (*)(int*, int);
bool right_under(emu::Schedule kind, Kernel kernel, const std::vector<int>& want_from_stamp0,
                 int stamp) {
  const emu::ScheduleConfig saved = emu::g_schedule;
  emu::g_schedule.kind = kind;
  std::vector<int> out(kThreads * kBlocks, -1);
  emu::launch(kernel, dim3(kBlocks), dim3(kThreads), out.data(), stamp);
  emu::g_schedule = saved;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] != want_from_stamp0[i] + stamp) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("the emulator's schedules expose missing barriers that the forward order hides",
          "[emulator]") {
  std::vector<int> broadcast(kThreads * kBlocks), neighbour(kThreads * kBlocks),
      overwrite(kThreads * kBlocks, 0);
  for (int b = 0; b < kBlocks; ++b) {
    for (int t = 0; t < kThreads; ++t) {
      broadcast[static_cast<size_t>(b * kThreads + t)] = b;
      neighbour[static_cast<size_t>(b * kThreads + t)] = t + 1 < kThreads ? t + 1 : t;
    }
  }
  // A new stamp for every launch: shared memory keeps the last launch's values.
  int stamp = 1000;
  using emu::Schedule;
  for (Schedule kind : {Schedule::kForward, Schedule::kReverse, Schedule::kShuffle}) {
    INFO("schedule " << static_cast<int>(kind));
    CHECK(right_under(kind, broadcast_kernel<true>, broadcast, stamp += 1000));
    CHECK(right_under(kind, neighbour_kernel<true>, neighbour, stamp += 1000));
    CHECK(right_under(kind, overwrite_kernel<true>, overwrite, stamp += 1000));
  }
  // Thread 0 runs first in forward order, so only the reverse and shuffled orders see the
  // missing broadcast barrier.
  CHECK(right_under(Schedule::kForward, broadcast_kernel<false>, broadcast, stamp += 1000));
  CHECK_FALSE(right_under(Schedule::kReverse, broadcast_kernel<false>, broadcast, stamp += 1000));
  CHECK_FALSE(right_under(Schedule::kShuffle, broadcast_kernel<false>, broadcast, stamp += 1000));
  // The higher neighbour writes after its reader in forward order, before it in reverse.
  CHECK_FALSE(right_under(Schedule::kForward, neighbour_kernel<false>, neighbour, stamp += 1000));
  CHECK(right_under(Schedule::kReverse, neighbour_kernel<false>, neighbour, stamp += 1000));
  CHECK_FALSE(right_under(Schedule::kShuffle, neighbour_kernel<false>, neighbour, stamp += 1000));
  // Lockstep rounds read every slot before any warp gets four steps ahead; uneven warp speeds
  // do not.
  CHECK(right_under(Schedule::kForward, overwrite_kernel<false>, overwrite, stamp += 1000));
  CHECK(right_under(Schedule::kReverse, overwrite_kernel<false>, overwrite, stamp += 1000));
  CHECK_FALSE(right_under(Schedule::kShuffle, overwrite_kernel<false>, overwrite, stamp += 1000));
}

namespace {
void mark_kernel(int* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 1; }
}  // namespace

// As on a GPU, more than 48 KiB of dynamic shared memory needs the kernel's attribute first
// (cudaFuncSetAttribute, recorded by the fake runtime): a launch without it runs nothing and is
// a configuration error, so a kernel that forgets it fails here rather than on its first GPU.
TEST_CASE("the emulator refuses dynamic shared memory past 48 KiB unless the kernel asked",
          "[emulator]") {
  std::vector<int> out(kThreads, 0);
  const auto launch = [&](size_t bytes) {
    std::fill(out.begin(), out.end(), 0);
    emu::g_launch.config_error = false;
    emu::launch_shared(mark_kernel, dim3(1), dim3(kThreads), bytes, out.data());
    const bool refused = emu::g_launch.config_error;
    emu::g_launch.config_error = false;
    return !refused && out[0] == 1 && out[kThreads - 1] == 1;
  };
  CHECK(launch(48 << 10));
  CHECK_FALSE(launch(64 << 10));
  CHECK(out[0] == 0);  // nothing ran
  emu::set_max_dynamic_shared(reinterpret_cast<const void*>(&mark_kernel), 100 << 10);
  CHECK(launch(64 << 10));
  CHECK_FALSE(launch(101 << 10));
  CHECK_FALSE(launch(228 << 10));
  emu::set_max_dynamic_shared(reinterpret_cast<const void*>(&mark_kernel), 48 << 10);
}

namespace {
// One thread, two commit groups: what it reads of each stage before and after each wait.
void cp_async_groups_kernel(float* out, const float* src) {
  alignas(16) __shared__ float stage[2][4];
  emu::cp_async16(stage[0], src, 16);
  emu::cp_async_commit();
  emu::cp_async16(stage[1], src + 4, 8);  // 2 floats, the other 2 zero-filled
  emu::cp_async_commit();
  out[0] = stage[0][0];  // in flight
  emu::cp_async_wait(1);
  out[1] = stage[0][3];  // landed: the older group retired
  out[2] = stage[1][0];  // still in flight
  emu::cp_async_wait(0);
  out[3] = stage[1][1];
  out[4] = stage[1][2];  // zero fill past src-size
}
}  // namespace

// cp.async as a GPU runs it (not at once): a copy lands when the thread's cp.async.wait_group
// retires its group, and until then its destination reads as NaN, so that a pipeline whose wait
// count leaves the slice it reads in flight, or that refills a stage other warps still read,
// gives NaN in the emulated tests instead of passing until a GPU runs it.
TEST_CASE("the emulator's cp.async lands at the wait_group that retires its group", "[emulator]") {
  alignas(16) const float src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> out(5, -1.f);
  emu::launch(cp_async_groups_kernel, dim3(1), dim3(1), out.data(), &src[0]);
  CHECK(std::isnan(out[0]));
  CHECK(out[1] == 4.f);
  CHECK(std::isnan(out[2]));
  CHECK(out[3] == 6.f);
  CHECK(out[4] == 0.f);
}
