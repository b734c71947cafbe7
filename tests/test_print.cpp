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

TEST_CASE("print: a summary reads only the edges it shows", "[print]") {
  // Strings from python3-torch 1.13. The summary used to copy every element first: a print of
  // ones({1}).expand({2^40}) threw std::bad_alloc (found by review).
  CHECK(str(arange(2000.0).view({40, 50})) ==
        "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 4.7000e+01, 4.8000e+01,\n"
        "         4.9000e+01],\n"
        "        [5.0000e+01, 5.1000e+01, 5.2000e+01,  ..., 9.7000e+01, 9.8000e+01,\n"
        "         9.9000e+01],\n"
        "        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.4700e+02, 1.4800e+02,\n"
        "         1.4900e+02],\n"
        "        ...,\n"
        "        [1.8500e+03, 1.8510e+03, 1.8520e+03,  ..., 1.8970e+03, 1.8980e+03,\n"
        "         1.8990e+03],\n"
        "        [1.9000e+03, 1.9010e+03, 1.9020e+03,  ..., 1.9470e+03, 1.9480e+03,\n"
        "         1.9490e+03],\n"
        "        [1.9500e+03, 1.9510e+03, 1.9520e+03,  ..., 1.9970e+03, 1.9980e+03,\n"
        "         1.9990e+03]])");
  CHECK(str(arange(3000).view({10, 300})) ==
        "tensor([[   0,    1,    2,  ...,  297,  298,  299],\n"
        "        [ 300,  301,  302,  ...,  597,  598,  599],\n"
        "        [ 600,  601,  602,  ...,  897,  898,  899],\n"
        "        ...,\n"
        "        [2100, 2101, 2102,  ..., 2397, 2398, 2399],\n"
        "        [2400, 2401, 2402,  ..., 2697, 2698, 2699],\n"
        "        [2700, 2701, 2702,  ..., 2997, 2998, 2999]])");
  CHECK(str(ones({1}).expand({int64_t{1} << 40})) == "tensor([1., 1., 1.,  ..., 1., 1., 1.])");
  // A copy of all of it is a typed error, not std::bad_alloc.
  CHECK_THROWS_AS(ones({1}).expand({int64_t{1} << 62}).to_vector<float>(), OutOfMemoryError);
  // The summary of a transposed 3-D tensor matches its contiguous copy's.
  Tensor t = arange(24000.0).view({20, 30, 40}).transpose(0, 2);
  CHECK(str(t) == str(t.contiguous()));
}
