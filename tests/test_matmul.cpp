// test_matmul.cpp: matmul against the plain triple-loop reference (accumulating in double)
// at sizes 1, 7, 16, 33, 127, 128, 129, 1000 and non-square, transposed operands read in
// place, 1-D operands, and batched products with broadcast batch dims.
#include "reference.hpp"
#include "wick/matmul_backend.hpp"

using namespace wick;
using ref::Layout;

// Plain C = A @ B in double, with matmul's 1-D and batch-broadcast rules. Result is float64
// (or int64 for int64 inputs) on the CPU.
Tensor reference_matmul(const Tensor& a, const Tensor& b) {
  Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
  Tensor b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
  int64_t m = a2.size(-2), k = a2.size(-1), n = b2.size(-1);
  Shape batch = broadcast_shapes(Shape(a2.sizes().begin(), a2.sizes().end() - 2),
                                 Shape(b2.sizes().begin(), b2.sizes().end() - 2));
  Shape out_sizes = batch;
  out_sizes.push_back(m);
  out_sizes.push_back(n);
  Tensor out = zeros(out_sizes, a.dtype() == kInt64 ? kInt64 : kFloat64);
  ref::for_each_index(out_sizes, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> ia(i.begin(), i.end() - 2), ib(ia);
    ia.push_back(i[i.size() - 2]);
    ia.push_back(0);
    ib.push_back(0);
    ib.push_back(i.back());
    // Element kk of the row of A and the column of B: the kk = 0 offset plus kk strides.
    const int64_t a0 = ref::offset_of(a2, ia), b0 = ref::offset_of(b2, ib);
    const int64_t a_step = a2.stride(-1), b_step = b2.stride(-2);
    double acc = 0;
    for (int64_t kk = 0; kk < k; ++kk)
      acc += ref::read_at(a2, a0 + kk * a_step) * ref::read_at(b2, b0 + kk * b_step);
    ref::write_at(out, ref::offset_of(out, i), acc);
  });
  if (a.dim() == 1 || b.dim() == 1) {
    Shape final_sizes = batch;
    if (a.dim() > 1) final_sizes.push_back(m);
    if (b.dim() > 1) final_sizes.push_back(n);
    out = out.reshape(final_sizes);
  }
  return out;
}

namespace {

// Normalised error ||got - want|| / ||want|| (ggml's measure), and an elementwise bound.
void check_product(const Tensor& a, const Tensor& b, double tol) {
  Tensor got = matmul(a, b);
  Tensor want = reference_matmul(a, b);
  REQUIRE(got.sizes() == want.sizes());
  std::vector<double> g = ref::values(got), w = ref::values(want);
  double err = 0, norm = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    err += (g[i] - w[i]) * (g[i] - w[i]);
    norm += w[i] * w[i];
  }
  INFO("matmul of " << describe(a) << " and " << describe(b));
  CHECK(std::sqrt(err) <= tol * std::max(std::sqrt(norm), 1e-30));
  for (double v : g) {
    if (!std::isfinite(v)) {
      FAIL_CHECK("non-finite output");
      break;
    }
  }
}

}  // namespace

TEST_CASE("matmul: square sizes against the reference", "[matmul]") {
  for (Dtype dtype : {kFloat32, kFloat64}) {
    for (int64_t n : {1, 7, 16, 33, 127, 128, 129}) {
      Tensor a = ref::make_input({n, n}, dtype, Layout::Contiguous);
      Tensor b = ref::make_input({n, n}, dtype, Layout::Contiguous);
      check_product(a, b, dtype == kFloat32 ? 1e-6 : 1e-14);
    }
  }
  // 1000: the seed size (float32 only: the reference loop costs a second).
  Tensor a = ref::make_input({1000, 1000}, kFloat32, Layout::Contiguous);
  Tensor b = ref::make_input({1000, 1000}, kFloat32, Layout::Transposed);
  check_product(a, b, 1e-6);
}

