// first_op.cpp: an in-place op as a program's very first op. wick registers its kernels and
// the autograd hooks on the first dispatch; an in-place op read the hooks before that, found
// none, and neither checked nor recorded itself (b.add_(x) as the first op lost x's gradient;
// w.zero_() on a leaf that requires grad was accepted once). Each case must run in a fresh
// process, so CTest runs this program once per case: first_op <case>. The tensors are made from
// float64 vectors: tensor({...}) rounds to float32 through a dispatched cast, which initialised.
#include <cstdio>
#include <cstring>
#include <vector>

#include "wick/wick.hpp"

namespace {

int fail(const char* what) {
  std::fprintf(stderr, "FAILED: %s\n", what);
  return 1;
}

// torch 1.13: b = zeros(2); b.add_(x) (x = [1, 2], requires grad); (b * b).sum().backward()
// gives x.grad = [2, 4].
int add_records() {
  wick::Tensor x = wick::tensor(std::vector<double>{1.0, 2.0}).requires_grad_();
  wick::Tensor b = wick::tensor(std::vector<double>{0.0, 0.0});
  b.add_(x);
  if (!b.requires_grad()) return fail("b.add_(x) did not record: b does not require grad");
  (b * b).sum().backward();
  if (!x.grad().defined()) return fail("x got no gradient");
  if (x.grad().to_vector<double>() != std::vector<double>{2, 4}) return fail("x.grad != [2, 4]");
  return 0;
}

// torch 1.13: "a leaf Variable that requires grad is being used in an in-place operation".
int leaf_refused() {
  wick::Tensor w = wick::tensor(std::vector<double>{1.0, 2.0}).requires_grad_();
  try {
    w.zero_();
  } catch (const wick::AutogradError&) {
    return w.to_vector<double>() == std::vector<double>{1, 2} ? 0 : fail("w changed");
  }
  return fail("zero_ on a leaf that requires grad was accepted");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "add_records") == 0) return add_records();
  if (argc == 2 && std::strcmp(argv[1], "leaf_refused") == 0) return leaf_refused();
  std::fprintf(stderr, "usage: first_op add_records|leaf_refused\n");
  return 2;
}
