// test_rnn.cpp: RNN, LSTM, GRU and their cells against torch.nn's (python3-torch 1.13, float64;
// rnn_golden.inc from make_rnn_golden.py): outputs, final states, and the gradients of the
// input, initial states and every parameter, in float64 and float32; gradcheck through time;
// parameter names; dropout between layers; errors; a GRU that learns.
#include <catch2/catch.hpp>
#include <functional>
#include <sstream>
#include <string>
#include <vector>
#include <wick/wick.hpp>

#include "golden_check.hpp"

namespace nn = wick::nn;
using wick::Tensor;

namespace {

struct RnnCase {
  std::string name, kind;
  int64_t input_size, hidden_size, num_layers;
  bool bias, batch_first, bidirectional;
  std::vector<int64_t> x_shape;
  std::vector<std::vector<double>> params;
  std::vector<double> x, h0, c0, seed_out, seed_h, seed_c, out, h_n, c_n, grad_x, grad_h0, grad_c0;
  std::vector<std::vector<double>> grad_params;
  std::vector<int64_t> h_shape;
};

#include "rnn_golden.inc"

struct Built {
  std::shared_ptr<nn::Module> module;
  // (x, h0, c0) -> (out, h, c); undefined where the module has no such result.
  std::function<std::vector<Tensor>(const Tensor&, const Tensor&, const Tensor&)> run;
};

std::optional<std::tuple<Tensor, Tensor>> lstm_state(const Tensor& h0, const Tensor& c0) {
  if (!h0.defined()) return std::nullopt;
  return std::make_tuple(h0, c0);
}

Built build(const RnnCase& c) {
  const bool relu = c.kind.ends_with("_RELU");
  if (c.kind == "RNN" || c.kind == "RNN_RELU" || c.kind == "GRU") {
    auto layout = [&](auto options) {
      return options.num_layers(c.num_layers)
          .bias(c.bias)
          .batch_first(c.batch_first)
          .bidirectional(c.bidirectional);
    };
    if (c.kind == "GRU") {
      nn::GRU gru(layout(nn::GRUOptions(c.input_size, c.hidden_size)));
      return {gru.ptr(), [gru](const Tensor& x, const Tensor& h0, const Tensor&) {
                auto [out, h] = gru(x, h0);
                return std::vector<Tensor>{out, h, Tensor()};
              }};
    }
    nn::RNN rnn(layout(nn::RNNOptions(c.input_size, c.hidden_size))
                    .nonlinearity(relu ? nn::kReLU : nn::kTanh));
    return {rnn.ptr(), [rnn](const Tensor& x, const Tensor& h0, const Tensor&) {
              auto [out, h] = rnn(x, h0);
              return std::vector<Tensor>{out, h, Tensor()};
            }};
  }
  if (c.kind == "LSTM") {
    nn::LSTM lstm(nn::LSTMOptions(c.input_size, c.hidden_size)
                      .num_layers(c.num_layers)
                      .bias(c.bias)
                      .batch_first(c.batch_first)
                      .bidirectional(c.bidirectional));
    return {lstm.ptr(), [lstm](const Tensor& x, const Tensor& h0, const Tensor& c0) {
              auto [out, state] = lstm(x, lstm_state(h0, c0));
              return std::vector<Tensor>{out, std::get<0>(state), std::get<1>(state)};
            }};
  }
  const auto options = nn::RNNCellOptions(c.input_size, c.hidden_size).bias(c.bias);
  if (c.kind == "LSTMCell") {
    nn::LSTMCell cell(options);
    return {cell.ptr(), [cell](const Tensor& x, const Tensor& h0, const Tensor& c0) {
              auto [h, cx] = cell(x, lstm_state(h0, c0));
              return std::vector<Tensor>{h, Tensor(), cx};
            }};
  }
  if (c.kind == "GRUCell") {
    nn::GRUCell cell(options);
    return {cell.ptr(), [cell](const Tensor& x, const Tensor& h0, const Tensor&) {
              return std::vector<Tensor>{cell(x, h0), Tensor(), Tensor()};
            }};
  }
  nn::RNNCell cell(nn::RNNCellOptions(options).nonlinearity(relu ? nn::kReLU : nn::kTanh));
  return {cell.ptr(), [cell](const Tensor& x, const Tensor& h0, const Tensor&) {
            return std::vector<Tensor>{cell(x, h0), Tensor(), Tensor()};
          }};
}

void check_case(const RnnCase& c, wick::Dtype dtype, double rel) {
  INFO("case " << c.name << " in " << dtype);
  const auto opts = wick::TensorOptions(dtype);
  Built built = build(c);
  built.module->to(dtype);
  std::vector<Tensor> params = built.module->parameters();
  REQUIRE(params.size() == c.params.size());
  {
    wick::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i) {
      params[i].copy_(wick::tensor(c.params[i], opts).reshape(params[i].sizes()));
    }
  }
  const bool is_cell = c.kind.find("Cell") != std::string::npos;
  wick::Shape out_shape(c.x_shape);
  out_shape[out_shape.size() - 1] = c.hidden_size * (c.bidirectional ? 2 : 1);
  // A layer's states have h_n's shape; a cell's have its output's.
  const wick::Shape state_shape = is_cell ? out_shape : wick::Shape(c.h_shape);
  Tensor x = wick::tensor(c.x, wick::Shape(c.x_shape), opts).requires_grad_();
  Tensor h0, c0;
  if (!c.h0.empty()) h0 = wick::tensor(c.h0, state_shape, opts).requires_grad_();
  if (!c.c0.empty()) c0 = wick::tensor(c.c0, state_shape, opts).requires_grad_();
  const std::vector<Tensor> results = built.run(x, h0, c0);
  check_values(results[0], c.out, rel, "output");
  Tensor loss = (results[0] * wick::tensor(c.seed_out, out_shape, opts)).sum();
  if (!c.seed_h.empty()) {
    check_values(results[1], c.h_n, rel, "h_n");
    loss = loss + (results[1] * wick::tensor(c.seed_h, results[1].sizes(), opts)).sum();
  }
  if (!c.seed_c.empty()) {
    check_values(results[2], c.c_n, rel, "c_n");
    loss = loss + (results[2] * wick::tensor(c.seed_c, results[2].sizes(), opts)).sum();
  }
  loss.backward();
  check_values(x.grad(), c.grad_x, rel, "d x");
  if (h0.defined()) check_values(h0.grad(), c.grad_h0, rel, "d h0");
  if (c0.defined()) check_values(c0.grad(), c.grad_c0, rel, "d c0");
  for (size_t i = 0; i < params.size(); ++i) {
    INFO("parameter " << built.module->named_parameters()[i].first);
    check_values(params[i].grad(), c.grad_params[i], rel, "d parameter");
  }
}

}  // namespace

