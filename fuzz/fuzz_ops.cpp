// fuzz_ops.cpp: libFuzzer target for wick's op API. The input bytes decode (byte_reader.hpp)
// into a program of up to kMaxSteps steps over a pool of CPU tensors of every dtype, with
// zero sizes, transposed, sliced, offset and expanded layouts and views that share storage.
// Steps: factories with wild shapes (negative, huge, overflowing), elementwise ops with
// tensors and numbers, where, reductions, softmax, matmul, every view op, in-place ops (with
// aliasing operands), casts, printing, equal/allclose and device strings.
// Every step's outcome is predicted by a plain reference written here: a float64 (or exact
// int64) model that reads operands through data_ptr + strides with its own loops, decides
// whether the op must throw a wick::Error, and computes the result's shape, dtype and values.
// Any other exception, a result where an error was due, an error where a result was due, or a
// wrong value aborts (a crash for libFuzzer). Debug fill is on: unwritten output elements are
// NaN / -1 / 255 and show up as wrong values.
// Built with fuzz/CMakeLists.txt; run by .ci/fuzz.sh; see docs/reliability.md.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ops_reference.hpp"

namespace {

using namespace wick::fuzz::ops;

// ---------------------------------------------------------------------------------------
// The program.

class Program {
 public:
  Program(const uint8_t* data, size_t size) : in_(data, size) {}

  void run() {
    static const bool trace = std::getenv("WICK_FUZZ_TRACE") != nullptr;
    for (int step = 0; step < kMaxSteps && !in_.done(); ++step) {
      const uint8_t op = in_.byte();
      switch (op % 16) {
        case 0:
        case 1:
          create();
          break;
        case 2:
          factory();
          break;
        case 3:
          unary();
          break;
        case 4:
        case 5:
          binary();
          break;
        case 6:
          where();
          break;
        case 7:
          reduce();
          break;
        case 8:
          softmax();
          break;
        case 9:
          matmul();
          break;
        case 10:
        case 11:
          view();
          break;
        case 12:
        case 13:
          inplace();
          break;
        case 14:
          cast_ops();
          break;
        default:
          misc();
          break;
      }
      if (trace) std::fprintf(stderr, "fuzz_ops: step %d done: %s\n", step, g_step.c_str());
    }
  }

 private:
  ByteReader in_;
  std::vector<Tensor> pool_;
  uint64_t lcg_ = 0;

  // ---- choices ----

  Dtype dtype() { return kDtypes[in_.below(5)]; }

  // A small shape: rank 0-4, dims 0-5 (numel <= 625).
  Shape small_shape() {
    static constexpr int64_t kDims[8] = {1, 2, 3, 4, 1, 2, 5, 0};
    Shape s;
    const uint32_t rank = in_.below(5);
    for (uint32_t i = 0; i < rank; ++i) s.push_back(kDims[in_.below(8)]);
    return s;
  }

  // A dim value for factories and view arguments: mostly small, sometimes negative, huge, or
  // chosen so that products overflow int64.
  int64_t wild_dim() {
    static constexpr int64_t kWild[16] = {0,
                                          1,
                                          2,
                                          3,
                                          -1,
                                          -2,
                                          int64_t{1} << 31,
                                          (int64_t{1} << 32) + 1,
                                          int64_t{1} << 40,
                                          int64_t{1} << 62,
                                          INT64_MAX,
                                          INT64_MIN,
                                          3037000500,  // its square overflows int64
                                          4,
                                          5,
                                          -3};
    return kWild[in_.below(16)];
  }

  Shape wild_shape() {
    Shape s;
    uint32_t rank = in_.below(6);
    if (in_.below(16) == 0) rank = 17;  // one past Shape::kMaxDims
    std::vector<int64_t> dims;
    for (uint32_t i = 0; i < rank; ++i) dims.push_back(in_.flag() ? wild_dim() : in_.below(4));
    if (dims.size() > static_cast<size_t>(Shape::kMaxDims)) {
      // Shape itself must refuse more than 16 dims with a wick::Error.
      g_step = "Shape of 17 dims";
      outcome(Expect::Error, [&] { Shape bad(dims); });
      dims.resize(Shape::kMaxDims);
    }
    return Shape(dims);
  }

  int64_t small_int() {
    static constexpr int64_t kInts[16] = {
        0, 1, 2, -1, 3, -2, 4, -3, 5, 7, 100, -100, INT64_MAX, INT64_MIN, int64_t{1} << 32,
        // rounds differently to float32 directly and through double
        (int64_t{1} << 54) + (int64_t{1} << 30) + 1};
    return kInts[in_.below(16)];
  }

  Scalar scalar() {
    switch (in_.below(4)) {
      case 0:
        return Scalar(in_.flag());
      case 1:
        return Scalar(small_int());
      case 2:
        return Scalar(static_cast<double>(static_cast<int>(in_.byte()) - 128) / 8.0);
      default:
        return Scalar(wick::fuzz::special_double(in_.byte()));
    }
  }

  uint64_t next_random() {
    lcg_ = lcg_ * 6364136223846793005ull + 1442695040888963407ull;
    return lcg_ >> 17;
  }

  // A value for an element of dtype d: mostly small numbers, with a density of specials.
  V random_value(Dtype d, uint32_t special_rate) {
    const uint64_t r = next_random();
    V v;
    if (d == wick::kBool) {
      v.i = static_cast<int64_t>(r & 1);
    } else if (d == wick::kInt64) {
      v.i = (r % 64 < special_rate) ? small_int_from(r >> 8) : static_cast<int64_t>(r % 9) - 4;
    } else {
      if (r % 64 < special_rate) {
        v.d = wick::fuzz::special_double(static_cast<uint8_t>(r >> 8));
      } else {
        v.d = static_cast<double>(static_cast<int64_t>(r % 33) - 16) / 4.0;
      }
      v.d = round_to(d, v.d);
    }
    return v;
  }
  static int64_t small_int_from(uint64_t r) {
    static constexpr int64_t kInts[8] = {INT64_MAX, INT64_MIN, int64_t{1} << 32, -1000,
                                         1000,      3,         int64_t{1} << 62, -7};
    return kInts[r % 8];
  }

  // A tensor from the pool (nullptr when empty).
  const Tensor* pick() {
    if (pool_.empty()) return nullptr;
    return &pool_[in_.below(static_cast<uint32_t>(pool_.size()))];
  }

  void add(const Tensor& t) {
    if (!t.defined() || t.numel() > kMaxElems) return;
    // [0, 2^62, 2^62] (from expand()): any op that allocates a result of its shape must throw
    // (strides past int64), which would make the pool useless.
    if (strides_overflow(t.sizes())) return;
    if (pool_.size() < kPoolSize) {
      pool_.push_back(t);
    } else {
      pool_[in_.below(kPoolSize)] = t;
    }
  }

  // ---- steps ----

