// interop_tool.cpp: wick's half of the PyTorch interop test (tests/nn/interop.py drives it).
//   write <dir>  writes wick_tensors.safetensors (known values, every dtype, a strided view),
//                wick_mlp.safetensors (an nn::Sequential's parameters) and wick_mlp_io (an input
//                and wick's output) for Python to read and check;
//   check <dir>  reads torch_tensors.safetensors and torch_mlp*.safetensors written by Python,
//                checks the values bit for bit and that the loaded model reproduces torch's
//                output. Exit status 0 when everything matches; messages on stderr otherwise.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <wick/wick.hpp>

namespace nn = wick::nn;
using wick::Tensor;

namespace {

// The tensors both sides build from the same formulas (see expected() in interop.py).
std::map<std::string, Tensor> expected() {
  std::vector<float> f32(12);
  for (int i = 0; i < 12; ++i) f32[i] = static_cast<float>(i - 5) * 0.25f;
  std::vector<double> f64(6);
  for (int i = 0; i < 6; ++i) f64[i] = i * 0.1;
  const float inf = std::numeric_limits<float>::infinity();
  return {
      {"f32", wick::tensor(f32, wick::Shape{3, 4})},
      {"f32_t", wick::tensor(f32, wick::Shape{3, 4}).t()},
      {"special", wick::tensor(std::vector<float>{inf, -inf, -0.0f, 1e-45f})},
      {"f64", wick::tensor(f64, wick::Shape{2, 3})},
      {"i64", wick::tensor(std::vector<int64_t>{std::numeric_limits<int64_t>::min(),
                                                std::numeric_limits<int64_t>::max(), 0, 42})},
      {"bool", wick::tensor(std::vector<bool>{true, false, false, true})},
      {"scalar", wick::scalar_tensor(2.5, wick::kFloat64)},
      {"empty", wick::zeros({0, 3})},
      {"bf16", wick::tensor(std::vector<float>{1.5f, -0.0f, inf, -2.0f, std::ldexp(1.0f, -133),
                                               1.5f * std::ldexp(1.0f, 127)})
                   .to(wick::kBFloat16)},
  };
}

nn::Sequential make_mlp() { return nn::Sequential(nn::Linear(3, 5), nn::Tanh(), nn::Linear(5, 2)); }

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  Tensor ca = a.contiguous(), cb = b.contiguous();
  return std::memcmp(ca.raw_data(), cb.raw_data(), ca.nbytes()) == 0;
}

int write(const std::filesystem::path& dir) {
  wick::save(expected(), dir / "wick_tensors.safetensors", {{"writer", "wick"}});
  wick::manual_seed(11);
  nn::Sequential mlp = make_mlp();
  wick::save(mlp, dir / "wick_mlp.safetensors");
  Tensor x = wick::randn({7, 3});
  wick::save({{"x", x}, {"y", mlp(x)}}, dir / "wick_mlp_io.safetensors");
  // Recurrent and attention models: their state dicts carry PyTorch's names, so torch loads
  // them with strict=True and must compute the same outputs.
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true).batch_first(true));
  wick::save(lstm, dir / "wick_lstm.safetensors");
  Tensor seq = wick::randn({2, 5, 3});
  auto [lstm_out, lstm_state] = lstm(seq);
  wick::save({{"x", seq}, {"y", lstm_out}, {"c", std::get<1>(lstm_state)}},
             dir / "wick_lstm_io.safetensors");
  nn::TransformerEncoderLayer encoder(
      nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0));
  encoder->eval();
  wick::save(encoder, dir / "wick_encoder.safetensors");
  Tensor src = wick::randn({6, 2, 8});
  Tensor causal = wick::triu(wick::ones({6, 6}, wick::kBool), 1);
  wick::save({{"x", src}, {"mask", causal}, {"y", encoder(src, causal)}},
             dir / "wick_encoder_io.safetensors");
  std::printf("wrote wick_tensors, wick_mlp, wick_lstm, wick_encoder (and their io) in %s\n",
              dir.c_str());
  return 0;
}

int check(const std::filesystem::path& dir) {
  int failures = 0;
  const auto theirs = wick::load_tensors(dir / "torch_tensors.safetensors");
  const auto ours = expected();
  for (const auto& [name, t] : ours) {
    auto it = theirs.find(name);
    if (it == theirs.end()) {
      std::fprintf(stderr, "torch_tensors: '%s' is missing\n", name.c_str());
      ++failures;
    } else if (!same_bits(it->second, t)) {
      std::fprintf(stderr, "torch_tensors: '%s' differs: %s vs %s\n", name.c_str(),
                   wick::describe(it->second).c_str(), wick::describe(t).c_str());
      ++failures;
    }
  }
  if (theirs.size() != ours.size()) {
    std::fprintf(stderr, "torch_tensors: %zu tensors, expected %zu\n", theirs.size(), ours.size());
    ++failures;
  }
  // A torch.nn.Sequential state_dict loads into the same nn::Sequential and gives torch's output.
  nn::Sequential mlp = make_mlp();
  wick::load(mlp, dir / "torch_mlp.safetensors");
  const auto io = wick::load_tensors(dir / "torch_mlp_io.safetensors");
  Tensor y = mlp(io.at("x"));
  const double err = wick::max(wick::abs(y - io.at("y"))).item<double>();
  std::printf("torch MLP in wick: max |wick - torch| = %.3g\n", err);
  if (!(err <= 1e-6)) {
    std::fprintf(stderr, "torch_mlp: outputs differ by %g\n", err);
    ++failures;
  }
  std::printf("%s\n", failures == 0 ? "check: all match" : "check: FAILED");
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s write|check <dir>\n", argv[0]);
    return 2;
  }
  try {
    const std::string mode = argv[1];
    if (mode == "write") return write(argv[2]);
    if (mode == "check") return check(argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "unknown mode %s\n", argv[1]);
  return 2;
}
