// sweep_common.hpp: what the op sweep's files share (test_op_sweep.cpp walks the op list and
// calls the sweeps; test_op_sweep_shapes.cpp and test_layer_norm.cpp hold some of them): the
// shapes, broadcast pairs and layouts every op meets, and the sweeps defined outside
// test_op_sweep.cpp.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "reference.hpp"

inline const std::vector<wick::Shape> kShapes = {{}, {0}, {1, 0, 3}, {20}, {812}, {1029, 917}};
inline const std::vector<std::pair<wick::Shape, wick::Shape>> kBroadcastPairs = {
    {{20}, {}}, {{}, {812}}, {{3, 1, 5}, {4, 5}}, {{1029, 1}, {1, 917}}, {{2, 0, 3}, {1, 3}}};
inline const std::vector<ref::Layout> kLayouts = {ref::Layout::Contiguous, ref::Layout::Transposed,
                                                  ref::Layout::Strided, ref::Layout::Expanded};

inline std::string label(const wick::Tensor& t, ref::Layout l) {
  return wick::describe(t) + " (" + ref::layout_name(l) + ")";
}

// A float64 value rounded to dtype as the kernels round their float64 results: float32 once,
// bfloat16 through float32 (the float32 kernel, then the cast).
inline double rounded_to_dtype(double v, wick::Dtype dtype) {
  if (dtype == wick::kFloat32) return static_cast<double>(static_cast<float>(v));
  if (dtype == wick::kBFloat16)
    return static_cast<double>(static_cast<float>(wick::BFloat16(static_cast<float>(v))));
  return v;
}

// The lines of a shape around dim: [outer, n, inner] (element (o, i, c) of a contiguous tensor
// is at (o * n + i) * inner + c).
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
  Lines(const wick::Shape& shape, int64_t dim) {
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
      const int64_t size = shape[static_cast<size_t>(d)];
      (d < dim ? outer : d == dim ? n : inner) *= size;
    }
  }
};

// Every dtype (bfloat16 too) x shape x dim (dim 0 alone for a 0-d shape) x layout: the walk of
// the ops along one dim (sort, cumsum). fn(dtype, shape, dim, layout) returns false to stop.
template <typename Fn>
void for_each_dim_case(const std::vector<wick::Shape>& shapes, Fn&& fn) {
  std::vector<wick::Dtype> dtypes = ref::all_dtypes();
  dtypes.push_back(wick::kBFloat16);
  for (wick::Dtype dtype : dtypes) {
    for (const wick::Shape& shape : shapes) {
      const auto nd = static_cast<int64_t>(shape.size());
      for (int64_t dim = 0; dim < std::max<int64_t>(nd, 1); ++dim) {
        for (ref::Layout layout : kLayouts) {
          if (!fn(dtype, shape, dim, layout)) return;
        }
      }
    }
  }
}

// test_op_sweep_shapes.cpp
void sweep_fill();
void sweep_random(wick::OpId op);
void sweep_copy();
void sweep_arange();
void sweep_cat();
void sweep_stack();
void sweep_views(wick::OpId op);
// test_layer_norm.cpp
void sweep_layer_norm(wick::OpId op);
// test_index.cpp: index_select, index_add
void sweep_index(wick::OpId op);
// test_resample.cpp: resample, resample_backward
void sweep_resample(wick::OpId op);
// test_gather.cpp: gather, scatter_add
void sweep_gather(wick::OpId op);
// test_scatter.cpp: scatter_reduce (every mode, scatter's assign included)
void sweep_scatter_reduce();
// test_sort.cpp
void sweep_sort();
// test_scan.cpp
void sweep_cumsum();
void sweep_cumprod();
void sweep_prod();
// test_scan_extremes.cpp: cummax, cummin, logcumsumexp
void sweep_cum_extreme(wick::OpId op);
void sweep_logcumsumexp();
// test_search.cpp
void sweep_searchsorted();
// test_linalg.cpp: lu_factor, lu_solve, linalg_solve, det
void sweep_linalg(wick::OpId op);
// test_cholesky.cpp: cholesky_factor, triangular_solve, linalg_cholesky, linalg_solve_triangular
void sweep_cholesky(wick::OpId op);
