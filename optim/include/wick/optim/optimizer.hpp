// optimizer.hpp: the Optimizer base: the parameter list (handles, so parameters moved by
// Module::to are still seen), the learning rate, zero_grad, and state save/restore as named
// tensors (so wick::save / wick::load_tensors can checkpoint it). One parameter group, as the
// API asks; set_lr() is the hook for schedules. Tested in tests/nn/test_optim.cpp.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "wick/tensor.hpp"

namespace wick::optim {

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every parameter that has a gradient (others are skipped, as in PyTorch).
  // Runs under NoGradGuard with in-place ops, on the parameters' device.
  virtual void step() = 0;
  // set_to_none (the default, as PyTorch 2): gradients become undefined; else they are zeroed.
  void zero_grad(bool set_to_none = true);

  double lr() const { return lr_; }
  void set_lr(double lr);
  // PyTorch's group["initial_lr"]: the rate when the first scheduler was made for this
  // optimizer, the base rate of every scheduler made for it (so chained schedules share one
  // base, as in torch). Unset until a scheduler is made; saved by state_dict().
  std::optional<double> initial_lr() const { return initial_lr_; }
  const std::vector<Tensor>& parameters() const { return params_; }

  // The optimizer's state as named tensors: "lr" (0-dim float64), "initial_lr" once a
  // scheduler has set it, and, per parameter index i, "state.<i>.<buffer>" (momentum_buffer;
  // step, exp_avg, exp_avg_sq, max_exp_avg_sq).
  std::map<std::string, Tensor> state_dict() const;
  // Restores a state_dict() of an optimizer of the same kind over parameters of the same
  // shapes; buffers move to each parameter's device and dtype. Unknown keys, out-of-range
  // indices or wrong shapes are a wick::Error, and then nothing is changed.
  void load_state_dict(const std::map<std::string, Tensor>& state);

 protected:
  Optimizer(std::vector<Tensor> params, double lr, const char* name);
  // The per-parameter buffer names this optimizer keeps (for load_state_dict's checks).
  virtual std::vector<std::string> buffer_names() const = 0;
  // The buffer `name` of parameter i (an undefined Tensor until the first step creates it).
  virtual Tensor& buffer(size_t i, const std::string& name) = 0;
  const Tensor& buffer(size_t i, const std::string& name) const {
    return const_cast<Optimizer*>(this)->buffer(i, name);
  }

  // Throws, naming the optimizer and the parameter, where a gradient's sizes, dtype or device
  // differ from its parameter's (a .grad() set by hand: PyTorch checks it on assignment).
  // step() calls it before it changes anything, so a failed step changes nothing.
  void check_grads() const;
  // A step's loop: under NoGradGuard and after check_grads(), update(i, param, grad) for every
  // parameter that has a gradient, in order.
  void for_each_gradient(const std::function<void(size_t, Tensor&, const Tensor&)>& update);

  std::vector<Tensor> params_;
  double lr_;
  std::optional<double> initial_lr_;  // set once, by the first LRScheduler (see initial_lr())
  friend class LRScheduler;
  const char* name_;  // "SGD", "Adam", "AdamW": for error messages
};

namespace detail {
// Brings a state buffer to its parameter's device and dtype (after Module::to) and returns it.
Tensor& follow(Tensor& state, const Tensor& param);
// A parameter's step counter (a 0-dim int64 CPU tensor, made at 0 when undefined) plus one;
// returns the new count.
int64_t count_step(Tensor& step);
}  // namespace detail

}  // namespace wick::optim
