// test_views.cpp: views share storage and never copy; writes through a view are seen by the
// base; strides and offsets are what PyTorch gives; reshape copies only when it must;
// contiguous() copies only when needed.
#include "reference.hpp"

using namespace wick;

TEST_CASE("views: strides and offsets match PyTorch's", "[views]") {
  Tensor x = arange(24).view({2, 3, 4});
  CHECK(x.strides() == std::vector<int64_t>{12, 4, 1});
  CHECK(x.transpose(0, 2).strides() == std::vector<int64_t>{1, 4, 12});
  CHECK(x.permute({2, 0, 1}).sizes() == std::vector<int64_t>{4, 2, 3});
  CHECK(x.permute({2, 0, 1}).strides() == std::vector<int64_t>{1, 12, 4});
  CHECK(x.select(1, 2).storage_offset() == 8);
  CHECK(x.select(1, 2).sizes() == std::vector<int64_t>{2, 4});
  CHECK(x.narrow(2, 1, 2).storage_offset() == 1);
  CHECK(x.slice(2, 1, std::nullopt, 2).strides() == std::vector<int64_t>{12, 4, 2});
  CHECK(x.slice(2, -3, -1).sizes() == std::vector<int64_t>{2, 3, 2});
  CHECK(x.slice(0, 5, 9).sizes() == std::vector<int64_t>{0, 3, 4});  // clamps like Python
  CHECK(x.unsqueeze(1).sizes() == std::vector<int64_t>{2, 1, 3, 4});
  CHECK(x.unsqueeze(-1).strides() == std::vector<int64_t>{12, 4, 1, 1});
  CHECK(x.unsqueeze(1).squeeze(1).sizes() == x.sizes());
  CHECK(ones({1, 3, 1}).squeeze().sizes() == std::vector<int64_t>{3});
  CHECK(ones({2, 3}).squeeze(0).sizes() == std::vector<int64_t>{2, 3});
  CHECK(x.expand({5, 2, 3, 4}).strides() == std::vector<int64_t>{0, 12, 4, 1});
  CHECK(ones({3, 1}).expand({-1, 4}).strides() == std::vector<int64_t>{1, 0});
  CHECK(x.flatten().sizes() == std::vector<int64_t>{24});
  CHECK(x.flatten(1).sizes() == std::vector<int64_t>{2, 12});
  CHECK(ones({}).flatten().sizes() == std::vector<int64_t>{1});
  CHECK(ones({5}).t().sizes() == std::vector<int64_t>{5});
  CHECK(x.view({-1, 4}).sizes() == std::vector<int64_t>{6, 4});
  CHECK(x.view({4, -1}).sizes() == std::vector<int64_t>{4, 6});
}

TEST_CASE("views: share storage, and writes through them reach the base", "[views]") {
  Tensor base = zeros({4, 6});
  Tensor col = base.select(1, 2);
  col.fill_(7.0);
  Tensor block = base.narrow(0, 1, 2).slice(1, 3, 6);
  block.add_(1.0);
  Tensor diag_view = base.t().select(0, 5);
  diag_view.copy_(arange(4, TensorOptions(kFloat32)));
  std::vector<float> v = base.to_vector<float>();
  for (int64_t r = 0; r < 4; ++r) {
    for (int64_t c = 0; c < 6; ++c) {
      float want = 0;
      if (c == 2) want = 7;
      if (r >= 1 && r <= 2 && c >= 3) want += 1;
      if (c == 5) want = static_cast<float>(r);
      CHECK(v[r * 6 + c] == want);
    }
  }
  for (const Tensor& view : {col, block, diag_view, base.view({24}), base.transpose(0, 1),
                             base.unsqueeze(0), base.expand({3, 4, 6}), base.flatten()}) {
    CHECK(view.storage() == base.storage());
  }
  // A copy is independent.
  Tensor c = base.clone();
  c.fill_(0.0);
  CHECK(base.sum().item<float>() != 0.0f);
}

TEST_CASE("views: reshape copies only when no view exists; contiguous only when needed",
          "[views]") {
  Tensor x = randn({3, 4});
  CHECK(x.reshape({12}).storage() == x.storage());
  CHECK(x.contiguous().is_same(x));
  Tensor t = x.t();
  CHECK_FALSE(t.is_contiguous());
  Tensor r = t.reshape({12});
  CHECK(r.storage() != x.storage());
  CHECK(r.to_vector<float>() == t.contiguous().to_vector<float>());
  CHECK_THROWS_AS(t.view({12}), ShapeError);
  // Viewable although not contiguous: splitting a dim of a transposed tensor.
  Tensor split = t.view({2, 2, 3});
  CHECK(split.storage() == x.storage());
  CHECK(split.strides() == std::vector<int64_t>{2, 1, 4});
  // Size-1 and zero-size dims never block a view.
  CHECK(zeros({0, 3}).t().view({3, 0}).sizes() == std::vector<int64_t>{3, 0});
  CHECK(randn({1, 5}).t().view({5}).sizes() == std::vector<int64_t>{5});
  // An empty tensor is contiguous whatever its strides, as in PyTorch, so contiguous() keeps
  // it (found by review: the stride walk stopped before the size-0 dim).
  Tensor e = zeros({2, 0, 3}).transpose(0, 2);
  CHECK(e.is_contiguous());
  CHECK(e.contiguous().is_same(e));
  CHECK(zeros({0, 3}).slice(1, 0, std::nullopt, 2).is_contiguous());
  // detach shares storage and drops autograd.
  Tensor w = randn({2}, TensorOptions().requires_grad(true));
  CHECK(w.detach().storage() == w.storage());
  CHECK_FALSE(w.detach().requires_grad());
}

