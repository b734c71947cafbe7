// adagrad.cpp: Adagrad's step, torch.optim.Adagrad's single-tensor update written with in-place
// tensor ops (the formula is in adagrad.hpp). The sum starts at initial_accumulator_value at
// the parameter's first step (PyTorch fills it in the constructor; the values are the same).
// Tested in tests/nn/test_optim.cpp.
#include "wick/optim/adagrad.hpp"

#include "wick/autograd.hpp"
#include "wick/ops.hpp"

namespace wick::optim {

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions options)
    : Optimizer(std::move(params), options.lr(), "Adagrad"), options_(options) {
  WICK_CHECK(options.lr_decay() >= 0, ValueError, name_,
             "invalid lr_decay value: ", options.lr_decay());
  WICK_CHECK(options.weight_decay() >= 0, ValueError, name_,
             "invalid weight_decay value: ", options.weight_decay());
  WICK_CHECK(options.initial_accumulator_value() >= 0, ValueError, name_,
             "invalid initial_accumulator_value value: ", options.initial_accumulator_value());
  WICK_CHECK(options.eps() >= 0, ValueError, name_, "invalid epsilon value: ", options.eps());
  state_.resize(params_.size());
}

Tensor& Adagrad::buffer(size_t i, const std::string& name) {
  return name == "step" ? state_[i].step : state_[i].sum;
}

void Adagrad::step() {
  const AdagradOptions& o = options_;
  for_each_gradient([&](size_t i, Tensor& p, const Tensor& grad) {
    State& s = state_[i];
    if (!s.sum.defined()) s.sum = full_like(p, o.initial_accumulator_value());
    const int64_t t = detail::count_step(s.step);

    const Tensor g = o.weight_decay() != 0 ? grad.add(p, o.weight_decay()) : grad;
    const double clr = lr_ / (1 + static_cast<double>(t - 1) * o.lr_decay());
    Tensor& sum = detail::follow(s.sum, p);
    sum.add_(g * g);
    p.add_(g / sum.sqrt().add_(o.eps()), -clr);
  });
}

}  // namespace wick::optim
