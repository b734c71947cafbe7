// test_median.cpp: kthvalue, median and nanmedian. PyTorch's answers (python3-torch 1.13, in
// the comments), a float64 reference on random lines (the k-th of the sorted values, and the
// position: an element holding that value, the first such in stable order), NaN rules, 0-d and
// empty inputs, errors, and gradients to the chosen element.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <vector>
#include <wick/wick.hpp>

using namespace wick;

namespace {

const double kNan = std::nan("");

std::vector<double> doubles(const Tensor& t) { return t.to(kFloat64).to_vector<double>(); }
std::vector<int64_t> ints(const Tensor& t) { return t.to_vector<int64_t>(); }

// The k-th (from 1) of a line in stable order, NaN last: (value, position).
std::pair<double, int64_t> kth_of(const std::vector<double>& line, int64_t k) {
  std::vector<int64_t> order(line.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const double x = line[static_cast<size_t>(a)], y = line[static_cast<size_t>(b)];
    if (std::isnan(x)) return false;
    if (std::isnan(y)) return true;
    return x < y;
  });
  const int64_t at = order[static_cast<size_t>(k - 1)];
  return {line[static_cast<size_t>(at)], at};
}

}  // namespace

TEST_CASE("kthvalue and median: PyTorch's values", "[median]") {
  // x = [[3, nan, 1, nan, 2], [5, 4, 1, 2, 2]]
  const Tensor x = tensor({{3.0, kNan, 1.0, kNan, 2.0}, {5.0, 4.0, 1.0, 2.0, 2.0}});
  // torch.median(x, 1): values [nan, 2], indices [1, 4].
  auto [mv, mi] = median(x, 1);
  CHECK(std::isnan(doubles(mv)[0]));
  CHECK(doubles(mv)[1] == 2.0);
  CHECK(ints(mi) == std::vector<int64_t>{1, 4});
  // torch.median(x) is nan; torch.nanmedian(x, 1): [2, 2], indices [4, 4].
  CHECK(std::isnan(median(x).item<float>()));
  auto [nv, ni] = nanmedian(x, 1);
  CHECK(doubles(nv) == std::vector<double>{2, 2});
  CHECK(ints(ni) == std::vector<int64_t>{4, 4});
  // torch.kthvalue(x, 2, 1): values [2, 2], indices [4, 3]; k = 5: [nan, 5], [3, 0].
  auto [kv, ki] = kthvalue(x, 2, 1);
  CHECK(doubles(kv) == std::vector<double>{2, 2});
  CHECK(ints(ki) == std::vector<int64_t>{4, 3});
  auto [kv5, ki5] = x.kthvalue(5, 1);
  CHECK(std::isnan(doubles(kv5)[0]));
  CHECK(doubles(kv5)[1] == 5.0);
  CHECK(ints(ki5) == std::vector<int64_t>{3, 0});
  // torch.median(tensor([1., 2, 3, 4])) is 2 (the lower median); of int64 [2, 2, 1, 2] along
  // 0: 2 at index 0 (stable order: the first 2).
  CHECK(median(tensor({1.0, 2.0, 3.0, 4.0})).item<float>() == 2.0f);
  auto [iv, ii] = median(tensor({int64_t{2}, int64_t{2}, int64_t{1}, int64_t{2}}), 0);
  CHECK(iv.dtype() == kInt64);
  CHECK(iv.item<int64_t>() == 2);
  CHECK(ii.item<int64_t>() == 0);
  // nanmedian of a line of NaNs: nan at index 0 (torch).
  auto [all_nan, all_nan_at] = nanmedian(tensor({kNan, kNan}), 0);
  CHECK(std::isnan(all_nan.item<double>()));
  CHECK(all_nan_at.item<int64_t>() == 0);
  CHECK(nanmedian(tensor({kNan, 3.0, 1.0})).item<float>() == 1.0f);
  // keepdim, a transposed view, 0-d (torch.median(tensor(3.), 0) is (3, 0)).
  CHECK(std::get<0>(x.t().median(0, true)).sizes() == Shape{1, 2});
  CHECK(ints(std::get<1>(x.t().kthvalue(2, 0))) == std::vector<int64_t>{4, 3});
  auto [sv, si] = median(tensor(3.0), 0);
  CHECK(sv.dim() == 0);
  CHECK(sv.item<float>() == 3.0f);
  CHECK(si.item<int64_t>() == 0);
  CHECK(std::get<0>(kthvalue(tensor(3.0), 1)).item<float>() == 3.0f);
  // The median of nothing is nan (torch); bfloat16 keeps its dtype.
  CHECK(std::isnan(median(zeros({0})).item<float>()));
  CHECK(median(tensor({1.0, 3.0, 2.0}).to(kBFloat16)).dtype() == kBFloat16);
}

