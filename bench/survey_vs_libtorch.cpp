// survey_vs_libtorch.cpp: a broad survey of wick against libtorch (Debian's libtorch-dev 1.13)
// on the CPU, to find the ops and shapes where wick is slow. bench_vs_libtorch times the rows the
// report shows, a few seconds each; this program times many more cases briefly, each pair
// interleaved in rounds (paired.hpp) on the same inputs and thread count, and prints one
// markdown table, slowest ratio first. A case it finds slow that gets fixed earns a row in
// bench_vs_libtorch, where the fix is measured properly (docs/cpu-kernels.md).
//
//   wick_survey_vs_libtorch [--filter=SUBSTRING] [--threads=1,2] [--seconds=0.6]
//
// Columns: wick's and libtorch's median round (microseconds per call) and the median of the
// per-round speed ratios (libtorch's time over wick's: above 1, wick is faster) with its 25th and
// 75th percentiles. Inputs are float32 [1024, 1024] ("M") unless a case says otherwise; libtorch
// gets copies of wick's values.
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "paired.hpp"
#include "paired_rows.hpp"
#include "torch_threads.hpp"

#include "wick/wick.hpp"

namespace {

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

wick::Tensor make_input(const Dims& dims, Fill fill) {
  return fill == Fill::kPositive ? wick::rand(dims) + 0.1 : wick::randn(dims);
}

torch::Tensor torch_copy(const wick::Tensor& t) {  // float32 values, copied
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

const Dims kM = {1024, 1024};

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
Case searchsorted_case(std::string name, int64_t m, int64_t n) {
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

std::vector<Case> cases() {
  std::vector<Case> all;
  const auto add = [&](Case c) { all.push_back(std::move(c)); };
  // Elementwise, contiguous.
  add(binary("a - b", kM, kM, [](const auto& a, const auto& b) { return a - b; }));
  add(binary("a * b", kM, kM, [](const auto& a, const auto& b) { return a * b; }));
  add(binary("a / b", kM, kM, [](const auto& a, const auto& b) { return a / b; }));
  add(binary("maximum(a, b)", kM, kM, [](const auto& a, const auto& b) { return a.maximum(b); }));
  // Composites (core/src/ops_nan.cpp, ops_pointwise.cpp): several kernels each, against
  // libtorch's one fused loop.
  add(binary("addcmul(a, a, b, 0.5)", kM, kM,
             [](const auto& a, const auto& b) { return a.addcmul(a, b, 0.5); }));
  add(binary("logaddexp(a, b)", kM, kM,
             [](const auto& a, const auto& b) { return a.logaddexp(b); }));
  add(binary(
      "xlogy(a, b), b > 0", kM, kM, [](const auto& a, const auto& b) { return a.xlogy(b); },
      Fill::kPositive));
  add(unary("nansum", kM, [](const auto& a) { return a.nansum(); }));
  add(searchsorted_case("searchsorted, 2^20 values in 1000", 1000, 1 << 20));
  add(searchsorted_case("searchsorted, 2^20 values in 2^20", 1 << 20, 1 << 20));
  // Binary maths (kernels/cpu/binary.cpp): the C library per element.
  add(binary("atan2(a, b)", kM, kM, [](const auto& a, const auto& b) { return a.atan2(b); }));
  add(binary("hypot(a, b)", kM, kM, [](const auto& a, const auto& b) { return a.hypot(b); }));
  add(binary("fmod(a, b)", kM, kM, [](const auto& a, const auto& b) { return a.fmod(b); }));
  add(binary("remainder(a, b)", kM, kM,
             [](const auto& a, const auto& b) { return a.remainder(b); }));
  add(binary("floor_divide(a, b)", kM, kM,
             [](const auto& a, const auto& b) { return a.div(b, "floor"); }));
  // The integer and bit ops (kernels/bit_ops.hpp), int64.
  add(int_binary("a & b, int64", -1000, 1000,
                 [](const auto& a, const auto& b) { return a.bitwise_and(b); }));
  add(int_binary("a << b, int64 counts in [0, 64)", 0, 64,
                 [](const auto& a, const auto& b) { return a.bitwise_left_shift(b); }));
  add(int_binary("gcd(a, b), int64 in [1, 2^20)", 1, 1 << 20,
                 [](const auto& a, const auto& b) { return a.gcd(b); }));
  // Linear algebra (core/src/ops_solve.cpp; kernels/cpu/lu.cpp), against LAPACK.
  for (int64_t n : {64, 256}) {
    const std::string of = "[" + std::to_string(n) + ", " + std::to_string(n) + "]";
    add(unary("det of " + of, {n, n}, Det{}));
    add(unary("inverse of " + of, {n, n}, Inverse{}));
    add(binary("solve " + of + " x [" + std::to_string(n) + ", 16]", {n, n}, {n, 16}, Solve{}));
  }
  add(unary("inverse of [4096, 8, 8]", {4096, 8, 8}, Inverse{}));
  add(binary("nextafter(a, b)", kM, kM,
             [](const auto& a, const auto& b) { return a.nextafter(b); }));
  add(binary(
      "pow(a, b), a > 0", kM, kM, [](const auto& a, const auto& b) { return a.pow(b); },
      Fill::kPositive));
  add(unary("pow(a, 2)", kM, [](const auto& a) { return a.pow(2.0); }));
  add(unary("pow(a, 3)", kM, [](const auto& a) { return a.pow(3.0); }));
  add(unary("neg", kM, [](const auto& a) { return a.neg(); }));
  add(unary("abs", kM, [](const auto& a) { return a.abs(); }));
  add(unary("tanh", kM, [](const auto& a) { return a.tanh(); }));
  add(unary("sigmoid", kM, [](const auto& a) { return a.sigmoid(); }));
  add(unary("sin", kM, [](const auto& a) { return a.sin(); }));
  add(unary("cos", kM, [](const auto& a) { return a.cos(); }));
  add(unary("tan", kM, [](const auto& a) { return a.tan(); }));
  add(unary("atan", kM, [](const auto& a) { return a.atan(); }));
  add(unary("asin", kM, [](const auto& a) { return a.asin(); }));
  add(unary("sinh", kM, [](const auto& a) { return a.sinh(); }));
  add(unary("acos", kM, [](const auto& a) { return a.acos(); }));
  add(unary("erf", kM, [](const auto& a) { return a.erf(); }));
  add(unary("cosh", kM, [](const auto& a) { return a.cosh(); }));
  add(unary("expm1", kM, [](const auto& a) { return a.expm1(); }));
  add(unary(
      "log1p", kM, [](const auto& a) { return a.log1p(); }, Fill::kPositive));
  add(unary(
      "log10", kM, [](const auto& a) { return a.log10(); }, Fill::kPositive));
  add(unary(
      "log2", kM, [](const auto& a) { return a.log2(); }, Fill::kPositive));
  add(unary(
      "rsqrt", kM, [](const auto& a) { return a.rsqrt(); }, Fill::kPositive));
  // The special functions: one float64 libm (or special_math.hpp) call per element.
  add(unary("erfc", kM, [](const auto& a) { return a.erfc(); }));
  add(unary("erfinv", kM, [](const auto& a) { return (a * 0.3).erfinv(); }));
  add(unary("asinh", kM, [](const auto& a) { return a.asinh(); }));
  add(unary("lgamma", kM, [](const auto& a) { return a.lgamma(); }));
  add(unary("digamma", kM, [](const auto& a) { return a.digamma(); }));
  add(unary("polygamma(2, a)", kM, [](const auto& a) { return a.polygamma(2); }));
  add(unary("floor", kM, [](const auto& a) { return a.floor(); }));
  add(unary("round", kM, [](const auto& a) { return a.round(); }));
  add(unary("sign", kM, [](const auto& a) { return a.sign(); }));
  // Composites (wick: several ops each, core/src/ops_logical.cpp; libtorch: one kernel).
  add(unary("isnan", kM, [](const auto& a) { return a.isnan(); }));
  add(unary("masked_fill(a > 0, 0)", kM,
            [](const auto& a) { return a.masked_fill(a.gt(0.0), 0.0); }));
  add(unary("tril", kM, [](const auto& a) { return a.tril(); }));
  add(unary("logsumexp along dim 1", kM, [](const auto& a) { return a.logsumexp(1); }));
  add(unary("a + 1", kM, [](const auto& a) { return a + 1.0; }));
  add(unary(
      "1 / a", kM, [](const auto& a) { return 1.0 / a; }, Fill::kPositive));
  add(unary("a.mul_(1) in place", kM, [](auto a) { return a.mul_(1.0); }));
  add(binary("a.add_(b) in place", kM, kM, [](auto a, const auto& b) { return a.add_(b, 0.0); }));
  add(unary("clamp_min(a, 0)", kM, [](const auto& a) { return a.clamp_min(0.0); }));
  add(binary("a == b", kM, kM, [](const auto& a, const auto& b) { return a.eq(b); }));
  add(binary("a < b", kM, kM, [](const auto& a, const auto& b) { return a.lt(b); }));
  add(binary("where(a > 0, a, b)", kM, kM, [](const auto& a, const auto& b) {
    return LibOf<decltype(a)>::where(a.gt(0.0), a, b);
  }));
  // Elementwise, broadcast and strided.
  add(binary("M + row [1024]", kM, {1024}, [](const auto& a, const auto& b) { return a + b; }));
  add(binary("M + column [1024, 1]", kM, {1024, 1},
             [](const auto& a, const auto& b) { return a + b; }));
  add(binary("[64,128,1] + [1,128,128]", {64, 128, 1}, {1, 128, 128},
             [](const auto& a, const auto& b) { return a + b; }));
  // Short rows: [N, 2] with [N, 1], and 3 of every 5 columns (a run of 2 or 3 elements each).
  add(binary("[65536,2] + [65536,1]", {65536, 2}, {65536, 1},
             [](const auto& a, const auto& b) { return a + b; }));
  add(binary("a[:, :3] + b, rows of 3", {65536, 5}, {65536, 3},
             [](const auto& a, const auto& b) { return a.slice(1, 0, 3, 1) + b; }));
  add(binary("a[:, :3].add(column, 0.5), rows of 3", {65536, 5}, {65536, 1},
             [](const auto& a, const auto& b) { return a.slice(1, 0, 3, 1).add(b, 0.5); }));
  add(binary("a.t() + b", kM, kM, [](const auto& a, const auto& b) { return a.t() + b; }));
  add(binary("a.t() * b.t()", kM, kM, [](const auto& a, const auto& b) { return a.t() * b.t(); }));
  add(binary("every 2nd column: a[:, ::2] + b[:, ::2]", {1024, 2048}, {1024, 2048},
             [](const auto& a, const auto& b) {
               return a.slice(1, 0, 2048, 2) + b.slice(1, 0, 2048, 2);
             }));
  add(unary("exp of a.t()", kM, [](const auto& a) { return a.t().exp(); }));
  // Reductions.
  add(unary("mean()", kM, [](const auto& a) { return a.mean(); }));
  add(unary("mean(1)", kM, [](const auto& a) { return a.mean(1); }));
  add(unary("mean(0)", kM, [](const auto& a) { return a.mean(0); }));
  add(unary("max()", kM, [](const auto& a) { return a.max(); }));
  add(unary("amin(0)", kM, [](const auto& a) { return a.amin(0); }));
  add(unary("argmax()", kM, [](const auto& a) { return a.argmax(); }));
  add(unary("argmax(1)", kM, [](const auto& a) { return a.argmax(1); }));
  add(unary("argmax(0)", kM, [](const auto& a) { return a.argmax(0); }));
  add(unary("sum(1, keepdim)", kM, [](const auto& a) { return a.sum(1, true); }));
  add(unary("sum({0, 2}) of [64,128,128]", {64, 128, 128}, [](const auto& a) {
    return a.sum(Dims{0, 2});
  }));
  add(unary("sum(1) of [64,1024,16]", {64, 1024, 16}, [](const auto& a) { return a.sum(1); }));
  add(unary("sum(1) of [16384,64]", {16384, 64}, [](const auto& a) { return a.sum(1); }));
  add(unary("sum(1) of a.t()", kM, [](const auto& a) { return a.t().sum(1); }));
  add(unary("sum(0) of a.t()", kM, [](const auto& a) { return a.t().sum(0); }));
  add(unary("amax(1) of a.t()", kM, [](const auto& a) { return a.t().amax(1); }));
  add(unary("argmax(0) of a.t()", kM, [](const auto& a) { return a.t().argmax(0); }));
  add(unary("mean() of a.t()", kM, [](const auto& a) { return a.t().mean(); }));
  add(unary("sum() of int64", kM,
            [](const auto& a) { return a.to(LibOf<decltype(a)>::i64).sum(); }));
  add(unary("sum(0) of [1024,4096]", {1024, 4096}, [](const auto& a) { return a.sum(0); }));
  // The batch sum of a batched product in a transposed layout (a broadcast weight's gradient):
  // the kept dims are transposed, so no kept dim is innermost in memory order.
  add(unary("sum(0) of [64,1024,256].transpose(1,2)", {64, 1024, 256},
            [](const auto& a) { return a.transpose(1, 2).sum(0); }));
  // Softmax.
  add(unary("log_softmax(1)", kM, [](const auto& a) { return a.log_softmax(1); }));
  add(unary("softmax(1) of [16384,64]", {16384, 64}, [](const auto& a) { return a.softmax(1); }));
  add(unary("log_softmax(1) of [16384,64]", {16384, 64},
            [](const auto& a) { return a.log_softmax(1); }));
  add(unary("softmax(-1) of [32,8,64,64]", {32, 8, 64, 64},
            [](const auto& a) { return a.softmax(-1); }));
  add(unary("softmax(1) of [256,10]", {256, 10}, [](const auto& a) { return a.softmax(1); }));
  add(unary("softmax(1) of a.t()", kM, [](const auto& a) { return a.t().softmax(1); }));
  add(unary("log_softmax(0) of a.t()", kM, [](const auto& a) { return a.t().log_softmax(0); }));
  // LayerNorm over the last dim, with weight and bias (rows of 1024 and of 64).
  add(binary("layer_norm of M, weight and bias", kM, {2, 1024}, [](const auto& x, const auto& wb) {
    return LibOf<decltype(x)>::layer_norm(x, wb.select(0, 0), wb.select(0, 1));
  }));
  add(binary("layer_norm of [16384,64], weight and bias", {16384, 64}, {2, 64},
             [](const auto& x, const auto& wb) {
               return LibOf<decltype(x)>::layer_norm(x, wb.select(0, 0), wb.select(0, 1));
             }));
  // Casts and copies.
  add(unary("to(bfloat16)", kM, [](const auto& a) { return a.to(LibOf<decltype(a)>::bf16); }));
  add(unary("to(float64)", kM, [](const auto& a) { return a.to(LibOf<decltype(a)>::f64); }));
  add(unary("to(int64)", kM, [](const auto& a) { return a.to(LibOf<decltype(a)>::i64); }));
  add(unary("clone", kM, [](const auto& a) { return a.clone(); }));
  add(unary("permute(2,0,1).contiguous() of [64,128,128]", {64, 128, 128}, [](const auto& a) {
    return a.permute({2, 0, 1}).contiguous();
  }));
  add(unary("narrow(1, 1, 1000).contiguous()", kM,
            [](const auto& a) { return a.narrow(1, 1, 1000).contiguous(); }));
  add(unary("[64,1,1024].expand([64,64,1024]).contiguous()", {64, 1, 1024}, [](const auto& a) {
    return a.expand({64, 64, 1024}).contiguous();
  }));
  // Matmul.
  add(binary("bmm [32,128,128] @ [32,128,128]", {32, 128, 128}, {32, 128, 128},
             [](const auto& a, const auto& b) { return a.matmul(b); }));
  add(binary("[32,128,128] @ [128,128]", {32, 128, 128}, {128, 128},
             [](const auto& a, const auto& b) { return a.matmul(b); }));
  add(binary("[64,64] @ [64,64]", {64, 64}, {64, 64},
             [](const auto& a, const auto& b) { return a.matmul(b); }));
  add(binary("[8,8] @ [8,8]", {8, 8}, {8, 8},
             [](const auto& a, const auto& b) { return a.matmul(b); }));
  add(binary("[256,1024] @ M.t()", {256, 1024}, kM,
             [](const auto& a, const auto& b) { return a.matmul(b.t()); }));
  add(binary("[1024,256].t() @ [1024,1024]", {1024, 256}, kM,
             [](const auto& a, const auto& b) { return a.t().matmul(b); }));
  add(binary("[1024] @ M", {1024}, kM, [](const auto& a, const auto& b) { return a.matmul(b); }));
  add(binary("bf16 [256,1024] @ M", {256, 1024}, kM, [](const auto& a, const auto& b) {
    using L = LibOf<decltype(a)>;
    return a.to(L::bf16).matmul(b.to(L::bf16));
  }));
  // bfloat16 beyond bench_vs_libtorch's rows.
  add(binary("bf16 a * b", kM, kM, [](const auto& a, const auto& b) {
    using L = LibOf<decltype(a)>;
    return a.to(L::bf16) * b.to(L::bf16);
  }));
  add(unary("bf16 to(float32)", kM, [](const auto& a) {
    using L = LibOf<decltype(a)>;
    return a.to(L::bf16).to(L::f32);
  }));
  add(unary("bf16 tanh", kM, [](const auto& a) { return a.to(LibOf<decltype(a)>::bf16).tanh(); }));
  // Autograd: forward and backward from the sum.
  add(forward_backward("tanh, forward and backward", kM, [](const auto& x) { return x.tanh(); }));
  add(forward_backward("sigmoid, forward and backward", kM,
                       [](const auto& x) { return x.sigmoid(); }));
  add(forward_backward("log_softmax(1), forward and backward", kM,
                       [](const auto& x) { return x.log_softmax(1); }));
  add(forward_backward("(x * x).mean(1), forward and backward", kM,
                       [](const auto& x) { return (x * x).mean(1); }));
  add(forward_backward("tanh of x.t(), forward and backward", kM,
                       [](const auto& x) { return x.t().tanh(); }));
  add(forward_backward("x.t() * x, forward and backward", kM,
                       [](const auto& x) { return x.t() * x; }));
  add(forward_backward("x + row broadcast, forward and backward", kM,
                       [](const auto& x) { return x + x.select(0, 0); }));
  // Joining.
  add(binary("cat({a, b}, 0) of two [512, 1024]", {512, 1024}, {512, 1024},
             [](const auto& a, const auto& b) {
               return LibOf<decltype(a)>::cat({a, b}, 0);
             }));
  add(binary("cat({a, b}, 1) of two [1024, 512]", {1024, 512}, {1024, 512},
             [](const auto& a, const auto& b) {
               return LibOf<decltype(a)>::cat({a, b}, 1);
             }));
  add(binary("cat({a.t(), b}, 0)", kM, kM, [](const auto& a, const auto& b) {
    return LibOf<decltype(a)>::cat({a.t(), b}, 0);
  }));
  add(unary("stack of the 64 rows of [64, 4096]", {64, 4096}, [](const auto& x) {
    std::vector<std::decay_t<decltype(x)>> rows;
    for (int64_t i = 0; i < 64; ++i) rows.push_back(x.select(0, i));
    return LibOf<decltype(x)>::stack(rows, 0);
  }));
  add(binary("layer_norm of M, forward and backward", kM, {2, 1024},
             [](const auto& x, const auto& wb) {
               auto leaf = x.detach(), w = wb.select(0, 0).detach(), b = wb.select(0, 1).detach();
               leaf.requires_grad_(true);
               w.requires_grad_(true);
               b.requires_grad_(true);
               LibOf<decltype(x)>::layer_norm(leaf, w, b).sum().backward();
               return leaf;
             }));
  add(forward_backward("cat({x, x * 2}, 1), forward and backward", kM, [](const auto& x) {
    return LibOf<decltype(x)>::cat({x, x * 2.0}, 1);
  }));
  // Embedding lookups: 4096 tokens (with repeats) from a [8192, 512] table, as a language
  // model's first layer; the backward sums repeated tokens (wick: in token order, no atomics).
  const auto embedding_case = [&](std::string name, bool backward) {
    add({std::move(name), [backward] {
           const wick::Tensor table = wick::randn({8192, 512});
           const wick::Tensor tokens = (wick::rand({4096}) * 8191.0).to(wick::kInt64);
           const torch::Tensor t_table = torch_copy(table);
           const torch::Tensor t_tokens =
               torch::from_blob(tokens.data_ptr<int64_t>(), {4096}, torch::kInt64).clone();
           const auto run = [backward](const auto& tab, const auto& tok) {
             auto leaf = tab.detach();
             if (backward) leaf.requires_grad_(true);
             auto rows = leaf.index_select(0, tok);
             if (backward) rows.sum().backward();
           };
           return Pair{[=] { run(table, tokens); }, [=] { run(t_table, t_tokens); }};
         }});
  };
  embedding_case("embedding: 4096 rows of [8192, 512] (index_select)", false);
  embedding_case("embedding: 4096 rows of [8192, 512], forward and backward", true);
  // gather: picks along dim of a [rows, cols] table with an index of shape index_shape (values
  // drawn in [0, table.size(dim))); with backward, the gradient is scatter_add into zeros.
  const auto gather_case = [&](std::string name, Dims table_shape, int64_t dim, Dims index_shape,
                               bool backward) {
    add({std::move(name), [=] {
           const wick::Tensor table = wick::randn(table_shape);
           const double top = static_cast<double>(table_shape[static_cast<size_t>(dim)]) - 1.0;
           const wick::Tensor index = (wick::rand(index_shape) * top).to(wick::kInt64);
           const torch::Tensor t_table = torch_copy(table);
           const torch::Tensor t_index =
               torch::from_blob(index.data_ptr<int64_t>(), index_shape, torch::kInt64).clone();
           const auto run = [backward, dim](const auto& tab, const auto& idx) {
             auto leaf = tab.detach();
             if (backward) leaf.requires_grad_(true);
             auto picked = leaf.gather(dim, idx);
             if (backward) picked.sum().backward();
           };
           return Pair{[=] { run(table, index); }, [=] { run(t_table, t_index); }};
         }});
  };
  gather_case("gather: one of 1000 per row of [4096, 1000]", {4096, 1000}, 1, {4096, 1}, false);
  gather_case("gather: one of 1000 per row of [4096, 1000], forward and backward", {4096, 1000}, 1,
              {4096, 1}, true);
  // A classifier's loss over 1000 classes, forward and backward (log_softmax, the target's
  // pick, the mean; the gradient of each).
  add({"cross_entropy of [4096, 1000] logits, forward and backward", [] {
         const wick::Tensor logits = wick::randn({4096, 1000});
         const wick::Tensor classes = (wick::rand({4096}) * 999.0).to(wick::kInt64);
         const torch::Tensor t_logits = torch_copy(logits);
         const torch::Tensor t_classes =
             torch::from_blob(classes.data_ptr<int64_t>(), {4096}, torch::kInt64).clone();
         return Pair{[=] {
                       auto leaf = logits.detach().requires_grad_(true);
                       wick::nn::functional::cross_entropy(leaf, classes).backward();
                     },
                     [=] {
                       auto leaf = t_logits.detach().requires_grad_(true);
                       torch::nn::functional::cross_entropy(leaf, t_classes).backward();
                     }};
       }});
  // A CNN layer: 3x3 convolution (padding 1) of [32, 16, 32, 32] to 32 channels, then a 2x2 max
  // pool; forward, and forward and backward (wick: im2col by index_select and one matmul,
  // nn/conv.cpp; libtorch 1.13: its own CPU convolution).
  for (bool backward : {false, true}) {
    add({std::string("conv2d 3x3 [32, 16, 32, 32] -> 32 channels + max_pool2d 2") +
             (backward ? ", forward and backward" : ""),
         [backward] {
           const wick::Tensor x = wick::randn({32, 16, 32, 32});
           const wick::Tensor w = wick::randn({32, 16, 3, 3}) * 0.1;
           const torch::Tensor t_x = torch_copy(x), t_w = torch_copy(w);
           return Pair{[=] {
                         namespace F = wick::nn::functional;
                         auto leaf = w.detach().requires_grad_(backward);
                         auto y = F::max_pool2d(
                             F::conv2d(x, leaf, wick::nn::Conv2dFuncOptions().padding(1)),
                             wick::nn::MaxPool2dOptions(2));
                         if (backward) y.sum().backward();
                       },
                       [=] {
                         namespace F = torch::nn::functional;
                         auto leaf = t_w.detach().requires_grad_(backward);
                         auto y =
                             F::max_pool2d(F::conv2d(t_x, leaf, F::Conv2dFuncOptions().padding(1)),
                                           F::MaxPool2dFuncOptions(2));
                         if (backward) y.sum().backward();
                       }};
         }});
  }
  // A recurrent layer: LSTM 256 -> 256 over 50 steps of a batch of 32, forward, and forward and
  // backward through time (wick: one input matmul per layer, then per step a [32, 256] x
  // [256, 1024] matmul and the gate ops, nn/rnn.cpp; libtorch 1.13: its CPU LSTM).
  for (bool backward : {false, true}) {
    add({std::string("LSTM 256 -> 256, 50 steps, batch 32") +
             (backward ? ", forward and backward" : ""),
         [backward] {
           wick::nn::LSTM lstm(256, 256);
           torch::nn::LSTM t_lstm(256, 256);
           {
             torch::NoGradGuard no_grad;
             const auto ours = lstm->parameters();
             const auto theirs = t_lstm->parameters();
             for (size_t i = 0; i < ours.size(); ++i) theirs[i].copy_(torch_copy(ours[i]));
           }
           const wick::Tensor x = wick::randn({50, 32, 256});
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] {
                         std::optional<wick::NoGradGuard> no_grad;
                         if (!backward) no_grad.emplace();
                         auto out = std::get<0>(lstm(x));
                         if (backward) out.sum().backward();
                       },
                       [=]() mutable {
                         torch::AutoGradMode mode(backward);
                         auto out = std::get<0>(t_lstm->forward(t_x));
                         if (backward) out.sum().backward();
                       }};
         }});
  }
  // A Transformer encoder layer: d_model 256, 8 heads, feed-forward 1024, over 128 positions of
  // a batch of 16, post-norm, no dropout; forward, and forward and backward (wick: composed of
  // linear, batched matmul, softmax and layer_norm, nn/attention.cpp; libtorch 1.13: its
  // TransformerEncoderLayer's general path, the same decomposition).
  for (bool backward : {false, true}) {
    add({std::string("TransformerEncoderLayer 256, 8 heads, [128, 16]") +
             (backward ? ", forward and backward" : ""),
         [backward] {
           wick::nn::TransformerEncoderLayer layer(
               wick::nn::TransformerEncoderLayerOptions(256, 8).dim_feedforward(1024).dropout(0.0));
           torch::nn::TransformerEncoderLayer t_layer(
               torch::nn::TransformerEncoderLayerOptions(256, 8).dim_feedforward(1024).dropout(
                   0.0));
           {
             torch::NoGradGuard no_grad;
             auto theirs = t_layer->named_parameters();
             for (const auto& [name, p] : layer->named_parameters()) {
               theirs[name].copy_(torch_copy(p));
             }
           }
           const wick::Tensor x = wick::randn({128, 16, 256});
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] {
                         std::optional<wick::NoGradGuard> no_grad;
                         if (!backward) no_grad.emplace();
                         auto out = layer(x);
                         if (backward) out.sum().backward();
                       },
                       [=]() mutable {
                         torch::AutoGradMode mode(backward);
                         auto out = t_layer->forward(t_x);
                         if (backward) out.sum().backward();
                       }};
         }});
  }
  gather_case("gather along dim 0 of [1024, 1024], full index", kM, 0, kM, false);
  gather_case("gather along dim 0 of [1024, 1024], forward and backward (scatter_add)", kM, 0, kM,
              true);
  // scatter_reduce into [1024, 1024] along dim 0 with a full index (about one value per
  // target): wick's column kernel, in index order, against torch 1.13's CPU kernel.
  const auto scatter_case = [&](std::string name, const char* reduce) {
    add({std::move(name), [=] {
           const wick::Tensor self = wick::randn(kM), src = wick::randn(kM);
           const wick::Tensor index = (wick::rand(kM) * 1023.0).to(wick::kInt64);
           const torch::Tensor t_self = torch_copy(self), t_src = torch_copy(src);
           const torch::Tensor t_index =
               torch::from_blob(index.data_ptr<int64_t>(), kM, torch::kInt64).clone();
           return Pair{[=] { (void)self.scatter_reduce(0, index, src, reduce); },
                       [=] { (void)t_self.scatter_reduce(0, t_index, t_src, reduce); }};
         }});
  };
  scatter_case("scatter_reduce amax along dim 0 of [1024, 1024], full index", "amax");
  scatter_case("scatter_reduce mean along dim 0 of [1024, 1024], full index", "mean");
  // Ordering: sort rows, sort one long line, and the top-k of a classifier's and a language
  // model's outputs (torch 1.13's CPU sort and topk; wick: kernels/cpu/sort.cpp).
  const auto sort_case = [&](std::string name, Dims shape, int64_t k) {
    add({std::move(name), [=] {
           const wick::Tensor x = wick::randn(shape);
           const torch::Tensor t_x = torch_copy(x);
           if (k == 0) {
             return Pair{[=] { (void)x.sort(-1); }, [=] { (void)t_x.sort(-1); }};
           }
           return Pair{[=] { (void)x.topk(k, -1); }, [=] { (void)t_x.topk(k, -1); }};
         }});
  };
  // cumsum along the rows and along the columns of a matrix.
  for (int64_t dim : {1, 0}) {
    add({"cumsum of [1024, 1024] along dim " + std::to_string(dim), [dim] {
           const wick::Tensor x = wick::randn({1024, 1024});
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] { (void)x.cumsum(dim); }, [=] { (void)t_x.cumsum(dim); }};
         }});
  }
  // cummax and logcumsumexp along the rows and along the columns.
  for (int64_t dim : {1, 0}) {
    add({"cummax of [1024, 1024] along dim " + std::to_string(dim), [dim] {
           const wick::Tensor x = wick::randn({1024, 1024});
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] { (void)x.cummax(dim); }, [=] { (void)t_x.cummax(dim); }};
         }});
    add({"logcumsumexp of [1024, 1024] along dim " + std::to_string(dim), [dim] {
           const wick::Tensor x = wick::randn({1024, 1024});
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] { (void)x.logcumsumexp(dim); }, [=] { (void)t_x.logcumsumexp(dim); }};
         }});
  }
  // cumprod and prod along the rows and the columns; values near 1 so nothing overflows.
  for (int64_t dim : {1, 0}) {
    add({"cumprod of [1024, 1024] along dim " + std::to_string(dim), [dim] {
           const wick::Tensor x = wick::rand({1024, 1024}) * 0.01 + 0.995;
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] { (void)x.cumprod(dim); }, [=] { (void)t_x.cumprod(dim); }};
         }});
    add({"prod of [4096, 1024] along dim " + std::to_string(dim), [dim] {
           const wick::Tensor x = wick::rand({4096, 1024}) * 0.01 + 0.995;
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] { (void)x.prod(dim); }, [=] { (void)t_x.prod(dim); }};
         }});
  }
  add({"prod of 2^22 floats", [] {
         const wick::Tensor x = wick::rand({1 << 22}) * 0.001 + 0.9995;
         const torch::Tensor t_x = torch_copy(x);
         return Pair{[=] { (void)x.prod(); }, [=] { (void)t_x.prod(); }};
       }});
  // median and kthvalue of each row (sort, topk and a gather in wick; quickselect in PyTorch).
  add({"median of each row of [1024, 1001]", [] {
         const wick::Tensor x = wick::randn({1024, 1001});
         const torch::Tensor t_x = torch_copy(x);
         return Pair{[=] { (void)x.median(1); }, [=] { (void)t_x.median(1); }};
       }});
  add({"kthvalue 10 of each row of [1024, 1001]", [] {
         const wick::Tensor x = wick::randn({1024, 1001});
         const torch::Tensor t_x = torch_copy(x);
         return Pair{[=] { (void)x.kthvalue(10, 1); }, [=] { (void)t_x.kthvalue(10, 1); }};
       }});
  // einsum: attention scores, and a three-operand contraction.
  add({"einsum bhqd,bhkd->bhqk [8, 8, 128, 64]", [] {
         const wick::Tensor q = wick::randn({8, 8, 128, 64}), k = wick::randn({8, 8, 128, 64});
         const torch::Tensor t_q = torch_copy(q), t_k = torch_copy(k);
         return Pair{[=] {
                       (void)wick::einsum("bhqd,bhkd->bhqk", {q, k});
                     },
                     [=] {
                       (void)torch::einsum("bhqd,bhkd->bhqk", {t_q, t_k});
                     }};
       }});
  add({"einsum ij,jk,kl->il [256, 512, 512, 256]", [] {
         const wick::Tensor a = wick::randn({256, 512}), b = wick::randn({512, 512}),
                            c = wick::randn({512, 256});
         const torch::Tensor t_a = torch_copy(a), t_b = torch_copy(b), t_c = torch_copy(c);
         return Pair{[=] {
                       (void)wick::einsum("ij,jk,kl->il", {a, b, c});
                     },
                     [=] {
                       (void)torch::einsum("ij,jk,kl->il", {t_a, t_b, t_c});
                     }};
       }});
  sort_case("sort each row of [1024, 1024]", {1024, 1024}, 0);
  sort_case("sort 2^20 floats (one line)", {1 << 20}, 0);
  sort_case("topk 5 of each row of [4096, 1000]", {4096, 1000}, 5);
  sort_case("topk 50 of each row of [64, 50257]", {64, 50257}, 50);
  // Factories.
  add({"randn(M)", [] {
         return Pair{[] {
                       (void)wick::randn({1024, 1024});
                     },
                     [] {
                       (void)torch::randn({1024, 1024});
                     }};
       }});
  add({"rand(M)", [] {
         return Pair{[] {
                       (void)wick::rand({1024, 1024});
                     },
                     [] {
                       (void)torch::rand({1024, 1024});
                     }};
       }});
  add({"zeros(M)", [] {
         return Pair{[] {
                       (void)wick::zeros({1024, 1024});
                     },
                     [] {
                       (void)torch::zeros({1024, 1024});
                     }};
       }});
  add({"full(M, 1.5)", [] {
         return Pair{[] {
                       (void)wick::full({1024, 1024}, 1.5);
                     },
                     [] {
                       (void)torch::full({1024, 1024}, 1.5);
                     }};
       }});
  add({"arange(2^20)", [] {
         return Pair{[] { (void)wick::arange(1 << 20); }, [] { (void)torch::arange(1 << 20); }};
       }});
  return all;
}

