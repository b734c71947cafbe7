// deterministic.hpp: wick's deterministic mode, spelled as PyTorch's
// torch.use_deterministic_algorithms. With it on, the same program with the same seed
// (wick::manual_seed) gives bitwise-identical results run to run and, on the CPU, for any
// thread count; and every new allocation on every device is filled with NaN (0xFF bytes: -1
// for int64, 255 for bool), as wick::set_debug_fill(true) does, so that a read of memory no
// kernel wrote shows up instead of differing from run to run.
// Why most kernels need no change (docs/reliability.md, "Deterministic mode"): CPU reductions
// sum fixed blocks of 16384 elements combined in order, elementwise loops and softmax rows
// split by index, the CPU GEMM splits M and N (never K) across threads, random numbers come
// from counter-based Philox, and the CUDA reductions combine partials in an order fixed by the
// shape (no atomics). A kernel that cannot be deterministic (atomics in a reduction or in a
// scatter-style backward) calls detail::alert_not_deterministic(), which throws
// NondeterministicError in this mode; none does today.
// Tested by tests/regress/test_determinism.cpp.
#pragma once

#include "wick/error.hpp"

namespace wick {

// Thrown in deterministic mode by an op that has no deterministic implementation.
class NondeterministicError : public Error {
  using Error::Error;
};

// Turns deterministic mode on or off for the whole process. Turning it on also turns the NaN
// fill of new allocations on; turning it off puts the fill back as it was before.
void use_deterministic_algorithms(bool on);
bool are_deterministic_algorithms_enabled();

// RAII: deterministic mode on for a scope, then back to what it was.
class DeterministicGuard {
 public:
  explicit DeterministicGuard(bool on = true) : previous_(are_deterministic_algorithms_enabled()) {
    use_deterministic_algorithms(on);
  }
  ~DeterministicGuard() { use_deterministic_algorithms(previous_); }
  DeterministicGuard(const DeterministicGuard&) = delete;
  DeterministicGuard& operator=(const DeterministicGuard&) = delete;

 private:
  bool previous_;
};

namespace detail {
// Called by a kernel before it does something whose result depends on scheduling (atomic
// float adds, unordered combination). Throws NondeterministicError naming `op` and `why` when
// deterministic mode is on; does nothing otherwise.
void alert_not_deterministic(const char* op, const char* why);
}  // namespace detail

}  // namespace wick
