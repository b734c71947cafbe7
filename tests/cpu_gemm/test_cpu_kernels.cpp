// test_cpu_kernels.cpp: the fast paths of the CPU elementwise and softmax kernels (vec_math.hpp,
// vec_kernels.cpp, loops.hpp's broadcast runs), checked where the op sweep's small shapes do not
// reach them: float32 exp/sigmoid/tanh/sin/cos over a sample of every float bit pattern against
// float64 libm, in ulps; softmax rows with -inf, NaN and odd lengths; row and column broadcasts;
// bfloat16 rounding. The reductions' fast paths are in test_cpu_reductions.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernel_values.hpp"
#include "ulps.hpp"
#include "vec_kernels.hpp"
#include "vec_math.hpp"
#include "wick/wick.hpp"

using namespace wick;
using wick::testing::ulps;

namespace {

std::vector<float> sample_floats() {
  std::vector<float> xs;
  for (uint64_t bits = 0; bits < (uint64_t{1} << 32); bits += 509) {  // every 509th pattern
    const uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, sizeof f);
    xs.push_back(f);
  }
  for (float f : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 88.72f, 88.73f, -87.33f, -103.9f, -104.0f,
                  0.625f, -0.625f, 1e-30f, -1e-30f}) {
    xs.push_back(f);
  }
  return xs;
}

}  // namespace

TEST_CASE("vec math: float exp, log, sigmoid and tanh within a few ulp of float64 libm",
          "[kernels]") {
  const std::vector<float> xs = sample_floats();
  Tensor x = tensor(xs, {static_cast<int64_t>(xs.size())});
  // Through the op (vectorised clones) and one element at a time (vec_math.hpp directly).
  const std::vector<float> e = floats_of(x.exp()), s = floats_of(x.sigmoid()),
                           t = floats_of(x.tanh());
  double worst_exp = 0, worst_tanh = 0, worst_sigmoid = 0;
  int64_t layout_mismatch = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double xd = xs[i];
    worst_exp = std::max(worst_exp, ulps(e[i], std::exp(xd)));
    worst_tanh = std::max(worst_tanh, ulps(t[i], std::tanh(xd)));
    // sigmoid: relative to 1/(1 + e^-x), where e^-x itself is computed in float: when it
    // overflows (x < -88.7) the float op gives 0, as libm's expf would.
    const double sig = 1.0 / (1.0 + std::exp(-xd));
    if (sig > 1e-37) worst_sigmoid = std::max(worst_sigmoid, ulps(s[i], sig));
    const float scalar = cpu::vec::exp(xs[i]);
    if (std::memcmp(&scalar, &e[i], sizeof scalar) != 0) ++layout_mismatch;
  }
  INFO("max ulp: exp " << worst_exp << ", tanh " << worst_tanh << ", sigmoid " << worst_sigmoid);
  CHECK(worst_exp <= 2.0);
  CHECK(worst_tanh <= 3.0);
  // log: every sampled float (negatives give NaN, 0 gives -inf, subnormals included).
  const std::vector<float> l = floats_of(x.log());
  double worst_log = 0;
  int64_t log_mismatch = 0, log_special_wrong = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want = std::log(static_cast<double>(xs[i]));
    if (std::isfinite(want)) {
      worst_log = std::max(worst_log, ulps(l[i], want));
    } else if (!(std::isnan(want) ? std::isnan(l[i]) : l[i] == want)) {
      ++log_special_wrong;
    }
    const float scalar = cpu::vec::log(xs[i]);
    if (std::memcmp(&scalar, &l[i], sizeof scalar) != 0) ++log_mismatch;
  }
  INFO("max ulp: log " << worst_log);
  CHECK(worst_log <= 2.0);
  CHECK(log_special_wrong == 0);
  CHECK(log_mismatch == 0);
  CHECK(worst_sigmoid <= 4.0);
  CHECK(layout_mismatch == 0);  // the clones round exactly as the scalar code
  // A strided view takes the element-at-a-time path: same bits (compared as bytes: the sample
  // holds NaNs, which == never matches, and a failed CHECK on two 8-million-float vectors
  // would spend minutes printing them).
  Tensor wide = x.unsqueeze(1).expand({x.numel(), 2});
  const std::vector<float> strided = floats_of(wide.exp().select(1, 1));
  REQUIRE(strided.size() == e.size());
  int64_t strided_mismatch = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    if (std::memcmp(&strided[i], &e[i], sizeof(float)) != 0) ++strided_mismatch;
  }
  CHECK(strided_mismatch == 0);
}

