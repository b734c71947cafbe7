// test_cpu_gemm.cpp: wick's GEMM (kernels/cpu/gemm/) on every ISA this CPU has, against a
// long-double reference, at odd sizes (1, 7, 33, 127, 129 and non-square), with row-major,
// transposed, strided and zero-stride (broadcast) operands, C with a row stride wider than N,
// with the default blocking and with a tiny one that makes every loop of the nest run many
// times, on 1 and 2 threads and with and without packing on one thread (which must all agree bit
// for bit). Each element must be within the
// classic bound |c - ref| <= (k + 2) eps sum_p |a_ip| |b_pj| (Higham, Thm 3.5) for any order
// of summation. Batched and broadcast-batch products go through wick::matmul.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gemm/gemm.hpp"
#include "wick/wick.hpp"

namespace gemm = wick::cpu::gemm;

namespace {

enum class Layout { row_major, col_major, strided, broadcast_rows };

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::row_major:
      return "row-major";
    case Layout::col_major:
      return "transposed";
    case Layout::strided:
      return "strided";
    case Layout::broadcast_rows:
      return "zero row stride";
  }
  return "?";
}

// A rows x cols matrix in `storage` with the given layout; values from a fixed seed.
template <typename T>
gemm::ConstMatrix<T> make_matrix(int64_t rows, int64_t cols, Layout layout, unsigned seed,
                                 std::vector<T>& storage) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  auto fill = [&](size_t n) {
    storage.resize(std::max<size_t>(n, 1));
    for (T& v : storage) v = static_cast<T>(dist(rng));
  };
  switch (layout) {
    case Layout::row_major:
      fill(static_cast<size_t>(rows * cols));
      return {storage.data(), rows, cols, cols, 1};
    case Layout::col_major:
      fill(static_cast<size_t>(rows * cols));
      return {storage.data(), rows, cols, 1, rows};
    case Layout::strided:  // every other row and column of a (2 rows + 1) x (3 cols) buffer
      fill(static_cast<size_t>((2 * rows + 1) * 3 * cols));
      return {storage.data() + 1, rows, cols, 3 * cols, 2};
    case Layout::broadcast_rows:  // one row repeated: row stride 0
      fill(static_cast<size_t>(cols));
      return {storage.data(), rows, cols, 0, 1};
  }
  return {};
}

template <typename T>
T at(const gemm::ConstMatrix<T>& m, int64_t r, int64_t c) {
  return m.data[r * m.row_stride + c * m.col_stride];
}

// The long-double product and, per element, sum_p |a_ip b_pj| for the error bound.
template <typename T>
struct Reference {
  std::vector<long double> value, magnitude;
};

template <typename T>
Reference<T> reference(const gemm::ConstMatrix<T>& a, const gemm::ConstMatrix<T>& b) {
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  Reference<T> r;
  r.value.assign(static_cast<size_t>(m * n), 0.0L);
  r.magnitude.assign(static_cast<size_t>(m * n), 0.0L);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t p = 0; p < k; ++p) {
      const long double x = at(a, i, p);
      for (int64_t j = 0; j < n; ++j) {
        const long double xy = x * at(b, p, j);
        r.value[static_cast<size_t>(i * n + j)] += xy;
        r.magnitude[static_cast<size_t>(i * n + j)] += std::fabs(xy);
      }
    }
  }
  return r;
}

// Runs gemm into a C with row stride n + 3 and checks every element and the untouched gap.
template <typename T>
std::vector<T> check_gemm(const gemm::ConstMatrix<T>& a, const gemm::ConstMatrix<T>& b,
                          const Reference<T>& ref, int threads) {
  const int64_t m = a.rows, k = a.cols, n = b.cols, ldc = n + 3;
  const T sentinel = T(12345);
  std::vector<T> c(static_cast<size_t>(std::max<int64_t>(m * ldc, 1)), sentinel);
  gemm::gemm<T>(a, b, c.data(), ldc, threads);
  const long double eps = std::numeric_limits<T>::epsilon();
  int64_t bad = 0;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const long double want = ref.value[static_cast<size_t>(i * n + j)];
      const long double got = c[static_cast<size_t>(i * ldc + j)];
      if (!(std::fabs(got - want) <=
            (k + 2) * eps * ref.magnitude[static_cast<size_t>(i * n + j)])) {
        if (bad++ < 3) {
          INFO("C[" << i << ", " << j << "] = " << static_cast<double>(got) << ", reference "
                    << static_cast<double>(want));
          CHECK(false);
        }
      }
    }
    for (int64_t j = n; j < ldc && i + 1 < m; ++j) {
      if (c[static_cast<size_t>(i * ldc + j)] != sentinel) ++bad;
    }
  }
  CHECK(bad == 0);
  return c;
}

