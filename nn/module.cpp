// module.cpp: Module's shared registry, the recursive walks (parameters, children, train,
// zero_grad), the in-place to() of Note [to() keeps identity], and PyTorch-style printing.
// Tested in tests/nn/test_module.cpp.
#include <cxxabi.h>

#include <cstdlib>
#include <functional>
#include <optional>
#include <sstream>
#include <typeinfo>
#include <unordered_set>

#include "wick/autograd.hpp"
#include "wick/nn/module.hpp"

namespace wick::nn {

namespace detail {
struct ModuleState {
  std::vector<NamedTensor> parameters;
  std::vector<NamedTensor> buffers;
  std::vector<NamedModule> children;
  bool training = true;
};
}  // namespace detail

namespace {

void check_name(const std::string& name, const detail::ModuleState& state, const char* op) {
  WICK_CHECK(!name.empty(), ValueError, op, "the name must not be empty");
  WICK_CHECK(name.find('.') == std::string::npos, ValueError, op, "the name '", name,
             "' must not contain '.' (dots join the names of nested modules)");
  for (const auto& [existing, tensor] : state.parameters) {
    WICK_CHECK(existing != name, ValueError, op, "a parameter named '", name,
               "' is already registered");
  }
  for (const auto& [existing, tensor] : state.buffers) {
    WICK_CHECK(existing != name, ValueError, op, "a buffer named '", name,
               "' is already registered");
  }
  for (const auto& [existing, child] : state.children) {
    WICK_CHECK(existing != name, ValueError, op, "a submodule named '", name,
               "' is already registered");
  }
}

}  // namespace

Module::Module() : state_(std::make_shared<detail::ModuleState>()) {}
Module::~Module() = default;

Tensor& Module::register_parameter(const std::string& name, Tensor tensor, bool requires_grad) {
  check_name(name, *state_, "register_parameter");
  WICK_CHECK(tensor.defined(), ValueError, "register_parameter", "parameter '", name,
             "' is an undefined tensor");
  WICK_CHECK(tensor.is_leaf(), ValueError, "register_parameter", "parameter '", name,
             "' is not a leaf (it was computed from tensors that require grad): ", describe(tensor),
             "; register tensor.detach() instead");
  if (tensor.requires_grad() != requires_grad) tensor.requires_grad_(requires_grad);
  state_->parameters.emplace_back(name, std::move(tensor));
  return state_->parameters.back().second;
}

Tensor& Module::register_buffer(const std::string& name, Tensor tensor) {
  check_name(name, *state_, "register_buffer");
  WICK_CHECK(tensor.defined(), ValueError, "register_buffer", "buffer '", name,
             "' is an undefined tensor");
  state_->buffers.emplace_back(name, tensor.detach());
  return state_->buffers.back().second;
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> child) {
  check_name(name, *state_, "register_module");
  WICK_CHECK(child != nullptr, ValueError, "register_module", "submodule '", name,
             "' is an empty handle");
  // A module may not contain itself: the walks below would never end.
  std::vector<const Module*> stack{child.get()};
  while (!stack.empty()) {
    const Module* m = stack.back();
    stack.pop_back();
    WICK_CHECK(m->state_ != state_, ValueError, "register_module", "submodule '", name,
               "' contains the module it is being registered in (a cycle)");
    for (const auto& [n, c] : m->state_->children) stack.push_back(c.get());
  }
  state_->children.emplace_back(name, std::move(child));
}

std::vector<NamedTensor> Module::named_tensors(bool buffers, bool recurse) const {
  std::vector<NamedTensor> result;
  std::unordered_set<const TensorImpl*> seen;
  std::function<void(const Module&, const std::string&)> walk = [&](const Module& m,
                                                                    const std::string& prefix) {
    for (const auto& [name, tensor] : buffers ? m.state_->buffers : m.state_->parameters) {
      if (seen.insert(tensor.unsafe_impl()).second) result.emplace_back(prefix + name, tensor);
    }
    if (!recurse) return;
    for (const auto& [name, child] : m.state_->children) walk(*child, prefix + name + ".");
  };
  walk(*this, "");
  return result;
}

std::vector<NamedTensor> Module::named_parameters(bool recurse) const {
  return named_tensors(/*buffers=*/false, recurse);
}

std::vector<NamedTensor> Module::named_buffers(bool recurse) const {
  return named_tensors(/*buffers=*/true, recurse);
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> result;
  for (auto& [name, tensor] : named_parameters(recurse)) result.push_back(std::move(tensor));
  return result;
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  std::vector<Tensor> result;
  for (auto& [name, tensor] : named_buffers(recurse)) result.push_back(std::move(tensor));
  return result;
}

std::vector<NamedModule> Module::named_children() const { return state_->children; }

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> result;
  for (const auto& [name, child] : state_->children) result.push_back(child);
  return result;
}

