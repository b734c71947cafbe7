// kernels.hpp: the CUDA kernels' host launchers, one per op family, each taking the OpCall that
// core's boundary prepared (wick/dispatch.hpp says what a kernel may assume). Registered for
// every Kernel op of wick/op_list.hpp by register_cuda_backend() in register_cuda.cpp.
#pragma once

#include "wick/dispatch.hpp"

namespace wick::gpu {

void launch_fill(const OpCall& call);        // fill_copy.cu
void launch_copy(const OpCall& call);        // fill_copy.cu: copy and cast between any dtypes
void launch_arange(const OpCall& call);      // fill_copy.cu
void launch_random(const OpCall& call);      // random.cu: rand, randn (Philox, as the CPU)
void launch_unary(const OpCall& call);       // unary.cu
void launch_binary(const OpCall& call);      // binary.cu: add sub mul div pow maximum minimum
void launch_nextafter(const OpCall& call);   // binary.cu: float, double and bfloat16 steps
void launch_compare(const OpCall& call);     // compare.cu: eq ne lt le gt ge
void launch_where(const OpCall& call);       // compare.cu
void launch_reduce(const OpCall& call);      // reduce.cu: sum mean max min (+ arg indices)
void launch_softmax(const OpCall& call);     // softmax.cu: softmax, log_softmax
void launch_layer_norm(const OpCall& call);  // layer_norm.cu
void launch_layer_norm_backward(const OpCall& call);  // layer_norm.cu
void launch_resample(const OpCall& call);             // resample.cu
void launch_resample_backward(const OpCall& call);    // resample.cu
void launch_matmul(const OpCall& call);               // gemm/ladder.cu: a ladder kernel, or cuBLAS
void launch_index_select(const OpCall& call);         // index.cu
void launch_index_add(const OpCall& call);            // index.cu
void launch_gather(const OpCall& call);               // gather.cu
void launch_scatter_reduce(const OpCall& call);       // gather.cu
void launch_sort(const OpCall& call);                 // sort.cu: sort, topk
void launch_special(const OpCall& call);              // special.cu: asinh .. polygamma
void launch_scan(const OpCall& call);  // scan.cu: cumsum, cumprod, cummax, cummin, logcumsumexp
void launch_searchsorted(const OpCall& call);      // search.cu
void launch_lu_factor(const OpCall& call);         // lu.cu
void launch_lu_solve(const OpCall& call);          // lu.cu
void launch_cholesky_factor(const OpCall& call);   // cholesky.cu
void launch_triangular_solve(const OpCall& call);  // cholesky.cu
void launch_prod(const OpCall& call);              // reduce.cu

struct OpContext;
// index.cu: out[o, i, c] = self[o, index, c] for out [outer, n, inner] and self [outer, size,
// inner], index = index[i] (index_select) or index[e] of the output element (gather).
void launch_pick(const OpContext& ctx, const Tensor& out, const Tensor& self, const int64_t* index,
                 int64_t inner, int64_t n, int64_t size, bool per_element);

// matmul_cublas.cpp: whether cuBLAS can run this matmul (float32/float64, sizes that fit its
// int arguments), and running it.
bool cublas_supports(const OpCall& call);
void launch_matmul_cublas(const OpContext& ctx, const OpCall& call);

}  // namespace wick::gpu
