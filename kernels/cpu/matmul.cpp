// matmul.cpp: C[b] = A[b] @ B[b] for every batch index b, A and B with any strides (a
// transposed view is read in place, batch strides may be 0), C contiguous. float and double go
// to gemm/ (BLIS-structured, packing absorbs the strides, SIMD micro-kernel picked at run
// time: docs/cpu-gemm.md), and so does bfloat16 where the CPU has AVX512_BF16; int64 uses a plain
// loop that wraps on overflow. Many small matrices run in parallel over the batch, each product on
// one thread; otherwise the batch is walked in order and each product uses every thread. The plain
// triple loop in tests/ is the oracle; measured in bench/cpu/.
#include <algorithm>
#include <vector>

#include "gemm/gemm.hpp"
#include "kernels.hpp"
#include "loops.hpp"
#include "vec_kernels.hpp"

namespace wick::cpu {
namespace {

template <typename T>
struct Matrix {
  const T* data;
  int64_t rows, cols, row_stride, col_stride;
  T at(int64_t r, int64_t c) const { return data[r * row_stride + c * col_stride]; }
};

// C (m x n, contiguous, row stride n) = A @ B: float and double go to the GEMM in gemm/.
template <typename T>
void product(const Matrix<T>& a, const Matrix<T>& b, T* c, bool parallel) {
  gemm::gemm<T>({a.data, a.rows, a.cols, a.row_stride, a.col_stride},
                {b.data, b.rows, b.cols, b.row_stride, b.col_stride}, c, b.cols, parallel ? 0 : 1);
}

// Matrix times vector (n = 1) and vector times matrix (m = 1): out[p] = sum_k M[p, k] v[k],
// where M is A (n = 1) or B transposed (m = 1). The GEMM would pack all of M and pad the
// vector to its micro-kernel's width, for one useful column in 8 to 16; here M is read once,
// in place (docs/cpu-gemm.md, "Matrix times vector"). Two layouts of M are taken, each in one
// pass: k unit-stride (a dot per output, vec::dot_*), or p unit-stride (out += v[k] M[:, k],
// one fused multiply-add per element along p); any other layout goes to the GEMM. Each output
// element's sum runs in a fixed order, so results do not depend on the thread count.
template <typename T>
bool vector_product(const Matrix<T>& m, const T* v, int64_t v_stride, T* out, bool parallel) {
  const int64_t rows = m.rows, depth = m.cols;
  // Splits the outputs across threads, `grain` at least per chunk; one chunk when the caller
  // runs products in parallel itself.
  auto split = [&](int64_t grain, const auto& body) {
    parallel_for(rows, parallel ? grain : rows, body);
  };
  if (m.col_stride == 1 || depth <= 1) {
    std::vector<T> gathered;
    if (v_stride != 1 && depth > 1) {  // a strided vector is gathered once
      gathered.resize(static_cast<size_t>(depth));
      for (int64_t kk = 0; kk < depth; ++kk) gathered[kk] = v[kk * v_stride];
      v = gathered.data();
    }
    auto rows_of = [&](int64_t r0, int64_t r1) {
      if constexpr (std::is_same_v<T, float>) {
        vec::dot_rows_f32(m.data + r0 * m.row_stride, m.row_stride, r1 - r0, v, depth, out + r0);
      } else {
        vec::dot_rows_f64(m.data + r0 * m.row_stride, m.row_stride, r1 - r0, v, depth, out + r0);
      }
    };
    split(std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(depth, 1)), rows_of);
    return true;
  }
  if (m.row_stride != 1) return false;
  // Each output a running sum over k, one axpy per k. In float32 the sums restart every
  // kDepthBlock k's and the blocks add up in double: one running float32 sum over all of k lost
  // accuracy with k (relative error 1.1e-5 at k = 1e5, 1.9e-3 at 4e6, against torch's 1.3e-7
  // and 7e-7: found by review). Below kDepthBlock nothing changes, bit for bit; the blocks fall
  // at fixed k, so the bits do not depend on the thread count.
  constexpr int64_t kDepthBlock = 1024;
  auto columns_of = [&](int64_t r0, int64_t r1) {
    std::vector<double> total;
    if (std::is_same_v<T, float> && depth > kDepthBlock)
      total.assign(static_cast<size_t>(r1 - r0), 0.0);
    for (int64_t k0 = 0; k0 < depth; k0 += kDepthBlock) {  // depth >= 2 here
      std::fill(out + r0, out + r1, T(0));
      const int64_t k1 = total.empty() ? depth : std::min(depth, k0 + kDepthBlock);
      for (int64_t kk = k0; kk < k1; ++kk) {
        const T* column = m.data + kk * m.col_stride + r0;
        if constexpr (std::is_same_v<T, float>) {
          vec::axpy_f32(out + r0, column, v[kk * v_stride], out + r0, r1 - r0);
        } else {
          vec::axpy_f64(out + r0, column, v[kk * v_stride], out + r0, r1 - r0);
        }
      }
      if (total.empty()) break;
      for (int64_t i = r0; i < r1; ++i) total[static_cast<size_t>(i - r0)] += out[i];
    }
    if (!total.empty()) {
      for (int64_t i = r0; i < r1; ++i) out[i] = static_cast<T>(total[static_cast<size_t>(i - r0)]);
    }
  };
  // Chunks of at least 1024 outputs: each chunk walks every k.
  split(std::max<int64_t>(1024, kParallelGrain / std::max<int64_t>(depth, 1)), columns_of);
  return true;
}

// C (m x n, contiguous, row stride n) = A @ B: a vector operand goes to vector_product, the
// rest to the GEMM in gemm/.
template <typename T>
void product_or_vector(const Matrix<T>& a, const Matrix<T>& b, T* c, bool parallel) {
  if (b.cols == 1 && a.rows > 1 && vector_product(a, b.data, b.row_stride, c, parallel)) {
    return;
  }
  if (a.rows == 1 && b.cols > 1 &&
      vector_product<T>({b.data, b.cols, b.rows, b.col_stride, b.row_stride}, a.data, a.col_stride,
                        c, parallel)) {
    return;
  }
  product(a, b, c, parallel);
}

// int64 products wrap instead of overflowing into UB.
template <>
void product<int64_t>(const Matrix<int64_t>& a, const Matrix<int64_t>& b, int64_t* c, bool) {
  for (int64_t i = 0; i < a.rows; ++i) {
    for (int64_t j = 0; j < b.cols; ++j) {
      uint64_t acc = 0;
      for (int64_t kk = 0; kk < a.cols; ++kk) {
        acc += static_cast<uint64_t>(a.at(i, kk)) * static_cast<uint64_t>(b.at(kk, j));
      }
      c[i * b.cols + j] = static_cast<int64_t>(acc);
    }
  }
}

// The offsets of batch product `bi`'s A and B (batch dims walked row-major, any strides).
void batch_offsets(const Tensor& a, const Tensor& b, int64_t bi, int64_t& a_off, int64_t& b_off) {
  a_off = 0, b_off = 0;
  int64_t rest = bi;
  for (int64_t d = a.dim() - 3; d >= 0; --d) {
    const int64_t idx = rest % a.sizes()[d];
    rest /= a.sizes()[d];
    a_off += idx * a.strides()[d];
    b_off += idx * b.strides()[d];
  }
}

// Calls one(bi, inner_parallel) for every batch product: many small matrices in parallel over
// the batch, each product on one thread; otherwise in order, each product on every thread.
template <typename One>
void for_each_product(int64_t batch, int64_t m, int64_t n, int64_t k, const One& one) {
  const bool batch_parallel = batch >= 2 * max_threads() && m * n * k < (1 << 21);
  if (batch_parallel) {
    parallel_for(batch, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t bi = b0; bi < b1; ++bi) one(bi, false);
    });
  } else {
    for (int64_t bi = 0; bi < batch; ++bi) one(bi, true);
  }
}

