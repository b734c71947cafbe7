// test_print.cpp: std::cout << tensor prints what PyTorch 1.13 prints for the same values
// (expected strings taken from python3-torch on this machine).
#include "reference.hpp"

using namespace wick;

namespace {
std::string str(const Tensor& t) {
  std::ostringstream out;
  out << t;
  return out.str();
}
}  // namespace

TEST_CASE("print: like PyTorch", "[print]") {
  CHECK(str(tensor({1.5, 2.25, 3.0, 4.0}).view({2, 2})) ==
        "tensor([[1.5000, 2.2500],\n        [3.0000, 4.0000]])");
  CHECK(str(tensor({1.0, 2.0})) == "tensor([1., 2.])");
  CHECK(str(scalar_tensor(3.5)) == "tensor(3.5000)");
  CHECK(str(zeros({1, 0, 3})) == "tensor([], size=(1, 0, 3))");
  // An empty tensor names its dtype even where values would imply it (found by review).
  CHECK(str(zeros({2, 0}, kInt64)) == "tensor([], size=(2, 0), dtype=int64)");
  CHECK(str(zeros({0}, kBool)) == "tensor([], dtype=bool)");
  CHECK(str(zeros({2}, kInt64)) == "tensor([0, 0])");
  CHECK(str(zeros({0})) == "tensor([])");
  CHECK(str(tensor({1e-5, 1.0})) == "tensor([1.0000e-05, 1.0000e+00])");
  CHECK(str(tensor(std::vector<int64_t>{1, 22, -3})) == "tensor([ 1, 22, -3])");
  CHECK(str(tensor(std::vector<bool>{true, false})) == "tensor([ True, False])");
  CHECK(str(tensor({1e10, 1.0})) == "tensor([1.0000e+10, 1.0000e+00])");
  CHECK(str(tensor({0.1, 2.0}, kFloat64)) == "tensor([0.1000, 2.0000], dtype=float64)");
  CHECK(str(tensor({NAN, INFINITY, 1.5})) == "tensor([   nan,    inf, 1.5000])");
  CHECK(str(tensor({NAN, INFINITY, 1.0})) == "tensor([nan, inf, 1.])");
  CHECK(str(arange(2000.0)) ==
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
        "        1.9990e+03])");
  CHECK(str(ones({2}, TensorOptions().requires_grad(true))) ==
        "tensor([1., 1.], requires_grad=True)");
  CHECK(str(Tensor()) == "[ Tensor (undefined) ]");
  // A result of a recorded op names its node as PyTorch 1.13 does (it printed <backward>).
  Tensor leaf = tensor({1.0, 2.0}).requires_grad_();
  CHECK(str(leaf * 2.0) == "tensor([2., 4.], grad_fn=<MulBackward0>)");
  CHECK(str(log_softmax(leaf, 0)).find("grad_fn=<LogSoftmaxBackward0>") != std::string::npos);
}

TEST_CASE("print: 3-D tensors separate blocks with a blank line", "[print]") {
  Tensor t = arange(8).view({2, 2, 2});
  CHECK(str(t) == "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])");
}
