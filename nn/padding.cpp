// padding.cpp: functional::pad (see padding.hpp). Each padded dim in turn, last dim first:
// constant mode crops with narrow and adds blocks of `value` with cat; the other modes select
// rows by an index built here: position j of the result (j from -left to size + right - 1)
// reads row reflect(j), clamp(j) or j mod size of the input.
#include "wick/nn/padding.hpp"

#include <algorithm>

#include "wick/autograd.hpp"

namespace wick::nn {
namespace {

const char* mode_name(PadMode m) {
  switch (m) {
    case PadMode::Constant:
      return "constant";
    case PadMode::Reflect:
      return "reflect";
    case PadMode::Replicate:
      return "replicate";
    case PadMode::Circular:
      return "circular";
  }
  return "?";
}

Tensor pad_constant(const Tensor& x, int64_t dim, int64_t left, int64_t right, double value) {
  const int64_t n = x.size(dim);
  Tensor out = x;
  // Negative amounts crop first.
  const int64_t crop_left = left < 0 ? -left : 0, crop_right = right < 0 ? -right : 0;
  if (crop_left > 0 || crop_right > 0) out = out.narrow(dim, crop_left, n - crop_left - crop_right);
  auto block = [&](int64_t size) {
    Shape sizes = out.sizes();
    sizes[static_cast<size_t>(dim)] = size;
    return full(sizes, value, out.options().requires_grad(false));
  };
  std::vector<Tensor> parts;
  if (left > 0) parts.push_back(block(left));
  parts.push_back(out);
  if (right > 0) parts.push_back(block(right));
  return parts.size() == 1 ? out : cat(parts, dim);
}

Tensor pad_by_index(const Tensor& x, int64_t dim, int64_t left, int64_t right, PadMode mode) {
  const int64_t n = x.size(dim);
  Tensor rows = empty({n + left + right}, TensorOptions(kInt64));
  int64_t* r = rows.data_ptr<int64_t>();
  for (int64_t j = -left; j < n + right; ++j) {
    int64_t i = j;
    if (mode == PadMode::Reflect) {
      i = j < 0 ? -j : (j >= n ? 2 * (n - 1) - j : j);
    } else if (mode == PadMode::Replicate) {
      i = std::clamp<int64_t>(j, 0, n - 1);
    } else {
      i = ((j % n) + n) % n;
    }
    *r++ = i;
  }
  // The index is in range by construction: no check on the device's copy either.
  const wick::detail::IndexesInRange in_range(/*host_tensors_too=*/true);
  return x.index_select(dim, x.device().is_cpu() ? rows : rows.to(x.device()));
}

}  // namespace

Tensor functional::pad(const Tensor& input, const PadFuncOptions& options) {
  const char* op = "pad";
  WICK_CHECK(input.defined(), ValueError, op, "the input is undefined");
  const std::vector<int64_t>& amounts = options.pad();
  const auto dims = static_cast<int64_t>(amounts.size() / 2);
  WICK_CHECK(amounts.size() % 2 == 0, ValueError, op,
             "the padding list must have an even length, got ", amounts.size(), " for ",
             describe(input));
  WICK_CHECK(dims <= input.dim(), ValueError, op, "the padding list pads ", dims,
             " dims; the input ", describe(input), " has ", input.dim());
  const PadMode mode = options.mode();
  if (mode != PadMode::Constant) {
    WICK_CHECK(dims < input.dim(), ValueError, op, mode_name(mode), " padding of ", dims,
               " dims needs an input of more dims (a batch or channel dim first), got ",
               describe(input));
  }
  Tensor out = input;
  for (int64_t k = 0; k < dims; ++k) {
    const int64_t dim = input.dim() - 1 - k;
    const int64_t left = amounts[static_cast<size_t>(2 * k)];
    const int64_t right = amounts[static_cast<size_t>(2 * k + 1)];
    const int64_t n = out.size(dim);
    // |amounts| below 2^40 keep the sums below in range; no real padding comes near it.
    constexpr int64_t kLimit = int64_t{1} << 40;
    WICK_CHECK(left > -kLimit && left < kLimit && right > -kLimit && right < kLimit, ValueError, op,
               "padding (", left, ", ", right, ") of dim ", dim, " is too large");
    if (mode == PadMode::Constant) {
      WICK_CHECK(n + left + right >= 0 && n + std::min<int64_t>(left, 0) >= 0 &&
                     n + std::min<int64_t>(right, 0) >= 0,
                 ValueError, op, "padding (", left, ", ", right, ") of dim ", dim, " of ",
                 describe(input), " leaves a negative size");
      out = pad_constant(out, dim, left, right, options.value());
      continue;
    }
    WICK_CHECK(left >= 0 && right >= 0, ValueError, op, mode_name(mode), " padding (", left, ", ",
               right, ") of dim ", dim, " must not be negative");
    if (left == 0 && right == 0) continue;
    const bool fits = mode == PadMode::Reflect    ? left < n && right < n
                      : mode == PadMode::Circular ? left <= n && right <= n
                                                  : n > 0;
    WICK_CHECK(fits, ValueError, op, mode_name(mode), " padding (", left, ", ", right,
               ") does not fit dim ", dim, " of ", describe(input),
               mode == PadMode::Reflect    ? " (each amount must be below its size)"
               : mode == PadMode::Circular ? " (each amount must be at most its size)"
                                           : " (the dim is empty)");
    out = pad_by_index(out, dim, left, right, mode);
  }
  return out;
}

}  // namespace wick::nn
