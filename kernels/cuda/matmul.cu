// matmul.cu: C[b] = A[b] @ B[b] for every batch index b, with a shared-memory tiled kernel
// (step 5 of Boehm's SGEMM ladder: 2-D block tiling), or with cuBLAS when
// wick::set_matmul_backend(MatmulBackend::Cublas) chose it (matmul_cublas.cpp).
// Inputs arrive as A [batch..., M, K] and B [batch..., K, N], expanded to the same batch dims
// with any strides (0 for broadcast batch dims; transposed views have their strides swapped);
// they are read in place, never copied. C [batch..., M, N] is contiguous.
// The loop nest, in CUTLASS's words: each block computes a BM x BN block tile of C; for each
// step of BK along K it stages the BM x BK tile of A (transposed, so that each k is a row) and
// the BK x BN tile of B in shared memory, then each of its 256 threads accumulates a TM x TN
// thread tile in registers: rows ty*TM .. ty*TM+TM-1, columns tx, tx+16, ... (strided, so that
// a warp reads 16 consecutive B values without bank conflicts and writes C in 64-byte runs).
// Tiles are loaded with consecutive threads along whichever of the operand's two dims has
// stride 1 (coalesced for row-major and for transposed views); out-of-range elements load as 0.
// Two shapes: 128 x 128 x 8 with 8 x 8 thread tiles for big products, 64 x 64 x 8 with 4 x 4 for
// small or few tiles. float32 accumulates in float32, float64 in float64, int64 wraps (uint64).
// Limits: any M, N, K, batch count; no double buffering, no tensor cores (the optimisation
// ladder is a later issue). Tested by tests/cuda/test_matmul.cpp against the CPU float64
// reference and cuBLAS (normalised error <= 5e-4 for float32); measured by bench/gpu against
// cuBLAS at 1024..4096 (no figure yet: no GPU was lent when this was written).
#include "common.cuh"
#include "kernels.hpp"
#include "wick/matmul_backend.hpp"

namespace wick::gpu {
namespace {

template <typename T>
struct MatmulArgs {
  const T* a;
  const T* b;
  T* c;
  int64_t m, n, k;
  int64_t a_row, a_col;  // strides of A along M and K
  int64_t b_row, b_col;  // strides of B along K and N
  bool a_k_fast;         // load A tiles with consecutive threads along K (else along M)
  bool b_n_fast;         // load B tiles with consecutive threads along N (else along K)
  int64_t batch;
  int64_t m_tiles;
  OffsetCalculator<2> batches;  // batch index -> offsets of A[b] and B[b]
};

template <typename T>
__device__ __forceinline__ T multiply_add(T acc, T x, T y) {
  if constexpr (std::is_same_v<T, int64_t>) {
    return static_cast<T>(static_cast<uint64_t>(acc) +
                          static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
  } else {
    return fma(x, y, acc);
  }
}

template <typename T, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN)) matmul_tiled_kernel(MatmulArgs<T> p) {
  constexpr int kThreadsN = BN / TN;
  constexpr int kThreads = (BM / TM) * kThreadsN;
  constexpr int kPad = 4;  // keeps the transposed stores of A into shared memory conflict-free
  __shared__ alignas(16) T a_tile[BK][BM + kPad];
  __shared__ alignas(16) T b_tile[BK][BN + kPad];
  const int tid = static_cast<int>(threadIdx.x);
  const int tx = tid % kThreadsN, ty = tid / kThreadsN;
  const int64_t n0 = static_cast<int64_t>(blockIdx.x) * BN;

  for (int64_t batch = blockIdx.z; batch < p.batch; batch += gridDim.z) {
    int64_t offsets[2];
    p.batches.get(static_cast<uint64_t>(batch), offsets);
    const T* a = p.a + offsets[0];
    const T* b = p.b + offsets[1];
    T* c = p.c + batch * p.m * p.n;
    for (int64_t m_tile = blockIdx.y; m_tile < p.m_tiles; m_tile += gridDim.y) {
      const int64_t m0 = m_tile * BM;
      T acc[TM][TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = T(0);
      }
      for (int64_t k0 = 0; k0 < p.k; k0 += BK) {
#pragma unroll
        for (int e = tid; e < BM * BK; e += kThreads) {
          const int mi = p.a_k_fast ? e / BK : e % BM;
          const int ki = p.a_k_fast ? e % BK : e / BM;
          const int64_t gm = m0 + mi, gk = k0 + ki;
          a_tile[ki][mi] = (gm < p.m && gk < p.k) ? a[gm * p.a_row + gk * p.a_col] : T(0);
        }
#pragma unroll
        for (int e = tid; e < BK * BN; e += kThreads) {
          const int ni = p.b_n_fast ? e % BN : e / BK;
          const int ki = p.b_n_fast ? e / BN : e % BK;
          const int64_t gk = k0 + ki, gn = n0 + ni;
          b_tile[ki][ni] = (gk < p.k && gn < p.n) ? b[gk * p.b_row + gn * p.b_col] : T(0);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
          T a_reg[TM], b_reg[TN];
#pragma unroll
          for (int i = 0; i < TM; ++i) a_reg[i] = a_tile[kk][ty * TM + i];
#pragma unroll
          for (int j = 0; j < TN; ++j) b_reg[j] = b_tile[kk][tx + j * kThreadsN];
#pragma unroll
          for (int i = 0; i < TM; ++i) {
#pragma unroll
            for (int j = 0; j < TN; ++j) acc[i][j] = multiply_add(acc[i][j], a_reg[i], b_reg[j]);
          }
        }
        __syncthreads();
      }
#pragma unroll
      for (int i = 0; i < TM; ++i) {
        const int64_t gm = m0 + ty * TM + i;
        if (gm >= p.m) continue;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
          const int64_t gn = n0 + tx + j * kThreadsN;
          if (gn < p.n) c[gm * p.n + gn] = acc[i][j];
        }
      }
    }
  }
}

