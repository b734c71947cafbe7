// cpu_quota.hpp: the CPU bandwidth limit of this process's cgroup: what `docker run --cpus 4` or
// a Kubernetes CPU limit sets. The CPUs a process may run on (its affinity mask, which OpenMP
// and PyTorch take as their default thread count) do not show such a limit: 16 threads under a
// 4-CPU quota run a quarter of each 100 ms period, then all stop, and a job waits for its
// throttled threads (docs/cpu-kernels.md, "Threads and shared CPUs"). threads.cpp caps its
// default by cgroup_thread_limit(), as Go's and .NET's runtimes do.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wick::cpu {

// CPUs allowed by a cgroup v2 `cpu.max` ("150000 100000" is 1.5; "max 100000" is no limit).
// nullopt for no limit or text that is not a limit.
std::optional<double> parse_cpu_max(std::string_view text);

// CPUs allowed by cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us (-1: no limit).
std::optional<double> parse_cfs_quota(std::string_view quota, std::string_view period);

// The tightest CPU limit on this process's cgroup and its ancestors, read from root +
// "/proc/self/cgroup" and the cgroup files under root + "/sys/fs/cgroup" (v2, and v1's cpu
// controller); root is "" for the real files (tests pass a folder that mimics them). nullopt
// when there is no limit or nothing can be read.
std::optional<double> cgroup_cpu_limit(const std::string& root = "");

// OMP_NUM_THREADS's text as a thread count: its first number ("4,2" is 4), at most
// kMaxNumThreads; 0 when unset (null) or not a positive number.
int omp_num_threads_setting(const char* text);

// Threads for a limit of `cpus`: rounded up, at least 1.
int threads_for_cpu_limit(double cpus);

// threads_for_cpu_limit(cgroup_cpu_limit()); 0 when there is no limit. Reads the files on every
// call: threads.cpp keeps the result (once per process).
int cgroup_thread_limit();

}  // namespace wick::cpu
