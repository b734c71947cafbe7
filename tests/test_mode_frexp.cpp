// test_mode_frexp.cpp: mode, frexp and xlog1py against torch 1.13's values (printed with
// /usr/bin/python3, torch 1.13.1), mode also against a counting loop over random lines of every
// dim and layout, and their gradients.
#include <map>
#include <random>

#include "reference.hpp"

using namespace wick;
using ref::Layout;

namespace {

// The most frequent value of v, the smallest of equally frequent ones, and the last place it
// occurs (for lines without NaN).
std::pair<double, int64_t> counted_mode(const std::vector<double>& v) {
  auto less = [](double a, double b) {
    if (std::isnan(a)) return false;
    return std::isnan(b) || a < b;
  };
  std::map<double, std::pair<int64_t, int64_t>, decltype(less)> counts(less);  // count, last
  for (size_t i = 0; i < v.size(); ++i) {
    auto& entry = counts[v[i]];
    ++entry.first;
    entry.second = static_cast<int64_t>(i);
  }
  auto best = counts.begin();
  for (auto it = counts.begin(); it != counts.end(); ++it) {
    if (it->second.first > best->second.first) best = it;
  }
  return {best->first, best->second.second};
}

}  // namespace

TEST_CASE("mode: torch 1.13's values and positions", "[order]") {
  const Tensor x = tensor({3.0, 1.0, 1.0, 3.0, 2.0, 2.0, 5.0, 5.0, 5.0, 1.0, 1.0, 1.0, NAN, 1.0,
                           NAN, 2.0, 2.0, 0.0})
                       .reshape({3, 6});
  const auto [values, indices] = mode(x, 1);
  const std::vector<double> got = values.to(kFloat64).to_vector<double>();
  CHECK(got == std::vector<double>{1, 1, 2});
  CHECK(indices.to_vector<int64_t>() == std::vector<int64_t>{2, 5, 4});
  const auto [v2, i2] = mode(tensor({2, 2, 1, 1, 3, 3, 3}), 0);
  CHECK(v2.item<int64_t>() == 3);
  CHECK(i2.item<int64_t>() == 6);
  const auto [v3, i3] = tensor({1.0, 2.0, 1.0, 2.0, 3.0, 2.0}).reshape({3, 2}).mode(0, true);
  CHECK(v3.sizes() == Shape{1, 2});
  CHECK(v3.to(kFloat64).to_vector<double>() == std::vector<double>{1, 2});
  CHECK(i3.to_vector<int64_t>() == std::vector<int64_t>{1, 2});
  const auto [v4, i4] = mode(tensor(5.0));
  CHECK(v4.sizes() == Shape{});
  CHECK(i4.item<int64_t>() == 0);
  const auto [v5, i5] = mode(tensor({1, 0, 1}).to(kBool));
  CHECK(v5.dtype() == kBool);
  CHECK(v5.item<bool>());
  CHECK(i5.item<int64_t>() == 2);
  // A NaN equals nothing, so NaNs never add up (torch: [nan, nan, nan, 1, 1] gives 1 at 4). A
  // line of NaNs gives its first. (torch gives [nan, 4, nan] nan at 0 where wick gives 4 at 1:
  // its unstable sort leaves NaNs where they are, so its answer there is the sort's accident.)
  const auto [v6, i6] = mode(tensor({NAN, NAN, NAN, 1.0, 1.0}));
  CHECK(v6.item<float>() == 1.0f);
  CHECK(i6.item<int64_t>() == 4);
  const auto [v7, i7] = mode(tensor({NAN, NAN}));
  CHECK(std::isnan(v7.item<float>()));
  CHECK(i7.item<int64_t>() == 0);
  const auto [v8, i8] = mode(tensor({NAN, 4.0, NAN}));
  CHECK(v8.item<float>() == 4.0f);
  CHECK(i8.item<int64_t>() == 1);
  CHECK(std::get<0>(mode(zeros({0, 3}), 1)).sizes() == Shape{0});
  CHECK_THROWS_AS(mode(zeros({2, 0}), 1), IndexError);
  CHECK_THROWS_WITH(mode(zeros({2, 3}), 2), Catch::Contains("mode"));
  CHECK_THROWS_AS(mode(Tensor()), ValueError);
}

