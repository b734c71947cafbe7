// test_batchnorm.cpp: BatchNorm1d/2d/3d against torch.nn's (python3-torch 1.13, float64;
// batchnorm_golden.inc from make_batchnorm_golden.py) through two training steps and an eval
// step: outputs, running statistics (momentum and the cumulative average), gradients of input,
// weight and bias; float32 too; gradcheck; buffers saved and moved; errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>
#include <wick/wick.hpp>

#include "golden_check.hpp"

namespace nn = wick::nn;
using wick::Tensor;

namespace {

struct BatchNormCase {
  std::string name;
  std::vector<int64_t> shape;
  std::optional<double> momentum;
  std::vector<double> weight, bias, x1, x2, x3, seed, out1, mean1, var1, out2, mean2, var2, out3,
      grad_x1, grad_affine;
};

#include "batchnorm_golden.inc"

template <typename BatchNormModule>
void check_case(const BatchNormCase& c, wick::Dtype dtype, double rel) {
  INFO("case " << c.name << " in " << dtype);
  const auto opts = wick::TensorOptions(dtype);
  const wick::Shape shape(c.shape);
  BatchNormModule bn(nn::BatchNormOptions(c.shape[1]).momentum(c.momentum));
  bn->to(dtype);
  {
    wick::NoGradGuard no_grad;
    bn->weight.copy_(wick::tensor(c.weight, opts));
    bn->bias.copy_(wick::tensor(c.bias, opts));
  }
  Tensor x1 = wick::tensor(c.x1, shape, opts).requires_grad_();
  Tensor out1 = bn(x1);
  check_values(out1, c.out1, rel, "training output, step 1");
  (out1 * wick::tensor(c.seed, shape, opts)).sum().backward();
  check_values(x1.grad(), c.grad_x1, rel, "d x1");
  check_values(wick::cat({bn->weight.grad(), bn->bias.grad()}), c.grad_affine, rel,
               "d weight and d bias");
  check_values(bn->running_mean, c.mean1, rel, "running_mean after step 1");
  check_values(bn->running_var, c.var1, rel, "running_var after step 1");
  CHECK(bn->num_batches_tracked.template item<int64_t>() == 1);
  check_values(bn(wick::tensor(c.x2, shape, opts)), c.out2, rel, "training output, step 2");
  check_values(bn->running_mean, c.mean2, rel, "running_mean after step 2");
  check_values(bn->running_var, c.var2, rel, "running_var after step 2");
  CHECK(bn->num_batches_tracked.template item<int64_t>() == 2);
  CHECK_FALSE(bn->running_mean.requires_grad());
  bn->eval();
  check_values(bn(wick::tensor(c.x3, shape, opts)), c.out3, rel, "eval output");
  CHECK(bn->num_batches_tracked.template item<int64_t>() == 2);  // eval leaves the statistics alone
  check_values(bn->running_mean, c.mean2, rel, "running_mean after eval");
}

// The module torch used for the case: BatchNorm1d for 2 and 3 dims, 2d for 4, 3d for 5.
void check_case_by_rank(const BatchNormCase& c, wick::Dtype dtype, double rel) {
  if (c.shape.size() <= 3) {
    check_case<nn::BatchNorm1d>(c, dtype, rel);
  } else if (c.shape.size() == 4) {
    check_case<nn::BatchNorm2d>(c, dtype, rel);
  } else {
    check_case<nn::BatchNorm3d>(c, dtype, rel);
  }
}

}  // namespace

TEST_CASE("BatchNorm1d, 2d and 3d match PyTorch in float64 and float32") {
  REQUIRE(kBatchNormCases.size() == 6);
  for (const BatchNormCase& c : kBatchNormCases) check_case_by_rank(c, wick::kFloat64, 1e-12);
  for (const BatchNormCase& c : kBatchNormCases) check_case_by_rank(c, wick::kFloat32, 5e-6);
}

TEST_CASE("batch_norm passes gradcheck in input, weight and bias") {
  const auto opts = wick::TensorOptions(wick::kFloat64).requires_grad(true);
  wick::manual_seed(31);
  Tensor w = wick::randn({3}, opts), b = wick::randn({3}, opts);
  Tensor rm = wick::zeros({3}, wick::kFloat64), rv = wick::ones({3}, wick::kFloat64);
  for (const wick::Shape& shape : {wick::Shape{4, 3, 2}, wick::Shape{2, 3, 2, 2}})
    for (bool training : {true, false}) {
      Tensor x = wick::randn(shape, opts);
      CHECK(
          wick::autograd::gradcheck(
              [&](const std::vector<Tensor>& in) {
                return nn::F::batch_norm(
                           in[0], rm, rv,
                           nn::BatchNormFuncOptions().weight(in[1]).bias(in[2]).training(training))
                    .reshape({-1});
              },
              {x, w, b}) == "");
    }
}

