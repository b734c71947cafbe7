// test_softmax.cpp: softmax and log_softmax on the GPU against the CPU's float64 reference, for
// every path of kernels/cuda/softmax.cu and softmax_rows.cu: rows in registers (a warp or a
// block per row, 16-byte vectors or scalars), long rows (softmax_long_kernel), strided rows
// (the cols kernels), misaligned and strided views, NaN/inf rows, more rows than one capped
// grid; tolerances 1e-5 relative (float32), 1e-12 (float64), as docs/cuda-backend.md says.
#include <string>
#include <vector>

#include "gpu_test.hpp"
#include "sweep_check.hpp"
#include "wick/op_list.hpp"

using namespace gpu_test;

namespace {

void sweep_softmax(OpId op) {
  const bool log_form = op == OpId::log_softmax;
  auto run_op = [log_form](const Tensor& t, int64_t dim) {
    return log_form ? t.log_softmax(dim) : t.softmax(dim);
  };
  const Shape big = big2d();
  const int64_t longer = small_run() ? 9000 : 20000;
  // (150001, 3): many short rows (softmax_rows_kernel: a lane per row, 256 rows per block);
  // 20001 in a small run (compute-sanitizer, the CPU emulator). The grid-stride loops of the
  // row kernels are reached by the cases after this loop.
  const std::vector<std::pair<Shape, int64_t>> configs{
      {{}, 0},
      {{1}, 0},
      {{20}, 0},
      {{812}, -1},
      {big, 1},
      {big, 0},
      {{8, 3000}, 0},
      {{3000, 8}, 0},
      {{3, longer}, 1},
      {{2, 3, 4, 5}, 2},
      {{0, 5}, 1},
      {{4096, 7}, 1},
      // Strided rows longer than softmax_cols_kernel takes (n > 1024), 1100 of them.
      {{small_run() ? int64_t{1500} : int64_t{3000}, 1100}, 0},
      {{small_run() ? int64_t{20001} : int64_t{150001}, 3}, 1}};
  for (Dtype dtype : all_dtypes()) {
    for (const auto& [shape, dim] : configs) {
      for (Layout layout :
           {Layout::Contiguous, Layout::Transposed, Layout::Strided, Layout::Offset}) {
        for (bool specials : {false, true}) {
          if (specials && (!is_floating(dtype) || shape.size() != 2)) continue;
          Pair x = make_input(shape, dtype, layout, Domain::Any, specials);
          const int64_t d = dim;
          check_op([&](const std::vector<Tensor>& in) { return run_op(in[0], d); }, {x}, 1e-5,
                   std::string(op_name(op)) + " over dim " + std::to_string(dim) + " of " +
                       label(x.cpu, layout) + (specials ? " with NaN/inf" : ""),
                   kSoftmax64, log_form ? kLogSoftmax32Abs : 0, log_form ? kLogSoftmax64Abs : 0);
        }
      }
    }
  }
  // Rows of 600 (16-byte loads, a warp per row, 8 rows per block): 70001 rows, more than 8
  // waves of blocks cover on an H200 (8448 blocks of 8 rows), so the grid-stride loop runs on
  // the GPU too.
  if (!small_run()) {
    Pair x = make_input({70001, 600}, kFloat32, Layout::Contiguous, Domain::Any);
    check_op([&](const std::vector<Tensor>& in) { return run_op(in[0], 1); }, {x}, 1e-5,
             std::string(op_name(op)) + " of 70001 rows of 600", kSoftmax64,
             log_form ? kLogSoftmax32Abs : 0, log_form ? kLogSoftmax64Abs : 0);
  }
  // The row kernels' paths (kernels/cuda/softmax.cu): 16-byte loads where rows are contiguous,
  // n % (16 / element size) == 0 and every row starts 16-byte aligned, scalar loads otherwise;
  // n on both sides of each step of the lanes per row (powers of two times 32 float32 or 16
  // float64 values) and of the longest row held in registers (8192 float32, 4096 float64
  // elements; longer rows go to softmax_long_kernel). Each width contiguous, as a view whose
  // rows start one element past 16-byte alignment (scalar), and as an aligned view whose rows
  // are strided by more than n (16-byte path where n allows).
  for (Dtype dtype : {kFloat32, kFloat64}) {
    const int64_t cap = dtype == kFloat32 ? 8192 : 4096, lane = dtype == kFloat32 ? 32 : 16;
    for (int64_t width :
         {int64_t{1},    int64_t{2},   int64_t{4},    lane - 1,      lane,      lane + 1,
          lane + 4,      2 * lane + 4, 32 * lane - 4, 32 * lane - 1, 32 * lane, 32 * lane + 1,
          32 * lane + 4, cap / 2 + 4,  cap - 4,       cap - 1,       cap,       cap + 1,
          cap + 2,       cap + 4,      3 * cap + 12}) {
      const Tensor base = randn({3, width + 4}, dtype), gpu_base = base.to(kCUDA);
      const Pair cases[] = {make_input({3, width}, dtype, Layout::Contiguous, Domain::Any),
                            Pair{base.narrow(1, 1, width), gpu_base.narrow(1, 1, width)},
                            Pair{base.narrow(1, 4, width), gpu_base.narrow(1, 4, width)}};
      const char* names[] = {"contiguous", "rows starting unaligned", "aligned strided rows"};
      for (size_t c = 0; c < 3; ++c) {
        check_op([&](const std::vector<Tensor>& in) { return run_op(in[0], 1); }, {cases[c]}, 1e-5,
                 std::string(op_name(op)) + " of 3 " + names[c] + " of " + std::to_string(width) +
                     " " + dtype_name(dtype),
                 kSoftmax64, log_form ? kLogSoftmax32Abs : 0, log_form ? kLogSoftmax64Abs : 0);
      }
    }
  }
  // More rows than one capped grid covers (the emulator's 2 SMs: 128 blocks of 256 threads for
  // softmax_rows_kernel, 64 of 512 for softmax_long_kernel), so that each path's grid-stride
  // loop runs: 1 lane per row (4 values; 3: scalar), a warp per row (1024), a block per row
  // (8192), long rows (8196: 16-byte path; 8193: scalar), and float64 (a warp per row of 512,
  // long rows).
  for (const auto& [shape, dtype] : std::vector<std::pair<Shape, Dtype>>{{{40000, 4}, kFloat32},
                                                                         {{40000, 3}, kFloat32},
                                                                         {{1100, 1024}, kFloat32},
                                                                         {{130, 8192}, kFloat32},
                                                                         {{66, 8196}, kFloat32},
                                                                         {{66, 8193}, kFloat32},
                                                                         {{1100, 512}, kFloat64},
                                                                         {{66, 4098}, kFloat64}}) {
    Pair x = make_input(shape, dtype, Layout::Contiguous, Domain::Any);
    check_op(
        [&](const std::vector<Tensor>& in) { return run_op(in[0], 1); }, {x}, 1e-5,
        std::string(op_name(op)) + " of " + label(x.cpu, Layout::Contiguous) + " (grid-stride)",
        kSoftmax64, log_form ? kLogSoftmax32Abs : 0, log_form ? kLogSoftmax64Abs : 0);
  }
  // (log_softmax's absolute slack as above: in the row of large values the maximum's result is
  // -log(1 + tiny), about -5e-6, whose float32 error of a few 1e-8 failed 1e-5 relative.)
  // Rows that are all -inf (0/0 = NaN), hold +inf (NaN) or NaN (NaN), large values (no overflow),
  // through each row kernel and load width (10: scalar; 1024 and 8192: 16-byte vectors, a warp
  // and a block per row; 8196: long rows, 16-byte; 8197: long rows, scalar).
  for (Dtype dtype : {kFloat32, kFloat64}) {
    for (int64_t width : {int64_t{10}, int64_t{1024}, int64_t{3000}, int64_t{4100}, int64_t{8192},
                          int64_t{8196}, int64_t{8197}, longer}) {
      Tensor base = randn({5, width}, dtype);
      base.select(0, 0).fill_(-INFINITY);
      base.select(0, 1).narrow(0, 3, 1).fill_(INFINITY);
      base.select(0, 2).narrow(0, 5, 1).fill_(NAN);
      base.select(0, 3).mul_(1000);
      Pair x{base, base.to(kCUDA)};
      check_op([&](const std::vector<Tensor>& in) { return run_op(in[0], 1); }, {x}, 1e-5,
               std::string(op_name(op)) + " of special rows, width " + std::to_string(width),
               kSoftmax64, log_form ? kLogSoftmax32Abs : 0, log_form ? kLogSoftmax64Abs : 0);
    }
  }
}

}  // namespace

TEST_CASE("gpu sweep: softmax and log_softmax", "[sweep]") {
  for (OpId op : {OpId::softmax, OpId::log_softmax}) {
    DYNAMIC_SECTION(op_name(op)) { sweep_softmax(op); }
  }
}

// A long float32 row (softmax_long_kernel: lane l of 512 sums the 4 elements of vectors l,
// l + 512, ...) whose first 512 elements are 0 and the rest -8: the running sums of lanes 0 to
// 127 start at 4 exp(0) = 4 and then add 2044 terms exp(-8), each too small next to them to
// add exactly, and rounded the same way each time. Summed in float32 the row sum drifted by
// about 1.4e-5 of itself (with the earlier one element per lane).
TEST_CASE("gpu sweep: softmax over a long float32 row sums without drift", "[sweep]") {
  const int64_t n = int64_t{1} << 20;
  Tensor host = full({1, n}, -8.0);
  host.narrow(1, 0, 512).fill_(0.0);
  const Tensor want = host.to(kFloat64).softmax(1);
  check_close(host.to(kCUDA).softmax(1), want, {2e-7, 0}, "softmax of 2^20 floats in one row");
}
