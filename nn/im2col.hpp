// im2col.hpp (internal to nn/): the window machinery that conv2d, conv_transpose2d, pooling,
// unfold and fold share. A window element is a row of a [C * H * W + 1, N] table (the last row
// is the padding value), so im2col is one index_select of rows and col2im, its adjoint, one
// index_add of rows; both devices and autograd come from those ops. See conv.cpp's header.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "wick/nn/conv.hpp"
#include "wick/ops.hpp"

namespace wick::nn::detail {

struct Window {
  Size2 kernel, stride, padding, dilation;
  bool ceil_mode = false;  // pooling: a last, partial window where floor division drops it
};

struct Geometry {
  int64_t channels, height, width;  // of the input
  int64_t out_h, out_w;
};

// The output size along one dim, or a ShapeError naming op. With ceil_mode, as PyTorch's
// pooling_output_shape: the division (floor, of a numerator that may be negative) rounds up,
// the last window must start inside the input or its left padding, and an input smaller than
// the kernel is taken while one window remains.
int64_t out_size(const char* op, const Tensor& input, int64_t in, int64_t k, int64_t s, int64_t p,
                 int64_t d, bool ceil_mode);

// Positive kernel, stride and dilation, padding not negative, each below 2^24; else a typed
// error naming op.
void check_window(const char* op, const Window& w);

// The input as 4-D, and whether it came unbatched ([C, H, W]); a floating dtype.
std::pair<Tensor, bool> batched(const char* op, const Tensor& input);

// The output geometry of sliding w over x [N, C, H, W], checked (window, sizes, index size).
Geometry geometry(const char* op, const Tensor& x, const Window& w);

// A ShapeError naming op and x where g's window index (C * kh * kw * OH * OW rows) would
// overflow or pass 2^40 elements.
void check_index_size(const char* op, const Tensor& x, const Geometry& g, const Window& w);

// Along dim of values (detached, the same sizes as eligible unless eligible is undefined):
// the position max pooling picks, keepdim, as PyTorch's kernels scan: the last NaN where the
// slice holds one, else the first largest element among the eligible ones.
Tensor max_choice(const Tensor& values, int64_t dim, const Tensor& eligible);

// "(h, w)", as PyTorch prints a pair.
std::string pair_text(const Size2& s);

// The row indices (c, ki, kj, oh, ow) -> input row, as an int64 tensor on `device`; rows past
// the image read row C * H * W (the padding row). Cached per (geometry, window, device).
Tensor window_rows(const Geometry& g, const Window& w, Device device);

// [C * kh * kw, OH * OW, N]: every window element of every output position of every image of
// x [N, C, H, W]; elements in the padding read pad_value.
Tensor im2col(const Tensor& x, const Geometry& g, const Window& w, double pad_value);

// The adjoint of im2col: cols [C * kh * kw, OH * OW, N] summed into the images [N, C, H, W]
// at the positions im2col reads them from (padding positions dropped), in index order.
Tensor col2im(const Tensor& cols, const Geometry& g, const Window& w);

// [X, OH * OW, N] -> [N, X, OH, OW] (or [X, OH, OW] when unbatched), contiguous as PyTorch's.
Tensor to_images(const Tensor& cols, const Geometry& g, bool unbatched);

}  // namespace wick::nn::detail