TEST_CASE("RNN, LSTM, GRU and their cells match PyTorch in float64 and float32", "[nn][rnn]") {
  REQUIRE(kRnnCases.size() == 11);
  for (const RnnCase& c : kRnnCases) check_case(c, wick::kFloat64, 1e-12);
  for (const RnnCase& c : kRnnCases) check_case(c, wick::kFloat32, 2e-5);
}

TEST_CASE("recurrent layers pass gradcheck through time", "[nn][rnn]") {
  wick::manual_seed(41);
  const auto opts = wick::TensorOptions(wick::kFloat64).requires_grad(true);
  const Tensor x = wick::randn({3, 2, 2}, opts), h0 = wick::randn({2, 2, 3}, opts);
  const Tensor c0 = wick::randn({2, 2, 3}, opts);
  nn::LSTM lstm(nn::LSTMOptions(2, 3).bidirectional(true));
  nn::GRU gru(nn::GRUOptions(2, 3).num_layers(2));
  lstm->to(wick::kFloat64);
  gru->to(wick::kFloat64);
  CHECK(wick::autograd::gradcheck(
            [&](const std::vector<Tensor>& in) {
              auto [out, state] = lstm(in[0], std::make_tuple(in[1], in[2]));
              return wick::cat({out.reshape({-1}), std::get<1>(state).reshape({-1})});
            },
            {x, h0, c0}) == "");
  CHECK(wick::autograd::gradcheck(
            [&](const std::vector<Tensor>& in) {
              auto [out, h] = gru(in[0], in[1]);
              return wick::cat({out.reshape({-1}), h.reshape({-1})});
            },
            {x, h0}) == "");
}

TEST_CASE("recurrent layers: parameter names, printing, initialisation", "[nn][rnn]") {
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true).batch_first(true));
  std::vector<std::string> names;
  for (const auto& [name, p] : lstm->named_parameters()) names.push_back(name);
  REQUIRE(names.size() == 16);
  CHECK(names[0] == "weight_ih_l0");
  CHECK(names[4] == "weight_ih_l0_reverse");
  CHECK(names[15] == "bias_hh_l1_reverse");
  CHECK(lstm->named_parameters()[8].second.sizes() == wick::Shape{16, 8});  // layer 1 sees 2 H
  CHECK(lstm->all_weights().size() == 16);
  std::ostringstream printed;
  printed << lstm << " " << nn::GRU(nn::GRUOptions(2, 5).bias(false).dropout(0.25)) << " "
          << nn::RNNCell(nn::RNNCellOptions(2, 3).nonlinearity(nn::kReLU));
  CHECK(printed.str() ==
        "LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True) "
        "GRU(2, 5, bias=False, dropout=0.25) RNNCell(2, 3, nonlinearity=relu)");
  // U(-1/sqrt(H), 1/sqrt(H)), H = 4: every value within 0.5, and not all the same.
  for (const Tensor& p : lstm->parameters()) {
    CHECK(wick::abs(p).max().item<float>() <= 0.5f);
  }
  CHECK(wick::std(lstm->parameters()[0]).item<float>() > 0.1f);
}

