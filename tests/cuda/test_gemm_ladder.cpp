// test_gemm_ladder.cpp: every kernel of the matmul ladder (kernels/cuda/gemm/) forced by name
// on the GPU, against cuBLAS (FP32, default math) and the float64 CPU reference, at M, N, K
// in {1, 7, 16, 33, 127, 128, 129, 1000, 1023, 2048} (square, and non-square triples drawn
// from the set), row-major, transposed and (for the kernels that read scalars) strided
// operands, and batches. Tolerances: ||C - C_ref||_F / ||C_ref||_F <= 1e-5 for FP32, <= 1e-3
// for TF32. Inputs are fresh random values each run (randn on the GPU); every output starts
// poisoned (debug fill: NaN). Each case also checks that the forced kernel is the one that ran
// (last_matmul_kernel()), so a kernel that silently fell back cannot pass as itself. The
// wgmma steps, which need K-major operands, have their own cases (BF16: steps 11, 12; TF32: 13).
// WICK_CUDA_TEST_SMALL=1 (compute-sanitizer) keeps sizes up to 129.
#include <string>
#include <vector>

#include "gemm/problem.hpp"
#include "gemm/wgmma_shape.hpp"
#include "gpu_test.hpp"
#include "wick/matmul_backend.hpp"

using namespace gpu_test;

