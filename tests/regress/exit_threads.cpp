// exit_threads.cpp: a program that returns from main while its own threads still run forward
// and backward passes (with a grad-ready hook registered) must exit cleanly: wick's
// process-wide state (the hook registry, the engine, the generator, the block cache, the
// pool) is never destroyed. A review crashed the hook registry's destroyed map 10 times in 200
// (docs/reliability.md). Each of 40 children starts two such threads, sleeps a different
// while, and returns; the parent counts children that crashed or hung.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <wick/wick.hpp>

namespace {

[[noreturn]] void child(int sleep_us) {
  for (int k = 0; k < 2; ++k) {
    std::thread([] {
      wick::Tensor w = wick::randn({64, 64}).requires_grad_(true);
      wick::autograd::register_grad_ready_hook(w, [](const wick::Tensor&) {});
      for (;;) {
        w.matmul(w).sum().backward();
        w.mutable_grad() = wick::Tensor();
      }
    }).detach();
  }
  std::this_thread::sleep_for(std::chrono::microseconds(sleep_us));
  std::exit(0);  // static destructors run while the threads are still in backward
}

}  // namespace

int main() {
  int crashed = 0, hung = 0;
  for (int i = 0; i < 40; ++i) {
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid < 0) return 2;
    if (pid == 0) child(100 + 97 * i);
    int status = 0;
    bool done = false;
    for (int waited_ms = 0; waited_ms < 20000 && !done; ++waited_ms) {
      done = ::waitpid(pid, &status, WNOHANG) == pid;
      if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!done) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      ++hung;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      ++crashed;
      std::printf("child %d: %s %d\n", i, WIFSIGNALED(status) ? "signal" : "exit status",
                  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
  }
  std::printf("40 children: %d crashed, %d hung\n", crashed, hung);
  return crashed == 0 && hung == 0 ? 0 : 1;
}
