// test_search.cpp: searchsorted and bucketize (core/src/ops_search.cpp): python3-torch 1.13's
// values (in the comments), the order with NaN, the forms (one sequence or one per row, sorter,
// numbers, bucketize), dtype promotion, empty inputs, errors, and a random sweep against
// std::lower_bound and std::upper_bound. The op sweep (test_op_sweep.cpp) and the GPU suite
// (tests/cuda/test_sort.cpp) cover layouts and the device.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>
#include <wick/wick.hpp>

#include "sweep_common.hpp"

using namespace wick;
using ref::Domain;
using ref::Layout;

namespace {

using Ints = std::vector<int64_t>;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Ints ints(const Tensor& t) { return t.contiguous().to_vector<int64_t>(); }

// Brute force: how many of the row's elements come before v (left) or not after it (right).
int64_t count_before(const std::vector<double>& row, double v, bool right) {
  int64_t c = 0;
  for (double e : row) c += right ? !(v < e) : e < v;
  return c;
}

}  // namespace

// The op sweep's case: every dtype x value shape x layout, against one sorted sequence and one
// per row, left and right; small integers and quarters, so values tie with the sequence.
void sweep_searchsorted() {
  std::vector<Dtype> dtypes = ref::all_dtypes();
  dtypes.push_back(kBFloat16);
  for (Dtype dtype : dtypes) {
    const Tensor raw = ref::make_input({23}, dtype, Layout::Contiguous, Domain::SmallInt);
    if (dtype == kBool) {
      CHECK_THROWS_AS(searchsorted(raw, raw), DtypeError);
      continue;
    }
    const Tensor seq = std::get<0>(sort(raw));
    const std::vector<double> row = seq.to(kFloat64).to_vector<double>();
    for (const Shape& shape : kShapes) {
      for (Layout layout : kLayouts) {
        const Tensor v = ref::make_input(shape, dtype, layout, Domain::SmallInt);
        for (bool right : {false, true}) {
          INFO("searchsorted of " << label(v, layout) << (right ? ", right" : ", left"));
          ref::PoisonScope poison;
          const Tensor got = searchsorted(seq, v, right);
          CHECK(got.sizes() == v.sizes());
          ref::check_all(
              got,
              [&](const std::vector<int64_t>& i) {
                return static_cast<double>(count_before(row, ref::value(v, i), right));
              },
              "searchsorted");
        }
      }
    }
    // One sequence per row: [4, 9] sequences, [4, 6] values in each layout.
    const Tensor seqs =
        std::get<0>(sort(ref::make_input({4, 9}, dtype, Layout::Strided, Domain::SmallInt)));
    for (Layout layout : kLayouts) {
      const Tensor v = ref::make_input({4, 6}, dtype, layout, Domain::SmallInt);
      const Tensor got = searchsorted(seqs, v);
      ref::check_all(
          got,
          [&](const std::vector<int64_t>& i) {
            const std::vector<double> r = seqs[i[0]].to(kFloat64).to_vector<double>();
            return static_cast<double>(count_before(r, ref::value(v, i), false));
          },
          "searchsorted per row of " + label(v, layout));
    }
  }
}

