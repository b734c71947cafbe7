// emulator_partial_warp.cpp: the emulator's check on shuffle masks (cuda_emulator.hpp). A warp
// sum with a full mask runs in blocks of 64 threads (whole warps) and prints its result; then
// the same kernel in a block of 40 threads (a warp of 8 lanes) must stop the program with the
// emulator's message, as a GPU would read garbage there. CTest expects that message (the
// exit status is 3 from the SIGABRT handler).
#include "cuda_emulator.hpp"

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <vector>

namespace {

void warp_sum_kernel(int* out) {
  int v = static_cast<int>(threadIdx.x);
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v;
}

}  // namespace

int main() {
  // The emulator stops with abort(); CTest counts a signal as a failure whatever the output
  // says, so the abort ends the process normally here, after the emulator's message.
  std::signal(SIGABRT, [](int) { _exit(3); });
  std::vector<int> out(2, -1);
  emu::launch(warp_sum_kernel, dim3(1), dim3(64), out.data());
  // 0 + ... + 31 = 496 and 32 + ... + 63 = 1520.
  std::printf("whole warps: %d %d\n", out[0], out[1]);
  if (out[0] != 496 || out[1] != 1520) return 1;
  std::fflush(stdout);
  emu::launch(warp_sum_kernel, dim3(1), dim3(40), out.data());
  std::printf("a partial warp's full-mask shuffle was not caught\n");
  return 1;
}
