// rnn.cpp: the recurrent layers and cells. The input's share of every gate is one linear over
// the whole sequence ([L, N, in] -> [L, N, gates * H], one large matmul); only h W_hh^T is
// left inside the time loop, one [N, H] x [H, gates * H] product per step. Each step is then a
// few elementwise ops, recorded on the tape, so backward runs through time by itself.
#include "wick/nn/rnn.hpp"

#include <cmath>
#include <sstream>
#include <utility>

#include "wick/autograd.hpp"
#include "wick/nn/layers.hpp"

#include "init_uniform.hpp"

namespace wick::nn {

using detail::RNNLayout;
using detail::RNNMode;

namespace {

int64_t gate_count(RNNMode mode) {
  switch (mode) {
    case RNNMode::kLSTM:
      return 4;
    case RNNMode::kGRU:
      return 3;
    default:
      return 1;
  }
}

// One time step. gates_x: this step's x W_ih^T + b_ih, [N, gates * H]; states {h} or, for
// LSTM, {h, c}, each [N, H]. Returns the new states. Gate orders are PyTorch's.
std::vector<Tensor> cell_step(RNNMode mode, const Tensor& gates_x,
                              const std::vector<Tensor>& states, const Tensor& weight_hh,
                              const Tensor& bias_hh) {
  const Tensor& h = states[0];
  const Tensor gates_h = functional::linear(h, weight_hh, bias_hh);
  switch (mode) {
    case RNNMode::kRNNTanh:
      return {tanh(gates_x + gates_h)};
    case RNNMode::kRNNReLU:
      return {relu(gates_x + gates_h)};
    case RNNMode::kLSTM: {
      const std::vector<Tensor> gate = chunk(gates_x + gates_h, 4, -1);  // i, f, g, o
      Tensor c = sigmoid(gate[1]) * states[1] + sigmoid(gate[0]) * tanh(gate[2]);
      Tensor h_next = sigmoid(gate[3]) * tanh(c);
      return {std::move(h_next), std::move(c)};
    }
    case RNNMode::kGRU: {
      // r and z see both halves; the candidate n sees h's half only through the reset gate.
      const std::vector<Tensor> gx = chunk(gates_x, 3, -1), gh = chunk(gates_h, 3, -1);
      const Tensor r = sigmoid(gx[0] + gh[0]);
      const Tensor z = sigmoid(gx[1] + gh[1]);
      const Tensor n = tanh(gx[2] + r * gh[2]);
      return {(1 - z) * n + z * h};
    }
  }
  return {};
}

// The input of a layer or cell: defined, floating, of the weights' dtype and device, with
// `dims` dims (either of two) ending in input_size.
void check_input(const std::string& op, const Tensor& input, int64_t batched_dims,
                 int64_t input_size, const Tensor& weight) {
  WICK_CHECK(input.defined(), ValueError, op.c_str(), "input must be a defined tensor");
  WICK_CHECK(input.dim() == batched_dims || input.dim() == batched_dims - 1, ShapeError, op.c_str(),
             "expected a ", batched_dims, "-D (batched) or ", batched_dims - 1,
             "-D (unbatched) input, got ", describe(input));
  WICK_CHECK(input.size(-1) == input_size, ShapeError, op.c_str(), "input ", describe(input),
             " must end in input_size = ", input_size);
  WICK_CHECK(input.dtype() == weight.dtype(), DtypeError, op.c_str(), "input ", describe(input),
             " must have the dtype of the parameters, ", weight.dtype());
  WICK_CHECK(input.device() == weight.device(), DeviceError, op.c_str(), "input ", describe(input),
             " and the parameters (", weight.device(), ") are on different devices");
}

// A state given by the caller: exactly `expected`, of the input's dtype and device.
// An LSTM's state is both tensors or neither, as torch's (h and c as a pair): one alone would
// otherwise start the other at zeros unnoticed.
void check_state_pair(const std::string& op, const std::vector<Tensor>& states) {
  WICK_CHECK(states.size() < 2 || states[0].defined() == states[1].defined(), ValueError,
             op.c_str(), "the hidden and cell states must be given together or not at all, got ",
             states[0].defined() ? describe(states[0]) : std::string("no hidden state"), " and ",
             states[1].defined() ? describe(states[1]) : std::string("no cell state"));
}

void check_state(const std::string& op, const char* what, const Tensor& state,
                 const Shape& expected, const Tensor& input) {
  WICK_CHECK(state.sizes() == expected, ShapeError, op.c_str(), what, " ", describe(state),
             " must be ", expected, " for input ", describe(input));
  WICK_CHECK(state.dtype() == input.dtype() && state.device() == input.device(), DtypeError,
             op.c_str(), what, " ", describe(state), " must have the dtype and device of input ",
             describe(input));
}

// Every parameter U(-1/sqrt(H), 1/sqrt(H)), as PyTorch's reset_parameters.
void init_parameters(const std::vector<Tensor>& parameters, int64_t hidden_size) {
  NoGradGuard no_grad;
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  for (const Tensor& t : parameters) detail::fill_uniform(t, bound);
}

// PyTorch's extra_repr: sizes, then only what differs from the defaults.
std::string describe_layout(const RNNLayout& layout) {
  std::ostringstream out;
  out << layout.input_size << ", " << layout.hidden_size;
  if (layout.num_layers != 1) out << ", num_layers=" << layout.num_layers;
  if (!layout.bias) out << ", bias=False";
  if (layout.batch_first) out << ", batch_first=True";
  if (layout.dropout != 0) out << ", dropout=" << layout.dropout;
  if (layout.bidirectional) out << ", bidirectional=True";
  return out.str();
}

}  // namespace

// ---- layers ----

RNNImplBase::RNNImplBase(RNNMode mode, const RNNLayout& layout, const char* name)
    : mode_(mode), layout_(layout), op_(std::string("nn::") + name) {
  WICK_CHECK(layout.input_size > 0 && layout.hidden_size > 0, ValueError, op_.c_str(),
             "input_size ", layout.input_size, " and hidden_size ", layout.hidden_size,
             " must be positive");
  WICK_CHECK(layout.num_layers >= 1, ValueError, op_.c_str(), "num_layers ", layout.num_layers,
             " must be at least 1");
  WICK_CHECK(layout.dropout >= 0 && layout.dropout <= 1, ValueError, op_.c_str(), "dropout ",
             layout.dropout, " must be in [0, 1]");
  const int64_t gates = gate_count(mode) * layout.hidden_size;
  const int64_t directions = layout.bidirectional ? 2 : 1;
  for (int64_t layer = 0; layer < layout.num_layers; ++layer) {
    const int64_t in = layer == 0 ? layout.input_size : layout.hidden_size * directions;
    for (int64_t direction = 0; direction < directions; ++direction) {
      const std::string suffix = "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
      flat_weights_.push_back(register_parameter("weight_ih" + suffix, empty({gates, in})));
      flat_weights_.push_back(
          register_parameter("weight_hh" + suffix, empty({gates, layout.hidden_size})));
      if (layout.bias) {
        flat_weights_.push_back(register_parameter("bias_ih" + suffix, empty({gates})));
        flat_weights_.push_back(register_parameter("bias_hh" + suffix, empty({gates})));
      }
    }
  }
  reset_parameters();
}

void RNNImplBase::reset_parameters() { init_parameters(parameters(), layout_.hidden_size); }

std::string RNNImplBase::extra_repr() const { return describe_layout(layout_); }

std::tuple<Tensor, std::vector<Tensor>> RNNImplBase::run(const Tensor& input,
                                                         std::vector<Tensor> states) const {
  const std::vector<Tensor>& weights = flat_weights_;  // Module::to swaps them in place
  check_input(op_, input, 3, layout_.input_size, weights[0]);
  const bool batched = input.dim() == 3;
  Tensor x = !batched ? input.unsqueeze(1) : layout_.batch_first ? input.transpose(0, 1) : input;
  const int64_t steps = x.size(0), batch = x.size(1), hidden = layout_.hidden_size;
  WICK_CHECK(steps > 0, ValueError, op_.c_str(), "input ", describe(input),
             " has no time steps; expected sequence length to be larger than 0");
  const int64_t directions = layout_.bidirectional ? 2 : 1;
  const int64_t stacked = layout_.num_layers * directions;
  const Shape state_shape = batched ? Shape{stacked, batch, hidden} : Shape{stacked, hidden};
  static const char* const kStateNames[] = {"hx (h_0)", "c_0"};
  check_state_pair(op_, states);
  for (size_t k = 0; k < states.size(); ++k) {
    if (!states[k].defined()) {
      states[k] = zeros({stacked, batch, hidden}, x.options());
      continue;
    }
    check_state(op_, kStateNames[k], states[k], state_shape, input);
    if (!batched) states[k] = states[k].unsqueeze(1);
  }
  const size_t per_direction = layout_.bias ? 4 : 2;
  std::vector<std::vector<Tensor>> finals(states.size());
  Tensor layer_input = x;
  for (int64_t layer = 0; layer < layout_.num_layers; ++layer) {
    std::vector<Tensor> outputs;
    for (int64_t direction = 0; direction < directions; ++direction) {
      const int64_t index = layer * directions + direction;
      const Tensor* w = &weights[static_cast<size_t>(index) * per_direction];
      const Tensor bias_ih = layout_.bias ? w[2] : Tensor(),
                   bias_hh = layout_.bias ? w[3] : Tensor();
      std::vector<Tensor> carried;
      for (const Tensor& s : states) carried.push_back(s.select(0, index));
      const Tensor gates_x = functional::linear(layer_input, w[0], bias_ih);  // [L, N, G * H]
      std::vector<Tensor> per_step(static_cast<size_t>(steps));
      for (int64_t i = 0; i < steps; ++i) {
        const int64_t t = direction == 1 ? steps - 1 - i : i;
        carried = cell_step(mode_, gates_x.select(0, t), carried, w[1], bias_hh);
        per_step[static_cast<size_t>(t)] = carried[0];
      }
      outputs.push_back(stack(per_step, 0));
      for (size_t k = 0; k < carried.size(); ++k) finals[k].push_back(carried[k]);
    }
    layer_input = directions == 2 ? cat(outputs, -1) : outputs[0];
    if (layout_.dropout > 0 && is_training() && layer + 1 < layout_.num_layers) {
      layer_input = functional::dropout(layer_input, layout_.dropout, true);
    }
  }
  Tensor output = !batched              ? layer_input.squeeze(1)
                  : layout_.batch_first ? layer_input.transpose(0, 1)
                                        : layer_input;
  std::vector<Tensor> final_states;
  for (const auto& parts : finals) {
    Tensor s = stack(parts, 0);
    final_states.push_back(batched ? s : s.squeeze(1));
  }
  return {output, final_states};
}

namespace {
// RNN and RNNCell take tanh or relu only.
RNNMode rnn_mode(Nonlinearity nonlinearity, const char* op) {
  WICK_CHECK(nonlinearity != kGELU, ValueError, op, "nonlinearity must be kTanh or kReLU");
  return nonlinearity == kReLU ? RNNMode::kRNNReLU : RNNMode::kRNNTanh;
}
}  // namespace

RNNImpl::RNNImpl(const RNNOptions& options)
    : RNNImplBase(rnn_mode(options.nonlinearity(), "nn::RNN"), options.layout(), "RNN"),
      options_(options) {}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, const Tensor& hx) const {
  auto [output, states] = run(input, {hx});
  return {output, states[0]};
}

