// ops_join.cpp: fuzz_ops steps: cat and stack over lists of pool tensors (the same tensor more
// than once, tensors of other shapes and dtypes, 0-d tensors, PyTorch's legacy [0] empties),
// every outcome and value predicted by the reference model; see fuzz_ops.cpp.
#include "ops_program.hpp"

namespace wick::fuzz::ops {

void Program::join() {
  const Tensor* pa = pick();
  if (pa == nullptr) return;
  const bool is_stack = in_.flag();
  const int64_t dim = static_cast<int64_t>(in_.below(11)) - 5;
  std::vector<Tensor> list{*pa};
  const uint32_t more = in_.below(4);
  for (uint32_t i = 0; i < more; ++i) {
    switch (in_.below(4)) {
      case 0:
        list.push_back(*pa);
        break;
      case 1:
        list.push_back(wick::zeros({0}, TensorOptions(dtype())));
        break;
      default:
        list.push_back(*pick());
        break;
    }
  }
  g_step = std::string(is_stack ? "stack" : "cat") + " along " + std::to_string(dim) + " of";
  for (const Tensor& t : list) g_step += " " + str(t);

  std::vector<Ref> refs;
  for (const Tensor& t : list) refs.push_back(snapshot(t));
  Dtype k = refs[0].dtype;
  for (const Ref& r : refs) k = promote(k, r.dtype);
  // The parts as cat sees them: stack's inputs with a size-1 dim inserted at the wrapped dim.
  bool bad = false;
  int64_t join_dim = dim;
  std::vector<Shape> parts;
  for (const Ref& r : refs) parts.push_back(r.sizes);
  if (is_stack) {
    const int64_t nd = static_cast<int64_t>(refs[0].sizes.size());
    for (const Ref& r : refs) bad = bad || r.sizes != refs[0].sizes;
    if (!bad) join_dim = wrap_dim_or(dim, nd + 1, bad);
    if (nd + 1 > Shape::kMaxDims) bad = true;
    if (!bad) {
      for (Shape& s : parts) s.insert(static_cast<size_t>(join_dim), 1);
    }
  }
  auto skipped = [](const Shape& s) { return s.size() == 1 && s[0] == 0; };
  const Shape* reference = nullptr;
  for (const Shape& s : parts) {
    if (!bad && s.size() == 0) bad = true;  // a 0-d tensor can't be concatenated
    if (reference == nullptr && !skipped(s)) reference = &s;
  }
  Shape want_sizes{0};
  if (!bad && reference != nullptr) {
    const int64_t nd = static_cast<int64_t>(reference->size());
    join_dim = wrap_dim_or(join_dim, nd, bad);
    if (!bad) {
      want_sizes = *reference;
      want_sizes[join_dim] = 0;
      for (const Shape& s : parts) {
        if (skipped(s)) continue;
        if (static_cast<int64_t>(s.size()) != nd) bad = true;
        for (int64_t d = 0; d < nd && !bad; ++d) {
          if (d != join_dim && s[d] != (*reference)[d]) bad = true;
        }
        if (bad) break;
        if (__builtin_add_overflow(want_sizes[join_dim], s[join_dim], &want_sizes[join_dim])) {
          bad = true;
          break;
        }
      }
    }
  }
  // A result whose strides overflow is an error too (make_empty); one too big to check is skipped.
  if (!bad && strides_overflow(want_sizes)) bad = true;
  if (!bad && *numel_of(want_sizes) > kMaxElems * 4) return;
  Tensor got;
  if (!outcome(bad ? Expect::Error : Expect::Ok,
               [&] { got = is_stack ? wick::stack(list, dim) : wick::cat(list, dim); })) {
    return;
  }
  // The want: each part's row-major values cast to k, placed at its offset along the dim.
  Ref want;
  want.sizes = want_sizes;
  want.dtype = k;
  want.v.resize(static_cast<size_t>(*numel_of(want_sizes)));
  if (reference != nullptr && !want.v.empty()) {  // (an empty result's dims may be huge)
    const int64_t nd = static_cast<int64_t>(want_sizes.size());
    int64_t inner = 1;
    for (int64_t d = join_dim + 1; d < nd; ++d) inner *= want_sizes[d];
    int64_t outer = 1;
    for (int64_t d = 0; d < join_dim; ++d) outer *= want_sizes[d];
    int64_t start = 0;
    for (size_t p = 0; p < parts.size(); ++p) {
      if (skipped(parts[p])) continue;
      const int64_t len = parts[p][join_dim];
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t j = 0; j < len * inner; ++j) {
          const V v = refs[p].v[static_cast<size_t>(o * len * inner + j)];
          want.v[static_cast<size_t>((o * want_sizes[join_dim] + start) * inner + j)] =
              cast(v, refs[p].dtype, k);
        }
      }
      start += len;
    }
  }
  if (!got.is_contiguous()) fail(g_step + ": result not contiguous");
  expect_equal(got, want, g_step, 0);
  add(got);
}

}  // namespace wick::fuzz::ops