void Module::to(Device device) { apply_to(device, std::nullopt); }
void Module::to(Dtype dtype) { apply_to(std::nullopt, dtype); }
void Module::to(Device device, Dtype dtype) { apply_to(device, dtype); }

void Module::apply_to(std::optional<Device> device, std::optional<Dtype> dtype) {
  const char* op = "Module::to";
  // As PyTorch's Module.to: only a floating dtype, whatever the module holds (an integer one
  // was taken by modules whose parameters did not require grad: found by review).
  WICK_CHECK(!dtype || is_floating(*dtype), DtypeError, op,
             "takes floating-point dtypes only, got ", *dtype, " for ", name());
  NoGradGuard no_grad;
  std::vector<Tensor> params = parameters();
  for (Tensor& b : buffers()) params.push_back(std::move(b));
  // Phase 1: make every copy. Nothing is changed yet, so a failure leaves the module as it was.
  std::vector<Tensor> moved(params.size()), moved_grads(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    const Device target_device = device.value_or(p.device());
    // PyTorch's Module.to(dtype) casts floating tensors only: an integer or bool parameter or
    // buffer (indices, counts) keeps its dtype.
    const Dtype target_dtype = is_floating(p.dtype()) ? dtype.value_or(p.dtype()) : p.dtype();
    moved[i] = p.detach().to(target_device, target_dtype);
    if (p.grad().defined()) moved_grads[i] = p.grad().to(target_device, target_dtype);
  }
  // Phase 2: swap storage and layout inside each TensorImpl (no allocation, cannot fail).
  for (size_t i = 0; i < params.size(); ++i) {
    TensorImpl& dst = params[i].impl();
    const TensorImpl& src = moved[i].impl();
    if (&dst != &src) {
      dst.storage = src.storage;
      dst.sizes = src.sizes;
      dst.strides = src.strides;
      dst.offset = src.offset;
      dst.dtype = src.dtype;
    }
    if (moved_grads[i].defined()) params[i].mutable_grad() = moved_grads[i];
  }
}

void Module::train(bool on) {
  state_->training = on;
  for (const auto& [name, child] : state_->children) child->train(on);
}

bool Module::is_training() const { return state_->training; }

void Module::zero_grad() {
  for (Tensor& p : parameters()) {
    if (p.grad().defined()) p.mutable_grad() = Tensor();
  }
}

std::string Module::name() const {
  const char* mangled = typeid(*this).name();
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string full = status == 0 && demangled != nullptr ? demangled : mangled;
  std::free(demangled);
  // Drop namespaces (outside template arguments) and the Impl suffix of a holder's class.
  const size_t angle = full.find('<');
  const size_t colons = full.rfind("::", angle);
  std::string result = colons == std::string::npos ? full : full.substr(colons + 2);
  const std::string suffix = "Impl";
  if (result.size() > suffix.size() &&
      result.compare(result.size() - suffix.size(), suffix.size(), suffix) == 0) {
    result.resize(result.size() - suffix.size());
  }
  return result;
}

namespace {
void print_module(std::ostream& out, const Module& module, const std::string& indent) {
  out << module.name() << "(";
  const auto children = module.named_children();
  if (children.empty()) {
    out << module.extra_repr() << ")";
    return;
  }
  const std::string inner = indent + "  ";
  if (!module.extra_repr().empty()) out << "\n" << inner << module.extra_repr();
  for (const auto& [name, child] : children) {
    out << "\n" << inner << "(" << name << "): ";
    print_module(out, *child, inner);
  }
  out << "\n" << indent << ")";
}
}  // namespace

std::ostream& operator<<(std::ostream& out, const Module& module) {
  print_module(out, module, "");
  return out;
}

}  // namespace wick::nn
