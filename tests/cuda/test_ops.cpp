// test_ops.cpp: the op sweep of the core issue, on the GPU: every Kernel op of wick/op_list.hpp
// x every dtype x the shapes (), (0,), (1,0,3), (20,), (812,), (1029,917), broadcast pairs, and
// transposed, sliced and expanded inputs, each compared with the same op run by the CPU
// kernels on float64 inputs (float32 widened; int64 and bool as they are, compared exactly).
// Outputs are poisoned (debug fill). Tolerances are in docs/cuda-backend.md: results that IEEE
// rounds exactly (+ - * / sqrt, casts, comparisons, max/min) within 1 float32 ulp; CUDA's
// transcendental functions within 1e-6 relative (float32) and 1e-14 (float64); sums and means
// within 1e-6 relative plus 1e-6 of the sum of |x|; softmax within 1e-5 relative (1e-12 float64).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "gpu_test.hpp"
#include "layout_cases.hpp"
#include "sweep_check.hpp"
#include "wick/op_list.hpp"

using namespace gpu_test;

namespace {

const std::vector<std::pair<Shape, Shape>>& broadcast_pairs() {
  static const std::vector<std::pair<Shape, Shape>> p{
      {{20}, {}},          {{}, {812}},
      {{3, 1, 5}, {4, 5}}, {{big2d()[0], 1}, {1, big2d()[1]}},
      {{2, 0, 3}, {1, 3}}, {{7, 1, 9, 1}, {1, 8, 1, 6}}};
  return p;
}

// ---- unary ----
struct UnaryCase {
  std::function<Tensor(const Tensor&)> run;
  Domain domain;
  double rtol;
  // float64: against the CPU's libm, a few ulps (1e-14); near a zero of the result (lgamma at 1
  // and 2, digamma at 1.46) those ulps are the operands', so an absolute term too.
  double float64_atol = 0;
};

std::map<OpId, UnaryCase> unary_cases() {
  return {
      {OpId::neg, {[](const Tensor& t) { return -t; }, Domain::Any, kExact32}},
      {OpId::abs, {[](const Tensor& t) { return t.abs(); }, Domain::Any, kExact32}},
      {OpId::exp, {[](const Tensor& t) { return t.exp(); }, Domain::SmallInt, kTranscend32}},
      {OpId::log, {[](const Tensor& t) { return t.log(); }, Domain::Positive, kTranscend32}},
      {OpId::sqrt, {[](const Tensor& t) { return t.sqrt(); }, Domain::Positive, kExact32}},
      {OpId::relu, {[](const Tensor& t) { return t.relu(); }, Domain::Any, kExact32}},
      {OpId::sigmoid, {[](const Tensor& t) { return t.sigmoid(); }, Domain::Any, kTranscend32}},
      {OpId::tanh, {[](const Tensor& t) { return t.tanh(); }, Domain::Any, kTranscend32}},
      {OpId::erf, {[](const Tensor& t) { return t.erf(); }, Domain::Any, kTranscend32}},
      {OpId::log1p, {[](const Tensor& t) { return t.log1p(); }, Domain::Positive, kTranscend32}},
      {OpId::expm1, {[](const Tensor& t) { return t.expm1(); }, Domain::Any, kTranscend32}},
      {OpId::sin, {[](const Tensor& t) { return t.sin(); }, Domain::Any, kTranscend32}},
      {OpId::tan, {[](const Tensor& t) { return t.tan(); }, Domain::Any, kTranscend32}},
      {OpId::asin, {[](const Tensor& t) { return t.asin(); }, Domain::Any, kTranscend32}},
      {OpId::acos, {[](const Tensor& t) { return t.acos(); }, Domain::Any, kTranscend32}},
      {OpId::atan, {[](const Tensor& t) { return t.atan(); }, Domain::Any, kTranscend32}},
      {OpId::sinh, {[](const Tensor& t) { return t.sinh(); }, Domain::Any, kTranscend32}},
      {OpId::cosh, {[](const Tensor& t) { return t.cosh(); }, Domain::Any, kTranscend32}},
      {OpId::log2, {[](const Tensor& t) { return t.log2(); }, Domain::Positive, kTranscend32}},
      {OpId::log10, {[](const Tensor& t) { return t.log10(); }, Domain::Positive, kTranscend32}},
      {OpId::cos, {[](const Tensor& t) { return t.cos(); }, Domain::Any, kTranscend32}},
      // Computed in float64 on both devices and rounded once: float32 agrees to an ulp.
      {OpId::asinh, {[](const Tensor& t) { return t.asinh(); }, Domain::Any, kExact32}},
      {OpId::acosh, {[](const Tensor& t) { return t.acosh(); }, Domain::Positive, kExact32}},
      {OpId::atanh, {[](const Tensor& t) { return t.atanh(); }, Domain::Any, kExact32}},
      {OpId::erfc, {[](const Tensor& t) { return t.erfc(); }, Domain::Any, kExact32}},
      {OpId::erfinv, {[](const Tensor& t) { return t.erfinv(); }, Domain::Any, kExact32, 1e-15}},
      {OpId::exp2, {[](const Tensor& t) { return t.exp2(); }, Domain::Any, kExact32}},
      {OpId::lgamma, {[](const Tensor& t) { return t.lgamma(); }, Domain::Any, kExact32, 1e-15}},
      {OpId::digamma, {[](const Tensor& t) { return t.digamma(); }, Domain::Any, kExact32, 1e-15}},
      {OpId::polygamma,
       {[](const Tensor& t) { return t.polygamma(2); }, Domain::Any, kExact32, 1e-15}},
      {OpId::rsqrt, {[](const Tensor& t) { return t.rsqrt(); }, Domain::Positive, kTranscend32}},
      {OpId::reciprocal,
       {[](const Tensor& t) { return t.reciprocal(); }, Domain::Positive, kExact32}},
      {OpId::floor, {[](const Tensor& t) { return t.floor(); }, Domain::Any, kExact32}},
      {OpId::ceil, {[](const Tensor& t) { return t.ceil(); }, Domain::Any, kExact32}},
      {OpId::round, {[](const Tensor& t) { return t.round(); }, Domain::Any, kExact32}},
      {OpId::trunc, {[](const Tensor& t) { return t.trunc(); }, Domain::Any, kExact32}},
      {OpId::sign, {[](const Tensor& t) { return t.sign(); }, Domain::Any, kExact32}},
      {OpId::pow_scalar,
       {[](const Tensor& t) { return t.pow(3); }, Domain::SmallInt, kTranscend32}},
      {OpId::clamp, {[](const Tensor& t) { return t.clamp(-2, 2); }, Domain::Any, kExact32}},
  };
}

void sweep_unary(OpId op) {
  const UnaryCase c = unary_cases().at(op);
  for (Dtype dtype : all_dtypes()) {
    for (const Shape& shape : sweep_shapes()) {
      for (Layout layout : all_layouts()) {
        for (bool specials : {false, true}) {
          if (specials && (!is_floating(dtype) || shape.size() != 1)) continue;
          Pair x = make_input(shape, dtype, layout, c.domain, specials);
          check_op([&](const std::vector<Tensor>& in) { return c.run(in[0]); }, {x}, c.rtol,
                   std::string(op_name(op)) + " of " + label(x.cpu, layout) +
                       (specials ? " with NaN/inf" : ""),
                   1e-14, 0, c.float64_atol);
        }
      }
    }
  }
  // Attributes: pow by 2 (x * x), by a fraction (int64 -> float32), by a negative int; one-sided
  // clamps; int64 neg/abs wrap at INT64_MIN.
  Pair f = make_input({812}, kFloat32, Layout::Strided, Domain::Any, true);
  auto one = [&](auto fn, const Pair& p, double rtol, const char* what) {
    check_op([&](const std::vector<Tensor>& in) { return fn(in[0]); }, {p}, rtol, what);
  };
  one([](const Tensor& t) { return t.pow(2); }, f, kExact32, "pow 2");
  one([](const Tensor& t) { return t.pow(0.5); }, f, kTranscend32, "pow 0.5");
  one([](const Tensor& t) { return t.pow(-0.5); }, f, kTranscend32, "pow -0.5 (1 / sqrt)");
  one([](const Tensor& t) { return t.pow(-1); }, f, kExact32, "pow -1 (1 / x)");
  one([](const Tensor& t) { return t.pow(3); }, f, kTranscend32, "pow 3 (x * x * x)");
  one([](const Tensor& t) { return t.pow(-2); }, f, kTranscend32, "pow -2 (1 / (x * x))");
  one([](const Tensor& t) { return t.clamp_min(0.5); }, f, kExact32, "clamp_min");
  one([](const Tensor& t) { return t.clamp_max(-0.5); }, f, kExact32, "clamp_max");
  Pair i = make_input({812}, kInt64, Layout::Contiguous, Domain::Huge);
  one([](const Tensor& t) { return t.pow(0.5); },
      make_input({20}, kInt64, Layout::Contiguous, Domain::Positive), kTranscend32,
      "int64 pow 0.5");
  // A negative integer number exponent is refused at the boundary (as PyTorch); a tensor
  // exponent keeps the kernel's 0/+-1 rule.
  one([](const Tensor& t) { return pow(t, full_like(t, -1)); },
      make_input({20}, kInt64, Layout::Contiguous, Domain::SmallInt), 0, "int64 pow a -1 tensor");
  CHECK_THROWS_AS(ones({2}, TensorOptions(kInt64).device(kCUDA)).pow(-1), ValueError);
  one([](const Tensor& t) { return t.pow(5); }, i, 0, "int64 pow 5 (wraps)");
  Pair extremes{tensor(std::vector<int64_t>{INT64_MIN, INT64_MAX, -1, 0}),
                tensor(std::vector<int64_t>{INT64_MIN, INT64_MAX, -1, 0}).to(kCUDA)};
  one([](const Tensor& t) { return -t; }, extremes, 0, "neg of INT64_MIN");
  one([](const Tensor& t) { return t.abs(); }, extremes, 0, "abs of INT64_MIN");
}

// ---- binary, comparisons, where ----
struct BinaryCase {
  std::function<Tensor(const Tensor&, const Tensor&)> run;
  Domain domain_b;
  double rtol;
};

std::map<OpId, BinaryCase> binary_cases() {
  return {
      {OpId::add, {[](const Tensor& a, const Tensor& b) { return a + b; }, Domain::Any, kExact32}},
      {OpId::sub, {[](const Tensor& a, const Tensor& b) { return a - b; }, Domain::Any, kExact32}},
      {OpId::mul, {[](const Tensor& a, const Tensor& b) { return a * b; }, Domain::Any, kExact32}},
      {OpId::div,
       {[](const Tensor& a, const Tensor& b) { return a / b; }, Domain::Positive, kExact32}},
      {OpId::pow,
       {[](const Tensor& a, const Tensor& b) { return a.pow(b); }, Domain::SmallInt, kTranscend32}},
      {OpId::maximum,
       {[](const Tensor& a, const Tensor& b) { return maximum(a, b); }, Domain::Any, 0}},
      {OpId::minimum,
       {[](const Tensor& a, const Tensor& b) { return minimum(a, b); }, Domain::Any, 0}},
      // CUDA's atan2f and hypotf: 3 ulps at most (CUDA's maths appendix); fmod is exact and
      // remainder adds once.
      {OpId::atan2,
       {[](const Tensor& a, const Tensor& b) { return atan2(a, b); }, Domain::Any, kTranscend32}},
      {OpId::hypot,
       {[](const Tensor& a, const Tensor& b) { return hypot(a, b); }, Domain::Any, kTranscend32}},
      {OpId::fmod,
       {[](const Tensor& a, const Tensor& b) { return fmod(a, b); }, Domain::NonZero, 0}},
      {OpId::remainder,
       {[](const Tensor& a, const Tensor& b) { return remainder(a, b); }, Domain::NonZero,
        kExact32}},
      // The same formula as the CPU's (kernels/rounded_division.hpp): equal values.
      {OpId::floor_divide,
       {[](const Tensor& a, const Tensor& b) { return floor_divide(a, b); }, Domain::NonZero, 0}},
      {OpId::copysign,
       {[](const Tensor& a, const Tensor& b) { return copysign(a, b); }, Domain::Any, 0}},
      {OpId::trunc_divide,
       {[](const Tensor& a, const Tensor& b) { return div(a, b, "trunc"); }, Domain::NonZero, 0}},
      // kernels/bit_ops.hpp on both devices: equal values (float operands: DtypeError on both).
      {OpId::bitwise_and, {[](const Tensor& a, const Tensor& b) { return a & b; }, Domain::Any, 0}},
      {OpId::bitwise_or, {[](const Tensor& a, const Tensor& b) { return a | b; }, Domain::Any, 0}},
      {OpId::bitwise_xor, {[](const Tensor& a, const Tensor& b) { return a ^ b; }, Domain::Any, 0}},
      {OpId::bitwise_left_shift,
       {[](const Tensor& a, const Tensor& b) { return a << b; }, Domain::Any, 0}},
      {OpId::bitwise_right_shift,
       {[](const Tensor& a, const Tensor& b) { return a >> b; }, Domain::Any, 0}},
      {OpId::gcd, {[](const Tensor& a, const Tensor& b) { return gcd(a, b); }, Domain::Any, 0}},
      {OpId::lcm, {[](const Tensor& a, const Tensor& b) { return lcm(a, b); }, Domain::Any, 0}},
      // Three roundings (1 - y, then two products) and two (fma, product): 2 ulps of slack.
      {OpId::sigmoid_backward,
       {[](const Tensor& g, const Tensor& y) { return sigmoid_backward(g, y); }, Domain::Any,
        2 * kExact32}},
      {OpId::tanh_backward,
       {[](const Tensor& g, const Tensor& y) { return tanh_backward(g, y); }, Domain::Any,
        2 * kExact32}},
      {OpId::eq, {[](const Tensor& a, const Tensor& b) { return a == b; }, Domain::SmallInt, 0}},
      {OpId::ne, {[](const Tensor& a, const Tensor& b) { return a != b; }, Domain::SmallInt, 0}},
      {OpId::lt, {[](const Tensor& a, const Tensor& b) { return a < b; }, Domain::SmallInt, 0}},
      {OpId::le, {[](const Tensor& a, const Tensor& b) { return a <= b; }, Domain::SmallInt, 0}},
      {OpId::gt, {[](const Tensor& a, const Tensor& b) { return a > b; }, Domain::SmallInt, 0}},
      {OpId::ge, {[](const Tensor& a, const Tensor& b) { return a >= b; }, Domain::SmallInt, 0}},
  };
}

void sweep_binary(OpId op) {
  const BinaryCase c = binary_cases().at(op);
  const Domain domain_a = c.domain_b == Domain::SmallInt ? Domain::SmallInt : Domain::Any;
  auto run2 = [&](const std::vector<Tensor>& in) { return c.run(in[0], in[1]); };
  for (Dtype dtype : all_dtypes()) {
    // Same shapes, with layout pairs that mix every kind.
    const std::vector<std::pair<Layout, Layout>> layout_pairs{
        {Layout::Contiguous, Layout::Contiguous}, {Layout::Transposed, Layout::Strided},
        {Layout::Expanded, Layout::Transposed},   {Layout::Strided, Layout::Expanded},
        {Layout::Offset, Layout::Contiguous},     {Layout::Contiguous, Layout::Offset}};
    for (const Shape& shape : sweep_shapes()) {
      for (auto [la, lb] : layout_pairs) {
        for (bool specials : {false, true}) {
          if (specials && (!is_floating(dtype) || shape.size() != 1)) continue;
          Pair a = make_input(shape, dtype, la, domain_a, specials);
          Pair b = make_input(shape, dtype, lb, c.domain_b, specials);
          check_op(run2, {a, b}, c.rtol,
                   std::string(op_name(op)) + " of " + label(a.cpu, la) + " and " +
                       label(b.cpu, lb) + (specials ? " with NaN/inf" : ""));
        }
      }
    }
    for (const auto& [sa, sb] : broadcast_pairs()) {
      Pair a = make_input(sa, dtype, Layout::Contiguous, domain_a);
      Pair b = make_input(sb, dtype, Layout::Strided, c.domain_b);
      check_op(
          run2, {a, b}, c.rtol,
          std::string(op_name(op)) + " broadcast " + describe(a.cpu) + " with " + describe(b.cpu));
    }
  }
  // Mixed dtypes (promotion happens at the boundary; the kernel sees one dtype) and a 0-d CPU
  // tensor joining a GPU tensor.
  Pair fi = make_input({812}, kFloat32, Layout::Contiguous, domain_a);
  Pair ii = make_input({812}, kInt64, Layout::Strided, c.domain_b);
  check_op(run2, {fi, ii}, c.rtol, std::string(op_name(op)) + " float32 with int64");
  // Its value is a float32 one: the op computes in float32 (the result's dtype) after casting
  // the 0-d operand, as PyTorch does, so a value with more bits would differ from the float64
  // reference by the cast's rounding, not by the kernel's.
  Pair zero_d{make_input({}, kFloat32, Layout::Contiguous, c.domain_b).cpu.to(kFloat64), Tensor()};
  zero_d.gpu = zero_d.cpu;  // stays on the CPU: PyTorch lets a 0-d CPU tensor join a GPU op
  check_op(run2, {fi, zero_d}, c.rtol, std::string(op_name(op)) + " with a 0-d CPU tensor");
}

void sweep_where() {
  for (Dtype dtype : all_dtypes()) {
    for (const Shape& shape : sweep_shapes()) {
      for (Layout layout : all_layouts()) {
        Pair cond = make_input(shape, kBool, layout);
        Pair a = make_input(shape, dtype, Layout::Contiguous);
        Pair b = make_input(shape, dtype, Layout::Transposed);
        check_op([](const std::vector<Tensor>& in) { return where(in[0], in[1], in[2]); },
                 {cond, a, b}, 0, "where on " + label(cond.cpu, layout) + ", " + describe(a.cpu));
      }
    }
    Pair cond = make_input({3, 1, 5}, kBool, Layout::Contiguous);
    Pair a = make_input({4, 5}, dtype, Layout::Strided);
    Pair b = make_input({5}, dtype, Layout::Contiguous);
    check_op([](const std::vector<Tensor>& in) { return where(in[0], in[1], in[2]); }, {cond, a, b},
             0, "where broadcast");
    check_op([](const std::vector<Tensor>& in) { return where(in[0], in[1], 2.5); }, {cond, a}, 0,
             "where with a scalar");
  }
}

// ---- reductions ----
struct ReduceConfig {
  Shape shape;
  std::optional<Shape> dims;  // nullopt: all
};

std::vector<ReduceConfig> reduce_configs() {
  const Shape big = big2d();
  std::vector<ReduceConfig> c{
      {{}, std::nullopt},    {{20}, std::nullopt},      {{20}, Shape{0}},
      {{812}, Shape{0}},     {big, std::nullopt},       {big, Shape{0}},
      {big, Shape{1}},       {{3, 4, 5}, Shape{0, 2}},  {{3, 4, 5}, Shape{1}},
      {{1, 0, 3}, Shape{1}}, {{1, 0, 3}, std::nullopt}, {{0}, std::nullopt}};
  // Rows longer than one block's chunk (16384): split across blocks, then a second pass.
  const int64_t longer = small_run() ? 20000 : 70000;
  c.push_back({{3, longer}, Shape{1}});
  c.push_back({{longer, 3}, Shape{0}});
  c.push_back({{5, 6, longer / 10}, Shape{0, 2}});
  c.push_back({{small_run() ? int64_t{1} << 16 : int64_t{1} << 22}, std::nullopt});
  // More groups of outputs than one capped grid covers (8 waves of resident blocks: 8448
  // blocks on an H200, 128 on the emulator), so that both kernels' grid-stride loops run.
  const int64_t many = small_run() ? 20001 : 600001;
  c.push_back({{many, 3}, Shape{1}});
  c.push_back({{3, many}, Shape{0}});
  return c;
}

// Sum of |x| over the finite elements: the scale of a sum's rounding error. (With NaN or inf
// among the inputs, the plain sum would make the tolerance NaN, which nothing meets, or inf,
// which everything meets; outputs that a NaN or inf reaches are checked as such.)
double abs_sum(const Tensor& cpu) {
  if (cpu.numel() == 0) return 0;
  double total = 0;
  for (double v : cpu.to(kFloat64).contiguous().to_vector<double>()) {
    if (std::isfinite(v)) total += std::fabs(v);
  }
  return total;
}

void sweep_reductions(OpId op) {
  for (Dtype dtype : all_dtypes()) {
    for (const ReduceConfig& config : reduce_configs()) {
      for (Layout layout : all_layouts()) {
        for (bool keepdim : {false, true}) {
          if (keepdim && !config.dims) continue;
          for (bool specials : {false, true}) {
            if (specials && (!is_floating(dtype) || layout != Layout::Contiguous)) continue;
            const Domain domain =
                op == OpId::sum || op == OpId::mean ? Domain::Any : Domain::SmallInt;  // ties
            Pair x = make_input(config.shape, dtype, layout, domain, specials);
            std::string what = std::string(op_name(op)) + " of " + label(x.cpu, layout) +
                               (config.dims ? " over some dims" : " over all") +
                               (keepdim ? " keepdim" : "") + (specials ? " with NaN/inf" : "");
            const Shape dims = config.dims.value_or(Shape{});
            std::function<std::vector<Tensor>(const Tensor&)> run;
            switch (op) {
              case OpId::sum:
                run = [&](const Tensor& t) {
                  return std::vector<Tensor>{config.dims ? t.sum(dims, keepdim) : t.sum()};
                };
                break;
              case OpId::mean:
                run = [&](const Tensor& t) {
                  return std::vector<Tensor>{config.dims ? t.mean(dims, keepdim) : t.mean()};
                };
                break;
              default: {
                const bool is_max = op == OpId::max;
                run = [&, is_max](const Tensor& t) -> std::vector<Tensor> {
                  if (!config.dims) {
                    return {is_max ? t.max() : t.min(), is_max ? t.argmax() : t.argmin()};
                  }
                  if (dims.size() == 1) {
                    auto [v, i] = is_max ? t.max(dims[0], keepdim) : t.min(dims[0], keepdim);
                    return {v, i};
                  }
                  return {};  // max/min over several dims is not part of the API
                };
              }
            }
            std::vector<Tensor> expected_type;
            try {
              expected_type = run(x.cpu);
            } catch (const Error& e) {
              INFO(what << ": the CPU said " << e.what());
              CHECK_THROWS_AS(run(x.gpu), Error);
              continue;
            }
            if (expected_type.empty()) continue;
            PoisonScope poison;
            const std::vector<Tensor> got = run(x.gpu);
            const std::vector<Tensor> want = run(widen(x.cpu));
            REQUIRE(got.size() == want.size());
            Tolerance tol{0, 0};
            if (op == OpId::sum || op == OpId::mean) {
              const double scale = abs_sum(x.cpu);
              const double count = std::max<double>(
                  1, static_cast<double>(x.cpu.numel()) /
                         std::max<double>(1, static_cast<double>(want[0].numel())));
              // float64: the CPU reference adds each output's `count` terms in order (row by
              // row for a reduction over outer dims), so its own rounding reaches count
              // epsilons of the magnitudes summed (20000 equal terms of an expanded input
              // show it); the GPU's tree is far closer than that.
              tol = dtype == kFloat64
                        ? Tolerance{1e-13, std::max(1e-13, 1.2e-16 * count) * scale}
                        : Tolerance{1e-6, 1e-6 * scale / (op == OpId::mean ? count : 1)};
            }
            CHECK(got[0].dtype() == expected_type[0].dtype());
            check_close(got[0], want[0], tol, what + " (values)");
            if (got.size() > 1) check_close(got[1], want[1], tol, what + " (indices)");
          }
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("gpu sweep: every Kernel op has a case here", "[sweep]") {
  std::set<OpId> covered;
  for (const auto& [op, c] : unary_cases()) covered.insert(op);
  for (const auto& [op, c] : binary_cases()) covered.insert(op);
  for (OpId op : {OpId::where,
                  OpId::sum,
                  OpId::mean,
                  OpId::max,
                  OpId::min,
                  OpId::softmax,
                  OpId::log_softmax,
                  OpId::fill,
                  OpId::arange,
                  OpId::copy,
                  OpId::rand,
                  OpId::randn,
                  OpId::matmul,
                  OpId::layer_norm,
                  OpId::layer_norm_backward,
                  OpId::index_select,
                  OpId::index_add,
                  OpId::resample,
                  OpId::resample_backward,
                  OpId::gather,
                  OpId::scatter_add,
                  OpId::sort,
                  OpId::cumsum,
                  OpId::cumprod,
                  OpId::prod,
                  OpId::searchsorted,
                  OpId::cummax,
                  OpId::cummin,
                  OpId::logcumsumexp,
                  OpId::scatter_reduce,
                  OpId::nextafter,
                  OpId::lu_factor,
                  OpId::lu_solve,
                  OpId::cholesky_factor,
                  OpId::triangular_solve}) {
    // fill..matmul in this file, test_runtime.cpp and test_matmul.cpp; softmax in
    // test_softmax.cpp; layer_norm in test_norm.cpp; index_select, index_add, resample, gather,
    // scatter_add, scatter_reduce in test_index.cpp; sort, the scans, prod and searchsorted in
    // test_sort.cpp; nextafter below (its float64 reference would hide a float32 step);
    // lu_factor, lu_solve, cholesky_factor and triangular_solve in test_compose.cpp
    covered.insert(op);
  }
  for (size_t i = 0; i < kNumOps; ++i) {
    auto op = static_cast<OpId>(i);
    if (op_kind(op) != OpKind::Kernel) continue;
    INFO("op " << op_name(op));
    CHECK(covered.count(op) == 1);
    CHECK(supports(op, kCUDA));
  }
}

TEST_CASE("gpu sweep: unary ops", "[sweep]") {
  for (const auto& [op, c] : unary_cases()) {
    DYNAMIC_SECTION(op_name(op)) { sweep_unary(op); }
  }
}

TEST_CASE("gpu sweep: binary ops and comparisons", "[sweep]") {
  for (const auto& [op, c] : binary_cases()) {
    DYNAMIC_SECTION(op_name(op)) { sweep_binary(op); }
  }
}

TEST_CASE("gpu sweep: where", "[sweep]") { sweep_where(); }

TEST_CASE("gpu sweep: reductions", "[sweep]") {
  for (OpId op : {OpId::sum, OpId::mean, OpId::max, OpId::min}) {
    DYNAMIC_SECTION(op_name(op)) { sweep_reductions(op); }
  }
}
