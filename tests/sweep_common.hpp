// sweep_common.hpp: what the op sweep's files share (test_op_sweep.cpp walks the op list and
// calls the sweeps; test_op_sweep_shapes.cpp and test_layer_norm.cpp hold some of them): the
// shapes, broadcast pairs and layouts every op meets, and the sweeps defined outside
// test_op_sweep.cpp.
#pragma once

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
// test_gather.cpp: gather, scatter_add
void sweep_gather(wick::OpId op);
// test_sort.cpp
void sweep_sort();
// test_scan.cpp
void sweep_cumsum();
