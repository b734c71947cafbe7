// init.cpp: the one place that knows every layer. ensure_initialized() runs once, before the
// first dispatch: it registers the CPU kernels, the CUDA backend where this build has it
// (the one #ifdef for CUDA), and the autograd layer's hooks. Explicit calls, not static
// initialisers, so that nothing is dropped when wick is linked statically.
#include <atomic>
#include <mutex>

#include "wick/dispatch.hpp"

namespace wick {
void register_cpu_kernels();
void register_autograd();
#if defined(WICK_WITH_CUDA)
void register_cuda_backend();
#endif

void detail::ensure_initialized() {
  // Every dispatch passes here: after start-up this is one acquire load, not a call_once.
  static std::atomic<bool> done{false};
  if (done.load(std::memory_order_acquire)) return;
  static std::once_flag once;
  std::call_once(once, [] {
    register_cpu_kernels();
#if defined(WICK_WITH_CUDA)
    register_cuda_backend();
#endif
    register_autograd();
    done.store(true, std::memory_order_release);
  });
}

}  // namespace wick