  // A fresh tensor with values, laid out contiguous, transposed, sliced, offset or expanded.
  void create() {
    const Dtype d = dtype();
    const Shape sizes = small_shape();
    const uint32_t layout = in_.below(5);
    lcg_ = in_.u32();
    const uint32_t special_rate = in_.below(4) == 0 ? in_.below(64) : 0;
    g_step =
        "create " + str(sizes) + " " + wick::dtype_name(d) + " layout " + std::to_string(layout);
    const int64_t nd = static_cast<int64_t>(sizes.size());
    Tensor base, t;
    if (layout == 1 && nd >= 2) {
      Shape swapped = sizes;
      std::swap(swapped[nd - 1], swapped[nd - 2]);
      base = wick::empty(swapped, d);
      t = base.transpose(-1, -2);
    } else if (layout == 2 && nd >= 1) {
      Shape wide = sizes;
      wide[nd - 1] = sizes[nd - 1] * 2 + 1;
      base = wick::empty(wide, d);
      t = base.slice(-1, 1, std::nullopt, 2).narrow(-1, 0, sizes[nd - 1]);
    } else if (layout == 3 && nd >= 1) {
      Shape taller = sizes;
      taller[0] += 2;
      base = wick::empty(taller, d);
      t = base.narrow(0, 1, sizes[0]);
    } else if (layout == 4 && nd >= 1 && sizes[0] > 1) {
      Shape one = sizes;
      one[0] = 1;
      base = wick::empty(one, d);
      t = base.expand(sizes);
    } else {
      base = wick::empty(sizes, d);
      t = base;
    }
    // Fill the whole base (so that slices' gaps hold values too).
    for_each_index(base.sizes(), [&](int64_t, const int64_t* idx) {
      write_elem(base, offset_at(base, idx), random_value(d, special_rate));
    });
    if (t.sizes() != sizes) fail("create: got " + str(t.sizes()));
    add(t);
  }

