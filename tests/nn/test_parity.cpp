// test_parity.cpp: wick against PyTorch 1.13 on the golden files of tests/golden, on the CPU
// (parity_common.hpp has the check; tests/cuda/test_parity.cpp runs it on the GPU): within
// 1e-5 (float32) and 1e-10 (float64); docs/nn.md has the figures.
#include "parity_common.hpp"

TEST_CASE("parity with PyTorch: 10 steps of each optimizer, float32") {
  parity::check_parity(wick::kFloat32, "parity_float32.safetensors", 1e-5);
}

TEST_CASE("parity with PyTorch: 10 steps of each optimizer, float64") {
  parity::check_parity(wick::kFloat64, "parity_float64.safetensors", 1e-10);
}