TEST_CASE("tensors are handles: copies share the implementation", "[views]") {
  Tensor a = zeros({3});
  Tensor b = a;
  b.add_(1.0);
  CHECK(a.to_vector<float>() == std::vector<float>{1, 1, 1});
  CHECK(a.is_same(b));
  Tensor undefined;
  CHECK_FALSE(undefined.defined());
  CHECK_THROWS_AS(undefined.sizes(), Error);
}

namespace {
// Random bit patterns of a 4- or 2-byte dtype through x.transpose(-1, -2).contiguous(): each
// must arrive where it belongs, unchanged.
template <typename Bits>
void check_transposed_bits(Dtype dtype, Bits nan_exponent, Bits nan_keep) {
  std::mt19937 g(7);
  for (const Shape& sizes : {Shape{8, 8}, Shape{16, 24}, Shape{67, 41}, Shape{3, 32, 40}}) {
    INFO(dtype_name(dtype) << " " << ::Catch::Detail::stringify(sizes));
    Tensor x = empty(sizes, dtype);
    std::vector<Bits> bits(static_cast<size_t>(x.numel()));
    for (Bits& b : bits) {
      b = g() % 4 == 0 ? static_cast<Bits>(nan_exponent | (g() & nan_keep))
                       : static_cast<Bits>(g());
    }
    std::memcpy(x.raw_data(), bits.data(), bits.size() * sizeof(Bits));
    const Tensor y = x.transpose(-1, -2).contiguous();
    const int64_t rows = sizes[sizes.size() - 2], cols = sizes[sizes.size() - 1];
    const auto* out = static_cast<const Bits*>(y.raw_data());
    int bad = 0;
    for (int64_t p = 0; p < x.numel() / (rows * cols); ++p) {
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < cols; ++c) {
          const Bits want = bits[static_cast<size_t>((p * rows + r) * cols + c)];
          bad += out[(p * cols + c) * rows + r] != want;
        }
      }
    }
    CHECK(bad == 0);
  }
}
}  // namespace

TEST_CASE("views: a transposed copy moves float32 and bfloat16 bits unchanged", "[views]") {
  // The register tiles (kernels/cpu/transpose_copy.cpp: AVX2 for 4-byte elements, SSE2 for
  // 2-byte ones) shuffle whole registers: every bit pattern, NaN payloads and signalling NaNs
  // included, must arrive as it was.
  check_transposed_bits<uint32_t>(kFloat32, 0x7f800001u, 0x807fffffu);
  check_transposed_bits<uint16_t>(kBFloat16, 0x7f81u, 0x807fu);
}

TEST_CASE("views: contiguous() of transposed and permuted tensors, every dtype", "[views]") {
  // The tiled path (kernels/cpu/transpose_copy.cpp) for sizes that are and are not multiples of
  // its 8 x 8 tiles, with batch dims around the two it swaps, against the plain walk of
  // reference.hpp. Values are distinct where the dtype allows (0..199 fits bfloat16 exactly).
  std::vector<Dtype> dtypes = ref::all_dtypes();
  dtypes.push_back(kBFloat16);
  struct Case {
    Shape sizes;
    std::vector<int64_t> perm;
  };
  const Case cases[] = {{{37, 45}, {1, 0}},
                        {{64, 64}, {1, 0}},
                        {{8, 8}, {1, 0}},
                        {{3, 37, 45}, {0, 2, 1}},
                        {{5, 9, 40}, {2, 0, 1}},
                        {{40, 9, 5}, {1, 2, 0}},
                        {{2, 17, 3, 33}, {3, 1, 2, 0}},
                        {{7, 300}, {1, 0}}};
  for (Dtype dtype : dtypes) {
    for (const Case& c : cases) {
      INFO(dtype_name(dtype) << " " << ::Catch::Detail::stringify(c.sizes));
      Tensor x = empty(c.sizes, TensorOptions(dtype));
      for (int64_t i = 0; i < x.numel(); ++i) ref::write_at(x, i, static_cast<double>(i % 200));
      Tensor view = x.permute(c.perm);
      Tensor y = view.contiguous();
      CHECK(y.is_contiguous());
      CHECK(ref::values(y) == ref::values(view));
      if (c.sizes.size() == 2) {
        // copy_ into an output that is itself transposed: the plain walk.
        Tensor out = empty({view.sizes()[1], view.sizes()[0]}, TensorOptions(dtype)).t();
        out.copy_(view);
        CHECK(ref::values(out) == ref::values(view));
      }
    }
  }
}
