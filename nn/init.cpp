// init.cpp: torch::nn::init (wick/nn/init.hpp). The draws are wick::rand and randn on the
// tensor's device and dtype, then written into the tensor with copy_ under a NoGradGuard;
// dirac_ and sparse_ build their patterns as masks, and orthogonal_ factors its normal draw on
// the host (float64 Householder QR: these matrices are parameter-sized, drawn once).
#include "wick/nn/init.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "wick/autograd.hpp"
#include "wick/ops.hpp"

namespace wick::nn::init {
namespace {

void check_floating(const char* op, const Tensor& tensor) {
  WICK_CHECK(tensor.defined(), ValueError, op, "the tensor is undefined");
  WICK_CHECK(is_floating(tensor.dtype()), DtypeError, op, "fills floating tensors only, got ",
             describe(tensor));
}

// Writes values (the tensor's shape) into tensor without recording it.
Tensor fill_with(Tensor tensor, const Tensor& values) {
  const NoGradGuard no_grad;
  tensor.copy_(values);
  return tensor;
}

}  // namespace

double calculate_gain(Nonlinearity nonlinearity, double param) {
  switch (nonlinearity) {
    case kLinear:
    case kConv1D:
    case kConv2D:
    case kConv3D:
    case kConvTranspose1D:
    case kConvTranspose2D:
    case kConvTranspose3D:
    case kSigmoid:
      return 1.0;
    case kTanh:
      return 5.0 / 3.0;
    case kReLU:
      return std::sqrt(2.0);
    case kLeakyReLU:
      WICK_CHECK(std::isfinite(param), ValueError, "nn::init::calculate_gain", "negative_slope ",
                 param, " is not a valid number");
      return std::sqrt(2.0 / (1.0 + param * param));
    case kSELU:
      return 3.0 / 4.0;
  }
  return 1.0;
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  const char* op = "nn::init::calculate_fan_in_and_fan_out";
  WICK_CHECK(tensor.defined(), ValueError, op, "the tensor is undefined");
  WICK_CHECK(tensor.dim() >= 2, ValueError, op,
             "fan in and fan out can not be computed for a tensor with fewer than 2 dimensions, "
             "got ",
             describe(tensor));
  int64_t receptive_field = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive_field *= tensor.size(d);
  return {tensor.size(1) * receptive_field, tensor.size(0) * receptive_field};
}

Tensor uniform_(Tensor tensor, double low, double high) {
  const char* op = "nn::init::uniform_";
  check_floating(op, tensor);
  WICK_CHECK(std::isfinite(low) && std::isfinite(high) && low <= high, ValueError, op,
             "expects a finite range [low, high), got low = ", low, ", high = ", high);
  return fill_with(
      tensor, rand(tensor.sizes(), tensor.options().requires_grad(false)) * (high - low) + low);
}

Tensor normal_(Tensor tensor, double mean, double std) {
  const char* op = "nn::init::normal_";
  check_floating(op, tensor);
  WICK_CHECK(std::isfinite(mean) && std::isfinite(std) && std >= 0, ValueError, op,
             "expects a finite mean and std >= 0, got mean = ", mean, ", std = ", std);
  return fill_with(tensor,
                   randn(tensor.sizes(), tensor.options().requires_grad(false)) * std + mean);
}

Tensor trunc_normal_(Tensor tensor, double mean, double std, double a, double b) {
  const char* op = "nn::init::trunc_normal_";
  check_floating(op, tensor);
  WICK_CHECK(std::isfinite(mean) && std::isfinite(std) && std > 0 && a < b, ValueError, op,
             "expects a finite mean, std > 0 and a < b, got mean = ", mean, ", std = ", std,
             ", a = ", a, ", b = ", b);
  // PyTorch's inverse-CDF method: u uniform in [2 cdf(a) - 1, 2 cdf(b) - 1), then
  // mean + std sqrt(2) erfinv(u), clamped to [a, b] (erfinv's rounding at the ends).
  const auto cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
  const double low = 2 * cdf((a - mean) / std) - 1, high = 2 * cdf((b - mean) / std) - 1;
  const Tensor u = rand(tensor.sizes(), tensor.options().requires_grad(false)) * (high - low) + low;
  return fill_with(tensor, clamp(erfinv(u) * (std * std::sqrt(2.0)) + mean, a, b));
}

Tensor constant_(Tensor tensor, const Scalar& value) {
  WICK_CHECK(tensor.defined(), ValueError, "nn::init::constant_", "the tensor is undefined");
  const NoGradGuard no_grad;
  tensor.fill_(value);
  return tensor;
}
Tensor ones_(Tensor tensor) { return constant_(std::move(tensor), 1); }
Tensor zeros_(Tensor tensor) { return constant_(std::move(tensor), 0); }

Tensor eye_(Tensor matrix) {
  const char* op = "nn::init::eye_";
  WICK_CHECK(matrix.defined(), ValueError, op, "the tensor is undefined");
  WICK_CHECK(matrix.dim() == 2, ValueError, op,
             "only tensors with 2 dimensions are supported, got ", describe(matrix));
  const TensorOptions index = TensorOptions(kInt64).device(matrix.device());
  const Tensor diagonal =
      eq(arange(matrix.size(0), index).unsqueeze(1), arange(matrix.size(1), index).unsqueeze(0));
  return fill_with(matrix, diagonal);
}

Tensor dirac_(Tensor tensor, int64_t groups) {
  const char* op = "nn::init::dirac_";
  WICK_CHECK(tensor.defined(), ValueError, op, "the tensor is undefined");
  WICK_CHECK(tensor.dim() >= 3 && tensor.dim() <= 5, ValueError, op,
             "only tensors with 3, 4, or 5 dimensions are supported, got ", describe(tensor));
  WICK_CHECK(groups > 0 && tensor.size(0) % groups == 0, ValueError, op, "dim 0 of ",
             describe(tensor), " must be divisible by groups = ", groups);
  const int64_t per_group = tensor.size(0) / groups;
  const int64_t count = std::min(per_group, tensor.size(1));
  // The flat position of each 1, on the host, then one index_put_ of ones.
  std::vector<int64_t> positions;
  int64_t kernel = 1, centre = 0;
  for (int64_t d = 2; d < tensor.dim(); ++d) {
    centre = centre * tensor.size(d) + tensor.size(d) / 2;
    kernel *= tensor.size(d);
  }
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t d = 0; d < count; ++d) {
      positions.push_back(((g * per_group + d) * tensor.size(1) + d) * kernel + centre);
    }
  }
  Tensor pattern = zeros({tensor.numel()}, tensor.options().requires_grad(false));
  if (!positions.empty()) {
    pattern = index_fill(pattern, 0, wick::tensor(positions).to(tensor.device()), 1.0);
  }
  return fill_with(tensor, pattern.reshape(tensor.sizes()));
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  check_floating("nn::init::xavier_uniform_", tensor);
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  if (tensor.numel() == 0) return tensor;
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  check_floating("nn::init::xavier_normal_", tensor);
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  if (tensor.numel() == 0) return tensor;
  return normal_(std::move(tensor), 0.0,
                 gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out)));
}

