// survey_cases.hpp: what the survey's cases are made of (survey_vs_libtorch.cpp): a Case
// makes a Pair of calls, one per library, on the same inputs; the helpers build the common
// shapes of case (one input, two, int64 inputs, forward and backward), and Lib names what the
// two libraries spell differently. The cases themselves: survey_cases_ops.cpp (elementwise,
// reductions, rows, casts, matmul, autograd, joining, linear algebra) and
// survey_cases_models.cpp (embeddings, gathers, losses, layers, ordering, scans, einsum,
// factories).
#pragma once

#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "wick/wick.hpp"

namespace survey {

struct Pair {
  std::function<void()> wick, torch;
};
struct Case {
  std::string name;
  std::function<Pair()> make;
};

using Dims = std::vector<int64_t>;

// The per-library names a generic case needs: dtypes and free functions.
template <class T>
struct Lib;
template <>
struct Lib<wick::Tensor> {
  static constexpr auto f32 = wick::kFloat32, f64 = wick::kFloat64, bf16 = wick::kBFloat16,
                        i64 = wick::kInt64;
  static wick::Tensor where(const wick::Tensor& c, const wick::Tensor& a, const wick::Tensor& b) {
    return wick::where(c, a, b);
  }
  static wick::Tensor cat(const std::vector<wick::Tensor>& v, int64_t d) { return wick::cat(v, d); }
  static wick::Tensor stack(const std::vector<wick::Tensor>& v, int64_t d) {
    return wick::stack(v, d);
  }
  static wick::Tensor layer_norm(const wick::Tensor& x, const wick::Tensor& w,
                                 const wick::Tensor& b) {
    return wick::nn::functional::layer_norm(x, {x.size(-1)}, w, b, 1e-5);
  }
};
template <>
struct Lib<torch::Tensor> {
  static constexpr auto f32 = torch::kFloat32, f64 = torch::kFloat64, bf16 = torch::kBFloat16,
                        i64 = torch::kInt64;
  static torch::Tensor where(const torch::Tensor& c, const torch::Tensor& a,
                             const torch::Tensor& b) {
    return torch::where(c, a, b);
  }
  static torch::Tensor cat(const std::vector<torch::Tensor>& v, int64_t d) {
    return torch::cat(v, d);
  }
  static torch::Tensor stack(const std::vector<torch::Tensor>& v, int64_t d) {
    return torch::stack(v, d);
  }
  static torch::Tensor layer_norm(const torch::Tensor& x, const torch::Tensor& w,
                                  const torch::Tensor& b) {
    return torch::layer_norm(x, {x.size(-1)}, w, b, 1e-5);
  }
};
template <class T>
using LibOf = Lib<std::decay_t<T>>;

enum class Fill { kNormal, kPositive };

inline wick::Tensor make_input(const Dims& dims, Fill fill) {
  return fill == Fill::kPositive ? wick::rand(dims) + 0.1 : wick::randn(dims);
}

inline torch::Tensor torch_copy(const wick::Tensor& t) {  // float32 values, copied
  const wick::Tensor c = t.contiguous();
  return torch::from_blob(c.data_ptr<float>(), Dims(c.sizes().begin(), c.sizes().end()),
                          torch::kFloat32)
      .clone();
}

// A case of one input: f(x) for both libraries.
template <class F>
Case unary(std::string name, Dims dims, F f, Fill fill = Fill::kNormal) {
  return {std::move(name), [=] {
            const wick::Tensor w = make_input(dims, fill);
            const torch::Tensor t = torch_copy(w);
            return Pair{[=] { (void)f(w); }, [=] { (void)f(t); }};
          }};
}

// A case of two inputs: f(x, y).
template <class F>
Case binary(std::string name, Dims a_dims, Dims b_dims, F f, Fill fill = Fill::kNormal) {
  return {std::move(name), [=] {
            const wick::Tensor wa = make_input(a_dims, fill), wb = make_input(b_dims, fill);
            const torch::Tensor ta = torch_copy(wa), tb = torch_copy(wb);
            return Pair{[=] { (void)f(wa, wb); }, [=] { (void)f(ta, tb); }};
          }};
}

// A case on a tensor that requires grad: f(x) then backward from its sum (a fresh leaf each
// call, so both libraries allocate its gradient).
template <class F>
Case forward_backward(std::string name, Dims dims, F f) {
  return unary(std::move(name), dims, [f](const auto& x) {
    auto leaf = x.detach();
    leaf.requires_grad_(true);
    f(leaf).sum().backward();
    return leaf;
  });
}

inline const Dims kM = {1024, 1024};

// A case of two int64 inputs drawn from [low, high): f(x, y).
template <class F>
Case int_binary(std::string name, int64_t low, int64_t high, F f) {
  return {std::move(name), [=] {
            const wick::Tensor wa = wick::randint(low, high, kM), wb = wick::randint(low, high, kM);
            auto copy = [](const wick::Tensor& t) {
              return torch::from_blob(t.data_ptr<int64_t>(), Dims(kM), torch::kInt64).clone();
            };
            const torch::Tensor ta = copy(wa), tb = copy(wb);
            return Pair{[=] { (void)f(wa, wb); }, [=] { (void)f(ta, tb); }};
          }};
}

// searchsorted of n values in a sorted sequence of m (both float32 randn): n bisections of
// about log2(m) + 1 steps.
inline Case searchsorted_case(std::string name, int64_t m, int64_t n) {
  return {std::move(name), [=] {
            const wick::Tensor seq = std::get<0>(wick::sort(wick::randn({m})));
            const wick::Tensor values = wick::randn({n});
            const torch::Tensor ts = torch_copy(seq), tv = torch_copy(values);
            return Pair{[=] { (void)wick::searchsorted(seq, values); },
                        [=] { (void)torch::searchsorted(ts, tv); }};
          }};
}

// The linear algebra ops under both libraries' names.
struct Det {
  wick::Tensor operator()(const wick::Tensor& a) const { return wick::det(a); }
  torch::Tensor operator()(const torch::Tensor& a) const { return torch::det(a); }
};
struct Inverse {
  wick::Tensor operator()(const wick::Tensor& a) const { return wick::inverse(a); }
  torch::Tensor operator()(const torch::Tensor& a) const { return torch::inverse(a); }
};
struct Solve {
  wick::Tensor operator()(const wick::Tensor& a, const wick::Tensor& b) const {
    return wick::linalg_solve(a, b);
  }
  torch::Tensor operator()(const torch::Tensor& a, const torch::Tensor& b) const {
    return torch::linalg_solve(a, b);
  }
};

// linalg_cholesky of a symmetric positive-definite [..., n, n] (X X^T / n + I from float32
// randn), and linalg_solve_triangular of its factor against [..., n, 16].
inline wick::Tensor spd_input(const Dims& dims) {
  const int64_t n = dims.back();
  const wick::Tensor x = wick::randn(dims);
  return wick::matmul(x, x.transpose(-2, -1)) / static_cast<double>(n) + wick::eye(n);
}
inline Case cholesky_case(std::string name, Dims dims) {
  return {std::move(name), [=] {
            const wick::Tensor a = spd_input(dims);
            const torch::Tensor t = torch_copy(a);
            return Pair{[=] { (void)wick::linalg_cholesky(a); },
                        [=] { (void)torch::linalg_cholesky(t); }};
          }};
}
inline Case triangular_solve_case(std::string name, Dims dims) {
  return {std::move(name), [=] {
            const wick::Tensor l = wick::linalg_cholesky(spd_input(dims));
            Dims rhs = dims;
            rhs.back() = 16;
            const wick::Tensor b = wick::randn(rhs);
            const torch::Tensor tl = torch_copy(l), tb = torch_copy(b);
            return Pair{[=] { (void)wick::linalg_solve_triangular(l, b, false); },
                        [=] { (void)torch::linalg_solve_triangular(tl, tb, false); }};
          }};
}

// The cases, in the order the survey times them.
void add_op_cases(std::vector<Case>& all);
void add_model_cases(std::vector<Case>& all);

}  // namespace survey
