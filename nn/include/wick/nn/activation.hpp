// activation.hpp: the rest of torch.nn's activations: ELU, SELU, CELU, Softplus, Hardtanh,
// ReLU6, Mish, LogSigmoid, Hardswish, Hardsigmoid, Softsign, Tanhshrink, Threshold, GLU,
// Softmin and PReLU, each a functional:: function and an Impl class with its handle (WICK_MODULE).
// (ReLU, Sigmoid, Tanh, GELU, SiLU, LeakyReLU, Softmax and LogSoftmax are in layers.hpp.) All are
// composites of autograd-aware ops, written so that
//  - their values are PyTorch's, NaN passing through as there;
//  - their gradients are PyTorch's at the kinks too (hardtanh and relu6 give 0 at their
//    bounds, hardswish -0.5 at -3 and 1 at 3, as its hand-written backward does);
//  - no branch that where() discards can overflow and turn its zero gradient into NaN
//    (softplus, mish and logsigmoid never take exp of a large argument).
// Floating inputs only (integers and bool are a DtypeError, as gelu's). Checked against
// python3-torch 1.13 in tests/nn/test_activation.cpp (activation_golden.inc).
#pragma once

#include <string>

#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

namespace functional {
// x where x > 0, alpha (exp(x) - 1) elsewhere (computed as alpha expm1(x)).
Tensor elu(const Tensor& input, double alpha = 1.0);
// scale elu(x, alpha) with PyTorch's constants (alpha 1.6732632423543772, scale
// 1.0507009873554805).
Tensor selu(const Tensor& input);
// max(0, x) + min(0, alpha (exp(x / alpha) - 1)); alpha 0 is a ValueError.
Tensor celu(const Tensor& input, double alpha = 1.0);
// log(1 + exp(beta x)) / beta, and x itself where beta x > threshold.
Tensor softplus(const Tensor& input, double beta = 1.0, double threshold = 20.0);
// x clamped to [min_val, max_val] (min_val > max_val is a ValueError); relu6 is [0, 6].
Tensor hardtanh(const Tensor& input, double min_val = -1.0, double max_val = 1.0);
Tensor relu6(const Tensor& input);
// x tanh(softplus(x)).
Tensor mish(const Tensor& input);
// log(sigmoid(x)) = -softplus(-x).
Tensor logsigmoid(const Tensor& input);
// x relu6(x + 3) / 6 and relu6(x + 3) / 6.
Tensor hardswish(const Tensor& input);
Tensor hardsigmoid(const Tensor& input);
// x / (1 + |x|) and x - tanh(x).
Tensor softsign(const Tensor& input);
Tensor tanhshrink(const Tensor& input);
// x where x > threshold, value elsewhere (NaN passes).
Tensor threshold(const Tensor& input, double threshold, double value);
// The gated linear unit: a * sigmoid(b), with a and b the two halves of input along dim (whose
// size must be even: else a ShapeError).
Tensor glu(const Tensor& input, int64_t dim = -1);
// softmax(-x) over dim.
Tensor softmin(const Tensor& input, int64_t dim);
// max(0, x) + weight * min(0, x), weight one value ([1]) or one per channel ([C], input
// [N, C, ...]); its gradient at 0 is weight's side, as PyTorch's.
Tensor prelu(const Tensor& input, const Tensor& weight);
}  // namespace functional

// Each module holds its options and calls its functional form.
class ELUImpl : public Module {
 public:
  explicit ELUImpl(double alpha = 1.0) : alpha_(alpha) {}
  Tensor forward(const Tensor& input) const { return functional::elu(input, alpha_); }
  std::string extra_repr() const override;

 private:
  double alpha_;
};
WICK_MODULE(ELU);

class SELUImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const { return functional::selu(input); }
};
WICK_MODULE(SELU);

class CELUImpl : public Module {
 public:
  explicit CELUImpl(double alpha = 1.0);
  Tensor forward(const Tensor& input) const { return functional::celu(input, alpha_); }
  std::string extra_repr() const override;

 private:
  double alpha_;
};
WICK_MODULE(CELU);

class SoftplusImpl : public Module {
 public:
  explicit SoftplusImpl(double beta = 1.0, double threshold = 20.0)
      : beta_(beta), threshold_(threshold) {}
  Tensor forward(const Tensor& input) const {
    return functional::softplus(input, beta_, threshold_);
  }
  std::string extra_repr() const override;

 private:
  double beta_, threshold_;
};
WICK_MODULE(Softplus);

class HardtanhImpl : public Module {
 public:
  explicit HardtanhImpl(double min_val = -1.0, double max_val = 1.0);
  Tensor forward(const Tensor& input) const {
    return functional::hardtanh(input, min_val_, max_val_);
  }
  std::string extra_repr() const override;

 private:
  double min_val_, max_val_;
};
WICK_MODULE(Hardtanh);

class ReLU6Impl : public Module {
 public:
  Tensor forward(const Tensor& input) const { return functional::relu6(input); }
};
WICK_MODULE(ReLU6);

class MishImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const { return functional::mish(input); }
};
WICK_MODULE(Mish);

class LogSigmoidImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const { return functional::logsigmoid(input); }
};
WICK_MODULE(LogSigmoid);

class HardswishImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const { return functional::hardswish(input); }
};
WICK_MODULE(Hardswish);

class HardsigmoidImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const { return functional::hardsigmoid(input); }
};
WICK_MODULE(Hardsigmoid);

class SoftsignImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const { return functional::softsign(input); }
};
WICK_MODULE(Softsign);

class TanhshrinkImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const { return functional::tanhshrink(input); }
};
WICK_MODULE(Tanhshrink);

class ThresholdImpl : public Module {
 public:
  ThresholdImpl(double threshold, double value) : threshold_(threshold), value_(value) {}
  Tensor forward(const Tensor& input) const {
    return functional::threshold(input, threshold_, value_);
  }
  std::string extra_repr() const override;

 private:
  double threshold_, value_;
};
WICK_MODULE(Threshold);

class GLUImpl : public Module {
 public:
  explicit GLUImpl(int64_t dim = -1) : dim_(dim) {}
  Tensor forward(const Tensor& input) const { return functional::glu(input, dim_); }
  std::string extra_repr() const override;

 private:
  int64_t dim_;
};
WICK_MODULE(GLU);

class SoftminImpl : public Module {
 public:
  explicit SoftminImpl(int64_t dim) : dim_(dim) {}
  Tensor forward(const Tensor& input) const { return functional::softmin(input, dim_); }
  std::string extra_repr() const override;

 private:
  int64_t dim_;
};
WICK_MODULE(Softmin);

// PReLU(PReLUOptions().num_parameters(C).init(0.25)): a learnt weight [num_parameters], filled
// with init.
class PReLUOptions {
 public:
  PReLUOptions& num_parameters(int64_t v) {
    num_parameters_ = v;
    return *this;
  }
  PReLUOptions& init(double v) {
    init_ = v;
    return *this;
  }
  int64_t num_parameters() const { return num_parameters_; }
  double init() const { return init_; }

 private:
  int64_t num_parameters_ = 1;
  double init_ = 0.25;
};

class PReLUImpl : public Module {
 public:
  explicit PReLUImpl(const PReLUOptions& options = {});
  Tensor forward(const Tensor& input) const { return functional::prelu(input, weight); }
  void reset_parameters();
  std::string extra_repr() const override;

  Tensor weight;

 private:
  PReLUOptions options_;
};
WICK_MODULE(PReLU);

}  // namespace wick::nn
