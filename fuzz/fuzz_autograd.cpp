// fuzz_autograd.cpp: libFuzzer target for the autograd tape. The input bytes decode into 1-3
// float64 leaves (small shapes, some requiring grad) and a program of up to kMaxSteps
// differentiable ops (elementwise, broadcasting binaries, sigmoid's and tanh's gradient ops,
// where, reductions, softmax, matmul, views, cat and stack, layer_norm, in-place ops);
// wick::autograd::gradcheck (central differences) must agree with backward() on every element.
// Programs that come near a point where the function is not differentiable (relu or abs at 0, clamp
// bounds, ties in max/maximum) or ill-conditioned (log/sqrt/pow near 0, division by a small number,
// values above 1e3) are skipped, since finite differences are not meaningful there. A second check:
// two backward() calls with retain_graph accumulate twice the gradient, and leaves that do not
// require grad get none. Run by .ci/fuzz.sh; see docs/reliability.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "byte_reader.hpp"
#include "wick/wick.hpp"

namespace {

using wick::Shape;
using wick::Tensor;
using wick::fuzz::ByteReader;

constexpr int kMaxSteps = 8;
// Programs that hit a bug already reported (with a failing test in tests/regress/) are cut
// short when WICK_FUZZ_SKIP_KNOWN is defined; each skip names its test.
#if defined(WICK_FUZZ_SKIP_KNOWN)
[[maybe_unused]] constexpr bool kSkipKnown = true;
#else
[[maybe_unused]] constexpr bool kSkipKnown = false;
#endif
constexpr double kMargin = 1e-3;       // distance kept from kinks and ties
constexpr double kMinPositive = 0.05;  // log/sqrt/pow bases and divisors stay above this
constexpr double kMaxMagnitude = 1e3;

enum class Op {
  neg,
  abs,
  exp,
  log,
  sqrt,
  relu,
  sigmoid,
  tanh,
  pow_scalar,
  clamp,
  add,
  sub,
  mul,
  div,
  pow,
  maximum,
  minimum,
  sigmoid_backward,
  tanh_backward,
  where,
  add_scalar,
  rsub_scalar,
  mul_scalar,
  rdiv_scalar,
  sum,
  sum_dims,
  mean,
  amax,
  max_all,
  max_dim,
  min_dim,
  softmax,
  log_softmax,
  matmul,
  reshape,
  transpose,
  permute,
  expand,
  narrow,
  select,
  unsqueeze,
  squeeze,
  flatten,
  diagonal,
  unfold,
  clone,
  cat,
  stack,
  layer_norm,
  // In place, on a fresh copy of a (t = a * 1): recorded by the tape as PyTorch records them.
  add_,
  sub_,
  mul_,
  div_,
  clamp_,
  copy_,
  count
};
const char* kNames[] = {
    "neg",           "abs",      "exp",         "log",         "sqrt",       "relu",
    "sigmoid",       "tanh",     "pow_scalar",  "clamp",       "add",        "sub",
    "mul",           "div",      "pow",         "maximum",     "minimum",    "sigmoid_backward",
    "tanh_backward", "where",    "add_scalar",  "rsub_scalar", "mul_scalar", "rdiv_scalar",
    "sum",           "sum_dims", "mean",        "amax",        "max_all",    "max_dim",
    "min_dim",       "softmax",  "log_softmax", "matmul",      "reshape",    "transpose",
    "permute",       "expand",   "narrow",      "select",      "unsqueeze",  "squeeze",
    "flatten",       "diagonal", "unfold",      "clone",       "cat",        "stack",
    "layer_norm",    "add_",     "sub_",        "mul_",        "div_",       "clamp_",
    "copy_"};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<size_t>(Op::count));

struct Step {
  Op op;
  int a = 0, b = 0;        // operand value indices
  int64_t i0 = 0, i1 = 0;  // dims, starts, lengths
  bool flag = false;       // keepdim, clamp sides
  double s0 = 0, s1 = 0;   // scalars
  Shape shape;             // reshape / expand / permute / sum dims
  Tensor cond;             // where's mask (bool, no grad)
};

std::string describe(const Step& s) {
  std::ostringstream o;
  o << kNames[static_cast<int>(s.op)] << "(v" << s.a << ", v" << s.b << ", i0=" << s.i0
    << ", i1=" << s.i1 << ", flag=" << s.flag << ", s0=" << s.s0 << ", s1=" << s.s1
    << ", shape=" << s.shape << ")";
  return o.str();
}