TEST_CASE("vec math: float sin and cos within 1 ulp of float64 libm, at any argument",
          "[kernels]") {
  // The sample covers every magnitude: the in-range form below 2^20, libm's past it, inf and
  // NaN; near multiples of pi/2 the results are small and the reduction's error shows most.
  // Measured when written: 0.5001 ulp for sin, 0.50004 for cos (the double result rounded once).
  std::vector<float> xs = sample_floats();
  for (int k = -20000; k <= 20000; ++k) {
    const double m = k * 1.5707963267948966;
    for (float f : {static_cast<float>(m), std::nextafter(static_cast<float>(m), 1e30f),
                    std::nextafter(static_cast<float>(m), -1e30f)}) {
      xs.push_back(f);
    }
  }
  for (float f : {1048575.9f, 1048576.0f, -1048576.0f, 1e6f}) xs.push_back(f);
  const Tensor x = tensor(xs, {static_cast<int64_t>(xs.size())});
  const std::vector<float> s = floats_of(x.sin()), c = floats_of(x.cos());
  double worst_sin = 0, worst_cos = 0;
  int64_t special_wrong = 0, scalar_mismatch = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double want_s = std::sin(static_cast<double>(xs[i]));
    const double want_c = std::cos(static_cast<double>(xs[i]));
    if (std::isfinite(xs[i])) {
      worst_sin = std::max(worst_sin, ulps(s[i], want_s));
      worst_cos = std::max(worst_cos, ulps(c[i], want_c));
      if (xs[i] == 0.0f && std::signbit(s[i]) != std::signbit(xs[i])) ++special_wrong;
    } else if (!std::isnan(s[i]) || !std::isnan(c[i])) {
      ++special_wrong;
    }
    const float ss = cpu::vec::sin(xs[i]), sc = cpu::vec::cos(xs[i]);
    if (std::memcmp(&ss, &s[i], sizeof ss) != 0 || std::memcmp(&sc, &c[i], sizeof sc) != 0) {
      ++scalar_mismatch;
    }
  }
  INFO("max ulp: sin " << worst_sin << ", cos " << worst_cos);
  CHECK(worst_sin <= 1.0);
  CHECK(worst_cos <= 1.0);
  CHECK(special_wrong == 0);
  CHECK(scalar_mismatch == 0);  // the clones and the strided path give the same bits
}