TEST_CASE("mode: a counting loop over every dim and layout; the gradient reaches the place",
          "[order]") {
  std::mt19937_64 gen(7);
  for (Dtype dtype : {kFloat32, kFloat64, kInt64}) {
    for (const Shape& shape : {Shape{9}, Shape{4, 7}, Shape{3, 5, 6}, Shape{1, 1}}) {
      for (Layout layout : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
        Tensor x = ref::make_input(shape, dtype, layout, ref::Domain::SmallInt);
        if (dtype != kInt64) x = round(x);  // few distinct values: real ties
        for (int64_t dim = 0; dim < x.dim(); ++dim) {
          INFO(describe(x) << " along dim " << dim);
          const auto [values, indices] = mode(x, dim);
          const Tensor lines = x.movedim(dim, -1).reshape({-1, x.size(dim)}).to(kFloat64);
          const std::vector<double> got_values =
              values.reshape({-1}).to(kFloat64).to_vector<double>();
          const std::vector<int64_t> got_indices = indices.reshape({-1}).to_vector<int64_t>();
          for (int64_t r = 0; r < lines.size(0); ++r) {
            const auto [want_value, want_index] = counted_mode(lines[r].to_vector<double>());
            CHECK(got_values[static_cast<size_t>(r)] == want_value);
            CHECK(got_indices[static_cast<size_t>(r)] == want_index);
          }
        }
      }
    }
  }
  const Tensor x =
      tensor({1.0, 2.0, 2.0, 3.0, 3.0, 3.0}, kFloat64).reshape({2, 3}).requires_grad_(true);
  std::get<0>(mode(x, 1)).sum().backward();
  CHECK(x.grad().to_vector<double>() == std::vector<double>{0, 0, 1, 0, 0, 1});  // last places
}

TEST_CASE("frexp: torch 1.13's mantissas and exponents, subnormals included", "[numeric]") {
  const Tensor x = tensor({0.0, -0.0, 1.0, 0.75, -3.0, INFINITY, -INFINITY, NAN, 1e-310, 5e-324,
                           1.7976931348623157e308, 0.9999999999999999, -2.5e-5},
                          kFloat64);
  const auto [m, e] = frexp(x);
  const std::vector<double> mantissa = m.to_vector<double>();
  const std::vector<double> want = {0.0,
                                    -0.0,
                                    0.5,
                                    0.75,
                                    -0.75,
                                    INFINITY,
                                    -INFINITY,
                                    NAN,
                                    0.5752618031559393,
                                    0.5,
                                    0.9999999999999999,
                                    0.9999999999999999,
                                    -0.8192};
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    if (std::isnan(want[i])) {
      CHECK(std::isnan(mantissa[i]));
    } else {
      CHECK(mantissa[i] == want[i]);
      CHECK(std::signbit(mantissa[i]) == std::signbit(want[i]));
    }
  }
  CHECK(e.dtype() == kInt64);
  CHECK(e.to_vector<int64_t>() ==
        std::vector<int64_t>{0, 0, 1, 0, 2, 0, 0, 0, -1029, -1073, 1024, 0, -15});
  const auto [mf, ef] = tensor({1e-40f, 1.4e-45f, 3.4e38f, 0.99999994f, -7.0f, 0x1p-126f}).frexp();
  CHECK(mf.to_vector<float>() == std::vector<float>{0.5444488525390625f, 0.5f, 0.999170184135437f,
                                                    0.9999999403953552f, -0.875f, 0.5f});
  CHECK(ef.to_vector<int64_t>() == std::vector<int64_t>{-132, -148, 128, 0, 3, -125});
  // Every float32 power of two and its neighbours: mantissa * 2^exponent gives x back.
  std::vector<float> probes;
  for (int k = -149; k < 128; ++k) {
    const float p = std::ldexp(1.0f, k);
    probes.insert(probes.end(), {p, std::nextafter(p, 0.0f), std::nextafter(p, INFINITY)});
  }
  const Tensor px = tensor(probes);
  const auto [pm, pe] = frexp(px);
  CHECK(equal(ldexp(pm.to(kFloat64), pe.to(kFloat64)).to(kFloat32), px));
  CHECK(all(logical_or(eq(pm, 0), logical_and(ge(abs(pm), 0.5), lt(abs(pm), 1.0)))).item<bool>());
  // bfloat16 keeps its dtype; integers are refused, as torch.
  CHECK(std::get<0>(frexp(tensor({3.0f}).to(kBFloat16))).to(kFloat32).item<float>() == 0.75f);
  CHECK_THROWS_WITH(frexp(tensor({1, 2})), Catch::Contains("frexp") && Catch::Contains("int64"));
  // The mantissa's gradient is 2^-exponent.
  const Tensor g = tensor({3.0, -0.1, 1e-300}, kFloat64).requires_grad_(true);
  std::get<0>(frexp(g)).sum().backward();
  CHECK(g.grad().to_vector<double>() == std::vector<double>{0.25, 8.0, std::ldexp(1.0, 996)});
}