LSTMImpl::LSTMImpl(const LSTMOptions& options)
    : RNNImplBase(RNNMode::kLSTM, options.layout(), "LSTM"), options_(options) {}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input, const std::optional<std::tuple<Tensor, Tensor>>& hx) const {
  auto [output, states] = run(input, hx ? std::vector<Tensor>{std::get<0>(*hx), std::get<1>(*hx)}
                                        : std::vector<Tensor>{Tensor(), Tensor()});
  return {output, {states[0], states[1]}};
}

GRUImpl::GRUImpl(const GRUOptions& options)
    : RNNImplBase(RNNMode::kGRU, options.layout(), "GRU"), options_(options) {}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, const Tensor& hx) const {
  auto [output, states] = run(input, {hx});
  return {output, states[0]};
}

// ---- cells ----

RNNCellImplBase::RNNCellImplBase(RNNMode mode, const RNNCellOptions& options, const char* name)
    : mode_(mode), options_(options), op_(std::string("nn::") + name) {
  WICK_CHECK(options.input_size() > 0 && options.hidden_size() > 0, ValueError, op_.c_str(),
             "input_size ", options.input_size(), " and hidden_size ", options.hidden_size(),
             " must be positive");
  const int64_t gates = gate_count(mode) * options.hidden_size();
  weight_ih = register_parameter("weight_ih", empty({gates, options.input_size()}));
  weight_hh = register_parameter("weight_hh", empty({gates, options.hidden_size()}));
  if (options.bias()) {
    bias_ih = register_parameter("bias_ih", empty({gates}));
    bias_hh = register_parameter("bias_hh", empty({gates}));
  }
  reset_parameters();
}

