// adam.cpp: the step shared by Adam and AdamW (formulas in adam.hpp), as torch.optim's
// single-tensor path: per-parameter step counts, bias corrections computed in double on the
// host, amsgrad's running maximum of exp_avg_sq. Tested in tests/nn/test_optim.cpp and
// tests/nn/test_parity.cpp.
#include "wick/optim/adam.hpp"

#include <cmath>

#include "wick/autograd.hpp"
#include "wick/ops.hpp"

namespace wick::optim {

namespace {
template <typename Options>
void check_adam_options(const Options& o, const char* name) {
  const auto [beta1, beta2] = o.betas();
  WICK_CHECK(o.eps() >= 0, ValueError, name, "invalid epsilon value: ", o.eps());
  WICK_CHECK(beta1 >= 0 && beta1 < 1, ValueError, name,
             "invalid beta parameter at index 0: ", beta1);
  WICK_CHECK(beta2 >= 0 && beta2 < 1, ValueError, name,
             "invalid beta parameter at index 1: ", beta2);
  WICK_CHECK(o.weight_decay() >= 0, ValueError, name,
             "invalid weight_decay value: ", o.weight_decay());
}
}  // namespace

detail::AdamCore::AdamCore(std::vector<Tensor> params, double lr, Settings settings,
                           const char* name)
    : Optimizer(std::move(params), lr, name), settings_(settings) {
  state_.resize(params_.size());
}

std::vector<std::string> detail::AdamCore::buffer_names() const {
  std::vector<std::string> names{"step", "exp_avg", "exp_avg_sq"};
  if (settings_.amsgrad) names.push_back("max_exp_avg_sq");
  return names;
}

Tensor& detail::AdamCore::buffer(size_t i, const std::string& name) {
  State& s = state_[i];
  if (name == "step") return s.step;
  if (name == "exp_avg") return s.exp_avg;
  if (name == "exp_avg_sq") return s.exp_avg_sq;
  return s.max_exp_avg_sq;
}

void detail::AdamCore::step() {
  const Settings& c = settings_;
  for_each_gradient([&](size_t i, Tensor& p, const Tensor& grad) {
    State& s = state_[i];
    if (!s.exp_avg.defined()) s.exp_avg = zeros_like(p);
    if (!s.exp_avg_sq.defined()) s.exp_avg_sq = zeros_like(p);
    if (c.amsgrad && !s.max_exp_avg_sq.defined()) s.max_exp_avg_sq = zeros_like(p);
    const int64_t t = count_step(s.step);

    Tensor g = grad;
    if (c.weight_decay != 0) {
      if (c.decoupled) {
        p.mul_(1 - lr_ * c.weight_decay);
      } else {
        g = g.add(p, c.weight_decay);
      }
    }
    Tensor& exp_avg = follow(s.exp_avg, p);
    Tensor& exp_avg_sq = follow(s.exp_avg_sq, p);
    exp_avg.mul_(c.beta1).add_(g, 1 - c.beta1);
    exp_avg_sq.mul_(c.beta2).add_(g * g, 1 - c.beta2);
    const double bias_correction1 = 1 - std::pow(c.beta1, static_cast<double>(t));
    const double bias_correction2 = 1 - std::pow(c.beta2, static_cast<double>(t));
    const double step_size = lr_ / bias_correction1;
    const double bias_correction2_sqrt = std::sqrt(bias_correction2);
    Tensor second = exp_avg_sq;
    if (c.amsgrad) {
      Tensor& max_sq = follow(s.max_exp_avg_sq, p);
      max_sq.copy_(maximum(max_sq, exp_avg_sq));
      second = max_sq;
    }
    Tensor denom = second.sqrt().div_(bias_correction2_sqrt).add_(c.eps);
    p.add_(exp_avg / denom, -step_size);
  });
}

Adam::Adam(std::vector<Tensor> params, AdamOptions options)
    : AdamCore(std::move(params), options.lr(),
               Settings{std::get<0>(options.betas()), std::get<1>(options.betas()), options.eps(),
                        options.weight_decay(), options.amsgrad(), false},
               "Adam"),
      options_(options) {
  check_adam_options(options, "Adam");
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions options)
    : AdamCore(std::move(params), options.lr(),
               Settings{std::get<0>(options.betas()), std::get<1>(options.betas()), options.eps(),
                        options.weight_decay(), options.amsgrad(), true},
               "AdamW"),
      options_(options) {
  check_adam_options(options, "AdamW");
}

}  // namespace wick::optim
