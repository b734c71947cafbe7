// autograd.hpp: the tape-based autograd layer's public face: NoGradGuard, the graph Node that
// Tensor::grad_fn() returns, and gradcheck. Core records ops through AutogradHooks; this layer
// turns each record into a Node whose backward rule lives in autograd/rules.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "wick/autograd_hooks.hpp"
#include "wick/tensor.hpp"

namespace wick {

// RAII: no op records a graph while one is alive on this thread (torch.no_grad()).
class NoGradGuard {
 public:
  NoGradGuard() : previous_(GradMode::is_enabled()) { GradMode::set_enabled(false); }
  ~NoGradGuard() { GradMode::set_enabled(previous_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

// RAII: turns recording back on inside a NoGradGuard (torch.enable_grad()).
class EnableGradGuard {
 public:
  EnableGradGuard() : previous_(GradMode::is_enabled()) { GradMode::set_enabled(true); }
  ~EnableGradGuard() { GradMode::set_enabled(previous_); }
  EnableGradGuard(const EnableGradGuard&) = delete;
  EnableGradGuard& operator=(const EnableGradGuard&) = delete;

 private:
  bool previous_;
};

// The name of the op that made t ("mul", "matmul"), or "" for a leaf.
std::string grad_fn_name(const Tensor& t);

namespace autograd {

// Runs hook(leaf) each time a backward pass has accumulated into leaf.grad() the last gradient
// that pass produces for `leaf` (PyTorch's register_post_accumulate_grad_hook), so that work on
// the gradient (DistributedDataParallel's bucket all-reduce) can start while backward goes on.
// Hooks run on the thread of backward(), with grad mode off, in the order leaves complete; a
// leaf that receives no gradient in a pass gets no call. `leaf` must be a leaf that requires
// grad; remove the hook (the handle) before the leaf is freed.
using GradReadyHook = std::function<void(const Tensor& leaf)>;
uint64_t register_grad_ready_hook(const Tensor& leaf, GradReadyHook hook);
void remove_grad_ready_hook(uint64_t handle);

// Checks the analytic gradients of fn at inputs (float64 tensors that require grad) against
// central differences, as torch.autograd.gradcheck: |analytic - numeric| <= atol + rtol *
// |numeric| for every element of every input's gradient, for each output element's
// gradient (the Jacobian, row by row). Returns "" on success, else a message that names the
// input, the element and both values.
struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
};
std::string gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& fn,
                      const std::vector<Tensor>& inputs, GradcheckOptions options = {});

}  // namespace autograd
}  // namespace wick

// Lets layers above autograd (wick::distributed) use the hook where this build has it.
#define WICK_AUTOGRAD_HAS_GRAD_READY_HOOK 1