// The in-place steps: t = a * 1 (a new tensor with a's history), then t op= b.
Tensor apply_inplace(const Step& s, const Tensor& a, const Tensor& b) {
  Tensor t = a * 1.0;
  switch (s.op) {
    case Op::add_:
      return s.flag ? t.add_(b, s.s0) : t.add_(b);
    case Op::sub_:
      return s.flag ? t.sub_(b, s.s0) : t.sub_(b);
    case Op::mul_:
      return s.i1 == 0 ? t.mul_(t) : t.mul_(b);  // by itself: the old value on both sides
    case Op::div_:
      return t.div_(b);
    case Op::clamp_:
      return t.clamp_(s.flag ? std::optional<wick::Scalar>(s.s0) : std::nullopt,
                      s.i0 ? std::optional<wick::Scalar>(s.s1) : std::nullopt);
    case Op::copy_:
      return t.copy_(b);
    default:
      break;
  }
  return t;
}

Tensor apply_step(const Step& s, const std::vector<Tensor>& v) {
  const Tensor& a = v[static_cast<size_t>(s.a)];
  const Tensor& b = v[static_cast<size_t>(s.b)];
  switch (s.op) {
    case Op::neg:
      return -a;
    case Op::abs:
      return a.abs();
    case Op::exp:
      return a.exp();
    case Op::log:
      return a.log();
    case Op::sqrt:
      return a.sqrt();
    case Op::relu:
      return a.relu();
    case Op::sigmoid:
      return a.sigmoid();
    case Op::tanh:
      return a.tanh();
    case Op::pow_scalar:
      return a.pow(s.s0);
    case Op::clamp:
      return wick::clamp(a, s.flag ? std::optional<wick::Scalar>(s.s0) : std::nullopt,
                         s.i0 ? std::optional<wick::Scalar>(s.s1) : std::nullopt);
    case Op::add:
      return s.flag ? a.add(b, s.s0) : a + b;
    case Op::sub:
      return s.flag ? a.sub(b, s.s0) : a - b;
    case Op::mul:
      return a * b;
    case Op::div:
      return a / b;
    case Op::pow:
      return wick::pow(a, b);
    case Op::maximum:
      return wick::maximum(a, b);
    case Op::minimum:
      return wick::minimum(a, b);
    case Op::sigmoid_backward:
      return wick::sigmoid_backward(a, b);
    case Op::tanh_backward:
      return wick::tanh_backward(a, b);
    case Op::where:
      return wick::where(s.cond, a, b);
    case Op::add_scalar:
      return a + s.s0;
    case Op::rsub_scalar:
      return s.s0 - a;
    case Op::mul_scalar:
      return a * s.s0;
    case Op::rdiv_scalar:
      return s.s0 / a;
    case Op::sum:
      return a.sum();
    case Op::sum_dims:
      return a.sum(s.shape, s.flag);
    case Op::mean:
      return s.i1 ? a.mean(s.i0, s.flag) : a.mean();
    case Op::amax:
      return a.amax(s.i0, s.flag);
    case Op::max_all:
      return s.flag ? a.max() : a.min();
    case Op::max_dim:
      return std::get<0>(a.max(s.i0, s.flag));
    case Op::min_dim:
      return std::get<0>(wick::min(a, s.i0, s.flag));
    case Op::softmax:
      return a.softmax(s.i0);
    case Op::log_softmax:
      return wick::log_softmax(a, s.i0);
    case Op::matmul:
      return wick::matmul(a, b);
    case Op::reshape:
      return a.reshape(s.shape);
    case Op::transpose:
      return a.transpose(s.i0, s.i1);
    case Op::permute:
      return a.permute(s.shape);
    case Op::expand:
      return a.expand(s.shape);
    case Op::narrow:
      return a.narrow(s.i0, s.i1, s.flag ? 1 : 2);
    case Op::select:
      return a.select(s.i0, s.i1);
    case Op::unsqueeze:
      return a.unsqueeze(s.i0);
    case Op::squeeze:
      return s.flag ? a.squeeze() : a.squeeze(s.i0);
    case Op::flatten:
      return a.flatten(s.i0, s.i1);
    case Op::diagonal: {  // the plane of dim i0 and the next one, offset i1
      const int64_t nd = std::max<int64_t>(a.dim(), 1), first = (s.i0 + nd) % nd;
      return a.diagonal(s.i1, first, (first + 1) % nd);
    }
    case Op::unfold:  // windows of 1 or 2, 1 to 3 apart (overlapping when 1 apart)
      return a.unfold(s.i0, s.flag ? 1 : 2, (s.i1 + std::max<int64_t>(a.dim(), 1)) % 3 + 1);
    case Op::clone:
      return s.flag ? a.clone() : a.contiguous();
    case Op::cat:  // two operands, or a listed twice (two edges into one value)
      return s.flag ? wick::cat({a, b}, s.i0) : wick::cat({a, b, a}, s.i0);
    case Op::stack:
      return s.flag ? wick::stack({a, b}, s.i0) : wick::stack({b, a, a}, s.i1);
    case Op::layer_norm: {  // over the last 1 or 2 dims; b as weight and/or bias where it fits
      const int64_t k = s.flag && a.dim() >= 2 ? 2 : 1;
      const Shape norm = a.dim() >= k ? Shape(a.sizes().end() - k, a.sizes().end()) : Shape{1};
      const bool fits = b.sizes() == norm;
      const Tensor weight = fits && s.i0 >= 0 ? b : Tensor();
      const Tensor bias = fits && s.i1 >= 0 ? b : Tensor();
      return wick::layer_norm(a, norm, weight, bias, 1e-3);
    }
    default:
      return apply_inplace(s, a, b);
  }
  return a;
}

