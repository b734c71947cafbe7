// gpu_test.hpp: what the GPU tests share: inputs made once on the CPU and laid out the same way
// on both devices (contiguous, transposed, sliced with a step, expanded), values drawn from a
// domain with optional special values (NaN, +-inf, -0), the CPU float64 reference, and one
// comparison that reports the first differing element. Outputs are poisoned: the tests turn on
// wick's debug fill, so every allocation starts as 0xFF bytes (NaN, -1, or an invalid bool)
// and an element a kernel forgot to write cannot pass.
// WICK_CUDA_TEST_SMALL=1 (used under compute-sanitizer) swaps the largest shapes for small ones.
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "wick/debug.hpp"
#include "wick/wick.hpp"

namespace gpu_test {

using namespace wick;

inline bool small_run() {
  static const bool small = [] {
    const char* v = std::getenv("WICK_CUDA_TEST_SMALL");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
  }();
  return small;
}

// The largest 2-D shape of the sweep: (1029, 917), or (33, 65) in a small run.
inline Shape big2d() { return small_run() ? Shape{33, 65} : Shape{1029, 917}; }

inline const std::vector<Dtype>& all_dtypes() {
  static const std::vector<Dtype> d{kBool, kInt64, kFloat32, kFloat64};
  return d;
}

inline std::mt19937_64& rng() {
  static std::mt19937_64 gen(20261130);
  return gen;
}

// NonZero: Positive with a random sign (divisors of fmod and remainder).
enum class Domain { Any, Positive, SmallInt, Huge, NonZero };
// Offset: contiguous, but one element into its buffer, so that the kernels' vector paths
// (16-byte loads) must see the misalignment and take their scalar loops: on a GPU a wrong
// alignment check faults (cudaErrorMisalignedAddress), on the emulator it would not.
enum class Layout { Contiguous, Transposed, Strided, Expanded, Offset };

inline const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous:
      return "contiguous";
    case Layout::Transposed:
      return "transposed";
    case Layout::Strided:
      return "sliced with step 2";
    case Layout::Expanded:
      return "expanded";
    case Layout::Offset:
      return "contiguous at an odd offset";
  }
  return "";
}

inline const std::vector<Layout>& all_layouts() {
  static const std::vector<Layout> l{Layout::Contiguous, Layout::Transposed, Layout::Strided,
                                     Layout::Expanded, Layout::Offset};
  return l;
}

// Fills a contiguous CPU tensor. Specials: about 1 in 12 floats is NaN, +inf, -inf, -0 or 0.
inline void fill_values(const Tensor& t, Domain domain, bool specials) {
  auto& g = rng();
  const int64_t n = t.numel();
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::uniform_int_distribution<int> small(-3, 4);
  std::uniform_int_distribution<int> ints(-40, 40);
  std::uniform_int_distribution<int64_t> huge(INT64_MIN / 2, INT64_MAX / 2);
  auto draw_float = [&]() -> double {
    if (specials && g() % 12 == 0) {
      const double s[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0};
      return s[g() % 5];
    }
    switch (domain) {
      case Domain::Positive:
        return std::fabs(u(g)) + 0.1;
      case Domain::NonZero:
        return (g() & 1 ? 1 : -1) * (std::fabs(u(g)) + 0.1);
      case Domain::SmallInt:
        return small(g) + 0.25 * small(g);
      case Domain::Huge:
        return u(g) * 1e20;
      default:
        return u(g);
    }
  };
  auto draw_int = [&]() -> int64_t {
    switch (domain) {
      case Domain::Positive:
        return std::abs(ints(g)) + 1;
      case Domain::NonZero:
        return (g() & 1 ? 1 : -1) * (std::abs(ints(g)) + 1);
      case Domain::SmallInt:
        return small(g);
      case Domain::Huge:
        return huge(g);
      default:
        return ints(g);
    }
  };
  switch (t.dtype()) {
    case kBool: {
      auto* p = t.data_ptr<bool>();
      for (int64_t i = 0; i < n; ++i) p[i] = (g() & 1) != 0;
      break;
    }
    case kInt64: {
      auto* p = t.data_ptr<int64_t>();
      for (int64_t i = 0; i < n; ++i) p[i] = draw_int();
      break;
    }
    case kFloat32: {
      auto* p = t.data_ptr<float>();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(draw_float());
      break;
    }
    case kFloat64: {
      auto* p = t.data_ptr<double>();
      for (int64_t i = 0; i < n; ++i) p[i] = draw_float();
      break;
    }
    case kBFloat16: {
      auto* p = t.data_ptr<BFloat16>();
      for (int64_t i = 0; i < n; ++i) p[i] = BFloat16(static_cast<float>(draw_float()));
      break;
    }
  }
}

