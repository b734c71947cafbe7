// examples/matmul.cpp: multiply two 1000x1000 matrices on the GPU if there is one.
#include <wick/wick.hpp>
#include <iostream>

int main() {
  wick::Device device = wick::cuda::is_available() ? wick::kCUDA : wick::kCPU;
  wick::Tensor x = wick::randn({1000, 1000});   // created on the CPU
  wick::Tensor y = wick::randn({1000, 1000});
  x = x.to(device);
  y = y.to(device);
  wick::Tensor result = wick::matmul(x, y);
  result = result.to(wick::kCPU);
  std::cout << result.sizes() << "\n";           // prints [1000, 1000]
}
