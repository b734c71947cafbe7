// im2col.cpp: the window machinery of im2col.hpp: geometry checks, the cached row index of
// every window element, and the gather (im2col) and scatter (col2im) through it.
#include "im2col.hpp"

#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "wick/autograd.hpp"

namespace wick::nn::detail {

int64_t out_size(const char* op, const Tensor& input, int64_t in, int64_t k, int64_t s, int64_t p,
                 int64_t d, bool ceil_mode) {
  const int64_t span = d * (k - 1) + 1;
  const int64_t padded = in + 2 * p;
  const int64_t numerator = padded - span + (ceil_mode ? s - 1 : 0);
  int64_t out = (numerator >= 0 ? numerator / s : -((-numerator + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  WICK_CHECK(out >= 1, ShapeError, op, "the input ", describe(input), " padded by ", p,
             " is smaller than the kernel (", k, " with dilation ", d, ")");
  return out;
}

void check_window(const char* op, const Window& w) {
  WICK_CHECK(w.kernel.h > 0 && w.kernel.w > 0, ValueError, op,
             "kernel size must be positive, got (", w.kernel.h, ", ", w.kernel.w, ")");
  WICK_CHECK(w.stride.h > 0 && w.stride.w > 0, ValueError, op, "stride must be positive, got (",
             w.stride.h, ", ", w.stride.w, ")");
  WICK_CHECK(w.padding.h >= 0 && w.padding.w >= 0, ValueError, op,
             "padding must be non-negative, got (", w.padding.h, ", ", w.padding.w, ")");
  WICK_CHECK(w.dilation.h > 0 && w.dilation.w > 0, ValueError, op,
             "dilation must be positive, got (", w.dilation.h, ", ", w.dilation.w, ")");
  // Sizes past this could overflow the index arithmetic; no real image comes near it.
  constexpr int64_t kLimit = int64_t{1} << 24;
  for (int64_t v : {w.kernel.h, w.kernel.w, w.stride.h, w.stride.w, w.padding.h, w.padding.w,
                    w.dilation.h, w.dilation.w}) {
    WICK_CHECK(v < kLimit, ValueError, op, "window parameter ", v, " is too large");
  }
}

std::pair<Tensor, bool> batched(const char* op, const Tensor& input) {
  WICK_CHECK(input.defined(), ValueError, op, "the input is undefined");
  WICK_CHECK(input.dim() == 3 || input.dim() == 4, ShapeError, op,
             "expected a 3-D (unbatched) or 4-D (batched) input, got ", describe(input));
  WICK_CHECK(input.is_floating_point(), DtypeError, op, "expected a floating input, got ",
             describe(input));
  return {input.dim() == 3 ? input.unsqueeze(0) : input, input.dim() == 3};
}

Geometry geometry(const char* op, const Tensor& x, const Window& w) {
  check_window(op, w);
  Geometry g{x.size(1), x.size(2), x.size(3), 0, 0};
  g.out_h =
      out_size(op, x, g.height, w.kernel.h, w.stride.h, w.padding.h, w.dilation.h, w.ceil_mode);
  g.out_w =
      out_size(op, x, g.width, w.kernel.w, w.stride.w, w.padding.w, w.dilation.w, w.ceil_mode);
  check_index_size(op, x, g, w);
  return g;
}

// The row indices (c, ki, kj, oh, ow) -> input row, as an int64 tensor on `device`. Rows past
// the image read row C * H * W (the padding row). Kept per (geometry, window, device) in a
// small cache: a training loop asks for the same one every step, and on a GPU it would
// otherwise be built and copied over each time.
Tensor window_rows(const Geometry& g, const Window& w, Device device) {
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, int64_t, int64_t, int64_t, int, int>;
  const Key key{g.channels,    g.height,
                g.width,       w.kernel.h,
                w.kernel.w,    w.stride.h,
                w.stride.w,    w.padding.h,
                w.padding.w,   w.dilation.h,
                w.dilation.w,  g.out_h,
                g.out_w,       static_cast<int>(device.type()),
                device.index()};
  static std::mutex mutex;
  // Never destroyed: device tensors must not be freed after the CUDA runtime has shut down.
  static auto* cache = new std::map<Key, Tensor>();
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = cache->find(key);
    if (found != cache->end()) return found->second;
  }
  const int64_t kh = w.kernel.h, kw = w.kernel.w, oh_n = g.out_h, ow_n = g.out_w;
  const int64_t pad_row = g.channels * g.height * g.width;
  Tensor rows = empty({g.channels * kh * kw * oh_n * ow_n}, TensorOptions(kInt64));
  int64_t* out = rows.data_ptr<int64_t>();
  for (int64_t c = 0; c < g.channels; ++c) {
    for (int64_t ki = 0; ki < kh; ++ki) {
      for (int64_t kj = 0; kj < kw; ++kj) {
        for (int64_t oh = 0; oh < oh_n; ++oh) {
          const int64_t ih = oh * w.stride.h - w.padding.h + ki * w.dilation.h;
          for (int64_t ow = 0; ow < ow_n; ++ow) {
            const int64_t iw = ow * w.stride.w - w.padding.w + kj * w.dilation.w;
            const bool inside = ih >= 0 && ih < g.height && iw >= 0 && iw < g.width;
            *out++ = inside ? (c * g.height + ih) * g.width + iw : pad_row;
          }
        }
      }
    }
  }
  if (!device.is_cpu()) rows = rows.to(device);
  const std::lock_guard<std::mutex> lock(mutex);
  if (cache->size() >= 32) cache->clear();  // a bound, not an LRU: shapes rarely vary this much
  cache->emplace(key, rows);
  return rows;
}

// [C * kh * kw, OH * OW, N]: every window element of every output position of every image.
Tensor im2col(const Tensor& x, const Geometry& g, const Window& w, double pad_value) {
  const int64_t n = x.size(0);
  // Rows [C * H * W, N] (a copy: the images' positions become rows), then the padding row.
  const Tensor positions = x.reshape({n, g.channels * g.height * g.width}).t();
  const Tensor pad = full({1, n}, pad_value, x.options().requires_grad(false));
  const Tensor table = cat({positions, pad}, 0);
  const Tensor rows = window_rows(g, w, x.device());
  // The index is built here, in range by construction: the boundary need not check it.
  const wick::detail::IndexesInRange in_range(/*host_tensors_too=*/true);
  return table.index_select(0, rows).reshape(
      {g.channels * w.kernel.h * w.kernel.w, g.out_h * g.out_w, n});
}

// [X, OH * OW, N] -> [N, X, OH, OW], contiguous as PyTorch's results.
Tensor to_images(const Tensor& cols, const Geometry& g, bool unbatched) {
  const int64_t n = cols.size(2);
  Tensor out = cols.permute({2, 0, 1}).contiguous().reshape({n, cols.size(0), g.out_h, g.out_w});
  return unbatched ? out.squeeze(0) : out;
}

void check_index_size(const char* op, const Tensor& x, const Geometry& g, const Window& w) {
  int64_t total = g.channels;
  bool overflow = false;
  for (int64_t f : {w.kernel.h, w.kernel.w, g.out_h, g.out_w}) {
    overflow = overflow || __builtin_mul_overflow(total, f, &total);
  }
  WICK_CHECK(!overflow && total < (int64_t{1} << 40), ShapeError, op, "the im2col index for ",
             describe(x), " would have ", total, " elements");
}

Tensor max_choice(const Tensor& values, int64_t dim, const Tensor& eligible) {
  const int64_t count = values.size(dim);
  const Tensor largest = amax(values, dim, true);
  const Tensor nan_slice = isnan(largest);
  // Positions 1 .. count along dim: the last NaN has the largest, the first largest eligible
  // element the largest of count + 1 - position.
  Shape shape = Shape::filled(static_cast<size_t>(values.dim()), 1);
  shape[static_cast<size_t>(dim)] = count;
  const Tensor position =
      arange(1, count + 1, 1, TensorOptions(kInt64).device(values.device())).reshape(shape);
  const Tensor largest_here = eq(values, largest);
  const Tensor candidate =
      where(nan_slice, isnan(values),
            eligible.defined() ? logical_and(largest_here, eligible) : largest_here);
  const Tensor score =
      where(candidate, where(nan_slice, position, count + 1 - position), Scalar(int64_t{0}));
  return argmax(score, dim, true);
}

std::string pair_text(const Size2& s) { return wick::detail::str_cat("(", s.h, ", ", s.w, ")"); }

Tensor col2im(const Tensor& cols, const Geometry& g, const Window& w) {
  const int64_t n = cols.size(2), image = g.channels * g.height * g.width;
  const Tensor rows = window_rows(g, w, cols.device());
  // One row per input position, plus the padding row, which collects what falls outside.
  const Tensor table = zeros({image + 1, n}, cols.options().requires_grad(false));
  const wick::detail::IndexesInRange in_range(/*host_tensors_too=*/true);
  const Tensor summed = index_add(table, 0, rows, cols.reshape({-1, n}));
  return summed.narrow(0, 0, image)
      .reshape({g.channels, g.height, g.width, n})
      .permute({3, 0, 1, 2})
      .contiguous();
}

}  // namespace wick::nn::detail
