// test_groupnorm.cpp: GroupNorm against torch.nn.GroupNorm (python3-torch 1.13, float64;
// groupnorm_golden.inc from make_groupnorm_golden.py): outputs and the gradients of input,
// weight and bias, in float64 and float32; gradcheck; printing; errors.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>
#include <wick/wick.hpp>

#include "golden_check.hpp"

namespace nn = wick::nn;
using wick::Tensor;

namespace {

struct GroupNormCase {
  std::string name;
  std::vector<int64_t> shape;
  int64_t groups;
  double eps;
  std::vector<double> weight, bias, x, seed, out, grad_x, grad_affine;
};

#include "groupnorm_golden.inc"

void check_case(const GroupNormCase& c, wick::Dtype dtype, double rel) {
  INFO("case " << c.name << " in " << dtype);
  const auto opts = wick::TensorOptions(dtype);
  const wick::Shape shape(c.shape);
  nn::GroupNorm gn(nn::GroupNormOptions(c.groups, c.shape[1]).eps(c.eps));
  gn->to(dtype);
  {
    wick::NoGradGuard no_grad;
    gn->weight.copy_(wick::tensor(c.weight, opts));
    gn->bias.copy_(wick::tensor(c.bias, opts));
  }
  Tensor x = wick::tensor(c.x, shape, opts).requires_grad_();
  Tensor out = gn(x);
  check_values(out, c.out, rel, "output");
  (out * wick::tensor(c.seed, shape, opts)).sum().backward();
  check_values(x.grad(), c.grad_x, rel, "d x");
  check_values(wick::cat({gn->weight.grad(), gn->bias.grad()}), c.grad_affine, rel,
               "d weight and d bias");
  // No running statistics: eval() gives the same values.
  gn->eval();
  check_values(gn(x.detach()), c.out, rel, "eval output");
}

}  // namespace

TEST_CASE("GroupNorm matches PyTorch in float64 and float32") {
  REQUIRE(kGroupNormCases.size() == 4);
  for (const GroupNormCase& c : kGroupNormCases) check_case(c, wick::kFloat64, 1e-12);
  for (const GroupNormCase& c : kGroupNormCases) check_case(c, wick::kFloat32, 5e-6);
}

TEST_CASE("group_norm passes gradcheck in input, weight and bias") {
  const auto opts = wick::TensorOptions(wick::kFloat64).requires_grad(true);
  wick::manual_seed(37);
  Tensor x = wick::randn({2, 4, 3}, opts), w = wick::randn({4}, opts), b = wick::randn({4}, opts);
  for (int64_t groups : {1, 2, 4}) {
    INFO("groups " << groups);
    CHECK(wick::autograd::gradcheck(
              [&](const std::vector<Tensor>& in) {
                return nn::F::group_norm(
                           in[0], nn::F::GroupNormFuncOptions(groups).weight(in[1]).bias(in[2]))
                    .reshape({-1});
              },
              {x, w, b}) == "");
  }
}

TEST_CASE("GroupNorm: parameters, printing, empty batches") {
  nn::GroupNorm gn(2, 6);
  CHECK(gn->parameters().size() == 2);
  CHECK(gn->named_buffers().empty());
  std::ostringstream printed;
  printed << gn;
  CHECK(printed.str() == "GroupNorm(2, 6, eps=1e-05, affine=True)");
  nn::GroupNorm plain(nn::GroupNormOptions(3, 3).affine(false));
  CHECK(plain->parameters().empty());
  // A batch of one is fine (unlike BatchNorm in training), and an empty batch gives an empty
  // result.
  Tensor one = plain(wick::tensor({1.0f, 5.0f, 9.0f, 2.0f, 4.0f, 6.0f}).reshape({1, 3, 2}));
  CHECK(one.to_vector<float>()[0] == Approx(-1.0).epsilon(1e-4));
  CHECK(gn(wick::zeros({0, 6, 4})).sizes() == wick::Shape{0, 6, 4});
}

TEST_CASE("GroupNorm rejects bad input with clear errors") {
  CHECK_THROWS_WITH(nn::GroupNorm(4, 6), Catch::Contains("nn::GroupNorm") &&
                                             Catch::Contains("num_channels 6") &&
                                             Catch::Contains("num_groups 4"));
  CHECK_THROWS_AS(nn::GroupNorm(0, 6), wick::ValueError);
  nn::GroupNorm gn(2, 4);
  CHECK_THROWS_WITH(gn(wick::zeros({3, 5})),
                    Catch::Contains("nn::GroupNorm") && Catch::Contains("[3, 5]"));
  CHECK_THROWS_AS(gn(wick::zeros({4})), wick::ShapeError);
  CHECK_THROWS_AS(gn(wick::zeros({2, 4}, wick::kInt64)), wick::DtypeError);
  CHECK_THROWS_WITH(nn::F::group_norm(wick::zeros({2, 6}), nn::F::GroupNormFuncOptions(4)),
                    Catch::Contains("group_norm") && Catch::Contains("6 channels"));
  CHECK_THROWS_AS(nn::F::group_norm(wick::zeros({2, 4}),
                                    nn::F::GroupNormFuncOptions(2).weight(wick::ones({3}))),
                  wick::ShapeError);
  CHECK_THROWS_AS(nn::F::group_norm(wick::zeros({2, 4}), nn::F::GroupNormFuncOptions(2).bias(
                                                             wick::ones({4}, wick::kFloat64))),
                  wick::DtypeError);
  // The module still works after the refusals.
  CHECK(gn(wick::randn({2, 4})).sizes() == wick::Shape{2, 4});
}