namespace {
double kaiming_std(const Tensor& tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  const auto fans = calculate_fan_in_and_fan_out(tensor);
  const int64_t fan = mode == kFanIn ? fans.first : fans.second;
  return calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
}
}  // namespace

Tensor kaiming_uniform_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  check_floating("nn::init::kaiming_uniform_", tensor);
  if (tensor.numel() == 0) return tensor;  // PyTorch warns and leaves it
  const double bound = std::sqrt(3.0) * kaiming_std(tensor, a, mode, nonlinearity);
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  check_floating("nn::init::kaiming_normal_", tensor);
  if (tensor.numel() == 0) return tensor;
  // Computed first: in one call's arguments, the move could run before the read (clang's
  // left-to-right order did; found by the CI's clang build).
  const double std = kaiming_std(tensor, a, mode, nonlinearity);
  return normal_(std::move(tensor), 0.0, std);
}

Tensor orthogonal_(Tensor tensor, double gain) {
  const char* op = "nn::init::orthogonal_";
  check_floating(op, tensor);
  WICK_CHECK(tensor.dim() >= 2, ValueError, op,
             "only tensors with 2 or more dimensions are supported, got ", describe(tensor));
  if (tensor.numel() == 0) return tensor;
  const int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  const bool wide = rows < cols;
  // The draw in the tensor's dtype and device, as PyTorch's; factored as m x n with m >= n.
  Tensor drawn = randn({rows, cols}, tensor.options().requires_grad(false));
  if (wide) drawn = drawn.t();
  const auto m = static_cast<size_t>(drawn.size(0)), n = static_cast<size_t>(drawn.size(1));
  std::vector<double> a = drawn.contiguous().to(kCPU).to(kFloat64).to_vector<double>();
  auto at = [&](size_t r, size_t c) -> double& { return a[r * n + c]; };
  // Householder: column k's reflector v_k (stored below the diagonal with its head apart) maps
  // A[k:, k] onto alpha_k e_k; Q = H_0 ... H_{n-1} restricted to its first n columns.
  std::vector<std::vector<double>> reflectors(n);
  std::vector<double> diagonal(n);
  for (size_t k = 0; k < n; ++k) {
    double norm = 0;
    for (size_t r = k; r < m; ++r) norm += at(r, k) * at(r, k);
    norm = std::sqrt(norm);
    const double alpha = at(k, k) > 0 ? -norm : norm;
    std::vector<double> v(m - k);
    for (size_t r = k; r < m; ++r) v[r - k] = at(r, k);
    v[0] -= alpha;
    double v_norm = 0;
    for (double x : v) v_norm += x * x;
    v_norm = std::sqrt(v_norm);
    if (v_norm > 0) {
      for (double& x : v) x /= v_norm;
      for (size_t c = k; c < n; ++c) {
        double dot = 0;
        for (size_t r = k; r < m; ++r) dot += v[r - k] * at(r, c);
        for (size_t r = k; r < m; ++r) at(r, c) -= 2 * v[r - k] * dot;
      }
    }
    diagonal[k] = at(k, k);
    reflectors[k] = std::move(v);
  }
  std::vector<double> q(m * n, 0.0);
  for (size_t c = 0; c < n; ++c) q[c * n + c] = 1.0;
  for (size_t k = n; k-- > 0;) {
    const std::vector<double>& v = reflectors[k];
    for (size_t c = 0; c < n; ++c) {
      double dot = 0;
      for (size_t r = k; r < m; ++r) dot += v[r - k] * q[r * n + c];
      for (size_t r = k; r < m; ++r) q[r * n + c] -= 2 * v[r - k] * dot;
    }
  }
  // Q's columns times the signs of R's diagonal: the factorisation with R's diagonal positive.
  for (size_t c = 0; c < n; ++c) {
    const double sign = diagonal[c] > 0 ? 1.0 : diagonal[c] < 0 ? -1.0 : 0.0;
    for (size_t r = 0; r < m; ++r) q[r * n + c] *= sign * gain;
  }
  Tensor result =
      wick::tensor(q, Shape{static_cast<int64_t>(m), static_cast<int64_t>(n)}, kFloat64);
  if (wide) result = result.t();
  return fill_with(tensor,
                   result.contiguous().reshape(tensor.sizes()).to(tensor.device(), tensor.dtype()));
}

