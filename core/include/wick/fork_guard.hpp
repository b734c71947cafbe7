// fork_guard.hpp (internal, not part of the API): process-wide mutexes that a forked child must
// find unlocked. fork() copies only the calling thread; a mutex another thread held at that
// moment stays locked in the child for good (a review found a child hanging in the allocator's
// block cache 21 times in 100). Each guarded mutex is locked before fork (pthread_atfork's
// prepare, lowest rank first, so in the order the code nests them) and unlocked in both parent
// and child, so the child starts with consistent, unlocked state. Tested by
// tests/test_fork.cpp.
#pragma once

#include <mutex>

namespace wick::detail {

// Lower ranks are taken first: a mutex that is held while another is taken ranks lower.
enum class ForkRank : int {
  kLeafGrad = 0,       // autograd's per-leaf gradient stripes (held while .grad is added to)
  kReadyHooks = 1,     // autograd's grad-ready hook registry
  kDeterministic = 2,  // the deterministic-mode switch
  kGenerator = 3,      // the global random generator
  kLargeBlocks = 4,    // the CPU allocator's large-block cache (taken inside any of the above)
};

// Registers `mutex` (which must live until exit: never destroyed) with the fork handlers.
void guard_across_fork(std::mutex& mutex, ForkRank rank);

}  // namespace wick::detail