double min_of(const Tensor& t) {
  if (t.numel() == 0) return std::numeric_limits<double>::infinity();
  return t.to(wick::kFloat64).min().item<double>();
}

// Smallest gap between the extreme of each group and the other members (0 on a tie).
double extreme_gap(const Tensor& x, std::optional<int64_t> dim, bool is_max) {
  Tensor y = is_max ? x : -x;
  Tensor m = dim ? y.amax(*dim, true) : y.max();
  Tensor diff = m - y;  // >= 0, 0 at the extreme
  Tensor ties =
      dim ? wick::eq(diff, 0).to(wick::kInt64).sum(*dim) : wick::eq(diff, 0).to(wick::kInt64).sum();
  if (ties.max().item<int64_t>() > 1) return 0;
  Tensor others = wick::where(wick::gt(diff, 0), diff, std::numeric_limits<double>::infinity());
  return min_of(others);
}

// How far step s (run on v, giving out) stays from points where finite differences fail.
bool well_conditioned(const Step& s, const std::vector<Tensor>& v, const Tensor& out) {
  wick::NoGradGuard no_grad;
  const Tensor& a = v[static_cast<size_t>(s.a)];
  const Tensor& b = v[static_cast<size_t>(s.b)];
  if (out.numel() > 0) {
    Tensor mag = out.abs();
    if (!wick::equal(mag, mag) || mag.max().item<double>() > kMaxMagnitude) return false;
  }
  switch (s.op) {
    case Op::abs:
    case Op::relu:
      return min_of(a.abs()) > kMargin;
    case Op::clamp:
    case Op::clamp_:
      return (!s.flag || min_of((a - s.s0).abs()) > kMargin) &&
             (!s.i0 || min_of((a - s.s1).abs()) > kMargin);
    case Op::maximum:
    case Op::minimum:
      return min_of((a - b).abs()) > kMargin;
    case Op::log:
    case Op::sqrt:
      return min_of(a) > kMinPositive;
    case Op::pow:
      return min_of(a) > kMinPositive;
    case Op::pow_scalar:
      if (s.s0 == std::floor(s.s0)) return s.s0 >= 0 || min_of(a.abs()) > kMinPositive;
      return min_of(a) > kMinPositive;
    case Op::div:
    case Op::div_:
      return min_of(b.abs()) > kMinPositive;
    case Op::rdiv_scalar:
      return min_of(a.abs()) > kMinPositive;
    case Op::amax:
    case Op::max_dim:
      return a.dim() == 0 || extreme_gap(a, s.i0, true) > kMargin;
    case Op::min_dim:
      return a.dim() == 0 || extreme_gap(a, s.i0, false) > kMargin;
    case Op::max_all:
      return extreme_gap(a, std::nullopt, s.flag) > kMargin;
    case Op::layer_norm: {
      // Rows whose variance is small next to eps curve sharply (d xhat / dx ~ 1/sqrt(eps),
      // compounding through chained layer_norms): keep rows of 2 or more spread out.
      const int64_t k = s.flag && a.dim() >= 2 ? 2 : 1;
      if (a.dim() < k || a.numel() == 0) return true;
      int64_t n = 1;
      for (int64_t d = a.dim() - k; d < a.dim(); ++d) n *= a.size(d);
      if (n < 2) return true;
      const Tensor rows = a.reshape({-1, n});
      const Tensor centred = rows - rows.mean(1, true);
      return min_of((centred * centred).mean(1)) > kMinPositive;
    }
    default:
      return true;
  }
}

class Program {
 public:
  Program(const uint8_t* data, size_t size) : in_(data, size) {}

