// ops_reduce.cpp: fuzz_ops steps: reductions over all or some dims, softmax and log_softmax,
// matmul. Each step draws its operands from the input, predicts the outcome with the reference
// model (ops_reference.hpp) and checks wick against it; see fuzz_ops.cpp.
#include "ops_program.hpp"

namespace wick::fuzz::ops {

void Program::reduce() {
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
  g_step = std::string(kNames[static_cast<int>(op)]) + " form " + std::to_string(form) + " dims " +
           str(dims) + (keepdim ? " keepdim" : "") + " of " + str(*a);
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
    bool scalar_dim_seen = false;
    for (int64_t d : dims) {
      int64_t w = wrap_dim_or(d, nd, bad);
      if (bad) break;
      if (nd == 0) {
        // A 0-d tensor's dim (0 or -1) listed twice: "dim 0 appears multiple times" (PyTorch).
        if (form == 2 && scalar_dim_seen) bad = true;
        scalar_dim_seen = true;
        continue;
      }
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
  // Refused for bool, as PyTorch does (max and min over a dim take it).
  if ((op == Red::argmax || op == Red::argmin) && x.dtype == wick::kBool) expect = Expect::Error;
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
          if (x.dtype == wick::kBFloat16) {
            // PyTorch 1.13's bfloat16 mean (reduce.cpp, bf16_mean): the sum rounded to
            // bfloat16 (so it may overflow to inf where the float64 mean would not), divided in
            // float32 by the count rounded to bfloat16, rounded again.
            const double total = round_to(x.dtype, static_cast<double>(dsum));
            const double divisor = round_to(x.dtype, static_cast<double>(reduced));
            r.d = round_to(x.dtype, static_cast<double>(static_cast<float>(total) /
                                                        static_cast<float>(divisor)));
          } else {
            r.d = static_cast<double>(dsum / static_cast<long double>(reduced));
            r.d = round_to(x.dtype, r.d);
          }
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
    // wick sums in double, in blocks and 32 (float32) or 16 (float64) lanes whose partial
    // sums are added in a fixed order (kernels/cpu/reduce.cpp, vec_kernels.hpp): each
    // element's rounding is at most the double epsilon times the partial sums it passes
    // through, fewer than n / 16 + 16 of them (n / L in a lane, log2 L to fold the lanes, then
    // the blocks). Room: that many epsilons of the magnitudes summed, against the near-exact
    // reference.
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

void Program::softmax() {
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

namespace {
// A nonzero value below float32's (and bfloat16's) smallest normal number.
bool subnormal(double v) { return v != 0 && std::fabs(v) < 0x1p-126; }
}  // namespace

void Program::matmul() {
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
  std::vector<double> bounds, flushed;
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
        double acc = 0, bound = 0, flushable = 0;
        uint64_t iacc = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          const V x =
              ra.v[static_cast<size_t>(oa + i * sa[as.size() - 2] + kk * sa[as.size() - 1])];
          const V y =
              rb.v[static_cast<size_t>(ob + kk * sb[bs.size() - 2] + j * sb[bs.size() - 1])];
          if (floating(ra.dtype)) {
            acc += x.d * y.d;
            bound += std::fabs(x.d * y.d);
            // The AVX512_BF16 kernel reads subnormal bfloat16 as zero (kernel_avx512_bf16.cpp):
            // such a product may be missing from the sum, whatever its size. It also flushes a
            // subnormal partial sum to zero: less than 2^-126 lost per step.
            if (ra.dtype == wick::kBFloat16) {
              flushable += 0x1p-126;
              if (subnormal(x.d) || subnormal(y.d)) flushable += std::fabs(x.d * y.d);
            }
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
        flushed.push_back(flushable);
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
    return std::pair<int, double>(2, bounds[i] * eps + flushed[i] + (f32 ? 1e-37 : 1e-300));
  });
  add(out);
}

}  // namespace wick::fuzz::ops
