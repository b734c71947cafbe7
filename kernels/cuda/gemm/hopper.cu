// hopper.cu: the host side of steps 11 to 13 (11_wgmma_tma.cuh, 12_wgmma_wide.cuh,
// 13_wgmma_tf32.cuh: one kernel template on three tiles, bfloat16 or float32), compiled for sm_90a
// alone (kernels/cuda/CMakeLists.txt). Builds the two tensor maps TMA reads through: A as a
// [batch][M][K] tensor and B^T as [batch][N][K] (gemm::tma_shape), with the 128-byte swizzle and
// zero fill outside. cuTensorMapEncodeTiled belongs to the driver API, which wick never
// links (binaries must start where libcuda.so.1 is absent): the runtime hands out its address
// (cudaGetDriverEntryPointByVersion), once per process. Where the driver lacks it, steps 11 to
// 13 are not offered (wgmma_tma_ready) and matmul takes another step.
#include <cuda.h>  // CUtensorMap and cuTensorMapEncodeTiled's types only: nothing is linked

#include <cstring>
#include <mutex>
#include <vector>

#include "gemm/11_wgmma_tma.cuh"
#include "gemm/12_wgmma_wide.cuh"
#include "gemm/13_wgmma_tf32.cuh"
#include "gemm/hopper.hpp"

namespace wick::gpu {
namespace {

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// The driver's cuTensorMapEncodeTiled, or nullptr where the driver lacks it (asked once).
EncodeTiled find_encoder() {
  static const EncodeTiled fn = [] {
    void* address = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const cudaError_t status = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &address,
                                                                12000, cudaEnableDefault, &found);
    if (status != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky; leave no error for the next check to report
      return EncodeTiled{nullptr};
    }
    return found == cudaDriverEntryPointSuccess ? reinterpret_cast<EncodeTiled>(address) : nullptr;
  }();
  return fn;
}

// The map of one operand (gemm::tma_shape says its dims, strides and box).
gemm::TmaMap encode(const OpContext& ctx, const void* address, const gemm::TmaShape& shape) {
  const cuuint64_t dims[3] = {shape.dims[0], shape.dims[1], shape.dims[2]};
  const cuuint64_t strides[2] = {shape.strides[0], shape.strides[1]};
  const cuuint32_t box[3] = {shape.box[0], shape.box[1], shape.box[2]};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const EncodeTiled encode_tiled = find_encoder();  // a static's guard: no lock per launch
  WICK_CHECK(encode_tiled != nullptr, DeviceError, ctx.op, "the CUDA driver on cuda:", ctx.device,
             " has no cuTensorMapEncodeTiled, which steps 11 to 13 (wgmma with TMA) need");
  const bool bf16 = shape.element_bytes == 2;  // else float32 (step 13)
  CUtensorMap map;
  const CUresult result =
      encode_tiled(&map, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
                   3, const_cast<void*>(address), dims, strides, box, element_strides,
                   CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                   CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  WICK_CHECK(result == CUDA_SUCCESS, Error, ctx.op, "cuTensorMapEncodeTiled failed (error ",
             static_cast<int>(result), ") for a ", shape.dims[1], " x ", shape.dims[0],
             bf16 ? " bfloat16" : " float32", " operand, ", shape.dims[2],
             " batch(es), row stride ", shape.strides[0], " bytes");
  static_assert(sizeof(map) == sizeof(gemm::TmaMap), "a tensor map is 128 bytes");
  gemm::TmaMap out;
  std::memcpy(&out, &map, sizeof map);
  return out;
}

template <typename G>
void allow_shared(const OpContext& ctx) {
  check_cuda(cudaFuncSetAttribute(reinterpret_cast<const void*>(&gemm::wgmma_tma_kernel<G>),
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, G::kSharedBytes),
             "cudaFuncSetAttribute", ctx.op, ctx.device);
}

// One launch of the kernel on tile G: A's boxes are BM rows, B^T's BN rows.
template <typename G>
void launch_tile(const OpContext& ctx, const char* name,
                 const gemm::Problem<typename G::Element>& p) {
  const gemm::TmaShape a = gemm::tma_shape_a<G>(p), b = gemm::tma_shape_b<G>(p);
  const gemm::TmaMap map_a = encode(ctx, p.a, a), map_b = encode(ctx, p.b, b);
  launch_kernel(ctx, name, &gemm::wgmma_tma_kernel<G>,
                gemm::tile_grid<dim3>(p.n, G::BN, p.m, G::BM, p.batch), dim3(G::kThreads),
                G::kSharedBytes, p, map_a, map_b, a.batched ? 1 : 0, b.batched ? 1 : 0);
}

}  // namespace

bool wgmma_tma_ready(const OpContext& ctx) {
  static std::mutex mutex;
  static std::vector<signed char> known;  // per device: 0 not asked yet, 1 ready, -1 not
  std::lock_guard<std::mutex> lock(mutex);
  if (known.size() <= static_cast<size_t>(ctx.device)) known.resize(ctx.device + 1, 0);
  signed char& ready = known[static_cast<size_t>(ctx.device)];
  if (ready == 0) {
    ready = -1;
    if (find_encoder() != nullptr) {
      // More than 48 KiB of dynamic shared memory must be asked for, per kernel and device
      // (the caller's device is current here).
      allow_shared<gemm::WgmmaGeometry>(ctx);
      allow_shared<gemm::WgmmaWideGeometry>(ctx);
      allow_shared<gemm::WgmmaTf32Geometry>(ctx);
      ready = 1;
    }
  }
  return ready == 1;
}

void launch_wgmma_tma(const OpContext& ctx, const gemm::Problem<BFloat16>& p) {
  launch_tile<gemm::WgmmaGeometry>(ctx, "11_wgmma_tma", p);
}

void launch_wgmma_wide(const OpContext& ctx, const gemm::Problem<BFloat16>& p) {
  launch_tile<gemm::WgmmaWideGeometry>(ctx, "12_wgmma_wide", p);
}

void launch_wgmma_tf32(const OpContext& ctx, const gemm::Problem<float>& p) {
  launch_tile<gemm::WgmmaTf32Geometry>(ctx, "13_wgmma_tf32", p);
}

}  // namespace wick::gpu
