// test_matmul.cpp: matmul on the GPU with both implementations, wick's tiled kernel and cuBLAS
// (wick/matmul_backend.hpp), against the CPU float64 reference: normalised error
// ||C - C_ref||_F / ||C_ref||_F <= 5e-4 for float32 (the bound ggml's test-backend-ops uses),
// <= 1e-12 for float64, and int64 exact (wrapping on overflow, as the CPU). Shapes cover sizes
// that are not multiples of any tile, K = 0, 1-D operands, batches with broadcast batch dims,
// expanded (stride 0) batches and transposed and sliced operands read in place.
#include "gpu_test.hpp"
#include "wick/matmul_backend.hpp"

using namespace gpu_test;

namespace {

struct BackendScope {
  explicit BackendScope(MatmulBackend backend) : previous(matmul_backend()) {
    set_matmul_backend(backend);
  }
  ~BackendScope() { set_matmul_backend(previous); }
  BackendScope(const BackendScope&) = delete;
  BackendScope& operator=(const BackendScope&) = delete;
  MatmulBackend previous;
};

// ||got - want||_F / ||want||_F on the host in float64 (NaN if got holds a NaN).
double normalised_error(const Tensor& got, const Tensor& want) {
  const std::vector<double> g = got.to(kCPU).to_vector<double>();
  const std::vector<double> w = want.to(kCPU).to_vector<double>();
  double diff = 0, norm = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    diff += (g[i] - w[i]) * (g[i] - w[i]);
    norm += w[i] * w[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

void check_matmul(const Pair& a, const Pair& b, const std::string& what) {
  const Tensor want = matmul(widen(a.cpu), widen(b.cpu));
  const Dtype dtype = a.cpu.dtype();
  Tensor by_backend[2];
  for (MatmulBackend backend : {MatmulBackend::Tiled, MatmulBackend::Cublas}) {
    BackendScope scope(backend);
    PoisonScope poison;
    const Tensor got = matmul(a.gpu, b.gpu);
    INFO(what << " with " << matmul_backend_name(backend));
    CHECK(got.device().is_cuda());
    CHECK(got.dtype() == dtype);
    REQUIRE(got.sizes() == want.sizes());
    if (dtype == kInt64) {
      check_close(got, want, {}, what);
    } else {
      const double err = normalised_error(got, want);
      CHECK(err <= (dtype == kFloat32 ? 5e-4 : 1e-12));
    }
    by_backend[backend == MatmulBackend::Tiled ? 0 : 1] = got;
  }
  if (dtype == kFloat32 && by_backend[0].numel() > 0) {
    INFO(what << ": tiled against cuBLAS");
    CHECK(normalised_error(by_backend[0], by_backend[1].to(kFloat64)) <= 5e-4);
  }
}

struct Mkn {
  int64_t m, k, n;
};

}  // namespace

TEST_CASE("matmul: 2-D products of every size and layout, tiled and cuBLAS", "[matmul]") {
  std::vector<Mkn> sizes{{1, 1, 1},    {1, 7, 1},       {5, 1, 3},       {17, 33, 9},
                         {64, 64, 64}, {127, 129, 131}, {128, 128, 128}, {300, 1, 200},
                         {33, 0, 17},  {513, 257, 1000}};
  if (small_run()) {
    sizes.pop_back();  // under compute-sanitizer: keep every launch small
  } else {
    sizes.push_back({1000, 1000, 1000});
  }
  const std::vector<Layout> layouts{Layout::Contiguous, Layout::Transposed, Layout::Strided};
  for (Dtype dtype : {kFloat32, kFloat64, kInt64}) {
    for (const Mkn& s : sizes) {
      if (dtype == kInt64 && s.m * s.k * s.n > 100'000'000) continue;  // the CPU oracle is slow
      for (Layout la : layouts) {
        for (Layout lb : layouts) {
          Pair a = make_input({s.m, s.k}, dtype, la);
          Pair b = make_input({s.k, s.n}, dtype, lb);
          check_matmul(a, b,
                       describe(a.cpu) + " (" + layout_name(la) + ") @ " + describe(b.cpu) + " (" +
                           layout_name(lb) + ")");
        }
      }
    }
  }
  // int64 products that overflow wrap exactly as on the CPU.
  Pair a = make_input({40, 30}, kInt64, Layout::Contiguous, Domain::Huge);
  Pair b = make_input({30, 50}, kInt64, Layout::Transposed, Domain::Huge);
  check_matmul(a, b, "int64 products that overflow");
}

TEST_CASE("matmul: batches, broadcast batch dims, expanded batches, 1-D operands", "[matmul]") {
  for (Dtype dtype : {kFloat32, kFloat64, kInt64}) {
    auto both = [&](const Shape& sa, const Shape& sb, Layout la, Layout lb) {
      Pair a = make_input(sa, dtype, la);
      Pair b = make_input(sb, dtype, lb);
      check_matmul(a, b,
                   describe(a.cpu) + " (" + layout_name(la) + ") @ " + describe(b.cpu) + " (" +
                       layout_name(lb) + ")");
    };
    both({2, 3, 70, 40}, {3, 40, 90}, Layout::Contiguous, Layout::Contiguous);
    both({2, 3, 70, 40}, {3, 40, 90}, Layout::Transposed, Layout::Strided);
    both({4, 1, 33, 20}, {1, 5, 20, 17}, Layout::Contiguous, Layout::Transposed);
    both({6, 150, 130}, {1, 130, 140}, Layout::Expanded, Layout::Contiguous);  // stride 0 batch
    both({6, 150, 130}, {6, 130, 140}, Layout::Contiguous, Layout::Expanded);
    both({2, 2, 2, 9, 8}, {8, 7}, Layout::Strided, Layout::Contiguous);
    both({300}, {300, 20}, Layout::Contiguous, Layout::Transposed);   // vector @ matrix
    both({20, 300}, {300}, Layout::Transposed, Layout::Strided);      // matrix @ vector
    both({257}, {257}, Layout::Strided, Layout::Contiguous);          // dot product: 0-d
    both({3, 40, 25}, {25}, Layout::Contiguous, Layout::Contiguous);  // batched matrix @ vector
    both({5, 0, 4}, {4, 3}, Layout::Contiguous, Layout::Contiguous);  // empty batch of rows
    // Contiguous at an odd offset: the vectorised kernels (16-byte loads) must step aside.
    both({2, 64, 32}, {32, 48}, Layout::Offset, Layout::Contiguous);
    both({64, 32}, {2, 32, 48}, Layout::Contiguous, Layout::Offset);
  }
}

TEST_CASE("matmul: the backend switch reads WICK_MATMUL_BACKEND's names", "[matmul]") {
  BackendScope scope(MatmulBackend::Cublas);
  CHECK(matmul_backend() == MatmulBackend::Cublas);
  CHECK(std::string(matmul_backend_name(MatmulBackend::Cublas)) == "cublas");
  set_matmul_backend(MatmulBackend::Tiled);
  CHECK(std::string(matmul_backend_name(matmul_backend())) == "tiled");
}
