// layers.hpp: Linear (PyTorch's default initialisation), the activations ReLU, Sigmoid, Tanh,
// GELU, SiLU, LeakyReLU, Softmax and LogSoftmax, Flatten, Dropout, LayerNorm and Sequential, each
// an Impl class plus its handle (WICK_MODULE). Forward passes are built from autograd-aware ops
// only, so their gradients come from autograd's rules. Tested in tests/nn/test_module.cpp (init
// bounds, shapes, chaining) and by the PyTorch parity test (tests/nn/test_parity.cpp).
#pragma once

#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

namespace functional {
// y = x W^T + b, x [..., in], weight [out, in], bias [out] (or undefined).
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor());
// In training, each element is zeroed with probability p (drawn with wick::rand_like, so
// wick::manual_seed repeats it) and the others scaled by 1 / (1 - p), as input * (mask / (1 - p));
// otherwise the input itself. p must be in [0, 1]; p = 1 gives zeros.
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true);
// Normalises over the last normalized_shape.size() dims, which must equal normalized_shape:
// (x - mean) / sqrt(var + eps) with the biased variance, then * weight + bias where given
// (each of normalized_shape): wick::layer_norm, one fused kernel forward and one backward.
Tensor layer_norm(const Tensor& input, const Shape& normalized_shape,
                  const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                  double eps = 1e-5);
// PyTorch's gelu: approximate "none" is x * 0.5 * (1 + erf(x / sqrt(2))); "tanh" is
// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))). Other strings are a ValueError.
Tensor gelu(const Tensor& input, const std::string& approximate = "none");
// x * sigmoid(x) (SiLU, also called swish).
Tensor silu(const Tensor& input);
// where(x > 0, x, x * negative_slope) (NaN passes, as PyTorch's); floating inputs only.
Tensor leaky_relu(const Tensor& input, double negative_slope = 0.01);
}  // namespace functional

// y = x W^T + b. weight [out_features, in_features] and bias [out_features] start as PyTorch's
// reset_parameters() leaves them: kaiming_uniform_(a = sqrt(5)) for the weight, which is
// U(-1/sqrt(in), 1/sqrt(in)), and U(-1/sqrt(in), 1/sqrt(in)) for the bias, drawn with
// wick::rand (weight first, then bias), so wick::manual_seed makes them repeatable. float32 on
// the CPU; use Module::to to move or cast.
class LinearImpl : public Module {
 public:
  LinearImpl(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& input) const;
  // Draws fresh initial values, as at construction.
  void reset_parameters();
  std::string extra_repr() const override;

  int64_t in_features() const { return in_features_; }
  int64_t out_features() const { return out_features_; }

  Tensor weight;  // [out_features, in_features]
  Tensor bias;    // [out_features], undefined when built with bias = false

 private:
  int64_t in_features_;
  int64_t out_features_;
};
WICK_MODULE(Linear);

class ReLUImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const { return relu(input); }
};
WICK_MODULE(ReLU);

class SigmoidImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const { return sigmoid(input); }
};
WICK_MODULE(Sigmoid);

class TanhImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const { return tanh(input); }
};
WICK_MODULE(Tanh);

class GELUImpl : public Module {
 public:
  explicit GELUImpl(std::string approximate = "none");
  Tensor forward(const Tensor& input) const { return functional::gelu(input, approximate_); }
  std::string extra_repr() const override;

 private:
  std::string approximate_;
};
WICK_MODULE(GELU);

class SiLUImpl : public Module {
 public:
  Tensor forward(const Tensor& input) const { return functional::silu(input); }
};
WICK_MODULE(SiLU);

// x where x > 0, negative_slope * x elsewhere (NaN passes), as torch.nn.LeakyReLU.
class LeakyReLUImpl : public Module {
 public:
  explicit LeakyReLUImpl(double negative_slope = 0.01) : negative_slope_(negative_slope) {}
  Tensor forward(const Tensor& input) const {
    return functional::leaky_relu(input, negative_slope_);
  }
  std::string extra_repr() const override;

 private:
  double negative_slope_;
};
WICK_MODULE(LeakyReLU);

// softmax and log_softmax over dim, as torch.nn.Softmax(dim) and LogSoftmax(dim); the base
// holds the dim and prints it.
class DimModule : public Module {
 public:
  explicit DimModule(int64_t dim) : dim_(dim) {}
  std::string extra_repr() const override;

 protected:
  int64_t dim_;
};

class SoftmaxImpl : public DimModule {
 public:
  using DimModule::DimModule;
  Tensor forward(const Tensor& input) const { return softmax(input, dim_); }
};
WICK_MODULE(Softmax);

class LogSoftmaxImpl : public DimModule {
 public:
  using DimModule::DimModule;
  Tensor forward(const Tensor& input) const { return log_softmax(input, dim_); }
};
WICK_MODULE(LogSoftmax);

