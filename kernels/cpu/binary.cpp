// binary.cpp: add, sub, mul, div, pow, maximum, minimum, the six comparisons, and where.
// Inputs arrive expanded to the output's shape and in one dtype (wick/dispatch.hpp). int64
// arithmetic wraps on overflow (done in uint64, so it is never UB), as PyTorch's does. add and
// sub with a floating alpha are one fused multiply-add; where selects through a bit mask.
// Measured (docs/cpu-kernels.md, "The MLP step"): BM_add_alpha 622 -> 151 us and
// BM_where_scalar 4.13 -> 0.16 ms on 2^20 floats, one thread.
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels.hpp"
#include "loops.hpp"
#include "vec_kernels.hpp"

namespace wick::cpu {
namespace {

template <typename T>
T wrap_add(T a, T b) {
  if constexpr (std::is_same_v<T, int64_t>) {
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    return a + b;
  }
}
template <typename T>
T wrap_sub(T a, T b) {
  if constexpr (std::is_same_v<T, int64_t>) {
    return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
  } else {
    return a - b;
  }
}
template <typename T>
T wrap_mul(T a, T b) {
  if constexpr (std::is_same_v<T, int64_t>) {
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    return a * b;
  }
}
template <typename T>
T int_pow(T base, T e) {
  if (e < 0) return base == 1 ? 1 : base == -1 ? ((e % 2 == 0) ? 1 : -1) : 0;
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (; e > 0; e >>= 1, b *= b) {
    if (e & 1) result *= b;
  }
  return static_cast<T>(result);
}
template <typename T>
bool nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// add and sub with alpha (call.has_a, floating only): a + alpha * b as one fused
// multiply-add, as PyTorch's kernel; sub passes -alpha. Contiguous operands go to the
// vectorised loop; others (a broadcast operand) to map with the same std::fma.
template <typename T>
void run_axpy(const OpCall& call, T alpha) {
  const Tensor &out = call.out(), &a = call.in(0), &b = call.in(1);
  if (out.is_contiguous() && a.is_contiguous() && b.is_contiguous()) {
    const T *pa = a.data_ptr<T>(), *pb = b.data_ptr<T>();
    T* po = out.data_ptr<T>();
    parallel_for(out.numel(), kParallelGrain, [&](int64_t begin, int64_t end) {
      if constexpr (std::is_same_v<T, float>) {
        vec::axpy_f32(pa + begin, pb + begin, alpha, po + begin, end - begin);
      } else {
        vec::axpy_f64(pa + begin, pb + begin, alpha, po + begin, end - begin);
      }
    });
    return;
  }
  map<T, T, T>(out, [alpha](T x, T y) { return std::fma(y, alpha, x); }, {&a, &b});
}

template <typename T>
void run_arith(const OpCall& call) {
  const Tensor& out = call.out();
  const std::array<const Tensor*, 2> in{&call.in(0), &call.in(1)};
  if constexpr (std::is_floating_point_v<T>) {
    if (call.has_a && (call.op == OpId::add || call.op == OpId::sub)) {
      const T alpha = call.scalar_a.to<T>();
      run_axpy<T>(call, call.op == OpId::add ? alpha : -alpha);
      return;
    }
  }
  switch (call.op) {
    case OpId::add:
      map<T, T, T>(
          out, [](T a, T b) { return wrap_add(a, b); }, in);
      break;
    case OpId::mul:
      map<T, T, T>(
          out, [](T a, T b) { return wrap_mul(a, b); }, in);
      break;
    case OpId::maximum:
      map<T, T, T>(
          out, [](T a, T b) { return nan(a)   ? a
                                     : nan(b) ? b
                                              : (a > b ? a : b); }, in);
      break;
    case OpId::minimum:
      map<T, T, T>(
          out, [](T a, T b) { return nan(a)   ? a
                                     : nan(b) ? b
                                              : (a < b ? a : b); }, in);
      break;
    default:
      if constexpr (!std::is_same_v<T, bool>) {
        switch (call.op) {
          case OpId::sub:
            map<T, T, T>(
                out, [](T a, T b) { return wrap_sub(a, b); }, in);
            break;
          case OpId::pow:
            if constexpr (std::is_floating_point_v<T>) {
              map<T, T, T>(
                  out, [](T a, T b) { return std::pow(a, b); }, in);
            } else {
              map<T, T, T>(
                  out, [](T a, T b) { return int_pow(a, b); }, in);
            }
            break;
          case OpId::div:
            if constexpr (std::is_floating_point_v<T>) {
              map<T, T, T>(
                  out, [](T a, T b) { return a / b; }, in);
            }
            break;
          default:
            break;
        }
      }
      break;
  }
}

template <typename T>
void run_compare(const OpCall& call) {
  const Tensor& out = call.out();
  const std::array<const Tensor*, 2> in{&call.in(0), &call.in(1)};
  switch (call.op) {
    case OpId::eq:
      map<bool, T, T>(
          out, [](T a, T b) { return a == b; }, in);
      break;
    case OpId::ne:
      map<bool, T, T>(
          out, [](T a, T b) { return a != b; }, in);
      break;
    case OpId::lt:
      map<bool, T, T>(
          out, [](T a, T b) { return a < b; }, in);
      break;
    case OpId::le:
      map<bool, T, T>(
          out, [](T a, T b) { return a <= b; }, in);
      break;
    case OpId::gt:
      map<bool, T, T>(
          out, [](T a, T b) { return a > b; }, in);
      break;
    case OpId::ge:
      map<bool, T, T>(
          out, [](T a, T b) { return a >= b; }, in);
      break;
    default:
      break;
  }
}

}  // namespace

void binary_kernel(const OpCall& call) {
  Dtype compute = call.in(0).dtype();
  switch (call.op) {
    case OpId::eq:
    case OpId::ne:
    case OpId::lt:
    case OpId::le:
    case OpId::gt:
    case OpId::ge:
      WICK_DISPATCH_ALL(compute, run_compare<T>(call)) break;
    default:
      WICK_DISPATCH_ALL(compute, run_arith<T>(call)) break;
  }
}

// c ? a : b on the bits, through a mask: GCC does not if-convert a float select (it could
// trap), so `c ? a : b` stayed a branch, and with a random mask (ReLU's backward) each element
// cost a mispredict, 4 ns (BM_where_scalar: 4.1 ms for 2^20 floats). The condition is read as
// the byte it is (0 or 1): GCC has no vector type for bool loads. Bitwise it vectorises.
template <typename T>
T select(uint8_t c, T a, T b) {
  using Bits = std::conditional_t<
      sizeof(T) == 1, uint8_t,
      std::conditional_t<sizeof(T) == 2, uint16_t,
                         std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  static_assert(sizeof(Bits) == sizeof(T));
  const Bits mask = static_cast<Bits>(0) - static_cast<Bits>(c);
  return std::bit_cast<T>(static_cast<Bits>((std::bit_cast<Bits>(a) & mask) |
                                            (std::bit_cast<Bits>(b) & static_cast<Bits>(~mask))));
}

void where_kernel(const OpCall& call) {
  const Tensor& out = call.out();
  WICK_DISPATCH_ALL(out.dtype(), {
    map<T, uint8_t, T, T>(out, [](uint8_t c, T a, T b) { return select(c, a, b); },
                          {&call.in(0), &call.in(1), &call.in(2)});
  })
}

}  // namespace wick::cpu
