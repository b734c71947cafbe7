// autograd_seam.cpp: grad mode, the hook registry, and Tensor's autograd methods, which
// forward to the autograd layer (autograd/) through AutogradHooks.
#include "internal.hpp"

namespace wick {
namespace {
// initial-exec: libwick is loaded at start-up, never dlopen'ed late, so the flag can live in
// the static TLS block and be read without a __tls_get_addr call on every op.
thread_local bool t_grad_enabled __attribute__((tls_model("initial-exec"))) = true;
AutogradHooks* g_hooks = nullptr;

AutogradHooks& hooks(const char* op) {
  detail::ensure_initialized();
  WICK_CHECK(g_hooks != nullptr, AutogradError, op, "the autograd layer is not linked");
  return *g_hooks;
}
const Tensor kUndefined;
const std::shared_ptr<Node> kNoNode;
}  // namespace

bool GradMode::is_enabled() { return t_grad_enabled; }
void GradMode::set_enabled(bool enabled) { t_grad_enabled = enabled; }
void set_autograd_hooks(AutogradHooks* h) { g_hooks = h; }
// Initialises first: an in-place op may be a program's first op, before any dispatch has
// registered the hooks (its check and its recording were skipped until then).
AutogradHooks* autograd_hooks() {
  detail::ensure_initialized();
  return g_hooks;
}

void detail::maybe_record(const OpCall& call) {
  if (!t_grad_enabled) return;
  bool needed = false;
  for (int i = 0; i < call.num_inputs; ++i) needed = needed || call.inputs[i]->requires_grad();
  for (const Tensor& t : call.list) needed = needed || t.requires_grad();
  if (needed) hooks(std::string(op_name(call.op)).c_str()).record(call);
}

Tensor& Tensor::requires_grad_(bool on) {
  detail::check_defined("requires_grad_", {this});
  TensorImpl& i = impl();
  if (on) {
    WICK_CHECK(is_floating(i.dtype), DtypeError, "requires_grad_",
               "only floating-point tensors can require gradients, got ", describe(*this));
    if (!i.autograd) i.autograd = std::make_unique<AutogradMeta>();
  } else {
    WICK_CHECK(is_leaf(), AutogradError, "requires_grad_",
               "requires_grad can only be switched off on leaf tensors; use detach()");
  }
  i.requires_grad = on;
  return *this;
}

const Tensor& Tensor::grad() const {
  const TensorImpl& i = impl();
  return i.autograd ? i.autograd->grad : kUndefined;
}

Tensor& Tensor::mutable_grad() {
  TensorImpl& i = impl();
  if (!i.autograd) i.autograd = std::make_unique<AutogradMeta>();
  return i.autograd->grad;
}

bool Tensor::is_leaf() const {
  const TensorImpl& i = impl();
  return !i.autograd || !i.autograd->grad_fn;
}

const std::shared_ptr<Node>& Tensor::grad_fn() const {
  const TensorImpl& i = impl();
  return i.autograd ? i.autograd->grad_fn : kNoNode;
}

void Tensor::retain_grad() const {
  WICK_CHECK(requires_grad(), AutogradError, "retain_grad",
             "called on a tensor that does not require grad: ", describe(*this));
  impl().autograd->retains_grad = true;
}

void Tensor::backward(const Tensor& gradient, bool retain_graph) const {
  detail::check_defined("backward", {this});
  hooks("backward").backward(*this, gradient, retain_graph);
}

}  // namespace wick
