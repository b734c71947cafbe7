// thread_pool.hpp: the CPU backend's worker threads. run_chunks(chunks, fn) calls fn(c) once
// for every chunk c in [0, chunks), on the calling thread and up to chunks - 1 workers shared
// with every later call, and returns when every chunk has run. The number of chunks is the
// most threads a job uses: parallel_for and the GEMM make one chunk per thread they want.
//
// Why not OpenMP's fork-join: a parallel region ends at a barrier that waits for every thread
// of the team, including one the OS has not scheduled yet. On a machine that other processes
// keep busy that wait is a scheduler time slice per region; the MLP training step at width
// 128 took 128-144 ms on 2 threads against 0.46 ms on one (docs/cpu-kernels.md, "Threads and
// shared CPUs"). Here chunks are claimed, not assigned: the caller runs every chunk that no
// worker has taken, so it never waits for a worker that has not started, only for chunks that
// a running worker has claimed. A busy machine degrades towards one thread, not below it.
//
// The rules a kernel relies on:
//  - which thread runs a chunk is not fixed (chunk c is not "thread c"), so per-chunk scratch
//    is indexed by chunk; a thread runs its chunks one after another;
//  - results must not depend on which thread ran what (every kernel splits by index);
//  - inside a chunk, run_chunks runs serially on the calling thread (no nested teams), and so
//    does a call from a second host thread while another one's job is in flight;
//  - an exception thrown by fn is rethrown on the caller once every chunk has finished or been
//    skipped (the chunks not started yet are skipped), and the pool stays usable;
//  - fn must not fork(): a child forked inside a chunk is left inside this job (a fork between
//    jobs is fine: the child makes a pool of its own). Workers start with every signal blocked
//    and inherit the CPU affinity of the thread that first needed them.
#pragma once

#include <cstdint>

namespace wick::cpu {

using ChunkFn = void (*)(const void* context, int64_t chunk);

// The most chunks one run_chunks call takes (wick::kMaxNumThreads).
inline constexpr int64_t kMaxChunks = 1024;

// Runs fn(context, c) for c in [0, chunks), chunks <= kMaxChunks, on at most `chunks` threads
// (the caller included).
void run_chunks(int64_t chunks, ChunkFn fn, const void* context);

template <typename Body>
void run_chunks(int64_t chunks, const Body& body) {
  run_chunks(
      chunks,
      [](const void* context, int64_t chunk) { (*static_cast<const Body*>(context))(chunk); },
      &body);
}

// True on a pool worker, and on a caller while it runs chunks: a parallel loop started there
// runs serially.
bool in_parallel_region();

// True while some host thread's job is in flight, so that a job started now would run on its
// caller alone: a hint (it may change at once) for work that would split differently for one
// thread (the GEMM).
bool pool_busy();

// For tests: the workers the pool has started so far (it starts them on first need and keeps
// them), and a switch that keeps workers from claiming chunks, so that a test can check that
// a caller finishes a job alone when no worker comes.
int pool_workers();
void hold_workers_for_testing(bool hold);

}  // namespace wick::cpu
