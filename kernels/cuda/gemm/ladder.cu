// ladder.cu: matmul on CUDA tensors. Turns the op's operands into the ladder's Problem
// (problem.hpp), picks the kernel (select.cpp: the user's choice from wick/matmul_backend.hpp
// when it can take the matmul, else the automatic one), records it for last_matmul_kernel(),
// and launches it, or hands the matmul to cuBLAS (matmul_cublas.cpp).
// Inputs arrive as A [batch..., M, K] and B [batch..., K, N], expanded to the same batch dims
// with any strides (0 for broadcast batch dims; transposed views have their strides swapped);
// they are read in place, never copied. C [batch..., M, N] is contiguous. The batch dims are
// collapsed (common.cuh: collapse_dims); the innermost collapsed dim becomes the kernels' batch
// (grid z), and each index of the outer ones, when there are any, one more launch.
// Tested by tests/cuda/test_gemm_ladder.cpp (every kernel on a GPU against cuBLAS and the
// float64 CPU reference), tests/cuda/test_gemm_emulated.cpp (every kernel on the CPU) and
// tests/cuda/test_host.cpp (the choices).
#include <algorithm>
#include <array>
#include <atomic>
#include <string_view>
#include <vector>

#include "common.cuh"
#include "gemm/01_naive.cuh"
#include "gemm/02_coalesced.cuh"
#include "gemm/03_shared_tiles.cuh"
#include "gemm/04_blocktile_1d.cuh"
#include "gemm/05_blocktile_2d.cuh"
#include "gemm/06_vectorized.cuh"
#include "gemm/07_warptile.cuh"
#include "gemm/08_cp_async.cuh"
#include "gemm/08_cp_async_variants.cuh"
#include "gemm/09_tf32_mma.cuh"
#include "gemm/10_bf16_mma.cuh"
#include "gemm/11_wgmma_tma.cuh"
#include "gemm/12_wgmma_wide.cuh"
#include "gemm/13_wgmma_tf32.cuh"
#include "gemm/hopper.hpp"
#include "gemm/select.hpp"
#include "kernels.hpp"
#include "wick/matmul_backend.hpp"

namespace wick::gpu {
namespace {

using gemm::Problem;

template <typename Step, typename T>
auto kernel_of(const Problem<T>& p) {
  if constexpr (requires { Step::kernel_for(p); }) {
    return Step::kernel_for(p);
  } else {
    return Step::kernel;
  }
}

// A step with Step::kDynamicSharedBytes past 48 KiB (step 9: 96 KiB; step 8's variants) must
// ask for it, per kernel and device, before its first launch; it also asks for the largest
// shared-memory carveout, so that as many of its blocks fit an SM as the shared memory allows.
// Asked once per device (0..63; a later index asks on every launch): two threads that both ask
// set the same values.
template <typename Step>
void allow_dynamic_shared(const OpContext& ctx) {
  constexpr int kKnownSlots = 64;
  static std::array<std::atomic<bool>, kKnownSlots> done{};
  const bool has_slot = ctx.device >= 0 && ctx.device < kKnownSlots;
  if (has_slot && done[static_cast<size_t>(ctx.device)].load(std::memory_order_relaxed)) return;
  const auto allow = [&](auto kernel) {
    const auto* f = reinterpret_cast<const void*>(kernel);
    check_cuda(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    Step::kDynamicSharedBytes),
               "cudaFuncSetAttribute", ctx.op, ctx.device);
    check_cuda(cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared),
               "cudaFuncSetAttribute", ctx.op, ctx.device);
  };
  allow(Step::template For<true, true>::kernel);
  allow(Step::template For<true, false>::kernel);
  allow(Step::template For<false, true>::kernel);
  allow(Step::template For<false, false>::kernel);
  if (has_slot) done[static_cast<size_t>(ctx.device)].store(true, std::memory_order_relaxed);
}

template <typename Step, typename T>
void launch_step(const OpContext& ctx, const Problem<T>& p) {
  size_t shared_bytes = 0;
  if constexpr (requires { Step::kDynamicSharedBytes; }) {
    shared_bytes = Step::kDynamicSharedBytes;
    if (shared_bytes > 48 * 1024) allow_dynamic_shared<Step>(ctx);
  }
  launch_kernel(ctx, Step::kName, kernel_of<Step>(p), Step::grid(p), Step::block(), shared_bytes,
                p);
}