TEST_CASE(
    "vec math: float tan, atan, asin, acos, sinh, cosh, expm1, log1p, log2, log10, erf "
    "within 1 ulp of float64 libm",
    "[kernels]") {
  // Computed in double inside and rounded once (vec_math.hpp): within 1 ulp everywhere, and
  // correctly rounded nearly everywhere. Measured: 0.50006 ulp for tan, 0.504 for erf, 0.5 or
  // below for the rest; log10 0.977 by ulps()'s measure, which uses the finer spacing below a
  // power of two (a value just past -32, rounded correctly to -32). Sampled every 509th float
  // pattern, plus the edges of each reduction (tan(pi/8), tan(3pi/8), 0.5 for asin/acos, 2^-29
  // for log1p, 0.75 and 4 for erf), the overflow thresholds of sinh, cosh and expm1, and near
  // multiples of pi/2 for tan.
  std::vector<float> xs = sample_floats();
  for (double edge :
       {0.41421356237309503, 2.414213562373095, 0.5, 1.0, 1.862645149230957e-09, 89.41598629223294,
        88.72283935546875, 1.5707963267948966, 1e-8, 0.1, 10.0, 1000.0}) {
    float f = static_cast<float>(edge);
    for (int step = 0; step < 8; ++step) f = std::nextafter(f, 0.0f);
    for (int step = 0; step < 16; ++step) {
      xs.push_back(f);
      xs.push_back(-f);
      f = std::nextafter(f, INFINITY);
    }
  }
  for (int k = -2000; k <= 2000; ++k) {
    const float m = static_cast<float>(k * 1.5707963267948966);
    xs.push_back(std::nextafter(m, 1e30f));
    xs.push_back(std::nextafter(m, -1e30f));
  }
  const Tensor x = tensor(xs, {static_cast<int64_t>(xs.size())});
  struct Case {
    const char* name;
    Tensor (*op)(const Tensor&);
    double (*want)(double);
    float (*scalar)(float);
    bool odd;  // f(-0.) = -0.
  };
  const Case cases[] = {
      {"tan", wick::tan, [](double v) { return std::tan(v); }, cpu::vec::tan, true},
      {"atan", wick::atan, [](double v) { return std::atan(v); }, cpu::vec::atan, true},
      {"asin", wick::asin, [](double v) { return std::asin(v); }, cpu::vec::asin, true},
      {"acos", wick::acos, [](double v) { return std::acos(v); }, cpu::vec::acos, false},
      {"sinh", wick::sinh, [](double v) { return std::sinh(v); }, cpu::vec::sinh, true},
      {"cosh", wick::cosh, [](double v) { return std::cosh(v); }, cpu::vec::cosh, false},
      {"expm1", wick::expm1, [](double v) { return std::expm1(v); }, cpu::vec::expm1, true},
      {"log1p", wick::log1p, [](double v) { return std::log1p(v); }, cpu::vec::log1p, true},
      {"log2", wick::log2, [](double v) { return std::log2(v); }, cpu::vec::log2, false},
      {"log10", wick::log10, [](double v) { return std::log10(v); }, cpu::vec::log10, false},
      {"erf", wick::erf, [](double v) { return std::erf(v); }, cpu::vec::erf, true},
  };
  for (const Case& c : cases) {
    const std::vector<float> got = floats_of(c.op(x));
    // The strided path (every other element of a [n, 2] column) runs the scalar form.
    const Tensor wide = wick::stack({x, x}, 1);
    const std::vector<float> strided = floats_of(c.op(wide).select(1, 1));
    double worst = 0;
    int64_t sign_wrong = 0, scalar_mismatch = 0, strided_mismatch = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      worst = std::max(worst, ulps(got[i], c.want(static_cast<double>(xs[i]))));
      if (c.odd && xs[i] == 0.0f && std::signbit(got[i]) != std::signbit(xs[i])) ++sign_wrong;
      const float scalar = c.scalar(xs[i]);
      if (std::memcmp(&scalar, &got[i], sizeof scalar) != 0) ++scalar_mismatch;
      if (std::memcmp(&strided[i], &got[i], sizeof scalar) != 0) ++strided_mismatch;
    }
    INFO(c.name << ": max ulp " << worst);
    CHECK(worst <= 1.0);
    CHECK(sign_wrong == 0);
    CHECK(scalar_mismatch == 0);
    CHECK(strided_mismatch == 0);
  }
}

