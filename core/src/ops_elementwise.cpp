// ops_elementwise.cpp: the op boundary for unary, binary, comparison and where ops, their
// in-place forms and the operators. Each op finds its compute dtype (PyTorch's result_type)
// and checks its operands, then runs through elementwise_engine.cpp (devices, broadcast, the
// inputs cast and expanded, the kernel, the autograd record). The rules are written out in
// docs/type-promotion.md.
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "elementwise.hpp"
#include "internal.hpp"
#include "wick/dim_order.hpp"
#include "wick/ops.hpp"

namespace wick {

using detail::Attrs;
using detail::binary;
using detail::binary_inplace;
using detail::broadcast_all;
using detail::elementwise;
using detail::Operand;
using detail::prepare;
using detail::result_type;

namespace {

bool is_one(const Scalar& s) { return s.to_double() == 1.0; }

// A number that a bfloat16 op takes as an attribute (pow's exponent, clamp's bounds) first
// becomes a bfloat16 value, as a number operand does (prepare() fills a 0-d tensor of the
// compute dtype) and as PyTorch 1.13 does: pow(x, 88.7) uses 88.5 and pow(x, 257) uses 256.
// The float32 kernel that computes bfloat16 would otherwise see the number unrounded.
Scalar in_compute_dtype(const Scalar& s, Dtype compute) {
  if (compute != kBFloat16 || s.kind() == kBool) return s;
  return Scalar(static_cast<double>(static_cast<float>(BFloat16(s.to<float>()))));
}
std::optional<Scalar> in_compute_dtype(const std::optional<Scalar>& s, Dtype compute) {
  return s ? std::optional<Scalar>(in_compute_dtype(*s, compute)) : std::nullopt;
}

Dtype float_of(Dtype d) { return is_floating(d) ? d : kDefaultFloat; }

void reject_bool(OpId op, const Tensor& t, const char* why) {
  WICK_CHECK(t.dtype() != kBool, DtypeError, detail::user_name(op), why, ", got ", describe(t));
}

bool is_bool(const Operand& o) {
  return o.is_scalar() ? o.scalar.kind() == kBool : o.tensor->dtype() == kBool;
}
std::string describe(const Operand& o) {
  if (!o.is_scalar()) return describe(*o.tensor);
  std::ostringstream text;
  text << "the number " << o.scalar;
  return text.str();
}

// PyTorch's sub_check: no bool operand at all, tensor or number (true - 1 and t - true too).
void check_sub_operands(const char* op, const Operand& a, const Operand& b) {
  WICK_CHECK(!is_bool(a) && !is_bool(b), DtypeError, op,
             "subtraction with a bool operand is not supported (", describe(a), " and ",
             describe(b), "); to invert a mask use logical ops, e.g. eq(mask, false)");
}

// fmod, remainder and the rounded divisions of integers: a zero divisor is an error, as
// PyTorch's CPU kernel's
// ZeroDivisionError (a GPU kernel can't throw, and x86 traps on x % 0). A tensor divisor is
// scanned for zeros first: one reduction, and on a GPU one wait for its result.
void check_integer_divisor(const char* op, const Operand& a, const Operand& b) {
  const bool zero = b.is_scalar() ? b.scalar.to_double() == 0
                                  : any(eq(b.tensor->detach(), Scalar(0))).item<bool>();
  WICK_CHECK(!zero, ValueError, op, "integer division by zero: the divisor ", describe(b),
             " holds 0 (dividend ", describe(a), ")");
}

// The dtype a binary op computes in, from its operands' promoted dtype: true division, atan2
// and copysign make integers floating.
Dtype compute_of(OpId op, Dtype promoted) {
  return op == OpId::div || op == OpId::atan2 || op == OpId::copysign ? float_of(promoted)
                                                                      : promoted;
}

// The operand checks of the binary ops that have them, shared by the out-of-place and in-place
// forms (name is the form's, for messages).
void check_operands(OpId op, const char* name, Dtype compute, const Operand& a, const Operand& b) {
  switch (op) {
    case OpId::sub:
      check_sub_operands(name, a, b);
      break;
    case OpId::hypot:
    case OpId::nextafter:
      WICK_CHECK(is_floating(compute), DtypeError, name, "takes floating-point operands, got ",
                 describe(a), " and ", describe(b));
      break;
    case OpId::bitwise_and:
    case OpId::bitwise_or:
    case OpId::bitwise_xor:
      WICK_CHECK(!is_floating(compute), DtypeError, name, "takes int64 or bool operands, got ",
                 describe(a), " and ", describe(b));
      break;
    case OpId::bitwise_left_shift:  // PyTorch's shifts, gcd and lcm refuse bool too
    case OpId::bitwise_right_shift:
    case OpId::gcd:
    case OpId::lcm:
      WICK_CHECK(compute == kInt64, DtypeError, name, "takes int64 operands, got ", describe(a),
                 " and ", describe(b));
      break;
    case OpId::fmod:
    case OpId::remainder:
    case OpId::floor_divide:
    case OpId::trunc_divide:
      WICK_CHECK(compute != kBool, DtypeError, name, "takes no bool operands, as PyTorch: got ",
                 describe(a), " and ", describe(b));
      if (!is_floating(compute)) {
        broadcast_all(name, {a, b});  // shape errors come first, as everywhere
        check_integer_divisor(name, a, b);
      }
      break;
    default:
      break;
  }
}

}  // namespace

Tensor detail::binary(OpId op, const Operand& a, const Operand& b) {
  const char* name = detail::user_name(op);
  detail::check_defined(name, {a.tensor, b.tensor});
  const Dtype compute = compute_of(op, result_type({a, b}));
  check_operands(op, name, compute, a, b);
  switch (op) {
    case OpId::pow:
      WICK_CHECK(compute != kBool, DtypeError, name, "pow is not implemented for bool operands");
      break;
    case OpId::sigmoid_backward:
    case OpId::tanh_backward:
      WICK_CHECK(is_floating(compute), DtypeError, name, "takes floating-point tensors, got ",
                 compute, " (grad_output ", describe(a), ", output ", describe(b), ")");
      break;
    default:
      break;
  }
  bool compare = op == OpId::eq || op == OpId::ne || op == OpId::lt || op == OpId::le ||
                 op == OpId::gt || op == OpId::ge;
  return elementwise(op, {a, b}, compute, compare ? kBool : compute);
}

namespace {

// Can a value of dtype `from` be stored in `to` without losing its kind (torch.can_cast)?
bool can_cast(Dtype from, Dtype to) {
  if (is_floating(from) && !is_floating(to)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

// "add_" for OpId::add: in-place ops name themselves in errors without building a string.
// Built when the library loads (from the constexpr op names), not on first use: a fork during a
// first use's initialisation would leave the child waiting on its guard.
const std::array<std::string, kNumOps> g_inplace_names = [] {
  std::array<std::string, kNumOps> n;
  for (size_t i = 0; i < kNumOps; ++i)
    n[i] = std::string(detail::user_name(static_cast<OpId>(i))) + "_";
  return n;
}();
const char* inplace_name(OpId op) { return g_inplace_names[static_cast<size_t>(op)].c_str(); }

// An in-place op computes in `compute` and writes into self: torch.can_cast must allow it.
void check_inplace_cast(const char* op_, Dtype compute, const Tensor& self) {
  WICK_CHECK(can_cast(compute, self.dtype()), DtypeError, op_, "result type ", compute,
             " can't be cast to the desired output type ", self.dtype(), " of ", describe(self));
}

// float32 and float64 compute a + alpha * b as one fused multiply-add, rounded once, as
// PyTorch 1.13's CPU kernel (vec::fmadd): with alpha 0.1, 8,862 of 100,000 float32 randn pairs
// differ from the product rounded first and none from the fused value; float64 likewise
// (python3-torch against exact rationals). alpha is first rounded to k, as PyTorch's
// alpha.to<scalar_t>(), a checked conversion: 1e300 for float32 (or bfloat16) is a ValueError.
// The kernels read it as scalar_a (sub passes it unnegated).
bool fuses_alpha(Dtype k) { return k == kFloat32 || k == kFloat64; }
Attrs alpha_attr(Dtype k, const Scalar& alpha) {
  // Scalar::to converts an integer alpha directly (through double it could round twice).
  return {Scalar(k == kFloat32 ? static_cast<double>(alpha.to<float>()) : alpha.to<double>()),
          std::nullopt};
}

// An in-place op's other operand must broadcast to self's shape.
void check_inplace_shape(const char* op_, const Tensor& self, const Operand& other) {
  if (other.is_scalar()) return;
  Shape sizes = broadcast_all(op_, {Operand(self), other});
  WICK_CHECK(sizes == self.sizes(), ShapeError, op_, "output with shape ", self.sizes(),
             " doesn't match the broadcast shape ", sizes, " of ", describe(self), " and ",
             describe(*other.tensor));
}

// alpha (add_ and sub_ of float32 or float64 only): checked and fused here, after the autograd
// and shape checks, in PyTorch's order.
}  // namespace

Tensor& detail::binary_inplace(OpId op, Tensor& self, const Operand& other, const Scalar* alpha) {
  const char* op_ = inplace_name(op);
  detail::check_defined(op_, {&self, other.tensor});
  detail::check_inplace_target(self, op_, true);
  // PyTorch's order: the cast, then the op's own checks, then the shapes.
  const Dtype compute = compute_of(op, result_type({Operand(self), other}));
  check_inplace_cast(op_, compute, self);
  check_operands(op, op_, compute, Operand(self), other);
  check_inplace_shape(op_, self, other);
  Attrs attrs;
  if (alpha != nullptr) {
    detail::check_value_fits(*alpha, compute, op_, other.is_scalar() ? self : *other.tensor);
    attrs = alpha_attr(compute, *alpha);
  }
  const detail::InplaceRecord record(op, self, other.is_scalar() ? nullptr : other.tensor);
  if (compute == self.dtype()) {
    elementwise(op, {Operand(self), other}, compute, compute, attrs, &self);
  } else {
    // Computed without history (the in-place op is recorded below), then stored into self.
    const Tensor other_plain = other.is_scalar() ? Tensor() : other.tensor->detach();
    const Operand plain = other.is_scalar() ? other : Operand(other_plain);
    Tensor result = elementwise(op, {Operand(self.detach()), plain}, compute, compute, attrs);
    detail::copy_into(self, result);
  }
  self.storage()->bump_version();
  if (record.active()) {
    // As the out-of-place op records it: a number operand as a 0-d tensor of the compute dtype.
    const Tensor number = other.is_scalar() ? prepare(other, compute, self.device(), {}) : Tensor();
    OpCall call;
    call.op = op;
    call.inputs[0] = &self;  // the old value
    call.inputs[1] = other.is_scalar() ? &number : other.tensor;
    call.num_inputs = 2;
    call.outputs[0] = &self;
    call.num_outputs = 1;
    if (attrs.a) call.scalar_a = *attrs.a, call.has_a = true;
    record.finish(call);
  }
  return self;
}

namespace {

Tensor unary(OpId op, const Tensor& a, const Attrs& attrs = {}) {
  detail::check_defined(detail::user_name(op), {&a});
  Dtype compute = a.dtype();
  switch (op) {
    case OpId::exp:
    case OpId::log:
    case OpId::sqrt:
    case OpId::sigmoid:
    case OpId::tanh:
    case OpId::erf:
    case OpId::log1p:
    case OpId::expm1:
    case OpId::sin:
    case OpId::cos:
    case OpId::tan:
    case OpId::asin:
    case OpId::acos:
    case OpId::atan:
    case OpId::sinh:
    case OpId::cosh:
    case OpId::log2:
    case OpId::log10:
    case OpId::rsqrt:
    case OpId::reciprocal:
      compute = float_of(compute);
      break;
    case OpId::floor:
    case OpId::ceil:
    case OpId::round:
    case OpId::trunc:
      reject_bool(op, a, "rounding is not implemented for bool");
      break;
    case OpId::sign:
      // The sign of a bool is itself (PyTorch returns a copy); the kernels see numbers only.
      if (a.dtype() == kBool) return a.clone();
      break;
    case OpId::neg:
      reject_bool(op, a, "negation of a bool tensor is not supported");
      break;
    case OpId::abs:
      reject_bool(op, a, "abs is not implemented for bool");
      break;
    case OpId::relu:
      reject_bool(op, a, "bool inputs are not supported for relu");
      break;
    default:
      break;
  }
  return elementwise(op, {a}, compute, compute, attrs);
}

}  // namespace

namespace detail {
Dtype result_type_of(const Tensor& a, const Tensor& b) { return result_type({a, b}); }
Tensor floating_unary(OpId op, const Tensor& a, std::optional<Scalar> attr) {
  check_defined(detail::user_name(op), {&a});
  const Dtype compute = float_of(a.dtype());
  return elementwise(op, {a}, compute, compute, Attrs{attr, std::nullopt});
}
}  // namespace detail

// ---- binary ----
namespace {
// add and sub with alpha, as PyTorch's one kernel computes a + alpha * b: the result's dtype k
// is that of a and b (alpha takes no part), alpha must be of k's category (alpha_check: no
// floating alpha for integer or bool results, no bool alpha for others), and b is cast to k
// before it is scaled (for bool, alpha becomes a bool: a || (alpha && b)).
void check_alpha(OpId op, Dtype k, const Scalar& alpha, const Tensor& a, const Tensor& b) {
  const char* name = detail::user_name(op);
  WICK_CHECK(
      !(alpha.is_floating() && !is_floating(k)), DtypeError, name,
      "for integral input tensors, argument alpha must not be a floating point number (alpha ",
      alpha, ", ", describe(a), " and ", describe(b), ")");
  WICK_CHECK(!(alpha.kind() == kBool && k != kBool), DtypeError, name,
             "boolean alpha is only supported for boolean results (alpha ", alpha, ", ",
             describe(a), " and ", describe(b), ")");
}

// alpha * b for the other dtypes of k. A bfloat16 result keeps the product in float32 (b and
// alpha as bfloat16 values: two 8-bit significands multiply exactly) so that the sum rounds
// once, as PyTorch 1.13's kernel does; a multiply and then an add would round twice (1 ulp
// apart in 8,797 of 100,000 randn pairs with alpha 0.1, measured with python3-torch 1.13).
// Integer and bool products are exact (int64 wraps, as PyTorch's).
Tensor scaled_by_alpha(Dtype k, const Tensor& b, const Scalar& alpha) {
  if (k == kBFloat16) return mul(b.to(kBFloat16).to(kFloat32), in_compute_dtype(alpha, k));
  return mul(b.to(k), k == kBool ? Scalar(alpha.to<bool>()) : alpha);
}

Tensor add_or_sub(OpId op, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  detail::check_defined(detail::user_name(op), {&a, &b});
  // An integer alpha fits every dtype: a + b (alpha 1) goes straight to the op.
  if (alpha.kind() == kInt64 && is_one(alpha)) return binary(op, a, b);
  if (op == OpId::sub) check_sub_operands("sub", a, b);  // before b is scaled (and cast)
  const Dtype k = result_type({a, b});
  check_alpha(op, k, alpha, a, b);
  if (is_one(alpha)) return binary(op, a, b);
  // Shapes first, then alpha's conversion to k, as PyTorch (its iterator is built first).
  broadcast_all(detail::user_name(op), {a, b});
  detail::check_value_fits(alpha, k, detail::user_name(op), b);
  if (fuses_alpha(k)) return elementwise(op, {a, b}, k, k, alpha_attr(k, alpha));
  const Tensor scaled = scaled_by_alpha(k, b, alpha);
  if (k != kBFloat16) return binary(op, a, scaled);
  // In float32 whatever the shapes (a 0-d float32 product beside a bfloat16 tensor with dims
  // would otherwise be rounded to bfloat16 first), then one rounding.
  return binary(op, a.to(kBFloat16).to(kFloat32), scaled).to(kBFloat16);
}
}  // namespace

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return add_or_sub(OpId::add, a, b, alpha);
}
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return add_or_sub(OpId::sub, a, b, alpha);
}
Tensor mul(const Tensor& a, const Tensor& b) { return binary(OpId::mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(OpId::div, a, b); }
Tensor add(const Tensor& a, const Scalar& b) { return binary(OpId::add, a, b); }
Tensor sub(const Tensor& a, const Scalar& b) { return binary(OpId::sub, a, b); }
Tensor mul(const Tensor& a, const Scalar& b) { return binary(OpId::mul, a, b); }
Tensor div(const Tensor& a, const Scalar& b) { return binary(OpId::div, a, b); }
Tensor maximum(const Tensor& a, const Tensor& b) { return binary(OpId::maximum, a, b); }
Tensor sigmoid_backward(const Tensor& grad_output, const Tensor& output) {
  return binary(OpId::sigmoid_backward, grad_output, output);
}
Tensor tanh_backward(const Tensor& grad_output, const Tensor& output) {
  return binary(OpId::tanh_backward, grad_output, output);
}
Tensor minimum(const Tensor& a, const Tensor& b) { return binary(OpId::minimum, a, b); }
Tensor pow(const Tensor& base, const Tensor& exponent) { return binary(OpId::pow, base, exponent); }
Tensor pow(const Scalar& base, const Tensor& exponent) { return binary(OpId::pow, base, exponent); }
Tensor pow(const Tensor& base, const Scalar& exponent) {
  reject_bool(OpId::pow_scalar, base, "pow of a bool tensor is not supported");
  Dtype compute = result_type({base, exponent});
  // As PyTorch for a number exponent (a tensor exponent follows the kernel's 0/+-1 rule).
  WICK_CHECK(!(compute == kInt64 && exponent.to_int64() < 0), ValueError, "pow",
             "integers to negative integer powers are not allowed: ", describe(base),
             " to the power ", exponent);
  // A bfloat16 computation takes the exponent as a bfloat16 through PyTorch's checked
  // conversion (pow(bf16, 1e300) is a ValueError); float32 and float64 take it as a double.
  if (compute == kBFloat16) detail::check_value_fits(exponent, compute, "pow", base);
  // A floating computation also gets the exponent as written (scalar_b): PyTorch picks its
  // sqrt, rsqrt and reciprocal kernels by that number (0.5000001 is not 0.5, even when it
  // rounds to 0.5 in float32 or bfloat16), and its gradient multiplies by it.
  std::optional<Scalar> written;
  if (is_floating(compute)) written = Scalar(exponent.to_double());
  return elementwise(OpId::pow_scalar, {base}, compute, compute,
                     {in_compute_dtype(exponent, compute), written});
}

// ---- unary ----
Tensor neg(const Tensor& a) { return unary(OpId::neg, a); }
Tensor abs(const Tensor& a) { return unary(OpId::abs, a); }
Tensor exp(const Tensor& a) { return unary(OpId::exp, a); }
Tensor log(const Tensor& a) { return unary(OpId::log, a); }
Tensor sqrt(const Tensor& a) { return unary(OpId::sqrt, a); }
Tensor relu(const Tensor& a) { return unary(OpId::relu, a); }
Tensor sigmoid(const Tensor& a) { return unary(OpId::sigmoid, a); }
Tensor erf(const Tensor& a) { return unary(OpId::erf, a); }
Tensor log1p(const Tensor& a) { return unary(OpId::log1p, a); }
Tensor expm1(const Tensor& a) { return unary(OpId::expm1, a); }
Tensor sin(const Tensor& a) { return unary(OpId::sin, a); }
Tensor cos(const Tensor& a) { return unary(OpId::cos, a); }
Tensor tan(const Tensor& a) { return unary(OpId::tan, a); }
Tensor asin(const Tensor& a) { return unary(OpId::asin, a); }
Tensor acos(const Tensor& a) { return unary(OpId::acos, a); }
Tensor atan(const Tensor& a) { return unary(OpId::atan, a); }
Tensor sinh(const Tensor& a) { return unary(OpId::sinh, a); }
Tensor cosh(const Tensor& a) { return unary(OpId::cosh, a); }
Tensor log2(const Tensor& a) { return unary(OpId::log2, a); }
Tensor log10(const Tensor& a) { return unary(OpId::log10, a); }
Tensor rsqrt(const Tensor& a) { return unary(OpId::rsqrt, a); }
Tensor reciprocal(const Tensor& a) { return unary(OpId::reciprocal, a); }
Tensor floor(const Tensor& a) { return unary(OpId::floor, a); }
Tensor ceil(const Tensor& a) { return unary(OpId::ceil, a); }
Tensor round(const Tensor& a) { return unary(OpId::round, a); }
Tensor trunc(const Tensor& a) { return unary(OpId::trunc, a); }
Tensor sign(const Tensor& a) { return unary(OpId::sign, a); }
Tensor tanh(const Tensor& a) { return unary(OpId::tanh, a); }

Tensor clamp(const Tensor& a, std::optional<Scalar> min, std::optional<Scalar> max) {
  WICK_CHECK(min || max, ValueError, "clamp", "at least one of min and max must be given");
  reject_bool(OpId::clamp, a, "clamp is not supported for bool");
  Dtype compute = a.dtype();
  if (min) compute = result_type({a, *min});
  if (max) compute = promote_types(compute, result_type({a, *max}));
  if (min) detail::check_value_fits(*min, compute, "clamp", a);
  if (max) detail::check_value_fits(*max, compute, "clamp", a);
  return elementwise(OpId::clamp, {a}, compute, compute,
                     {in_compute_dtype(min, compute), in_compute_dtype(max, compute)});
}
// PyTorch 1.13 fills clamp_min's and clamp_max's result with NaN when the bound is NaN
// (clamp_min(x, nan) is all NaN), though clamp with that one bound ignores it: clamp with the
// NaN as both bounds gives the NaN fill, its dtype and its autograd (a zero gradient).
Tensor clamp_min(const Tensor& a, const Scalar& min) {
  if (min.is_floating() && std::isnan(min.to_double())) return clamp(a, min, min);
  return clamp(a, min, std::nullopt);
}
Tensor clamp_max(const Tensor& a, const Scalar& max) {
  if (max.is_floating() && std::isnan(max.to_double())) return clamp(a, max, max);
  return clamp(a, std::nullopt, max);
}

// ---- comparisons and where ----
Tensor eq(const Tensor& a, const Tensor& b) { return binary(OpId::eq, a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return binary(OpId::ne, a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return binary(OpId::lt, a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return binary(OpId::le, a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return binary(OpId::gt, a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return binary(OpId::ge, a, b); }
Tensor eq(const Tensor& a, const Scalar& b) { return binary(OpId::eq, a, b); }
Tensor ne(const Tensor& a, const Scalar& b) { return binary(OpId::ne, a, b); }
Tensor lt(const Tensor& a, const Scalar& b) { return binary(OpId::lt, a, b); }
Tensor le(const Tensor& a, const Scalar& b) { return binary(OpId::le, a, b); }
Tensor gt(const Tensor& a, const Scalar& b) { return binary(OpId::gt, a, b); }
Tensor ge(const Tensor& a, const Scalar& b) { return binary(OpId::ge, a, b); }

namespace {
Tensor where_impl(const Tensor& condition, const Operand& a, const Operand& b) {
  detail::check_defined("where", {&condition, a.tensor, b.tensor});
  WICK_CHECK(condition.dtype() == kBool, DtypeError, "where",
             "condition must be a bool tensor, got ", describe(condition));
  Dtype compute = result_type({a, b});
  // A number (the overloads take at most one) must fit the result's dtype, as PyTorch's
  // checked conversion: where(c, x, 1e300) with a float32 x is a ValueError, not inf.
  if (a.is_scalar()) detail::check_value_fits(a.scalar, compute, "where", *b.tensor);
  if (b.is_scalar()) detail::check_value_fits(b.scalar, compute, "where", *a.tensor);
  return elementwise(OpId::where, {condition, a, b}, compute, compute);
}
}  // namespace
Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) { return where_impl(c, a, b); }
Tensor where(const Tensor& c, const Tensor& a, const Scalar& b) { return where_impl(c, a, b); }
Tensor where(const Tensor& c, const Scalar& a, const Tensor& b) { return where_impl(c, a, b); }
Tensor where(const Tensor& c, const Scalar& a, const Scalar& b) {
  detail::check_defined("where", {&c});
  const Dtype dtype = a.is_floating() || b.is_floating()       ? kDefaultFloat
                      : a.kind() == kBool && b.kind() == kBool ? kBool
                                                               : kInt64;
  return where_impl(c, full({}, a, TensorOptions().dtype(dtype).device(c.device())), b);
}

bool equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  if (a.numel() == 0) return true;
  return ne(a, b).to(kInt64).sum().item<int64_t>() == 0;
}

// ---- in place ----
namespace {
// The in-place forms round once into self. A bfloat16 computation's float32 product makes the
// computation float32 (a 0-d product is expanded to self's shape so that it does), and
// binary_inplace rounds its result into self; it also refuses a k that self cannot hold.
Tensor& add_or_sub_(OpId op, Tensor& self, const Tensor& o, const Scalar& alpha) {
  detail::check_defined(inplace_name(op), {&self, &o});
  if (alpha.kind() == kInt64 && is_one(alpha)) return binary_inplace(op, self, o);
  if (op == OpId::sub) check_sub_operands("sub_", self, o);  // before o is scaled (and cast)
  const Dtype k = result_type({self, o});
  check_alpha(op, k, alpha, self, o);
  if (is_one(alpha)) return binary_inplace(op, self, o);
  // Before the product: a bfloat16 k's float32 product would make binary_inplace name float32.
  check_inplace_cast(inplace_name(op), k, self);
  if (fuses_alpha(k)) return binary_inplace(op, self, o, &alpha);
  // bfloat16 and integers: alpha scales o before the op, so the autograd and shape checks that
  // binary_inplace makes first (as PyTorch) come before alpha's here.
  detail::check_inplace_target(self, inplace_name(op), true);
  check_inplace_shape(inplace_name(op), self, o);
  detail::check_value_fits(alpha, k, inplace_name(op), o);
  Tensor scaled = scaled_by_alpha(k, o, alpha);
  if (k == kBFloat16 && scaled.dim() == 0 && self.dim() > 0) scaled = scaled.expand(self.sizes());
  return binary_inplace(op, self, scaled);
}
}  // namespace

Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) {
  return add_or_sub_(OpId::add, *this, o, alpha);
}
Tensor& Tensor::sub_(const Tensor& o, const Scalar& alpha) {
  return add_or_sub_(OpId::sub, *this, o, alpha);
}
Tensor& Tensor::mul_(const Tensor& o) { return binary_inplace(OpId::mul, *this, o); }
Tensor& Tensor::div_(const Tensor& o) { return binary_inplace(OpId::div, *this, o); }
Tensor& Tensor::add_(const Scalar& o) { return binary_inplace(OpId::add, *this, o); }
Tensor& Tensor::sub_(const Scalar& o) { return binary_inplace(OpId::sub, *this, o); }
Tensor& Tensor::mul_(const Scalar& o) { return binary_inplace(OpId::mul, *this, o); }
Tensor& Tensor::div_(const Scalar& o) { return binary_inplace(OpId::div, *this, o); }
Tensor& Tensor::clamp_(std::optional<Scalar> lo, std::optional<Scalar> hi) {
  detail::check_inplace_target(*this, "clamp_", true);
  Tensor result = wick::clamp(detach(), lo, hi);
  WICK_CHECK(can_cast(result.dtype(), dtype()), DtypeError, "clamp_", "result type ",
             result.dtype(), " can't be cast to ", describe(*this));
  const detail::InplaceRecord record(OpId::clamp, *this, nullptr);
  detail::copy_into(*this, result);
  storage()->bump_version();
  if (record.active()) {
    OpCall call;
    call.op = OpId::clamp;
    call.inputs[0] = this;  // the old value
    call.num_inputs = 1;
    call.outputs[0] = this;
    call.num_outputs = 1;
    if (lo) call.scalar_a = *lo, call.has_a = true;
    if (hi) call.scalar_b = *hi, call.has_b = true;
    record.finish(call);
  }
  return *this;
}

// ---- operators ----
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return binary(OpId::add, a, b); }
Tensor operator-(const Scalar& a, const Tensor& b) { return binary(OpId::sub, a, b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return binary(OpId::mul, a, b); }
Tensor operator/(const Scalar& a, const Tensor& b) { return binary(OpId::div, a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }
Tensor operator==(const Scalar& a, const Tensor& b) { return eq(b, a); }
Tensor operator!=(const Scalar& a, const Tensor& b) { return ne(b, a); }
Tensor operator<(const Scalar& a, const Tensor& b) { return gt(b, a); }
Tensor operator<=(const Scalar& a, const Tensor& b) { return ge(b, a); }
Tensor operator>(const Scalar& a, const Tensor& b) { return lt(b, a); }
Tensor operator>=(const Scalar& a, const Tensor& b) { return le(b, a); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }

}  // namespace wick