  // Decodes leaves and steps; false when the input does not give a usable program.
  bool decode() {
    const int n_leaves = 1 + static_cast<int>(in_.below(3));
    for (int i = 0; i < n_leaves; ++i) {
      Shape shape;
      const uint32_t rank = in_.below(4);
      for (uint32_t d = 0; d < rank; ++d) shape.push_back(1 + in_.below(3));
      std::vector<double> values(static_cast<size_t>(wick::checked_numel(shape, "fuzz")));
      for (double& x : values) x = (static_cast<int>(in_.byte()) - 128) / 50.0;
      Tensor t = wick::tensor(values, shape, wick::TensorOptions(wick::kFloat64));
      requires_.push_back(i == 0 || in_.flag());
      leaves_.push_back(t);
    }
    std::vector<Tensor> v = leaves_;
    for (Tensor& t : v) t = t.detach();
    wick::NoGradGuard no_grad;
    for (int k = 0; k < kMaxSteps && !in_.done(); ++k) {
      Step s = next_step(v);
      Tensor out;
      try {
        out = apply_step(s, v);
      } catch (const wick::Error&) {
        continue;  // a step that does not fit the shapes is dropped
      }
      if (out.numel() == 0 || out.numel() > 12) continue;
      if (!well_conditioned(s, v, out)) return false;
      steps_.push_back(s);
      v.push_back(out);
    }
    return !steps_.empty();
  }

  size_t steps() const { return steps_.size(); }
  size_t inplace_steps() const {
    return static_cast<size_t>(std::count_if(steps_.begin(), steps_.end(),
                                             [](const Step& s) { return s.op >= Op::add_; }));
  }

  Tensor run(const std::vector<Tensor>& leaves) const {
    std::vector<Tensor> v = leaves;
    for (const Step& s : steps_) v.push_back(apply_step(s, v));
    return v.back();
  }

