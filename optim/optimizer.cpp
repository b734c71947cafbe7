// optimizer.cpp: the Optimizer base: parameter checks, zero_grad, set_lr, and the generic
// state_dict / load_state_dict over each optimizer's named per-parameter buffers.
// Tested in tests/nn/test_optim.cpp.
#include <cmath>
#include <set>
#include <unordered_set>

#include "wick/autograd.hpp"
#include "wick/ops.hpp"
#include "wick/optim/optimizer.hpp"

namespace wick::optim {

using wick::detail::fail;

Optimizer::Optimizer(std::vector<Tensor> params, double lr, const char* name)
    : params_(std::move(params)), lr_(lr), name_(name) {
  WICK_CHECK(!params_.empty(), ValueError, name_, "got an empty parameter list");
  WICK_CHECK(lr >= 0, ValueError, name_, "invalid learning rate: ", lr);
  std::unordered_set<const TensorImpl*> seen;
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    WICK_CHECK(p.defined(), ValueError, name_, "parameter ", i, " is an undefined tensor");
    WICK_CHECK(p.is_floating_point(), DtypeError, name_, "parameter ", i, " ", describe(p),
               " is not floating point");
    WICK_CHECK(p.is_leaf(), ValueError, name_, "can't optimize a non-leaf tensor: parameter ", i,
               " ", describe(p));
    WICK_CHECK(seen.insert(p.unsafe_impl()).second, ValueError, name_, "parameter ", i,
               " appears more than once in the list");
  }
}

void Optimizer::zero_grad(bool set_to_none) {
  NoGradGuard no_grad;
  for (Tensor& p : params_) {
    if (!p.grad().defined()) continue;
    if (set_to_none) {
      p.mutable_grad() = Tensor();
    } else {
      p.mutable_grad().zero_();
    }
  }
}

void Optimizer::set_lr(double lr) {
  WICK_CHECK(lr >= 0, ValueError, name_, "invalid learning rate: ", lr);
  lr_ = lr;
}

std::map<std::string, Tensor> Optimizer::state_dict() const {
  std::map<std::string, Tensor> state;
  state["lr"] = scalar_tensor(lr_, TensorOptions(kFloat64));
  if (initial_lr_) state["initial_lr"] = scalar_tensor(*initial_lr_, TensorOptions(kFloat64));
  for (size_t i = 0; i < params_.size(); ++i) {
    for (const std::string& name : buffer_names()) {
      const Tensor& b = buffer(i, name);
      if (b.defined()) state["state." + std::to_string(i) + "." + name] = b.detach().clone();
    }
  }
  return state;
}