TEST_CASE(
    "vec math: float atan2 and hypot within 1 ulp of float64 libm, fmod exact, remainder, "
    "floor_divide",
    "[kernels]") {
  // Pairs of sampled floats (every 509th pattern and the specials), each paired with a shifted
  // copy so that every octant, zero, infinity and NaN meets every other. Measured: atan2 0.5000
  // ulp and hypot 0.5 at most (both compute in double and round once).
  const std::vector<float> base = sample_floats();
  std::vector<float> ys, xs;
  for (size_t shift : {size_t{1}, size_t{977}, base.size() / 2}) {
    for (size_t i = 0; i < base.size(); ++i) {
      ys.push_back(base[i]);
      xs.push_back(base[(i + shift) % base.size()]);
    }
  }
  const std::vector<float> specials = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 1e-45f};
  for (float a : specials) {
    for (float b : specials) {
      ys.push_back(a);
      xs.push_back(b);
    }
  }
  const int64_t n = static_cast<int64_t>(xs.size());
  const Tensor y = tensor(ys, {n}), x = tensor(xs, {n});
  struct Case {
    const char* name;
    Tensor (*op)(const Tensor&, const Tensor&);
    double (*want)(double, double);
    float (*scalar)(float, float);
  };
  const Case cases[] = {
      {"atan2", wick::atan2, [](double a, double b) { return std::atan2(a, b); }, cpu::vec::atan2},
      {"hypot", wick::hypot, [](double a, double b) { return std::hypot(a, b); }, cpu::vec::hypot},
      // Exact: any difference from libm's fmod is a wrong answer (0 ulp below).
      {"fmod", [](const Tensor& a, const Tensor& b) { return wick::fmod(a, b); },
       [](double a, double b) { return std::fmod(a, b); }, cpu::vec::fmod},
      {"remainder", [](const Tensor& a, const Tensor& b) { return wick::remainder(a, b); },
       [](double a, double b) {  // fmod, then b added in float (one rounding of an exact sum)
         const double mod = std::fmod(a, b);
         return mod != 0 && ((b < 0) != (mod < 0)) ? mod + b : mod;
       },
       cpu::vec::remainder},
      // PyTorch 1.13's formula in float (kernels/rounded_division.hpp, the GPU's and the
      // scalar lanes'), exactly: the vectorised lanes finish it from the exact fmod.
      {"floor_divide", [](const Tensor& a, const Tensor& b) { return wick::floor_divide(a, b); },
       [](double a, double b) {
         return static_cast<double>(
             rounded_division::floor_divide(static_cast<float>(a), static_cast<float>(b)));
       },
       cpu::vec::floor_divide},
  };
  for (const Case& c : cases) {
    const std::vector<float> got = floats_of(c.op(y, x));
    const Tensor wide_y = wick::stack({y, y}, 1), wide_x = wick::stack({x, x}, 1);
    const std::vector<float> strided = floats_of(c.op(wide_y, wide_x).select(1, 1));
    double worst = 0;
    int64_t sign_wrong = 0, scalar_mismatch = 0, strided_mismatch = 0;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double want = c.want(static_cast<double>(ys[i]), static_cast<double>(xs[i]));
      worst = std::max(worst, ulps(got[i], want));
      if (want == 0 && std::signbit(got[i]) != std::signbit(want)) ++sign_wrong;
      const float scalar = c.scalar(ys[i], xs[i]);
      if (std::memcmp(&scalar, &got[i], sizeof scalar) != 0) ++scalar_mismatch;
      if (std::memcmp(&strided[i], &got[i], sizeof scalar) != 0) ++strided_mismatch;
    }
    INFO(c.name << ": max ulp " << worst);
    const std::string name = c.name;
    CHECK(worst <= (name == "fmod" || name == "floor_divide" ? 0.0 : 1.0));
    CHECK(sign_wrong == 0);
    CHECK(scalar_mismatch == 0);
    CHECK(strided_mismatch == 0);
  }
  // In place, the output is the dividend: the second (libm) pass must still see the operands.
  Tensor in_place = y.clone();
  in_place.fmod_(x);
  CHECK(std::memcmp(floats_of(in_place).data(), floats_of(wick::fmod(y, x)).data(),
                    xs.size() * sizeof(float)) == 0);
}

