// sgd.cpp: SGD's step, the update of torch.optim.SGD written with in-place tensor ops (the
// formula is in sgd.hpp). Tested in tests/nn/test_optim.cpp and tests/nn/test_parity.cpp.
#include "wick/optim/sgd.hpp"

#include "wick/autograd.hpp"
#include "wick/ops.hpp"

namespace wick::optim {

SGD::SGD(std::vector<Tensor> params, SGDOptions options)
    : Optimizer(std::move(params), options.lr(), "SGD"), options_(options) {
  WICK_CHECK(options.momentum() >= 0, ValueError, "SGD",
             "invalid momentum value: ", options.momentum());
  WICK_CHECK(options.weight_decay() >= 0, ValueError, "SGD",
             "invalid weight_decay value: ", options.weight_decay());
  WICK_CHECK(!options.nesterov() || (options.momentum() > 0 && options.dampening() == 0),
             ValueError, "SGD", "nesterov momentum requires a momentum and zero dampening, got ",
             "momentum ", options.momentum(), " and dampening ", options.dampening());
  momentum_buffers_.resize(params_.size());
}

Tensor& SGD::buffer(size_t i, const std::string&) { return momentum_buffers_[i]; }

void SGD::step() {
  const double momentum = options_.momentum(), dampening = options_.dampening();
  const double weight_decay = options_.weight_decay();
  for_each_gradient([&](size_t i, Tensor& p, const Tensor& grad) {
    Tensor d = weight_decay != 0 ? grad.add(p, weight_decay) : grad;
    if (momentum != 0) {
      Tensor& buf = momentum_buffers_[i];
      if (!buf.defined()) {
        buf = d.clone();
      } else {
        detail::follow(buf, p).mul_(momentum).add_(d, 1 - dampening);
      }
      d = options_.nesterov() ? d.add(buf, momentum) : buf;
    }
    p.add_(d, -lr_);
  });
}

}  // namespace wick::optim