// One Problem per launch: the innermost collapsed batch dim in each, the outer ones split.
template <typename T>
std::vector<Problem<T>> problems_of(const OpCall& call) {
  const Tensor& a = call.in(0);
  const Tensor& b = call.in(1);
  const Tensor& c = call.out();
  const auto nd = static_cast<size_t>(a.dim());
  Problem<T> base;
  base.a = static_cast<const T*>(a.raw_data());
  base.b = static_cast<const T*>(b.raw_data());
  base.c = static_cast<T*>(c.raw_data());
  base.m = a.sizes()[nd - 2];
  base.k = a.sizes()[nd - 1];
  base.n = b.sizes()[nd - 1];
  base.a_rs = a.strides()[nd - 2];
  base.a_cs = a.strides()[nd - 1];
  base.b_rs = b.strides()[nd - 2];
  base.b_cs = b.strides()[nd - 1];
  const Shape batch_sizes(a.sizes().begin(), a.sizes().end() - 2);
  const Shape a_batch(a.strides().begin(), a.strides().end() - 2);
  const Shape b_batch(b.strides().begin(), b.strides().end() - 2);
  const Shape c_batch(c.strides().begin(), c.strides().end() - 2);
  const StridedLayout<3> layout = collapse_dims<3>(batch_sizes, {&a_batch, &b_batch, &c_batch});
  std::vector<Problem<T>> out;
  if (layout.numel == 0 || base.m == 0 || base.n == 0) return out;
  if (layout.ndim == 0) {
    out.push_back(base);
    return out;
  }
  base.batch = layout.sizes[0];
  base.a_bs = layout.strides[0][0];
  base.b_bs = layout.strides[1][0];
  base.c_bs = layout.strides[2][0];
  const int64_t outer = layout.numel / layout.sizes[0];
  for (int64_t index = 0; index < outer; ++index) {
    int64_t rest = index, offsets[3] = {0, 0, 0};
    for (int d = 1; d < layout.ndim; ++d) {
      const int64_t i = rest % layout.sizes[d];
      rest /= layout.sizes[d];
      for (int op = 0; op < 3; ++op) offsets[op] += i * layout.strides[op][d];
    }
    Problem<T> p = base;
    p.a += offsets[0];
    p.b += offsets[1];
    p.c += offsets[2];
    out.push_back(p);
  }
  return out;
}

template <typename T>
void run_general(const OpContext& ctx, const Problem<T>& p) {
  // 128 x 128 tiles when they are full enough and plentiful enough to fill the device. float32
  // only: 64 double or int64 accumulators per thread need more than 255 registers (ptxas spills
  // for float64 everywhere, for int64 on sm_75 and sm_80).
  const int64_t big_tiles = ceil_div<int64_t>(p.m, 128) * ceil_div<int64_t>(p.n, 128);
  if constexpr (std::is_same_v<T, float>) {
    if (p.m >= 128 && p.n >= 128 && big_tiles * p.batch >= device_info(ctx.device).sm_count) {
      launch_step<gemm::Blocktile2d<T>>(ctx, p);
      return;
    }
  }
  launch_step<gemm::Blocktile2dSmall<T>>(ctx, p);
}

template <typename T>
void run_named(const OpContext& ctx, std::string_view name, const Problem<T>& p) {
  if constexpr (std::is_same_v<T, BFloat16>) {  // steps 10 to 12 (run() checks)
#if defined(WICK_HOPPER_KERNEL)
    if (name == "11_wgmma_tma") return launch_wgmma_tma(ctx, p);
    if (name == "12_wgmma_wide") return launch_wgmma_wide(ctx, p);
#endif
    launch_step<gemm::Bf16Mma<BFloat16>>(ctx, p);
    return;
  } else if constexpr (std::is_same_v<T, float>) {
    if (name == "01_naive") return launch_step<gemm::Naive<float>>(ctx, p);
    if (name == "02_coalesced") return launch_step<gemm::Coalesced<float>>(ctx, p);
    if (name == "03_shared_tiles") return launch_step<gemm::SharedTiles<float>>(ctx, p);
    if (name == "04_blocktile_1d") return launch_step<gemm::Blocktile1d<float>>(ctx, p);
    if (name == "06_vectorized") return launch_step<gemm::Vectorized<float>>(ctx, p);
    if (name == "07_warptile") return launch_step<gemm::Warptile<float>>(ctx, p);
    if (name == "08_cp_async") return launch_step<gemm::CpAsync<float>>(ctx, p);
    if (name == "08_cp_async_128x256_s3") return launch_step<gemm::CpAsync128x256S3<float>>(ctx, p);
    if (name == "08_cp_async_256x128_s3") return launch_step<gemm::CpAsync256x128S3<float>>(ctx, p);
    if (name == "08_cp_async_128x128_t128_s3")
      return launch_step<gemm::CpAsync128x128T128S3<float>>(ctx, p);
    if (name == "08_cp_async_128x128_s3") return launch_step<gemm::CpAsync128x128S3<float>>(ctx, p);
    if (name == "09_tf32_mma") return launch_step<gemm::Tf32Mma<float>>(ctx, p);
#if defined(WICK_HOPPER_KERNEL)
    if (name == "13_wgmma_tf32") return launch_wgmma_tf32(ctx, p);  // choose_kernel checked
#endif
  }
  if constexpr (!std::is_same_v<T, BFloat16>) run_general(ctx, p);  // "05_blocktile_2d"
}

