// test_sort.cpp: sort, topk and cumsum on the GPU against the CPU kernels. sort and topk,
// position for position: every dtype (bfloat16 included) x shapes with 0-size dims and three
// dims x every dim x every layout the boundary packs, ascending and descending, full sorts and
// top-k, with ties (small integers and quarters) and NaN, infinities and -0.0. Both kernels
// order by the total order of kernels/sort_order.hpp, so the positions must be equal, and the
// values are the input's at those positions. Lines longer than one tile (4096) take the merge
// passes: one and several lines, an odd number of runs, lines along dim 0 (strided). cumsum and
// cumprod: the same sweep, equal bits (both devices combine each line in order). cummax and
// cummin: equal values and positions (one rule, kernels/scan_step.hpp). logcumsumexp: within a
// few float64 ulps per step (CUDA's exp and log1p against glibc's). prod: the same sweep, within
// rounding (the GPU multiplies in another order), over a dim and over all.
#include "gpu_test.hpp"

using namespace gpu_test;

namespace {

void check_same(const std::tuple<Tensor, Tensor>& gpu, const std::tuple<Tensor, Tensor>& cpu,
                const std::string& what) {
  check_close(std::get<1>(gpu), std::get<1>(cpu), {}, what + ": positions");
  check_close(std::get<0>(gpu), std::get<0>(cpu), {}, what + ": values");
}

// Every dtype (bfloat16 too) x shape (0-size dims, three dims, the big one) x dim x layout:
// fn(dtype, shape, dim, layout).
template <typename Fn>
void for_each_dim_case(Fn&& fn) {
  std::vector<Dtype> dtypes = all_dtypes();
  dtypes.push_back(kBFloat16);
  const std::vector<Shape> shapes{{}, {0}, {1, 0, 3}, {20}, {4, 7, 9}, big2d()};
  for (Dtype dtype : dtypes) {
    for (const Shape& shape : shapes) {
      const auto nd = static_cast<int64_t>(shape.size());
      for (int64_t dim = 0; dim < std::max<int64_t>(nd, 1); ++dim) {
        for (Layout layout : all_layouts()) fn(dtype, shape, dim, layout);
      }
    }
  }
}

}  // namespace

TEST_CASE("gpu sweep: sort and topk give the CPU's order", "[sweep]") {
  PoisonScope poison;
  for_each_dim_case([](Dtype dtype, const Shape& shape, int64_t dim, Layout layout) {
    Pair x = make_input(shape, dtype, layout, Domain::SmallInt, /*specials=*/true);
    const int64_t n = shape.empty() ? 1 : shape[static_cast<size_t>(dim)];
    const std::string what = label(x.cpu, layout) + " along dim " + std::to_string(dim);
    for (bool descending : {false, true}) {
      check_same(sort(x.gpu, dim, descending), sort(x.cpu, dim, descending),
                 "sort of " + what + (descending ? ", descending" : ""));
      if (dtype == kBool) continue;
      for (int64_t k : {std::min<int64_t>(n, 3), n / 2}) {
        check_same(topk(x.gpu, k, dim, descending), topk(x.cpu, k, dim, descending),
                   "topk " + std::to_string(k) + " of " + what);
      }
    }
  });
}

TEST_CASE("gpu: sort and topk of lines longer than a tile (merge passes)", "[sweep]") {
  PoisonScope poison;
  // One line of 4096 (one tile) and 4097 (two runs, the second of one element); 2 * 4096 + 7
  // (three runs: the last merges with nothing in the first pass); 20000 (five tiles, three
  // passes); 3 lines of 9000; 6000 along dim 0 of [6000, 3] (strided lines).
  const std::vector<std::pair<Shape, int64_t>> cases{
      {{4096}, 0}, {{4097}, 0}, {{2 * 4096 + 7}, 0}, {{20000}, 0}, {{3, 9000}, 1}, {{6000, 3}, 0}};
  for (const auto& [shape, dim] : cases) {
    for (Dtype dtype : {kFloat32, kInt64, kFloat64, kBFloat16, kBool}) {
      Pair x = make_input(shape, dtype, Layout::Contiguous, Domain::SmallInt, /*specials=*/true);
      const std::string what =
          label(x.cpu, Layout::Contiguous) + " along dim " + std::to_string(dim);
      for (bool descending : {false, true}) {
        check_same(sort(x.gpu, dim, descending), sort(x.cpu, dim, descending),
                   "sort of " + what + (descending ? ", descending" : ""));
      }
      if (dtype == kBool) continue;
      check_same(topk(x.gpu, 50, dim), topk(x.cpu, 50, dim), "topk 50 of " + what);
      check_same(topk(x.gpu, 50, dim, false), topk(x.cpu, 50, dim, false),
                 "topk 50 smallest of " + what);
    }
  }
}

