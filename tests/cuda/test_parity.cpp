// test_parity.cpp (GPU suite): the PyTorch parity check of tests/golden with the model, data
// and optimizer state on the GPU: forward, loss, backward and every optimizer step
// (SGD with momentum, dampening, nesterov and weight decay; Adam and AdamW, amsgrad) run as
// CUDA kernels, and after 10 steps the losses, gradients and parameters must match PyTorch's
// CPU run within the CPU test's tolerances: 1e-5 in float32, 1e-10 in float64.
#include "gpu_test.hpp"
#include "nn/parity_common.hpp"

TEST_CASE("gpu parity with PyTorch: 10 steps of each optimizer on the device, float32",
          "[parity]") {
  parity::check_parity(wick::kFloat32, "parity_float32.safetensors", 1e-5, wick::kCUDA);
}

TEST_CASE("gpu parity with PyTorch: 10 steps of each optimizer on the device, float64",
          "[parity]") {
  parity::check_parity(wick::kFloat64, "parity_float64.safetensors", 1e-10, wick::kCUDA);
}
