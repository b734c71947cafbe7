// thread_pool.cpp: run_chunks (thread_pool.hpp). One pool per process, created on first use
// and never destroyed (an op may run from a static destructor after main returns), holding
// workers that are started on first need and kept. One job at a time: its chunks are claimed
// from one 64-bit ticket, (generation, chunk count, next chunk), by compare-and-swap. A claim
// that succeeds proves the job is still in flight (its caller waits for every claimed chunk),
// so the job's function pointer is safe to read after it; a worker holding a ticket of an
// earlier job fails its swap, because the generation changed.
//
// Idle workers poll the ticket for kWorkerPoll (2 ms) after each job, yielding the CPU between
// polls, then sleep on a futex (std::atomic::wait); a caller waiting for a worker's chunk spins
// 50 us, polls yielding to 1 ms, then sleeps. On a VM a futex wake of an idle vCPU can take
// longer than a whole chunk: with 100 us and 50 us, wick's 2-thread 1024^3 GEMM timed between
// OpenBLAS calls (bench/cpu/gemm_paired.cpp) ran at 172-215 GFLOP/s instead of 309-314, since
// each sleeper then woke too late for its chunk; with these it runs at 320-325
// (docs/cpu-kernels.md, "A thread pool that does not wait"). OpenMP runtimes poll for longer
// still (GNU's default spin count is a few ms, LLVM's KMP_BLOCKTIME 200 ms).
#include "thread_pool.hpp"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "wick/error.hpp"
#include "wick/threads.hpp"

namespace wick::cpu {
namespace {

static_assert(kMaxChunks < (1 << 16), "the ticket's chunk fields are 16 bits wide");
static_assert(kMaxChunks >= kMaxNumThreads, "parallel_for makes one chunk per thread");
using Clock = std::chrono::steady_clock;
constexpr auto kWorkerPoll = std::chrono::microseconds(2000);
constexpr auto kCallerSpin = std::chrono::microseconds(50);
constexpr auto kCallerPoll = std::chrono::microseconds(1000);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// The ticket: generation in bits 32-63, chunk count in 16-31, next unclaimed chunk in 0-15
// (kMaxChunks fits in 16 bits).
constexpr uint64_t make_ticket(uint64_t generation, uint64_t count) {
  return generation << 32 | count << 16;
}
constexpr uint64_t next_of(uint64_t ticket) { return ticket & 0xffff; }
constexpr uint64_t count_of(uint64_t ticket) { return (ticket >> 16) & 0xffff; }

thread_local bool t_in_region = false;

struct RegionScope {
  bool saved = t_in_region;
  RegionScope() { t_in_region = true; }
  ~RegionScope() { t_in_region = saved; }
  RegionScope(const RegionScope&) = delete;
  RegionScope& operator=(const RegionScope&) = delete;
};

class Pool {
 public:
  Pool() { threads_.reserve(static_cast<size_t>(kMaxChunks)); }

  std::mutex submit;              // held by the caller of the job in flight
  std::atomic<bool> busy{false};  // set while `submit` is held: a hint for callers
  std::atomic<bool> hold{false};

  int workers() const { return started_.load(std::memory_order_relaxed); }

  // Starts workers until there are `wanted`. If the OS refuses a thread (a pids limit, say), the
  // pool keeps the workers it has and stops trying, so later jobs do not pay for a failing
  // pthread_create each. Workers start with every signal blocked, so that a signal the
  // process expects on some thread of its own is never delivered to one of wick's.
  void ensure_workers(int wanted) {
    if (spawn_failed_) return;
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    while (static_cast<int>(threads_.size()) < wanted) {
      try {
        threads_.emplace_back([this] { worker_main(); });
      } catch (...) {  // std::system_error from the OS, std::bad_alloc
        spawn_failed_ = true;
        break;
      }
      started_.fetch_add(1, std::memory_order_relaxed);
    }
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  }

