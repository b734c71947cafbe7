// gradcheck.cpp: analytic gradients against central differences, in float64, with PyTorch's
// defaults (eps 1e-6, atol 1e-5, rtol 1e-3). For each output element o, the analytic row of
// the Jacobian is the gradient of out.flatten()[o] (one backward with a one-hot seed); the
// numeric row perturbs each input element by +-eps.
#include <cmath>
#include <sstream>

#include "wick/autograd.hpp"
#include "wick/ops.hpp"

namespace wick::autograd {
namespace {

// Element j of t in row-major (logical) order, as an offset in elements from t's first one:
// the copies keep the caller's layout (a transposed input stays transposed, as torch's
// gradcheck sees it), so a perturbation must go through the strides, not a flattened copy.
int64_t element_offset(const Tensor& t, int64_t j) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (j % t.size(d)) * t.stride(d);
    j /= t.size(d);
  }
  return offset;
}

}  // namespace

std::string gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& fn,
                      const std::vector<Tensor>& inputs, GradcheckOptions options) {
  for (const Tensor& in : inputs) {
    WICK_CHECK(in.dtype() == kFloat64 && in.device().is_cpu(), DtypeError, "gradcheck",
               "inputs must be float64 cpu tensors, got ", describe(in));
  }
  // Work on private copies so the caller's tensors are never perturbed.
  std::vector<Tensor> xs;
  for (const Tensor& in : inputs) {
    Tensor c = in.detach().clone();
    if (in.requires_grad()) c.requires_grad_(true);
    xs.push_back(c);
  }
  Tensor out = fn(xs);
  const int64_t n_out = out.numel();
  // Numeric Jacobian columns: d out / d x[i][j] by central differences.
  std::vector<std::vector<std::vector<double>>> numeric(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!xs[i].requires_grad()) continue;
    const Tensor view = xs[i].detach();  // shares storage with xs[i]
    double* base = view.data_ptr<double>();
    numeric[i].resize(static_cast<size_t>(view.numel()));
    for (int64_t j = 0; j < view.numel(); ++j) {
      double* element = base + element_offset(view, j);
      const double saved = *element;
      NoGradGuard no_grad;
      *element = saved + options.eps;
      std::vector<double> plus = fn(xs).to_vector<double>();
      *element = saved - options.eps;
      std::vector<double> minus = fn(xs).to_vector<double>();
      *element = saved;
      auto& column = numeric[i][static_cast<size_t>(j)];
      column.resize(static_cast<size_t>(n_out));
      for (int64_t o = 0; o < n_out; ++o) {
        column[o] = (plus[o] - minus[o]) / (2 * options.eps);
      }
    }
  }
  // Analytic rows.
  for (int64_t o = 0; o < n_out; ++o) {
    for (Tensor& x : xs) {
      if (x.requires_grad()) x.mutable_grad() = Tensor();
    }
    Tensor y = fn(xs);
    if (!y.requires_grad()) return "the output does not require grad";
    Tensor seed = zeros(y.sizes(), TensorOptions(kFloat64));
    seed.reshape({-1}).select(0, o).fill_(1.0);
    y.backward(seed);
    for (size_t i = 0; i < xs.size(); ++i) {
      if (!xs[i].requires_grad()) continue;
      std::vector<double> analytic = xs[i].grad().defined()
                                         ? xs[i].grad().to_vector<double>()
                                         : std::vector<double>(numeric[i].size(), 0.0);
      for (size_t j = 0; j < analytic.size(); ++j) {
        double num = numeric[i][j][static_cast<size_t>(o)];
        if (!(std::fabs(analytic[j] - num) <= options.atol + options.rtol * std::fabs(num))) {
          std::ostringstream msg;
          msg << "gradcheck: input " << i << " element " << j << ", output element " << o
              << ": analytic " << analytic[j] << " vs numeric " << num;
          return msg.str();
        }
      }
    }
  }
  return "";
}

}  // namespace wick::autograd
