// main.cpp: the GPU suite's own main. Without a usable GPU (no driver, no device, or a build
// without CUDA) it prints "SKIPPED: <reason>" and returns 77, which CTest reports as skipped
// (SKIP_RETURN_CODE in CMakeLists.txt); otherwise it runs the Catch2 session.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "wick/matmul_backend.hpp"
#include "wick/wick.hpp"

int main(int argc, char** argv) {
  if (!wick::cuda::is_available()) {
    std::printf("SKIPPED: %s\n", wick::cuda::unavailable_reason().c_str());
    return 77;
  }
  std::printf("wick CUDA tests on %s (%d device(s)), matmul backend at start: %s\n",
              wick::cuda::device_name(0).c_str(), wick::cuda::device_count(),
              wick::matmul_backend_name(wick::matmul_backend()));
  const int failed = Catch::Session().run(argc, argv);
  return failed == 0 ? 0 : 1;  // never 77: a failing run must not read as skipped
}