TEST_CASE("xlog1py: torch 1.13's values and gradients", "[pointwise]") {
  const Tensor a = tensor({0.0, 0.0, 0.0, 1.0, 2.0, -1.5, 0.5, 3.0, 0.0, 0.0}, kFloat64);
  const Tensor b = tensor({-1.0, -2.0, INFINITY, -1.0, 3.0, 0.25, -0.5, 1e-10, NAN, 0.5}, kFloat64);
  const std::vector<double> got = xlog1py(a, b).to_vector<double>();
  const std::vector<double> want = {0.0,
                                    0.0,
                                    0.0,
                                    -INFINITY,
                                    2.772588722239781,
                                    -0.3347153269713147,
                                    -0.34657359027997264,
                                    2.99999999985e-10,
                                    NAN,
                                    0.0};
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    if (std::isnan(want[i])) {
      CHECK(std::isnan(got[i]));
    } else {
      CHECK(got[i] == Approx(want[i]).epsilon(1e-15));
      CHECK(!std::signbit(got[i]) == !std::signbit(want[i]));
    }
  }
  // Integers become float32; a 0-d b broadcasts.
  CHECK(xlog1py(tensor({1, 2}), tensor({1, 2})).dtype() == kFloat32);
  CHECK(xlog1py(tensor({2.0}), tensor(1.0)).item<float>() == Approx(2 * std::log(2.0)));
  const Tensor ga = a.narrow(0, 3, 5).detach().requires_grad_(true);
  const Tensor gb = b.narrow(0, 3, 5).detach().requires_grad_(true);
  xlog1py(ga, gb).sum().backward();
  const std::vector<double> want_a = {-INFINITY, 1.3862943611198906, 0.22314355131420976,
                                      -0.6931471805599453, 9.999999999500001e-11};
  const std::vector<double> want_b = {INFINITY, 0.5, -1.2, 1.0, 2.9999999997};
  const std::vector<double> got_a = ga.grad().to_vector<double>(),
                            got_b = gb.grad().to_vector<double>();
  for (size_t i = 0; i < want_a.size(); ++i) {
    INFO("element " << i);
    CHECK(got_a[i] == Approx(want_a[i]).epsilon(1e-12));
    CHECK(got_b[i] == Approx(want_b[i]).epsilon(1e-12));
  }
  CHECK_THROWS_AS(xlog1py(ones({2}), ones({3})), ShapeError);
}

TEST_CASE("xlogy and xlog1py: the sign of zero as torch's", "[pointwise]") {
  // torch: xlog1py([1, -2, 0, -0], [-0, 0, -0.5, 0.5]) = [-0, -0, 0, 0]; xlogy([-2, 0, -0],
  // [1, 0.5, 0.5]) = [-0, 0, 0].
  const std::vector<double> a =
      xlog1py(tensor({1.0, -2.0, 0.0, -0.0}, kFloat64), tensor({-0.0, 0.0, -0.5, 0.5}, kFloat64))
          .to_vector<double>();
  CHECK(std::signbit(a[0]));
  CHECK(std::signbit(a[1]));
  CHECK(!std::signbit(a[2]));
  CHECK(!std::signbit(a[3]));
  const std::vector<double> b =
      xlogy(tensor({-2.0, 0.0, -0.0}, kFloat64), tensor({1.0, 0.5, 0.5}, kFloat64))
          .to_vector<double>();
  CHECK(std::signbit(b[0]));
  CHECK(!std::signbit(b[1]));
  CHECK(!std::signbit(b[2]));
}
