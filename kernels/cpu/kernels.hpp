// kernels.hpp: the CPU kernels, one function per op (or op family, dispatching on call.op),
// each taking the OpCall that core's boundary prepared (see wick/dispatch.hpp for what a
// kernel may assume). Registered by register_cpu_kernels() in register_cpu.cpp.
#pragma once

#include "wick/dispatch.hpp"

namespace wick::cpu {

void fill_kernel(const OpCall& call);    // fill_copy.cpp
void copy_kernel(const OpCall& call);    // fill_copy.cpp
void arange_kernel(const OpCall& call);  // fill_copy.cpp
// A same-dtype copy from a transposed layout, in tiles; false when the layouts are not that.
bool transpose_copy(const Tensor& out, const Tensor& in);  // transpose_copy.cpp
void random_kernel(const OpCall& call);                    // random.cpp: rand, randn
void unary_kernel(const OpCall& call);                     // unary.cpp
void binary_kernel(const OpCall& call);                    // binary.cpp: arithmetic and comparisons
void where_kernel(const OpCall& call);                     // binary.cpp
void reduce_kernel(const OpCall& call);                    // reduce.cpp: sum, mean, max, min
void layer_norm_kernel(const OpCall& call);                // layer_norm.cpp
void layer_norm_backward_kernel(const OpCall& call);       // layer_norm.cpp
void resample_kernel(const OpCall& call);                  // resample.cpp
void resample_backward_kernel(const OpCall& call);         // resample.cpp
void softmax_kernel(const OpCall& call);                   // softmax.cpp: softmax, log_softmax
void matmul_kernel(const OpCall& call);                    // matmul.cpp
void index_select_kernel(const OpCall& call);              // index.cpp
void index_add_kernel(const OpCall& call);                 // index.cpp
void gather_kernel(const OpCall& call);                    // gather.cpp
void scatter_reduce_kernel(const OpCall& call);            // gather.cpp
void sort_kernel(const OpCall& call);                      // sort.cpp: sort, topk
void cumsum_kernel(const OpCall& call);                    // scan.cpp
void cumprod_kernel(const OpCall& call);                   // scan.cpp
void cum_extreme_kernel(const OpCall& call);               // scan.cpp: cummax, cummin
void logcumsumexp_kernel(const OpCall& call);              // scan.cpp
void searchsorted_kernel(const OpCall& call);              // search.cpp
void lu_factor_kernel(const OpCall& call);                 // lu.cpp
void lu_solve_kernel(const OpCall& call);                  // lu.cpp
void cholesky_factor_kernel(const OpCall& call);           // cholesky.cpp
void triangular_solve_kernel(const OpCall& call);          // triangular.cpp
void prod_kernel(const OpCall& call);                      // prod.cpp
void special_kernel(const OpCall& call);                   // special.cpp: asinh .. polygamma

}  // namespace wick::cpu

namespace wick {
void register_cpu_kernels();
}
