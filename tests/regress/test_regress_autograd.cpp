// test_regress_autograd.cpp: regressions for autograd bugs found by fuzz/fuzz_autograd.cpp.
// docs/reliability.md lists each with its proposed fix.
#include <catch2/catch.hpp>

#include "wick/wick.hpp"

using namespace wick;

TEST_CASE("backward of max over a dim of a 0-d tensor", "[regress][autograd]") {
  // autograd/rules.cpp extreme_rule(): `while (!n.ints[dim]) ++dim;` looks for the reduced dim,
  // but a 0-d input has no dims (n.ints is empty), so the loop reads past the Shape (UBSan:
  // index 17 out of bounds for long[16]) and then writes pos_shape[dim] out of bounds.
  // PyTorch: torch.tensor(1.5, requires_grad=True).max(0) backward gives grad 1.
  for (bool is_max : {true, false}) {
    for (bool keepdim : {false, true}) {
      Tensor x = scalar_tensor(1.5, TensorOptions(kFloat64)).requires_grad_(true);
      auto [values, indices] = is_max ? max(x, 0, keepdim) : min(x, -1, keepdim);
      CHECK(indices.item<int64_t>() == 0);
      values.backward();
      REQUIRE(x.grad().defined());
      CHECK(x.grad().sizes() == x.sizes());
      CHECK(x.grad().item<double>() == 1.0);
    }
  }
}
