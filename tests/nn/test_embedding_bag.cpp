// test_embedding_bag.cpp: EmbeddingBag and functional::embedding_bag (wick/nn/embedding_bag.hpp)
// against torch 1.13's values and weight gradients in float64 (window_golden.inc, written by
// make_window_golden.py: sum, mean and max; offsets with an empty bag, 2-D bags, padding_idx with
// include_last_offset, per_sample_weights; equal rows for max), against embedding's rows summed
// by hand, the module, and the errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#include <wick/wick.hpp>

#include "golden_check.hpp"

namespace nn = wick::nn;
namespace F = wick::nn::functional;
using Catch::Matchers::Contains;
using wick::Tensor;

namespace {

#include "window_golden.inc"

using Ts = std::vector<Tensor>;
using Fn = std::function<Tensor(const Ts&)>;

Tensor ints(std::vector<int64_t> v) {
  const auto n = static_cast<int64_t>(v.size());
  return wick::tensor(v, wick::Shape{n}, wick::TensorOptions(wick::kInt64));
}

const std::map<std::string, Fn>& calls() {
  static const std::map<std::string, Fn> c = [] {
    std::map<std::string, Fn> m;
    const Tensor flat = ints({1, 2, 4, 0, 5, 5, 3, 1, 0});
    const Tensor offsets = ints({0, 3, 3, 7});
    const Tensor grid = ints({0, 2, 4, 5, 1, 1}).reshape({2, 3});
    const std::pair<const char*, nn::EmbeddingBagMode> modes[] = {
        {"sum", nn::EmbeddingBagMode::Sum},
        {"mean", nn::EmbeddingBagMode::Mean},
        {"max", nn::kMax}};
    for (const auto& entry : modes) {
      // Copies, not structured bindings: clang 14 cannot capture those in a lambda.
      const std::string n(entry.first);
      const nn::EmbeddingBagMode mode = entry.second;
      m["embedding_bag " + n + ", offsets"] = [=](const Ts& x) {
        return F::embedding_bag(flat, x[0],
                                nn::EmbeddingBagFuncOptions().offsets(offsets).mode(mode));
      };
      m["embedding_bag " + n + ", 2-D"] = [=](const Ts& x) {
        return F::embedding_bag(grid, x[0], nn::EmbeddingBagFuncOptions().mode(mode));
      };
      m["embedding_bag " + n + ", padding_idx 1, include_last_offset"] = [=](const Ts& x) {
        return F::embedding_bag(flat, x[0],
                                nn::EmbeddingBagFuncOptions()
                                    .offsets(ints({0, 2, 5, 9}))
                                    .mode(mode)
                                    .padding_idx(1)
                                    .include_last_offset(true));
      };
    }
    m["embedding_bag sum, per_sample_weights"] = [=](const Ts& x) {
      return F::embedding_bag(
          flat, x[0],
          nn::EmbeddingBagFuncOptions().offsets(offsets).mode(nn::kSum).per_sample_weights(x[1]));
    };
    return m;
  }();
  return c;
}

}  // namespace

TEST_CASE("embedding_bag: PyTorch's values and gradients", "[nn][embedding_bag]") {
  REQUIRE(kEmbeddingBagCases.size() == calls().size());
  for (const MultiInputCase& c : kEmbeddingBagCases) check_multi_input_case(c, calls().at(c.name));
}

TEST_CASE("embedding_bag sums embedding's rows; the module", "[nn][embedding_bag]") {
  wick::manual_seed(6);
  nn::EmbeddingBag bag(nn::EmbeddingBagOptions(10, 4).mode(nn::kSum).padding_idx(-1));
  CHECK(bag->weight.sizes() == wick::Shape{10, 4});
  CHECK(bag->weight.select(0, 9).abs().sum().item<float>() == 0.0f);  // the padding row
  const Tensor input = ints({3, 9, 7, 7, 1});
  const Tensor out = bag(input, ints({0, 2}));
  const Tensor rows = F::embedding(input, bag->weight);
  const Tensor want = wick::stack({rows.narrow(0, 0, 2).sum(0), rows.narrow(0, 2, 3).sum(0)});
  CHECK(wick::allclose(out, want, 1e-6, 1e-6));
  out.sum().backward();
  // Row 7 was used twice, row 9 is padding (left out: no gradient), row 0 not at all.
  CHECK(bag->weight.grad().select(0, 7).to_vector<float>() == std::vector<float>(4, 2.0f));
  CHECK(bag->weight.grad().select(0, 9).abs().sum().item<float>() == 0.0f);
  CHECK(bag->weight.grad().select(0, 0).abs().sum().item<float>() == 0.0f);
  std::ostringstream printed;
  printed << nn::EmbeddingBag(10, 3) << " " << bag;
  CHECK(printed.str() ==
        "EmbeddingBag(10, 3, mode=mean) EmbeddingBag(10, 4, mode=sum, padding_idx=9)");
}

TEST_CASE("embedding_bag: errors name the op", "[nn][embedding_bag][errors]") {
  const Tensor weight = wick::randn({5, 2});
  using O = nn::EmbeddingBagFuncOptions;
  CHECK_THROWS_WITH(F::embedding_bag(ints({0, 1}), weight),
                    Contains("embedding_bag") && Contains("offsets"));
  CHECK_THROWS_AS(F::embedding_bag(ints({0, 1}).reshape({1, 2}), weight, O().offsets(ints({0}))),
                  wick::ValueError);
  CHECK_THROWS_WITH(F::embedding_bag(ints({0, 1}), weight, O().offsets(ints({1}))),
                    Contains("offsets[0] must be 0"));
  CHECK_THROWS_AS(F::embedding_bag(ints({0, 1}), weight, O().offsets(ints({0, 3}))),
                  wick::ValueError);
  CHECK_THROWS_AS(F::embedding_bag(ints({0, 7}), weight, O().offsets(ints({0}))), wick::IndexError);
  CHECK_THROWS_AS(F::embedding_bag(ints({0, 1}), weight,
                                   O().offsets(ints({0})).per_sample_weights(wick::ones({2}))),
                  wick::ValueError);  // mode mean
  CHECK_THROWS_AS(F::embedding_bag(ints({0, 1}), weight, O().offsets(ints({0})).sparse(true)),
                  wick::ValueError);
  CHECK_THROWS_AS(nn::EmbeddingBagOptions(5, 2).mode(nn::kNone), wick::ValueError);
  // After the errors it works; all-padding and empty bags give zeros.
  const Tensor out = F::embedding_bag(ints({2, 2}), weight,
                                      O().offsets(ints({0, 2})).mode(nn::kMax).padding_idx(2));
  CHECK(out.sizes() == wick::Shape{2, 2});
  CHECK(out.abs().sum().item<float>() == 0.0f);
}
