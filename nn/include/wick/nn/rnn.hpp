// rnn.hpp: recurrent layers as torch.nn's: RNN (tanh or ReLU), LSTM and GRU over a sequence,
// with layers, bidirectional, batch_first, dropout between layers and unbatched input; and the
// single-step cells RNNCell, LSTMCell, GRUCell. Gate orders and parameter names are PyTorch's
// (LSTM i, f, g, o; GRU r, z, n; "weight_ih_l0", "bias_hh_l1_reverse"), so state dicts carry
// over and the values agree. Built from autograd-aware ops (linear, sigmoid, tanh, chunk,
// stack), so they run on either device and backpropagate through time. Tested against
// python3-torch 1.13 in tests/nn/test_rnn.cpp.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "wick/nn/module.hpp"
#include "wick/ops.hpp"

namespace wick::nn {

// An activation named in options: RNN's h' = tanh(...) or relu(...) (kGELU is refused there),
// and a Transformer layer's feed-forward activation (relu or gelu).
enum class Nonlinearity { kTanh, kReLU, kGELU };
inline constexpr Nonlinearity kTanh = Nonlinearity::kTanh;
inline constexpr Nonlinearity kReLU = Nonlinearity::kReLU;
inline constexpr Nonlinearity kGELU = Nonlinearity::kGELU;

namespace detail {
// The fields every recurrent layer's options hold, as the shared base takes them.
struct RNNLayout {
  int64_t input_size, hidden_size, num_layers;
  bool bias, batch_first;
  double dropout;
  bool bidirectional;
};

// What the three recurrent layers share, with a setter per field that returns Derived&.
template <typename Derived>
class RNNOptionsBase {
 public:
  RNNOptionsBase(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  Derived& num_layers(int64_t n) { return set(num_layers_, n); }
  Derived& bias(bool on) { return set(bias_, on); }
  Derived& batch_first(bool on) { return set(batch_first_, on); }
  // Dropout on each layer's output but the last, in training only.
  Derived& dropout(double p) { return set(dropout_, p); }
  Derived& bidirectional(bool on) { return set(bidirectional_, on); }
  int64_t input_size() const { return input_size_; }
  int64_t hidden_size() const { return hidden_size_; }
  int64_t num_layers() const { return num_layers_; }
  bool bias() const { return bias_; }
  bool batch_first() const { return batch_first_; }
  double dropout() const { return dropout_; }
  bool bidirectional() const { return bidirectional_; }
  RNNLayout layout() const {
    return {input_size_, hidden_size_, num_layers_, bias_, batch_first_, dropout_, bidirectional_};
  }

 private:
  template <typename T>
  Derived& set(T& field, T value) {
    field = value;
    return static_cast<Derived&>(*this);
  }
  int64_t input_size_, hidden_size_, num_layers_ = 1;
  bool bias_ = true, batch_first_ = false;
  double dropout_ = 0;
  bool bidirectional_ = false;
};

// Which recurrence a layer or cell runs.
enum class RNNMode { kRNNTanh, kRNNReLU, kLSTM, kGRU };
}  // namespace detail

class RNNOptions : public detail::RNNOptionsBase<RNNOptions> {
 public:
  using RNNOptionsBase::RNNOptionsBase;
  RNNOptions& nonlinearity(Nonlinearity n) {
    nonlinearity_ = n;
    return *this;
  }
  Nonlinearity nonlinearity() const { return nonlinearity_; }

 private:
  Nonlinearity nonlinearity_ = kTanh;
};

class LSTMOptions : public detail::RNNOptionsBase<LSTMOptions> {
 public:
  using RNNOptionsBase::RNNOptionsBase;
};

class GRUOptions : public detail::RNNOptionsBase<GRUOptions> {
 public:
  using RNNOptionsBase::RNNOptionsBase;
};

// The layers' shared machinery. Input [L, N, input_size] ([N, L, input_size] with batch_first)
// or unbatched [L, input_size]; states [num_layers * directions, N, hidden_size] (or without N
// when unbatched), zeros when not given. Output [L, N, directions * hidden_size]. Every
// parameter starts as U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch's.
class RNNImplBase : public Module {
 public:
  // Parameters back to their initial distribution.
  void reset_parameters();
  std::string extra_repr() const override;
  // Per layer and direction, in PyTorch's order: weight_ih, weight_hh, then the biases.
  const std::vector<Tensor>& all_weights() const { return flat_weights_; }