TEST_CASE("softmax rows: -inf, NaN, odd lengths, both forms", "[kernels]") {
  for (int64_t n : {1, 15, 16, 17, 1000}) {
    std::vector<double> v(static_cast<size_t>(4 * n));
    std::mt19937 rng(static_cast<unsigned>(n));
    std::normal_distribution<double> dist(0, 20);
    for (double& x : v) x = dist(rng);
    v[0] = -INFINITY;                                                           // row 0: one -inf
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(n + i)] = -INFINITY;  // row 1: all
    v[static_cast<size_t>(2 * n + n / 2)] = NAN;                                // row 2: a NaN
    Tensor x = tensor(v, {4, n}).to(kFloat32);
    const std::vector<float> xs = floats_of(x);
    for (bool log_form : {false, true}) {
      std::vector<float> got = floats_of(log_form ? x.log_softmax(1) : x.softmax(1));
      int64_t bad = 0;
      for (int64_t r = 0; r < 4; ++r) {
        double hi = -INFINITY;
        bool nan = false;
        for (int64_t i = 0; i < n; ++i) {
          const double e = xs[static_cast<size_t>(r * n + i)];
          nan = nan || std::isnan(e);
          hi = e > hi ? e : hi;
        }
        if (std::isinf(hi)) hi = 0;
        double total = 0;
        for (int64_t i = 0; i < n; ++i) total += std::exp(xs[static_cast<size_t>(r * n + i)] - hi);
        for (int64_t i = 0; i < n; ++i) {
          const double e = xs[static_cast<size_t>(r * n + i)];
          const double want = nan        ? NAN
                              : log_form ? (e - hi) - std::log(total)
                                         : std::exp(e - hi) / total;
          if (!close(got[static_cast<size_t>(r * n + i)], want, 1e-5, 1e-6)) ++bad;
        }
      }
      INFO("n = " << n << (log_form ? " log_softmax" : " softmax"));
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("elementwise: row and column broadcasts without copies", "[kernels]") {
  for (Dtype dtype : {kFloat32, kFloat64}) {
    const int64_t R = 67, C = 1029;
    Tensor a = randn({R, C}).to(dtype), row = randn({C}).to(dtype), col = randn({R, 1}).to(dtype);
    const std::vector<double> av = doubles_of(a), rv = doubles_of(row), cv = doubles_of(col);
    const std::vector<double> sum_row = doubles_of(a + row), sum_col = doubles_of(a + col);
    const std::vector<double> prod_col = doubles_of(col * a), sub_row = doubles_of(row - a);
    const std::vector<double> outer = doubles_of(col + row);  // both broadcast
    int64_t bad = 0;
    for (int64_t i = 0; i < R; ++i) {
      for (int64_t j = 0; j < C; ++j) {
        const size_t k = static_cast<size_t>(i * C + j);
        const double x = av[k], r = rv[static_cast<size_t>(j)], c = cv[static_cast<size_t>(i)];
        auto round = [&](double y) {
          return dtype == kFloat32 ? static_cast<double>(static_cast<float>(y)) : y;
        };
        if (sum_row[k] != round(x + r) || sum_col[k] != round(x + c) ||
            prod_col[k] != round(c * x) || sub_row[k] != round(r - x) || outer[k] != round(c + r)) {
          ++bad;
        }
      }
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("bfloat16 rounding: the vectorised form equals BFloat16's", "[kernels][bf16]") {
  // vec::float_to_bf16 (selects, for the loops) rounds both the elementwise kernels' results and
  // the casts, so the bfloat16 tests that compare one with the other cannot see it err: here it
  // is held to BFloat16::round_from_float (tested against a rule in double, test_bfloat16.cpp)
  // on every 97th float bit pattern and the edges, and the cast of a tensor (the vectorised copy
  // loop) on a million of them.
  int bad = 0;
  auto check = [&](uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    if (cpu::vec::float_to_bf16(f) != BFloat16::round_from_float(f) && bad++ < 3) {
      FAIL_CHECK("bits " << u << ": " << cpu::vec::float_to_bf16(f) << ", expected "
                         << BFloat16::round_from_float(f));
    }
  };
  for (uint64_t u = 0; u <= 0xffffffffu; u += 97) check(static_cast<uint32_t>(u));
  for (uint32_t u : {0x7f7f8000u, 0x7f7fffffu, 0x7f800000u, 0x7f800001u, 0x7fbfffffu, 0xff800001u,
                     0x00008000u, 0x00018000u, 0x3f808000u, 0x3f818000u, 0xffffffffu}) {
    check(u);
  }
  CHECK(bad == 0);
  std::mt19937 rng(11);
  std::vector<float> values(1 << 20);
  for (float& v : values) {
    const uint32_t u = static_cast<uint32_t>(rng());
    std::memcpy(&v, &u, sizeof v);
  }
  const std::vector<BFloat16> cast = tensor(values).to(kBFloat16).to_vector<BFloat16>();
  int cast_bad = 0;
  for (size_t k = 0; k < values.size(); ++k) {
    cast_bad += cast[k].bits != BFloat16::round_from_float(values[k]);
  }
  CHECK(cast_bad == 0);
}