namespace {

struct KernelScope {
  explicit KernelScope(const char* name) : previous(matmul_kernel()) { set_matmul_kernel(name); }
  ~KernelScope() { set_matmul_kernel(previous); }
  KernelScope(const KernelScope&) = delete;
  KernelScope& operator=(const KernelScope&) = delete;
  std::string previous;
};

double relative_error(const Tensor& got, const Tensor& want) {
  const std::vector<double> g = got.to(kCPU).to(kFloat64).contiguous().to_vector<double>();
  const std::vector<double> w = want.to(kCPU).to(kFloat64).contiguous().to_vector<double>();
  double diff = 0, norm = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    diff += (g[i] - w[i]) * (g[i] - w[i]);
    norm += w[i] * w[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

// A [.., rows, cols] float32 operand on the GPU: row-major, a transposed view of a row-major
// [cols, rows] tensor, or every second column of a wider one.
Tensor operand(Shape shape, Layout layout) {
  const auto opts = TensorOptions().device(kCUDA);
  const size_t nd = shape.size();
  if (layout == Layout::Transposed) {
    std::swap(shape[nd - 1], shape[nd - 2]);
    return randn(shape, opts).transpose(-1, -2);
  }
  if (layout == Layout::Strided) {
    const int64_t cols = shape[nd - 1];
    shape[nd - 1] = 2 * cols;
    return randn(shape, opts).slice(-1, 0, std::nullopt, 2);
  }
  return randn(shape, opts);
}

// The float32 steps and step 8's tile variants: core's kernel names "01_..." to "09_..." (steps 10
// to 13 take bfloat16 or K-major operands and have their own tests below).
const std::vector<const char*>& ladder() {
  static const std::vector<const char*> names = [] {
    std::vector<const char*> out;
    for (const char* name : matmul_kernel_names()) {
      if (name[0] == '0') out.push_back(name);
    }
    return out;
  }();
  return names;
}
bool is_step8_variant(const std::string& name) { return name.rfind("08_cp_async_", 0) == 0; }

bool reads_vectors(const std::string& name) { return name >= "06"; }

// The ladder's Problem for a @ b (elements T): the innermost matrices and batch strides.
template <typename T = float>
gpu::gemm::Problem<T> problem_of(const Tensor& a, const Tensor& b) {
  const auto nd_a = static_cast<size_t>(a.dim()), nd_b = static_cast<size_t>(b.dim());
  gpu::gemm::Problem<T> p;
  p.a = static_cast<const T*>(a.raw_data());
  p.b = static_cast<const T*>(b.raw_data());
  p.m = a.sizes()[nd_a - 2], p.k = a.sizes()[nd_a - 1], p.n = b.sizes()[nd_b - 1];
  p.a_rs = a.strides()[nd_a - 2], p.a_cs = a.strides()[nd_a - 1];
  p.b_rs = b.strides()[nd_b - 2], p.b_cs = b.strides()[nd_b - 1];
  p.a_bs = nd_a > 2 ? a.strides()[nd_a - 3] : 0;
  p.b_bs = nd_b > 2 ? b.strides()[nd_b - 3] : 0;
  return p;  // batch 1: callers that need it set it
}

// Whether the 128-bit-load steps can take a @ b: the dispatcher's own rule (gemm/problem.hpp)
// on the innermost matrices.
bool vector_ready(const Tensor& a, const Tensor& b) {
  return gpu::gemm::vector_ready(problem_of(a, b));
}
bool is_tf32(const std::string& name) { return name == "09_tf32_mma"; }
bool needs_sm80(const std::string& name) {
  return name.rfind("08_cp_async", 0) == 0 || name == "09_tf32_mma";
}

// Runs every kernel (and cuBLAS) on a @ b and checks each against the float64 reference; step
// 8's variants too unless `variants` is false.
void check_all(const Tensor& a, const Tensor& b, const std::string& what, bool variants = true) {
  const Tensor want = matmul(a.to(kCPU).to(kFloat64), b.to(kCPU).to(kFloat64));
  Tensor by_cublas;
  {
    KernelScope scope("cublas");
    by_cublas = matmul(a, b);
    CHECK(std::string(last_matmul_kernel()) == "cublas");
    INFO(what << " with cuBLAS");
    CHECK(relative_error(by_cublas, want) <= 1e-5);
  }
  const bool vectors = vector_ready(a, b);
  const int major = cuda::get_device_properties(0).major;
  for (const char* name : ladder()) {
    if (!variants && is_step8_variant(name)) continue;
    // A kernel that cannot take the product (a leading dim that is not a multiple of 4, a
    // strided view; sm_75 for cp.async and mma) must hand it to another, still correctly.
    const bool takes = !(reads_vectors(name) && !vectors) && !(needs_sm80(name) && major < 8) &&
                       !(is_step8_variant(name) && major < 9);  // the variants: sm_90 only
    KernelScope scope(name);
    PoisonScope poison;
    const Tensor got = matmul(a, b);
    INFO(what << " with " << name);
    if (takes) {
      REQUIRE(std::string(last_matmul_kernel()) == name);
    } else {
      CHECK(std::string(last_matmul_kernel()) != name);
    }
    REQUIRE(got.sizes() == want.sizes());
    const double tolerance = is_tf32(last_matmul_kernel()) ? 1e-3 : 1e-5;
    CHECK(relative_error(got, want) <= tolerance);
    CHECK(relative_error(got, by_cublas) <= tolerance);
  }
}

}  // namespace

TEST_CASE("matmul ladder: every kernel at every size of the issue", "[matmul][ladder][sizes]") {
  std::vector<int64_t> sizes{1, 7, 16, 33, 127, 128, 129, 1000, 1023, 2048};
  if (small_run()) sizes.resize(7);
  for (int64_t s : sizes) {
    check_all(operand({s, s}, Layout::Contiguous), operand({s, s}, Layout::Contiguous),
              "square " + std::to_string(s));
  }
  // Step 8's variants skip the non-square triples in small runs (compute-sanitizer, the CPU
  // emulator): the squares above and test_gemm_emulated.cpp's edge shapes cover their edges,
  // and racecheck's sweep is already the slowest step of bench/gpu/check.sh.
  // Non-square: each size as M, N and K in turn against two others of the set.
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t x = sizes[i], y = sizes[(i + 3) % sizes.size()],
                  z = sizes[(i + 5) % sizes.size()];
    check_all(
        operand({x, y}, Layout::Contiguous), operand({y, z}, Layout::Contiguous),
        "M, K, N = " + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z),
        !small_run());
  }
}

TEST_CASE("matmul ladder: transposed and strided operands, read in place", "[matmul][ladder]") {
  const int64_t m = small_run() ? 65 : 1023, k = small_run() ? 33 : 129,
                n = small_run() ? 17 : 1000;
  for (Layout la : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
    for (Layout lb : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
      check_all(operand({m, k}, la), operand({k, n}, lb),
                std::string("A ") + layout_name(la) + ", B " + layout_name(lb));
    }
  }
}