template <typename T, int BM, int BN, int BK, int TM, int TN>
void run_tiled(const OpContext& ctx, MatmulArgs<T> args) {
  args.m_tiles = ceil_div<int64_t>(args.m, BM);
  const int64_t n_tiles = ceil_div<int64_t>(args.n, BN);
  const dim3 grid(static_cast<unsigned>(n_tiles),
                  static_cast<unsigned>(std::min<int64_t>(args.m_tiles, 65535)),
                  static_cast<unsigned>(std::min<int64_t>(args.batch, 65535)));
  constexpr int kThreads = (BM / TM) * (BN / TN);
  launch_kernel(ctx, "matmul_tiled_kernel", matmul_tiled_kernel<T, BM, BN, BK, TM, TN>, grid,
                kThreads, 0, args);
}

template <typename T>
void run_matmul(const OpContext& ctx, const OpCall& call) {
  const Tensor& a = call.in(0);
  const Tensor& b = call.in(1);
  const Tensor& c = call.out();
  const auto nd = static_cast<size_t>(a.dim());
  MatmulArgs<T> args{};
  args.a = static_cast<const T*>(a.raw_data());
  args.b = static_cast<const T*>(b.raw_data());
  args.c = static_cast<T*>(c.raw_data());
  args.m = a.sizes()[nd - 2];
  args.k = a.sizes()[nd - 1];
  args.n = b.sizes()[nd - 1];
  args.a_row = a.strides()[nd - 2];
  args.a_col = a.strides()[nd - 1];
  args.b_row = b.strides()[nd - 2];
  args.b_col = b.strides()[nd - 1];
  args.a_k_fast = !(args.a_row == 1 && args.a_col != 1);
  args.b_n_fast = !(args.b_row == 1 && args.b_col != 1);
  const Shape batch_sizes(a.sizes().begin(), a.sizes().end() - 2);
  const Shape a_batch(a.strides().begin(), a.strides().end() - 2);
  const Shape b_batch(b.strides().begin(), b.strides().end() - 2);
  const StridedLayout<2> batches = collapse_dims<2>(batch_sizes, {&a_batch, &b_batch});
  args.batch = batches.numel;
  args.batches = OffsetCalculator<2>(batches);
  if (args.batch == 0 || args.m == 0 || args.n == 0) return;
  // Big tiles when they are full enough and plentiful enough to fill the device.
  const int64_t big_tiles = ceil_div<int64_t>(args.m, 128) * ceil_div<int64_t>(args.n, 128);
  const bool big =
      args.m >= 128 && args.n >= 128 && big_tiles * args.batch >= device_info(ctx.device).sm_count;
  if (big) {
    run_tiled<T, 128, 128, 8, 8, 8>(ctx, args);
  } else {
    run_tiled<T, 64, 64, 8, 4, 4>(ctx, args);
  }
}

}  // namespace

void launch_matmul(const OpCall& call) {
  OpContext ctx(call);
  if (matmul_backend() == MatmulBackend::Cublas && cublas_supports(call)) {
    launch_matmul_cublas(ctx, call);
    return;
  }
  switch (call.out().dtype()) {
    case kInt64:
      run_matmul<int64_t>(ctx, call);
      break;
    case kFloat32:
      run_matmul<float>(ctx, call);
      break;
    case kFloat64:
      run_matmul<double>(ctx, call);
      break;
    default:
      detail::fail<DtypeError>(ctx.op, "not implemented for ", describe(call.in(0)));
  }
}

}  // namespace wick::gpu
