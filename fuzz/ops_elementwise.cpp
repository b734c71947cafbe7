// ops_elementwise.cpp: fuzz_ops steps: unary elementwise ops and where (the binary ops are in
// ops_binary.cpp). Each step draws its operands from the input, predicts the outcome with the
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
