// vec_cast.cpp: float32 and float64 -> int64 casts of contiguous runs, for copy_kernel
// (fill_copy.cpp). x86 before AVX-512 has no vector float -> int64 conversion, so a scalar
// cvttss2si behind the range check (loops.hpp's convert) ran one element at a time: 829-858 us
// for 2^20 floats against libtorch's 674-689 (docs/cpu-kernels.md). Most values a program
// casts fit in int32, and for those the int32 conversion (cvttps2dq, in every x86-64 clone) and
// a sign extension give the same int64: blocks of 64 whose every |x| < 2^31 take that path, the
// other blocks the scalar conversion, so NaN, infinities and out-of-range values still become
// INT64_MIN, as PyTorch's cast gives on x86. Built as vec_kernels.cpp is (WICK_VEC_CLONES).
#include <cmath>
#include <cstdint>

#include "loops.hpp"
#include "vec_clones.hpp"
#include "vec_kernels.hpp"

namespace wick::cpu::vec {

namespace {
template <typename F>
inline __attribute__((always_inline)) void cast_to_int64(const F* x, int64_t* y, int64_t n) {
  constexpr int64_t kBlock = 64;
  constexpr F kInt32Bound = F(2147483648.0);  // 2^31, exact in float32 and float64
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    // & of compares into an int, not && nor a bool (GCC left a bool's &= reduction scalar:
    // 526 us for 2^20 floats, the whole gain lost): the clones vectorise it. NaN compares false.
    int fits_int32 = 1;
    for (int64_t j = 0; j < kBlock; ++j) fits_int32 &= std::fabs(x[i + j]) < kInt32Bound;
    if (fits_int32) {
      for (int64_t j = 0; j < kBlock; ++j) y[i + j] = static_cast<int32_t>(x[i + j]);
    } else {
      for (int64_t j = 0; j < kBlock; ++j) y[i + j] = convert<int64_t>(x[i + j]);
    }
  }
  for (; i < n; ++i) y[i] = convert<int64_t>(x[i]);
}
}  // namespace

WICK_VEC_CLONES void cast_f32_i64(const float* x, int64_t* y, int64_t n) { cast_to_int64(x, y, n); }
WICK_VEC_CLONES void cast_f64_i64(const double* x, int64_t* y, int64_t n) {
  cast_to_int64(x, y, n);
}

}  // namespace wick::cpu::vec