struct Row {
  std::string name;
  int threads;
  double wick_us, torch_us, ratio, ratio_lo, ratio_hi;
};

Row time_case(const Case& c, int threads, double seconds) {
  bench::set_threads(threads);
  const Pair pair = c.make();
  double slowest_call = 0;
  for (const auto* call : {&pair.wick, &pair.torch}) {  // warm up, and size the rounds
    const double t0 = paired::now_s();
    (*call)();
    slowest_call = std::max(slowest_call, paired::now_s() - t0);
  }
  paired::Options opt = paired::options_for(threads, 2, slowest_call, seconds);
  opt.rounds = std::max(opt.rounds, 7);
  const auto s = paired::time_interleaved({pair.wick, pair.torch}, opt);
  const std::vector<double> ratios = paired::speed_ratios(s[0], s[1]);
  return {c.name,
          threads,
          paired::median(s[0]) * 1e6,
          paired::median(s[1]) * 1e6,
          paired::median(ratios),
          paired::quantile(ratios, 0.25),
          paired::quantile(ratios, 0.75)};
}

bool starts_with(const char* arg, const char* prefix, const char** value) {
  const size_t n = std::strlen(prefix);
  if (std::strncmp(arg, prefix, n) != 0) return false;
  *value = arg + n;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string filter;
  std::vector<int> thread_counts = {1, 2};
  double seconds = 0.6;
  for (int i = 1; i < argc; ++i) {
    const char* value = nullptr;
    if (starts_with(argv[i], "--filter=", &value)) {
      filter = value;
    } else if (starts_with(argv[i], "--seconds=", &value)) {
      seconds = std::atof(value);
    } else if (starts_with(argv[i], "--threads=", &value)) {
      thread_counts.clear();
      std::stringstream list(value);
      for (std::string item; std::getline(list, item, ',');)
        thread_counts.push_back(std::stoi(item));
    } else {
      std::fprintf(stderr, "usage: %s [--filter=SUBSTRING] [--threads=1,2] [--seconds=0.6]\n",
                   argv[0]);
      return 2;
    }
  }
  wick::manual_seed(0);
  std::vector<Row> rows;
  for (const Case& c : cases()) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    for (int threads : thread_counts) {
      rows.push_back(time_case(c, threads, seconds));
      std::fprintf(stderr, "%-50s %d thr. %6.2f\n", c.name.c_str(), threads, rows.back().ratio);
    }
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.ratio < b.ratio; });
  std::printf("| case | threads | wick, us | libtorch, us | wick's speed / libtorch's |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    std::printf("| %s | %d | %.3g | %.3g | %.2f (%.2f-%.2f) |\n", r.name.c_str(), r.threads,
                r.wick_us, r.torch_us, r.ratio, r.ratio_lo, r.ratio_hi);
  }
  return 0;
}