// Dims start_dim..end_dim merged into one (a view where the layout allows), as
// torch.nn.Flatten: by default everything but the batch dim, so a convolution's [N, C, H, W]
// output feeds a Linear layer inside a Sequential.
class FlattenImpl : public Module {
 public:
  explicit FlattenImpl(int64_t start_dim = 1, int64_t end_dim = -1)
      : start_dim_(start_dim), end_dim_(end_dim) {}
  Tensor forward(const Tensor& input) const { return flatten(input, start_dim_, end_dim_); }
  std::string extra_repr() const override;

 private:
  int64_t start_dim_, end_dim_;
};
WICK_MODULE(Flatten);

// functional::dropout with this module's p while it is in training mode (train()), the input
// itself in eval().
class DropoutImpl : public Module {
 public:
  explicit DropoutImpl(double p = 0.5);
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;
  double p() const { return p_; }

 private:
  double p_;
};
WICK_MODULE(Dropout);

// functional::layer_norm over the last dims; with elementwise_affine, weight (ones) and bias
// (zeros) of normalized_shape are parameters, as torch.nn.LayerNorm's.
class LayerNormImpl : public Module {
 public:
  explicit LayerNormImpl(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
  Tensor forward(const Tensor& input) const;
  std::string extra_repr() const override;

  Tensor weight;  // undefined without elementwise_affine
  Tensor bias;

 private:
  Shape normalized_shape_;
  double eps_;
};
WICK_MODULE(LayerNorm);

// A module whose forward takes one tensor and returns one: what Sequential can hold.
template <typename Impl>
concept UnaryModule = std::derived_from<Impl, Module> && requires(Impl& m, const Tensor& x) {
  { m.forward(x) } -> std::convertible_to<Tensor>;
};

// Runs its modules in order, each one's output feeding the next. Children are named "0", "1",
// ... as in PyTorch, so parameter names ("0.weight") match torch.nn.Sequential's state_dict.
class SequentialImpl : public Module {
 public:
  SequentialImpl() = default;
  template <typename... Modules>
  requires(sizeof...(Modules) > 0 && (UnaryModule<typename std::remove_cvref_t<Modules>::Impl> &&
                                      ...)) explicit SequentialImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }

  // Appends a module given by its handle or a shared_ptr; returns nothing, as libtorch.
  template <typename Holder>
  requires UnaryModule<typename Holder::Impl>
  void push_back(const Holder& holder) { push_back(holder.ptr()); }
  template <typename Impl>
  requires UnaryModule<Impl>
  void push_back(std::shared_ptr<Impl> module) {
    register_module(std::to_string(forwards_.size()), module);
    forwards_.emplace_back([module](const Tensor& x) { return Tensor(module->forward(x)); });
  }

  Tensor forward(const Tensor& input) const;
  size_t size() const { return forwards_.size(); }
  bool is_empty() const { return forwards_.empty(); }
  // The i-th module, as a Module or cast to its Impl type (nullptr if it is not one).
  std::shared_ptr<Module> operator[](size_t index) const;
  template <typename Impl>
  std::shared_ptr<Impl> ptr(size_t index) const {
    return std::dynamic_pointer_cast<Impl>((*this)[index]);
  }

 private:
  std::vector<std::function<Tensor(const Tensor&)>> forwards_;
};
WICK_MODULE(Sequential);

// Holds modules in a list for the owner's forward to call as it likes (torch.nn.ModuleList):
// no forward of its own. Children are named "0", "1", ..., so an owner that registers the list
// as "layers" has parameters "layers.0.weight", as PyTorch's state_dict names them.
class ModuleListImpl : public Module {
 public:
  ModuleListImpl() = default;
  template <typename... Modules>
  requires(sizeof...(Modules) > 0) explicit ModuleListImpl(Modules&&... modules) {
    (push_back(std::forward<Modules>(modules)), ...);
  }

  template <typename Holder>
  requires std::derived_from<typename Holder::Impl, Module>
  void push_back(const Holder& holder) { push_back(holder.ptr()); }
  void push_back(std::shared_ptr<Module> module);
  // Appends every module of other (shared, not copied).
  void extend(const ModuleListImpl& other);

  size_t size() const { return modules_.size(); }
  bool is_empty() const { return modules_.empty(); }
  // The i-th module (IndexError past the end); ptr<Impl> casts it (nullptr if it is not one),
  // at<Impl> gives a reference (ValueError if it is not one).
  std::shared_ptr<Module> operator[](size_t index) const;
  template <typename Impl>
  std::shared_ptr<Impl> ptr(size_t index) const {
    return std::dynamic_pointer_cast<Impl>((*this)[index]);
  }
  template <typename Impl>
  Impl& at(size_t index) const {
    std::shared_ptr<Impl> module = ptr<Impl>(index);
    WICK_CHECK(module != nullptr, ValueError, "nn::ModuleList", "module ", index, " (",
               (*this)[index]->name(), ") is not of the requested type");
    return *module;
  }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }

 private:
  std::vector<std::shared_ptr<Module>> modules_;
};
WICK_MODULE(ModuleList);

}  // namespace wick::nn
