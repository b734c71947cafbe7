// ops_linalg.cpp: fuzz_ops step: det, slogdet, linalg_inv, linalg_solve, linalg_lu_factor and
// linalg_lu_solve (wick/linalg.hpp) on pool tensors (empty ones with huge dims included) or on
// fresh square batches of every dtype with special values, right-hand sides that fit or not
// (a vector, a broadcast batch, a wrong row count or dtype) and pivots that are valid or not.
// Every outcome is predicted (shape, dtype, broadcast, singular, pivot range rules, as
// core/src/ops_solve.cpp states them), and every value of a factorisation and of a solve by a
// model that takes the CPU kernel's steps (kernels/cpu/lu.cpp) in the dtype's own arithmetic,
// so they must be equal, not close; det is a product whose order the prod kernel picks, so it
// is compared within a few rounding units where it is finite and far from the range's ends.
// See fuzz_ops.cpp.
#include <cmath>
#include <tuple>
#include <utility>

#include "ops_program.hpp"

namespace wick::fuzz::ops {

namespace {

// One matrix's factorisation as the kernel takes its steps, in T.
template <typename T>
void model_factor(T* f, int64_t* pivots, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    int64_t best = k;
    T best_abs = std::abs(f[k * n + k]);
    for (int64_t i = k + 1; i < n; ++i) {
      if (std::abs(f[i * n + k]) > best_abs) {
        best = i;
        best_abs = std::abs(f[i * n + k]);
      }
    }
    pivots[k] = best;
    for (int64_t j = 0; j < n; ++j) std::swap(f[k * n + j], f[best * n + j]);
    const T pivot = f[k * n + k];
    for (int64_t i = k + 1; i < n; ++i) {
      // LAPACK's rule: a zero pivot divides nothing, and its column still updates the rest.
      const T multiplier = pivot == T(0) ? f[i * n + k] : f[i * n + k] / pivot;
      f[i * n + k] = multiplier;
      for (int64_t j = k + 1; j < n; ++j) f[i * n + j] -= multiplier * f[k * n + j];
    }
  }
}

// One right-hand side column (stride k) solved in place, as the kernel's.
template <typename T>
void model_solve(const T* f, const int64_t* pivots, T* x, int64_t n, int64_t k) {
  for (int64_t i = 0; i < n; ++i) std::swap(x[i * k], x[pivots[i] * k]);
  for (int64_t i = 1; i < n; ++i) {
    for (int64_t j = 0; j < i; ++j) x[i * k] -= f[i * n + j] * x[j * k];
  }
  for (int64_t i = n - 1; i >= 0; --i) {
    for (int64_t j = i + 1; j < n; ++j) x[i * k] -= f[i * n + j] * x[j * k];
    x[i * k] /= f[i * n + i];
  }
}

// The batch broadcast of two batch shapes, or false.
bool broadcast_batch(const Shape& a, const Shape& b, Shape& out) {
  const size_t nd = std::max(a.size(), b.size());
  out = Shape();
  for (size_t i = 0; i < nd; ++i) {
    const int64_t x = i + a.size() >= nd ? a[i + a.size() - nd] : 1;
    const int64_t y = i + b.size() >= nd ? b[i + b.size() - nd] : 1;
    if (x != y && x != 1 && y != 1) return false;
    out.push_back(x == 1 ? y : x);
  }
  return true;
}

Shape drop_last(Shape s, size_t count) {
  for (size_t i = 0; i < count && !s.empty(); ++i) s.erase(s.size() - 1);
  return s;
}

// A's matrices (row-major, broadcast to `batch`) factored in T; all in double for the Ref.
template <typename T>
struct Model {
  std::vector<T> lu;
  std::vector<int64_t> pivots;
  bool singular = false;
};

template <typename T>
Model<T> factor_all(const Ref& a, const Shape& batch, int64_t n) {
  Model<T> m;
  const int64_t count = *numel_of(batch);
  const Shape a_batch = drop_last(a.sizes, 2);
  m.lu.resize(static_cast<size_t>(count * n * n));
  m.pivots.resize(static_cast<size_t>(count * n));
  for_each_index(batch, [&](int64_t lin, const int64_t* idx) {
    int64_t source = 0;  // the matrix of A that broadcasts to batch index idx
    const size_t skip = batch.size() - a_batch.size();
    for (size_t d = 0; d < a_batch.size(); ++d) {
      source = source * a_batch[d] + (a_batch[d] == 1 ? 0 : idx[d + skip]);
    }
    T* f = m.lu.data() + lin * n * n;
    for (int64_t e = 0; e < n * n; ++e) {
      f[e] = static_cast<T>(a.v[static_cast<size_t>(source * n * n + e)].d);
    }
    model_factor(f, m.pivots.data() + lin * n, n);
    for (int64_t i = 0; i < n; ++i) m.singular = m.singular || f[i * n + i] == T(0);
  });
  return m;
}

}  // namespace

