// test_errors.cpp: the errors ProcessGroup promises. Mismatches across ranks (shapes, dtypes,
// collectives, reduce ops, roots, an undefined tensor on one rank) are caught by the descriptor
// handshake and thrown as the same wick::Error kind on every rank, after which the group still
// works; invalid calls (average of int64, reduce_scatter of a size that does not split, a root
// out of range, an expanded in-place target) throw on every rank. Timeouts are tested by
// timeout_probe.cpp (a rank must leave the job). Run with 1, 2 and 3 ranks by CTest.
#include <catch2/catch.hpp>

#include <string>

#include "test_support.hpp"

namespace dist = wick::distributed;
using Catch::Matchers::Contains;
using wick_test::group;

namespace {

wick::Tensor f64(const wick::Shape& sizes, double value = 1) {
  return wick::full(sizes, value, wick::TensorOptions().dtype(wick::kFloat64));
}

// After an error the ranks are still in step and the group is usable.
void check_still_usable() {
  REQUIRE(!group().is_broken());
  wick::Tensor t = f64({2});
  group().all_reduce(t);
  CHECK(t.to_vector<double>() == std::vector<double>(2, group().size()));
}

}  // namespace

TEST_CASE("errors: shapes that differ across ranks are a ShapeError everywhere", "[errors]") {
  if (group().size() == 1) return;
  const int rank = group().rank();
  wick::Tensor t = f64({3 + rank % 2});
  CHECK_THROWS_AS(group().all_reduce(t), wick::ShapeError);
  CHECK_THROWS_WITH(group().all_reduce(t), Contains("shapes differ across ranks") &&
                                               Contains(": [3] float64 cpu") &&
                                               Contains("rank 1: [4] float64 cpu"));
  check_still_usable();
  wick::Tensor g = f64({2, 2 + rank});
  CHECK_THROWS_AS(group().all_gather(g), wick::ShapeError);
  CHECK_THROWS_AS(group().broadcast(g, 0), wick::ShapeError);
  check_still_usable();
}

TEST_CASE("errors: dtypes that differ across ranks are a DtypeError everywhere", "[errors]") {
  if (group().size() == 1) return;
  wick::Tensor t = wick::ones(
      {4}, wick::TensorOptions().dtype(group().rank() == 0 ? wick::kFloat32 : wick::kFloat64));
  CHECK_THROWS_WITH(group().all_reduce(t),
                    Contains("dtypes differ across ranks") && Contains("rank 0: [4] float32 cpu"));
  check_still_usable();
}

TEST_CASE("errors: different collectives, ops or roots are a ValueError everywhere", "[errors]") {
  if (group().size() == 1) return;
  const int rank = group().rank();
  wick::Tensor t = f64({4});
  auto mismatched = [&] {
    if (rank == 0) {
      group().all_reduce(t);
    } else {
      group().broadcast(t, 0);
    }
  };
  CHECK_THROWS_WITH(mismatched(), Contains("not calling the same collective") &&
                                      Contains("rank 0: all_reduce #") && Contains("broadcast #"));
  check_still_usable();
  CHECK_THROWS_WITH(group().all_reduce(t, rank == 0 ? dist::ReduceOp::Sum : dist::ReduceOp::Max),
                    Contains("reduce ops differ across ranks"));
  CHECK_THROWS_WITH(group().broadcast(t, rank == 0 ? 0 : 1), Contains("broadcast roots differ"));
  check_still_usable();
}

TEST_CASE("errors: an undefined tensor on one rank is named on every rank", "[errors]") {
  const int last = group().size() - 1;
  wick::Tensor t = group().rank() == last ? wick::Tensor() : f64({4});
  CHECK_THROWS_WITH(group().all_reduce(t),
                    Contains("rank " + std::to_string(last) + " passed an undefined tensor"));
  check_still_usable();
}

TEST_CASE("errors: invalid calls throw on every rank", "[errors]") {
  const int n = group().size();
  wick::Tensor ints = wick::ones({4}, wick::TensorOptions().dtype(wick::kInt64));
  CHECK_THROWS_AS(group().all_reduce(ints, dist::ReduceOp::Average), wick::DtypeError);
  CHECK_THROWS_WITH(group().all_reduce(ints, dist::ReduceOp::Average),
                    Contains("average needs a floating tensor"));
  wick::Tensor bools = wick::ones({4}, wick::TensorOptions().dtype(wick::kBool));
  CHECK_THROWS_AS(group().reduce_scatter(bools.view({4, 1}).expand({4, 2 * n}).t().contiguous(),
                                         dist::ReduceOp::Average),
                  wick::DtypeError);
  CHECK_THROWS_AS(group().broadcast(f64({2}), n), wick::IndexError);
  CHECK_THROWS_AS(group().broadcast(f64({2}), -1), wick::IndexError);
  CHECK_THROWS_AS(group().reduce_scatter(f64({}), dist::ReduceOp::Sum), wick::ShapeError);
  if (n > 1) {
    CHECK_THROWS_WITH(group().reduce_scatter(f64({n + 1, 2}), dist::ReduceOp::Sum),
                      Contains("multiple of the group size"));
  }
  wick::Tensor expanded = f64({1, 3}).expand({4, 3});
  CHECK_THROWS_WITH(group().all_reduce(expanded), Contains("expanded tensor"));
  // all_gather only reads its input, so an expanded tensor is fine there.
  CHECK(group().all_gather(expanded).sizes() == wick::Shape{n, 4, 3});
  check_still_usable();
}

TEST_CASE("errors: without the handshake, local checks still throw", "[errors]") {
  group().set_check_shapes(false);
  wick::Tensor ints = wick::ones({4}, wick::TensorOptions().dtype(wick::kInt64));
  CHECK_THROWS_AS(group().all_reduce(ints, dist::ReduceOp::Average), wick::DtypeError);
  wick::Tensor t = f64({3});
  group().all_reduce(t);
  CHECK(t.to_vector<double>() == std::vector<double>(3, group().size()));
  group().set_check_shapes(true);
  check_still_usable();
}

TEST_CASE("errors: option and environment checks", "[errors]") {
  CHECK_THROWS_AS(group().set_timeout(std::chrono::milliseconds(0)), wick::ValueError);
  CHECK(group().timeout().count() > 0);
}
