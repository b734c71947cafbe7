// ops_views.cpp: fuzz_ops steps: every view op (diagonal and unfold included), checked element by
// element against the storage offsets. Each step draws its operands from the input, predicts the
// outcome with the reference model (ops_reference.hpp) and checks wick against it; see
// fuzz_ops.cpp.
#include "ops_program.hpp"

namespace wick::fuzz::ops {

// Checks that v is a view of t where element idx of v is element map(idx) of t (same
// storage, same address).
template <typename Map>
void Program::expect_view(const Tensor& t, const Tensor& v, const Shape& want_sizes, Map&& map) {
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

void Program::view() {
  const Tensor* pa = pick();
  if (pa == nullptr) return;
  const Tensor a = *pa;
  const int64_t nd = a.dim();
  const uint32_t which = in_.below(14);
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
        len = e > b0 ? static_cast<int64_t>((static_cast<__int128>(e) - b0 + step - 1) / step) : 0;
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
          shape.push_back(in_.below(3) == 0 ? wild_dim() : static_cast<int64_t>(in_.below(6)) - 1);
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
    case 12: {  // diagonal
      const int64_t offset = arg(), d1 = arg(), d2 = arg();
      g_step = "diagonal " + std::to_string(offset) + " " + std::to_string(d1) + " " +
               std::to_string(d2) + " of " + str(a);
      bool bad = nd < 2;
      const int64_t w1 = bad ? 0 : wrap_dim_or(d1, nd, bad);
      const int64_t w2 = bad ? 0 : wrap_dim_or(d2, nd, bad);
      if (w1 == w2) bad = true;
      if (!outcome(bad ? Expect::Error : Expect::Ok, [&] { v = a.diagonal(offset, d1, d2); })) {
        return;
      }
      // Element k of the diagonal is (k + row0, k + col0) in the plane (w1, w2).
      const __int128 row0 = offset < 0 ? -static_cast<__int128>(offset) : 0;
      const __int128 col0 = offset > 0 ? offset : 0;
      const __int128 len = std::max<__int128>(0, std::min(s[w1] - row0, s[w2] - col0));
      Shape ws;
      for (int64_t i = 0; i < nd; ++i) {
        if (i != w1 && i != w2) ws.push_back(s[i]);
      }
      ws.push_back(static_cast<int64_t>(len));
      expect_view(a, v, ws, [&](const int64_t* idx, int64_t, int64_t* src) {
        for (int64_t i = 0, j = 0; i < nd; ++i) {
          if (i != w1 && i != w2) src[i] = idx[j++];
        }
        src[w1] = static_cast<int64_t>(idx[nd - 2] + row0);
        src[w2] = static_cast<int64_t>(idx[nd - 2] + col0);
      });
      break;
    }
    case 13: {  // unfold
      const int64_t d = arg(), size = arg();
      const int64_t step = in_.flag() ? wild_dim() : static_cast<int64_t>(in_.below(4));
      g_step = "unfold " + std::to_string(d) + " " + std::to_string(size) + " " +
               std::to_string(step) + " of " + str(a);
      bool bad = false;
      const int64_t w = wrap_dim_or(d, nd, bad);
      const int64_t n = nd == 0 ? 1 : s[w];
      if (size < 0 || size > n || step <= 0) bad = true;
      if (nd >= static_cast<int64_t>(Shape::kMaxDims)) bad = true;  // no room for the windows
      Shape ws = s;
      if (!bad && nd > 0) {
        ws[w] = (n - size) / step + 1;
        int64_t scaled;
        if (ws[w] > 1 && __builtin_mul_overflow(a.strides()[w], step, &scaled)) bad = true;
      }
      if (!bad) ws.push_back(size);
      if (!outcome(bad ? Expect::Error : Expect::Ok, [&] { v = a.unfold(d, size, step); })) {
        return;
      }
      if (nd == 0) ws = Shape{size};
      expect_view(a, v, ws, [&](const int64_t* idx, int64_t, int64_t* src) {
        for (int64_t i = 0; i < nd; ++i) src[i] = idx[i];
        if (nd > 0) src[w] = idx[w] * step + idx[nd];
      });
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

}  // namespace wick::fuzz::ops
