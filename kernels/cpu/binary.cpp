// binary.cpp: add, sub, mul, div, pow, maximum, minimum, atan2, hypot, fmod, remainder,
// floor_divide and trunc_divide (kernels/rounded_division.hpp), copysign, the bitwise ops, gcd,
// lcm and nextafter (kernels/bit_ops.hpp), the six comparisons, and where.
// Inputs arrive expanded to the output's shape and in one dtype (wick/dispatch.hpp). int64
// arithmetic wraps on overflow (done in uint64, so it is never UB), as PyTorch's does. add and
// sub with a floating alpha are one fused multiply-add; where selects through a bit mask.
// bfloat16 computes in float32 inside the loops (loops.hpp, in_compute_type) and rounds once.
// Measured (docs/cpu-kernels.md, "The MLP step"): BM_add_alpha 622 -> 151 us and
// BM_where_scalar 4.13 -> 0.16 ms on 2^20 floats, one thread.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "../bit_ops.hpp"
#include "../rounded_division.hpp"
#include "kernels.hpp"
#include "loops.hpp"
#include "vec_kernels.hpp"
#include "vec_math.hpp"

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
// fmod and remainder. The boundary refuses an integer zero divisor; x % -1 is 0 here because
// INT64_MIN % -1 overflows (x86 traps on it: PyTorch 1.13 dies of SIGFPE there). remainder
// moves fmod's result to b's sign by adding b, as PyTorch's kernel (in floating point that sum
// rounds: remainder(-1e-20f, 1) is 1).
template <typename T>
T fmod_of(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::fmod(a, b);
  } else {
    return b == -1 ? T(0) : a % b;
  }
}
template <typename T>
T remainder_of(T a, T b) {
  const T mod = fmod_of(a, b);
  return mod != 0 && ((b < 0) != (mod < 0)) ? mod + b : mod;
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
// multiply-add, as PyTorch's kernel; sub passes -alpha. Blocks of rows go to vec::axpy_rows,
// whose FMA clones make std::fma one instruction (in this file, built for baseline x86-64, it
// is a call to libm's fmaf) and vectorise unit-stride rows and rows with a repeated value. (A
// call per row before: x[:, :3].add(column, 0.5) of [65536, 5] took 715 us, 4.7x libtorch's
// time; docs/cpu-kernels.md.)
template <typename T>
void run_axpy(const OpCall& call, T alpha) {
  for_each_strided<3>({&call.out(), &call.in(0), &call.in(1)},
                      [&](char** p, const int64_t* s, int64_t n, const int64_t* rs, int64_t rows) {
                        if constexpr (std::is_same_v<T, float>) {
                          vec::axpy_rows_f32(p, s, rs, n, rows, alpha);
                        } else {
                          vec::axpy_rows_f64(p, s, rs, n, rows, alpha);
                        }
                      });
}

// atan2, hypot, fmod, remainder and floor_divide of float32 and bfloat16: vec_math.hpp's
// functions, through vec_kernels' vectorised loops where every operand has unit stride and one
// element at a time otherwise (the same function, so the same bits). bfloat16 widens,
// computes, rounds once.
template <typename S, auto kFloat, auto kBFloat16, float (*kScalar)(float, float)>
void map2_f32(const OpCall& call) {
  using Bits = std::conditional_t<std::is_same_v<S, BFloat16>, uint16_t, float>;
  for_each_strided<3>(
      {&call.out(), &call.in(0), &call.in(1)}, [](char** p, const int64_t* s, int64_t n) {
        const auto* a = reinterpret_cast<const Bits*>(p[1]);
        const auto* b = reinterpret_cast<const Bits*>(p[2]);
        auto* out = reinterpret_cast<Bits*>(p[0]);
        constexpr int64_t kStep = sizeof(Bits);
        if (s[0] == kStep && s[1] == kStep && s[2] == kStep) {
          if constexpr (std::is_same_v<S, BFloat16>) {
            kBFloat16(a, b, out, n);
          } else {
            kFloat(a, b, out, n);
          }
          return;
        }
        for (int64_t j = 0; j < n; ++j) {
          const Bits x = *reinterpret_cast<const Bits*>(p[1] + j * s[1]);
          const Bits y = *reinterpret_cast<const Bits*>(p[2] + j * s[2]);
          Bits& r = *reinterpret_cast<Bits*>(p[0] + j * s[0]);
          if constexpr (std::is_same_v<S, BFloat16>) {
            r = vec::float_to_bf16(kScalar(vec::bf16_to_float(x), vec::bf16_to_float(y)));
          } else {
            r = kScalar(x, y);
          }
        }
      });
}

// S is the stored type; T = compute_t<S> the one the lambdas compute in (float for bfloat16).
template <typename S>
void run_arith(const OpCall& call) {
  using T = compute_t<S>;
  const Tensor& out = call.out();
  const std::array<const Tensor*, 2> in{&call.in(0), &call.in(1)};
  auto map2 = [&](const auto& fn) { map<S, S, S>(out, in_compute_type<S>(fn), in); };
  auto map2_exact = [&](const auto& fn) {  // the result is one of the operands
    map<S, S, S>(out, in_compute_type<S, true>(fn), in);
  };
  if constexpr (std::is_floating_point_v<T>) {
    if (call.has_a && (call.op == OpId::add || call.op == OpId::sub)) {
      const T alpha = call.scalar_a.to<T>();
      const T signed_alpha = call.op == OpId::add ? alpha : -alpha;
      if constexpr (std::is_same_v<S, T>) {
        run_axpy<T>(call, signed_alpha);
      } else {
        map2([signed_alpha](T a, T b) { return std::fma(b, signed_alpha, a); });
      }
      return;
    }
  }
  if constexpr (std::is_same_v<S, float> || std::is_same_v<S, BFloat16>) {
    if (call.op == OpId::atan2) {
      map2_f32<S, vec::atan2_f32, vec::atan2_bf16, vec::atan2>(call);
      return;
    }
    if (call.op == OpId::hypot) {
      map2_f32<S, vec::hypot_f32, vec::hypot_bf16, vec::hypot>(call);
      return;
    }
    if (call.op == OpId::fmod) {
      map2_f32<S, vec::fmod_f32, vec::fmod_bf16, vec::fmod>(call);
      return;
    }
    if (call.op == OpId::remainder) {
      map2_f32<S, vec::remainder_f32, vec::remainder_bf16, vec::remainder>(call);
      return;
    }
    if (call.op == OpId::floor_divide) {
      map2_f32<S, vec::floor_divide_f32, vec::floor_divide_bf16, vec::floor_divide>(call);
      return;
    }
  }
  switch (call.op) {
    case OpId::add:
      map2([](T a, T b) { return wrap_add(a, b); });
      break;
    case OpId::mul:
      map2([](T a, T b) { return wrap_mul(a, b); });
      break;
    case OpId::maximum:
      map2_exact([](T a, T b) { return nan(a) ? a : nan(b) ? b : (a > b ? a : b); });
      break;
    case OpId::minimum:
      map2_exact([](T a, T b) { return nan(a) ? a : nan(b) ? b : (a < b ? a : b); });
      break;
    // The boundary sends int64 and bool only to the bitwise ops, int64 only to the shifts, gcd
    // and lcm, floating dtypes only to nextafter.
    case OpId::bitwise_and:
      if constexpr (std::is_integral_v<T>) map2([](T a, T b) { return static_cast<T>(a & b); });
      break;
    case OpId::bitwise_or:
      if constexpr (std::is_integral_v<T>) map2([](T a, T b) { return static_cast<T>(a | b); });
      break;
    case OpId::bitwise_xor:
      if constexpr (std::is_integral_v<T>) map2([](T a, T b) { return static_cast<T>(a ^ b); });
      break;
    case OpId::bitwise_left_shift:
      if constexpr (std::is_same_v<T, int64_t>)
        map2([](T a, T b) { return bit_ops::shift_left(a, b); });
      break;
    case OpId::bitwise_right_shift:
      if constexpr (std::is_same_v<T, int64_t>)
        map2([](T a, T b) { return bit_ops::shift_right(a, b); });
      break;
    case OpId::gcd:
      if constexpr (std::is_same_v<T, int64_t>) map2([](T a, T b) { return bit_ops::gcd(a, b); });
      break;
    case OpId::lcm:
      if constexpr (std::is_same_v<T, int64_t>) map2([](T a, T b) { return bit_ops::lcm(a, b); });
      break;
    case OpId::nextafter:
      if constexpr (std::is_same_v<S, BFloat16>) {
        map<S, S, S>(
            out, [](S a, S b) { return bit_ops::nextafter_bf16(a, b); }, in);
      } else if constexpr (std::is_same_v<T, float>) {
        map2([](T a, T b) { return bit_ops::nextafter_bits<uint32_t>(a, b); });
      } else if constexpr (std::is_same_v<T, double>) {
        map2([](T a, T b) { return bit_ops::nextafter_bits<uint64_t>(a, b); });
      }
      break;
    default:
      if constexpr (!std::is_same_v<T, bool>) {
        switch (call.op) {
          case OpId::sub:
            map2([](T a, T b) { return wrap_sub(a, b); });
            break;
          case OpId::pow:
            if constexpr (std::is_floating_point_v<T>) {
              map2([](T a, T b) { return std::pow(a, b); });
            } else {
              map2([](T a, T b) { return int_pow(a, b); });
            }
            break;
          case OpId::div:
            if constexpr (std::is_floating_point_v<T>) {
              map2([](T a, T b) { return a / b; });
            }
            break;
          case OpId::fmod:
            map2([](T a, T b) { return fmod_of(a, b); });
            break;
          case OpId::remainder:
            map2([](T a, T b) { return remainder_of(a, b); });
            break;
          case OpId::floor_divide:
            map2([](T a, T b) { return rounded_division::floor_divide(a, b); });
            break;
          case OpId::trunc_divide:
            map2([](T a, T b) { return rounded_division::trunc_divide(a, b); });
            break;
          case OpId::atan2:
            if constexpr (std::is_floating_point_v<T>) {
              map2([](T a, T b) { return std::atan2(a, b); });
            }
            break;
          case OpId::copysign:
            if constexpr (std::is_floating_point_v<T>) {
              map2([](T a, T b) { return std::copysign(a, b); });
            }
            break;
          case OpId::hypot:
            if constexpr (std::is_floating_point_v<T>) {
              map2([](T a, T b) { return std::hypot(a, b); });
            }
            break;
          // PyTorch 1.13's CPU kernels, bit for bit (python3-torch, 10^6 pairs each): sigmoid's
          // (g * (1 - y)) * y, and tanh's 1 - y * y as one fused multiply-add (its AVX2 and
          // AVX-512 kernels are built with contraction; g * (1 - y * y) rounded twice differed
          // in 25% of float32 pairs; PyTorch's ATEN_CPU_CAPABILITY=default kernel does round
          // twice). bfloat16 computes in float32 and rounds once, as there. std::fma is one
          // instruction in map()'s AVX2 and AVX-512 clones but a call to libm's fmaf in its
          // baseline loops (strided rows, short ones): about 3 ns an element there.
          case OpId::sigmoid_backward:
            if constexpr (std::is_floating_point_v<T>) {
              map2([](T g, T y) { return g * (T(1) - y) * y; });
            }
            break;
          case OpId::tanh_backward:
            if constexpr (std::is_floating_point_v<T>) {
              map2([](T g, T y) { return g * std::fma(-y, y, T(1)); });
            }
            break;
          default:
            break;
        }
      }
      break;
  }
}

template <typename S>
void run_compare(const OpCall& call) {
  using T = compute_t<S>;
  const Tensor& out = call.out();
  const std::array<const Tensor*, 2> in{&call.in(0), &call.in(1)};
  auto compare = [&](const auto& fn) { map<bool, S, S>(out, in_compute_type<S>(fn), in); };
  switch (call.op) {
    case OpId::eq:
      compare([](T a, T b) { return a == b; });
      break;
    case OpId::ne:
      compare([](T a, T b) { return a != b; });
      break;
    case OpId::lt:
      compare([](T a, T b) { return a < b; });
      break;
    case OpId::le:
      compare([](T a, T b) { return a <= b; });
      break;
    case OpId::gt:
      compare([](T a, T b) { return a > b; });
      break;
    case OpId::ge:
      compare([](T a, T b) { return a >= b; });
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
      WICK_DISPATCH_STORED(compute, run_compare<T>(call)) break;
    default:
      WICK_DISPATCH_STORED(compute, run_arith<T>(call)) break;
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
  WICK_DISPATCH_STORED(out.dtype(), {  // a select moves bits: bfloat16 needs no widening
    map<T, uint8_t, T, T>(out, [](uint8_t c, T a, T b) { return select(c, a, b); },
                          {&call.in(0), &call.in(1), &call.in(2)});
  })
}

}  // namespace wick::cpu
