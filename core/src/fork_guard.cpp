// fork_guard.cpp: see wick/fork_guard.hpp. One pthread_atfork registration for every guarded
// mutex: prepare locks each mutex by rank (registration order within a rank); parent and child
// unlock them in reverse. The CPU thread pool has its own handler,
// which also gives the child a fresh pool (kernels/cpu/thread_pool.cpp).
#include "wick/fork_guard.hpp"

#include "wick/dispatch.hpp"

#include <pthread.h>

#include <algorithm>
#include <vector>

namespace wick::detail {
namespace {

struct Guarded {
  int rank;
  std::mutex* mutex;
};

struct Registry {
  std::mutex mutex;
  std::vector<Guarded> guarded;  // sorted by rank, stable
};

// Never destroyed: a fork, or a registration, may come from a thread still running at exit.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

// The mutexes prepare locked, for parent and child to unlock. The registry's own lock is not
// held while they are taken: a thread that holds a gradient stripe may be registering the
// allocator's lock on its first use, and would wait for the registry forever.
std::vector<std::mutex*>* g_locked = nullptr;

void lock_all() {
  // A fork while another thread runs wick's one-time initialisation (its first op) would leave
  // the child waiting on that call_once for good: finish it first. (Registering the kernels
  // takes no lock of the list below and makes no CUDA call.)
  ensure_initialized();
  Registry& r = registry();
  if (g_locked == nullptr) g_locked = new std::vector<std::mutex*>;
  {
    const std::lock_guard<std::mutex> lock(r.mutex);
    g_locked->clear();
    for (const Guarded& g : r.guarded) g_locked->push_back(g.mutex);
  }
  for (std::mutex* m : *g_locked) m->lock();
}

void unlock_all() {
  for (auto it = g_locked->rbegin(); it != g_locked->rend(); ++it) (*it)->unlock();
  g_locked->clear();
}

}  // namespace

void guard_across_fork(std::mutex& mutex, ForkRank rank) {
  static const bool registered = pthread_atfork(lock_all, unlock_all, unlock_all) == 0;
  (void)registered;
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  const Guarded entry{static_cast<int>(rank), &mutex};
  auto at = std::upper_bound(r.guarded.begin(), r.guarded.end(), entry,
                             [](const Guarded& a, const Guarded& b) { return a.rank < b.rank; });
  r.guarded.insert(at, entry);
}

}  // namespace wick::detail