TEST_CASE("matmul ladder: batches, broadcast batches", "[matmul][ladder]") {
  const int64_t s = small_run() ? 33 : 129;
  check_all(operand({3, s, s + 2}, Layout::Contiguous),
            operand({3, s + 2, s - 1}, Layout::Transposed), "batch of 3");
  check_all(operand({2, 3, s, 16}, Layout::Transposed), operand({16, s}, Layout::Contiguous),
            "batch 2 x 3 @ one matrix (broadcast)");
  check_all(operand({4, 1, 7, s}, Layout::Contiguous), operand({1, 5, s, 9}, Layout::Contiguous),
            "batch dims broadcast both ways (4 x 5 launches)");
}

TEST_CASE("matmul ladder: automatic choice and TF32 switch", "[matmul][ladder]") {
  KernelScope scope("auto");
  const int64_t s = small_run() ? 256 : 2048;
  const Tensor a = operand({s, s}, Layout::Contiguous), b = operand({s, s}, Layout::Contiguous);
  const DeviceProperties props = cuda::get_device_properties(0);
  const bool sm80 = props.major >= 8;
  // 128 x 128 tiles for every SM, else the general kernel's small tiles (select.cpp).
  const bool full = (s / 128) * (s / 128) >= props.multi_processor_count;
  set_allow_tf32(false);
  Tensor c = matmul(a, b);
  CHECK(std::string(last_matmul_kernel()) == (!full  ? "05_blocktile_2d"
                                              : sm80 ? "08_cp_async"
                                                     : "07_warptile"));
  set_allow_tf32(true);
  c = matmul(a, b);
  CHECK(std::string(last_matmul_kernel()) == (!full  ? "05_blocktile_2d"
                                              : sm80 ? "09_tf32_mma"
                                                     : "07_warptile"));
  set_allow_tf32(false);
  // float64 and strided views take the general kernel.
  c = matmul(a.to(kFloat64), b.to(kFloat64));
  CHECK(std::string(last_matmul_kernel()) == "05_blocktile_2d");
  c = matmul(operand({200, 200}, Layout::Strided), b.narrow(0, 0, 200));
  CHECK(std::string(last_matmul_kernel()) == "05_blocktile_2d");
}

namespace {

// Step 10 and cuBLAS BF16 on bfloat16 operands, against the float64 product of the same
// (bfloat16) values. Step 10's results are FP32 sums of exact products rounded once to
// bfloat16: within 2^-8 of the norm (the issue allows 1e-2). Where step 10 cannot take the
// operands (a leading dim that is not a multiple of 8, a strided view, sm_75) the matmul runs in
// float32 and rounds once, with the same bound, and last_matmul_kernel() names another kernel.
void check_bf16(const Tensor& a32, const Tensor& b32, const std::string& what) {
  const Tensor a = a32.to(kBFloat16), b = b32.to(kBFloat16);
  const Tensor want = matmul(a.to(kCPU).to(kFloat64), b.to(kCPU).to(kFloat64));
  const gpu::gemm::Problem<BFloat16> p = problem_of<BFloat16>(a, b);
  const bool takes = gpu::gemm::vector_ready(p) && cuda::get_device_properties(0).major >= 8;
  Tensor by_cublas;
  {
    KernelScope scope("cublas");
    PoisonScope poison;
    by_cublas = matmul(a, b);
    INFO(what << " with cuBLAS BF16");
    CHECK(by_cublas.dtype() == kBFloat16);
    CHECK(std::string(last_matmul_kernel()) == "cublas");
    CHECK(relative_error(by_cublas, want) <= 0x1p-8);
  }
  KernelScope scope("10_bf16_mma");
  PoisonScope poison;
  const Tensor got = matmul(a, b);
  INFO(what << " with 10_bf16_mma");
  REQUIRE(got.dtype() == kBFloat16);
  REQUIRE(got.sizes() == want.sizes());
  if (takes) {
    CHECK(std::string(last_matmul_kernel()) == "10_bf16_mma");
  } else {
    CHECK(std::string(last_matmul_kernel()) != "10_bf16_mma");
  }
  CHECK(relative_error(got, want) <= 0x1p-8);
  CHECK(relative_error(got, by_cublas) <= 0x1p-7);  // two roundings apart at most
  // Step 11 (wgmma and TMA): sm_90 devices, builds with its sm_90a code, K-major operands.
  const DeviceProperties props = cuda::get_device_properties(0);
  const bool takes11 =
      WICK_HOPPER_KERNEL && props.major == 9 && props.minor == 0 && gpu::gemm::wgmma_tma_fits(p);
  KernelScope scope11("11_wgmma_tma");
  const Tensor got11 = matmul(a, b);
  INFO(what << " with 11_wgmma_tma");
  CHECK((std::string(last_matmul_kernel()) == "11_wgmma_tma") == takes11);
  CHECK(relative_error(got11, want) <= 0x1p-8);
  CHECK(relative_error(got11, by_cublas) <= 0x1p-7);
  // Step 12 (128 x 256 tiles): the same operands, forced by name (never chosen automatically).
  KernelScope scope12("12_wgmma_wide");
  const Tensor got12 = matmul(a, b);
  INFO(what << " with 12_wgmma_wide");
  CHECK((std::string(last_matmul_kernel()) == "12_wgmma_wide") == takes11);
  CHECK(relative_error(got12, want) <= 0x1p-8);
  CHECK(relative_error(got12, by_cublas) <= 0x1p-7);
}

}  // namespace