template <typename T>
void run_matmul(const OpCall& call) {
  const Tensor& a = call.in(0);  // [batch..., m, k]
  const Tensor& b = call.in(1);  // [batch..., k, n]
  const Tensor& c = call.out();  // [batch..., m, n], contiguous
  const int64_t nd = a.dim();
  const int64_t m = a.sizes()[nd - 2], k = a.sizes()[nd - 1], n = b.sizes()[nd - 1];
  const T* a_data = a.data_ptr<T>();
  const T* b_data = b.data_ptr<T>();
  T* c_data = c.data_ptr<T>();
  for_each_product(c.numel() / (m * n), m, n, k, [&](int64_t bi, bool inner_parallel) {
    int64_t a_off = 0, b_off = 0;
    batch_offsets(a, b, bi, a_off, b_off);
    Matrix<T> am{a_data + a_off, m, k, a.strides()[nd - 2], a.strides()[nd - 1]};
    Matrix<T> bm{b_data + b_off, k, n, b.strides()[nd - 2], b.strides()[nd - 1]};
    if constexpr (std::is_same_v<T, int64_t>) {
      product(am, bm, c_data + bi * m * n, inner_parallel);
    } else {
      product_or_vector(am, bm, c_data + bi * m * n, inner_parallel);
    }
  });
}

// bfloat16 on a CPU with AVX512_BF16: gemm_rounded reads the bfloat16 operands in place
// (packing absorbs their strides, as for float32), sums in float32 and rounds each element
// once into the result, as libtorch 1.13 does through oneDNN; wick's float32 GEMM on widened
// copies ran at 0.43-0.52 of its speed at 1024^3 (docs/cpu-gemm.md, "bfloat16 on
// AVX512_BF16"). Matrix times vector, and CPUs without the instructions, take float32 copies
// (run_in_float32).
bool run_matmul_bf16(const OpCall& call) {
  const Tensor& a = call.in(0);
  const Tensor& b = call.in(1);
  const Tensor& c = call.out();  // contiguous
  const int64_t nd = a.dim();
  const int64_t m = a.sizes()[nd - 2], k = a.sizes()[nd - 1], n = b.sizes()[nd - 1];
  if (m == 1 || n == 1 || !gemm::has_bf16_gemm()) return false;
  const auto* a_data = reinterpret_cast<const gemm::BF16Bits*>(a.data_ptr<BFloat16>());
  const auto* b_data = reinterpret_cast<const gemm::BF16Bits*>(b.data_ptr<BFloat16>());
  auto* c_data = reinterpret_cast<gemm::BF16Bits*>(c.data_ptr<BFloat16>());
  for_each_product(c.numel() / (m * n), m, n, k, [&](int64_t bi, bool inner_parallel) {
    int64_t a_off = 0, b_off = 0;
    batch_offsets(a, b, bi, a_off, b_off);
    gemm::gemm_rounded({a_data + a_off, m, k, a.strides()[nd - 2], a.strides()[nd - 1]},
                       {b_data + b_off, k, n, b.strides()[nd - 2], b.strides()[nd - 1]},
                       c_data + bi * m * n, n, inner_parallel ? 0 : 1);
  });
  return true;
}

}  // namespace

void matmul_kernel(const OpCall& call) {
  if (call.out().dtype() == kBFloat16) {
    if (!run_matmul_bf16(call)) detail::run_in_float32(matmul_kernel, call, kCPU);
    return;
  }
  WICK_DISPATCH_NUMERIC(call.out().dtype(), run_matmul<T>(call))
}

}  // namespace wick::cpu
