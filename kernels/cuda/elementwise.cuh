// elementwise.cuh: the loop engine of every elementwise kernel (fill, copy and cast, unary,
// binary, comparisons, where): out[i] = fn(in_0[i], ..., in_k[i]) for tensors of one shape with
// any strides (inputs arrive expanded to the output's shape, zero strides where broadcast:
// wick/dispatch.hpp). The dims are put in the output's memory order and collapsed first
// (common.cuh), then:
//  - every operand contiguous and 16-byte aligned: elementwise_vec_kernel, each thread moving
//    16 bytes of the widest operand per step with vector loads and stores, grid-stride;
//  - otherwise: elementwise_strided_kernel, each element's offsets from OffsetCalculator
//    (a multiply-high and a shift per collapsed dim).
// Limits: up to Shape::kMaxDims dims, any element count below 2^63. Both kernels read every
// element of an input before writing the same element of the output, so in-place ops with the
// same layout (a.add_(b)) are safe. Measured by bench/gpu (add, mul, exp on 2^26 floats as a
// fraction of the device copy bandwidth); no GPU run has happened yet, so the figures are
// pending (docs/gpu-results.md).
#pragma once

#include "common.cuh"

namespace wick::gpu {

// Elements per vector: 16 bytes of the widest operand.
template <typename Out, typename... In>
constexpr int vec_width() {
  size_t widest = sizeof(Out);
  ((widest = sizeof(In) > widest ? sizeof(In) : widest), ...);
  return static_cast<int>(16 / widest);
}

template <typename Out, int kVec, typename Fn, typename... In>
__device__ __forceinline__ void apply_vec(Vec<Out, kVec>& result, const Fn& fn,
                                          const Vec<In, kVec>&... values) {
#pragma unroll
  for (int k = 0; k < kVec; ++k) result.v[k] = fn(values.v[k]...);
}

// out, in...: n elements each, contiguous, aligned to kVec elements.
template <int kVec, typename Out, typename Fn, typename... In>
__global__ void elementwise_vec_kernel(int64_t n, Fn fn, Out* out, const In*... in) {
  const int64_t n_vec = n / kVec;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t i = first; i < n_vec; i += step) {
    Vec<Out, kVec> result;
    apply_vec<Out, kVec>(result, fn, load_vec<kVec>(in + i * kVec)...);
    store_vec<kVec>(out + i * kVec, result);
  }
  for (int64_t i = n_vec * kVec + first; i < n; i += step) out[i] = fn(in[i]...);
}

template <typename Fn, size_t... I, typename... In>
__device__ __forceinline__ auto apply_at(const Fn& fn, const int64_t* offsets,
                                         std::index_sequence<I...>, const In*... in) {
  (void)offsets;
  return fn(in[offsets[I + 1]]...);
}

// out, in...: n elements laid out as calc says (operand 0 = out).
template <typename Out, typename Fn, typename... In>
__global__ void elementwise_strided_kernel(int64_t n, Fn fn,
                                           OffsetCalculator<1 + sizeof...(In)> calc, Out* out,
                                           const In*... in) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t offsets[1 + sizeof...(In)];
    calc.get(static_cast<uint64_t>(i), offsets);
    out[offsets[0]] = apply_at(fn, offsets, std::index_sequence_for<In...>{}, in...);
  }
}

template <typename Out, typename... In, typename Fn, size_t... I>
void launch_elementwise_impl(const OpContext& ctx, const Tensor& out,
                             const std::array<const Tensor*, sizeof...(In)>& in, const Fn& fn,
                             std::index_sequence<I...>) {
  constexpr int kArgs = 1 + sizeof...(In);
  const int64_t n = out.numel();
  if (n == 0) return;
  std::array<const Shape*, kArgs> strides{&out.strides(), &in[I]->strides()...};
  const StridedLayout<kArgs> layout = collapse_in_memory_order<kArgs>(out.sizes(), strides);
  Out* out_ptr = static_cast<Out*>(out.raw_data());
  constexpr int kVec = vec_width<Out, In...>();
  const bool aligned = is_aligned(out_ptr, sizeof(Out) * kVec) &&
                       (is_aligned(in[I]->raw_data(), sizeof(In) * kVec) && ...);
  if (layout.contiguous() && aligned) {
    launch_kernel(ctx, "elementwise_vec_kernel", elementwise_vec_kernel<kVec, Out, Fn, In...>,
                  grid_for(ctx, ceil_div<int64_t>(n, kVec)), kBlockThreads, 0, n, fn, out_ptr,
                  static_cast<const In*>(in[I]->raw_data())...);
  } else {
    launch_kernel(ctx, "elementwise_strided_kernel", elementwise_strided_kernel<Out, Fn, In...>,
                  grid_for(ctx, n), kBlockThreads, 0, n, fn, OffsetCalculator<kArgs>(layout),
                  out_ptr, static_cast<const In*>(in[I]->raw_data())...);
  }
}

// out[i] = fn(in[0][i], ...) with Out and In... the element types of out and the inputs.
template <typename Out, typename... In, typename Fn>
void launch_elementwise(const OpContext& ctx, const Tensor& out,
                        const std::array<const Tensor*, sizeof...(In)>& in, const Fn& fn) {
  launch_elementwise_impl<Out, In...>(ctx, out, in, fn, std::index_sequence_for<In...>{});
}

}  // namespace wick::gpu