void Program::linalg() {
  // A: a pool tensor, or a fresh batch of square matrices of any dtype.
  Tensor a;
  if (in_.flag()) {
    const Tensor* p = pick();
    if (p == nullptr) return;
    a = *p;
  } else {
    Shape s;
    if (in_.flag()) s.push_back(in_.below(3));
    const int64_t n = in_.below(6);
    s.push_back(n);
    s.push_back(n);
    const Dtype d = in_.below(4) == 0 ? dtype() : (in_.flag() ? wick::kFloat32 : wick::kFloat64);
    a = wick::empty(s, d);
    lcg_ = in_.u32();
    const uint32_t specials = in_.below(8) == 0 ? 8 : 0;
    for_each_index(s, [&](int64_t, const int64_t* idx) {
      write_elem(a, offset_at(a, idx), random_value(d, specials));
    });
    if (in_.flag()) a = a.transpose(-2, -1);  // strided
  }
  const int64_t nd = a.dim();
  const bool square = nd >= 2 && a.size(-1) == a.size(-2);
  const bool a_ok = square && (a.dtype() == wick::kFloat32 || a.dtype() == wick::kFloat64);
  const int64_t n = nd >= 2 ? a.size(-1) : 0;
  const uint32_t op = in_.below(6);
  static constexpr const char* kNames[6] = {"det",          "slogdet",          "linalg_inv",
                                            "linalg_solve", "linalg_lu_factor", "linalg_lu_solve"};
  g_step = std::string(kNames[op]) + " of " + str(a);
  const Shape a_batch = a_ok ? drop_last(a.sizes(), 2) : Shape();
  // Values are modelled for fresh-sized batches only.
  const bool modelled = a_ok && numel_of(a.sizes()).value_or(INT64_MAX) <= kMaxElems;

  // Results past the pool's size are not made (a batch of 2^31 empty matrices has 2^31 dets).
  if (a_ok && numel_of(a_batch).value_or(INT64_MAX) > kMaxElems * 4) return;
  if (op <= 1) {
    Tensor got, sign_of;
    if (!outcome(a_ok ? Expect::Ok : Expect::Error, [&] {
          if (op == 0) {
            got = wick::det(a);
          } else {
            std::tie(sign_of, got) = wick::slogdet(a);
          }
        })) {
      return;
    }
    if (got.sizes() != a_batch || got.dtype() != a.dtype()) fail(g_step + ": result " + str(got));
    if (!modelled || op == 1) return;
    const Ref ra = snapshot(a);
    const auto check = [&](auto zero) {
      using T = decltype(zero);
      const Model<T> m = factor_all<T>(ra, a_batch, n);
      Ref want{a_batch, a.dtype(), {}};
      std::vector<std::pair<int, double>> tol;
      for (int64_t b = 0; b < *numel_of(a_batch); ++b) {
        double product = 1;
        bool odd = false;
        for (int64_t i = 0; i < n; ++i) {
          product *= static_cast<double>(m.lu[static_cast<size_t>(b * n * n + i * n + i)]);
          odd = odd != (m.pivots[static_cast<size_t>(b * n + i)] != i);
        }
        want.v.push_back(V{odd ? -product : product, 0});
        const double limit = a.dtype() == wick::kFloat32 ? 1e30 : 1e290;
        const bool checked = std::isfinite(product) && std::fabs(product) < limit &&
                             (product == 0 || std::fabs(product) > 1 / limit);
        tol.push_back({checked ? static_cast<int>(2 * n + 2) : -1, 0.0});
      }
      expect_equal(got, want, g_step, [&](size_t i) { return tol[i]; });
    };
    if (a.dtype() == wick::kFloat32) {
      check(0.0f);
    } else {
      check(0.0);
    }
    return;
  }

  if (op == 4) {  // linalg_lu_factor
    Tensor lu, pivots;
    if (!outcome(a_ok ? Expect::Ok : Expect::Error,
                 [&] { std::tie(lu, pivots) = wick::linalg_lu_factor(a); })) {
      return;
    }
    if (!modelled) return;
    const Ref ra = snapshot(a);
    const auto check = [&](auto zero) {
      using T = decltype(zero);
      const Model<T> m = factor_all<T>(ra, a_batch, n);
      Ref want_lu{a.sizes(), a.dtype(), {}}, want_pivots{drop_last(a.sizes(), 1), wick::kInt64, {}};
      for (T v : m.lu) want_lu.v.push_back(V{static_cast<double>(v), 0});
      for (int64_t p : m.pivots) want_pivots.v.push_back(V{0, p + 1});
      expect_equal(lu, want_lu, g_step + ": LU", 0);
      expect_equal(pivots, want_pivots, g_step + ": pivots", 0);
    };
    if (a.dtype() == wick::kFloat32) {
      check(0.0f);
    } else {
      check(0.0);
    }
    add(lu);
    return;
  }

  // The solves. B: fresh [batch..., n, k] (k 0-3), a vector, a batch that broadcasts or not,
  // sometimes of another dtype or row count; or (linalg_inv) the identity.
  Tensor b;
  bool vector = false;
  if (op != 2) {
    Shape s;
    const uint32_t form = in_.below(4);
    if (form == 1 && a_ok) {
      s = drop_last(a.sizes(), 1);  // a vector per matrix
    } else if (form == 2) {
      s.push_back(n);  // one vector for all
    } else {
      if (form == 3) s.push_back(in_.below(3));  // a batch of its own
      s.push_back(in_.below(8) == 0 ? n + 1 : n);
      s.push_back(in_.below(4));
    }
    const Dtype d = in_.below(8) == 0 ? dtype() : a.dtype();
    if (!numel_of(s) || *numel_of(s) > kMaxElems || strides_overflow(s)) return;
    b = wick::empty(s, d);
    lcg_ = in_.u32();
    for_each_index(s, [&](int64_t, const int64_t* idx) {
      write_elem(b, offset_at(b, idx), random_value(d, in_.below(16) == 0 ? 8 : 0));
    });
    g_step += " and " + str(b);
    // linalg_lu_solve takes B as matrices only.
    vector = op == 3 && (b.dim() == 1 ||
                         (nd >= 2 && b.dim() == nd - 1 && b.sizes() == drop_last(a.sizes(), 1)));
  }
  // What the kernels will see: A and B [batch..., n, k].
  Shape b2 = op == 2 ? a.sizes() : b.sizes();
  if (vector) b2.push_back(1);
  bool bad = !a_ok || (op != 2 && b.dtype() != a.dtype());
  bad = bad || b2.size() < 2 || b2[b2.size() - 2] != n;
  Shape batch;
  if (!bad) bad = !broadcast_batch(a_batch, drop_last(b2, 2), batch);
  Shape x_sizes = batch, a_full = batch;
  if (!bad) {
    x_sizes.push_back(n);
    x_sizes.push_back(b2.back());
    a_full.push_back(n);
    a_full.push_back(n);
    bad = strides_overflow(a_full) || strides_overflow(x_sizes) || !numel_of(a_full);
  }
  if (!bad && numel_of(x_sizes).value_or(INT64_MAX) > kMaxElems * 4) return;
  // Pivots for lu_solve: the factorisation's, or one value changed.
  Tensor lu, pivots;
  bool bad_pivots = false, changed_pivots = false;
  if (op == 5 && a_ok) {
    std::tie(lu, pivots) = wick::linalg_lu_factor(a);
    if (pivots.numel() > 0 && in_.below(4) == 0) {
      const int64_t at = in_.below(static_cast<uint32_t>(std::min<int64_t>(pivots.numel(), 1000)));
      const int64_t value = small_int();
      pivots = pivots.contiguous().clone();
      pivots.view({-1}).select(0, at).fill_(Scalar(value));
      bad_pivots = value < 1 || value > n;
      changed_pivots = true;
    }
  }
  const bool modelled_solve = !bad && !changed_pivots && modelled &&
                              numel_of(x_sizes).value_or(INT64_MAX) <= kMaxElems &&
                              numel_of(a_full).value_or(INT64_MAX) <= kMaxElems;
  const Ref ra = modelled ? snapshot(a) : Ref{};
  // Singular: a zero on U's diagonal, of the matrices the kernels see (linalg_solve: A
  // broadcast to the batch, so an empty batch has none; linalg_lu_solve: LU as given).
  bool singular = false;
  if (op == 5 && modelled) {
    singular = a.dtype() == wick::kFloat32 ? factor_all<float>(ra, a_batch, n).singular
                                           : factor_all<double>(ra, a_batch, n).singular;
  }
  std::vector<double> model_x;
  if (modelled_solve) {
    const Ref rb = op == 2 ? Ref{} : snapshot(b);
    const auto run = [&](auto zero) {
      using T = decltype(zero);
      const Model<T> m = factor_all<T>(ra, batch, n);
      if (op != 5) singular = m.singular;
      const int64_t k = x_sizes.back(), count = *numel_of(batch);
      const Shape b_batch = drop_last(b2, 2);
      std::vector<T> x(static_cast<size_t>(count * n * k));
      for_each_index(batch, [&](int64_t lin, const int64_t* idx) {
        int64_t source = 0;
        const size_t skip = batch.size() - b_batch.size();
        for (size_t d = 0; d < b_batch.size(); ++d) {
          source = source * b_batch[d] + (b_batch[d] == 1 ? 0 : idx[d + skip]);
        }
        T* xm = x.data() + lin * n * k;
        for (int64_t e = 0; e < n * k; ++e) {
          xm[e] = op == 2 ? T(e / k == e % k ? 1 : 0)
                          : static_cast<T>(rb.v[static_cast<size_t>(source * n * k + e)].d);
        }
        if (m.singular || n == 0) return;  // (no rows: nothing to solve, and no pointer)
        for (int64_t c = 0; c < k; ++c) {
          model_solve(m.lu.data() + lin * n * n, m.pivots.data() + lin * n, xm + c, n, k);
        }
      });
      for (T v : x) model_x.push_back(static_cast<double>(v));
    };
    if (a.dtype() == wick::kFloat32) {
      run(0.0f);
    } else {
      run(0.0);
    }
  }
  const Expect expect = bad || bad_pivots || singular             ? Expect::Error
                        : modelled_solve || (op == 5 && modelled) ? Expect::Ok
                                                                  : Expect::Either;
  Tensor got;
  if (!outcome(expect, [&] {
        if (op == 2) {
          got = wick::linalg_inv(a);
        } else if (op == 3) {
          got = wick::linalg_solve(a, b);
        } else {
          got = wick::linalg_lu_solve(lu, pivots, b);
        }
      })) {
    return;
  }
  if (!modelled_solve) return;
  Ref want{vector ? drop_last(x_sizes, 1) : x_sizes, a.dtype(), {}};
  for (double v : model_x) want.v.push_back(V{v, 0});
  expect_equal(got, want, g_step, 0);
  add(got);
}

}  // namespace wick::fuzz::ops