TEST_CASE("recurrent layers: dropout only between layers and only in training", "[nn][rnn]") {
  nn::GRU gru(nn::GRUOptions(2, 4).num_layers(2).dropout(0.5));
  const Tensor x = wick::randn({5, 3, 2});
  const Tensor a = std::get<0>(gru(x)), b = std::get<0>(gru(x));
  CHECK_FALSE(wick::equal(a, b));  // the mask is drawn anew
  gru->eval();
  CHECK(wick::equal(std::get<0>(gru(x)), std::get<0>(gru(x))));
  nn::GRU single(nn::GRUOptions(2, 4).dropout(0.5));  // one layer: nothing to drop
  CHECK(wick::equal(std::get<0>(single(x)), std::get<0>(single(x))));
}

TEST_CASE("recurrent layers reject bad input with clear errors", "[nn][rnn]") {
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2));
  CHECK_THROWS_WITH(lstm(wick::zeros({5, 2, 7})), Catch::Contains("nn::LSTM") &&
                                                      Catch::Contains("[5, 2, 7]") &&
                                                      Catch::Contains("input_size = 3"));
  CHECK_THROWS_AS(lstm(wick::zeros({3})), wick::ShapeError);
  CHECK_THROWS_AS(lstm(wick::zeros({1, 5, 2, 3})), wick::ShapeError);
  CHECK_THROWS_AS(lstm(wick::zeros({5, 2, 3}, wick::kFloat64)), wick::DtypeError);
  CHECK_THROWS_WITH(lstm(wick::zeros({0, 2, 3})), Catch::Contains("no time steps"));
  CHECK_THROWS_WITH(
      lstm(wick::zeros({5, 2, 3}), std::make_tuple(wick::zeros({1, 2, 4}), wick::zeros({2, 2, 4}))),
      Catch::Contains("h_0") && Catch::Contains("[1, 2, 4]") && Catch::Contains("[2, 2, 4]"));
  CHECK_THROWS_AS(
      lstm(wick::zeros({5, 2, 3}),
           std::make_tuple(wick::zeros({2, 2, 4}), wick::zeros({2, 2, 4}, wick::kFloat64))),
      wick::DtypeError);
  // h_0 without c_0 (or the reverse) is refused, as torch's, not completed with zeros.
  CHECK_THROWS_WITH(lstm(wick::zeros({5, 2, 3}), std::make_tuple(wick::zeros({2, 2, 4}), Tensor())),
                    Catch::Contains("nn::LSTM") && Catch::Contains("together"));
  nn::LSTMCell lstm_cell(3, 4);
  CHECK_THROWS_AS(lstm_cell(wick::zeros({2, 3}), std::make_tuple(Tensor(), wick::zeros({2, 4}))),
                  wick::ValueError);
  CHECK_THROWS_AS(nn::GRU(nn::GRUOptions(0, 4)), wick::ValueError);
  CHECK_THROWS_AS(nn::RNN(nn::RNNOptions(2, 4).num_layers(0)), wick::ValueError);
  CHECK_THROWS_AS(nn::RNN(nn::RNNOptions(2, 4).dropout(1.5)), wick::ValueError);
  nn::GRUCell cell(3, 2);
  CHECK_THROWS_WITH(cell(wick::zeros({4, 3}), wick::zeros({3, 2})),
                    Catch::Contains("nn::GRUCell") && Catch::Contains("hx"));
  CHECK_THROWS_AS(cell(wick::zeros({2, 2, 3})), wick::ShapeError);
  // Everything still works after the refusals.
  CHECK(std::get<0>(lstm(wick::zeros({5, 2, 3}))).sizes() == wick::Shape{5, 2, 4});
  CHECK(cell(wick::zeros({4, 3})).sizes() == wick::Shape{4, 2});
}

TEST_CASE("a GRU learns to report its sequence's sum", "[nn][rnn]") {
  // Sequences of 6 numbers in [-1, 1); the target is their sum, read from the last output
  // through a Linear. An untrained model is far off; 150 Adam steps bring the error down 10x.
  wick::manual_seed(3);
  nn::GRU gru(nn::GRUOptions(1, 16).batch_first(true));
  nn::Linear head(16, 1);
  std::vector<Tensor> params = gru->parameters();
  for (const Tensor& p : head->parameters()) params.push_back(p);
  wick::optim::Adam adam(params, wick::optim::AdamOptions(0.02));
  const Tensor x = wick::rand({64, 6, 1}) * 2 - 1;
  const Tensor target = x.sum(1);  // [64, 1]
  auto loss_now = [&] {
    const Tensor last = std::get<0>(gru(x)).select(1, 5);
    return nn::F::mse_loss(head(last), target);
  };
  const double first = loss_now().item<double>();
  for (int step = 0; step < 150; ++step) {
    adam.zero_grad();
    Tensor loss = loss_now();
    loss.backward();
    adam.step();
  }
  const double last = loss_now().item<double>();
  INFO("loss " << first << " -> " << last);
  CHECK(last < 0.1 * first);
}
