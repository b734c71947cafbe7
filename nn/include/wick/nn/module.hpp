// module.hpp: wick::nn::Module, the base of every layer, and ModuleHolder, the handle that user
// code passes around (libtorch's pimpl idea: nn::Linear is a handle to an nn::LinearImpl).
// Note [Modules are handles]: a Module keeps its registry (parameters, children, training flag)
// behind a shared_ptr, so copying a Module, or a holder, shares parameters and children.
// Note [to() keeps identity]: to(device/dtype) swaps each parameter's storage inside its
// TensorImpl, so every Tensor handle to a parameter (an optimizer's list, a layer's `weight`
// member) sees the moved data. Tested in tests/nn/test_module.cpp.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "wick/tensor.hpp"

namespace wick::nn {

class Module;

namespace detail {
struct ModuleState;  // the registry every copy of a Module shares
}  // namespace detail

// A (name, tensor) pair as named_parameters() returns it, in registration order.
using NamedTensor = std::pair<std::string, Tensor>;
using NamedModule = std::pair<std::string, std::shared_ptr<Module>>;

class Module {
 public:
  Module();
  virtual ~Module();
  // Copies (and moves, which copy) share the registry: Note [Modules are handles].
  Module(const Module&) = default;
  Module& operator=(const Module&) = default;

  // Registers `tensor` as parameter `name` (a leaf; requires_grad_ is set as asked) and returns
  // a reference to the stored handle. Names are unique, non-empty and contain no '.'.
  Tensor& register_parameter(const std::string& name, Tensor tensor, bool requires_grad = true);
  // Registers `tensor` as buffer `name`: state that is not trained (running statistics, a loss's
  // class weights) but moves with to(), is saved and loaded with the parameters, and is listed
  // by named_buffers(). Stored detached; it never requires grad. Returns the stored handle.
  Tensor& register_buffer(const std::string& name, Tensor tensor);

  // Registers a submodule and returns the handle it was given, so that a member can be
  // initialised in place: linear(register_module("linear", nn::Linear(10, 1))).
  template <typename Holder>
  requires requires {
    typename Holder::Impl;
  } && std::derived_from<typename Holder::Impl, Module> Holder
  register_module(const std::string& name, Holder holder) {
    add_child(name, holder.ptr());
    return holder;
  }
  template <typename ModuleType>
  requires std::derived_from<ModuleType, Module> std::shared_ptr<ModuleType> register_module(
      const std::string& name, std::shared_ptr<ModuleType> module) {
    add_child(name, module);
    return module;
  }

  // Parameters of this module, then of each child in registration order, depth first; names
  // are dotted paths ("linear.weight", "0.bias"), as PyTorch's state_dict keys. A tensor
  // registered twice (shared weights) appears once, under its first name.
  std::vector<Tensor> parameters(bool recurse = true) const;
  std::vector<NamedTensor> named_parameters(bool recurse = true) const;
  // Buffers, walked and named as the parameters are.
  std::vector<Tensor> buffers(bool recurse = true) const;
  std::vector<NamedTensor> named_buffers(bool recurse = true) const;
  // Direct children, in registration order.
  std::vector<std::shared_ptr<Module>> children() const;
  std::vector<NamedModule> named_children() const;

  // Moves (or casts) every parameter, its gradient and every buffer, in place: Note [to() keeps
  // identity]. All-or-nothing: if one copy fails (e.g. CUDA asked of a CPU-only build), nothing
  // changes. As in PyTorch, the dtype must be floating (else a DtypeError), and a cast leaves
  // integer and bool parameters and buffers as they are.
  void to(Device device);
  void to(Dtype dtype);
  void to(Device device, Dtype dtype);

  // Training mode, for this module and every descendant (no layer here behaves differently yet,
  // but user modules may read is_training()).
  void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const;

  // Sets every parameter's gradient to undefined (PyTorch 2's set_to_none=True).
  void zero_grad();

  // The module's type name as printed: "Linear", or the user's class name.
  std::string name() const;
  // One line of details inside the parentheses of the printed form: "in_features=10, ...".
  virtual std::string extra_repr() const { return ""; }

 private:
  void add_child(const std::string& name, std::shared_ptr<Module> child);
  void apply_to(std::optional<Device> device, std::optional<Dtype> dtype);
  std::vector<NamedTensor> named_tensors(bool buffers, bool recurse) const;

  std::shared_ptr<detail::ModuleState> state_;
};

// Prints the module tree as PyTorch does: "Sequential(\n  (0): Linear(in_features=2, ...)\n)".
std::ostream& operator<<(std::ostream& out, const Module& module);

// The handle to a module implementation. Copies share the Impl. Calling the handle runs
// Impl::forward. Default-constructible only when Impl is (nn::ReLU relu;); nullptr gives an
// empty handle to fill later.
template <typename ImplType>
class ModuleHolder {
 public:
  using Impl = ImplType;

  ModuleHolder() requires std::is_default_constructible_v<Impl> : impl_(std::make_shared<Impl>()) {}
  ModuleHolder(std::nullptr_t) {}  // NOLINT: an empty handle, as libtorch's Linear linear{nullptr}
  ModuleHolder(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}  // NOLINT
  // Builds a new Impl from the arguments: nn::Linear(10, 1).
  template <typename Head, typename... Tail>
  requires(!std::is_same_v<std::remove_cvref_t<Head>, ModuleHolder> &&
           !std::is_same_v<std::remove_cvref_t<Head>, std::nullptr_t> &&
           !std::is_same_v<std::remove_cvref_t<Head>, std::shared_ptr<Impl>> &&
           std::is_constructible_v<Impl, Head, Tail...>) explicit(sizeof...(Tail) == 0)
      ModuleHolder(Head&& head, Tail&&... tail)
      : impl_(std::make_shared<Impl>(std::forward<Head>(head), std::forward<Tail>(tail)...)) {}

  Impl* operator->() const { return &impl(); }
  Impl& operator*() const { return impl(); }
  Impl* get() const { return impl_.get(); }
  const std::shared_ptr<Impl>& ptr() const { return impl_; }
  bool is_empty() const { return impl_ == nullptr; }

  template <typename... Args>
  decltype(auto) operator()(Args&&... args) const {
    return impl().forward(std::forward<Args>(args)...);
  }
  // Indexes containers: sequential[0], list[i] (as libtorch's handles do).
  template <typename Index>
  requires requires(Impl& m, Index i) { m[i]; }
  decltype(auto) operator[](Index index) const { return impl()[index]; }

 private:
  Impl& impl() const {
    WICK_CHECK(impl_ != nullptr, ValueError, "nn::ModuleHolder",
               "use of an empty module handle (constructed from nullptr)");
    return *impl_;
  }
  std::shared_ptr<Impl> impl_;
};

template <typename Impl>
std::ostream& operator<<(std::ostream& out, const ModuleHolder<Impl>& holder) {
  return out << *holder;
}

}  // namespace wick::nn

// WICK_MODULE(Linear) declares the handle class Linear for LinearImpl (libtorch's TORCH_MODULE).
#define WICK_MODULE(Name)                                     \
  class Name : public ::wick::nn::ModuleHolder<Name##Impl> {  \
   public:                                                    \
    using ::wick::nn::ModuleHolder<Name##Impl>::ModuleHolder; \
  }
