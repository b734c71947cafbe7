// fill_copy.cu: fill (every element = one value), arange, and copy (elementwise, with a cast
// between any two dtypes), fill and copy for any strides on elementwise.cuh's engine, arange
// (contiguous) in a grid-stride loop of its own. Idea: a same-dtype
// copy moves bits by element size (uint8/uint32/uint64), so NaN payloads and -0.0 survive, and a
// contiguous one is a cudaMemcpyAsync. Casts follow kernels/cpu/loops.hpp's convert(): floating ->
// int64 truncates, NaN and out-of-range values become INT64_MIN (what x86's cvttsd2si gives; CUDA's
// own conversion would give 0 or saturate), anything -> bool is
// "!= 0" (NaN -> true), int64 -> floating rounds to nearest; bfloat16 goes through float32.
// Tested by tests/cuda/test_ops.cpp (every dtype pair, strided, against the CPU kernels) and
// test_runtime.cpp (bit-exact round trips).
#include "elementwise.cuh"
#include "kernels.hpp"

namespace wick::gpu {
namespace {

template <typename T>
struct FillOp {
  T value;
  __device__ T operator()() const { return value; }
};

template <typename T>
struct IdentityOp {
  __device__ T operator()(T v) const { return v; }
};

template <typename To>
struct CastOp {
  template <typename From>
  __device__ To operator()(From v) const {
    if constexpr (std::is_same_v<From, BFloat16>) {  // through float32, as on the CPU
      return CastOp<To>{}(static_cast<float>(v));
    } else if constexpr (std::is_same_v<To, BFloat16>) {
      return BFloat16(static_cast<float>(v));
    } else if constexpr (std::is_same_v<To, bool>) {
      return v != From(0);
    } else if constexpr (std::is_same_v<To, int64_t> && std::is_floating_point_v<From>) {
      const double d = static_cast<double>(v);
      if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
      return static_cast<int64_t>(d);
    } else {
      return static_cast<To>(v);
    }
  }
};

// Same dtype, any layout: copy the bits of each element.
void copy_bits(const OpContext& ctx, const Tensor& out, const Tensor& in) {
  switch (out.element_size()) {
    case 1:
      launch_elementwise<uint8_t, uint8_t>(ctx, out, {&in}, IdentityOp<uint8_t>{});
      break;
    case 2:
      launch_elementwise<uint16_t, uint16_t>(ctx, out, {&in}, IdentityOp<uint16_t>{});
      break;
    case 4:
      launch_elementwise<uint32_t, uint32_t>(ctx, out, {&in}, IdentityOp<uint32_t>{});
      break;
    case 8:
      launch_elementwise<uint64_t, uint64_t>(ctx, out, {&in}, IdentityOp<uint64_t>{});
      break;
    default:
      detail::fail<DtypeError>(ctx.op, "no CUDA copy for elements of ", out.element_size(),
                               " bytes");
  }
}

// arange: out[i] = start + i * step (grid-stride); the file is built with -fmad=false, so the
// double multiply and add round separately, as on the CPU.
template <typename T>
__global__ void arange_float_kernel(T* out, int64_t n, double start, double step) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = static_cast<T>(start + static_cast<double>(i) * step);
  }
}
template <typename T>
__global__ void arange_int_kernel(T* out, int64_t n, uint64_t start, uint64_t step) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = static_cast<T>(static_cast<int64_t>(start + static_cast<uint64_t>(i) * step));
  }
}

}  // namespace

void launch_arange(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& out = call.out();
  const int64_t n = out.numel();
  if (n == 0) return;
  const unsigned grid = grid_for(ctx, n);
  auto run = [&](auto* data) {
    using T = std::remove_pointer_t<decltype(data)>;
    if (call.scalar_a.is_floating()) {
      launch_kernel(ctx, "arange_float_kernel", arange_float_kernel<T>, grid, kBlockThreads, 0,
                    data, n, call.scalar_a.to_double(), call.scalar_b.to_double());
    } else {
      launch_kernel(ctx, "arange_int_kernel", arange_int_kernel<T>, grid, kBlockThreads, 0, data, n,
                    static_cast<uint64_t>(call.scalar_a.to_int64()),
                    static_cast<uint64_t>(call.scalar_b.to_int64()));
    }
  };
  switch (out.dtype()) {
    case kInt64:
      run(static_cast<int64_t*>(out.raw_data()));
      break;
    case kFloat32:
      run(static_cast<float*>(out.raw_data()));
      break;
    case kFloat64:
      run(static_cast<double*>(out.raw_data()));
      break;
    default:  // bool is refused by arange; bfloat16 is made in float32 by run_kernel
      detail::fail<DtypeError>(ctx.op, "no CUDA arange for ", out.dtype());
  }
}

void launch_fill(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& out = call.out();
  WICK_DISPATCH_ALL(out.dtype(),
                    { launch_elementwise<T>(ctx, out, {}, FillOp<T>{call.scalar_a.to<T>()}); })
}

void launch_copy(const OpCall& call) {
  OpContext ctx(call);
  const Tensor& out = call.out();
  const Tensor& in = call.in(0);
  if (out.numel() == 0) return;
  if (out.dtype() == in.dtype()) {
    if (out.is_contiguous() && in.is_contiguous()) {
      WICK_CUDA_CHECK(cudaMemcpyAsync(out.raw_data(), in.raw_data(), out.nbytes(),
                                      cudaMemcpyDeviceToDevice, ctx.stream),
                      ctx.op, ctx.device);
    } else {
      copy_bits(ctx, out, in);
    }
    return;
  }
  WICK_DISPATCH_STORED(out.dtype(), {
    using Out = T;
    WICK_DISPATCH_STORED(in.dtype(), {
      if constexpr (!std::is_same_v<Out, T>) {
        launch_elementwise<Out, T>(ctx, out, {&in}, CastOp<Out>{});
      }
    })
  })
}

}  // namespace wick::gpu