TEST_CASE("gpu: sort's errors, gradient, and the device works on", "[sweep]") {
  const Tensor x = tensor({3.0f, 1.0f, 2.0f}).to(kCUDA);
  CHECK_THROWS_AS(topk(x, 4), IndexError);
  CHECK_THROWS_AS(topk(ones({2}, kBool).to(kCUDA), 1), DtypeError);
  CHECK(argsort(x).to(kCPU).to_vector<int64_t>() == std::vector<int64_t>{1, 2, 0});
  // The values' gradient goes back to their positions (as on the CPU: [10, 0, 20]).
  Tensor leaf = tensor({3.0f, 1.0f, 2.0f}).to(kCUDA).requires_grad_();
  (std::get<0>(leaf.topk(2)) * tensor({10.0f, 20.0f}).to(kCUDA)).sum().backward();
  CHECK(leaf.grad().to(kCPU).to_vector<float>() == std::vector<float>{10, 0, 20});
}

TEST_CASE("gpu sweep: searchsorted gives the CPU's positions", "[sweep]") {
  PoisonScope poison;
  std::vector<Dtype> dtypes = all_dtypes();
  dtypes.push_back(kBFloat16);
  for (Dtype dtype : dtypes) {
    for (Layout layout : all_layouts()) {
      // Sorted rows with ties, NaN, infinities and -0.0 (sort puts NaN last), values of the same
      // kind, in every layout; one sequence for all values, one per row, a sorter, a number.
      const Pair raw = make_input({3, 37}, dtype, Layout::Contiguous, Domain::SmallInt, true);
      const Pair values = make_input({3, 29}, dtype, layout, Domain::SmallInt, true);
      const std::string what = "searchsorted of " + label(values.cpu, layout);
      if (dtype == kBool) {
        CHECK_THROWS_AS(searchsorted(raw.gpu, values.gpu), DtypeError);
        continue;
      }
      const Tensor rows_cpu = std::get<0>(sort(raw.cpu, -1)),
                   rows_gpu = std::get<0>(sort(raw.gpu, -1));
      for (bool right : {false, true}) {
        const std::string side = right ? ", right" : ", left";
        check_close(searchsorted(rows_gpu, values.gpu, right),
                    searchsorted(rows_cpu, values.cpu, right), {}, what + " per row" + side);
        check_close(searchsorted(rows_gpu[1], values.gpu, right),
                    searchsorted(rows_cpu[1], values.cpu, right), {}, what + " in one row" + side);
        check_close(searchsorted(raw.gpu, values.gpu, right, argsort(raw.gpu, -1)),
                    searchsorted(raw.cpu, values.cpu, right, argsort(raw.cpu, -1)), {},
                    what + " with a sorter" + side);
        check_close(bucketize(2.5, rows_gpu[0], right), bucketize(2.5, rows_cpu[0], right), {},
                    "bucketize of a number" + side);
      }
    }
  }
  // A long row: about 17 bisection steps per value.
  const Tensor seq = arange(0, 100000, 1).to(kFloat32) * 0.5;
  const Tensor probes = rand({4096}) * 50000.0;
  check_close(searchsorted(seq.to(kCUDA), probes.to(kCUDA)), searchsorted(seq, probes), {},
              "searchsorted in 100000 elements");
}

TEST_CASE("gpu sweep: cumsum gives the CPU's bits", "[sweep]") {
  // Both devices add each line in order (float32 in float64), so the results must be equal.
  PoisonScope poison;
  for_each_dim_case([](Dtype dtype, const Shape& shape, int64_t dim, Layout layout) {
    Pair x = make_input(shape, dtype, layout, Domain::Any, /*specials=*/true);
    check_close(cumsum(x.gpu, dim), cumsum(x.cpu, dim), {},
                "cumsum of " + label(x.cpu, layout) + " along dim " + std::to_string(dim));
  });
  // The gradient on the device (as on the CPU: [[6, 5, 3], [15, 11, 6]]).
  const Tensor w = tensor({{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}}).to(kCUDA);
  Tensor x = w.clone().requires_grad_();
  (x.cumsum(1) * w).sum().backward();
  CHECK(x.grad().to(kCPU).to_vector<float>() == std::vector<float>{6, 5, 3, 15, 11, 6});
}

TEST_CASE("gpu sweep: cumprod gives the CPU's bits", "[sweep]") {
  PoisonScope poison;
  for_each_dim_case([](Dtype dtype, const Shape& shape, int64_t dim, Layout layout) {
    Pair x = make_input(shape, dtype, layout, Domain::Any, /*specials=*/true);
    check_close(cumprod(x.gpu, dim), cumprod(x.cpu, dim), {},
                "cumprod of " + label(x.cpu, layout) + " along dim " + std::to_string(dim));
  });
  // The gradient on the device, a zero included (as on the CPU: [7, 4, 114, 0, 0, 0]).
  Tensor x = tensor({2.0f, 3.0f, 0.0f, 4.0f, 0.0f, 5.0f}).to(kCUDA).requires_grad_();
  (x.cumprod(0) * arange(1.0, 7.0, 1.0, TensorOptions(kFloat32).device(kCUDA))).sum().backward();
  CHECK(x.grad().to(kCPU).to_vector<float>() == std::vector<float>{7, 4, 114, 0, 0, 0});
}

