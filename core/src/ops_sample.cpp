// ops_sample.cpp: spaced values and sampling made of other ops. linspace and logspace are
// computed on the host in double. The random ones draw from rand (wick's Philox stream, the
// same values on the CPU and the GPU for one seed) in float64, whose values are multiples of
// 2^-32 (one 32-bit word each): randint floors a uniform (two combined, 64 bits, for spans above
// 2^32, whose values would otherwise be multiples of span / 2^32: found by review), randperm
// sorts uniforms (two combined above 4096 elements, where 32-bit keys would tie), bernoulli
// compares one with p, and multinomial with replacement finds where a uniform scaled to the
// row's total falls among the cumulative weights; without replacement it takes the k smallest
// exponential "arrival times" -log(u) / w, which draws the same distribution as picking
// classes one by one and removing each.
#include <cmath>
#include <limits>
#include <vector>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// The options' device, or the CPU; dtype int64 unless the options name one (options that
// name only a device gave float32: found by review).
TensorOptions integer_options(const std::optional<TensorOptions>& options) {
  const TensorOptions given = options ? *options : TensorOptions();
  return given.has_dtype() ? given : given.dtype(kInt64);
}

// Uniforms in [0, 1) of float64 with 64 random bits behind each (two draws of rand, whose
// values are multiples of 2^-32), rounded to 53; `wide` false: one draw, 32 bits.
Tensor uniforms(const Shape& size, Device device, bool wide) {
  const TensorOptions draws = TensorOptions(kFloat64).device(device);
  const Tensor high = rand(size, draws);
  return wide ? high + rand(size, draws) * 0x1p-32 : high;
}

}  // namespace

Tensor linspace(double start, double end, int64_t steps, TensorOptions options) {
  WICK_CHECK(steps >= 0, ValueError, "linspace", "steps ", steps, " must not be negative");
  std::vector<double> values(static_cast<size_t>(steps));
  if (steps == 1) values[0] = start;
  if (steps > 1) {
    const double step = (end - start) / static_cast<double>(steps - 1);
    for (int64_t i = 0; i < steps; ++i) {
      // From the nearer end, as PyTorch: both ends come out exact.
      values[static_cast<size_t>(i)] = i < steps / 2
                                           ? start + step * static_cast<double>(i)
                                           : end - step * static_cast<double>(steps - 1 - i);
    }
  }
  return tensor(values, Shape{steps}, TensorOptions(kFloat64).device(options.device()))
      .to(options.dtype());
}

Tensor logspace(double start, double end, int64_t steps, double base, TensorOptions options) {
  WICK_CHECK(steps >= 0, ValueError, "logspace", "steps ", steps, " must not be negative");
  std::vector<double> values =
      linspace(start, end, steps, TensorOptions(kFloat64)).to_vector<double>();
  for (double& v : values) v = std::pow(base, v);
  return tensor(values, Shape{steps}, TensorOptions(kFloat64).device(options.device()))
      .to(options.dtype());
}

Tensor randint(int64_t low, int64_t high, const Shape& size, std::optional<TensorOptions> options) {
  WICK_CHECK(low < high, ValueError, "randint", "low ", low, " must be below high ", high);
  // high - low in uint64 (exact, no overflow), then in double (exact up to 2^53); in double
  // from the start, 2^62 + 10 - 2^62 was 0.
  const uint64_t width = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  WICK_CHECK(width <= (uint64_t{1} << 53), ValueError, "randint", "high - low = ", width,
             " must be at most 2^53 (float64 draws)");
  const auto span = static_cast<double>(width);
  const TensorOptions out = integer_options(options);
  WICK_CHECK(out.dtype() != kBool, DtypeError, "randint", "cannot draw bool values");
  const Tensor u = uniforms(size, out.device(), /*wide=*/span > 0x1p32);
  // floor(u * span) < span for u < 1, but rounding can reach it: clamp to the last value. The
  // offset is exact in float64 (span <= 2^53); low is added in int64 (in float64 it lost the
  // low bits past 2^53 and overflowed near 2^63: found by review).
  const Tensor offset = clamp(floor(u * span), 0.0, span - 1).to(kInt64);
  return (offset + low).to(out.dtype());
}

Tensor randint(int64_t high, const Shape& size, std::optional<TensorOptions> options) {
  return randint(0, high, size, options);
}