  // With `submit` held: publishes the job, runs chunks on the caller until none is left to
  // claim, waits for the chunks workers claimed, then rethrows the first exception, if any.
  void run(int64_t chunks, ChunkFn fn, const void* context) {
    fn_ = fn;
    context_ = context;
    failed_.store(false, std::memory_order_relaxed);
    error_ = nullptr;
    remaining_.store(static_cast<uint32_t>(chunks), std::memory_order_relaxed);
    ++generation_;
    ticket_.store(make_ticket(generation_, static_cast<uint64_t>(chunks)));
    wake_seq_.fetch_add(1);
    // One wake here; each woken worker wakes the next while two or more chunks are unclaimed
    // (claim_and_run), so the caller starts its own chunk after one futex call, not one per
    // spare chunk.
    if (sleepers_.load() > 0) wake_seq_.notify_one();
    {
      const RegionScope region;
      claim_and_run(false);
    }
    wait_for_claimed();
    if (failed_.load(std::memory_order_acquire)) {
      std::exception_ptr error = std::move(error_);
      error_ = nullptr;
      std::rethrow_exception(error);
    }
  }

 private:
  bool has_work() const {
    const uint64_t ticket = ticket_.load(std::memory_order_acquire);
    return next_of(ticket) < count_of(ticket) && !hold.load(std::memory_order_relaxed);
  }

  // Claims and runs chunks of the job in flight until none is left; says whether it ran any.
  bool claim_and_run(bool is_worker) {
    bool ran = false;
    for (;;) {
      uint64_t ticket = ticket_.load(std::memory_order_acquire);
      if (next_of(ticket) >= count_of(ticket)) return ran;
      // `hold` is read after the ticket: a job published after hold was set (the store is
      // sequenced before the publishing store) then shows it set, and a ticket read before the
      // job was published fails the swap below.
      if (is_worker && hold.load(std::memory_order_relaxed)) return ran;
      if (is_worker && !ran && count_of(ticket) - next_of(ticket) >= 2 && sleepers_.load() > 0) {
        wake_seq_.notify_one();  // pass the wake on: another chunk is waiting for a thread
      }
      if (!ticket_.compare_exchange_weak(ticket, ticket + 1, std::memory_order_acq_rel,
                                         std::memory_order_acquire)) {
        continue;
      }
      ran = true;
      if (!failed_.load(std::memory_order_relaxed)) {
        try {
          fn_(context_, static_cast<int64_t>(next_of(ticket)));
        } catch (...) {
          const std::lock_guard<std::mutex> lock(error_mutex_);
          if (!failed_.load(std::memory_order_relaxed)) {
            error_ = std::current_exception();
            failed_.store(true, std::memory_order_release);
          }
        }
      }
      // The last chunk wakes the caller if it went to sleep (seq_cst pairs with its store of
      // caller_sleeping_ then load of remaining_: one of the two sees the other).
      if (remaining_.fetch_sub(1) == 1 && caller_sleeping_.load()) remaining_.notify_one();
    }
  }

  // Spins briefly, then polls yielding the CPU (the worker it waits for may be waiting for
  // this CPU), then sleeps on the futex.
  void wait_for_claimed() {
    const auto start = Clock::now();
    while (remaining_.load(std::memory_order_acquire) != 0) {
      for (int i = 0; i < 32; ++i) cpu_relax();
      const auto waited = Clock::now() - start;
      if (waited < kCallerSpin) continue;
      if (waited < kCallerPoll) {
        std::this_thread::yield();
        continue;
      }
      caller_sleeping_.store(true);
      const uint32_t left = remaining_.load();
      if (left != 0) remaining_.wait(left);
      caller_sleeping_.store(false);
    }
  }

  void worker_main() {
    t_in_region = true;  // a parallel loop inside a chunk runs serially
    for (;;) {
      const uint32_t seen = wake_seq_.load();
      if (claim_and_run(true)) continue;
      const auto until = Clock::now() + kWorkerPoll;
      bool found = false;
      while (!found && Clock::now() < until) {
        for (int i = 0; i < 64 && !found; ++i) {
          cpu_relax();
          found = has_work();
        }
        // Give the CPU to any other runnable thread: with more threads than free CPUs (a busy
        // machine, or set_num_threads above the CPU count) a polling worker would otherwise
        // delay the caller or a worker that holds a chunk.
        if (!found) std::this_thread::yield();
      }
      if (found) continue;
      sleepers_.fetch_add(1);
      if (!has_work()) wake_seq_.wait(seen);
      sleepers_.fetch_sub(1);
    }
  }