  void check() {
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < leaves_.size(); ++i) {
      Tensor t = leaves_[i].clone();
      if (requires_[i]) t.requires_grad_(true);
      inputs.push_back(t);
    }
    std::string result;
    try {
      result = wick::autograd::gradcheck([this](const std::vector<Tensor>& x) { return run(x); },
                                         inputs);
    } catch (const wick::Error& e) {
      fail(std::string("gradcheck threw ") + e.what());
    }
    if (result == "the output does not require grad") return;
    if (!result.empty()) fail(result);
    // backward twice with retain_graph accumulates twice the gradient.
    Tensor y = run(inputs);
    if (!y.requires_grad()) return;
    Tensor seed = wick::ones_like(y);
    y.backward(seed, true);
    std::vector<std::vector<double>> first;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!requires_[i] && inputs[i].grad().defined())
        fail("a leaf without requires_grad got a grad");
      first.push_back(inputs[i].grad().defined() ? inputs[i].grad().to_vector<double>()
                                                 : std::vector<double>());
    }
    y.backward(seed, false);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].grad().defined()) continue;
      std::vector<double> second = inputs[i].grad().to_vector<double>();
      for (size_t j = 0; j < second.size(); ++j) {
        // Exactly 2x when one edge reaches the leaf; a leaf used twice accumulates per edge
        // ((ga + gb) + ga) + gb, which may differ from 2 (ga + gb) in the last bits.
        if (!(std::fabs(second[j] - 2 * first[i][j]) <= 1e-12 * (1 + std::fabs(first[i][j])))) {
          fail("second backward gave " + std::to_string(second[j]) + " for input " +
               std::to_string(i) + " element " + std::to_string(j) + ", expected 2 * " +
               std::to_string(first[i][j]));
        }
      }
    }
    // A third backward through the freed graph: an AutogradError where a node saved tensors
    // (as PyTorch, a graph that saved none may be walked again), never a crash.
    try {
      y.backward(seed, false);
    } catch (const wick::Error&) {
    }
  }

 private:
  ByteReader in_;
  std::vector<Tensor> leaves_;
  std::vector<bool> requires_;
  std::vector<Step> steps_;

  [[noreturn]] void fail(const std::string& what) const {
    std::fprintf(stderr, "\nfuzz_autograd: FAILED: %s\n  leaves:", what.c_str());
    for (size_t i = 0; i < leaves_.size(); ++i) {
      std::ostringstream o;
      o << leaves_[i];
      std::fprintf(stderr, "\n    v%zu%s = %s", i, requires_[i] ? " (requires grad)" : "",
                   o.str().c_str());
    }
    std::fprintf(stderr, "\n  steps:");
    for (size_t i = 0; i < steps_.size(); ++i) {
      std::fprintf(stderr, "\n    v%zu = %s", i + leaves_.size(), describe(steps_[i]).c_str());
    }
    std::fprintf(stderr, "\n");
    std::abort();
  }

  Step next_step(const std::vector<Tensor>& v) {
    Step s;
    s.op = static_cast<Op>(in_.below(static_cast<uint32_t>(Op::count)));
    const uint32_t n = static_cast<uint32_t>(v.size());
    // Operands lean towards the newest values, so programs chain.
    s.a = static_cast<int>(in_.flag() ? n - 1 : in_.below(n));
    s.b = static_cast<int>(in_.below(n));
    const Tensor& a = v[static_cast<size_t>(s.a)];
    const int64_t nd = std::max<int64_t>(a.dim(), 1);
    s.i0 = static_cast<int64_t>(in_.below(static_cast<uint32_t>(2 * nd))) - nd;  // a valid dim
    s.i1 = static_cast<int64_t>(in_.below(static_cast<uint32_t>(2 * nd))) - nd;
    s.flag = in_.flag();
    static constexpr double kScalars[8] = {2.0, 3.0, 0.5, -1.0, 1.5, -0.75, 0.0, 1.0};
    s.s0 = kScalars[in_.below(8)];
    s.s1 = kScalars[in_.below(8)] + 0.25;
    switch (s.op) {
      case Op::narrow:
      case Op::select:
        s.i1 = a.dim() == 0 ? 0 : static_cast<int64_t>(in_.below(3));
        break;
      case Op::clamp:
      case Op::clamp_:
        s.i0 = in_.flag() || !s.flag;  // at least one side
        if (s.flag && s.i0 && s.s0 > s.s1) std::swap(s.s0, s.s1);
        break;
      case Op::mean:
        s.i1 = in_.flag();
        break;
      case Op::sum_dims:
        for (int64_t d = 0; d < a.dim(); ++d) {
          if (in_.flag()) s.shape.push_back(d - (in_.flag() ? a.dim() : 0));
        }
        break;
      case Op::reshape: {
        const int64_t numel = a.numel();
        // A factorisation of numel, sometimes with -1.
        int64_t rest = numel;
        for (int64_t f : {2, 3}) {
          while (rest % f == 0 && in_.flag()) {
            s.shape.push_back(f);
            rest /= f;
          }
        }
        s.shape.push_back(in_.flag() ? -1 : rest);
        break;
      }
      case Op::permute: {
        std::vector<int64_t> dims;
        for (int64_t d = 0; d < a.dim(); ++d) dims.push_back(d);
        for (size_t i = dims.size(); i > 1; --i) {
          std::swap(dims[i - 1], dims[in_.below(static_cast<uint32_t>(i))]);
        }
        s.shape = Shape(dims);
        break;
      }
      case Op::expand: {
        if (in_.flag()) s.shape.push_back(1 + in_.below(2));
        for (int64_t d = 0; d < a.dim(); ++d) {
          const int64_t size = a.sizes()[d];
          s.shape.push_back(size == 1 ? 1 + in_.below(3) : (in_.flag() ? -1 : size));
        }
        break;
      }
      case Op::where: {
        const Shape shape = in_.flag() ? a.sizes() : Shape{};
        std::vector<bool> mask(static_cast<size_t>(wick::checked_numel(shape, "fuzz")));
        for (size_t i = 0; i < mask.size(); ++i) mask[i] = in_.flag();
        s.cond = wick::tensor(mask, shape);
        break;
      }
      default:
        break;
    }
    return s;
  }
};

}  // namespace

// With WICK_FUZZ_STATS set, the process prints at exit how many inputs decoded to a program
// that was gradchecked (the rest were skipped: no usable step, or too close to a kink).
struct Stats {
  uint64_t inputs = 0, checked = 0, steps = 0, inplace_steps = 0;
  ~Stats() {
    if (std::getenv("WICK_FUZZ_STATS") != nullptr) {
      std::fprintf(stderr,
                   "fuzz_autograd stats: %llu inputs, %llu gradchecked (%llu steps, %llu in "
                   "place)\n",
                   static_cast<unsigned long long>(inputs),
                   static_cast<unsigned long long>(checked), static_cast<unsigned long long>(steps),
                   static_cast<unsigned long long>(inplace_steps));
    }
  }
} g_stats;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ++g_stats.inputs;
  Program program(data, size);
  bool usable = false;
  try {
    usable = program.decode();
  } catch (const wick::Error&) {
    usable = false;
  }
  if (usable) {
    ++g_stats.checked;
    g_stats.steps += program.steps();
    g_stats.inplace_steps += program.inplace_steps();
    program.check();
  }
  return 0;
}