TEST_CASE("matmul ladder: BF16 tensor cores against cuBLAS BF16 and float64", "[matmul][ladder]") {
  std::vector<int64_t> sizes{1, 7, 16, 33, 127, 128, 129, 1000, 1023, 2048};
  if (small_run()) sizes.resize(7);
  for (int64_t s : sizes) {
    check_bf16(operand({s, s}, Layout::Contiguous), operand({s, s}, Layout::Contiguous),
               "square " + std::to_string(s));
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t x = sizes[i], y = sizes[(i + 3) % sizes.size()],
                  z = sizes[(i + 5) % sizes.size()];
    check_bf16(
        operand({x, y}, Layout::Contiguous), operand({y, z}, Layout::Contiguous),
        "M, K, N = " + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z));
  }
  const int64_t m = small_run() ? 64 : 1024, k = small_run() ? 40 : 136,
                n = small_run() ? 24 : 1000;
  for (Layout la : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
    for (Layout lb : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
      check_bf16(operand({m, k}, la), operand({k, n}, lb),
                 std::string("A ") + layout_name(la) + ", B " + layout_name(lb));
    }
  }
  check_bf16(operand({3, m, k}, Layout::Contiguous), operand({3, k, n}, Layout::Transposed),
             "batch of 3");
  check_bf16(operand({2, 3, m, 16}, Layout::Transposed), operand({16, n}, Layout::Contiguous),
             "batch 2 x 3 @ one matrix (broadcast)");
  // K-major operands (x @ W.t(), the Linear case) at sizes that fill step 11's tiles and ring.
  check_bf16(operand({m, 3 * k}, Layout::Contiguous), operand({3 * k, n}, Layout::Transposed),
             "A row-major, B transposed, K of 3 x 64 tiles and more");
  // Step 11's 4-stage ring wraps (its barriers' phase bit flips) within one batch and across
  // batches: 5 K tiles each, 2 batches. Small enough for the sanitizer runs too.
  check_bf16(operand({2, 64, 320}, Layout::Contiguous), operand({2, 320, 24}, Layout::Transposed),
             "batch of 2, K of 5 x 64 tiles: the stage ring wraps");
  // The automatic choice takes step 10 for bfloat16 on sm_80+ (B row-major).
  KernelScope scope("auto");
  const Tensor a = operand({m, k}, Layout::Contiguous).to(kBFloat16);
  const Tensor c = matmul(a, operand({k, n}, Layout::Contiguous).to(kBFloat16));
  CHECK(std::string(last_matmul_kernel()) ==
        (cuda::get_device_properties(0).major >= 8 ? "10_bf16_mma" : "05_blocktile_2d"));
}

