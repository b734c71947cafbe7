// wgmma_shape.hpp: the host-side facts of steps 11 to 13 of the matmul ladder (11_wgmma_tma.cuh,
// 12_wgmma_wide.cuh, 13_wgmma_tf32.cuh): their tile geometries, which operands they take, and the
// tensors their TMA copies read. Plain C++ with no CUDA header, so that the dispatcher, the
// launcher (hopper.cu) and the tests share it.
#pragma once

#include <cstdint>

#include "problem.hpp"
#include "wick/bfloat16.hpp"

namespace wick::gpu::gemm {

// The block tile of the warp-specialised wgmma kernel (11_wgmma_tma.cuh): BM x kN x BK per stage,
// kStageCount stages, elements of type T: bfloat16 (steps 11, 12) or float32 read as TF32 (step
// 13). A stage row holds 128 bytes of K, the span of the 128-byte swizzle: BK = 64 bfloat16 or 32
// floats. Warpgroup 0 produces; warpgroups 1 and 2 each compute 64 rows x kN with wgmma.m64nNkK,
// kInstructionK = 32 bytes of K per instruction (16 bfloat16: k16; 8 TF32: k8), kN / 2 FP32
// accumulators per thread.
template <int kN, int kStageCount, typename T = BFloat16>
struct WgmmaTile {
  using Element = T;
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "bfloat16 or float32 (TF32)");
  static constexpr int kElementBytes = static_cast<int>(sizeof(T));
  static constexpr int BM = 128, BN = kN, BK = 128 / kElementBytes, kStages = kStageCount;
  static constexpr int kInstructionK = 32 / kElementBytes;
  static constexpr int kThreads = 384;  // warpgroup 0 produces, 1 and 2 consume
  static constexpr int kATileBytes = BM * BK * kElementBytes;  // A's part of a stage: 16 KiB
  static constexpr int kBTileBytes = BN * BK * kElementBytes;  // B^T's: 16 KiB (kN 128), 32 (256)
  static constexpr int kStageBytes = kATileBytes + kBTileBytes;
  // Dynamic shared memory: 1024 bytes of slack to align the stages for the 128-byte swizzle,
  // the stages, then the 2 x kStages barriers.
  static constexpr int kSharedBytes = 1024 + kStages * kStageBytes + 2 * kStages * 8;
  // setmaxnreg budgets. With 384 threads ptxas gives every thread 168 registers (64K / 384,
  // rounded down to 8); the producer hands 128 x (168 - 40) back and the consumers take
  // 256 x (232 - 168): the same 16384, so the block still fits the SM's 65536.
  static constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;
  static_assert(128 * kProducerRegisters + 256 * kConsumerRegisters <= 65536);
  static_assert(kSharedBytes <= 227 * 1024, "more than an sm_90 block's shared memory");
  static_assert(kN == 128 || kN == 256, "wgmma wrappers exist for N = 128 and 256");
};
using WgmmaGeometry = WgmmaTile<128, 4>;      // step 11: 32 KiB a stage, 129 KiB in all
using WgmmaWideGeometry = WgmmaTile<256, 4>;  // step 12: 48 KiB a stage, 193 KiB in all
// Step 13: float32 operands, TF32 arithmetic, step 12's tile: 128 x 256 x 32 a stage (48 KiB).
using WgmmaTf32Geometry = WgmmaTile<256, 4, float>;