Tensor sparse_(Tensor tensor, double sparsity, double std) {
  const char* op = "nn::init::sparse_";
  check_floating(op, tensor);
  WICK_CHECK(tensor.dim() == 2, ValueError, op,
             "only tensors with 2 dimensions are supported, got ", describe(tensor));
  WICK_CHECK(sparsity >= 0 && sparsity <= 1, ValueError, op, "sparsity must be in [0, 1], got ",
             sparsity);
  const int64_t rows = tensor.size(0), cols = tensor.size(1);
  const auto zeros_per_column =
      static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  normal_(tensor, 0.0, std);
  // Column by column, as PyTorch's: the first zeros_per_column rows of a randperm are zeroed.
  std::vector<int64_t> zeroed;
  for (int64_t c = 0; c < cols; ++c) {
    const std::vector<int64_t> order = randperm(rows).to_vector<int64_t>();
    for (int64_t i = 0; i < zeros_per_column; ++i) {
      zeroed.push_back(order[static_cast<size_t>(i)] * cols + c);
    }
  }
  if (zeroed.empty()) return tensor;
  Tensor mask = zeros({tensor.numel()}, TensorOptions(kBool).device(tensor.device()));
  mask = index_fill(mask, 0, wick::tensor(zeroed).to(tensor.device()), true);
  const NoGradGuard no_grad;
  tensor.masked_fill_(mask.reshape(tensor.sizes()), 0.0);
  return tensor;
}

}  // namespace wick::nn::init
