// threads.hpp: how many threads wick's CPU ops run on, as torch::set_num_threads and
// torch::get_num_threads. The setting is global: it holds for ops called from any host thread.
// Until it is set, ops use OMP_NUM_THREADS when it is set (its first number), else the CPUs
// the process may run on, capped by the process's cgroup CPU limit rounded up (a container's
// `--cpus 4` gives 4 threads, not one per CPU of the host: threads beyond the quota are
// throttled; docs/cpu-kernels.md); at most kMaxNumThreads either way. The threads are wick's
// own pool (not OpenMP's), so omp_set_num_threads does not change wick. Small ops run on fewer
// threads whatever the setting (docs/cpu-kernels.md). There is no way back to "not set" once
// it is set.
#pragma once

namespace wick {

// The most threads wick uses and set_num_threads takes. An absurd count is refused here; below
// it, a thread the OS refuses to start only means fewer workers.
inline constexpr int kMaxNumThreads = 1024;

// Sets the number of threads for CPU ops from now on; n must be 1 to kMaxNumThreads (a
// ValueError otherwise, with the setting unchanged).
void set_num_threads(int n);
// The number of threads CPU ops may use, 1 to kMaxNumThreads: what set_num_threads(n) takes
// back, so saving it and restoring it later always works.
int get_num_threads();

}  // namespace wick