Tensor randperm(int64_t n, std::optional<TensorOptions> options) {
  WICK_CHECK(n >= 0, ValueError, "randperm", "n ", n, " must not be negative");
  const TensorOptions out = integer_options(options);
  const Tensor keys = uniforms({n}, out.device(), /*wide=*/n > 4096);
  return argsort(keys).to(out.dtype());
}

Tensor bernoulli(const Tensor& p) {
  detail::check_defined("bernoulli", {&p});
  WICK_CHECK(is_floating(p.dtype()), DtypeError, "bernoulli", "p ", describe(p),
             " must be floating point");
  const Tensor probs = p.detach();
  if (probs.numel() > 0) {
    const Tensor outside = logical_or(lt(probs, 0.0), logical_or(gt(probs, 1.0), isnan(probs)));
    WICK_CHECK(!any(outside).to(kCPU).item<bool>(), ValueError, "bernoulli", "p ", describe(p),
               " must hold probabilities in [0, 1]");
  }
  return lt(rand(probs.sizes(), TensorOptions(kFloat64).device(p.device())), probs.to(kFloat64))
      .to(p.dtype());
}

Tensor multinomial(const Tensor& weights, int64_t num_samples, bool replacement) {
  const char* op = "multinomial";
  detail::check_defined(op, {&weights});
  WICK_CHECK(weights.dim() == 1 || weights.dim() == 2, ShapeError, op, "weights ",
             describe(weights), " must be [C] or [N, C]");
  WICK_CHECK(is_floating(weights.dtype()), DtypeError, op, "weights ", describe(weights),
             " must be floating point");
  WICK_CHECK(num_samples > 0, ValueError, op, "num_samples ", num_samples, " must be positive");
  const Tensor rows = (weights.dim() == 1 ? weights.unsqueeze(0) : weights).detach().to(kFloat64);
  const int64_t classes = rows.size(1);
  WICK_CHECK(classes > 0, ShapeError, op, "weights ", describe(weights), " has no classes");
  // One host copy for every check: a negative or non-finite weight, a row without weight, and
  // (without replacement) fewer nonzero weights than samples.
  const Tensor bad_values = logical_or(lt(rows, 0.0), logical_not(isfinite(rows)));
  const Tensor checks =
      stack({any(bad_values, 1).to(kFloat64), sum(rows, 1), sum(gt(rows, 0.0), 1).to(kFloat64)}, 1)
          .to(kCPU);
  const std::vector<double> facts = checks.to_vector<double>();
  for (int64_t r = 0; r < rows.size(0); ++r) {
    const double* f = &facts[static_cast<size_t>(r * 3)];
    WICK_CHECK(f[0] == 0, ValueError, op, "weights ", describe(weights),
               " must be finite and nonnegative (row ", r, ")");
    WICK_CHECK(f[1] > 0, ValueError, op, "row ", r, " of weights ", describe(weights),
               " sums to zero");
    WICK_CHECK(replacement || f[2] >= static_cast<double>(num_samples), ValueError, op,
               "cannot draw ", num_samples, " samples without replacement from row ", r,
               ", which has ", f[2], " nonzero weights");
  }
  const TensorOptions draws = TensorOptions(kFloat64).device(weights.device());
  Tensor picked;
  if (replacement) {
    const Tensor cdf = cumsum(rows, 1);  // [N, C]
    const Tensor u = rand({rows.size(0), num_samples}, draws) * cdf.narrow(1, classes - 1, 1);
    // How many cumulative weights lie at or below u: a binary search per draw (an [N, k, C]
    // comparison took memory by the gigabyte for large k and C).
    picked = clamp_max(searchsorted(cdf, u, /*right=*/true), classes - 1);
  } else {
    const Tensor u = rand(rows.sizes(), draws);
    // -log(1 - u) / w over weights scaled so that each row's largest is 1 (the order is the
    // same): subnormal weights made the time overflow to inf and tie with the zero weights,
    // which then could be picked (found by review). A zero weight never arrives.
    const Tensor scaled = rows / amax(rows, Shape{1}, /*keepdim=*/true);
    const Tensor arrival = where(gt(scaled, 0.0), div(neg(log1p(neg(u))), scaled),
                                 std::numeric_limits<double>::infinity());
    picked = std::get<1>(topk(arrival, num_samples, 1, /*largest=*/false, /*sorted=*/true));
  }
  return weights.dim() == 1 ? picked.squeeze(0) : picked;
}

}  // namespace wick