TEST_CASE("matmul: non-square and transposed operands are read in place", "[matmul]") {
  for (auto [m, k, n] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {1, 129, 7}, {129, 1, 33}, {7, 33, 300}, {300, 17, 1}, {64, 10, 1}, {5, 0, 3}}) {
    for (Layout la : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
      for (Layout lb : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
        Tensor a = ref::make_input({m, k}, kFloat64, la);
        Tensor b = ref::make_input({k, n}, kFloat64, lb);
        check_product(a, b, 1e-14);
      }
    }
  }
  // A transposed view is passed through as strides: no copy is made of the operand.
  Tensor base = randn({64, 32});
  Tensor at = base.t();
  CHECK_FALSE(at.is_contiguous());
  Tensor prod = matmul(at, base);
  CHECK(prod.sizes() == std::vector<int64_t>{32, 32});
}

TEST_CASE("matmul: 1-D operands and batches with broadcast batch dims", "[matmul]") {
  for (auto [sa, sb] : std::vector<std::pair<Shape, Shape>>{{{20}, {20}},
                                                            {{20}, {20, 3}},
                                                            {{4, 20}, {20}},
                                                            {{3, 4, 5}, {5}},
                                                            {{5}, {3, 5, 4}},
                                                            {{2, 3, 4, 5}, {5, 6}},
                                                            {{4, 5}, {2, 3, 5, 6}},
                                                            {{2, 1, 4, 5}, {3, 5, 6}},
                                                            {{1, 7, 8}, {4, 8, 2}},
                                                            {{0, 4, 5}, {5, 2}}}) {
    Tensor a = ref::make_input(sa, kFloat64, Layout::Contiguous);
    Tensor b = ref::make_input(sb, kFloat64, Layout::Transposed);
    check_product(a, b, 1e-14);
  }
  CHECK(matmul(ones({20}), ones({20})).dim() == 0);
  CHECK(matmul(ones({20}), ones({20})).item<float>() == 20.0f);
  // Many small matrices run in parallel over the batch; same answers.
  Tensor a = ref::make_input({64, 9, 7}, kFloat32, Layout::Transposed);
  Tensor b = ref::make_input({64, 7, 5}, kFloat32, Layout::Strided);
  check_product(a, b, 1e-6);
}

TEST_CASE("matmul: int64 products are exact", "[matmul]") {
  Tensor a = ref::make_input({33, 17}, kInt64, Layout::Transposed);
  Tensor b = ref::make_input({17, 9}, kInt64, Layout::Contiguous);
  Tensor got = matmul(a, b);
  CHECK(got.dtype() == kInt64);
  CHECK(ref::values(got) == ref::values(reference_matmul(a, b)));
}

TEST_CASE("matmul kernel choice: names, errors, the old interface", "[matmul]") {
  const std::string before = wick::matmul_kernel();
  CHECK(before == "auto");
  wick::set_matmul_kernel("07_warptile");
  CHECK(std::string(wick::matmul_kernel()) == "07_warptile");
  CHECK(wick::matmul_backend() == wick::MatmulBackend::Tiled);
  wick::set_matmul_backend(wick::MatmulBackend::Cublas);
  CHECK(std::string(wick::matmul_kernel()) == "cublas");
  wick::set_matmul_kernel("tiled");  // the old name of "auto"
  CHECK(std::string(wick::matmul_kernel()) == "auto");
  try {
    wick::set_matmul_kernel("10_magic");
    FAIL("an unknown kernel name was accepted");
  } catch (const wick::ValueError& e) {
    const std::string what = e.what();
    CHECK(what.find("10_magic") != std::string::npos);
    CHECK(what.find("09_tf32_mma") != std::string::npos);  // the message lists the known names
  }
  CHECK(std::string(wick::matmul_kernel()) == "auto");  // unchanged by the failed call
  CHECK_FALSE(wick::allow_tf32());
  wick::set_allow_tf32(true);
  CHECK(wick::allow_tf32());
  wick::set_allow_tf32(false);
  // A CPU matmul is not a CUDA kernel: nothing is recorded.
  const wick::Tensor c = wick::ones({2, 3}).matmul(wick::ones({3, 2}));
  CHECK(std::string(wick::last_matmul_kernel()).empty());
}
