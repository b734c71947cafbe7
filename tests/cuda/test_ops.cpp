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

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s{{}, {0}, {1, 0, 3}, {20}, {812}, big2d()};
  return s;
}

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
    for (const Shape& shape : shapes()) {
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
    for (const Shape& shape : shapes()) {
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
    for (const Shape& shape : shapes()) {
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
                  OpId::lu_solve}) {
    // fill..matmul in this file, test_runtime.cpp and test_matmul.cpp; softmax in
    // test_softmax.cpp; layer_norm in test_norm.cpp; index_select, index_add, gather,
    // scatter_add, scatter_reduce in test_index.cpp; sort, the scans, prod and searchsorted in
    // test_sort.cpp; nextafter below (its float64 reference would hide a float32 step);
    // lu_factor and lu_solve in test_compose.cpp
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

TEST_CASE("gpu sweep: fill, copy and casts between every dtype pair", "[sweep]") {
  PoisonScope poison;
  for (Dtype dtype : all_dtypes()) {
    // Factories and fill_ on a strided view.
    for (const Shape& shape : shapes()) {
      check_close(full(shape, 3, TensorOptions().dtype(dtype).device(kCUDA)),
                  full(shape, 3, TensorOptions().dtype(dtype)), {},
                  "full " + describe(full(shape, 3, dtype)));
      check_close(zeros(shape, TensorOptions().dtype(dtype).device(kCUDA)), zeros(shape, dtype), {},
                  "zeros");
    }
    Pair x = make_input(big2d(), dtype, Layout::Contiguous);
    x.cpu.slice(1, 1, std::nullopt, 3).fill_(7);
    x.gpu.slice(1, 1, std::nullopt, 3).fill_(7);
    check_close(x.gpu, x.cpu, {}, "fill_ on a view with a step");
    // Casts: every source layout, every target dtype; values include NaN, inf and numbers
    // beyond int64 (which become INT64_MIN, as on the CPU).
    for (Dtype to : all_dtypes()) {
      for (Layout layout : all_layouts()) {
        for (Domain domain : {Domain::Any, Domain::Huge}) {
          Pair s = make_input(big2d(), dtype, layout, domain, true);
          check_close(s.gpu.to(to), s.cpu.to(to), {},
                      "cast " + label(s.cpu, layout) + " to " + dtype_name(to));
        }
      }
      // copy_ into a strided destination of another dtype.
      Pair dst = make_input({40, 30}, to, Layout::Strided);
      Pair src = make_input({40, 30}, dtype, Layout::Transposed);
      dst.cpu.copy_(src.cpu);
      dst.gpu.copy_(src.gpu);
      check_close(
          dst.gpu, dst.cpu, {},
          std::string("copy_ ") + dtype_name(dtype) + " into a " + "strided " + dtype_name(to));
    }
    // Broadcasting copy_ and clone of expanded / transposed tensors.
    Pair row = make_input({1, 917}, dtype, Layout::Contiguous);
    Tensor dst_cpu = empty({50, 917}, dtype),
           dst_gpu = empty({50, 917}, TensorOptions().dtype(dtype).device(kCUDA));
    dst_cpu.copy_(row.cpu);
    dst_gpu.copy_(row.gpu);
    check_close(dst_gpu, dst_cpu, {}, "broadcasting copy_");
    for (Layout layout : all_layouts()) {
      Pair t = make_input(big2d(), dtype, layout);
      check_close(t.gpu.clone(), t.cpu.clone(), {}, "clone " + label(t.cpu, layout));
      check_close(t.gpu.contiguous(), t.cpu.contiguous(), {}, "contiguous");
    }
  }
}

TEST_CASE("gpu sweep: arange gives the CPU's values, bit for bit", "[sweep]") {
  PoisonScope poison;
  const int64_t big = small_run() ? 1000 : 3 * 32768 + 7;
  const int64_t top = std::numeric_limits<int64_t>::max();
  struct Case {
    Scalar start, end, step;
    Dtype dtype;
  };
  for (const Case& c : std::vector<Case>{{0, big, 1, kInt64},
                                         {top - 30, top, 3, kInt64},
                                         {int64_t{1} << 53, (int64_t{1} << 53) + 9, 2, kFloat64},
                                         {0, big, 1, kFloat32},
                                         {-3.5, 1000.25, 0.37, kFloat32},
                                         {-3.5, 1000.25, 0.37, kFloat64},
                                         {0.1, 0.3 * static_cast<double>(big), 0.3, kFloat64},
                                         {5.0, -2.0, -0.25, kBFloat16},
                                         {1e8, 1e8 + 100, 1, kFloat32}}) {
    const Tensor cpu = arange(c.start, c.end, c.step, TensorOptions(c.dtype));
    const Tensor gpu = arange(c.start, c.end, c.step, TensorOptions(c.dtype).device(kCUDA));
    CHECK(gpu.dtype() == c.dtype);
    check_close(gpu, cpu, {},
                "arange(" + std::to_string(c.start.to_double()) + ", " +
                    std::to_string(c.end.to_double()) + ", " + std::to_string(c.step.to_double()) +
                    ") of " + dtype_name(c.dtype));
  }
  CHECK(arange(0, TensorOptions().device(kCUDA)).numel() == 0);
}

TEST_CASE("gpu sweep: in-place ops on views", "[sweep]") {
  PoisonScope poison;
  for (Dtype dtype : {kInt64, kFloat32, kFloat64}) {
    Pair a = make_input(big2d(), dtype, Layout::Transposed);
    Pair b = make_input({big2d()[1]}, dtype, Layout::Strided);
    a.cpu.add_(b.cpu);
    a.gpu.add_(b.gpu);
    check_close(a.gpu, a.cpu, {kExact32, 0}, "add_ of a broadcast row into a transposed view");
    a.cpu.mul_(3);
    a.gpu.mul_(3);
    check_close(a.gpu, a.cpu, {kExact32, 0}, "mul_ by a scalar");
    Tensor sub_cpu = a.cpu.narrow(0, 2, 5), sub_gpu = a.gpu.narrow(0, 2, 5);
    sub_cpu.sub_(1);
    sub_gpu.sub_(1);
    check_close(a.gpu, a.cpu, {kExact32, 0}, "sub_ on a narrowed view");
  }
}

TEST_CASE("gpu: results take PyTorch's layouts, with the CPU's values", "[sweep]") {
  // tests/layout_cases.hpp: exp(x.t()) is laid out as x.t() on the GPU too, and walked by the
  // strided kernel in the output's memory order (collapse_in_memory_order).
  PoisonScope poison;
  const layout_cases::Inputs cpu{Device(kCPU)}, gpu{Device(kCUDA)};
  for (const auto& [name, make] : layout_cases::cases()) {
    INFO(name);
    const Tensor on_gpu = make(gpu), on_cpu = make(cpu);
    CHECK(on_gpu.is_cuda());
    CHECK(on_gpu.strides() == on_cpu.strides());
    check_close(on_gpu, on_cpu, tol_for(on_cpu.dtype(), 1e-6, 1e-14), name);
  }
  // Large enough for many blocks: the transposed result and its inputs, in place too.
  Pair a = make_input(big2d(), kFloat32, Layout::Transposed);
  Pair b = make_input(big2d(), kFloat32, Layout::Transposed);
  const Tensor product = a.gpu * b.gpu;
  CHECK(product.strides() == a.gpu.strides());
  check_close(product, a.cpu * b.cpu, {kExact32, 0}, "a.t() * b.t()");
  a.gpu.mul_(b.gpu);
  a.cpu.mul_(b.cpu);
  check_close(a.gpu, a.cpu, {kExact32, 0}, "a.t().mul_(b.t())");
}

TEST_CASE("gpu: add and sub with alpha round once, as on the CPU", "[sweep]") {
  PoisonScope poison;
  // a + alpha * b is one fused multiply-add on both devices (PyTorch's rounding), so the bits
  // agree, contiguous (the vectorised paths) or not.
  for (Dtype dtype : {kFloat32, kFloat64}) {
    for (Layout layout : all_layouts()) {
      Pair a = make_input(big2d(), dtype, layout);
      Pair b = make_input(big2d(), dtype, Layout::Contiguous);
      check_close(add(a.gpu, b.gpu, 0.1), add(a.cpu, b.cpu, 0.1), {},
                  "add with alpha 0.1, " + label(a.cpu, layout));
      check_close(sub(b.gpu, a.gpu, 0.3), sub(b.cpu, a.cpu, 0.3), {},
                  "sub with alpha 0.3, " + label(a.cpu, layout));
    }
    Pair p = make_input(big2d(), dtype, Layout::Contiguous);
    Pair g = make_input(big2d(), dtype, Layout::Contiguous);
    p.gpu.add_(g.gpu, -0.01);
    p.cpu.add_(g.cpu, -0.01);
    check_close(p.gpu, p.cpu, {}, "add_ with alpha -0.01 (SGD's update)");
    // A broadcast row and a 0-d operand (stride 0 on both devices).
    Pair row = make_input({1, big2d()[1]}, dtype, Layout::Contiguous);
    Pair zero_d = make_input({}, dtype, Layout::Contiguous);
    check_close(add(p.gpu, row.gpu, 0.1), add(p.cpu, row.cpu, 0.1), {}, "add with alpha, a row");
    check_close(sub(p.gpu, zero_d.gpu, 0.3), sub(p.cpu, zero_d.cpu, 0.3), {},
                "sub with alpha, a 0-d operand");
  }
}

TEST_CASE("gpu: relu, tanh and pow keep the sign of zero, as on the CPU", "[sweep]") {
  // The sweep compares values, and -0 == 0: the sign is checked here. PyTorch: relu(-0.) and
  // tanh(-0.) are -0., pow(-0., 0.5) is -0. (sqrt) and pow(-inf, 0.5) is nan.
  for (Dtype dtype : {kFloat32, kFloat64}) {
    const Tensor x = tensor({-0.0, 0.0, std::nan(""), -1.0, 2.0}).to(dtype).to(kCUDA);
    const std::vector<double> got = x.relu().to(kCPU).to(kFloat64).to_vector<double>();
    CHECK(std::signbit(got[0]));
    CHECK((got[0] == 0 && got[1] == 0 && !std::signbit(got[1])));
    CHECK(std::isnan(got[2]));
    CHECK((got[3] == 0 && !std::signbit(got[3]) && got[4] == 2));
    CHECK(std::signbit(x.tanh().to(kCPU).to(kFloat64).to_vector<double>()[0]));
    const Tensor edges = tensor({-0.0, -INFINITY}).to(dtype).to(kCUDA);
    const std::vector<double> root = edges.pow(0.5).to(kCPU).to(kFloat64).to_vector<double>();
    CHECK((root[0] == 0 && std::signbit(root[0]) && std::isnan(root[1])));
    const std::vector<double> rsqrt = edges.pow(-0.5).to(kCPU).to(kFloat64).to_vector<double>();
    CHECK((rsqrt[0] == -INFINITY && std::isnan(rsqrt[1])));
  }
}

TEST_CASE("gpu: bfloat16 casts and ops give the CPU's bits", "[bf16]") {
  PoisonScope poison;
  // Casts from and to every dtype, every layout, with NaN, inf and huge values: the GPU rounds
  // exactly as the CPU (through float32, to nearest even), so the results are compared exactly.
  for (Dtype dtype : all_dtypes()) {
    for (Layout layout : all_layouts()) {
      for (Domain domain : {Domain::Any, Domain::Huge}) {
        Pair s = make_input(big2d(), dtype, layout, domain, true);
        check_close(s.gpu.to(kBFloat16), s.cpu.to(kBFloat16), {},
                    "cast " + label(s.cpu, layout) + " to bfloat16");
        Pair h = make_input(big2d(), kBFloat16, layout, domain, true);
        check_close(h.gpu.to(dtype), h.cpu.to(dtype), {},
                    "cast " + label(h.cpu, layout) + " to " + dtype_name(dtype));
      }
    }
  }
  // Ops compute in float32 and round once on both devices: for the correctly rounded ones
  // (+ - * / sqrt, comparisons) the bits agree; on transposed and broadcast operands too.
  Pair a = make_input(big2d(), kBFloat16, Layout::Transposed);
  Pair b = make_input(big2d(), kBFloat16, Layout::Strided);
  Pair row = make_input({1, big2d()[1]}, kBFloat16, Layout::Contiguous, Domain::Positive);
  check_close(a.gpu + b.gpu, a.cpu + b.cpu, {}, "bfloat16 add");
  check_close(a.gpu * row.gpu, a.cpu * row.cpu, {}, "bfloat16 mul, broadcast row");
  check_close(a.gpu / row.gpu, a.cpu / row.cpu, {}, "bfloat16 div");
  check_close(sqrt(row.gpu), sqrt(row.cpu), {}, "bfloat16 sqrt");
  check_close(a.gpu < b.gpu, a.cpu < b.cpu, {}, "bfloat16 lt");
  check_close((a.gpu + 1.5).dtype() == kBFloat16 ? a.gpu + 1.5 : Tensor(), a.cpu + 1.5, {},
              "bfloat16 + a number stays bfloat16");
  Tensor in_place_gpu = a.gpu.clone(), in_place_cpu = a.cpu.clone();
  in_place_gpu.t().mul_(2.0);
  in_place_cpu.t().mul_(2.0);
  check_close(in_place_gpu, in_place_cpu, {}, "bfloat16 mul_ on a transposed view");
  // Functions and accumulations: within one bfloat16 rounding of the CPU (2^-8 relative) plus
  // float32 accumulation order.
  check_close(exp(a.gpu), exp(a.cpu), {0x1p-7, 0}, "bfloat16 exp");
  check_close(softmax(a.gpu, 1), softmax(a.cpu, 1), {0x1p-7, 1e-6}, "bfloat16 softmax");
  check_close(a.gpu.sum(0), a.cpu.sum(0), {0x1p-7, 1e-3}, "bfloat16 sum over dim 0");
  Pair m = make_input({big2d()[1], 40}, kBFloat16, Layout::Transposed);
  Tensor p_gpu = matmul(a.gpu, m.gpu), p_cpu = matmul(a.cpu, m.cpu);
  CHECK(p_gpu.dtype() == kBFloat16);
  // Each product is a sum of K terms of size ~1: float32 order differences stay near 1e-5 of K.
  check_close(p_gpu, p_cpu, {0x1p-7, 1e-5 * static_cast<double>(big2d()[1])}, "bfloat16 matmul");
}

TEST_CASE(
    "gpu: the composite ops (isnan, logical, masked_fill, tril, logsumexp, split) run on "
    "the device as on the CPU",
    "[sweep]") {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = tensor({{1.0, std::nan(""), inf}, {-inf, 0.0, -2.5}});
  const Tensor d = x.to(kCUDA);
  check_close(d.isnan(), x.isnan(), {}, "isnan");
  check_close(d.isinf(), x.isinf(), {}, "isinf");
  check_close(d.isfinite(), x.isfinite(), {}, "isfinite");
  check_close(logical_xor(d, d.t().narrow(0, 0, 1).t()), logical_xor(x, x.t().narrow(0, 0, 1).t()),
              {}, "logical_xor");
  check_close(d.any(1), x.any(1), {}, "any");
  check_close(d.all(), x.all(), {}, "all");
  const Tensor mask = tensor({true, false, true});
  const Tensor filled = d.masked_fill(mask.to(kCUDA), -1.0);
  CHECK(filled.device().is_cuda());
  check_close(filled, x.masked_fill(mask, -1.0), {}, "masked_fill");
  CHECK_THROWS_AS(d.masked_fill(mask, -1.0), DeviceError);
  const Tensor m = randn({2, 5, 4});
  check_close(m.to(kCUDA).tril(-1), m.tril(-1), {}, "tril");
  check_close(m.to(kCUDA).triu(2), m.triu(2), {}, "triu");
  check_close(m.to(kCUDA).logsumexp(Shape{0, 2}, true), m.logsumexp(Shape{0, 2}, true),
              {1e-6, 1e-6}, "logsumexp");
  check_close(x.to(kCUDA).logsumexp(1), x.logsumexp(1), {1e-6, 1e-6}, "logsumexp with inf");
  const std::vector<Tensor> pieces = m.to(kCUDA).chunk(2, 1);
  REQUIRE(pieces.size() == 2);
  check_close(pieces[1], m.chunk(2, 1)[1], {}, "chunk");
  check_close(d.sin(), x.sin(), {2e-7, 1e-7}, "sin with inf and nan");
}

TEST_CASE("gpu: nextafter steps each dtype as the CPU does, bit for bit", "[sweep]") {
  for (Dtype dtype : {kFloat32, kFloat64, kBFloat16}) {
    for (bool specials : {false, true}) {
      Pair a = make_input({812}, dtype, Layout::Strided, Domain::Any, specials);
      Pair b = make_input({812}, dtype, Layout::Contiguous, Domain::Any, specials);
      const Tensor want = nextafter(a.cpu, b.cpu);
      const Tensor got = nextafter(a.gpu, b.gpu).to(kCPU);
      INFO("nextafter of " << describe(a.cpu) << (specials ? " with NaN/inf" : ""));
      REQUIRE(got.dtype() == dtype);
      CHECK(equal(isnan(got), isnan(want)));
      const Tensor zero = zeros({}, dtype);
      CHECK(equal(where(isnan(want), zero, got), where(isnan(want), zero, want)));
    }
  }
}