  std::vector<std::thread> threads_;  // never joined: the pool outlives main
  std::atomic<int> started_{0};
  bool spawn_failed_ = false;  // with `submit` held
  uint64_t generation_ = 0;    // the caller's count of jobs (wraps at 2^32 inside the ticket)
  // The job in flight: written before ticket_ publishes it, read after a successful claim.
  ChunkFn fn_ = nullptr;
  const void* context_ = nullptr;
  // Each hot atomic on a cache line of its own: polling workers read ticket_ without end,
  // and every finished chunk writes remaining_.
  alignas(64) std::atomic<uint64_t> ticket_{0};
  alignas(64) std::atomic<uint32_t> remaining_{0};  // chunks not finished
  std::atomic<bool> caller_sleeping_{false};
  alignas(64) std::atomic<uint32_t> wake_seq_{0};  // bumped per job; sleepers wait on it
  std::atomic<int> sleepers_{0};
  std::atomic<bool> failed_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

// The pool, created on first use. A forked child has none of its parent's workers: it drops
// the pool (kept reachable in g_retired, never freed: its mutexes may be held) and makes a new
// one when it needs one.
std::atomic<Pool*> g_pool{nullptr};
std::mutex g_create_mutex;
std::vector<Pool*>* g_retired = nullptr;

void before_fork() { g_create_mutex.lock(); }
void after_fork_parent() { g_create_mutex.unlock(); }
void after_fork_child() {
  Pool* old = g_pool.exchange(nullptr);
  if (old != nullptr) {
    if (g_retired == nullptr) g_retired = new std::vector<Pool*>;
    g_retired->push_back(old);
  }
  g_create_mutex.unlock();
}

Pool& pool() {
  Pool* pool = g_pool.load(std::memory_order_acquire);
  if (pool != nullptr) return *pool;
  const std::lock_guard<std::mutex> lock(g_create_mutex);
  pool = g_pool.load(std::memory_order_acquire);
  if (pool == nullptr) {
    static const bool registered =
        pthread_atfork(before_fork, after_fork_parent, after_fork_child) == 0;
    (void)registered;
    pool = new Pool;
    g_pool.store(pool, std::memory_order_release);
  }
  return *pool;
}

void run_serially(int64_t chunks, ChunkFn fn, const void* context) {
  for (int64_t c = 0; c < chunks; ++c) fn(context, c);
}

}  // namespace

void run_chunks(int64_t chunks, ChunkFn fn, const void* context) {
  if (chunks <= 0) return;
  WICK_CHECK(chunks <= kMaxChunks, Error, "run_chunks", "internal: ", chunks,
             " chunks, more than the pool's ", kMaxChunks);
  const int spare = static_cast<int>(chunks) - 1;
  if (spare < 1 || t_in_region) return run_serially(chunks, fn, context);
  Pool& p = pool();
  // A second host thread does not queue behind the job in flight: it runs its own serially.
  std::unique_lock<std::mutex> lock(p.submit, std::try_to_lock);
  if (!lock.owns_lock()) return run_serially(chunks, fn, context);
  struct Busy {
    std::atomic<bool>& flag;
    explicit Busy(std::atomic<bool>& f) : flag(f) { flag.store(true, std::memory_order_relaxed); }
    ~Busy() { flag.store(false, std::memory_order_relaxed); }
    Busy(const Busy&) = delete;
    Busy& operator=(const Busy&) = delete;
  } busy(p.busy);
  p.ensure_workers(spare);
  if (p.workers() == 0) return run_serially(chunks, fn, context);
  p.run(chunks, fn, context);
}

bool pool_busy() {
  const Pool* p = g_pool.load(std::memory_order_acquire);
  return p != nullptr && p->busy.load(std::memory_order_relaxed);
}

bool in_parallel_region() { return t_in_region; }

int pool_workers() {
  const Pool* p = g_pool.load(std::memory_order_acquire);
  return p != nullptr ? p->workers() : 0;
}

void hold_workers_for_testing(bool hold) { pool().hold.store(hold); }

}  // namespace wick::cpu