TEST_CASE("kthvalue and median: random lines against a float64 reference", "[median]") {
  manual_seed(7);
  // Small integers: many ties, so the stable order matters. A few NaNs.
  Tensor x = randint(0, 6, {9, 13}).to(kFloat64);
  x.index_put_({0, 3}, kNan);
  x.index_put_({4, 0}, kNan);
  x.index_put_({4, 12}, kNan);
  for (int64_t dim : {0, 1}) {
    const Tensor lines = dim == 1 ? x : x.t().contiguous();
    const int64_t n = lines.size(1);
    auto [med, med_at] = median(x, dim);
    auto [nmed, nmed_at] = nanmedian(x, dim);
    for (int64_t k : {int64_t{1}, n / 2, n}) {
      auto [kv, ki] = kthvalue(x, k, dim);
      for (int64_t r = 0; r < lines.size(0); ++r) {
        const std::vector<double> line = doubles(lines[r]);
        const auto [want, want_at] = kth_of(line, k);
        INFO("dim " << dim << " line " << r << " k " << k);
        const double got = doubles(kv)[static_cast<size_t>(r)];
        CHECK((std::isnan(want) ? std::isnan(got) : got == want));
        CHECK(ints(ki)[static_cast<size_t>(r)] == want_at);
      }
    }
    for (int64_t r = 0; r < lines.size(0); ++r) {
      const std::vector<double> line = doubles(lines[r]);
      const auto nans =
          std::count_if(line.begin(), line.end(), [](double v) { return std::isnan(v); });
      INFO("dim " << dim << " line " << r);
      // median: the first NaN where there is one, else the lower median.
      const auto [want, want_at] = kth_of(line, nans > 0 ? n - nans + 1 : (n - 1) / 2 + 1);
      const double got = doubles(med)[static_cast<size_t>(r)];
      CHECK((std::isnan(want) ? std::isnan(got) : got == want));
      CHECK(ints(med_at)[static_cast<size_t>(r)] == want_at);
      const auto [nwant, nwant_at] = kth_of(line, (n - nans - 1) / 2 + 1);
      CHECK(doubles(nmed)[static_cast<size_t>(r)] == nwant);
      CHECK(ints(nmed_at)[static_cast<size_t>(r)] == nwant_at);
    }
  }
}

TEST_CASE("kthvalue and median: errors and gradients", "[median][autograd]") {
  const Tensor m = tensor({{1.0, 2.0}, {3.0, 4.0}});
  CHECK_THROWS_AS(kthvalue(m, 3, 1), IndexError);  // torch: "selected number k out of range"
  CHECK_THROWS_AS(kthvalue(m, 0, 1), IndexError);
  CHECK_THROWS_AS(kthvalue(m, 1, 2), IndexError);
  CHECK_THROWS_AS(median(zeros({2, 0}), 1), IndexError);  // torch: "non-zero size"
  CHECK_THROWS_AS(median(tensor({true, false})), DtypeError);
  CHECK_THROWS_AS(kthvalue(tensor({true, false}), 1), DtypeError);
  CHECK_THROWS_AS(median(zeros({0}, kInt64)), IndexError);
  CHECK_THROWS_AS(median(Tensor()), ValueError);
  try {
    kthvalue(m, 3, 1);
  } catch (const IndexError& e) {
    CHECK_THAT(e.what(), Catch::Contains("kthvalue") && Catch::Contains("[2, 2]"));
  }
  // torch: x = [3, 1, 2]; median(x).backward() gives [0, 0, 1].
  Tensor x = tensor({3.0, 1.0, 2.0}).requires_grad_();
  median(x).backward();
  CHECK(doubles(x.grad()) == std::vector<double>{0, 0, 1});
  // Along a dim, kthvalue too: the gradient lands on the chosen positions.
  Tensor y = tensor({{4.0, 1.0, 3.0}, {2.0, 6.0, 5.0}}).requires_grad_();
  (std::get<0>(y.median(1)) * tensor({10.0, 20.0})).sum().backward();
  CHECK(doubles(y.grad()) == std::vector<double>{0, 0, 10, 0, 0, 20});
  Tensor z = tensor({{4.0, 1.0, 3.0}, {2.0, 6.0, 5.0}}).requires_grad_();
  std::get<0>(z.kthvalue(3, 1, true)).sum().backward();
  CHECK(doubles(z.grad()) == std::vector<double>{1, 0, 0, 0, 1, 0});
}
