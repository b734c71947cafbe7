// test_clip_grad.cpp: nn::utils::clip_grad_norm_ and clip_grad_value_ against a float64
// reference computed here from the same values: the total norm for p = 1, 2, 3, infinity, the
// scaled gradients, no scaling below max_norm, parameters without gradients, mixed dtypes, the
// non-finite check (nothing changed when it throws), and bad arguments.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>
#include <wick/wick.hpp>

namespace nn = wick::nn;
using wick::Tensor;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Three parameters with gradients of known values (and one without a gradient).
struct Params {
  std::vector<std::vector<double>> grads = {
      {0.5, -1.25, 2.0, 0.125}, {-3.0, 0.75}, {1.5, -0.25, 0.0, 4.0, -2.5, 0.375}};
  std::vector<Tensor> tensors;
  explicit Params(wick::Dtype dtype = wick::kFloat64) {
    for (const auto& g : grads) {
      Tensor p = wick::zeros({static_cast<int64_t>(g.size())}, dtype).requires_grad_();
      p.mutable_grad() = wick::tensor(g, wick::TensorOptions(dtype));
      tensors.push_back(p);
    }
    tensors.push_back(wick::zeros({3}, dtype).requires_grad_());  // no gradient: skipped
  }
};

double reference_norm(const std::vector<std::vector<double>>& grads, double p) {
  double total = 0;
  for (const auto& g : grads) {
    for (double v : g)
      total = std::isinf(p) ? std::max(total, std::abs(v)) : total + std::pow(std::abs(v), p);
  }
  return std::isinf(p) ? total : std::pow(total, 1.0 / p);
}

}  // namespace