TEST_CASE("searchsorted: left and right insertion points", "[search]") {
  const Tensor s = tensor({1.0, 3.0, 3.0, 5.0, 7.0});
  const Tensor v = tensor({{0.0, 3.0, 4.0}, {7.0, 8.0, -kInf}});
  // torch: [[0, 1, 3], [4, 5, 0]] and, right, [[0, 3, 3], [5, 5, 0]]
  const Tensor left = searchsorted(s, v);
  CHECK(left.dtype() == kInt64);
  CHECK(left.sizes() == Shape{2, 3});
  CHECK(ints(left) == Ints{0, 1, 3, 4, 5, 0});
  CHECK(ints(searchsorted(s, v, true)) == Ints{0, 3, 3, 5, 5, 0});
  // One sequence per row: [[1, 3], [1, 2]] and [[2, 3], [1, 3]].
  const Tensor rows = tensor({{1, 3, 5}, {2, 4, 6}});
  const Tensor probes = tensor({{3, 6}, {3, 6}});
  CHECK(ints(searchsorted(rows, probes)) == Ints{1, 3, 1, 2});
  CHECK(ints(searchsorted(rows, probes, true)) == Ints{2, 3, 1, 3});
  // Numbers: searchsorted([1, 2, 2, 2, 3], 2) 1, right 4; a 0-d result.
  const Tensor twos = tensor({1.0, 2.0, 2.0, 2.0, 3.0});
  CHECK(searchsorted(twos, 2).dim() == 0);
  CHECK(searchsorted(twos, 2).item<int64_t>() == 1);
  CHECK(searchsorted(twos, 2, true).item<int64_t>() == 4);
  // Mixed dtypes compare by value: [1, 3, 5] with [2.5, 3, 5.5] gives [1, 1, 3]; [1., 3, 5]
  // with [2, 3] gives [1, 1]; 2.5 as a number too.
  CHECK(ints(searchsorted(tensor({1, 3, 5}), tensor({2.5, 3.0, 5.5}))) == Ints{1, 1, 3});
  CHECK(ints(searchsorted(tensor({1.0, 3.0, 5.0}), tensor({2, 3}))) == Ints{1, 1});
  CHECK(searchsorted(tensor({1, 3, 5}), 2.5).item<int64_t>() == 1);
  // A float64 sequence keeps a number's double value: 0.1 is not 0.1f.
  const Tensor tenth = tensor(std::vector<double>{0.1}, TensorOptions(kFloat64));
  CHECK(searchsorted(tenth, 0.1).item<int64_t>() == 0);
  CHECK(searchsorted(tenth, 0.1, true).item<int64_t>() == 1);
  // -0.0 and 0.0 are equal: [-0., 0.] with [0., -0.] gives [0, 0], right [2, 2].
  const Tensor zeros_pm = tensor({-0.0, 0.0});
  CHECK(ints(searchsorted(zeros_pm, tensor({0.0, -0.0}))) == Ints{0, 0});
  CHECK(ints(searchsorted(zeros_pm, tensor({0.0, -0.0}), true)) == Ints{2, 2});
}

TEST_CASE("searchsorted: NaN is above every number, as sort orders it", "[search]") {
  // torch: searchsorted([1, 3, 5], nan) is 3, as here.
  CHECK(ints(searchsorted(tensor({1.0, 3.0, 5.0}), tensor({kNan}))) == Ints{3});
  // A sequence that sort() produced, NaNs last: wick's positions are insertion points.
  // (torch 1.13 compares with >= only and answers 5 for 4 here, past the NaN.)
  const Tensor sorted_nan = std::get<0>(sort(tensor({5.0, kNan, 3.0, 1.0, 3.0})));
  CHECK(ints(searchsorted(sorted_nan, tensor({4.0, kNan, kInf}))) == Ints{3, 4, 4});
  CHECK(ints(searchsorted(sorted_nan, tensor({4.0, kNan, kInf}), true)) == Ints{3, 5, 4});
}

TEST_CASE("searchsorted: sorter, bucketize, empty inputs, bfloat16", "[search]") {
  // sorter: [5., 1, 3] sorted by [1, 2, 0], values [3, 6, 0]: [1, 3, 0].
  const Tensor seq = tensor({5.0, 1.0, 3.0});
  const Tensor sorter = tensor(std::vector<int64_t>{1, 2, 0});
  CHECK(ints(searchsorted(seq, tensor({3.0, 6.0, 0.0}), false, sorter)) == Ints{1, 3, 0});
  CHECK(ints(searchsorted(seq, tensor({3.0, 6.0, 0.0}), false, argsort(seq))) == Ints{1, 3, 0});
  // bucketize([[1, 6], [3, 9]], [1, 3, 5, 7]): [[0, 3], [1, 4]], right [[1, 3], [2, 4]].
  const Tensor input = tensor({{1, 6}, {3, 9}});
  const Tensor bounds = tensor({1, 3, 5, 7});
  CHECK(ints(bucketize(input, bounds)) == Ints{0, 3, 1, 4});
  CHECK(ints(bucketize(input, bounds, true)) == Ints{1, 3, 2, 4});
  CHECK(bucketize(Scalar(3), bounds).item<int64_t>() == 1);
  // Empty: no boundaries gives 0 everywhere; no values gives an empty result.
  CHECK(ints(searchsorted(zeros({0}), tensor({3.0, -1.0}))) == Ints{0, 0});
  CHECK(searchsorted(tensor({1.0}), zeros({0, 4})).sizes() == Shape{0, 4});
  CHECK(ints(searchsorted(zeros({2, 0}), zeros({2, 3}))) == Ints(6, 0));
  // bfloat16 compares by value, promoted with the other operand.
  const Tensor b16 = tensor({1.0, 2.5, 4.0}, kBFloat16);
  CHECK(ints(searchsorted(b16, tensor({2.5, 3.0}, kBFloat16))) == Ints{1, 2});
  CHECK(ints(searchsorted(b16, tensor({2.5, 3.0}), true)) == Ints{2, 2});
}