std::vector<gemm::Isa> isas() {
  std::vector<gemm::Isa> out;
  for (gemm::Isa isa : {gemm::Isa::portable, gemm::Isa::avx2, gemm::Isa::avx512}) {
    if (static_cast<int>(isa) <= static_cast<int>(gemm::best_supported_isa())) out.push_back(isa);
  }
  return out;
}

// Restores the ISA, the blocking and the direct path's limit when a test case ends.
struct Restore {
  gemm::Isa isa = gemm::active_isa();
  ~Restore() {
    gemm::set_isa(isa);
    gemm::set_direct_volume(-1);
    gemm::set_min_flops_per_thread(-1);
    for (gemm::Isa i : isas()) {
      gemm::set_blocking<float>(i, 0, 0, 0);
      gemm::set_blocking<double>(i, 0, 0, 0);
      gemm::set_blocking<gemm::BF16Bits>(i, 0, 0, 0);
    }
  }
};

// Every size triple from {1, 7, 33, 127, 129}, the layouts rotating with the sizes, on every
// ISA with the default and a tiny blocking (odd KC: partial depth blocks everywhere).
template <typename T>
void sweep() {
  Restore restore;
  const std::vector<int64_t> sizes{1, 7, 33, 127, 129};
  for (int64_t m : sizes) {
    for (int64_t k : sizes) {
      for (int64_t n : sizes) {
        std::vector<T> sa, sb;
        const Layout la = static_cast<Layout>((m + k) % 3);
        const Layout lb = static_cast<Layout>((k + n + 1) % 4);
        const gemm::ConstMatrix<T> a = make_matrix<T>(m, k, la, 1, sa);
        const gemm::ConstMatrix<T> b = make_matrix<T>(k, n, lb, 2, sb);
        const Reference<T> ref = reference(a, b);
        for (gemm::Isa isa : isas()) {
          gemm::set_isa(isa);
          for (bool tiny : {false, true}) {
            const gemm::Blocking bl = gemm::blocking_for<T>(isa);
            if (tiny) gemm::set_blocking<T>(isa, 2 * bl.mr, 5, 2 * bl.nr);
            INFO(gemm::isa_name(isa) << (tiny ? " tiny blocking " : " ") << m << "x" << k << "x"
                                     << n << " A " << layout_name(la) << ", B " << layout_name(lb));
            std::vector<T> one = check_gemm(a, b, ref, 1);
            // One thread skips the packing where B's rows have unit stride (direct_x86.hpp);
            // packed, the same product must give the same bits.
            gemm::set_direct_volume(0);
            std::vector<T> packed = check_gemm(a, b, ref, 1);
            gemm::set_direct_volume(-1);
            CHECK(std::memcmp(one.data(), packed.data(), one.size() * sizeof(T)) == 0);
            // Two threads at every size: the split's threshold (2 x 128^3 FLOPs per thread)
            // lifted, so that these small products do split where they have two tiles.
            gemm::set_min_flops_per_thread(0);
            std::vector<T> two = check_gemm(a, b, ref, 2);
            gemm::set_min_flops_per_thread(-1);
            CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(T)) == 0);
            gemm::set_blocking<T>(isa, 0, 0, 0);
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("gemm: the ISA switch", "[gemm][isa]") {
  Restore restore;
  const char* env = std::getenv("WICK_CPU_ISA");
  if (env != nullptr && std::string(env) == "portable") {
    CHECK(restore.isa == gemm::Isa::portable);
  }
  for (gemm::Isa isa : {gemm::Isa::portable, gemm::Isa::avx2, gemm::Isa::avx512}) {
    gemm::set_isa(isa);
    // A request above what the CPU has falls back to the best it has.
    CHECK(static_cast<int>(gemm::active_isa()) <= static_cast<int>(gemm::best_supported_isa()));
  }
  gemm::set_isa(gemm::Isa::portable);
  CHECK(gemm::active_isa() == gemm::Isa::portable);
  CHECK(std::string(gemm::isa_name(gemm::Isa::avx512)) == "avx512");
}

TEST_CASE("gemm: blocking comes from the caches and fits the micro-tile", "[gemm]") {
  for (gemm::Isa isa : isas()) {
    const gemm::Blocking f = gemm::blocking_for<float>(isa);
    const gemm::Blocking d = gemm::blocking_for<double>(isa);
    for (const gemm::Blocking& b : {f, d}) {
      CHECK(b.mc % b.mr == 0);
      CHECK(b.nc % b.nr == 0);
      CHECK(b.kc >= 16);
    }
  }
}

TEST_CASE("gemm: float at odd sizes and layouts, every ISA", "[gemm]") { sweep<float>(); }

TEST_CASE("gemm: double at odd sizes and layouts, every ISA", "[gemm]") { sweep<double>(); }

TEST_CASE("gemm: larger products cross the default blocks", "[gemm]") {
  Restore restore;
  for (gemm::Isa isa : isas()) {
    gemm::set_isa(isa);
    for (auto [m, k, n] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
             {300, 1100, 260}, {2100, 40, 70}, {65, 600, 1500}}) {
      std::vector<float> sa, sb;
      auto a = make_matrix<float>(m, k, Layout::row_major, 3, sa);
      auto b = make_matrix<float>(k, n, Layout::col_major, 4, sb);
      INFO(gemm::isa_name(isa) << " " << m << "x" << k << "x" << n);
      const Reference<float> ref = reference(a, b);
      std::vector<float> one = check_gemm(a, b, ref, 1);
      std::vector<float> two = check_gemm(a, b, ref, 2);
      CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("gemm: empty depth writes zeros, empty M or N writes nothing", "[gemm]") {
  std::vector<float> c(12, 7.0f);
  const float x = 1.0f;
  gemm::gemm<float>({&x, 3, 0, 0, 1}, {&x, 0, 4, 4, 1}, c.data(), 4, 1);
  for (float v : c) CHECK(v == 0.0f);
  std::fill(c.begin(), c.end(), 7.0f);
  gemm::gemm<float>({&x, 0, 5, 5, 1}, {&x, 5, 4, 4, 1}, c.data(), 4, 1);
  for (float v : c) CHECK(v == 7.0f);
}

TEST_CASE("gemm: batched matmul on every ISA", "[gemm]") {
  Restore restore;
  for (gemm::Isa isa : isas()) {
    gemm::set_isa(isa);
    for (wick::Dtype dtype : {wick::kFloat32, wick::kFloat64, wick::kBFloat16}) {
      // Broadcast batch dims (stride 0), a transposed operand, many small products (run in
      // parallel over the batch) and a few large ones (each threaded inside).
      for (auto [sa, sb] :
           std::vector<std::pair<wick::Shape, wick::Shape>>{{{4, 33, 17}, {17, 129}},
                                                            {{2, 1, 7, 127}, {3, 127, 9}},
                                                            {{64, 9, 7}, {64, 7, 5}},
                                                            {{2, 130, 70}, {2, 70, 140}}}) {
        wick::Tensor a = wick::randn(sa).to(dtype);
        wick::Tensor b = wick::randn(sb).to(dtype).transpose(-1, -2).contiguous().transpose(-1, -2);
        wick::Tensor got = wick::matmul(a, b).to(wick::kFloat64);
        // The same product one matrix at a time in double: broadcast by expand, then loops.
        wick::Tensor a64 = a.to(wick::kFloat64), b64 = b.to(wick::kFloat64);
        const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
        wick::Shape out = got.sizes();
        wick::Shape ea = out, eb = out;
        ea[ea.size() - 1] = k;
        eb[eb.size() - 2] = k;
        wick::Tensor ax = a64.expand(ea).contiguous(), bx = b64.expand(eb).contiguous();
        wick::Tensor gc = got.contiguous();
        const double* pa = ax.data_ptr<double>();
        const double* pb = bx.data_ptr<double>();
        const double* pc = gc.data_ptr<double>();
        const int64_t batch = gc.numel() / (m * n);
        const double eps = dtype == wick::kFloat64 ? 1.2e-16 : 6e-8;
        // bfloat16 results are float32 sums rounded once: half a bfloat16 ulp more.
        const int rounding_bits = dtype == wick::kBFloat16 ? 8 : 200;
        int64_t bad = 0;
        for (int64_t t = 0; t < batch; ++t) {
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              double ref = 0, mag = 0;
              for (int64_t p = 0; p < k; ++p) {
                const double x = pa[(t * m + i) * k + p], y = pb[(t * k + p) * n + j];
                ref += x * y;
                mag += std::fabs(x * y);
              }
              const double bound =
                  (k + 2) * eps * mag + std::ldexp(std::fabs(ref), -rounding_bits) + 1e-300;
              if (!(std::fabs(pc[(t * m + i) * n + j] - ref) <= bound)) {
                ++bad;
              }
            }
          }
        }
        INFO(gemm::isa_name(isa) << " " << wick::describe(a) << " @ " << wick::describe(b));
        CHECK(bad == 0);
      }
    }
  }
}

namespace {

// A bfloat16 matrix with float_matrix's layout and values (which must be bfloat16 values).
gemm::ConstMatrix<gemm::BF16Bits> bf16_copy(const gemm::ConstMatrix<float>& m,
                                            const std::vector<float>& storage,
                                            std::vector<gemm::BF16Bits>& out) {
  out.resize(storage.size());
  for (size_t i = 0; i < storage.size(); ++i) {
    out[i].bits = wick::BFloat16::round_from_float(storage[i]);
  }
  return {out.data() + (m.data - storage.data()), m.rows, m.cols, m.row_stride, m.col_stride};
}

void round_to_bf16(std::vector<float>& storage) {
  for (float& v : storage) v = static_cast<float>(wick::BFloat16(v));
}

}  // namespace

namespace {

// gemm<BF16Bits> (float32 C) against the long-double product of the same bfloat16 values, with
// float32's error bound, and gemm_rounded, which must give those float32 results rounded once,
// bit for bit; default and tiny blocking (several depth blocks, odd depths), 1 and 2 threads.
// Returns the number of products checked.
int check_bf16_products(int64_t m, int64_t k, int64_t n, Layout la, Layout lb) {
  std::vector<float> fa, fb;
  gemm::ConstMatrix<float> a32 = make_matrix<float>(m, k, la, 5, fa);
  gemm::ConstMatrix<float> b32 = make_matrix<float>(k, n, lb, 6, fb);
  round_to_bf16(fa);
  round_to_bf16(fb);
  std::vector<gemm::BF16Bits> ha, hb;
  const auto a = bf16_copy(a32, fa, ha);
  const auto b = bf16_copy(b32, fb, hb);
  const Reference<float> ref = reference(a32, b32);
  int products = 0;
  for (bool tiny : {false, true}) {
    const gemm::Blocking bl = gemm::blocking_for<gemm::BF16Bits>(gemm::Isa::avx512);
    if (tiny) gemm::set_blocking<gemm::BF16Bits>(gemm::Isa::avx512, 2 * bl.mr, 5, 2 * bl.nr);
    INFO((tiny ? "tiny blocking " : "")
         << m << "x" << k << "x" << n << " A " << layout_name(la) << ", B " << layout_name(lb));
    for (int threads : {1, 2}) {
      gemm::set_min_flops_per_thread(threads == 2 ? 0 : -1);  // two threads at every size
      const int64_t ldc = n + 3;
      std::vector<float> c(static_cast<size_t>(m * ldc), 12345.0f);
      gemm::gemm<gemm::BF16Bits>(a, b, c.data(), ldc, threads);
      std::vector<gemm::BF16Bits> rounded(static_cast<size_t>(m * ldc), {0x4242});
      gemm::gemm_rounded(a, b, rounded.data(), ldc, threads);
      int64_t bad = 0, unrounded = 0, touched = 0;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < ldc; ++j) {
          const size_t at_c = static_cast<size_t>(i * ldc + j);
          if (j >= n) {  // the gap past each row stays as it was
            touched += c[at_c] != 12345.0f || rounded[at_c].bits != 0x4242;
            continue;
          }
          const size_t at_ref = static_cast<size_t>(i * n + j);
          const long double eps = std::numeric_limits<float>::epsilon();
          bad += !(std::fabs(c[at_c] - ref.value[at_ref]) <= (k + 2) * eps * ref.magnitude[at_ref]);
          unrounded += rounded[at_c].bits != wick::BFloat16::round_from_float(c[at_c]);
        }
      }
      INFO(threads << " threads");
      CHECK(bad == 0);
      CHECK(unrounded == 0);
      CHECK(touched == 0);
      ++products;
    }
    gemm::set_blocking<gemm::BF16Bits>(gemm::Isa::avx512, 0, 0, 0);
  }
  return products;
}

bool skip_without_bf16_gemm() {
  if (gemm::has_bf16_gemm()) return false;
  WARN(
      "this CPU has no AVX512_BF16: the bfloat16 GEMM is not tested here (bfloat16 matmul "
      "takes float32 copies on it, tested by the matmul tests)");
  return true;
}

}  // namespace

TEST_CASE("gemm: bfloat16 with AVX512_BF16 at odd sizes and layouts", "[gemm]") {
  Restore restore;
  gemm::set_isa(gemm::best_supported_isa());
  if (skip_without_bf16_gemm()) return;
  const std::vector<int64_t> sizes{1, 2, 7, 33, 127, 129};
  int64_t products = 0;
  for (int64_t m : sizes) {
    for (int64_t k : sizes) {
      for (int64_t n : sizes) {
        products += check_bf16_products(m, k, n, static_cast<Layout>((m + k) % 4),
                                        static_cast<Layout>((k + n + 1) % 4));
      }
    }
  }
  CHECK(products == 6 * 6 * 6 * 4);
}

// Every pair of layouts, with odd and even depths and full panels next to partial ones: the
// sweep above takes one pair per size, so its row-major B has full 32-column panels only at
// k = 2 (a review found that a wrong row step in the interleave of pack_b_bf16 passed it).
TEST_CASE("gemm: bfloat16 with AVX512_BF16, every pair of layouts", "[gemm]") {
  Restore restore;
  gemm::set_isa(gemm::best_supported_isa());
  if (skip_without_bf16_gemm()) return;
  int64_t products = 0;
  for (int la = 0; la < 4; ++la) {
    for (int lb = 0; lb < 4; ++lb) {
      for (auto [m, k, n] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
               {40, 3, 65}, {17, 70, 40}, {9, 33, 96}, {24, 1, 32}}) {
        products += check_bf16_products(m, k, n, static_cast<Layout>(la), static_cast<Layout>(lb));
      }
    }
  }
  CHECK(products == 16 * 4 * 4);
}

// Infinities and NaNs pass through the kernel and the rounding as in float32: inf * 1 = inf,
// inf * 0 and inf - inf are NaN, and a NaN input, quiet or signalling, gives a quiet NaN in
// every element its row or column touches (row 2's NaN has the largest payload, every mantissa
// bit set).
TEST_CASE("gemm: bfloat16 infinities and NaNs", "[gemm]") {
  Restore restore;
  gemm::set_isa(gemm::best_supported_isa());
  if (skip_without_bf16_gemm()) return;
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t m = 9, k = 5, n = 33;
  std::vector<float> fa(static_cast<size_t>(m * k), 1.0f), fb(static_cast<size_t>(k * n), 1.0f);
  fa[0 * k + 1] = inf;
  fa[1 * k + 2] = inf;  // meets B's zero in column 7
  fa[3 * k + 0] = inf;
  fa[3 * k + 1] = -inf;
  fb[2 * n + 7] = 0.0f;
  std::vector<gemm::BF16Bits> ha, hb;
  const auto a = bf16_copy({fa.data(), m, k, k, 1}, fa, ha);
  const auto b = bf16_copy({fb.data(), k, n, n, 1}, fb, hb);
  ha[static_cast<size_t>(2 * k + 3)].bits = 0x7FFF;   // a quiet NaN, the largest payload
  hb[static_cast<size_t>(4 * n + 20)].bits = 0x7FA0;  // a signalling NaN: the result is quiet
  std::vector<gemm::BF16Bits> out(static_cast<size_t>(m * n));
  gemm::gemm_rounded(a, b, out.data(), n, 1);
  auto at = [&](int64_t i, int64_t j) { return out[static_cast<size_t>(i * n + j)].bits; };
  auto quiet_nan = [](uint16_t bits) { return (bits & 0x7FC0) == 0x7FC0; };  // either sign
  for (int64_t j = 0; j < n; ++j) {
    INFO("column " << j);
    if (j == 20) {  // the signalling NaN of B's row 4 reaches every row
      for (int64_t i = 0; i < m; ++i) CHECK(quiet_nan(at(i, j)));
      continue;
    }
    CHECK(at(0, j) == 0x7F80);                                                // inf . 1 = inf
    const bool row_1_ok = j == 7 ? quiet_nan(at(1, j)) : at(1, j) == 0x7F80;  // inf * 0 is NaN
    CHECK(row_1_ok);
    CHECK(quiet_nan(at(2, j)));  // the NaN of A's row 2
    CHECK(quiet_nan(at(3, j)));  // inf - inf
    for (int64_t i = 4; i < m; ++i) CHECK(at(i, j) == (j == 7 ? 0x4080 : 0x40A0));  // 4 or 5
  }
}

TEST_CASE("gemm: the bfloat16 kernel follows the ISA switch", "[gemm][isa]") {
  Restore restore;
  gemm::set_isa(gemm::Isa::avx2);
  CHECK_FALSE(gemm::has_bf16_gemm());  // WICK_CPU_ISA=avx2 turns it off with AVX-512
  gemm::set_isa(gemm::best_supported_isa());
  const wick::Tensor a = wick::randn({33, 40}).to(wick::kBFloat16);
  const wick::Tensor b = wick::randn({40, 17}).to(wick::kBFloat16);
  const wick::Tensor fast = wick::matmul(a, b);
  gemm::set_isa(gemm::Isa::avx2);
  const wick::Tensor widened = wick::matmul(a, b);
  // Float32 sums in two orders, each rounded once: at most one bfloat16 step apart.
  const wick::Tensor diff = (fast.to(wick::kFloat64) - widened.to(wick::kFloat64)).abs();
  const wick::Tensor far = diff > widened.to(wick::kFloat64).abs() * std::ldexp(1.0, -7);
  CHECK(far.to(wick::kFloat64).sum().item<double>() == 0.0);
  // Which path ran shows on a subnormal: vdpbf16ps reads 2^-130 as zero (as oneDNN's kernel,
  // behind libtorch's bfloat16 matmul, does); the float32 copies keep it.
  const wick::Tensor tiny = wick::full({2, 2}, std::ldexp(1.0, -130)).to(wick::kBFloat16);
  const wick::Tensor ones = wick::ones({2, 2}).to(wick::kBFloat16);
  CHECK(wick::matmul(tiny, ones).to(wick::kFloat64).sum().item<double>() ==
        std::ldexp(1.0, -130) * 8);
  gemm::set_isa(gemm::best_supported_isa());
  if (gemm::has_bf16_gemm()) {
    CHECK(wick::matmul(tiny, ones).to(wick::kFloat64).sum().item<double>() == 0.0);
  }
}
