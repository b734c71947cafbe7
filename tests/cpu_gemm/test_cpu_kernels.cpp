// test_cpu_kernels.cpp: the fast paths of the CPU elementwise, reduction and softmax kernels
// (vec_math.hpp, vec_kernels.cpp, reduce.cpp's outer_reduce, loops.hpp's broadcast runs),
// checked where the op sweep's small shapes do not reach them: float32 exp/sigmoid/tanh over a
// sample of every float bit pattern against float64 libm, in ulps; sums over rows, columns and
// several dims of layouts wide enough for the vectorised loops, with NaNs and ties for max/min;
// softmax rows with -inf, NaN and odd lengths; a float32 sum of 10^8 elements against float64;
// the float32 sum's AVX2 form against its plain loop, bit for bit; the two-row dot products of
// matrix times vector against the one-row ones, bit for bit;
// row and column broadcasts. Results are compared with plain double loops written here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

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

std::vector<float> floats_of(const Tensor& t) {
  Tensor c = t.contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

std::vector<double> doubles_of(const Tensor& t) {
  Tensor c = t.to(kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

bool close(double got, double want, double rtol, double atol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
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

TEST_CASE("reductions: rows, columns and several dims, vectorised paths", "[kernels]") {
  std::mt19937 rng(7);
  std::normal_distribution<double> dist;
  for (Dtype dtype : {kFloat32, kFloat64}) {
    // [A, B, C] with C wider than the 512-output chunk and odd sizes everywhere.
    const int64_t A = 3, B = 37, C = 1041;
    std::vector<double> v(static_cast<size_t>(A * B * C));
    for (double& x : v) x = dist(rng);
    v[5] = NAN;                   // column 5 of row (0, 0): max/min over dim 1 propagate it
    v[C + 7] = v[2 * C + 7] = 9;  // a tie in column 7: the first index wins
    Tensor t = tensor(v, {A, B, C}).to(dtype);
    auto at = [&](int64_t a, int64_t b, int64_t c) {
      return v[static_cast<size_t>((a * B + b) * C + c)];
    };
    const double rtol = dtype == kFloat32 ? 1e-6 : 1e-13;
    for (bool transposed : {false, true}) {
      // The same logical tensor, stored as [C, B, A] and permuted back: other strides.
      Tensor in = transposed ? t.permute({2, 1, 0}).contiguous().permute({2, 1, 0}) : t;
      INFO((dtype == kFloat32 ? "float32" : "float64") << (transposed ? " permuted" : ""));
      // sum and mean over dim 1 (kept [A, C]) and over dims (0, 1) (kept [C]).
      std::vector<double> s1 = doubles_of(in.sum(1)), m01 = doubles_of(in.mean({0, 1}));
      auto [mx, imx] = in.max(1);
      auto [mn, imn] = in.min(1);
      std::vector<double> mxv = doubles_of(mx), mnv = doubles_of(mn);
      std::vector<double> imxv = doubles_of(imx), imnv = doubles_of(imn);
      int64_t bad = 0;
      for (int64_t a = 0; a < A; ++a) {
        for (int64_t c = 0; c < C; ++c) {
          double sum = 0, hi = -INFINITY, lo = INFINITY;
          int64_t ihi = -1, ilo = -1;
          bool nan = false;
          for (int64_t b = 0; b < B; ++b) {
            const double x = at(a, b, c);
            if (dtype == kFloat32 && !std::isnan(x))
              sum += static_cast<float>(x);
            else
              sum += x;
            const double xr = dtype == kFloat32 ? static_cast<float>(x) : x;
            if (std::isnan(x)) {
              if (!nan) ihi = ilo = b;
              nan = true;
            } else if (!nan) {
              if (xr > hi) hi = xr, ihi = b;
              if (xr < lo) lo = xr, ilo = b;
            }
          }
          const size_t o = static_cast<size_t>(a * C + c);
          if (!close(s1[o], sum, rtol, rtol)) ++bad;
          if (nan ? !std::isnan(mxv[o]) || !std::isnan(mnv[o]) : (mxv[o] != hi || mnv[o] != lo)) {
            ++bad;
          }
          if (imxv[o] != ihi || imnv[o] != ilo) ++bad;
        }
      }
      for (int64_t c = 0; c < C; ++c) {
        double sum = 0;
        for (int64_t a = 0; a < A; ++a) {
          for (int64_t b = 0; b < B; ++b) {
            sum += dtype == kFloat32 ? static_cast<float>(at(a, b, c)) : at(a, b, c);
          }
        }
        if (!close(m01[static_cast<size_t>(c)], sum / (A * B), rtol, rtol)) ++bad;
      }
      // sum over the last dim (unit-stride runs) and over everything.
      std::vector<double> s2 = doubles_of(in.sum(2));
      for (int64_t a = 0; a < A; ++a) {
        for (int64_t b = 0; b < B; ++b) {
          double sum = 0;
          for (int64_t c = 0; c < C; ++c) {
            sum += dtype == kFloat32 ? static_cast<float>(at(a, b, c)) : at(a, b, c);
          }
          if (!close(s2[static_cast<size_t>(a * B + b)], sum, rtol, rtol)) ++bad;
        }
      }
      CHECK(bad == 0);
    }
  }
}

namespace {
// NaNs with distinct payloads, so that which one an extreme returns shows in its bits.
template <typename T>
T nan_with_payload(uint32_t payload) {
  if constexpr (std::is_same_v<T, float>) {
    const uint32_t bits = 0x7fc00000u | (payload & 0x3fffffu);
    T v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  } else {
    const uint64_t bits = 0x7ff8000000000000ull | payload;
    T v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
}
template <typename T>
void check_extreme_value_forms() {
  std::mt19937 rng(13);
  std::normal_distribution<T> dist;
  for (int64_t n : {1, 2, 63, 64, 65, 127, 128, 129, 200, 1000, 4097}) {
    for (int pattern = 0; pattern < 8; ++pattern) {
      std::vector<T> x(static_cast<size_t>(n));
      for (T& v : x) v = dist(rng);
      const auto at = [&](double fraction) { return static_cast<size_t>(fraction * (n - 1)); };
      if (pattern == 1) {  // two NaNs with different payloads: the first one's bits win
        x[at(0.7)] = nan_with_payload<T>(2);
        x[at(0.3)] = nan_with_payload<T>(1);
      } else if (pattern == 2) {  // zeros of both signs only: the first zero wins
        for (size_t k = 0; k < x.size(); ++k) x[k] = (rng() & 1) ? T(0) : -T(0);
      } else if (pattern == 3) {  // the extreme tied in several lanes and blocks
        for (size_t k = 0; k < x.size(); k += 7) x[k] = 5;
        for (size_t k = 3; k < x.size(); k += 11) x[k] = -5;
      } else if (pattern == 4) {  // infinities
        for (size_t k = 0; k < x.size(); k += 3) x[k] = (k & 1) ? INFINITY : -INFINITY;
      } else if (pattern == 5 || pattern == 6) {
        // The extreme is a zero, -0.0 first and +0.0 in another lane (max over negatives) or
        // +0.0 first and -0.0 later (min over positives): the lanes' halving would return
        // the later zero, the first one is the answer.
        const T sign = pattern == 5 ? T(-1) : T(1);
        for (T& v : x) v = sign * (std::abs(v) + T(1));
        if (n > 32) {
          x[1] = pattern == 5 ? -T(0) : T(0);
          x[32] = pattern == 5 ? T(0) : -T(0);
        }
      } else if (pattern == 7) {  // a NaN in the last element only (the tail when n % 32 != 0)
        x[static_cast<size_t>(n - 1)] = nan_with_payload<T>(3);
      }
      for (bool is_max : {true, false}) {
        T with_index;
        if constexpr (std::is_same_v<T, float>) {
          cpu::vec::extreme_f32(x.data(), n, is_max, &with_index);
        } else {
          cpu::vec::extreme_f64(x.data(), n, is_max, &with_index);
        }
        T alone;
        if constexpr (std::is_same_v<T, float>) {
          alone = cpu::vec::extreme_value_f32(x.data(), n, is_max);
        } else {
          alone = cpu::vec::extreme_value_f64(x.data(), n, is_max);
        }
        INFO("n " << n << ", pattern " << pattern << (is_max ? ", max: " : ", min: ") << with_index
                  << " against " << alone);
        CHECK(std::memcmp(&with_index, &alone, sizeof(T)) == 0);
      }
    }
  }
}
}  // namespace

TEST_CASE("reductions: the value-only extreme (amax) gives max's bits", "[kernels]") {
  // amax, amin and max of everything run vec::extreme_value_*, which keeps no indices; its
  // result must be the bits of extreme_*'s value (what max over a dim returns), NaN payloads
  // and zero signs included.
  check_extreme_value_forms<float>();
  check_extreme_value_forms<double>();
  Tensor t = randn({7, 300});
  t.select(0, 3).select(0, 100).fill_(std::nan(""));  // a row with a NaN
  Tensor amax = t.amax(1), values = std::get<0>(t.max(1));
  CHECK(std::memcmp(amax.data_ptr<float>(), values.data_ptr<float>(), 7 * sizeof(float)) == 0);
}

TEST_CASE("reductions: kept dims whose unit-stride dim is not last (outer_reduce_permuted)",
          "[kernels]") {
  // sum(0) of a transposed [B, N, K] view (a broadcast weight's gradient): the rows are folded
  // with the unit-stride kept dim moved last, then copied out in kept order. The result must be
  // the reduction of the same values laid out contiguously, bit for bit (the same row order),
  // indices included, for several kept shapes, a NaN and a tie.
  manual_seed(23);
  for (Dtype dtype : {kFloat32, kFloat64}) {
    for (auto [b, n, k] : {std::tuple<int64_t, int64_t, int64_t>{5, 7, 3},
                           {9, 600, 4},
                           {3, 2, 1030},
                           {70, 33, 17}}) {
      INFO(dtype_name(dtype) << " [" << b << ", " << n << ", " << k << "]");
      Tensor base = randn({b, n, k}, dtype);
      base.select(0, 2).select(0, 1).fill_(NAN);
      base.select(0, 1).select(0, 0).fill_(50);
      base.select(0, 3 % b).select(0, 0).fill_(50);  // a tie in row 0's outputs
      const Tensor view = base.transpose(1, 2);      // [b, k, n], kept strides (1, k)
      const Tensor packed = view.contiguous();
      auto same = [](const Tensor& x, const Tensor& y) {
        CHECK(x.sizes() == y.sizes());
        const std::vector<double> xv = doubles_of(x), yv = doubles_of(y);
        for (size_t i = 0; i < xv.size(); ++i) {
          INFO("output " << i);
          CHECK((xv[i] == yv[i] || (std::isnan(xv[i]) && std::isnan(yv[i]))));
        }
      };
      same(view.sum(0), packed.sum(0));
      same(view.mean(0), packed.mean(0));
      same(view.amin(0), packed.amin(0));
      auto [mx, imx] = view.max(0);
      auto [pmx, pimx] = packed.max(0);
      same(mx, pmx);
      same(imx, pimx);
      auto [mn, imn] = view.min(0, /*keepdim=*/true);
      auto [pmn, pimn] = packed.min(0, true);
      same(mn, pmn);
      same(imn, pimn);
      // Four dims, two reduced: [b, k, 2, n] from a permuted [b, 2, n, k].
      const Tensor four = randn({b, 2, n, k}, dtype).permute({0, 3, 1, 2});
      same(four.sum({0, 2}), four.contiguous().sum({0, 2}));
    }
  }
}

TEST_CASE("reductions: over dim 0 of narrow outputs (the row-wise walk from 2 columns)",
          "[kernels]") {
  // Since outputs of 2 to 15 columns also take the row-wise walk (outer_reduce), check sum,
  // mean, max and min with indices, and amax, against scalar walks: a NaN in one column, a
  // tie in another, rows not a multiple of the walk's 4.
  std::mt19937 rng(17);
  std::normal_distribution<double> dist;
  for (Dtype dtype : {kFloat32, kFloat64, kBFloat16}) {
    for (int64_t cols : {2, 3, 10, 15}) {
      const int64_t rows = 263;
      std::vector<double> v(static_cast<size_t>(rows * cols));
      for (double& x : v) x = dtype == kBFloat16 ? std::round(dist(rng) * 64) / 64 : dist(rng);
      v[static_cast<size_t>(5 * cols + 1)] = NAN;                                // column 1
      v[static_cast<size_t>(7 * cols)] = v[static_cast<size_t>(9 * cols)] = 99;  // column 0: a tie
      const Tensor t = tensor(v, {rows, cols}).to(dtype);
      const std::vector<double> stored = doubles_of(t);  // the values as the dtype holds them
      INFO(dtype_name(dtype) << " [" << rows << ", " << cols << "]");
      const std::vector<double> sum = doubles_of(t.sum(0)), mean = doubles_of(t.mean(0));
      const std::vector<double> amax = doubles_of(t.amax(0));
      auto [mx, imx] = t.max(0);
      auto [mn, imn] = t.min(0);
      const std::vector<double> mxv = doubles_of(mx), mnv = doubles_of(mn);
      const std::vector<double> imxv = doubles_of(imx), imnv = doubles_of(imn);
      const double rtol = dtype == kFloat64 ? 1e-13 : dtype == kFloat32 ? 1e-6 : 1e-2;
      int bad = 0;
      for (int64_t c = 0; c < cols; ++c) {
        double total = 0, hi = -INFINITY, lo = INFINITY;
        int64_t ihi = -1, ilo = -1;
        bool nan = false;
        for (int64_t r = 0; r < rows; ++r) {
          const double x = stored[static_cast<size_t>(r * cols + c)];
          total += x;
          if (std::isnan(x)) {
            if (!nan) ihi = ilo = r;
            nan = true;
          } else if (!nan) {
            if (x > hi) hi = x, ihi = r;
            if (x < lo) lo = x, ilo = r;
          }
        }
        const auto o = static_cast<size_t>(c);
        if (nan) {
          bad += !std::isnan(sum[o]) + !std::isnan(mean[o]) + !std::isnan(mxv[o]) +
                 !std::isnan(mnv[o]) + !std::isnan(amax[o]);
        } else {
          bad += !close(sum[o], total, rtol, rtol) + !close(mean[o], total / rows, rtol, rtol);
          bad += (mxv[o] != hi) + (mnv[o] != lo) + (amax[o] != hi);
        }
        bad += (imxv[o] != ihi) + (imnv[o] != ilo);
      }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("reductions: a float32 sum of 10^8 elements stays within float32 rounding", "[kernels]") {
  const int64_t n = 100'000'000;
  std::vector<float> v(static_cast<size_t>(n));
  // Values in [0.5, 1.5): a plain float running sum would be off by percents at this length.
  uint32_t state = 12345;
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;
    x = 0.5f + static_cast<float>(state >> 8) * (1.0f / 16777216.0f);
  }
  long double want = 0;
  for (float x : v) want += x;
  Tensor t = tensor(v, {n});
  v.clear();
  v.shrink_to_fit();
  const double got = t.sum().item<float>();
  INFO("sum " << got << ", float64 reference " << static_cast<double>(want));
  CHECK(std::fabs(got - static_cast<double>(want)) <=
        0.5 * std::fabs(static_cast<double>(want)) * std::numeric_limits<float>::epsilon());
  CHECK(std::fabs(t.mean().item<float>() - static_cast<double>(want) / n) <=
        std::numeric_limits<float>::epsilon() * static_cast<double>(want) / n);
}

namespace {
// The sum forms this CPU runs, with their names; a form it lacks is reported, not tested.
std::vector<std::pair<cpu::vec::SumForm, const char*>> runnable_sum_forms() {
  std::vector<std::pair<cpu::vec::SumForm, const char*>> forms;
  for (auto [form, name] : {std::pair{cpu::vec::SumForm::kLanes, "plain loop"},
                            std::pair{cpu::vec::SumForm::kAvx2, "AVX2"},
                            std::pair{cpu::vec::SumForm::kAvx512, "AVX-512"}}) {
    if (cpu::vec::sum_form_supported(form)) {
      forms.emplace_back(form, name);
    } else {
      WARN("this CPU lacks the " << name << " form of the sums: not tested here");
    }
  }
  return forms;
}
// Every tail length of the 32 lanes, with no pass and with one or two passes of the main loop,
// and several passes.
std::vector<int64_t> sum_lengths() {
  std::vector<int64_t> lengths;
  for (int64_t n = 0; n <= 100; ++n) lengths.push_back(n);
  for (int64_t n : {255, 256, 257, 1000, 4097, 5000}) lengths.push_back(n);
  return lengths;
}
const std::vector<int64_t> kSumLengths = sum_lengths();

// `count` elements whose last one ends where an inaccessible page begins (on Linux), so that a
// kernel reading past the end faults instead of reading a neighbour's bytes.
template <typename T>
class GuardedArray {
 public:
  explicit GuardedArray(size_t count) : count_(count) {
#if defined(__linux__)
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = (count * sizeof(T) + page - 1) / page * page;
    mapped_ = bytes + page;
    void* base = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(base != MAP_FAILED);
    REQUIRE(mprotect(static_cast<char*>(base) + bytes, page, PROT_NONE) == 0);
    base_ = base;
    data_ = reinterpret_cast<T*>(static_cast<char*>(base) + bytes - count * sizeof(T));
#else
    fallback_.resize(count);
    data_ = fallback_.data();
#endif
  }
  GuardedArray(const GuardedArray&) = delete;
  GuardedArray& operator=(const GuardedArray&) = delete;
  ~GuardedArray() {
#if defined(__linux__)
    munmap(base_, mapped_);
#endif
  }
  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  size_t size() const { return count_; }

 private:
  size_t count_;
  T* data_ = nullptr;
#if defined(__linux__)
  void* base_ = nullptr;
  size_t mapped_ = 0;
#else
  std::vector<T> fallback_;
#endif
};
}  // namespace

TEST_CASE("reductions: every form of the float32 sum gives the same bits", "[kernels]") {
  // vec::sum_f32 runs a written-out AVX-512 or AVX2 form where the CPU has one and the plain
  // 32-lane loop elsewhere; each must equal this scalar model of the lanes bit for bit, so a
  // sum does not depend on the CPU. Values span many binades, so that the order of the adds
  // shows.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-30, 30);
  std::vector<float> v(5000);
  for (float& x : v) x = std::ldexp(mantissa(rng), exponent(rng));
  v[3] = -0.0f;
  const auto forms = runnable_sum_forms();
  for (int64_t n : kSumLengths) {
    double lane[32] = {};
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
      for (int j = 0; j < 32; ++j) lane[j] += static_cast<double>(v[static_cast<size_t>(i + j)]);
    }
    for (int j = 0; i < n; ++i, ++j) lane[j] += static_cast<double>(v[static_cast<size_t>(i)]);
    for (int width = 16; width > 0; width /= 2) {
      for (int j = 0; j < width; ++j) lane[j] += lane[j + width];
    }
    const double dispatched = cpu::vec::sum_f32(v.data(), n);
    INFO("n = " << n << ": model " << lane[0] << ", sum_f32 " << dispatched);
    CHECK(std::memcmp(&dispatched, &lane[0], sizeof(double)) == 0);
    for (auto [form, name] : forms) {
      const double got = cpu::vec::sum_f32_form(form, v.data(), n);
      INFO(name << " form: " << got);
      CHECK(std::memcmp(&got, &lane[0], sizeof(double)) == 0);
    }
  }
}

TEST_CASE("reductions: sum_rows_f32 gives each row's sum_f32 bits", "[kernels]") {
  // vec::sum_rows_f32 (sums over the last dim) takes four rows at once on AVX-512, their last
  // halving steps sharing vectors: each row's sum must still be sum_f32's bits, in a group of
  // four or in the rows after the last group, at any stride.
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-30, 30);
  const int64_t max_n = 300, max_rows = 11, stride = max_n + 5;
  std::vector<float> v(static_cast<size_t>(max_rows * stride));
  for (float& x : v) x = std::ldexp(mantissa(rng), exponent(rng));
  int64_t differs = 0, checked = 0;
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{8}, int64_t{9}, int64_t{31},
                    int64_t{32}, int64_t{33}, int64_t{64}, int64_t{100}, int64_t{300}}) {
    for (int64_t rows = 1; rows <= max_rows; ++rows) {
      for (int64_t row_stride : {n, stride}) {
        std::vector<double> got(static_cast<size_t>(rows), -1.0);
        cpu::vec::sum_rows_f32(v.data(), row_stride, rows, n, got.data());
        for (int64_t r = 0; r < rows; ++r) {
          const double want = cpu::vec::sum_f32(v.data() + r * row_stride, n);
          differs += std::memcmp(&got[static_cast<size_t>(r)], &want, sizeof(double)) != 0;
          ++checked;
        }
      }
    }
  }
  CHECK(checked == 11 * 66 * 2);
  CHECK(differs == 0);
}

TEST_CASE("matrix times vector: dot_rows gives each row dot's bits", "[kernels][matmul]") {
  // vec::dot_rows_* (matmul's matrix times vector) takes two rows per pass with the lanes of
  // vec::dot_*: every row's result must be dot_*'s bits, whether it went in a pair or alone
  // (the odd last row), so that an output does not depend on its row count or split.
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-20, 20);
  const int64_t max_depth = 1000, max_rows = 7, stride = max_depth + 3;
  std::vector<float> a(static_cast<size_t>(max_rows * stride)), b(static_cast<size_t>(max_depth));
  for (float& x : a) x = std::ldexp(mantissa(rng), exponent(rng));
  for (float& x : b) x = std::ldexp(mantissa(rng), exponent(rng));
  const std::vector<double> a64(a.begin(), a.end()), b64(b.begin(), b.end());
  for (int64_t depth : {0, 1, 15, 16, 17, 31, 32, 33, 100, 1000}) {
    for (int64_t rows : {1, 2, 3, 7}) {
      INFO("depth " << depth << ", rows " << rows);
      std::vector<float> out(static_cast<size_t>(rows), -1.0f);
      std::vector<double> out64(static_cast<size_t>(rows), -1.0);
      cpu::vec::dot_rows_f32(a.data(), stride, rows, b.data(), depth, out.data());
      cpu::vec::dot_rows_f64(a64.data(), stride, rows, b64.data(), depth, out64.data());
      for (int64_t r = 0; r < rows; ++r) {
        const float one = cpu::vec::dot_f32(a.data() + r * stride, b.data(), depth);
        const double one64 = cpu::vec::dot_f64(a64.data() + r * stride, b64.data(), depth);
        CHECK(std::memcmp(&out[static_cast<size_t>(r)], &one, sizeof(float)) == 0);
        CHECK(std::memcmp(&out64[static_cast<size_t>(r)], &one64, sizeof(double)) == 0);
      }
    }
  }
}

TEST_CASE("reductions: the bfloat16 sum's forms give the float32 sum's bits", "[kernels]") {
  // Every form of vec::sum_bf16 (the chunked plain loop, AVX2, AVX-512) must equal the float32
  // sum of the widened values bit for bit, so a bfloat16 sum is the float32 kernel's on the
  // widened tensor.
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> exponent(-30, 30);
  std::vector<uint16_t> bits(5000);
  std::vector<float> widened(bits.size());
  for (size_t k = 0; k < bits.size(); ++k) {
    const float f = std::ldexp(static_cast<float>(rng() % 256) - 128.0f, exponent(rng));
    bits[k] = BFloat16(f).bits;
    widened[k] = BFloat16::to_float(bits[k]);
  }
  const auto forms = runnable_sum_forms();
  for (int64_t n : kSumLengths) {
    const double want = cpu::vec::sum_f32_form(cpu::vec::SumForm::kLanes, widened.data(), n);
    // The n elements end at an inaccessible page: a read past the end faults.
    GuardedArray<uint16_t> guarded(static_cast<size_t>(n));
    std::copy(bits.begin(), bits.begin() + n, guarded.data());
    const double dispatched = cpu::vec::sum_bf16(guarded.data(), n);
    INFO("n = " << n << ": float32 lanes " << want << ", sum_bf16 " << dispatched);
    CHECK(std::memcmp(&dispatched, &want, sizeof(double)) == 0);
    for (auto [form, name] : forms) {
      const double got = cpu::vec::sum_bf16_form(form, guarded.data(), n);
      INFO(name << " form: " << got);
      CHECK(std::memcmp(&got, &want, sizeof(double)) == 0);
    }
  }
}

TEST_CASE("reductions: the bfloat16 column sums' forms give the same bits", "[kernels]") {
  // vec::accumulate_rows_bf16 in each form against a scalar model of accumulate_rows (four
  // rows added in double, then acc), for row counts around the groups of four and column
  // counts 1 to 50 (every tail of the 8- and 16-column blocks); acc starts non-zero, and the 16
  // columns past n must stay untouched. The last row ends at an inaccessible page, so a load
  // past its end faults.
  std::mt19937 rng(21);
  std::uniform_int_distribution<int> exponent(-30, 30);
  const int64_t stride = 53;
  std::vector<uint16_t> bits(static_cast<size_t>(9 * stride));
  for (uint16_t& b : bits) {
    b = BFloat16(std::ldexp(static_cast<float>(rng() % 256) - 128.0f, exponent(rng))).bits;
  }
  const auto widened = [&](int64_t r, int64_t j) {
    return static_cast<double>(BFloat16::to_float(bits[static_cast<size_t>(r * stride + j)]));
  };
  for (int64_t rows : {1, 3, 4, 5, 8, 9}) {
    for (int64_t n = 1; n <= 50; ++n) {
      GuardedArray<uint16_t> rows_bits(static_cast<size_t>((rows - 1) * stride + n));
      std::copy(bits.begin(), bits.begin() + static_cast<std::ptrdiff_t>(rows_bits.size()),
                rows_bits.data());
      std::vector<double> want(static_cast<size_t>(n) + 16);
      for (size_t j = 0; j < want.size(); ++j) want[j] = std::ldexp(1.0 + j, -3);
      const std::vector<double> start = want;
      int64_t r = 0;
      for (; r + 4 <= rows; r += 4) {
        for (int64_t j = 0; j < n; ++j) {
          want[j] += (widened(r, j) + widened(r + 1, j)) + (widened(r + 2, j) + widened(r + 3, j));
        }
      }
      for (; r < rows; ++r) {
        for (int64_t j = 0; j < n; ++j) want[j] += widened(r, j);
      }
      for (auto [form, name] : runnable_sum_forms()) {
        std::vector<double> got = start;
        cpu::vec::accumulate_rows_bf16_form(form, got.data(), rows_bits.data(), stride, rows, n);
        INFO(name << " form, " << rows << " rows of " << n);
        CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(double)) == 0);
      }
    }
  }
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
