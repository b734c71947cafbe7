// rmsprop.cpp: RMSprop's step, torch.optim.RMSprop's single-tensor update written with in-place
// tensor ops (the formula is in rmsprop.hpp). Tested in tests/nn/test_optim.cpp.
#include "wick/optim/rmsprop.hpp"

#include "wick/autograd.hpp"
#include "wick/ops.hpp"

namespace wick::optim {

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions options)
    : Optimizer(std::move(params), options.lr(), "RMSprop"), options_(options) {
  WICK_CHECK(options.eps() >= 0, ValueError, name_, "invalid epsilon value: ", options.eps());
  WICK_CHECK(options.momentum() >= 0, ValueError, name_,
             "invalid momentum value: ", options.momentum());
  WICK_CHECK(options.weight_decay() >= 0, ValueError, name_,
             "invalid weight_decay value: ", options.weight_decay());
  WICK_CHECK(options.alpha() >= 0, ValueError, name_, "invalid alpha value: ", options.alpha());
  state_.resize(params_.size());
}

std::vector<std::string> RMSprop::buffer_names() const {
  std::vector<std::string> names{"step", "square_avg"};
  if (options_.momentum() > 0) names.push_back("momentum_buffer");
  if (options_.centered()) names.push_back("grad_avg");
  return names;
}

Tensor& RMSprop::buffer(size_t i, const std::string& name) {
  State& s = state_[i];
  if (name == "step") return s.step;
  if (name == "square_avg") return s.square_avg;
  if (name == "momentum_buffer") return s.momentum_buffer;
  return s.grad_avg;
}

void RMSprop::step() {
  const RMSpropOptions& o = options_;
  for_each_gradient([&](size_t i, Tensor& p, const Tensor& grad) {
    State& s = state_[i];
    if (!s.square_avg.defined()) s.square_avg = zeros_like(p);
    if (o.momentum() > 0 && !s.momentum_buffer.defined()) s.momentum_buffer = zeros_like(p);
    if (o.centered() && !s.grad_avg.defined()) s.grad_avg = zeros_like(p);
    detail::count_step(s.step);

    const Tensor g = o.weight_decay() != 0 ? grad.add(p, o.weight_decay()) : grad;
    Tensor& square_avg = detail::follow(s.square_avg, p);
    square_avg.mul_(o.alpha()).add_(g * g, 1 - o.alpha());
    Tensor avg;
    if (o.centered()) {
      Tensor& grad_avg = detail::follow(s.grad_avg, p);
      grad_avg.mul_(o.alpha()).add_(g, 1 - o.alpha());
      avg = square_avg.sub(grad_avg * grad_avg).sqrt();
    } else {
      avg = square_avg.sqrt();
    }
    avg.add_(o.eps());
    if (o.momentum() > 0) {
      Tensor& buf = detail::follow(s.momentum_buffer, p);
      buf.mul_(o.momentum()).add_(g / avg);
      p.add_(buf, -lr_);
    } else {
      p.add_(g / avg, -lr_);
    }
  });
}

}  // namespace wick::optim