TEST_CASE("gpu sweep: cummax and cummin give the CPU's values and positions", "[sweep]") {
  PoisonScope poison;
  for_each_dim_case([](Dtype dtype, const Shape& shape, int64_t dim, Layout layout) {
    // Small integers and quarters (ties), NaN and infinities among them.
    Pair x = make_input(shape, dtype, layout, Domain::SmallInt, /*specials=*/true);
    const std::string what = label(x.cpu, layout) + " along dim " + std::to_string(dim);
    check_same(cummax(x.gpu, dim), cummax(x.cpu, dim), "cummax of " + what);
    check_same(cummin(x.gpu, dim), cummin(x.cpu, dim), "cummin of " + what);
  });
  // The gradient on the device: [1, 3, 2, 3] has its maxima at [0, 1, 1, 3].
  Tensor x = tensor({1.0f, 3.0f, 2.0f, 3.0f}).to(kCUDA).requires_grad_();
  std::get<0>(x.cummax(0)).backward(tensor({1.0f, 10.0f, 100.0f, 1000.0f}).to(kCUDA));
  CHECK(x.grad().to(kCPU).to_vector<float>() == std::vector<float>{1, 110, 0, 1000});
}

TEST_CASE("gpu sweep: logcumsumexp against the CPU", "[sweep]") {
  PoisonScope poison;
  for_each_dim_case([](Dtype dtype, const Shape& shape, int64_t dim, Layout layout) {
    Pair x = make_input(shape, dtype, layout, Domain::Any, /*specials=*/true);
    const std::string what =
        "logcumsumexp of " + label(x.cpu, layout) + " along dim " + std::to_string(dim);
    if (!is_floating(dtype)) {
      CHECK_THROWS_AS(logcumsumexp(x.gpu, dim), DtypeError);
      return;
    }
    // Both step in float64; CUDA's exp and log1p are within 2 ulps of glibc's, over up to a
    // thousand steps: float64 agrees to 1e-12, float32 and bfloat16 to one ulp of their own.
    const Tolerance tol = dtype == kFloat64   ? Tolerance{1e-12, 1e-12}
                          : dtype == kFloat32 ? Tolerance{2e-7, 2e-7}
                                              : Tolerance{1e-2, 1e-2};
    check_close(logcumsumexp(x.gpu, dim), logcumsumexp(x.cpu, dim), tol, what);
  });
  // The gradient on the device, against the CPU's.
  const Tensor w = tensor({1.0, -2.0, 3.0}).to(kFloat64);
  Tensor on_gpu = tensor({0.0, 1.0, -1.0}).to(kFloat64).to(kCUDA).requires_grad_();
  (logcumsumexp(on_gpu, 0) * w.to(kCUDA)).sum().backward();
  Tensor on_cpu = tensor({0.0, 1.0, -1.0}).to(kFloat64).requires_grad_();
  (logcumsumexp(on_cpu, 0) * w).sum().backward();
  check_close(on_gpu.grad(), on_cpu.grad(), {1e-12, 1e-12}, "logcumsumexp gradient");
}

TEST_CASE("gpu sweep: prod against the CPU", "[sweep]") {
  // Both multiply in float64 (int64 wrapping, which any order gives alike) but in different
  // orders: float64 results agree to a few ulps per factor, float32 and bfloat16 to one ulp
  // of their own rounding.
  PoisonScope poison;
  for_each_dim_case([](Dtype dtype, const Shape& shape, int64_t dim, Layout layout) {
    Pair x = make_input(shape, dtype, layout, Domain::Any, /*specials=*/true);
    const Tolerance tol = dtype == kFloat64   ? Tolerance{1e-12, 0}
                          : dtype == kFloat32 ? Tolerance{2e-7, 0}
                                              : Tolerance{1e-2, 0};
    const std::string what = "prod of " + label(x.cpu, layout);
    check_close(prod(x.gpu, dim, true), prod(x.cpu, dim, true), tol,
                what + " along dim " + std::to_string(dim));
    if (dim == 0) check_close(prod(x.gpu), prod(x.cpu), tol, what);
  });
  // Zeros in the gradient (as on the CPU: [[12, 8, 6], [60, 0, 0], [0, 0, 0]]).
  Tensor x = tensor({{2.0f, 3.0f, 4.0f}, {0.0f, 5.0f, 6.0f}, {0.0f, 7.0f, 0.0f}})
                 .to(kCUDA)
                 .requires_grad_();
  (x.prod(1) * tensor({1.0f, 2.0f, 3.0f}).to(kCUDA)).sum().backward();
  CHECK(x.grad().to(kCPU).to_vector<float>() == std::vector<float>{12, 8, 6, 60, 0, 0, 0, 0, 0});
  // A product of 2^20 (small run: 2^15) elements near 1: rows split into chunks of 16384,
  // then the second pass.
  const int64_t len = small_run() ? int64_t{1} << 15 : int64_t{1} << 20;
  const Tensor near_one = rand({len}, TensorOptions(kFloat64)) * 1e-6 + 1.0;
  check_close(prod(near_one.to(kCUDA)), prod(near_one), Tolerance{1e-12, 0}, "a long prod");
}
