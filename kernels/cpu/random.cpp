// random.cpp: rand and randn from the Philox stream of wick/philox.hpp. Element i depends only
// on (seed, offset, i), so the split across threads does not change a single value, and the
// CUDA kernel (kernels/cuda/random.cu) produces the same numbers.
#include "kernels.hpp"
#include "loops.hpp"
#include "wick/philox.hpp"

namespace wick::cpu {

void random_kernel(const OpCall& call) {
  const Tensor& out = call.out();  // contiguous, floating
  const bool normal = call.op == OpId::randn;
  const uint64_t seed = call.seed, offset = call.offset;
  WICK_DISPATCH_FLOATING(out.dtype(), {
    T* data = out.data_ptr<T>();
    parallel_for(out.numel(), 4096, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        uint64_t u = static_cast<uint64_t>(i);
        data[i] = normal ? philox::randn_element<T>(seed, offset, u)
                         : philox::rand_element<T>(seed, offset, u);
      }
    });
  })
}

}  // namespace wick::cpu
