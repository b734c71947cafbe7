// autograd_hooks.hpp: the seam between core and the autograd layer. Core never includes
// autograd; instead, after each op whose inputs require grad (while grad mode is on), the op
// boundary hands the finished OpCall to the registered hooks, which record it on the tape.
// Tensor::backward() and friends also go through these hooks.
#pragma once

#include "wick/dispatch.hpp"

namespace wick {

// Thread-local grad mode (torch.is_grad_enabled()); NoGradGuard in autograd/ flips it.
struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

class AutogradHooks {
 public:
  virtual ~AutogradHooks() = default;
  // Called after `call` ran; its outputs are final. Records a node if the op is differentiable.
  virtual void record(const OpCall& call) = 0;
  virtual void backward(const Tensor& root, const Tensor& gradient, bool retain_graph) = 0;
  // Called before an in-place write to `target`, which requires grad; rejects writes autograd
  // cannot follow (a leaf; a tensor whose storage has recorded views; an op that is not
  // recorded in place: `recorded` false).
  virtual void check_inplace(const Tensor& target, const char* op, bool recorded) = 0;
  // An in-place op that will be recorded is about to write `target`: returns a copy of its
  // value when op's backward needs it, else an undefined tensor.
  virtual Tensor save_before_inplace(OpId op, const Tensor& target) = 0;
  // After the write: records `call`, whose outputs[0] is the target and whose inputs[0] stands
  // for the target's old value (`before`, or the target when `before` is undefined), and makes
  // the node the target's grad_fn.
  virtual void record_inplace(const OpCall& call, const Tensor& before) = 0;
  // The op that made t (its grad_fn's op name: "mul"), for printing.
  virtual std::string grad_fn_name(const Tensor& t) = 0;
};

void set_autograd_hooks(AutogradHooks* hooks);
AutogradHooks* autograd_hooks();

namespace detail {
// True when the op with these inputs must be recorded.
inline bool any_requires_grad(const Tensor* a, const Tensor* b = nullptr,
                              const Tensor* c = nullptr) {
  return (a != nullptr && a->requires_grad()) || (b != nullptr && b->requires_grad()) ||
         (c != nullptr && c->requires_grad());
}
// Records `call` if grad mode is on and an input requires grad.
void maybe_record(const OpCall& call);
}  // namespace detail

}  // namespace wick