TEST_CASE("BatchNorm1d's buffers: names, saving, moving, options") {
  nn::BatchNorm1d bn(4);
  std::vector<std::string> names;
  for (const auto& [name, t] : bn->named_buffers()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"});
  CHECK(bn->parameters().size() == 2);
  std::ostringstream printed;
  printed << bn;
  CHECK(printed.str() ==
        "BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)");
  std::ostringstream printed2d;
  printed2d << nn::BatchNorm2d(nn::BatchNorm2dOptions(8).momentum(std::nullopt));
  CHECK(printed2d.str() ==
        "BatchNorm2d(8, eps=1e-05, momentum=None, affine=True, track_running_stats=True)");
  bn->to(wick::kFloat64);
  CHECK(bn->running_var.dtype() == wick::kFloat64);
  CHECK(bn->num_batches_tracked.dtype() == wick::kInt64);  // integer buffers keep their dtype
  bn(wick::randn({8, 4}, wick::kFloat64));
  // Saved and loaded bit-exact, the int64 batch count included.
  const auto path = std::filesystem::temp_directory_path() / "wick_test_batchnorm.safetensors";
  wick::save(bn, path);
  nn::BatchNorm1d copy(4);
  copy->to(wick::kFloat64);
  wick::load(copy, path);
  std::filesystem::remove(path);
  CHECK(wick::equal(copy->running_var, bn->running_var));
  CHECK(copy->num_batches_tracked.item<int64_t>() == 1);
  bn->reset_running_stats();
  CHECK(wick::equal(bn->running_mean, wick::zeros({4}, wick::kFloat64)));
  CHECK(bn->num_batches_tracked.item<int64_t>() == 0);
  // Without tracking there are no buffers and eval() still uses the batch's statistics.
  nn::BatchNorm1d plain(nn::BatchNorm1dOptions(2).track_running_stats(false).affine(false));
  CHECK(plain->named_buffers().empty());
  CHECK(plain->parameters().empty());
  plain->eval();
  Tensor y = plain(wick::tensor({1.0, 10.0, 3.0, 20.0}).reshape({2, 2}));
  CHECK(y.to_vector<float>()[0] == Approx(-1.0).epsilon(1e-4));
}

TEST_CASE("BatchNorm1d rejects bad input with clear errors") {
  nn::BatchNorm1d bn(3);
  CHECK_THROWS_WITH(bn(wick::zeros({4, 5})),
                    Catch::Contains("BatchNorm1d") && Catch::Contains("[4, 5]"));
  CHECK_THROWS_AS(bn(wick::zeros({4})), wick::ShapeError);
  CHECK_THROWS_AS(bn(wick::zeros({2, 3, 4, 5})), wick::ShapeError);
  nn::BatchNorm2d bn2d(3);
  CHECK_THROWS_WITH(
      bn2d(wick::zeros({4, 3})),
      Catch::Contains("nn::BatchNorm2d: expected a 4-D input") && Catch::Contains("[4, 3]"));
  CHECK_THROWS_AS(nn::BatchNorm3d(nn::BatchNorm3dOptions(2))(wick::zeros({2, 2, 3, 3})),
                  wick::ShapeError);
  CHECK_THROWS_WITH(nn::BatchNorm2d(-1), Catch::Contains("nn::BatchNorm2d: num_features -1"));
  CHECK_THROWS_AS(nn::F::batch_norm(wick::zeros({4}), Tensor(), Tensor()), wick::ShapeError);
  CHECK_THROWS_WITH(bn(wick::zeros({1, 3})), Catch::Contains("more than 1 value per channel"));
  CHECK_THROWS_AS(bn(wick::zeros({4, 3}, wick::kInt64)), wick::DtypeError);
  CHECK_THROWS_AS(bn(wick::zeros({4, 3}, wick::kFloat64)), wick::DtypeError);
  // The refused calls counted no batch (the momentum-None average divides by the count).
  CHECK(bn->num_batches_tracked.item<int64_t>() == 0);
  bn(wick::randn({4, 3}));
  CHECK(bn->num_batches_tracked.item<int64_t>() == 1);
  CHECK_THROWS_AS(nn::BatchNorm1d(0), wick::ValueError);
  CHECK_THROWS_AS(nn::F::batch_norm(wick::zeros({4, 3}), wick::zeros({2}), wick::ones({2})),
                  wick::ShapeError);
  CHECK_THROWS_AS(nn::F::batch_norm(wick::zeros({4, 3}), wick::zeros({3}), Tensor()),
                  wick::ValueError);
  // Channel tensors of another dtype are refused before the running statistics move.
  Tensor mean64 = wick::zeros({3}, wick::kFloat64);
  Tensor var_int = wick::ones({3}, wick::kInt64);
  CHECK_THROWS_WITH(
      nn::F::batch_norm(wick::randn({4, 3}, wick::kFloat64), mean64, var_int,
                        nn::F::BatchNormFuncOptions().training(true)),
      Catch::Contains("running_var") && Catch::Contains("int64") && Catch::Contains("float64"));
  CHECK(wick::equal(mean64, wick::zeros({3}, wick::kFloat64)));
  CHECK_THROWS_AS(
      nn::F::batch_norm(wick::randn({4, 3}), wick::zeros({3}), wick::ones({3}),
                        nn::F::BatchNormFuncOptions().weight(wick::ones({3}, wick::kFloat64))),
      wick::DtypeError);
  // Evaluation needs running statistics (PyTorch: "running_mean must be defined").
  CHECK_THROWS_AS(nn::F::batch_norm(wick::randn({4, 3}), Tensor(), Tensor()), wick::ValueError);
  // An empty batch in training: an empty result, statistics untouched (as PyTorch).
  Tensor before = bn->running_var.clone();
  Tensor empty = bn(wick::zeros({0, 3}));
  CHECK(empty.sizes() == wick::Shape{0, 3});
  CHECK(wick::equal(bn->running_var, before));
  // One sample in eval() uses the running statistics, so it is fine.
  bn->eval();
  CHECK(bn(wick::ones({1, 3})).sizes() == wick::Shape{1, 3});
}