TEST_CASE("clip_grad_norm_ matches the float64 reference for p = 1, 2, 3 and infinity") {
  for (double p : {1.0, 2.0, 3.0, kInf}) {
    for (double max_norm : {0.5, 2.0, 1e6}) {
      INFO("p " << p << ", max_norm " << max_norm);
      Params params;
      const double expected = reference_norm(params.grads, p);
      const double total = nn::utils::clip_grad_norm_(params.tensors, max_norm, p);
      CHECK(total == Approx(expected).epsilon(1e-14));
      const double coef = std::min(1.0, max_norm / (expected + 1e-6));
      for (size_t i = 0; i < params.grads.size(); ++i) {
        const auto got = params.tensors[i].grad().to_vector<double>();
        for (size_t j = 0; j < got.size(); ++j) {
          CHECK(got[j] == Approx(params.grads[i][j] * coef).epsilon(1e-14));
        }
      }
      CHECK_FALSE(params.tensors[3].grad().defined());
      if (max_norm > expected) {  // below the limit the gradients keep their exact values
        CHECK(params.tensors[0].grad().to_vector<double>() == params.grads[0]);
      } else {  // after clipping, the norm is max_norm (to the 1e-6 guard)
        CHECK(nn::utils::clip_grad_norm_(params.tensors, 1e9, p) == Approx(max_norm).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("clip_grad_norm_ in float32 and with mixed dtypes, single tensors and no gradients") {
  Params f32(wick::kFloat32);
  const double expected = reference_norm(f32.grads, 2.0);
  CHECK(nn::utils::clip_grad_norm_(f32.tensors, 1.0) == Approx(expected).epsilon(1e-6));
  CHECK(f32.tensors[0].grad().dtype() == wick::kFloat32);
  CHECK(f32.tensors[1].grad().to_vector<float>()[0] ==
        Approx(-3.0 / (expected + 1e-6)).epsilon(1e-6));
  // A float32 and a float64 gradient: the total is taken in float64.
  Params f64;
  Tensor mixed = f32.tensors[0].detach().requires_grad_();
  mixed.mutable_grad() = wick::tensor(f32.grads[0], wick::TensorOptions(wick::kFloat32));
  const double both =
      std::hypot(reference_norm({f32.grads[0]}, 2.0), reference_norm({f64.grads[1]}, 2.0));
  CHECK(nn::utils::clip_grad_norm_({mixed, f64.tensors[1]}, 1e9) == Approx(both).epsilon(1e-7));
  // One tensor; bfloat16 gradients.
  Tensor w = wick::zeros({2}).requires_grad_();
  w.mutable_grad() = wick::tensor({3.0f, 4.0f});
  CHECK(nn::utils::clip_grad_norm_(w, 1.0) == 5.0);
  CHECK(w.grad().to_vector<float>()[1] == Approx(0.8).epsilon(1e-6));
  Tensor b = wick::zeros({2}, wick::kBFloat16).requires_grad_();
  b.mutable_grad() = wick::tensor({3.0f, 4.0f}).to(wick::kBFloat16);
  CHECK(nn::utils::clip_grad_norm_(b, 10.0) == 5.0);
  // Nothing to clip.
  CHECK(nn::utils::clip_grad_norm_({wick::zeros({2}).requires_grad_()}, 1.0) == 0.0);
  CHECK(nn::utils::clip_grad_norm_(std::vector<Tensor>{}, 1.0) == 0.0);
  // An empty gradient has norm 0.
  Tensor e = wick::zeros({0}).requires_grad_();
  e.mutable_grad() = wick::zeros({0});
  CHECK(nn::utils::clip_grad_norm_(e, 1.0, kInf) == 0.0);
}

TEST_CASE("clip_grad_norm_ with a non-finite norm: an error that changes nothing, or NaN") {
  Params params;
  params.tensors[1].mutable_grad() = wick::tensor({kInf, 1.0}, wick::TensorOptions(wick::kFloat64));
  CHECK_THROWS_AS(nn::utils::clip_grad_norm_(params.tensors, 1.0, 2.0, true), wick::ValueError);
  CHECK(params.tensors[0].grad().to_vector<double>() == params.grads[0]);
  // Without the check PyTorch scales by max_norm / (inf + 1e-6) = 0: finite values become 0.
  CHECK(std::isinf(nn::utils::clip_grad_norm_(params.tensors, 1.0)));
  CHECK(params.tensors[0].grad().to_vector<double>() == std::vector<double>{0, -0.0, 0, 0});
}

TEST_CASE("clip_grad_value_ clamps every gradient element") {
  Params params;
  nn::utils::clip_grad_value_(params.tensors, 1.0);
  for (size_t i = 0; i < params.grads.size(); ++i) {
    const auto got = params.tensors[i].grad().to_vector<double>();
    for (size_t j = 0; j < got.size(); ++j) {
      CHECK(got[j] == std::clamp(params.grads[i][j], -1.0, 1.0));
    }
  }
  CHECK_FALSE(params.tensors[3].grad().defined());
}

TEST_CASE("gradient clipping rejects bad arguments") {
  Params params;
  CHECK_THROWS_AS(nn::utils::clip_grad_norm_(params.tensors, -1.0), wick::ValueError);
  CHECK_THROWS_AS(nn::utils::clip_grad_norm_(params.tensors, std::nan("")), wick::ValueError);
  CHECK_THROWS_AS(nn::utils::clip_grad_norm_(params.tensors, 1.0, 0.0), wick::ValueError);
  CHECK_THROWS_AS(nn::utils::clip_grad_norm_(params.tensors, 1.0, -kInf), wick::ValueError);
  CHECK_THROWS_AS(nn::utils::clip_grad_norm_({Tensor()}, 1.0), wick::ValueError);
  CHECK_THROWS_AS(nn::utils::clip_grad_value_(params.tensors, -0.5), wick::ValueError);
  CHECK(params.tensors[0].grad().to_vector<double>() == params.grads[0]);
}

TEST_CASE("clip_grad_norm_ in a training step: the step uses the clipped gradient") {
  wick::manual_seed(2);
  nn::Linear model(4, 1);
  wick::optim::SGD sgd(model->parameters(), wick::optim::SGDOptions(0.1));
  Tensor x = wick::randn({8, 4}) * 100.0;  // large inputs, large gradients
  Tensor y = wick::zeros({8, 1});
  const auto before = model->weight.to_vector<float>();
  nn::MSELoss()(model(x), y).backward();
  const double total = nn::utils::clip_grad_norm_(model->parameters(), 1.0);
  CHECK(total > 1.0);
  sgd.step();
  double moved = 0;
  const auto after = model->weight.to_vector<float>();
  for (size_t i = 0; i < after.size(); ++i) moved += std::pow(after[i] - before[i], 2.0);
  CHECK(std::sqrt(moved) <= 0.1 * 1.0 + 1e-6);  // lr * max_norm bounds the weight's move
}
