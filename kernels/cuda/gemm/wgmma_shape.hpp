// wgmma_shape.hpp: the host-side facts of step 11 of the matmul ladder (11_wgmma_tma.cuh):
// its tile geometry, which operands it takes, and the tensors its TMA copies read. Plain C++
// with no CUDA header, so that the dispatcher, the launcher (hopper.cu) and the tests share it.
#pragma once

#include <cstdint>

#include "problem.hpp"
#include "wick/bfloat16.hpp"

namespace wick::gpu::gemm {

struct WgmmaGeometry {
  static constexpr int BM = 128, BN = 128, BK = 64, kStages = 4;
  static constexpr int kThreads = 384;            // warpgroup 0 produces, 1 and 2 consume
  static constexpr int kTileBytes = BM * BK * 2;  // one operand's stage: 16 KiB (BN == BM)
  static constexpr int kStageBytes = 2 * kTileBytes;
  // Dynamic shared memory: 1024 bytes of slack to align the stages for the 128-byte swizzle,
  // the stages, then the 2 x kStages barriers.
  static constexpr int kSharedBytes = 1024 + kStages * kStageBytes + 2 * kStages * 8;
};

// Operands step 11 can read: bfloat16 A with K contiguous and B with K contiguous (a
// transposed view), rows and batch strides in multiples of 8 elements, 16-byte aligned bases,
// M and N tiles within the grid's limits, K >= 1. TMA also wants its tensor not to overlap
// itself: rows at least K apart (a broadcast row, stride 0, goes to step 10) and batches at
// least a matrix apart (a single row counts as K; or 0: broadcast over the batch).
inline bool wgmma_tma_operand(int64_t rows, int64_t k, int64_t row_stride, int64_t col_stride,
                              int64_t batch, int64_t batch_stride) {
  const bool rows_ok = rows == 1 || (row_stride % 8 == 0 && row_stride >= k);
  // A single row is given TMA's minimum row stride, K rounded up to 8 (tma_shape); each
  // batch's stride must cover it, as cuTensorMapEncodeTiled's strides nest.
  const int64_t matrix = rows == 1 ? k : rows * row_stride;
  const bool batches_ok =
      batch == 1 || batch_stride == 0 || (batch_stride % 8 == 0 && batch_stride >= matrix);
  return (col_stride == 1 || k == 1) && rows_ok && batches_ok;
}
inline bool wgmma_tma_fits(const Problem<BFloat16>& p) {
  const auto aligned = [](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % 16 == 0; };
  return p.k >= 1 && wgmma_tma_operand(p.m, p.k, p.a_rs, p.a_cs, p.batch, p.a_bs) &&
         wgmma_tma_operand(p.n, p.k, p.b_cs, p.b_rs, p.batch, p.b_bs) && aligned(p.a) &&
         aligned(p.b) && ceil_div<int64_t>(p.m, WgmmaGeometry::BM) <= kMaxGridYZ &&
         p.k <= INT32_MAX && p.m <= INT32_MAX && p.n <= INT32_MAX && p.batch <= INT32_MAX;
}

// The tensor TMA reads an operand as: [batches][rows][k] bfloat16, K contiguous (dims innermost
// first, strides in bytes of dims 1 and 2), boxes of BK x BM x 1. An operand broadcast over the
// batch (batch stride 0) gets one batch and batch coordinate 0 (`batched` false). A single row
// gets TMA's minimum row stride (its stride is never used).
struct TmaShape {
  uint64_t dims[3];
  uint64_t strides[2];
  uint32_t box[3];
  bool batched;
};
inline TmaShape tma_shape(int64_t rows, int64_t k, int64_t row_stride, int64_t batch,
                          int64_t batch_stride) {
  TmaShape s{};
  s.batched = batch > 1 && batch_stride != 0;
  const auto row_bytes = static_cast<uint64_t>(rows == 1 ? (k * 2 + 15) / 16 * 16 : row_stride * 2);
  s.dims[0] = static_cast<uint64_t>(k);
  s.dims[1] = static_cast<uint64_t>(rows);
  s.dims[2] = s.batched ? static_cast<uint64_t>(batch) : 1;
  s.strides[0] = row_bytes;
  s.strides[1] = s.batched ? static_cast<uint64_t>(batch_stride) * 2 : row_bytes * s.dims[1];
  s.box[0] = WgmmaGeometry::BK;
  s.box[1] = WgmmaGeometry::BM;  // == BN: A's and B^T's boxes are alike
  s.box[2] = 1;
  return s;
}
inline TmaShape tma_shape_a(const Problem<BFloat16>& p) {
  return tma_shape(p.m, p.k, p.a_rs, p.batch, p.a_bs);
}
inline TmaShape tma_shape_b(const Problem<BFloat16>& p) {  // B^T: N rows of K
  return tma_shape(p.n, p.k, p.b_cs, p.batch, p.b_bs);
}

}  // namespace wick::gpu::gemm