 protected:
  RNNImplBase(detail::RNNMode mode, const detail::RNNLayout& layout, const char* name);
  // Runs the stack; states holds h (and c for LSTM), each [layers * directions, N, H] or
  // undefined. Returns the output and the final states in the same form.
  std::tuple<Tensor, std::vector<Tensor>> run(const Tensor& input,
                                              std::vector<Tensor> states) const;

 private:
  detail::RNNMode mode_;
  detail::RNNLayout layout_;
  std::string op_;                    // "nn::LSTM", for error messages
  std::vector<Tensor> flat_weights_;  // 2 or 4 per layer and direction
};

class RNNImpl : public RNNImplBase {
 public:
  explicit RNNImpl(const RNNOptions& options);
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  // (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {}) const;
  const RNNOptions& options() const { return options_; }

 private:
  RNNOptions options_;
};
WICK_MODULE(RNN);

class LSTMImpl : public RNNImplBase {
 public:
  explicit LSTMImpl(const LSTMOptions& options);
  LSTMImpl(int64_t input_size, int64_t hidden_size)
      : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  // (output, (h_n, c_n)); hx is (h_0, c_0).
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, const std::optional<std::tuple<Tensor, Tensor>>& hx = {}) const;
  const LSTMOptions& options() const { return options_; }

 private:
  LSTMOptions options_;
};
WICK_MODULE(LSTM);

class GRUImpl : public RNNImplBase {
 public:
  explicit GRUImpl(const GRUOptions& options);
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  // (output, h_n).
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {}) const;
  const GRUOptions& options() const { return options_; }

 private:
  GRUOptions options_;
};
WICK_MODULE(GRU);

// ---- cells: one time step ----

class RNNCellOptions {
 public:
  RNNCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}
  RNNCellOptions& bias(bool on) {
    bias_ = on;
    return *this;
  }
  RNNCellOptions& nonlinearity(Nonlinearity n) {
    nonlinearity_ = n;
    return *this;
  }
  int64_t input_size() const { return input_size_; }
  int64_t hidden_size() const { return hidden_size_; }
  bool bias() const { return bias_; }
  Nonlinearity nonlinearity() const { return nonlinearity_; }

 private:
  int64_t input_size_, hidden_size_;
  bool bias_ = true;
  Nonlinearity nonlinearity_ = kTanh;
};
// LSTMCell and GRUCell take the same options but the activation.
using LSTMCellOptions = RNNCellOptions;
using GRUCellOptions = RNNCellOptions;

// Parameters weight_ih [gates * H, input_size], weight_hh [gates * H, H], bias_ih and bias_hh.
// Input [N, input_size] or unbatched [input_size]; state [N, H] or [H], zeros when not given.
class RNNCellImplBase : public Module {
 public:
  void reset_parameters();
  std::string extra_repr() const override;

  Tensor weight_ih, weight_hh, bias_ih, bias_hh;  // biases undefined without bias

 protected:
  RNNCellImplBase(detail::RNNMode mode, const RNNCellOptions& options, const char* name);
  // One step: the new h (and c for LSTM).
  std::vector<Tensor> step(const Tensor& input, std::vector<Tensor> states) const;

 private:
  detail::RNNMode mode_;
  RNNCellOptions options_;
  std::string op_;
};

class RNNCellImpl : public RNNCellImplBase {
 public:
  explicit RNNCellImpl(const RNNCellOptions& options);
  RNNCellImpl(int64_t input_size, int64_t hidden_size)
      : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  Tensor forward(const Tensor& input, const Tensor& hx = {}) const;
};
WICK_MODULE(RNNCell);

class LSTMCellImpl : public RNNCellImplBase {
 public:
  explicit LSTMCellImpl(const LSTMCellOptions& options);
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  // (h', c'); hx is (h, c).
  std::tuple<Tensor, Tensor> forward(
      const Tensor& input, const std::optional<std::tuple<Tensor, Tensor>>& hx = {}) const;
};
WICK_MODULE(LSTMCell);

class GRUCellImpl : public RNNCellImplBase {
 public:
  explicit GRUCellImpl(const GRUCellOptions& options);
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  Tensor forward(const Tensor& input, const Tensor& hx = {}) const;
};
WICK_MODULE(GRUCell);

}  // namespace wick::nn
