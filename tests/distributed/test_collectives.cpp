// test_collectives.cpp: every collective of ProcessGroup against values computed locally, for
// every dtype (bool, int64, float32, float64), every reduce op, and every layout of
// test_support.hpp (contiguous, transposed, strided, offset, 0-d, empty), on CPU tensors through
// MPI and, where every rank has a GPU of its own, on CUDA tensors through NCCL. Rank r's element k
// is value(r, k), so each rank can compute what the others hold. Run with 1, 2 and 3 ranks by
// CTest.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

#include "test_support.hpp"

namespace dist = wick::distributed;
using wick_test::group;
using wick_test::Layout;

namespace {

// Rank r's k-th element: small multiples of 1/2 (exact in float32), of both signs, with the
// largest and smallest coming from different ranks for different k.
double value(int r, int64_t k, wick::Dtype dtype) {
  const auto mixed = static_cast<double>((r * 7 + k * 3) % 11) - 4;
  switch (dtype) {
    case wick::kBool:
      return (r * 7 + k * 3) % 3 == 0 ? 1 : 0;
    case wick::kInt64:
      return mixed + 10 * r;
    default:
      return mixed + 0.5 * r;
  }
}

// The reduction over every rank of value(r, k), as each dtype and op defines it.
double reduced(int64_t k, wick::Dtype dtype, dist::ReduceOp op) {
  const int n = group().size();
  double sum = 0, hi = value(0, k, dtype), lo = hi;
  for (int r = 0; r < n; ++r) {
    const double v = value(r, k, dtype);
    sum += v;
    hi = std::max(hi, v);
    lo = std::min(lo, v);
  }
  if (dtype == wick::kBool) return op == dist::ReduceOp::Min ? lo : hi;  // and / or
  switch (op) {
    case dist::ReduceOp::Sum:
      return sum;
    case dist::ReduceOp::Average:
      return dtype == wick::kFloat32 ? static_cast<double>(static_cast<float>(sum / n)) : sum / n;
    case dist::ReduceOp::Max:
      return hi;
    case dist::ReduceOp::Min:
      return lo;
  }
  return 0;
}

const std::vector<dist::ReduceOp> kOps{dist::ReduceOp::Sum, dist::ReduceOp::Average,
                                       dist::ReduceOp::Max, dist::ReduceOp::Min};

bool applies(dist::ReduceOp op, wick::Dtype dtype) {
  return op != dist::ReduceOp::Average || wick::is_floating(dtype);
}

}  // namespace

TEST_CASE("all_reduce: every op, dtype, layout and device", "[collectives]") {
  const int rank = group().rank();
  for (const wick::Device& device : wick_test::devices()) {
    for (wick::Dtype dtype : wick_test::all_dtypes()) {
      for (dist::ReduceOp op : kOps) {
        if (!applies(op, dtype)) continue;
        for (Layout layout : wick_test::all_layouts()) {
          INFO(device << " " << dtype << " " << dist::reduce_op_name(op) << " "
                      << wick_test::layout_name(layout));
          auto v = wick_test::make_viewed(
              layout, dtype, [&](int64_t k) { return value(rank, k, dtype); }, device);
          const wick::Shape sizes = v.view.sizes();
          group().all_reduce(v.view, op);
          CHECK(v.view.sizes() == sizes);
          CHECK(v.view.device() == device);
          const std::vector<double> got = v.view.to_vector<double>();
          for (size_t k = 0; k < got.size(); ++k) {
            CHECK(got[k] == reduced(static_cast<int64_t>(k), dtype, op));
          }
          CHECK(wick_test::sentinel_intact(v));
        }
      }
    }
  }
}

TEST_CASE("broadcast: from every root, every dtype, layout and device", "[collectives]") {
  const int rank = group().rank();
  for (const wick::Device& device : wick_test::devices()) {
    for (int root = 0; root < group().size(); ++root) {
      for (wick::Dtype dtype : wick_test::all_dtypes()) {
        for (Layout layout : wick_test::all_layouts()) {
          INFO(device << " root " << root << " " << dtype << " " << wick_test::layout_name(layout));
          auto v = wick_test::make_viewed(
              layout, dtype, [&](int64_t k) { return value(rank, k, dtype); }, device);
          group().broadcast(v.view, root);
          const std::vector<double> got = v.view.to_vector<double>();
          for (size_t k = 0; k < got.size(); ++k) {
            CHECK(got[k] == value(root, static_cast<int64_t>(k), dtype));
          }
          CHECK(wick_test::sentinel_intact(v));
        }
      }
    }
  }
}

