// ops_sample.cpp: spaced values and sampling made of other ops. linspace and logspace are
// computed on the host in double. The random ones draw from rand (wick's Philox stream, the
// same values on the CPU and the GPU for one seed) in float64, so 53 random bits stand behind
// each draw: randint floors a uniform, randperm sorts uniforms (a tie has probability about
// n^2 / 2^54), bernoulli compares one with p, and multinomial with replacement counts how many
// cumulative weights lie at or below a uniform scaled to the row's total; without replacement
// it takes the k smallest exponential "arrival times" -log(u) / w, which draws the same
// distribution as picking classes one by one and removing each.
#include <cmath>
#include <vector>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// The options' device, or the CPU; dtype int64 unless the options name one.
TensorOptions integer_options(const std::optional<TensorOptions>& options) {
  return options ? *options : TensorOptions(kInt64);
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
  const double span = static_cast<double>(high) - static_cast<double>(low);
  WICK_CHECK(span <= 9007199254740992.0, ValueError, "randint", "high - low = ", span,
             " must be at most 2^53 (one float64 draw per value)");
  const TensorOptions out = integer_options(options);
  WICK_CHECK(out.dtype() != kBool, DtypeError, "randint", "cannot draw bool values");
  const Tensor u = rand(size, TensorOptions(kFloat64).device(out.device()));
  // floor(u * span) < span for u < 1, but rounding can reach it: clamp to the last value.
  const Tensor drawn = clamp(floor(u * span), 0.0, span - 1) + static_cast<double>(low);
  return drawn.to(out.dtype());
}

Tensor randint(int64_t high, const Shape& size, std::optional<TensorOptions> options) {
  return randint(0, high, size, options);
}

Tensor randperm(int64_t n, std::optional<TensorOptions> options) {
  WICK_CHECK(n >= 0, ValueError, "randperm", "n ", n, " must not be negative");
  const TensorOptions out = integer_options(options);
  const Tensor keys = rand({n}, TensorOptions(kFloat64).device(out.device()));
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
    const Tensor below = le(cdf.unsqueeze(1), u.unsqueeze(2));  // [N, k, C]
    picked = clamp_max(sum(below, 2), classes - 1);
  } else {
    const Tensor u = rand(rows.sizes(), draws);
    const Tensor arrival = div(neg(log1p(neg(u))), rows);  // -log(1 - u) / w; w = 0 gives inf
    picked = std::get<1>(topk(arrival, num_samples, 1, /*largest=*/false, /*sorted=*/true));
  }
  return weights.dim() == 1 ? picked.squeeze(0) : picked;
}

}  // namespace wick
