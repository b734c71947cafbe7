// test_cpu_reductions.cpp: the fast paths of the CPU reductions (reduce.cpp's outer_reduce and
// outer_reduce_permuted, vec_kernels.cpp's sums and extremes) and of matrix times vector's dot
// products, checked where the op sweep's small shapes do not reach them: sums over rows,
// columns and several dims of layouts wide enough for the vectorised loops, with NaNs and ties
// for max/min; transposed outputs; a float32 sum of 10^8 elements against float64; every form
// of the float32 and bfloat16 sums, bit for bit; the two-row dot products against the one-row
// ones, bit for bit. Results are compared with plain double loops written here.
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

#include "kernel_values.hpp"
#include "vec_kernels.hpp"
#include "wick/wick.hpp"

using namespace wick;

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
