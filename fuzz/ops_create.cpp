// ops_create.cpp: fuzz_ops steps: factories: fresh tensors in every layout, factories with wild
// shapes, arange. Each step draws its operands from the input, predicts the outcome with the
// reference model (ops_reference.hpp) and checks wick against it; see fuzz_ops.cpp.
#include "ops_program.hpp"

namespace wick::fuzz::ops {

// A fresh tensor with values, laid out contiguous, transposed, sliced, offset or expanded.
void Program::create() {
  const Dtype d = dtype();
  const Shape sizes = small_shape();
  const uint32_t layout = in_.below(5);
  lcg_ = in_.u32();
  const uint32_t special_rate = in_.below(4) == 0 ? in_.below(64) : 0;
  g_step = "create " + str(sizes) + " " + wick::dtype_name(d) + " layout " + std::to_string(layout);
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
void Program::factory() {
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
      // Past float32's (bfloat16's) range: a ValueError, as PyTorch's checked conversion.
      if (overflows(value, d) && !overflow && *n <= kMaxElems) expect = Expect::Error;
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
    const Expect expect =
        (n < 0 || __builtin_mul_overflow(n, n, &nn) || __builtin_mul_overflow(nn, int64_t{8}, &nn))
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

void Program::arange(Dtype d) {
  const Scalar start = in_.flag() ? Scalar(small_int()) : scalar();
  const Scalar end = in_.flag() ? Scalar(small_int()) : scalar();
  const Scalar step = in_.flag() ? Scalar(small_int()) : scalar();
  const bool give_dtype = in_.flag();
  g_step = "arange " + str(start) + " " + str(end) + " " + str(step) +
           (give_dtype ? std::string(" ") + wick::dtype_name(d) : "");
  const bool all_integer = !start.is_floating() && !end.is_floating() && !step.is_floating();
  const Dtype out = give_dtype ? d : (all_integer ? wick::kInt64 : wick::kFloat32);
  Expect expect = out == wick::kBool ? Expect::Error : Expect::Ok;  // refused, as PyTorch
  Ref want{{0}, out, {}};
  if (expect == Expect::Ok && (all_integer || out == wick::kInt64)) {
    // PyTorch: an int64 result takes the three numbers as int64 (a float truncates; one int64
    // cannot hold is an error) and counts exactly.
    __int128 v[3];
    const Scalar* args[3] = {&start, &end, &step};
    for (int j = 0; j < 3; ++j) {
      if (!args[j]->is_floating()) {
        v[j] = args[j]->to_int64();
      } else {
        const double x = args[j]->to_double();
        if (!(x >= -0x1p63 && x < 0x1p63)) expect = Expect::Error;
        v[j] = expect == Expect::Ok ? static_cast<__int128>(x) : 0;
      }
    }
    const __int128 s = v[0], e = v[1], st = v[2];
    if (st == 0 || !((st > 0 && e >= s) || (st < 0 && e <= s))) expect = Expect::Error;
    if (expect == Expect::Ok) {
      const __int128 count = st > 0 ? (e - s + st - 1) / st : (s - e - st - 1) / -st;
      if (count > INT64_MAX) {
        expect = Expect::Error;
      } else if (count > kMaxElems) {
        return;
      } else {
        want.sizes = Shape{static_cast<int64_t>(count)};
        for (__int128 i = 0; i < count; ++i) {
          want.v.push_back(cast(V{0, static_cast<int64_t>(s + i * st)}, wick::kInt64, out));
        }
      }
    }
  } else if (expect == Expect::Ok) {
    const double s = start.to_double(), e = end.to_double(), st = step.to_double();
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
    want.sizes = Shape{n};
    for (int64_t i = 0; i < n; ++i) {
      want.v.push_back(cast(V{s + static_cast<double>(i) * st, 0}, wick::kFloat64, out));
    }
  }
  Tensor t;
  std::optional<wick::TensorOptions> options;
  if (give_dtype) options = wick::TensorOptions(d);
  if (!outcome(expect, [&] { t = wick::arange(start, end, step, options); })) return;
  if (expect == Expect::Ok) expect_equal(t, want, g_step, 0);
  add(t);
}

}  // namespace wick::fuzz::ops
