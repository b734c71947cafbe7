// threads.hpp: how many threads wick's CPU ops run on, as torch::set_num_threads and
// torch::get_num_threads. The setting is global: it holds for ops called from any host thread
// (OpenMP's own omp_set_num_threads holds only for the thread that calls it). Until it is set,
// ops use the calling thread's OpenMP setting (OMP_NUM_THREADS, else the CPUs available, or
// what omp_set_num_threads or torch::set_num_threads set on that thread), at most
// kMaxNumThreads; and when OMP_NUM_THREADS is not set, at most the process's cgroup CPU limit
// rounded up (a container's `--cpus 4` gives 4 threads, not one per CPU of the host: threads
// beyond the quota are throttled, and the others wait for them; docs/cpu-kernels.md). Small ops run
// on fewer threads whatever the setting (docs/cpu-kernels.md). Without OpenMP, every op runs on the
// calling thread and get_num_threads() is 1. There is no way back to "not set" once it is set.
#pragma once

namespace wick {

// The most threads wick uses and set_num_threads takes. OpenMP ends the process when it cannot
// create a thread it was asked for, so an absurd count is refused here instead (a count below
// it can still exceed what the OS allows a process).
inline constexpr int kMaxNumThreads = 1024;

// Sets the number of threads for CPU ops from now on; n must be 1 to kMaxNumThreads (a
// ValueError otherwise, with the setting unchanged).
void set_num_threads(int n);
// The number of threads CPU ops may use, 1 to kMaxNumThreads: what set_num_threads(n) takes
// back, so saving it and restoring it later always works.
int get_num_threads();

}  // namespace wick