// One input, the same values and the same layout on the CPU and on the GPU.
struct Pair {
  Tensor cpu, gpu;
};

inline Pair make_input(const Shape& sizes, Dtype dtype, Layout layout, Domain domain = Domain::Any,
                       bool specials = false) {
  const auto nd = static_cast<int64_t>(sizes.size());
  Shape base_sizes = sizes;
  if (layout == Layout::Transposed && nd >= 2) {
    std::swap(base_sizes[static_cast<size_t>(nd - 1)], base_sizes[static_cast<size_t>(nd - 2)]);
  } else if (layout == Layout::Strided && nd >= 1) {
    base_sizes[static_cast<size_t>(nd - 1)] = sizes[static_cast<size_t>(nd - 1)] * 2 + 1;
  } else if (layout == Layout::Expanded && nd >= 1 && sizes[0] > 1) {
    base_sizes[0] = 1;
  } else if (layout == Layout::Offset) {
    int64_t numel = 1;
    for (int64_t size : sizes) numel *= size;
    base_sizes = Shape{numel + 1};
  } else {
    layout = Layout::Contiguous;
  }
  Tensor base = empty(base_sizes, dtype);
  fill_values(base, domain, specials);
  auto view = [&](const Tensor& t) {
    switch (layout) {
      case Layout::Transposed:
        return t.transpose(-1, -2);
      case Layout::Strided:
        return t.slice(-1, 1, std::nullopt, 2).narrow(-1, 0, sizes.back());
      case Layout::Expanded:
        return t.expand(sizes);
      case Layout::Offset:
        return t.narrow(0, 1, t.numel() - 1).view(sizes);
      default:
        return t;
    }
  };
  return Pair{view(base), view(base.to(kCUDA))};
}

// The CPU reference's input: float32 widened to float64, other dtypes as they are.
inline Tensor widen(const Tensor& cpu) { return cpu.dtype() == kFloat32 ? cpu.to(kFloat64) : cpu; }

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// Compares a GPU result with a CPU reference of the same shape. A float64 reference of a
// float32 result is first rounded to float32 (overflow becomes inf there too); then NaN must
// meet NaN, infinities must be equal, and finite values |got - want| <= atol + rtol |want|.
// int64 and bool must be equal, and a bool byte other than 0 or 1 (never written) fails.
inline void check_close(const Tensor& got, const Tensor& ref, Tolerance tol,
                        const std::string& what) {
  INFO(what);
  REQUIRE(got.defined());
  CHECK(got.device().is_cuda());
  REQUIRE(got.sizes() == ref.sizes());
  const Tensor host = got.to(kCPU).contiguous();
  const int64_t n = host.numel();
  if (host.dtype() == kBool) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(host.data_ptr<bool>());
    for (int64_t i = 0; i < n; ++i) {
      if (bytes[i] > 1) {
        FAIL_CHECK("element " << i << " of the bool result was never written (byte "
                              << int(bytes[i]) << ")");
        return;
      }
    }
  }
  if (!is_floating(host.dtype())) {
    const std::vector<int64_t> g = host.to_vector<int64_t>();
    const std::vector<int64_t> w = ref.to(host.dtype()).to_vector<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      if (g[static_cast<size_t>(i)] != w[static_cast<size_t>(i)]) {
        FAIL_CHECK("element " << i << " is " << g[static_cast<size_t>(i)] << ", expected "
                              << w[static_cast<size_t>(i)]);
        return;
      }
    }
    return;
  }
  const std::vector<double> g = host.to_vector<double>();
  const std::vector<double> w = ref.to(host.dtype()).to_vector<double>();
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < n; ++i) {
    const double gv = g[static_cast<size_t>(i)], wv = w[static_cast<size_t>(i)];
    bool ok;
    if (std::isnan(wv)) {
      ok = std::isnan(gv);
    } else if (std::isinf(wv)) {
      ok = gv == wv;
    } else {
      ok = std::fabs(gv - wv) <= tol.atol + tol.rtol * std::fabs(wv);
    }
    if (!ok) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  if (bad > 0) {
    const auto f = static_cast<size_t>(first);
    FAIL_CHECK(bad << " of " << n << " elements differ; the first is element " << first << ": "
                   << g[f] << ", expected " << w[f] << " (rtol " << tol.rtol << ", atol "
                   << tol.atol << ")");
  }
}

// Turns debug fill (0xFF in every new allocation) on for a scope.
struct PoisonScope {
  PoisonScope() { set_debug_fill(true); }
  ~PoisonScope() { set_debug_fill(false); }
  PoisonScope(const PoisonScope&) = delete;
  PoisonScope& operator=(const PoisonScope&) = delete;
};

inline std::string label(const Tensor& t, Layout l) {
  return describe(t) + " (" + layout_name(l) + ")";
}

}  // namespace gpu_test