void RNNCellImplBase::reset_parameters() { init_parameters(parameters(), options_.hidden_size()); }

std::string RNNCellImplBase::extra_repr() const {
  std::ostringstream out;
  out << options_.input_size() << ", " << options_.hidden_size();
  if (!options_.bias()) out << ", bias=False";
  if (mode_ == RNNMode::kRNNReLU) out << ", nonlinearity=relu";
  return out.str();
}

std::vector<Tensor> RNNCellImplBase::step(const Tensor& input, std::vector<Tensor> states) const {
  check_input(op_, input, 2, options_.input_size(), weight_ih);
  const bool batched = input.dim() == 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const int64_t hidden = options_.hidden_size();
  const Shape state_shape = batched ? Shape{x.size(0), hidden} : Shape{hidden};
  static const char* const kStateNames[] = {"hx", "cx"};
  check_state_pair(op_, states);
  for (size_t k = 0; k < states.size(); ++k) {
    if (!states[k].defined()) {
      states[k] = zeros({x.size(0), hidden}, x.options());
      continue;
    }
    check_state(op_, kStateNames[k], states[k], state_shape, input);
    if (!batched) states[k] = states[k].unsqueeze(0);
  }
  std::vector<Tensor> next =
      cell_step(mode_, functional::linear(x, weight_ih, bias_ih), states, weight_hh, bias_hh);
  if (!batched) {
    for (Tensor& s : next) s = s.squeeze(0);
  }
  return next;
}

RNNCellImpl::RNNCellImpl(const RNNCellOptions& options)
    : RNNCellImplBase(rnn_mode(options.nonlinearity(), "nn::RNNCell"), options, "RNNCell") {}

Tensor RNNCellImpl::forward(const Tensor& input, const Tensor& hx) const {
  return step(input, {hx})[0];
}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options)
    : RNNCellImplBase(RNNMode::kLSTM, options, "LSTMCell") {}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(
    const Tensor& input, const std::optional<std::tuple<Tensor, Tensor>>& hx) const {
  std::vector<Tensor> next =
      step(input, hx ? std::vector<Tensor>{std::get<0>(*hx), std::get<1>(*hx)}
                     : std::vector<Tensor>{Tensor(), Tensor()});
  return {next[0], next[1]};
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& options)
    : RNNCellImplBase(RNNMode::kGRU, options, "GRUCell") {}

Tensor GRUCellImpl::forward(const Tensor& input, const Tensor& hx) const {
  return step(input, {hx})[0];
}

}  // namespace wick::nn
