// examples/device_info.cpp: what wick sees on this machine: the CPU, and each GPU or the
// reason there is none. scripts/main.sh reads its "cuda:" line to decide on GPU benchmarks.
#include <wick/wick.hpp>

#include <iostream>

int main() {
  std::cout << "cpu: available\n";
  if (!wick::cuda::is_available()) {
    std::cout << "cuda: no (" << wick::cuda::unavailable_reason() << ")\n";
    return 0;
  }
  std::cout << "cuda: yes, " << wick::cuda::device_count() << " device(s)\n";
  for (int i = 0; i < wick::cuda::device_count(); ++i) {
    std::cout << "  cuda:" << i << " " << wick::cuda::device_name(i) << "\n";
  }
}
