// ops_norm.cpp: fuzz_ops step: layer_norm over the last 0-3 dims of a pool tensor (or a
// normalized_shape that does not fit), with weight and bias absent, fresh, of another dtype, or
// picked from the pool; every outcome predicted, every value checked against a long double model
// of the definition. See fuzz_ops.cpp.
//
// Tolerance per element, from the model's values: the kernels compute xhat from double
// statistics and then round a few times in the element type (CPU: (x - hi) - lo, * rstd, * w,
// + b), so 8 rounding units of |xhat w| + |b|; the double sums over a row of n add n units of
// double (of the result, and through the mean of rstd * max|x| * |w|). Elements that the model
// puts past half the type's range in xhat * w are not checked (the kernels round that product
// before adding b, the model does not), nor float64 rows past 1e150, whose squared deviations
// overflow double (PyTorch's too).
#include <cmath>

#include "ops_program.hpp"

namespace wick::fuzz::ops {

namespace {

using Real = long double;

// The unit roundoff of the type a dtype is computed in (bfloat16 computes in float32).
double unit_of(Dtype d) { return d == wick::kFloat64 ? 0x1p-53 : 0x1p-24; }
double max_of(Dtype d) {
  return d == wick::kFloat64 ? 1.7976931348623157e308 : 3.4028234663852886e38;
}

}  // namespace

void Program::layer_norm() {
  const Tensor* pa = pick();
  if (pa == nullptr) return;
  const Tensor& a = *pa;
  const int64_t nd = a.dim();
  const auto k = static_cast<int64_t>(in_.below(4));
  Shape norm;
  for (int64_t i = 0; i < k; ++i) norm.push_back(nd - k + i >= 0 ? a.size(nd - k + i) : 1);
  if (k > 0 && in_.below(8) == 0) {  // does not fit (an empty tensor's other dims may be 2^63-1)
    int64_t& last = norm[static_cast<size_t>(k - 1)];
    last = last == INT64_MAX ? last - 1 : last + 1;
  }
  static constexpr double kEps[4] = {1e-5, 1e-3, 0.1, 1.0};
  const double eps = kEps[in_.below(4)];
  // Weight and bias: 0 none, 1 fresh of norm's shape, 2 fresh of another dtype, 3 from the pool.
  const auto param = [&](uint32_t how) -> Tensor {
    if (how == 0) return Tensor();
    if (how == 3) return *pick();
    const Dtype d = how == 1 ? a.dtype() : dtype();
    if (!numel_of(norm) || *numel_of(norm) > kMaxElems) return Tensor();
    Tensor t = wick::empty(norm, d);
    lcg_ = in_.u32();
    for_each_index(norm, [&](int64_t, const int64_t* idx) {
      write_elem(t, offset_at(t, idx), random_value(d, in_.below(8) == 0 ? 8 : 0));
    });
    return t;
  };
  const Tensor weight = param(in_.below(4)), bias = param(in_.below(4));
  g_step = "layer_norm of " + str(a) + " over " + str(norm) + " eps " + std::to_string(eps) +
           (weight.defined() ? " weight " + str(weight) : "") +
           (bias.defined() ? " bias " + str(bias) : "");

  bool bad = k == 0 || nd < k || !floating(a.dtype());
  for (int64_t i = 0; !bad && i < k; ++i) bad = a.size(nd - k + i) != norm[static_cast<size_t>(i)];
  for (const Tensor* p : {&weight, &bias}) {
    if (!bad && p->defined()) bad = p->sizes() != norm || p->dtype() != a.dtype();
  }
  Tensor got;
  if (!outcome(bad ? Expect::Error : Expect::Ok,
               [&] { got = wick::layer_norm(a, norm, weight, bias, eps); })) {
    return;
  }
  const Ref x = snapshot(a);
  const Ref w = weight.defined() ? snapshot(weight) : Ref{};
  const Ref b = bias.defined() ? snapshot(bias) : Ref{};
  const auto n = static_cast<size_t>(*numel_of(norm));
  Ref want{x.sizes, x.dtype, x.v};
  std::vector<std::pair<int, double>> tol(x.v.size(), {-1, 0.0});
  const double u = unit_of(x.dtype), u64 = 0x1p-53;
  for (size_t row = 0; n > 0 && row < x.v.size() / n; ++row) {
    const V* xr = x.v.data() + row * n;
    Real mean = 0, var = 0;
    double max_abs = 0;
    for (size_t i = 0; i < n; ++i) {
      mean += xr[i].d;
      max_abs = std::max(max_abs, std::fabs(xr[i].d));
    }
    mean /= static_cast<Real>(n);
    for (size_t i = 0; i < n; ++i) var += (xr[i].d - mean) * (xr[i].d - mean);
    var /= static_cast<Real>(n);
    const Real rstd = 1 / std::sqrt(var + static_cast<Real>(eps));
    const bool unchecked_row = x.dtype == wick::kFloat64 && max_abs > 1e150;
    for (size_t i = 0; i < n; ++i) {
      const Real xhat = (xr[i].d - mean) * rstd;
      const Real wi = w.v.empty() ? 1 : static_cast<Real>(w.v[i].d);
      const Real bi = b.v.empty() ? 0 : static_cast<Real>(b.v[i].d);
      const size_t at = row * n + i;
      want.v[at].d = round_to(x.dtype, static_cast<double>(xhat * wi + bi));
      const double product = static_cast<double>(std::fabs(xhat * wi));
      if (unchecked_row || product > max_of(x.dtype) / 2) continue;
      const double magnitude = product + static_cast<double>(std::fabs(bi));
      const double nd_units = static_cast<double>(n) * u64;
      tol[at] = {2, (8 * u + 4 * nd_units) * magnitude + 4 * nd_units * static_cast<double>(rstd) *
                                                             max_abs *
                                                             static_cast<double>(std::fabs(wi))};
    }
  }
  expect_equal(got, want, g_step, [&](size_t i) { return tol[i]; });
  add(got);
}

}  // namespace wick::fuzz::ops