// Operands steps 11 to 13 can read (all have BM = 128): A with K contiguous and B with K contiguous
// (a transposed view), rows and batch strides in multiples of 16 bytes (`chunk` elements: 8
// bfloat16, 4 floats), 16-byte aligned bases, M and N tiles within the grid's limits, K >= 1. TMA
// also wants its tensor not to overlap itself: rows at least K apart (a broadcast row, stride 0,
// goes to another step) and batches at least a matrix apart (a single row counts as K; or 0:
// broadcast over the batch).
inline bool wgmma_tma_operand(int64_t rows, int64_t k, int64_t row_stride, int64_t col_stride,
                              int64_t batch, int64_t batch_stride, int64_t chunk) {
  const bool rows_ok = rows == 1 || (row_stride % chunk == 0 && row_stride >= k);
  // A single row is given TMA's minimum row stride, K rounded up to 16 bytes (tma_shape); each
  // batch's stride must cover it, as cuTensorMapEncodeTiled's strides nest.
  const int64_t matrix = rows == 1 ? k : rows * row_stride;
  const bool batches_ok =
      batch == 1 || batch_stride == 0 || (batch_stride % chunk == 0 && batch_stride >= matrix);
  return (col_stride == 1 || k == 1) && rows_ok && batches_ok;
}
static_assert(WgmmaWideGeometry::BM == WgmmaGeometry::BM && WgmmaTf32Geometry::BM == 128,
              "wgmma_tma_fits serves steps 11 to 13");
// T: BFloat16 (steps 11, 12) or float (step 13).
template <typename T>
bool wgmma_tma_fits(const Problem<T>& p) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4);
  constexpr int64_t chunk = 16 / sizeof(T);
  const auto aligned = [](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % 16 == 0; };
  return p.k >= 1 && wgmma_tma_operand(p.m, p.k, p.a_rs, p.a_cs, p.batch, p.a_bs, chunk) &&
         wgmma_tma_operand(p.n, p.k, p.b_cs, p.b_rs, p.batch, p.b_bs, chunk) && aligned(p.a) &&
         aligned(p.b) && ceil_div<int64_t>(p.m, WgmmaGeometry::BM) <= kMaxGridYZ &&
         p.k <= INT32_MAX && p.m <= INT32_MAX && p.n <= INT32_MAX && p.batch <= INT32_MAX;
}

// The tensor TMA reads an operand as: [batches][rows][k] elements of element_bytes (2: bfloat16,
// 4: float32), K contiguous (dims innermost first, strides in bytes of dims 1 and 2), boxes of
// box_k x box_rows x 1 (BK x BM for A, BK x BN for B^T: 128 bytes of K). An operand broadcast over
// the batch (batch stride 0) gets one batch and batch coordinate 0 (`batched` false). A single row
// gets TMA's minimum row stride (its stride is never used).
struct TmaShape {
  uint64_t dims[3];
  uint64_t strides[2];
  uint32_t box[3];
  bool batched;
  uint32_t element_bytes;
};
inline TmaShape tma_shape(int64_t rows, int64_t k, int64_t row_stride, int64_t batch,
                          int64_t batch_stride, uint32_t box_rows, uint32_t box_k,
                          uint32_t element_bytes) {
  TmaShape s{};
  s.batched = batch > 1 && batch_stride != 0;
  s.element_bytes = element_bytes;
  const int64_t e = element_bytes;
  const auto row_bytes = static_cast<uint64_t>(rows == 1 ? (k * e + 15) / 16 * 16 : row_stride * e);
  s.dims[0] = static_cast<uint64_t>(k);
  s.dims[1] = static_cast<uint64_t>(rows);
  s.dims[2] = s.batched ? static_cast<uint64_t>(batch) : 1;
  s.strides[0] = row_bytes;
  s.strides[1] = s.batched ? static_cast<uint64_t>(batch_stride * e) : row_bytes * s.dims[1];
  s.box[0] = box_k;
  s.box[1] = box_rows;  // at most 256, TMA's limit
  s.box[2] = 1;
  return s;
}
template <typename G = WgmmaGeometry>
TmaShape tma_shape_a(const Problem<typename G::Element>& p) {
  return tma_shape(p.m, p.k, p.a_rs, p.batch, p.a_bs, G::BM, G::BK, G::kElementBytes);
}
template <typename G = WgmmaGeometry>
TmaShape tma_shape_b(const Problem<typename G::Element>& p) {  // B^T: N rows of K
  return tma_shape(p.n, p.k, p.b_cs, p.batch, p.b_bs, G::BN, G::BK, G::kElementBytes);
}

}  // namespace wick::gpu::gemm