TEST_CASE("all_gather: every dtype, layout and device", "[collectives]") {
  const int rank = group().rank(), n = group().size();
  for (const wick::Device& device : wick_test::devices()) {
    for (wick::Dtype dtype : wick_test::all_dtypes()) {
      for (Layout layout : wick_test::all_layouts()) {
        INFO(device << " " << dtype << " " << wick_test::layout_name(layout));
        auto v = wick_test::make_viewed(
            layout, dtype, [&](int64_t k) { return value(rank, k, dtype); }, device);
        const std::vector<double> before = v.view.to_vector<double>();
        wick::Tensor out = group().all_gather(v.view);
        std::vector<int64_t> expected_sizes{n};
        for (int64_t s : v.view.sizes()) expected_sizes.push_back(s);
        CHECK(out.sizes() == wick::Shape(expected_sizes));
        CHECK(out.is_contiguous());
        CHECK(out.dtype() == dtype);
        CHECK(out.device() == device);
        const std::vector<double> got = out.to_vector<double>();
        const auto per_rank = static_cast<size_t>(v.view.numel());
        REQUIRE(got.size() == per_rank * static_cast<size_t>(n));
        for (int r = 0; r < n; ++r) {
          for (size_t k = 0; k < per_rank; ++k) {
            CHECK(got[static_cast<size_t>(r) * per_rank + k] ==
                  value(r, static_cast<int64_t>(k), dtype));
          }
        }
        CHECK(v.view.to_vector<double>() == before);  // the input is untouched
      }
    }
  }
}

TEST_CASE("reduce_scatter: every op, dtype and device, contiguous and transposed input",
          "[collectives]") {
  const int rank = group().rank(), n = group().size();
  for (const wick::Device& device : wick_test::devices()) {
    for (wick::Dtype dtype : wick_test::all_dtypes()) {
      for (dist::ReduceOp op : kOps) {
        if (!applies(op, dtype)) continue;
        for (bool transposed : {false, true}) {
          INFO(device << " " << dtype << " " << dist::reduce_op_name(op)
                      << (transposed ? " transposed" : ""));
          // Input [2n, 3]; element k (row-major) is value(rank, k).
          std::vector<double> values(static_cast<size_t>(6 * n));
          for (size_t k = 0; k < values.size(); ++k) {
            values[k] = value(rank, static_cast<int64_t>(k), dtype);
          }
          wick::Tensor input = wick::tensor(values, {2 * n, 3}).to(device, dtype);
          if (transposed) input = input.t().contiguous().t();  // same values, strides [1, 2n]
          CHECK(input.is_contiguous() == !transposed);
          wick::Tensor out = group().reduce_scatter(input, op);
          CHECK(out.sizes() == wick::Shape{2, 3});
          CHECK(out.device() == device);
          const std::vector<double> got = out.to_vector<double>();
          for (size_t j = 0; j < got.size(); ++j) {
            CHECK(got[j] == reduced(6 * rank + static_cast<int64_t>(j), dtype, op));
          }
        }
      }
    }
  }
}

TEST_CASE("barrier: nobody leaves before the slowest rank arrives", "[collectives]") {
  using Clock = std::chrono::steady_clock;
  group().barrier();
  const Clock::time_point start = Clock::now();
  if (group().rank() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  group().barrier();
  const double waited = std::chrono::duration<double>(Clock::now() - start).count();
  CHECK(waited >= 0.25);
}

TEST_CASE("async all_reduce: several in flight, waited for in reverse order", "[collectives]") {
  const int rank = group().rank(), n = group().size();
  std::vector<wick::Tensor> tensors;
  std::vector<std::shared_ptr<dist::Work>> works;
  for (int i = 0; i < 5; ++i) {
    tensors.push_back(wick::full({100 + i}, static_cast<double>(rank + i),
                                 wick::TensorOptions().dtype(wick::kFloat64)));
    works.push_back(group().all_reduce_async(tensors.back()));
  }
  for (int i = 4; i >= 0; --i) works[static_cast<size_t>(i)]->wait();
  for (int i = 0; i < 5; ++i) {
    CHECK(works[static_cast<size_t>(i)]->is_completed());
    const double expected = n * (n - 1) / 2.0 + n * i;
    for (double x : tensors[static_cast<size_t>(i)].to_vector<double>()) CHECK(x == expected);
  }
}

TEST_CASE("all_reduce writes a leaf that requires grad in place and bumps its version",
          "[collectives]") {
  wick::Tensor w =
      wick::ones({4}, wick::TensorOptions().dtype(wick::kFloat64)).requires_grad_(true);
  const uint32_t version = w.storage()->version();
  group().all_reduce(w, dist::ReduceOp::Sum);
  CHECK(w.requires_grad());
  CHECK(w.storage()->version() > version);
  for (double x : w.to_vector<double>()) CHECK(x == group().size());
}

TEST_CASE("group facts: ranks, local ranks, device", "[collectives]") {
  auto& g = group();
  CHECK(g.size() >= 1);
  CHECK(g.rank() >= 0);
  CHECK(g.rank() < g.size());
  CHECK(g.local_rank() < g.local_size());
  CHECK(g.local_size() <= g.size());
  // The ranks agree on their number and each rank's local rank is unique within its machine.
  wick::Tensor ranks = g.all_gather(wick::tensor(std::vector<int64_t>{g.rank(), g.local_rank()}));
  const std::vector<int64_t> all = ranks.to_vector<int64_t>();
  for (int r = 0; r < g.size(); ++r) CHECK(all[static_cast<size_t>(2 * r)] == r);
  if (!wick::cuda::is_available()) CHECK(g.default_device() == wick::Device(wick::kCPU));
  CHECK(!g.is_broken());
}