namespace {

// A [..., rows, k] float32 operand on the GPU whose rows are K-contiguous and start every
// multiple of 4 floats (16 bytes), as step 13's TMA needs: the first k columns of a wider tensor
// when k is not a multiple of 4.
Tensor k_major(Shape shape) {
  const auto opts = TensorOptions().device(kCUDA);
  const size_t last = shape.size() - 1;
  const int64_t k = shape[last];
  shape[last] = (k + 3) / 4 * 4;
  return randn(shape, opts).narrow(-1, 0, k);
}

// Step 13 (TF32 wgmma with TMA) forced by name on a @ b.t() (A row-major, B a transposed view of
// a K-contiguous [N, K] matrix, x @ W.t()), against the float64 reference and cuBLAS FP32. wgmma
// truncates float32 inputs to TF32 (the low 13 mantissa bits dropped, 13_wgmma_tf32.cuh): products
// shrink by about 7e-4 of themselves on average and by 2^-9 at most, so 2e-3 of the norm (1e-3 for
// step 9, which rounds to nearest). It runs on sm_90 devices in builds with sm_90a code; elsewhere
// the automatic choice runs instead, as correct, and last_matmul_kernel() names it. A row-major B
// is never taken by step 13.
void check_wgmma_tf32(const Tensor& a, const Tensor& bt, const std::string& what) {
  const Tensor b = bt.transpose(-1, -2);
  const Tensor want = matmul(a.to(kCPU).to(kFloat64), b.to(kCPU).to(kFloat64));
  const DeviceProperties props = cuda::get_device_properties(0);
  gpu::gemm::Problem<float> p = problem_of(a, b);
  p.batch = a.dim() > 2 ? a.size(-3) : 1;
  const bool takes = WICK_HOPPER_KERNEL && props.major == 9 && props.minor == 0 &&
                     gpu::gemm::wgmma_tma_fits(p) && vector_ready(a, b);
  Tensor by_cublas;
  {
    KernelScope scope("cublas");
    by_cublas = matmul(a, b);
  }
  KernelScope scope("13_wgmma_tf32");
  PoisonScope poison;
  const Tensor got = matmul(a, b);
  INFO(what << " with 13_wgmma_tf32");
  REQUIRE(got.sizes() == want.sizes());
  CHECK((std::string(last_matmul_kernel()) == "13_wgmma_tf32") == takes);
  CHECK(relative_error(got, want) <= 2e-3);
  CHECK(relative_error(got, by_cublas) <= 2e-3);
  // A row-major B: another kernel, still correct (unless N or K is 1: then B is K-contiguous too).
  const Tensor b_rows = b.contiguous();
  const Tensor got_rows = matmul(a, b_rows);
  if (p.n > 1 && p.k > 1) CHECK(std::string(last_matmul_kernel()) != "13_wgmma_tf32");
  CHECK(relative_error(got_rows, want) <= 2e-3);
}

}  // namespace

TEST_CASE("matmul ladder: TF32 wgmma (step 13) on K-major operands", "[matmul][ladder]") {
  std::vector<int64_t> sizes{1, 7, 16, 33, 127, 128, 129, 1000, 1023, 2048};
  if (small_run()) sizes.resize(7);
  for (int64_t s : sizes) {
    check_wgmma_tf32(k_major({s, s}), k_major({s, s}), "square " + std::to_string(s));
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t x = sizes[i], y = sizes[(i + 3) % sizes.size()],
                  z = sizes[(i + 5) % sizes.size()];
    check_wgmma_tf32(
        k_major({x, y}), k_major({z, y}),
        "M, K, N = " + std::to_string(x) + ", " + std::to_string(y) + ", " + std::to_string(z));
  }
  // Batches: the stage ring (4 stages of 32 floats of K) wraps within a batch and across batches;
  // a B broadcast over the batch.
  check_wgmma_tf32(k_major({2, 64, 200}), k_major({2, 40, 200}), "batch of 2, K of 7 tiles");
  const Tensor w = k_major({24, 72});
  check_wgmma_tf32(k_major({3, 33, 72}), w.expand({3, 24, 72}), "batch of 3, B broadcast");
}