  // empty / zeros / ones / full / arange / eye with wild arguments.
  void factory() {
    const uint32_t which = in_.below(6);
    const Dtype d = dtype();
    if (which <= 3) {
      const Shape sizes = wild_shape();
      const Scalar value = scalar();
      g_step = std::string("factory ") + "ezof"[which] + " " + str(sizes) + " " +
               wick::dtype_name(d) + " value " + str(value);
      const std::optional<int64_t> n = numel_of(sizes);
      int64_t nbytes = 0;
      const bool overflow =
          !n || __builtin_mul_overflow(*n, static_cast<int64_t>(wick::element_size(d)), &nbytes);
      if (!overflow && *n > kMaxElems && nbytes < (int64_t{1} << 42)) return;  // too big to run
      Expect expect = overflow ? Expect::Error : (*n > kMaxElems ? Expect::Error : Expect::Ok);
      // numel 0 but strides past int64: PyTorch throws "Stride calculation overflowed", and so
      // does wick (tests/regress: "empty tensors whose strides overflow int64").
      if (!overflow && strides_overflow(sizes)) expect = Expect::Error;
      std::optional<V> fill;
      if (which == 3) {
        fill = scalar_as(value, d);
        if (!fill && !overflow && *n <= kMaxElems) {
          // A float that int64 cannot hold: a ValueError, as in PyTorch (tests/regress: "full
          // and fill_ with a float int64 can't hold").
          expect = Expect::Error;
        }
        if (fill && (d == wick::kFloat32 || d == wick::kBFloat16) &&
            value.kind() == wick::kFloat64 && std::isinf(fill->d) &&
            std::isfinite(value.to_double()) && expect == Expect::Ok) {
          expect = Expect::Either;  // float32 overflow: inf (IEEE) or an error (PyTorch)
        }
      }
      Tensor t;
      bool ran = outcome(expect, [&] {
        switch (which) {
          case 0:
            t = wick::empty(sizes, d);
            break;
          case 1:
            t = wick::zeros(sizes, d);
            break;
          case 2:
            t = wick::ones(sizes, d);
            break;
          default:
            t = wick::full(sizes, value, d);
            break;
        }
      });
      if (!ran) return;
      if (which == 0) {
        // Not pooled: its elements are unwritten (0xFF under debug fill).
        if (t.sizes() != sizes || t.dtype() != d || !t.is_contiguous()) fail("empty: layout");
        return;
      }
      if (expect == Expect::Either) return;
      const V v = which == 1 ? V{} : which == 2 ? cast(V{0, 1}, wick::kInt64, d) : *fill;
      const Ref want{sizes, d, std::vector<V>(static_cast<size_t>(*n), v)};
      expect_equal(t, want, g_step, 0);
      add(t);
    } else if (which == 4) {
      arange(d);
    } else {
      const int64_t n = in_.flag() ? wild_dim() : in_.below(6);
      g_step = "eye " + std::to_string(n) + " " + wick::dtype_name(d);
      int64_t nn = 0;
      if (n >= 0 && !__builtin_mul_overflow(n, n, &nn) && nn > kMaxElems) return;
      const Expect expect = (n < 0 || __builtin_mul_overflow(n, n, &nn) ||
                             __builtin_mul_overflow(nn, int64_t{8}, &nn))
                                ? Expect::Error
                                : Expect::Ok;
      Tensor t;
      if (!outcome(expect, [&] { t = wick::eye(n, d); })) return;
      Ref want{{n, n}, d, {}};
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) want.v.push_back(cast(V{0, i == j}, wick::kInt64, d));
      }
      expect_equal(t, want, g_step, 0);
      add(t);
    }
  }

  void arange(Dtype d) {
    const Scalar start = in_.flag() ? Scalar(small_int()) : scalar();
    const Scalar end = in_.flag() ? Scalar(small_int()) : scalar();
    const Scalar step = in_.flag() ? Scalar(small_int()) : scalar();
    const bool give_dtype = in_.flag();
    g_step = "arange " + str(start) + " " + str(end) + " " + str(step) +
             (give_dtype ? std::string(" ") + wick::dtype_name(d) : "");
    const bool all_integer = !start.is_floating() && !end.is_floating() && !step.is_floating();
    const Dtype out = give_dtype ? d : (all_integer ? wick::kInt64 : wick::kFloat32);
    const double s = start.to_double(), e = end.to_double(), st = step.to_double();
    Expect expect = Expect::Ok;
    double count = 0;
    if (!(st != 0 && std::isfinite(s) && std::isfinite(e) && std::isfinite(st))) {
      expect = Expect::Error;
    } else if (!((st > 0 && e >= s) || (st < 0 && e <= s))) {
      expect = Expect::Error;
    } else {
      count = std::ceil((e - s) / st);
      if (!(count < 9.0e18)) {
        expect = Expect::Error;
      } else if (count > kMaxElems) {
        return;
      }
    }
    const int64_t n = expect == Expect::Ok ? static_cast<int64_t>(count) : 0;
    Ref want{{n}, out, {}};
    if (expect == Expect::Ok) {
      for (int64_t i = 0; i < n; ++i) {
        if (all_integer) {
          // start + i * step, exactly (it lies between start and end, so it fits int64).
          __int128 v =
              static_cast<__int128>(start.to_int64()) + static_cast<__int128>(i) * step.to_int64();
          if (v < INT64_MIN || v > INT64_MAX) {
            expect = Expect::Either;  // the double count overshot the end
            break;
          }
          want.v.push_back(cast(V{0, static_cast<int64_t>(v)}, wick::kInt64, out));
        } else {
          double v = s + static_cast<double>(i) * st;
          if (out == wick::kInt64 && !(v >= -0x1p63 && v < 0x1p63)) {
            // A value int64 cannot hold: a ValueError (tests/regress: "arange into int64 past
            // its range").
            expect = Expect::Error;
            break;
          }
          want.v.push_back(cast(V{v, 0}, wick::kFloat64, out));
        }
      }
    }
    Tensor t;
    std::optional<wick::TensorOptions> options;
    if (give_dtype) options = wick::TensorOptions(d);
    if (!outcome(expect, [&] { t = wick::arange(start, end, step, options); })) return;
    if (expect == Expect::Ok) expect_equal(t, want, g_step, 0);
    add(t);
  }

  enum class Un { neg, abs, exp, log, sqrt, relu, sigmoid, tanh, pow_scalar, clamp };

  void unary() {
    const Tensor* a = pick();
    if (a == nullptr) return;
    const Un op = static_cast<Un>(in_.below(10));
    static const char* kNames[] = {"neg",  "abs",     "exp",  "log",        "sqrt",
                                   "relu", "sigmoid", "tanh", "pow_scalar", "clamp"};
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
        k = float_of(k);
        break;
      case Un::neg:
      case Un::abs:
      case Un::relu:
        if (is_bool) expect = Expect::Error;
        break;
      case Un::pow_scalar:
        if (is_bool) expect = Expect::Error;
        k = result_type({Operand{&x, {}}, Operand{nullptr, e}});
        break;
      case Un::clamp:
        if (!has_lo && !has_hi) expect = Expect::Error;
        if (is_bool) expect = Expect::Error;
        if (has_lo) k = result_type({Operand{&x, {}}, Operand{nullptr, lo}});
        if (has_hi) k = promote(k, result_type({Operand{&x, {}}, Operand{nullptr, hi}}));
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
              out = (d > 0 || std::isnan(d)) ? d : 0.0;
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
              out = std::pow(d, ev->d);
              ulps = 8;
              break;
            case Un::clamp:
              out = d;
              if (!std::isnan(d)) {
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
          }
        })) {
      return;
    }
    expect_equal(out, want, g_step, ulps);
    add(out);
  }

  // The reference for binary(op, a, b); sets expect.
  Ref binary_ref(Bin op, const Operand& a, const Operand& b, Expect& expect) {
    Dtype k = result_type({a, b});
    if (op == Bin::sub && k == wick::kBool) expect = Expect::Error;
    if (op == Bin::pow && k == wick::kBool) expect = Expect::Error;
    if (op == Bin::div) k = float_of(k);
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
  static bool alpha_fits(Dtype k, const Scalar& alpha) {
    if (alpha.is_floating() && !floating(k)) return false;
    return !(alpha.kind() == wick::kBool && k != wick::kBool);
  }
  // alpha * b for a result of dtype k: b cast to k times alpha (a bool for bool); for bfloat16
  // a float32 product of bfloat16 values, the sum then rounded once.
  Ref scaled_by_alpha(Dtype k, const Ref& rb, const Scalar& alpha) {
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

  void binary() {
    const Tensor* a = pick();
    if (a == nullptr) return;
    const Bin op = static_cast<Bin>(in_.below(13));
    // 0, 1: tensor op tensor (1: with alpha for add/sub); 2: tensor op number; 3: number op
    // tensor (add, sub, mul, div, pow only).
    uint32_t form = in_.below(4);
    if (form == 3 && op != Bin::add && op != Bin::sub && op != Bin::mul && op != Bin::div &&
        op != Bin::pow) {
      form = 2;
    }
    const Tensor* b = form <= 1 ? pick() : nullptr;
    const Scalar s = scalar();
    const bool use_alpha = (op == Bin::add || op == Bin::sub) && form == 1;
    const Ref ra = snapshot(*a);
    const Ref rb = b ? snapshot(*b) : Ref{};
    g_step = std::string(kBinNames[static_cast<int>(op)]) + " form " + std::to_string(form) +
             " of " + str(*a) + (b ? " and " + str(*b) : " and number " + str(s)) +
             (use_alpha ? " alpha " + str(s) : "");
    Expect expect = Expect::Ok;
    Ref want;
    Operand oa{&ra, {}};
    if (use_alpha) {
      // add(a, b, alpha) = add(a, alpha * b) when alpha != 1.
      const Dtype k = result_type({oa, Operand{&rb, {}}});
      const bool fused = k == wick::kBFloat16 && s.to_double() != 1.0;
      if (!alpha_fits(k, s)) {
        expect = Expect::Error;
      } else if (s.to_double() == 1.0) {
        want = binary_ref(op, oa, Operand{&rb, {}}, expect);
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
    } else if (form == 2 && (op == Bin::maximum || op == Bin::minimum)) {
      // These take wick::scalar_tensor(s): a 0-d tensor of the number's default dtype.
      const Dtype sd = s.kind() == wick::kFloat64 ? wick::kFloat32 : s.kind();
      const Ref zero_d{{}, sd, {*scalar_as(s, sd)}};
      want = binary_ref(op, oa, Operand{&zero_d, {}}, expect);
    } else if (form == 2) {
      want = binary_ref(op, oa, Operand{nullptr, s}, expect);
      // pow(tensor, number) is pow_scalar, which rejects any bool base (ops_elementwise.cpp).
      if (op == Bin::pow && ra.dtype == wick::kBool) expect = Expect::Error;
    } else {
      want = binary_ref(op, Operand{nullptr, s}, oa, expect);
    }
    Tensor out;
    if (!outcome(expect, [&] { out = run_binary(op, form, *a, b, s, use_alpha); })) return;
    expect_equal(out, want, g_step, floating(want.dtype) ? ulps_of(op) : 0);
    add(out);
  }

  static Tensor run_binary(Bin op, uint32_t form, const Tensor& a, const Tensor* b, const Scalar& s,
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
          return wick::maximum(a, wick::scalar_tensor(s));
        case Bin::minimum:
          return wick::minimum(a, wick::scalar_tensor(s));
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
      default:
        return wick::pow(s, a);
    }
  }

  void where() {
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

  enum class Red { sum, mean, max, min, amax, amin, argmax, argmin };

  void reduce() {
    const Tensor* a = pick();
    if (a == nullptr) return;
    const Red op = static_cast<Red>(in_.below(8));
    static const char* kNames[] = {"sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin"};
    // Forms: 0 everything (op()), 1 one dim, 2 a list of dims (sum/mean only).
    uint32_t form = in_.below(3);
    const bool keepdim = in_.flag();
    Shape dims;
    const uint32_t ndims = form == 2 ? in_.below(4) : 1;
    for (uint32_t i = 0; i < ndims; ++i) {
      dims.push_back(static_cast<int64_t>(in_.below(11)) - 5);  // -5 .. 5
    }
    if (form == 2 && op != Red::sum && op != Red::mean) form = 1;
    if (form == 0 && (op == Red::amax || op == Red::amin)) form = 1;
    if (form == 1) dims.resize(1);
    const Ref x = snapshot(*a);
    const int64_t nd = static_cast<int64_t>(x.sizes.size());
    g_step = std::string(kNames[static_cast<int>(op)]) + " form " + std::to_string(form) +
             " dims " + str(dims) + (keepdim ? " keepdim" : "") + " of " + str(*a);
    Expect expect = Expect::Ok;
    // The mask of reduced dims.
    std::vector<bool> mask(static_cast<size_t>(nd), form == 0 || (form == 2 && dims.empty()));
    bool bad = false;
    bool flat = form == 0 && (op == Red::argmax || op == Red::argmin);
    Shape xs = x.sizes;
    if (flat) {
      xs = Shape{*numel_of(x.sizes)};
      mask.assign(1, true);
    } else if (form != 0) {
      for (int64_t d : dims) {
        int64_t w = wrap_dim_or(d, nd, bad);
        if (bad) break;
        if (nd == 0) continue;
        if (mask[w]) {
          if (form == 2) bad = true;  // repeated dim
        }
        mask[w] = true;
      }
    }
    if (bad) expect = Expect::Error;
    Dtype out_dtype = x.dtype;
    if (op == Red::sum && !floating(out_dtype)) out_dtype = wick::kInt64;
    if (op == Red::mean && !floating(out_dtype)) expect = Expect::Error;
    if (op == Red::argmax || op == Red::argmin) out_dtype = wick::kInt64;
    // Kept sizes, final sizes, reduced count.
    Shape kept = xs, final_sizes;
    int64_t reduced = 1;
    for (size_t d = 0; d < xs.size(); ++d) {
      if (mask[d]) {
        if (__builtin_mul_overflow(reduced, xs[d], &reduced)) {
          // [2^63-1, 0, 3] over dims 0 and 2: saturate, only "is it 0" matters then (the
          // output is empty)
          reduced = INT64_MAX;
        }
        kept[d] = 1;
        if (keepdim && !flat && form != 0) final_sizes.push_back(1);
      } else {
        final_sizes.push_back(xs[d]);
      }
    }
    const bool extreme = op != Red::sum && op != Red::mean;
    if (extreme && reduced == 0 && expect == Expect::Ok) expect = Expect::Error;
    // Reducing away the 0 dim of [0, 3, 3037000500] leaves billions of outputs: too big to run.
    if (expect == Expect::Ok && numel_of(kept).value_or(INT64_MAX) > kMaxElems) return;
    Ref want{final_sizes, out_dtype, {}};
    Ref want_indices{final_sizes, wick::kInt64, {}};
    std::vector<double> abs_sums;
    // Outputs whose finite terms add up past the largest double: whether wick's partial sums
    // overflow (to inf, as PyTorch's would; or to NaN next to an inf term of the other sign)
    // depends on its order, so the value is not checked.
    std::vector<bool> may_overflow;
    if (expect == Expect::Ok) {
      // Contiguous strides of xs (the snapshot is row-major).
      Shape st = Shape::filled(xs.size(), 1);
      for (int64_t d = static_cast<int64_t>(xs.size()) - 2; d >= 0; --d) {
        st[d] = st[d + 1] * std::max<int64_t>(xs[d + 1], 1);
      }
      Shape red_sizes;
      for (size_t d = 0; d < xs.size(); ++d) red_sizes.push_back(mask[d] ? xs[d] : 1);
      for_each_index(kept, [&](int64_t, const int64_t* kidx) {
        int64_t base = 0;
        for (size_t d = 0; d < xs.size(); ++d) base += (mask[d] ? 0 : kidx[d]) * st[d];
        // The reference sum in long double (64-bit mantissa on x86): close to exact, so that
        // the room below is wick's own error, whatever order wick adds in.
        long double dsum = 0, abs_exact = 0;
        double abs_sum = 0;
        uint64_t isum = 0;
        V best;
        int64_t best_index = -1;
        for_each_index(red_sizes, [&](int64_t lin, const int64_t* ridx) {
          int64_t off = base;
          for (size_t d = 0; d < xs.size(); ++d) off += (mask[d] ? ridx[d] : 0) * st[d];
          const V v = x.v[static_cast<size_t>(off)];
          if (floating(x.dtype)) {
            dsum += v.d;
            abs_sum += std::fabs(v.d);
            if (std::isfinite(v.d)) abs_exact += std::fabs(static_cast<long double>(v.d));
          } else {
            isum += static_cast<uint64_t>(v.i);
          }
          if (extreme) {
            const bool want_max = op == Red::max || op == Red::amax || op == Red::argmax;
            bool better;
            if (best_index < 0) {
              better = true;
            } else if (floating(x.dtype)) {
              better = !std::isnan(best.d) &&
                       (std::isnan(v.d) || (want_max ? v.d > best.d : v.d < best.d));
            } else {
              better = want_max ? v.i > best.i : v.i < best.i;
            }
            if (better) {
              best = v;
              best_index = lin;
            }
          }
        });
        V r;
        switch (op) {
          case Red::sum:
            if (floating(x.dtype)) {
              r.d = round_to(x.dtype, static_cast<double>(dsum));
            } else {
              r.i = static_cast<int64_t>(isum);
            }
            break;
          case Red::mean:
            r.d = static_cast<double>(dsum / static_cast<long double>(reduced));
            r.d = round_to(x.dtype, r.d);
            break;
          case Red::argmax:
          case Red::argmin:
            r.i = best_index;
            break;
          default:
            r = best;
            break;
        }
        want.v.push_back(r);
        want_indices.v.push_back(V{0, best_index});
        abs_sums.push_back(abs_sum);
        may_overflow.push_back(abs_exact > static_cast<long double>(1.7976931348623157e308));
      });
    }
    Tensor values, indices;
    const bool two = (op == Red::max || op == Red::min) && form == 1;
    if (!outcome(expect, [&] {
          const int64_t d = dims.empty() ? 0 : dims[0];
          switch (op) {
            case Red::sum:
              values = form == 0   ? a->sum()
                       : form == 1 ? wick::sum(*a, d, keepdim)
                                   : a->sum(dims, keepdim);
              break;
            case Red::mean:
              values = form == 0   ? wick::mean(*a)
                       : form == 1 ? a->mean(d, keepdim)
                                   : wick::mean(*a, dims, keepdim);
              break;
            case Red::max:
              if (form == 0) {
                values = a->max();
              } else {
                std::tie(values, indices) = wick::max(*a, d, keepdim);
              }
              break;
            case Red::min:
              if (form == 0) {
                values = wick::min(*a);
              } else {
                std::tie(values, indices) = a->min(d, keepdim);
              }
              break;
            case Red::amax:
              values = a->amax(d, keepdim);
              break;
            case Red::amin:
              values = wick::amin(*a, d, keepdim);
              break;
            case Red::argmax:
              values = form == 0 ? a->argmax() : wick::argmax(*a, d, keepdim);
              break;
            case Red::argmin:
              values = form == 0 ? wick::argmin(*a) : a->argmin(d, keepdim);
              break;
          }
        })) {
      return;
    }
    if (op == Red::argmax || op == Red::argmin) {
      expect_equal(values, want, g_step, 0);
    } else {
      // wick sums in double, in blocks and 16 lanes whose partial sums are added in a fixed
      // order (kernels/cpu/reduce.cpp, vec_kernels.hpp): each element's rounding is at most
      // the double epsilon times the partial sums it passes through, about n / 16 + 16 of
      // them (n elements in a lane, then the lanes and blocks combined). Room: that many
      // epsilons of the magnitudes summed, against the near-exact reference.
      const double adds = static_cast<double>(reduced) / 16.0 + 16.0;
      expect_equal(values, want, g_step, [&](size_t i) {
        if (may_overflow[i]) return std::pair<int, double>(-1, 0.0);
        const double room = abs_sums[i] * adds * 1.12e-16;
        return std::pair<int, double>(extreme ? 0 : 2, extreme ? 0.0 : room);
      });
    }
    // max/min over one dim also give indices: the position of the first extreme along it.
    if (two) expect_equal(indices, want_indices, g_step + " (indices)", 0);
    add(values);
  }

  void softmax() {
    const Tensor* a = pick();
    if (a == nullptr) return;
    const bool log_form = in_.flag();
    const int64_t dim = static_cast<int64_t>(in_.below(9)) - 4;
    const Ref x = snapshot(*a);
    const int64_t nd = static_cast<int64_t>(x.sizes.size());
    g_step = std::string(log_form ? "log_softmax" : "softmax") + " dim " + std::to_string(dim) +
             " of " + str(*a);
    bool bad = false;
    const int64_t w = wrap_dim_or(dim, nd, bad);
    Expect expect = (bad || !floating(x.dtype)) ? Expect::Error : Expect::Ok;
    Ref want{x.sizes, x.dtype, x.v};
    // log_softmax(x)_i = (x_i - m) - log(sum): the sum of n rounded exponentials carries a
    // relative error up to about (n + 1) eps, which log turns into an absolute error of that
    // size. Near a result of 0 (the row's maximum, the others far below) no count of the
    // result's own ulps covers it: float32 rounds 1 + 2e-16 to 1 and gives 0, where the exact
    // answer is -2.2e-16 (PyTorch gives 0 too). softmax's error is relative: the same sum's
    // n ulps plus those of exp and the division.
    double log_abs_tol = 0;
    int ulps = 4;
    if (expect == Expect::Ok && !x.v.empty()) {
      const Shape s = nd == 0 ? Shape{1} : x.sizes;
      const int64_t n = s[w];
      // bfloat16 is computed in float32 and rounded once at the end.
      const bool f32 = x.dtype != wick::kFloat64;
      const double eps = f32 ? 0x1p-23 : 0x1p-52;
      if (log_form) {
        log_abs_tol = static_cast<double>(n + 1) * eps;
      } else {
        ulps += static_cast<int>(std::min<int64_t>(n, 1 << 20));
      }
      int64_t inner = 1;
      for (size_t d = w + 1; d < s.size(); ++d) inner *= s[d];
      const int64_t outer = static_cast<int64_t>(x.v.size()) / (n * inner);
      auto T = [&](double v) { return f32 ? round_f32(v) : v; };
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t in = 0; in < inner; ++in) {
          auto at = [&](int64_t i) { return static_cast<size_t>((o * n + i) * inner + in); };
          double m = -kInf;
          for (int64_t i = 0; i < n; ++i) m = x.v[at(i)].d > m ? x.v[at(i)].d : m;
          if (m == -kInf) m = 0;
          double total = 0;
          for (int64_t i = 0; i < n; ++i) total += std::exp(T(x.v[at(i)].d - m));
          for (int64_t i = 0; i < n; ++i) {
            const double shifted = T(x.v[at(i)].d - m);
            want.v[at(i)].d =
                round_to(x.dtype, log_form ? shifted - std::log(total) : std::exp(shifted) / total);
          }
        }
      }
    }
    Tensor out;
    if (!outcome(expect, [&] { out = log_form ? a->log_softmax(dim) : wick::softmax(*a, dim); })) {
      return;
    }
    expect_equal(out, want, g_step,
                 [&](size_t) { return std::pair<int, double>(ulps, log_abs_tol); });
    add(out);
  }

  void matmul() {
    const Tensor* a = pick();
    const Tensor* b = pick();
    if (a == nullptr) return;
    const bool use_mm = in_.below(4) == 0;
    const Ref ra = snapshot(*a), rb = snapshot(*b);
    g_step = std::string(use_mm ? "mm " : "matmul ") + str(*a) + " @ " + str(*b);
    Expect expect = Expect::Ok;
    const int64_t da = static_cast<int64_t>(ra.sizes.size());
    const int64_t db = static_cast<int64_t>(rb.sizes.size());
    if (use_mm && (da != 2 || db != 2)) expect = Expect::Error;
    if (da < 1 || db < 1 || ra.dtype != rb.dtype || ra.dtype == wick::kBool) {
      expect = Expect::Error;
    }
    Ref want{{}, ra.dtype, {}};
    std::vector<double> bounds;
    if (expect == Expect::Ok) {
      Shape as = da == 1 ? Shape{1, ra.sizes[0]} : ra.sizes;
      Shape bs = db == 1 ? Shape{rb.sizes[0], 1} : rb.sizes;
      const int64_t m = as[as.size() - 2], k = as[as.size() - 1];
      const int64_t k2 = bs[bs.size() - 2], n = bs[bs.size() - 1];
      Shape ba(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
      std::optional<Shape> batch = broadcast(ba, bb);
      Shape full_sizes = batch.value_or(Shape{});
      full_sizes.push_back(m);
      full_sizes.push_back(n);
      if (k != k2 || !batch || !numel_of(full_sizes) || strides_overflow(full_sizes)) {
        expect = Expect::Error;
      } else {
        Shape final_sizes = *batch;
        if (da > 1) final_sizes.push_back(m);
        if (db > 1) final_sizes.push_back(n);
        want.sizes = final_sizes;
        // [5, 0] @ [0, 3037000500] is a valid product with billions of outputs: too big to run.
        if (*numel_of(full_sizes) > kMaxElems) return;
        // Row-major strides of the (promoted) operands.
        auto strides = [](const Shape& s) {
          Shape st = Shape::filled(s.size(), 1);
          for (int64_t d = static_cast<int64_t>(s.size()) - 2; d >= 0; --d) {
            st[d] = st[d + 1] * std::max<int64_t>(s[d + 1], 1);
          }
          return st;
        };
        const Shape sa = strides(as), sb = strides(bs);
        Shape out_batch_full = *batch;
        out_batch_full.push_back(m);
        out_batch_full.push_back(n);
        const size_t nb = batch->size();
        for_each_index(out_batch_full, [&](int64_t, const int64_t* idx) {
          int64_t oa = 0, ob = 0;
          for (size_t d = 0; d < ba.size(); ++d) {
            oa += (ba[d] == 1 ? 0 : idx[d + nb - ba.size()]) * sa[d];
          }
          for (size_t d = 0; d < bb.size(); ++d) {
            ob += (bb[d] == 1 ? 0 : idx[d + nb - bb.size()]) * sb[d];
          }
          const int64_t i = idx[nb], j = idx[nb + 1];
          V r;
          double acc = 0, bound = 0;
          uint64_t iacc = 0;
          for (int64_t kk = 0; kk < k; ++kk) {
            const V x =
                ra.v[static_cast<size_t>(oa + i * sa[as.size() - 2] + kk * sa[as.size() - 1])];
            const V y =
                rb.v[static_cast<size_t>(ob + kk * sb[bs.size() - 2] + j * sb[bs.size() - 1])];
            if (floating(ra.dtype)) {
              acc += x.d * y.d;
              bound += std::fabs(x.d * y.d);
            } else {
              iacc += static_cast<uint64_t>(x.i) * static_cast<uint64_t>(y.i);
            }
          }
          if (floating(ra.dtype)) {
            r.d = round_to(ra.dtype, acc);
          } else {
            r.i = static_cast<int64_t>(iacc);
          }
          want.v.push_back(r);
          bounds.push_back(bound * static_cast<double>(k + 2));
        });
      }
    }
    Tensor out;
    if (!outcome(expect, [&] { out = use_mm ? a->mm(*b) : wick::matmul(*a, *b); })) return;
    const bool f32 = ra.dtype != wick::kFloat64;  // bfloat16 accumulates in float32
    const double eps = f32 ? 0x1p-24 : 0x1p-53;
    const double limit = f32 ? 1e37 : 1e306;
    expect_equal(out, want, g_step, [&](size_t i) {
      if (!floating(ra.dtype)) return std::pair<int, double>(0, 0.0);
      // Float accumulation order differs from the reference's: the error bound of recursive
      // summation. Sums that approach overflow, or involve inf/NaN, are not compared.
      if (!std::isfinite(bounds[i]) || bounds[i] > limit) return std::pair<int, double>(-1, 0.0);
      return std::pair<int, double>(2, bounds[i] * eps + (f32 ? 1e-37 : 1e-300));
    });
    add(out);
  }

  // ---- views ----

  // Checks that v is a view of t where element idx of v is element map(idx) of t (same
  // storage, same address).
  template <typename Map>
  void expect_view(const Tensor& t, const Tensor& v, const Shape& want_sizes, Map&& map) {
    if (v.sizes() != want_sizes) {
      fail(g_step + ": view shape " + str(v.sizes()) + ", expected " + str(want_sizes));
    }
    if (v.dtype() != t.dtype()) fail(g_step + ": view dtype");
    if (v.storage() != t.storage()) fail(g_step + ": not a view (new storage)");
    std::vector<int64_t> src(static_cast<size_t>(t.dim()));
    for_each_index(want_sizes, [&](int64_t lin, const int64_t* idx) {
      map(idx, lin, src.data());
      const int64_t want_off = offset_at(t, src.data());
      const int64_t got_off = offset_at(v, idx);
      if (want_off != got_off) {
        fail(g_step + ": view element " + std::to_string(lin) + " at offset " +
             std::to_string(got_off) + ", expected " + std::to_string(want_off));
      }
    });
  }

  void view() {
    const Tensor* pa = pick();
    if (pa == nullptr) return;
    const Tensor a = *pa;
    const int64_t nd = a.dim();
    const uint32_t which = in_.below(12);
    auto arg = [&] { return in_.flag() ? wild_dim() : static_cast<int64_t>(in_.below(9)) - 4; };
    Tensor v;
    const Shape& s = a.sizes();
    switch (which) {
      case 0: {  // transpose
        const int64_t d0 = arg(), d1 = arg();
        g_step = "transpose " + std::to_string(d0) + " " + std::to_string(d1) + " of " + str(a);
        bool bad = false;
        const int64_t w0 = wrap_dim_or(d0, nd, bad), w1 = wrap_dim_or(d1, nd, bad);
        if (!outcome(bad ? Expect::Error : Expect::Ok, [&] { v = a.transpose(d0, d1); })) return;
        Shape ws = s;
        if (nd > 0) std::swap(ws[w0], ws[w1]);
        expect_view(a, v, ws, [&](const int64_t* idx, int64_t, int64_t* src) {
          for (int64_t d = 0; d < nd; ++d) src[d] = idx[d];
          if (nd > 0) std::swap(src[w0], src[w1]);
        });
        break;
      }
      case 1: {  // permute
        Shape dims;
        const uint32_t n = in_.flag() ? static_cast<uint32_t>(nd) : in_.below(6);
        for (uint32_t i = 0; i < n; ++i) dims.push_back(static_cast<int64_t>(in_.below(9)) - 4);
        g_step = "permute " + str(dims) + " of " + str(a);
        bool bad = static_cast<int64_t>(dims.size()) != nd;
        std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(nd, 1)), false);
        Shape wrapped;
        for (int64_t d : dims) {
          if (bad) break;
          const int64_t w = wrap_dim_or(d, nd, bad);
          if (bad) break;
          if (seen[w]) bad = true;
          seen[w] = true;
          wrapped.push_back(w);
        }
        if (!outcome(bad ? Expect::Error : Expect::Ok, [&] { v = a.permute(dims); })) return;
        Shape ws;
        for (int64_t w : wrapped) ws.push_back(s[w]);
        expect_view(a, v, ws, [&](const int64_t* idx, int64_t, int64_t* src) {
          for (size_t i = 0; i < wrapped.size(); ++i) src[wrapped[i]] = idx[i];
        });
        break;
      }
      case 2: {  // unsqueeze
        const int64_t d = arg();
        g_step = "unsqueeze " + std::to_string(d) + " of " + str(a);
        bool bad = false;
        const int64_t w = wrap_dim_or(d, nd + 1, bad);
        if (nd + 1 > Shape::kMaxDims) bad = true;
        if (!outcome(bad ? Expect::Error : Expect::Ok, [&] { v = wick::unsqueeze(a, d); })) {
          return;
        }
        Shape ws = s;
        ws.insert(static_cast<size_t>(w), 1);
        expect_view(a, v, ws, [&](const int64_t* idx, int64_t, int64_t* src) {
          for (int64_t i = 0, j = 0; i < nd + 1; ++i) {
            if (i != w) src[j++] = idx[i];
          }
        });
        break;
      }
      case 3: {  // squeeze, squeeze(d)
        const bool all = in_.flag();
        const int64_t d = arg();
        g_step = (all ? "squeeze of " : "squeeze " + std::to_string(d) + " of ") + str(a);
        bool bad = false;
        const int64_t w = all ? 0 : wrap_dim_or(d, nd, bad);
        if (!outcome(bad ? Expect::Error : Expect::Ok,
                     [&] { v = all ? a.squeeze() : a.squeeze(d); })) {
          return;
        }
        std::vector<int64_t> kept;
        for (int64_t i = 0; i < nd; ++i) {
          const bool drop = s[i] == 1 && (all || i == w);
          if (!drop) kept.push_back(i);
        }
        Shape ws;
        for (int64_t i : kept) ws.push_back(s[i]);
        expect_view(a, v, ws, [&](const int64_t* idx, int64_t, int64_t* src) {
          for (int64_t i = 0; i < nd; ++i) src[i] = 0;
          for (size_t i = 0; i < kept.size(); ++i) src[kept[i]] = idx[i];
        });
        break;
      }
      case 4: {  // narrow
        const int64_t d = arg(), start = arg(), length = arg();
        g_step = "narrow " + std::to_string(d) + " " + std::to_string(start) + " " +
                 std::to_string(length) + " of " + str(a);
        bool bad = nd == 0;
        const int64_t w = bad ? 0 : wrap_dim_or(d, nd, bad);
        int64_t st = start;
        if (!bad) {
          const int64_t n = s[w];
          if (st < -n || st > n) bad = true;
          if (!bad && st < 0) st += n;
          if (!bad && (length < 0 || length > n - st)) bad = true;
        }
        if (!outcome(bad ? Expect::Error : Expect::Ok, [&] { v = a.narrow(d, start, length); })) {
          return;
        }
        Shape ws = s;
        ws[w] = length;
        expect_view(a, v, ws, [&](const int64_t* idx, int64_t, int64_t* src) {
          for (int64_t i = 0; i < nd; ++i) src[i] = idx[i];
          src[w] += st;
        });
        break;
      }
      case 5: {  // select
        const int64_t d = arg(), index = arg();
        g_step = "select " + std::to_string(d) + " " + std::to_string(index) + " of " + str(a);
        bool bad = nd == 0;
        const int64_t w = bad ? 0 : wrap_dim_or(d, nd, bad);
        int64_t ix = index;
        if (!bad) {
          const int64_t n = s[w];
          if (ix < -n || ix >= n) bad = true;
          if (!bad && ix < 0) ix += n;
        }
        if (!outcome(bad ? Expect::Error : Expect::Ok, [&] { v = a.select(d, index); })) return;
        Shape ws;
        for (int64_t i = 0; i < nd; ++i) {
          if (i != w) ws.push_back(s[i]);
        }
        expect_view(a, v, ws, [&](const int64_t* idx, int64_t, int64_t* src) {
          for (int64_t i = 0, j = 0; i < nd; ++i) src[i] = i == w ? ix : idx[j++];
        });
        break;
      }
      case 6: {  // slice
        const int64_t d = arg();
        const bool has_start = in_.flag(), has_end = in_.flag();
        const int64_t start = arg(), end = arg();
        int64_t step = in_.flag() ? wild_dim() : static_cast<int64_t>(in_.below(4));
        g_step = "slice " + std::to_string(d) + " " + (has_start ? std::to_string(start) : "-") +
                 ":" + (has_end ? std::to_string(end) : "-") + ":" + std::to_string(step) + " of " +
                 str(a);
        bool bad = nd == 0 || step <= 0;
        const int64_t w = nd == 0 ? 0 : wrap_dim_or(d, nd, bad);
        int64_t b0 = 0, len = 0;
        if (!bad) {
          const int64_t n = s[w];
          auto clampi = [n](int64_t x) {
            const __int128 y = x < 0 ? static_cast<__int128>(x) + n : x;
            return static_cast<int64_t>(std::clamp<__int128>(y, 0, n));
          };
          b0 = has_start ? clampi(start) : 0;
          const int64_t e = has_end ? clampi(end) : n;
          len =
              e > b0 ? static_cast<int64_t>((static_cast<__int128>(e) - b0 + step - 1) / step) : 0;
          // A dim that keeps more than one element needs stride * step to fit int64.
          int64_t scaled;
          if (len > 1 && __builtin_mul_overflow(a.strides()[w], step, &scaled)) bad = true;
        }
        std::optional<int64_t> so = has_start ? std::optional<int64_t>(start) : std::nullopt;
        std::optional<int64_t> eo = has_end ? std::optional<int64_t>(end) : std::nullopt;
        if (!outcome(bad ? Expect::Error : Expect::Ok, [&] { v = a.slice(d, so, eo, step); })) {
          return;
        }
        Shape ws = s;
        ws[w] = len;
        expect_view(a, v, ws, [&](const int64_t* idx, int64_t, int64_t* src) {
          for (int64_t i = 0; i < nd; ++i) src[i] = idx[i];
          src[w] = b0 + idx[w] * step;
        });
        break;
      }
      case 7: {  // expand
        Shape target;
        const uint32_t n = in_.below(6);
        for (uint32_t i = 0; i < n; ++i) {
          target.push_back(in_.below(3) == 0 ? wild_dim() : static_cast<int64_t>(in_.below(5)) - 1);
        }
        g_step = "expand " + str(target) + " of " + str(a);
        bool bad = static_cast<int64_t>(target.size()) < nd;
        Shape ws = target;
        const size_t lead = bad ? 0 : target.size() - static_cast<size_t>(nd);
        for (size_t i = 0; i < target.size() && !bad; ++i) {
          int64_t want = target[i];
          if (i < lead) {
            if (want < 0) bad = true;
            continue;
          }
          const int64_t have = s[i - lead];
          if (want == -1) want = have;
          if (want < 0 || (have != want && have != 1)) bad = true;
          ws[i] = want;
        }
        if (!bad && !numel_of(ws)) bad = true;
        if (!outcome(bad ? Expect::Error : Expect::Ok, [&] { v = a.expand(target); })) return;
        if (*numel_of(ws) > kMaxElems * 8) {
          if (v.sizes() != ws) fail(g_step + ": expand shape " + str(v.sizes()));
          return;
        }
        expect_view(a, v, ws, [&](const int64_t* idx, int64_t, int64_t* src) {
          for (int64_t i = 0; i < nd; ++i) src[i] = s[i] == 1 ? 0 : idx[i + lead];
        });
        break;
      }
      case 8:
      case 9:
      case 10: {  // view, reshape, flatten
        Shape shape;
        int64_t fs = 0, fe = -1;
        if (which == 10) {
          fs = static_cast<int64_t>(in_.below(7)) - 3;
          fe = static_cast<int64_t>(in_.below(7)) - 3;
          g_step = "flatten " + std::to_string(fs) + " " + std::to_string(fe) + " of " + str(a);
        } else {
          const uint32_t n = in_.below(5);
          for (uint32_t i = 0; i < n; ++i) {
            shape.push_back(in_.below(3) == 0 ? wild_dim()
                                              : static_cast<int64_t>(in_.below(6)) - 1);
          }
          g_step = (which == 8 ? "view " : "reshape ") + str(shape) + " of " + str(a);
        }
        const int64_t numel = a.numel();
        bool bad = false;
        Shape ws;
        if (which == 10) {
          // As PyTorch: the dims are checked (a 0-d tensor takes -1 and 0) before a 0-d
          // tensor becomes [1].
          wrap_dim_or(fs, nd, bad);
          wrap_dim_or(fe, nd, bad);
          if (nd == 0) {
            ws = {1};
          } else {
            const int64_t ws0 = wrap_dim_or(fs, nd, bad), we = wrap_dim_or(fe, nd, bad);
            if (!bad && ws0 > we) bad = true;
            if (!bad) {
              for (int64_t i = 0; i < ws0; ++i) ws.push_back(s[i]);
              int64_t merged = 1;
              for (int64_t i = ws0; i <= we && !bad; ++i) {
                if (__builtin_mul_overflow(merged, s[i], &merged)) bad = true;  // no int64 size
              }
              ws.push_back(merged);
              for (int64_t i = we + 1; i < nd; ++i) ws.push_back(s[i]);
            }
          }
        } else {
          // Infer one -1.
          int64_t known = 1;
          int infer = -1;
          for (size_t i = 0; i < shape.size() && !bad; ++i) {
            if (shape[i] == -1) {
              if (infer >= 0) bad = true;
              infer = static_cast<int>(i);
            } else if (shape[i] < 0) {
              bad = true;
            }
          }
          // The given sizes' product, 0 with any 0 among them (numel_of).
          const bool has_zero = std::find(shape.begin(), shape.end(), 0) != shape.end();
          if (has_zero) known = 0;
          for (size_t i = 0; i < shape.size() && !bad && !has_zero; ++i) {
            if (static_cast<int>(i) == infer) continue;
            if (__builtin_mul_overflow(known, shape[i], &known)) bad = true;
          }
          ws = shape;
          if (!bad && infer >= 0) {
            if (known == 0 || numel % known != 0) {
              bad = true;
            } else {
              ws[infer] = numel / known;
            }
          }
          if (!bad && numel_of(ws) != numel) bad = true;
        }
        // view() may refuse a layout that reshape() copies; a contiguous tensor always views.
        Expect expect = bad ? Expect::Error : Expect::Ok;
        if (!bad && strides_overflow(ws)) expect = Expect::Error;  // an empty tensor's strides
        if (which == 8 && !bad && !a.is_contiguous()) expect = Expect::Either;
        if (!outcome(expect, [&] {
              v = which == 8   ? a.view(shape)
                  : which == 9 ? wick::reshape(a, shape)
                               : a.flatten(fs, fe);
            })) {
          return;
        }
        if (v.sizes() != ws) fail(g_step + ": shape " + str(v.sizes()) + ", expected " + str(ws));
        // Same values in row-major order; a view must also be the same memory.
        Ref want = snapshot(a);
        want.sizes = ws;
        expect_equal(v, want, g_step, 0);
        if (v.storage() == a.storage()) {
          const Shape src_sizes = s;
          expect_view(a, v, ws, [&](const int64_t*, int64_t lin, int64_t* src) {
            for (int64_t d = nd - 1; d >= 0; --d) {
              src[d] = lin % std::max<int64_t>(src_sizes[d], 1);
              lin /= std::max<int64_t>(src_sizes[d], 1);
            }
          });
        } else if (which == 8) {
          fail(g_step + ": view() copied");
        }
        break;
      }
      default: {  // t()
        g_step = "t of " + str(a);
        if (!outcome(nd > 2 ? Expect::Error : Expect::Ok, [&] { v = a.t(); })) return;
        Shape ws = s;
        if (nd == 2) std::swap(ws[0], ws[1]);
        expect_view(a, v, ws, [&](const int64_t* idx, int64_t, int64_t* src) {
          for (int64_t d = 0; d < nd; ++d) src[d] = idx[nd - 1 - d];
        });
        break;
      }
    }
    add(v);
  }

  // ---- in place ----

  // The storage elements a tensor's elements occupy.
  static std::vector<int64_t> footprint(const Tensor& t) {
    std::vector<int64_t> offs;
    for_each_index(t.sizes(),
                   [&](int64_t, const int64_t* idx) { offs.push_back(offset_at(t, idx)); });
    return offs;
  }

  void inplace() {
    const Tensor* ps = pick();
    if (ps == nullptr) return;
    Tensor self = *ps;
    const uint32_t which = in_.below(9);
    const Tensor* other = in_.flag() ? pick() : nullptr;
    const Scalar s = scalar();
    const Scalar s2 = scalar();
    const bool has_lo = in_.flag(), has_hi = in_.flag();
    static const char* kNames[] = {"add_",  "sub_",  "mul_",   "div_",      "fill_",
                                   "zero_", "copy_", "clamp_", "add_ alpha"};
    g_step = std::string(kNames[which]) + " of " + str(self) + " strides " + str(self.strides()) +
             " with " + (other ? str(*other) : str(s));
    const Ref rs = snapshot(self);
    const Ref ro = other ? snapshot(*other) : Ref{};
    bool overlap = false;
    for (int64_t d = 0; d < self.dim(); ++d) {
      overlap = overlap || (self.strides()[d] == 0 && self.sizes()[d] > 1);
    }
    Expect expect = overlap ? Expect::Error : Expect::Ok;
    Ref want{rs.sizes, rs.dtype, rs.v};
    const Dtype sd = rs.dtype;
    auto can_cast = [](Dtype from, Dtype to) {
      if (floating(from) && !floating(to)) return false;
      if (from != wick::kBool && to == wick::kBool) return false;
      return true;
    };
    if (which <= 3 || which == 8) {
      Bin op = which == 8 ? Bin::add : static_cast<Bin>(which);
      Ref scaled = ro;
      Operand oo = other ? Operand{&ro, {}} : Operand{nullptr, s};
      if (which == 8) {
        if (!other) return;
        const Dtype k8 = result_type({Operand{&rs, {}}, Operand{&ro, {}}});
        if (!alpha_fits(k8, s2) || !can_cast(k8, sd)) {
          expect = Expect::Error;
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
      if (op == Bin::sub && k == wick::kBool) expect = Expect::Error;
      if (!oo.is_scalar()) {
        std::optional<Shape> b = broadcast(rs.sizes, oo.ref->sizes);
        if (!b || *b != rs.sizes) expect = Expect::Error;
      }
      if (expect == Expect::Ok) {
        Expect e2 = Expect::Ok;
        Ref r = binary_ref(op, Operand{&rs, {}}, oo, e2);
        if (e2 != Expect::Ok) fail("inplace reference disagrees");
        for (size_t i = 0; i < r.v.size(); ++i) want.v[i] = cast(r.v[i], r.dtype, sd);
      }
    } else if (which == 4) {
      std::optional<V> v = scalar_as(s, sd);
      if (!v) {
        if (expect == Expect::Ok) expect = Expect::Error;
      } else {
        for (V& e : want.v) e = *v;
        if ((sd == wick::kFloat32 || sd == wick::kBFloat16) && s.is_floating() &&
            std::isfinite(s.to_double()) && std::isinf(v->d) && expect == Expect::Ok) {
          expect = Expect::Either;
        }
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
      if (expect == Expect::Ok) {
        std::optional<V> lo = has_lo ? scalar_as(s, k) : std::nullopt;
        std::optional<V> hi = has_hi ? scalar_as(s2, k) : std::nullopt;
        for (size_t i = 0; i < rs.v.size(); ++i) {
          V x = cast(rs.v[i], sd, k);
          if (floating(k)) {
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
        default:
          self.add_(*other, s2);
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
  void cast_ops() {
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
      if (which >= 1 && !r.is_contiguous()) fail(g_step + ": not contiguous");
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
  void misc() {
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
      if (!outcome(want ? Expect::Ok : Expect::Error,
                   [&] { got = wick::broadcast_shapes(a, b); })) {
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
};

}  // namespace

// Big requests must come back as OutOfMemoryError, as from malloc, instead of ASan aborting.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

#if defined(__has_include) && __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define WICK_FUZZ_HAVE_SANITIZER_API 1
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool initialised = [] {
    wick::set_debug_fill(true);  // unwritten output elements read as NaN / -1 / 255
#if defined(WICK_FUZZ_HAVE_SANITIZER_API)
    // A sanitizer report names the step that was running.
    __sanitizer_set_death_callback(
        [] { std::fprintf(stderr, "fuzz_ops: the step running was: %s\n", g_step.c_str()); });
#endif
    return true;
  }();
  (void)initialised;
  Program(data, size).run();
  return 0;
}