void Optimizer::load_state_dict(const std::map<std::string, Tensor>& state) {
  const std::vector<std::string> names = buffer_names();
  const std::set<std::string> known(names.begin(), names.end());
  auto lr_it = state.find("lr");
  WICK_CHECK(lr_it != state.end() && lr_it->second.defined() && lr_it->second.numel() == 1,
             ValueError, name_, "load_state_dict: the state has no scalar \"lr\"");
  const double lr = lr_it->second.item<double>();
  WICK_CHECK(lr >= 0, ValueError, name_, "load_state_dict: invalid learning rate ", lr);
  std::optional<double> initial_lr;
  if (auto it = state.find("initial_lr"); it != state.end()) {
    WICK_CHECK(it->second.defined() && it->second.numel() == 1, ValueError, name_,
               "load_state_dict: \"initial_lr\" must hold one value");
    initial_lr = it->second.item<double>();
    WICK_CHECK(*initial_lr >= 0, ValueError, name_, "load_state_dict: invalid initial_lr ",
               *initial_lr);
  }
  // Check and convert everything first, then install: all or nothing.
  std::vector<std::tuple<size_t, std::string, Tensor>> staged;
  NoGradGuard no_grad;
  for (const auto& [key, value] : state) {
    if (key == "lr" || key == "initial_lr") continue;
    // "state.<i>.<buffer>"
    const std::string prefix = "state.";
    const size_t dot = key.find('.', prefix.size());
    size_t index = 0;
    bool parsed = key.compare(0, prefix.size(), prefix) == 0 && dot != std::string::npos &&
                  dot > prefix.size();
    // Digits without a leading zero: "state.01.step" would alias "state.1.step".
    parsed = parsed && (dot == prefix.size() + 1 || key[prefix.size()] != '0');
    for (size_t c = prefix.size(); parsed && c < dot; ++c) {
      parsed = key[c] >= '0' && key[c] <= '9' && index < params_.size();
      index = index * 10 + static_cast<size_t>(key[c] - '0');
    }
    const std::string buffer_name = parsed ? key.substr(dot + 1) : "";
    if (!parsed || index >= params_.size() || known.count(buffer_name) == 0) {
      fail<ValueError>(name_, "load_state_dict: unexpected key \"", key, "\" for ", params_.size(),
                       " parameters");
    }
    WICK_CHECK(value.defined(), ValueError, name_, "load_state_dict: \"", key, "\" is undefined");
    const Tensor& p = params_[index];
    Tensor converted;
    if (buffer_name == "step") {
      WICK_CHECK(value.numel() == 1, ShapeError, name_, "load_state_dict: \"", key,
                 "\" must hold one value, got ", describe(value));
      // A state is written after a step: step 0 would make Adam's bias correction 1 - beta^0
      // = 0 and the update NaN (found by review). The value is checked as the file holds it
      // (PyTorch keeps a float step), before the conversion to int64 could wrap it.
      const double step = value.to(Device(kCPU), kFloat64).item<double>();
      WICK_CHECK(step >= 1 && step <= 0x1p53 && step == std::floor(step), ValueError, name_,
                 "load_state_dict: \"", key, "\" must be a whole number of steps, at least 1, got ",
                 step);
      converted = scalar_tensor(step, TensorOptions(kInt64));
    } else {
      WICK_CHECK(value.sizes() == p.sizes(), ShapeError, name_, "load_state_dict: \"", key,
                 "\" is ", describe(value), " but parameter ", index, " is ", describe(p));
      converted = value.to(p.device(), p.dtype()).clone();
    }
    staged.emplace_back(index, buffer_name, converted);
  }
  // A parameter's state is whole or absent: a step count without its moments would restart
  // them at zero under a late bias correction.
  std::vector<std::set<std::string>> present(params_.size());
  for (const auto& [index, name, value] : staged) present[index].insert(name);
  for (size_t i = 0; i < params_.size(); ++i) {
    if (present[i].empty()) continue;
    for (const std::string& name : names) {
      WICK_CHECK(present[i].count(name) == 1, ValueError, name_, "load_state_dict: parameter ", i,
                 " has a state without \"state.", i, ".", name, "\"");
    }
  }
  for (size_t i = 0; i < params_.size(); ++i) {
    for (const std::string& name : names) buffer(i, name) = Tensor();
  }
  for (auto& [index, name, value] : staged) buffer(index, name) = value;
  lr_ = lr;
  initial_lr_ = initial_lr;
}

void Optimizer::check_grads() const {
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    const Tensor& g = p.grad();
    if (!g.defined()) continue;
    WICK_CHECK(g.sizes() == p.sizes(), ShapeError, name_, "parameter ", i, " ", describe(p),
               " has a gradient of ", describe(g), "; a gradient must have its parameter's sizes");
    WICK_CHECK(g.dtype() == p.dtype(), DtypeError, name_, "parameter ", i, " ", describe(p),
               " has a gradient of ", describe(g), "; a gradient must have its parameter's dtype");
    WICK_CHECK(g.device() == p.device(), DeviceError, name_, "parameter ", i, " ", describe(p),
               " has a gradient of ", describe(g),
               "; a gradient must be on its parameter's device");
  }
}

void Optimizer::for_each_gradient(
    const std::function<void(size_t, Tensor&, const Tensor&)>& update) {
  NoGradGuard no_grad;
  check_grads();
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = params_[i];
    const Tensor& grad = p.grad();
    if (grad.defined()) update(i, p, grad);
  }
}

int64_t detail::count_step(Tensor& step) {
  if (!step.defined()) step = zeros({}, TensorOptions(kInt64));
  return ++*step.data_ptr<int64_t>();
}

Tensor& detail::follow(Tensor& state, const Tensor& param) {
  if (state.device() != param.device() || state.dtype() != param.dtype()) {
    state = state.to(param.device(), param.dtype());
  }
  return state;
}

}  // namespace wick::optim
