// threads.hpp: how many threads wick's CPU ops run on, as torch::set_num_threads and
// torch::get_num_threads. The setting is global: it holds for ops called from any host thread
// (OpenMP's own omp_set_num_threads holds only for the thread that calls it). Until it is set,
// ops use OpenMP's default: OMP_NUM_THREADS, else the CPUs available. Small ops run on fewer
// threads whatever the setting (see docs/cpu-kernels.md). Without OpenMP, every op runs on
// the calling thread and get_num_threads() is 1.
#pragma once

namespace wick {

// The most threads set_num_threads takes. OpenMP ends the process when it cannot create a
// thread it was asked for, so an absurd count is refused here instead.
inline constexpr int kMaxNumThreads = 1024;

// Sets the number of threads for CPU ops from now on; n must be 1 to kMaxNumThreads (a
// ValueError otherwise, with the setting unchanged).
void set_num_threads(int n);
// The number of threads CPU ops may use.
int get_num_threads();

}  // namespace wick
