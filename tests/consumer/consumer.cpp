// consumer.cpp: uses wick from a project that pulled it in with add_subdirectory().
#include <wick/wick.hpp>

#include <iostream>

int main() {
  wick::Tensor a = wick::arange(6).view({2, 3}).to(wick::kFloat32);
  wick::Tensor b = wick::matmul(a, a.t());
  std::cout << b << "\n";
  return b.sum().item<float>() == 5.0f + 14.0f + 14.0f + 50.0f ? 0 : 1;
}
