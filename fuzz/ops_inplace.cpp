// ops_inplace.cpp: fuzz_ops steps: in-place ops (with aliasing operands), casts, printing,
// equal/allclose and device strings. Each step draws its operands from the input, predicts the
// outcome with the reference model (ops_reference.hpp) and checks wick against it; see
// fuzz_ops.cpp.
#include "ops_program.hpp"
#include "wick/dim_order.hpp"

namespace wick::fuzz::ops {

// The storage elements a tensor's elements occupy.
std::vector<int64_t> Program::footprint(const Tensor& t) {
  std::vector<int64_t> offs;
  for_each_index(t.sizes(),
                 [&](int64_t, const int64_t* idx) { offs.push_back(offset_at(t, idx)); });
  return offs;
}

void Program::inplace() {
  const Tensor* ps = pick();
  if (ps == nullptr) return;
  Tensor self = *ps;
  const uint32_t which = in_.below(10);
  const Tensor* other = in_.flag() ? pick() : nullptr;
  const Scalar s = scalar();
  const Scalar s2 = scalar();
  const bool has_lo = in_.flag(), has_hi = in_.flag();
  static const char* kNames[] = {"add_",  "sub_",  "mul_",   "div_",       "fill_",
                                 "zero_", "copy_", "clamp_", "add_ alpha", "sub_ alpha"};
  g_step = std::string(kNames[which]) + " of " + str(self) + " strides " + str(self.strides()) +
           " with " + (other ? str(*other) : str(s));
  const Ref rs = snapshot(self);
  const Ref ro = other ? snapshot(*other) : Ref{};
  // Self-overlapping (an expanded dim): an error, unless self is empty, since then nothing is
  // written twice (as PyTorch's; core/src/copy.cpp's has_internal_overlap).
  bool overlap = false;
  for (int64_t d = 0; d < self.dim(); ++d) {
    overlap = overlap || (self.strides()[d] == 0 && self.sizes()[d] > 1);
  }
  overlap = overlap && self.numel() > 0;
  Expect expect = overlap ? Expect::Error : Expect::Ok;
  Ref want{rs.sizes, rs.dtype, rs.v};
  const Dtype sd = rs.dtype;
  auto can_cast = [](Dtype from, Dtype to) {
    if (floating(from) && !floating(to)) return false;
    if (from != wick::kBool && to == wick::kBool) return false;
    return true;
  };
  if (which <= 3 || which >= 8) {
    Bin op = which == 8 ? Bin::add : which == 9 ? Bin::sub : static_cast<Bin>(which);
    Ref scaled = ro;
    Operand oo = other ? Operand{&ro, {}} : Operand{nullptr, s};
    bool fused = false;  // float32/float64 with alpha != 1: one fused multiply-add
    Dtype k8 = sd;
    if (which >= 8) {
      if (!other) return;
      k8 = result_type({Operand{&rs, {}}, Operand{&ro, {}}});
      if (!alpha_fits(k8, s2) || !can_cast(k8, sd)) {
        expect = Expect::Error;
      } else if (s2.to_double() != 1.0 && overflows(s2, k8)) {
        expect = Expect::Error;  // alpha.to<scalar_t>() is PyTorch's checked conversion
      } else if (s2.to_double() != 1.0 && (k8 == wick::kFloat32 || k8 == wick::kFloat64)) {
        fused = true;
      } else if (s2.to_double() != 1.0) {
        scaled = scaled_by_alpha(k8, ro, s2);
        // A 0-d float32 product is expanded to self's shape, so the sum is float32 (rounded
        // into self once).
        if (k8 == wick::kBFloat16 && scaled.sizes.empty() && !rs.sizes.empty()) {
          scaled = Ref{rs.sizes, scaled.dtype, std::vector<V>(rs.v.size(), scaled.v[0])};
        }
      }
      oo = Operand{&scaled, {}};
      g_step += " alpha " + str(s2);
    }
    Dtype k = result_type({Operand{&rs, {}}, oo});
    if (op == Bin::div) k = float_of(k);
    if (!can_cast(k, sd)) expect = Expect::Error;
    // sub_ takes no bool operand at all (PyTorch's sub_check), whatever the alpha.
    const bool other_bool = other ? ro.dtype == wick::kBool : s.kind() == wick::kBool;
    if (op == Bin::sub && (sd == wick::kBool || other_bool)) expect = Expect::Error;
    if (!oo.is_scalar()) {
      std::optional<Shape> b = broadcast(rs.sizes, oo.ref->sizes);
      if (!b || *b != rs.sizes) expect = Expect::Error;
    }
    if (expect == Expect::Ok) {
      Expect e2 = Expect::Ok;
      Ref r = fused ? fused_alpha_ref(op, rs, ro, k8, s2, e2)
                    : binary_ref(op, Operand{&rs, {}}, oo, e2);
      if (e2 != Expect::Ok) fail("inplace reference disagrees");
      for (size_t i = 0; i < r.v.size(); ++i) want.v[i] = cast(r.v[i], r.dtype, sd);
    }
  } else if (which == 4) {
    std::optional<V> v = scalar_as(s, sd);
    if (!v) {
      if (expect == Expect::Ok) expect = Expect::Error;
    } else {
      for (V& e : want.v) e = *v;
      if (overflows(s, sd)) expect = Expect::Error;
    }
  } else if (which == 5) {
    for (V& e : want.v) e = V{};
  } else if (which == 6) {
    if (!other) return;
    if (ro.sizes.size() > rs.sizes.size()) expect = Expect::Error;
    std::optional<Shape> b = broadcast(rs.sizes, ro.sizes);
    if (!b || *b != rs.sizes) expect = Expect::Error;
    if (expect == Expect::Ok) {
      for_each_index(rs.sizes, [&](int64_t lin, const int64_t* idx) {
        want.v[static_cast<size_t>(lin)] =
            cast(at_broadcast(ro, idx, rs.sizes.size()), ro.dtype, sd);
      });
    }
  } else {  // clamp_
    if (!has_lo && !has_hi) expect = Expect::Error;
    if (sd == wick::kBool) expect = Expect::Error;
    Dtype k = sd;
    if (has_lo) k = result_type({Operand{&rs, {}}, Operand{nullptr, s}});
    if (has_hi) k = promote(k, result_type({Operand{&rs, {}}, Operand{nullptr, s2}}));
    if (!can_cast(k, sd)) expect = Expect::Error;
    if ((has_lo && overflows(s, k)) || (has_hi && overflows(s2, k))) expect = Expect::Error;
    if (expect == Expect::Ok) {
      std::optional<V> lo = has_lo ? scalar_as(s, k) : std::nullopt;
      std::optional<V> hi = has_hi ? scalar_as(s2, k) : std::nullopt;
      // Both bounds with a NaN among them: every element NaN (PyTorch's NaN-propagating min and
      // max); one NaN bound alone is ignored.
      const bool nan_bound = lo && hi && floating(k) && (std::isnan(lo->d) || std::isnan(hi->d));
      for (size_t i = 0; i < rs.v.size(); ++i) {
        V x = cast(rs.v[i], sd, k);
        if (nan_bound) {
          x.d = kNaN;
        } else if (floating(k)) {
          if (!std::isnan(x.d)) {
            if (lo && x.d < lo->d) x.d = lo->d;
            if (hi && x.d > hi->d) x.d = hi->d;
          }
        } else {
          if (lo && x.i < lo->i) x.i = lo->i;
          if (hi && x.i > hi->i) x.i = hi->i;
        }
        want.v[i] = cast(x, k, sd);
      }
    }
  }
  // Bytes of the storage outside self must not change.
  const size_t nbytes = self.storage()->nbytes();
  std::vector<unsigned char> before(nbytes);
  if (nbytes) std::memcpy(before.data(), self.storage()->data(), nbytes);
  const bool ran = outcome(expect, [&] {
    switch (which) {
      case 0:
        other ? (void)(self += *other) : (void)self.add_(s);
        break;
      case 1:
        other ? (void)self.sub_(*other) : (void)(self -= s);
        break;
      case 2:
        other ? (void)self.mul_(*other) : (void)(self *= s);
        break;
      case 3:
        other ? (void)(self /= *other) : (void)self.div_(s);
        break;
      case 4:
        self.fill_(s);
        break;
      case 5:
        self.zero_();
        break;
      case 6:
        self.copy_(*other);
        break;
      case 7:
        self.clamp_(has_lo ? std::optional<Scalar>(s) : std::nullopt,
                    has_hi ? std::optional<Scalar>(s2) : std::nullopt);
        break;
      case 8:
        self.add_(*other, s2);
        break;
      default:
        self.sub_(*other, s2);
        break;
    }
  });
  if (!ran) {
    // A rejected in-place op must leave the storage as it was.
    if (nbytes && std::memcmp(before.data(), self.storage()->data(), nbytes) != 0) {
      fail(g_step + ": a rejected in-place op changed the storage");
    }
    return;
  }
  if (expect == Expect::Either) return;
  expect_equal(self, want, g_step, 1);
  // Everything outside self's footprint is untouched.
  std::vector<bool> inside(nbytes, false);
  const size_t es = self.element_size();
  for (int64_t off : footprint(self)) {
    for (size_t b = 0; b < es; ++b) inside[static_cast<size_t>(off) * es + b] = true;
  }
  const auto* after = static_cast<const unsigned char*>(self.storage()->data());
  for (size_t b = 0; b < nbytes; ++b) {
    if (!inside[b] && before[b] != after[b]) {
      fail(g_step + ": byte " + std::to_string(b) + " outside the written tensor changed");
    }
  }
}

// to(dtype), clone, contiguous, detach, item, to_vector.
void Program::cast_ops() {
  const Tensor* pa = pick();
  if (pa == nullptr) return;
  const Tensor& a = *pa;
  const uint32_t which = in_.below(5);
  const Dtype d = dtype();
  const Ref x = snapshot(a);
  g_step = std::string(which == 0   ? "to " + std::string(wick::dtype_name(d))
                       : which == 1 ? "clone"
                       : which == 2 ? "contiguous"
                       : which == 3 ? "item"
                                    : "to_vector") +
           " of " + str(a);
  if (which <= 2) {
    Tensor r;
    outcome(Expect::Ok, [&] {
      r = which == 0 ? a.to(d) : which == 1 ? a.clone() : a.contiguous();
    });
    Ref want{x.sizes, which == 0 ? d : x.dtype, {}};
    for (const V& v : x.v) want.v.push_back(cast(v, x.dtype, want.dtype));
    expect_equal(r, want, g_step, 0);
    if (which == 2 && !r.is_contiguous()) fail(g_step + ": not contiguous");
    // clone() and a cast keep the layout PyTorch's preserve_format keeps (wick/dim_order.hpp):
    // row-major stays row-major, another dense layout stays as it is, anything else becomes
    // dense.
    if ((which == 1 || (which == 0 && d != a.dtype())) && r.numel() > 0) {
      if (!wick::detail::is_non_overlapping_and_dense(r.sizes(), r.strides())) {
        fail(g_step + ": not dense");
      }
      if (a.is_contiguous() && !r.is_contiguous()) fail(g_step + ": not contiguous");
      if (!a.is_contiguous() &&
          wick::detail::is_non_overlapping_and_dense(a.sizes(), a.strides()) &&
          !(r.strides() == a.strides())) {
        fail(g_step + ": layout not kept");
      }
    }
    if (which == 1 && r.numel() > 0 && r.storage() == a.storage()) fail(g_step + ": shares");
    add(r);
  } else if (which == 3) {
    Scalar s;
    if (!outcome(x.v.size() == 1 ? Expect::Ok : Expect::Error, [&] { s = a.item(); })) return;
    const V v = x.v[0];
    const bool same = floating(x.dtype)
                          ? (std::isnan(v.d) ? std::isnan(s.to_double()) : s.to_double() == v.d)
                          : s.to_int64() == v.i;
    if (!same) fail(g_step + ": item gave " + str(s));
  } else {
    std::vector<double> got;
    outcome(Expect::Ok, [&] { got = a.to_vector<double>(); });
    for (size_t i = 0; i < got.size(); ++i) {
      const double w = cast(x.v[i], x.dtype, wick::kFloat64).d;
      if (!(got[i] == w || (std::isnan(got[i]) && std::isnan(w)))) fail(g_step + ": value");
    }
  }
}

// Printing, equal/allclose, broadcast_shapes, Device strings.
void Program::misc() {
  const uint32_t which = in_.below(4);
  if (which == 0) {
    const Tensor* a = pick();
    if (a == nullptr) return;
    g_step = "print " + str(*a);
    std::ostringstream out;
    outcome(Expect::Ok, [&] { out << *a; });
    const std::string text = out.str();
    if (text.rfind("tensor(", 0) != 0 || text.back() != ')') fail(g_step + ": printed " + text);
    // Every int64 value is printed exactly (tests/regress: "printing int64 values near
    // INT64_MAX"); past 1000 elements the print is a summary.
    if (a->dtype() == wick::kInt64 && a->numel() <= 1000) {
      for (const V& v : snapshot(*a).v) {
        if (text.find(std::to_string(v.i)) == std::string::npos) {
          fail(g_step + ": " + std::to_string(v.i) + " is missing from " + text);
        }
      }
    }
  } else if (which == 1) {
    const Tensor* a = pick();
    const Tensor* b = pick();
    if (a == nullptr) return;
    const Ref ra = snapshot(*a), rb = snapshot(*b);
    g_step = "equal " + str(*a) + " and " + str(*b);
    bool want = ra.sizes == rb.sizes;
    if (want) {
      const Dtype k = result_type({Operand{&ra, {}}, Operand{&rb, {}}});
      for (size_t i = 0; i < ra.v.size() && want; ++i) {
        V x = cast(ra.v[i], ra.dtype, k), y = cast(rb.v[i], rb.dtype, k);
        want = floating(k) ? x.d == y.d : x.i == y.i;
      }
    }
    bool got = false;
    outcome(Expect::Ok, [&] { got = wick::equal(*a, *b); });
    if (got != want) fail(g_step + ": equal() gave " + std::to_string(got));
  } else if (which == 2) {
    const Shape a = wild_shape(), b = wild_shape();
    g_step = "broadcast_shapes " + str(a) + " " + str(b);
    std::optional<Shape> want = broadcast(a, b);
    Shape got;
    if (!outcome(want ? Expect::Ok : Expect::Error, [&] { got = wick::broadcast_shapes(a, b); })) {
      return;
    }
    if (got != *want) fail(g_step + ": gave " + str(got));
  } else {
    std::string spec;
    const uint32_t n = in_.below(12);
    static const char kChars[] = "cpudacu:0129-+ x";
    for (uint32_t i = 0; i < n; ++i) spec += kChars[in_.below(sizeof kChars - 1)];
    if (in_.flag()) spec = (in_.flag() ? "cuda:" : "cpu:") + spec.substr(0, 3);
    g_step = "Device(\"" + spec + "\")";
    outcome(Expect::Either, [&] {
      wick::Device dev(spec);
      (void)dev.str();
      if (dev.is_cuda()) (void)wick::zeros({2}, wick::TensorOptions(dev));
    });
  }
}

}  // namespace wick::fuzz::ops