TEST_CASE("searchsorted: errors name the op, the shapes and the dtypes", "[search]") {
  const Tensor rows = tensor({{1, 3, 5}, {2, 4, 6}});
  // torch: "boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries
  // tensor and input value tensor must match"
  try {
    (void)searchsorted(rows, tensor({{3}}));
    FAIL("no error");
  } catch (const ShapeError& e) {
    CHECK_THAT(e.what(), Catch::Contains("searchsorted") && Catch::Contains("[2, 3]") &&
                             Catch::Contains("[1, 1]"));
  }
  CHECK_THROWS_AS(searchsorted(rows, tensor({3, 4})), ShapeError);          // dims differ
  CHECK_THROWS_AS(searchsorted(full({}, 3.0), tensor({3.0})), ShapeError);  // a 0-d sequence
  CHECK_THROWS_AS(bucketize(tensor({1, 2}), rows), ShapeError);             // 2-D boundaries
  const Tensor flags = tensor(std::vector<bool>{false, true});
  CHECK_THROWS_AS(searchsorted(flags, flags), DtypeError);
  CHECK_THROWS_AS(searchsorted(tensor({1.0, 2.0}), flags), DtypeError);
  const Tensor seq = tensor({1.0, 2.0, 3.0});
  CHECK_THROWS_AS(searchsorted(seq, seq, false, tensor({0.0, 1.0, 2.0})), DtypeError);
  CHECK_THROWS_AS(searchsorted(seq, seq, false, tensor(Ints{0, 1})), ShapeError);
  CHECK_THROWS_AS(searchsorted(seq, seq, false, tensor(Ints{0, 1, 3})), IndexError);
  CHECK_THROWS_AS(searchsorted(Tensor(), seq), Error);
  if (!cuda::is_available()) {
    CHECK_THROWS_AS(searchsorted(seq, seq.to(kCUDA)), Error);
  }
  // After the errors everything still works.
  CHECK(ints(searchsorted(seq, tensor({2.0}))) == Ints{1});
}

TEST_CASE("searchsorted: random rows against std::lower_bound and std::upper_bound", "[search]") {
  std::mt19937_64 gen(7);
  std::uniform_int_distribution<int> small(-20, 20);
  for (int64_t m : {1, 2, 7, 64, 1000}) {
    for (Dtype dtype : {kInt64, kFloat32, kFloat64}) {
      const int64_t rows = 3, n = 257;
      std::vector<double> seq(static_cast<size_t>(rows * m)), values(static_cast<size_t>(rows * n));
      for (double& x : seq) x = small(gen) * 0.5;
      for (double& x : values) x = small(gen) * 0.25;
      for (int64_t r = 0; r < rows; ++r) std::sort(seq.begin() + r * m, seq.begin() + (r + 1) * m);
      const Tensor s = tensor(seq, {rows, m}).to(dtype), v = tensor(values, {rows, n}).to(dtype);
      for (bool right : {false, true}) {
        const Ints got = ints(searchsorted(s, v, right));
        const Tensor sd = s.to(kFloat64), vd = v.to(kFloat64);  // the values as stored
        const std::vector<double> sv = sd.to_vector<double>(), vv = vd.to_vector<double>();
        int64_t wrong = 0;
        for (int64_t r = 0; r < rows; ++r) {
          const auto first = sv.begin() + r * m, last = first + m;
          for (int64_t i = 0; i < n; ++i) {
            const double x = vv[static_cast<size_t>(r * n + i)];
            const auto at =
                right ? std::upper_bound(first, last, x) : std::lower_bound(first, last, x);
            wrong += got[static_cast<size_t>(r * n + i)] != (at - first);
          }
        }
        INFO("m " << m << ", " << dtype << (right ? ", right" : ", left"));
        CHECK(wrong == 0);
      }
    }
  }
}
