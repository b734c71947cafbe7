// deterministic.cpp: the deterministic-mode switch (wick/deterministic.hpp). The flag is one
// process-wide atomic; turning the mode on saves the debug-fill setting and turns the NaN fill
// on, turning it off restores the saved setting. Tested by tests/regress/test_determinism.cpp.
#include "wick/deterministic.hpp"

#include <atomic>
#include <mutex>

#include "wick/debug.hpp"
#include "wick/fork_guard.hpp"

namespace wick {
namespace {

// Orders on/off switches against each other; never destroyed, guarded across fork.
std::mutex& switch_mutex() {
  static std::mutex* m = [] {
    auto* made = new std::mutex;
    detail::guard_across_fork(*made, detail::ForkRank::kDeterministic);
    return made;
  }();
  return *m;
}
[[maybe_unused]] std::mutex& g_switch_at_load = switch_mutex();  // before any thread, as above
std::atomic<bool> g_deterministic{false};
bool g_fill_before = false;  // the debug-fill setting when the mode was turned on

}  // namespace

void use_deterministic_algorithms(bool on) {
  std::lock_guard<std::mutex> lock(switch_mutex());
  if (on == g_deterministic.load()) return;
  if (on) {
    g_fill_before = debug_fill();
    set_debug_fill(true);
  } else {
    set_debug_fill(g_fill_before);
  }
  g_deterministic.store(on);
}

bool are_deterministic_algorithms_enabled() { return g_deterministic.load(); }

void detail::alert_not_deterministic(const char* op, const char* why) {
  if (!g_deterministic.load(std::memory_order_relaxed)) return;
  fail<NondeterministicError>(op, "has no deterministic implementation (", why,
                              "), but deterministic mode is on "
                              "(wick::use_deterministic_algorithms(true)); turn it off for this "
                              "op or avoid the op");
}

}  // namespace wick
