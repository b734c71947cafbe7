// ops_elementwise.cpp: fuzz_ops steps: unary and binary elementwise ops (tensors and numbers,
// alpha), where. Each step draws its operands from the input, predicts the outcome with the
// reference model (ops_reference.hpp) and checks wick against it; see fuzz_ops.cpp.
#include "../tests/special_reference.hpp"
#include "ops_program.hpp"

namespace wick::fuzz::ops {

void Program::unary() {
  const Tensor* a = pick();
  if (a == nullptr) return;
  const Un op = static_cast<Un>(in_.below(34));
  static const char* kNames[] = {
      "neg",   "abs",   "exp",   "log",   "sqrt",       "relu",   "sigmoid", "tanh",  "pow_scalar",
      "clamp", "sin",   "cos",   "rsqrt", "reciprocal", "floor",  "ceil",    "round", "trunc",
      "sign",  "tan",   "asin",  "acos",  "atan",       "sinh",   "cosh",    "log2",  "log10",
      "asinh", "acosh", "atanh", "erfc",  "exp2",       "lgamma", "erfinv"};
  const Ref x = snapshot(*a);
  Scalar e, lo, hi;
  bool has_lo = false, has_hi = false;
  if (op == Un::pow_scalar) e = scalar();
  if (op == Un::clamp) {
    has_lo = in_.flag();
    has_hi = in_.flag();
    lo = scalar();
    hi = scalar();
  }
  g_step = std::string(kNames[static_cast<int>(op)]) + " of " + str(*a);
  if (op == Un::pow_scalar) g_step += " exponent " + str(e);
  if (op == Un::clamp) {
    g_step += " lo " + (has_lo ? str(lo) : "-") + " hi " + (has_hi ? str(hi) : "-");
  }
  Expect expect = Expect::Ok;
  Dtype k = x.dtype;
  const bool is_bool = x.dtype == wick::kBool;
  switch (op) {
    case Un::exp:
    case Un::log:
    case Un::sqrt:
    case Un::sigmoid:
    case Un::tanh:
    case Un::sin:
    case Un::cos:
    case Un::tan:
    case Un::asin:
    case Un::acos:
    case Un::atan:
    case Un::sinh:
    case Un::cosh:
    case Un::log2:
    case Un::log10:
    case Un::asinh:
    case Un::acosh:
    case Un::atanh:
    case Un::erfc:
    case Un::exp2:
    case Un::lgamma:
    case Un::erfinv:
    case Un::rsqrt:
    case Un::reciprocal:
      k = float_of(k);
      break;
    case Un::floor:
    case Un::ceil:
    case Un::round:
    case Un::trunc:
      if (is_bool) expect = Expect::Error;
      break;
    case Un::sign:
      break;
    case Un::neg:
    case Un::abs:
    case Un::relu:
      if (is_bool) expect = Expect::Error;
      break;
    case Un::pow_scalar:
      if (is_bool) expect = Expect::Error;
      k = result_type({Operand{&x, {}}, Operand{nullptr, e}});
      // Integers to negative integer powers (a number exponent): an error, as in PyTorch.
      if (k == wick::kInt64 && e.to_int64() < 0) expect = Expect::Error;
      // A bfloat16 computation converts the exponent to bfloat16, checked (PyTorch's rule).
      if (k == wick::kBFloat16 && overflows(e, k)) expect = Expect::Error;
      break;
    case Un::clamp:
      if (!has_lo && !has_hi) expect = Expect::Error;
      if (is_bool) expect = Expect::Error;
      if (has_lo) k = result_type({Operand{&x, {}}, Operand{nullptr, lo}});
      if (has_hi) k = promote(k, result_type({Operand{&x, {}}, Operand{nullptr, hi}}));
      if ((has_lo && overflows(lo, k)) || (has_hi && overflows(hi, k))) expect = Expect::Error;
      break;
  }
  Ref want{x.sizes, k, {}};
  int ulps = 1;
  if (expect == Expect::Ok) {
    std::optional<V> ev, lov, hiv;
    if (op == Un::pow_scalar) ev = scalar_as(e, k);
    if (op == Un::clamp && has_lo) lov = scalar_as(lo, k);
    if (op == Un::clamp && has_hi) hiv = scalar_as(hi, k);
    for (const V& raw : x.v) {
      V v = cast(raw, x.dtype, k), r;
      if (floating(k)) {
        double d = v.d, out = 0;
        switch (op) {
          case Un::neg:
            out = -d;
            break;
          case Un::abs:
            out = std::fabs(d);
            break;
          case Un::exp:
            out = std::exp(d);
            ulps = 4;
            break;
          case Un::log:
            out = std::log(d);
            ulps = 4;
            break;
          case Un::sqrt:
            out = std::sqrt(d);
            break;
          case Un::relu:
            out = 0.0 > d ? 0.0 : d;  // NaN and -0 pass through (PyTorch)
            break;
          case Un::sigmoid:
            out = 1.0 / (1.0 + std::exp(-d));
            ulps = 8;
            break;
          case Un::tanh:
            out = std::tanh(d);
            ulps = 4;
            break;
          case Un::pow_scalar:
            // PyTorch 1.13's exponents with their own kernels (sqrt, rsqrt, reciprocal) differ
            // from pow at -0 and -inf; 2, 3 and -2 as products agree with pow within the ulps.
            // PyTorch picks those kernels by the number as written, not as rounded to k.
            if (e.to_double() == 0.5) {
              out = std::sqrt(d);
            } else if (e.to_double() == -0.5) {
              out = 1.0 / std::sqrt(d);
            } else if (e.to_double() == -1.0) {
              out = 1.0 / d;
            } else {
              out = std::pow(d, ev->d);
            }
            ulps = 8;
            break;
          case Un::sin:
            out = std::sin(d);
            ulps = 4;  // bfloat16: rounded from a float32 result
            break;
          case Un::cos:
            out = std::cos(d);
            ulps = 4;
            break;
          case Un::tan:
            out = std::tan(d);
            ulps = 4;  // libm's float and double functions, and bfloat16 rounded from float32
            break;
          case Un::asin:
            out = std::asin(d);
            ulps = 4;  // libm's float and double functions, and bfloat16 rounded from float32
            break;
          case Un::acos:
            out = std::acos(d);
            ulps = 4;  // libm's float and double functions, and bfloat16 rounded from float32
            break;
          case Un::atan:
            out = std::atan(d);
            ulps = 4;  // libm's float and double functions, and bfloat16 rounded from float32
            break;
          case Un::sinh:
            out = std::sinh(d);
            ulps = 4;  // libm's float and double functions, and bfloat16 rounded from float32
            break;
          case Un::cosh:
            out = std::cosh(d);
            ulps = 4;  // libm's float and double functions, and bfloat16 rounded from float32
            break;
          case Un::log2:
            out = std::log2(d);
            ulps = 4;  // libm's float and double functions, and bfloat16 rounded from float32
            break;
          case Un::log10:
            out = std::log10(d);
            ulps = 4;  // libm's float and double functions, and bfloat16 rounded from float32
            break;
          // The special functions: float64 inside on wick's side, rounded once; the C library's
          // float64 functions here (erfinv: tests/special_reference.hpp's long double one).
          case Un::asinh:
            out = std::asinh(d);
            ulps = 2;
            break;
          case Un::acosh:
            out = std::acosh(d);
            ulps = 2;
            break;
          case Un::atanh:
            out = std::atanh(d);
            ulps = 2;
            break;
          case Un::erfc:
            out = std::erfc(d);
            ulps = 2;
            break;
          case Un::exp2:
            out = std::exp2(d);
            ulps = 2;
            break;
          case Un::lgamma:
            out = std::lgamma(d);
            ulps = 2;
            break;
          case Un::erfinv:
            out = special_ref::erfinv(d);
            ulps = 4;
            break;
          case Un::rsqrt:
            out = 1.0 / std::sqrt(d);
            ulps = 2;
            break;
          case Un::reciprocal:
            out = 1.0 / d;
            break;
          case Un::floor:
            out = std::floor(d);
            break;
          case Un::ceil:
            out = std::ceil(d);
            break;
          case Un::round:
            out = std::nearbyint(d);  // ties to even
            break;
          case Un::trunc:
            out = std::trunc(d);
            break;
          case Un::sign:
            out = static_cast<double>((0.0 < d) - (d < 0.0));  // NaN and -0 give +0
            break;
          case Un::clamp:
            out = d;
            if (lov && hiv && (std::isnan(lov->d) || std::isnan(hiv->d))) {
              out = kNaN;  // both bounds, one NaN: NaN (PyTorch's NaN-propagating min/max)
            } else if (!std::isnan(d)) {
              if (lov && d < lov->d) out = lov->d;
              if (hiv && out > hiv->d) out = hiv->d;
            }
            break;
        }
        r.d = round_to(k, out);
      } else {
        const int64_t i = v.i;
        switch (op) {
          case Un::neg:
            r.i = wrap_sub(0, i);
            break;
          case Un::abs:
            r.i = i < 0 ? wrap_sub(0, i) : i;
            break;
          case Un::relu:
            r.i = i > 0 ? i : 0;
            break;
          case Un::pow_scalar:
            r.i = int_pow(i, ev->i);
            break;
          case Un::clamp:
            r.i = i;
            if (lov && r.i < lov->i) r.i = lov->i;
            if (hiv && r.i > hiv->i) r.i = hiv->i;
            break;
          case Un::floor:
          case Un::ceil:
          case Un::round:
          case Un::trunc:
            r.i = i;  // integers pass through
            break;
          case Un::sign:
            r.i = (i > 0) - (i < 0);  // bool: itself
            break;
          default:
            fail("integer unary op reached the reference");
        }
      }
      want.v.push_back(r);
    }
  }
  Tensor out;
  if (!outcome(expect, [&] {
        switch (op) {
          case Un::neg:
            out = in_.flag() ? -*a : wick::neg(*a);
            break;
          case Un::abs:
            out = a->abs();
            break;
          case Un::exp:
            out = wick::exp(*a);
            break;
          case Un::log:
            out = a->log();
            break;
          case Un::sqrt:
            out = wick::sqrt(*a);
            break;
          case Un::relu:
            out = a->relu();
            break;
          case Un::sigmoid:
            out = wick::sigmoid(*a);
            break;
          case Un::tanh:
            out = a->tanh();
            break;
          case Un::pow_scalar:
            out = wick::pow(*a, e);
            break;
          case Un::clamp:
            out = wick::clamp(*a, has_lo ? std::optional<Scalar>(lo) : std::nullopt,
                              has_hi ? std::optional<Scalar>(hi) : std::nullopt);
            break;
          case Un::sin:
            out = in_.flag() ? a->sin() : wick::sin(*a);
            break;
          case Un::cos:
            out = a->cos();
            break;
          case Un::tan:
            out = in_.flag() ? a->tan() : wick::tan(*a);
            break;
          case Un::asin:
            out = in_.flag() ? a->asin() : wick::asin(*a);
            break;
          case Un::acos:
            out = in_.flag() ? a->acos() : wick::acos(*a);
            break;
          case Un::atan:
            out = in_.flag() ? a->atan() : wick::atan(*a);
            break;
          case Un::sinh:
            out = in_.flag() ? a->sinh() : wick::sinh(*a);
            break;
          case Un::cosh:
            out = in_.flag() ? a->cosh() : wick::cosh(*a);
            break;
          case Un::log2:
            out = in_.flag() ? a->log2() : wick::log2(*a);
            break;
          case Un::log10:
            out = in_.flag() ? a->log10() : wick::log10(*a);
            break;
          case Un::asinh:
            out = in_.flag() ? a->asinh() : wick::asinh(*a);
            break;
          case Un::acosh:
            out = in_.flag() ? a->acosh() : wick::acosh(*a);
            break;
          case Un::atanh:
            out = in_.flag() ? a->atanh() : wick::atanh(*a);
            break;
          case Un::erfc:
            out = in_.flag() ? a->erfc() : wick::erfc(*a);
            break;
          case Un::exp2:
            out = in_.flag() ? a->exp2() : wick::exp2(*a);
            break;
          case Un::lgamma:
            out = in_.flag() ? a->lgamma() : wick::lgamma(*a);
            break;
          case Un::erfinv:
            out = in_.flag() ? a->erfinv() : wick::erfinv(*a);
            break;
          case Un::rsqrt:
            out = wick::rsqrt(*a);
            break;
          case Un::reciprocal:
            out = a->reciprocal();
            break;
          case Un::floor:
            out = wick::floor(*a);
            break;
          case Un::ceil:
            out = a->ceil();
            break;
          case Un::round:
            out = wick::round(*a);
            break;
          case Un::trunc:
            out = a->trunc();
            break;
          case Un::sign:
            out = wick::sign(*a);
            break;
        }
      })) {
    return;
  }
  expect_equal(out, want, g_step, ulps);
  add(out);
}

// The reference for binary(op, a, b); sets expect.
Ref Program::binary_ref(Bin op, const Operand& a, const Operand& b, Expect& expect) {
  Dtype k = result_type({a, b});
  // sub takes no bool operand at all, tensor or number (PyTorch's sub_check).
  auto is_bool = [](const Operand& o) {
    return o.is_scalar() ? o.scalar.kind() == wick::kBool : o.ref->dtype == wick::kBool;
  };
  if (op == Bin::sub && (is_bool(a) || is_bool(b))) expect = Expect::Error;
  if (op == Bin::pow && k == wick::kBool) expect = Expect::Error;
  if (op == Bin::div || op == Bin::atan2 || op == Bin::copysign) k = float_of(k);
  if ((is_activation_backward(op) || op == Bin::hypot || op == Bin::nextafter) && !floating(k)) {
    expect = Expect::Error;
  }
  if (is_bitwise(op) && floating(k)) expect = Expect::Error;
  if (takes_int64_only(op) && k != wick::kInt64) expect = Expect::Error;
  const bool divides =
      op == Bin::fmod || op == Bin::remainder || op == Bin::floor_divide || op == Bin::trunc_divide;
  if (divides && k == wick::kBool) expect = Expect::Error;
  if (divides && !floating(k)) {
    // An integer zero divisor anywhere in b (broadcast or not) is a ValueError.
    bool zero = false;
    if (b.is_scalar()) {
      zero = b.scalar.to_double() == 0;
    } else {
      for (const V& v : b.ref->v) zero = zero || cast(v, b.ref->dtype, k).i == 0;
    }
    if (zero) expect = Expect::Error;
  }
  Shape sa = a.is_scalar() ? Shape{} : a.ref->sizes;
  Shape sb = b.is_scalar() ? Shape{} : b.ref->sizes;
  std::optional<Shape> out = broadcast(sa, sb);
  // A broadcast shape whose strides overflow (only possible with a 0 dim in an operand:
  // [0, 2^62, 1] with [4]) cannot be allocated: a ShapeError. [2^63-1, 3, 0] can.
  if (!out || !numel_of(*out) || strides_overflow(*out)) expect = Expect::Error;
  Ref r{out.value_or(Shape{}), is_compare(op) ? wick::kBool : k, {}};
  if (expect != Expect::Ok) return r;
  Ref sa_ref{{}, k, {}}, sb_ref{{}, k, {}};
  if (a.is_scalar()) sa_ref.v.push_back(*scalar_as(a.scalar, k));
  if (b.is_scalar()) sb_ref.v.push_back(*scalar_as(b.scalar, k));
  const Ref& ra = a.is_scalar() ? sa_ref : *a.ref;
  const Ref& rb = b.is_scalar() ? sb_ref : *b.ref;
  for_each_index(*out, [&](int64_t, const int64_t* idx) {
    V x = cast(at_broadcast(ra, idx, out->size()), ra.dtype, k);
    V y = cast(at_broadcast(rb, idx, out->size()), rb.dtype, k);
    r.v.push_back(binary_value(op, x, y, k));
  });
  return r;
}

// add/sub with alpha (core/src/ops_elementwise.cpp, as PyTorch): the result's dtype k is
// that of the two tensors; alpha must be of k's category.
bool Program::alpha_fits(Dtype k, const Scalar& alpha) {
  if (alpha.is_floating() && !floating(k)) return false;
  return !(alpha.kind() == wick::kBool && k != wick::kBool);
}

// alpha * b for a result of dtype k: b cast to k times alpha (a bool for bool); for bfloat16
// a float32 product of bfloat16 values, the sum then rounded once.
Ref Program::scaled_by_alpha(Dtype k, const Ref& rb, const Scalar& alpha) {
  if (k == wick::kBFloat16) {
    const double alpha_bf16 = scalar_as(alpha, wick::kBFloat16)->d;
    Ref r{rb.sizes, wick::kFloat32, {}};
    for (const V& v : rb.v) {
      r.v.push_back(V{round_f32(cast(v, rb.dtype, wick::kBFloat16).d * alpha_bf16), 0});
    }
    return r;
  }
  Ref bk{rb.sizes, k, {}};
  for (const V& v : rb.v) bk.v.push_back(cast(v, rb.dtype, k));
  const Scalar ak = k == wick::kBool ? Scalar(alpha.to<bool>()) : alpha;
  Expect inner = Expect::Ok;
  return binary_ref(Bin::mul, Operand{&bk, {}}, Operand{nullptr, ak}, inner);
}

// float32 and float64 add/sub with alpha: one fused multiply-add, alpha rounded to k first
// (sub adds -alpha), as PyTorch's kernel.
Ref Program::fused_alpha_ref(Bin op, const Ref& ra, const Ref& rb, Dtype k, const Scalar& alpha,
                             Expect& expect) {
  std::optional<Shape> out = broadcast(ra.sizes, rb.sizes);
  if (!out || !numel_of(*out) || strides_overflow(*out)) expect = Expect::Error;
  Ref r{out.value_or(Shape{}), k, {}};
  if (expect != Expect::Ok) return r;
  const double alpha_k = scalar_as(alpha, k)->d * (op == Bin::sub ? -1.0 : 1.0);
  for_each_index(*out, [&](int64_t, const int64_t* idx) {
    const double x = cast(at_broadcast(ra, idx, out->size()), ra.dtype, k).d;
    const double y = cast(at_broadcast(rb, idx, out->size()), rb.dtype, k).d;
    V v;
    v.d = k == wick::kFloat32
              ? static_cast<double>(std::fma(static_cast<float>(y), static_cast<float>(alpha_k),
                                             static_cast<float>(x)))
              : std::fma(y, alpha_k, x);
    r.v.push_back(v);
  });
  return r;
}

void Program::binary() {
  const Tensor* a = pick();
  if (a == nullptr) return;
  const Bin op = static_cast<Bin>(in_.below(kNumBins));
  // 0, 1: tensor op tensor (1: with alpha for add/sub); 2: tensor op number; 3: number op
  // tensor (add, sub, mul, div, pow only). The activation gradients take two tensors.
  uint32_t form = in_.below(4);
  const bool shift = op == Bin::shift_left || op == Bin::shift_right;
  if (form == 3 && op != Bin::add && op != Bin::sub && op != Bin::mul && op != Bin::div &&
      op != Bin::pow && !is_bitwise(op) && !shift) {
    form = 2;
  }
  // The activation gradients, gcd, lcm and nextafter take two tensors.
  if (is_activation_backward(op) || op == Bin::gcd || op == Bin::lcm || op == Bin::nextafter) {
    form = 0;
  }
  const Tensor* b = form <= 1 ? pick() : nullptr;
  const Scalar s = scalar();
  const bool use_alpha = (op == Bin::add || op == Bin::sub) && form == 1;
  const Ref ra = snapshot(*a);
  const Ref rb = b ? snapshot(*b) : Ref{};
  g_step = std::string(kBinNames[static_cast<int>(op)]) + " form " + std::to_string(form) + " of " +
           str(*a) + (b ? " and " + str(*b) : " and number " + str(s)) +
           (use_alpha ? " alpha " + str(s) : "");
  Expect expect = Expect::Ok;
  Ref want;
  Operand oa{&ra, {}};
  if (use_alpha) {
    // add(a, b, alpha) = add(a, alpha * b) when alpha != 1.
    const Dtype k = result_type({oa, Operand{&rb, {}}});
    const bool fused = k == wick::kBFloat16 && s.to_double() != 1.0;
    if (op == Bin::sub && (ra.dtype == wick::kBool || rb.dtype == wick::kBool)) {
      expect = Expect::Error;  // before alpha scales (and casts) b
    } else if (!alpha_fits(k, s)) {
      expect = Expect::Error;
    } else if (s.to_double() == 1.0) {
      want = binary_ref(op, oa, Operand{&rb, {}}, expect);
    } else if (overflows(s, k)) {
      expect = Expect::Error;  // alpha.to<scalar_t>() is PyTorch's checked conversion
    } else if (k == wick::kFloat32 || k == wick::kFloat64) {
      want = fused_alpha_ref(op, ra, rb, k, s, expect);
    } else if (!fused) {
      const Ref scaled = scaled_by_alpha(k, rb, s);
      want = binary_ref(op, oa, Operand{&scaled, {}}, expect);
    } else {
      // a as a bfloat16 value in float32 beside the float32 product, the sum rounded once.
      const Ref scaled = scaled_by_alpha(k, rb, s);
      Ref wide_a{ra.sizes, wick::kFloat32, {}};
      for (const V& v : ra.v) {
        wide_a.v.push_back(
            cast(cast(v, ra.dtype, wick::kBFloat16), wick::kBFloat16, wick::kFloat32));
      }
      want = binary_ref(op, Operand{&wide_a, {}}, Operand{&scaled, {}}, expect);
      for (V& v : want.v) v = cast(v, want.dtype, wick::kBFloat16);
      want.dtype = wick::kBFloat16;
    }
  } else if (form <= 1) {
    want = binary_ref(op, oa, Operand{&rb, {}}, expect);
  } else if (form == 2 &&
             (op == Bin::maximum || op == Bin::minimum || op == Bin::atan2 || op == Bin::hypot)) {
    // These take wick::full({}, s): a 0-d tensor of the number's default dtype (scalar_tensor
    // now takes the default float dtype, as torch.scalar_tensor).
    const Dtype sd = s.kind() == wick::kFloat64 ? wick::kFloat32 : s.kind();
    if (overflows(s, sd)) {
      expect = Expect::Error;  // full({}, 1e300): PyTorch's checked conversion
    } else {
      const Ref zero_d{{}, sd, {*scalar_as(s, sd)}};
      want = binary_ref(op, oa, Operand{&zero_d, {}}, expect);
    }
  } else if (form == 2) {
    want = binary_ref(op, oa, Operand{nullptr, s}, expect);
    // pow(tensor, number) is pow_scalar, which rejects any bool base (ops_elementwise.cpp)
    // and, as PyTorch, integers to negative integer powers.
    if (op == Bin::pow && ra.dtype == wick::kBool) expect = Expect::Error;
    if (op == Bin::pow && want.dtype == wick::kInt64 && s.to_int64() < 0) expect = Expect::Error;
    // A bfloat16 computation converts the exponent to bfloat16, checked (PyTorch's rule), and
    // the exponents PyTorch 1.13 gives their own kernels (sqrt, rsqrt, reciprocal) differ from
    // pow at -0 and -inf (kernels/cpu/unary.cpp).
    if (op == Bin::pow && want.dtype == wick::kBFloat16 && overflows(s, want.dtype)) {
      expect = Expect::Error;
    }
    if (op == Bin::pow && expect == Expect::Ok && floating(want.dtype)) {
      const double e = s.to_double();  // as written (PyTorch's choice of kernel)
      if (e == 0.5 || e == -0.5 || e == -1.0) {
        for (size_t i = 0; i < want.v.size(); ++i) {
          const double x = cast(ra.v[i], ra.dtype, want.dtype).d;
          const double y = e == 0.5 ? std::sqrt(x) : e == -0.5 ? 1.0 / std::sqrt(x) : 1.0 / x;
          want.v[i].d = round_to(want.dtype, y);
        }
      }
    }
  } else {
    want = binary_ref(op, Operand{nullptr, s}, oa, expect);
  }
  Tensor out;
  if (!outcome(expect, [&] { out = run_binary(op, form, *a, b, s, use_alpha); })) return;
  if (op == Bin::copysign) {
    // A NaN's sign bit is the platform's choice (x86's default NaN is negative, CUDA's
    // positive), and this model does not track it: where b is NaN, only the magnitude is
    // checked, and the expected value takes the sign wick gave.
    const Ref got = snapshot(out);
    for_each_index(want.sizes, [&](int64_t lin, const int64_t* idx) {
      const double divisor = b ? at_broadcast(rb, idx, want.sizes.size()).d : s.to_double();
      V& w = want.v[static_cast<size_t>(lin)];
      if (std::isnan(divisor)) w.d = std::copysign(w.d, got.v[static_cast<size_t>(lin)].d);
    });
  }
  expect_equal(out, want, g_step, floating(want.dtype) ? ulps_of(op) : 0);
  add(out);
}

Tensor Program::run_binary(Bin op, uint32_t form, const Tensor& a, const Tensor* b, const Scalar& s,
                           bool use_alpha) {
  if (form <= 1) {
    switch (op) {
      case Bin::add:
        return use_alpha ? wick::add(a, *b, s) : a + *b;
      case Bin::sub:
        return use_alpha ? a.sub(*b, s) : a - *b;
      case Bin::mul:
        return a * *b;
      case Bin::div:
        return wick::div(a, *b);
      case Bin::pow:
        return wick::pow(a, *b);
      case Bin::maximum:
        return wick::maximum(a, *b);
      case Bin::minimum:
        return a.minimum(*b);
      case Bin::sigmoid_backward:
        return wick::sigmoid_backward(a, *b);
      case Bin::tanh_backward:
        return wick::tanh_backward(a, *b);
      case Bin::atan2:
        return wick::atan2(a, *b);
      case Bin::hypot:
        return a.hypot(*b);
      case Bin::fmod:
        return wick::fmod(a, *b);
      case Bin::remainder:
        return a.remainder(*b);
      case Bin::floor_divide:
        return wick::floor_divide(a, *b);
      case Bin::trunc_divide:
        return a.div(*b, "trunc");
      case Bin::copysign:
        return wick::copysign(a, *b);
      case Bin::eq:
        return a == *b;
      case Bin::ne:
        return wick::ne(a, *b);
      case Bin::lt:
        return a < *b;
      case Bin::le:
        return a.le(*b);
      case Bin::gt:
        return wick::gt(a, *b);
      case Bin::ge:
        return a >= *b;
      case Bin::bitwise_and:
        return a & *b;
      case Bin::bitwise_or:
        return wick::bitwise_or(a, *b);
      case Bin::bitwise_xor:
        return a.bitwise_xor(*b);
      case Bin::shift_left:
        return a << *b;
      case Bin::shift_right:
        return wick::bitwise_right_shift(a, *b);
      case Bin::gcd:
        return wick::gcd(a, *b);
      case Bin::lcm:
        return a.lcm(*b);
      case Bin::nextafter:
        return wick::nextafter(a, *b);
    }
  }
  if (form == 2) {
    switch (op) {
      case Bin::add:
        return a + s;
      case Bin::sub:
        return a.sub(s);
      case Bin::mul:
        return wick::mul(a, s);
      case Bin::div:
        return a / s;
      case Bin::pow:
        return wick::pow(a, s);
      case Bin::maximum:
        return wick::maximum(a, wick::full({}, s));
      case Bin::minimum:
        return wick::minimum(a, wick::full({}, s));
      case Bin::atan2:
        return wick::atan2(a, wick::full({}, s));
      case Bin::hypot:
        return wick::hypot(a, wick::full({}, s));
      case Bin::fmod:
        return a.fmod(s);
      case Bin::remainder:
        return wick::remainder(a, s);
      case Bin::floor_divide:
        return a.floor_divide(s);
      case Bin::trunc_divide:
        return wick::div(a, s, "trunc");
      case Bin::copysign:
        return a.copysign(s);
      case Bin::sigmoid_backward:
      case Bin::tanh_backward:
        fail("an activation gradient with a number operand");
        break;
      case Bin::eq:
        return a == s;
      case Bin::ne:
        return a.ne(s);
      case Bin::lt:
        return wick::lt(a, s);
      case Bin::le:
        return a <= s;
      case Bin::gt:
        return a > s;
      case Bin::ge:
        return wick::ge(a, s);
      case Bin::bitwise_and:
        return wick::bitwise_and(a, s);
      case Bin::bitwise_or:
        return a | s;
      case Bin::bitwise_xor:
        return a ^ s;
      case Bin::shift_left:
        return a.bitwise_left_shift(s);
      case Bin::shift_right:
        return a >> s;
      case Bin::gcd:
      case Bin::lcm:
      case Bin::nextafter:
        fail("gcd, lcm or nextafter with a number operand");
        break;
    }
  }
  switch (op) {
    case Bin::add:
      return s + a;
    case Bin::sub:
      return s - a;
    case Bin::mul:
      return s * a;
    case Bin::div:
      return s / a;
    case Bin::bitwise_and:
      return s & a;
    case Bin::bitwise_or:
      return wick::bitwise_or(s, a);
    case Bin::bitwise_xor:
      return s ^ a;
    case Bin::shift_left:
      return wick::bitwise_left_shift(s, a);
    case Bin::shift_right:
      return wick::bitwise_right_shift(s, a);
    default:
      return wick::pow(s, a);
  }
}

void Program::where() {
  const Tensor* c = pick();
  const Tensor* a = pick();
  const Tensor* b = pick();
  if (c == nullptr) return;
  const uint32_t form = in_.below(3);  // 0: tensors; 1: number for b; 2: number for a
  const Scalar s = scalar();
  const Ref rc = snapshot(*c), ra = snapshot(*a), rb = snapshot(*b);
  g_step = "where " + str(*c) + ", " + (form == 2 ? str(s) : str(*a)) + ", " +
           (form == 1 ? str(s) : str(*b));
  Operand oa = form == 2 ? Operand{nullptr, s} : Operand{&ra, {}};
  Operand ob = form == 1 ? Operand{nullptr, s} : Operand{&rb, {}};
  Expect expect = rc.dtype == wick::kBool ? Expect::Ok : Expect::Error;
  const Dtype k = result_type({oa, ob});
  std::optional<Shape> out = broadcast(rc.sizes, oa.is_scalar() ? Shape{} : ra.sizes);
  if (out) out = broadcast(*out, ob.is_scalar() ? Shape{} : rb.sizes);
  if (!out || !numel_of(*out) || strides_overflow(*out)) expect = Expect::Error;
  // The number must fit the result's dtype (PyTorch's checked conversion).
  if (form != 0 && overflows(s, k)) expect = Expect::Error;
  Ref want{out.value_or(Shape{}), k, {}};
  if (expect == Expect::Ok) {
    Ref sa{{}, k, {}};
    if (oa.is_scalar()) sa.v.push_back(*scalar_as(s, k));
    Ref sb{{}, k, {}};
    if (ob.is_scalar()) sb.v.push_back(*scalar_as(s, k));
    const Ref& xa = oa.is_scalar() ? sa : ra;
    const Ref& xb = ob.is_scalar() ? sb : rb;
    for_each_index(*out, [&](int64_t, const int64_t* idx) {
      const bool cond = at_broadcast(rc, idx, out->size()).i != 0;
      want.v.push_back(cond ? cast(at_broadcast(xa, idx, out->size()), xa.dtype, k)
                            : cast(at_broadcast(xb, idx, out->size()), xb.dtype, k));
    });
  }
  Tensor r;
  if (!outcome(expect, [&] {
        r = form == 0   ? wick::where(*c, *a, *b)
            : form == 1 ? wick::where(*c, *a, s)
                        : wick::where(*c, s, *b);
      })) {
    return;
  }
  expect_equal(r, want, g_step, 0);
  add(r);
}

}  // namespace wick::fuzz::ops