// The newest architecture the ladder's device code was compiled for, as the PTX of step 9 says
// (cudaFuncGetAttributes): a build for sm_75 only runs on an H200 through that PTX, where
// cp.async and mma.sync are compiled out (step 9 would trap), so the choice must not go by the
// device alone. Asked once per device (0..63; a later index asks on every call): the answer is
// a fixed property of the binary and the device, so two threads that both ask store the same.
int compiled_sm(int device) {
  constexpr int kKnownSlots = 64;
  static std::array<std::atomic<int>, kKnownSlots> known{};  // 0: not asked yet
  const bool has_slot = device >= 0 && device < kKnownSlots;
  if (has_slot) {
    if (const int sm = known[static_cast<size_t>(device)].load(std::memory_order_relaxed))
      return sm;
  }
  cudaFuncAttributes attributes{};
  check_cuda(cudaFuncGetAttributes(
                 &attributes, reinterpret_cast<const void*>(&gemm::tf32_mma_kernel<true, true>)),
             "cudaFuncGetAttributes", "matmul", device);
  if (has_slot)
    known[static_cast<size_t>(device)].store(attributes.ptxVersion, std::memory_order_relaxed);
  return attributes.ptxVersion;
}

template <typename T>
void run(const OpContext& ctx, const OpCall& call, gemm::ElementType type) {
  const std::vector<Problem<T>> problems = problems_of<T>(call);
  const DeviceInfo& info = device_info(ctx.device);
  gemm::MatmulFacts facts;
  facts.type = type;
  facts.cublas_ok = cublas_supports(call);
  facts.sm = std::min(info.major * 10 + info.minor, compiled_sm(ctx.device));
  facts.sm_count = info.sm_count;
  facts.vector_ready = !problems.empty();
  facts.k_major = !problems.empty();
#if defined(WICK_HOPPER_KERNEL)
  facts.hopper = gemm::hopper_code_runs(true, info.major, info.minor) && wgmma_tma_ready(ctx);
#endif
  facts.batch = 0;  // every launch's batches: the tiles that fill the device
  for (const Problem<T>& p : problems) {
    facts.m = p.m, facts.n = p.n, facts.k = p.k;
    facts.batch += p.batch;
    if constexpr (std::is_same_v<T, BFloat16> || std::is_same_v<T, float>)
      facts.k_major = facts.k_major && gemm::wgmma_tma_fits(p);  // steps 11 to 13
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, BFloat16>) {
      facts.vector_ready = facts.vector_ready && gemm::vector_ready(p);
    } else {
      facts.vector_ready = false;
    }
  }
  const char* name = gemm::choose_kernel(facts, matmul_kernel(), allow_tf32());
  detail::note_matmul_kernel(name);
  if (std::string_view(name) == "cublas") {
    launch_matmul_cublas(ctx, call);
    return;
  }
  if constexpr (std::is_same_v<T, BFloat16>) {
    const std::string_view chosen(name);
    if (chosen != "10_bf16_mma" && chosen != "11_wgmma_tma" && chosen != "12_wgmma_wide") {
      // Step 10 cannot take it (layout, alignment, or a device before sm_80): float32 copies
      // through the float32 ladder, rounded once.
      detail::run_in_float32(&launch_matmul, call, call.out().device());
      return;
    }
  }
  for (const Problem<T>& p : problems) run_named(ctx, name, p);
}

}  // namespace

void launch_matmul(const OpCall& call) {
  OpContext ctx(call);
  switch (call.out().dtype()) {
    case kFloat32:
      run<float>(ctx, call, gemm::ElementType::Float32);
      break;
    case kFloat64:
      run<double>(ctx, call, gemm::ElementType::Float64);
      break;
    case kInt64:
      run<int64_t>(ctx, call, gemm::ElementType::Int64);
      break;
    case kBFloat16:
      run<BFloat16>(ctx, call, gemm::ElementType::BFloat16);
      break;
    default:
      detail::fail<DtypeError>(ctx.op, "not implemented for ", describe(call.in(0)));
  }
}

}  // namespace wick::gpu
