// random.cu: rand and randn from the Philox-4x32-10 stream of wick/philox.hpp, the header the
// CPU kernel (kernels/cpu/random.cpp) uses too, so that manual_seed(s); randn(...) gives the same
// values on both devices: element i depends only on (seed, offset, i).
// Idea: one thread per Philox block of 4 elements, computed once. rand takes its 4 words
// through philox::uniform_float/uniform_double, which is exactly philox::rand_element(i)
// = uniform(stream_block(i / 4).v[i % 4]); randn its two word pairs through
// philox::box_muller_pair, which philox::randn_element calls too, so the formula exists once.
// Limits: output contiguous (the boundary makes it so). Tested by tests/cuda/test_runtime.cpp:
// rand and randn bit-exact with the CPU (randn's log and sincos are philox.hpp's own; this file
// is built with -fmad=false, the CPU kernel with -ffp-contract=off).
#include "common.cuh"
#include "kernels.hpp"
#include "wick/philox.hpp"

namespace wick::gpu {
namespace {

// out: n contiguous elements; vectorised stores when `aligned` (16 bytes).
template <typename T, bool kNormal>
__global__ void random_kernel(T* out, int64_t n, uint64_t seed, uint64_t offset, bool aligned) {
  const int64_t blocks = (n + 3) / 4;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks;
       b += step) {
    const int64_t i0 = b * 4;
    T v[4];
    const philox::Block bits = philox::stream_block(seed, offset, static_cast<uint64_t>(b));
    if constexpr (kNormal) {
      philox::box_muller_pair<T>(bits.v[0], bits.v[1], v);
      philox::box_muller_pair<T>(bits.v[2], bits.v[3], v + 2);
    } else {
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        if constexpr (sizeof(T) == 4) {
          v[k] = philox::uniform_float(bits.v[k]);
        } else {
          v[k] = philox::uniform_double(bits.v[k]);
        }
      }
    }
    if (aligned && i0 + 4 <= n) {
      if constexpr (sizeof(T) == 4) {
        store_vec<4>(out + i0, Vec<T, 4>{{v[0], v[1], v[2], v[3]}});
      } else {
        store_vec<2>(out + i0, Vec<T, 2>{{v[0], v[1]}});
        store_vec<2>(out + i0 + 2, Vec<T, 2>{{v[2], v[3]}});
      }
    } else {
      for (int k = 0; k < 4 && i0 + k < n; ++k) out[i0 + k] = v[k];
    }
  }
}

template <typename T>
void run_random(const OpContext& ctx, const OpCall& call) {
  const Tensor& out = call.out();
  const int64_t n = out.numel();
  if (n == 0) return;
  T* data = static_cast<T*>(out.raw_data());
  const bool aligned = is_aligned(data, 16);
  const unsigned grid = grid_for(ctx, (n + 3) / 4);
  if (call.op == OpId::randn) {
    launch_kernel(ctx, "random_kernel", random_kernel<T, true>, grid, kBlockThreads, 0, data, n,
                  call.seed, call.offset, aligned);
  } else {
    launch_kernel(ctx, "random_kernel", random_kernel<T, false>, grid, kBlockThreads, 0, data, n,
                  call.seed, call.offset, aligned);
  }
}

}  // namespace

void launch_random(const OpCall& call) {
  OpContext ctx(call);
  switch (call.out().dtype()) {
    case kFloat32:
      run_random<float>(ctx, call);
      break;
    case kFloat64:
      run_random<double>(ctx, call);
      break;
    default:
      detail::fail<DtypeError>(ctx.op, "random values need a floating dtype, got ",
                               describe(call.out()));
  }
}

}  // namespace wick::gpu
