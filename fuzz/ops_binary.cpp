// ops_binary.cpp: fuzz_ops steps: the binary elementwise ops, tensor with tensor (add and sub
// with alpha too), tensor with number and number with tensor; their values come from
// ops_binary_reference.hpp. Each step draws its operands from the input, predicts the outcome
// with the reference model and checks wick against it; see fuzz_ops.cpp.
#include "ops_program.hpp"

namespace wick::fuzz::ops {

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

}  // namespace wick::fuzz::ops
