// binary.cpp: add, sub, mul, div, pow, maximum, minimum, the six comparisons, and where.
// Inputs arrive expanded to the output's shape and in one dtype (wick/dispatch.hpp). int64
// arithmetic wraps on overflow (done in uint64, so it is never UB), as PyTorch's does.
#include <cmath>
#include <type_traits>

#include "kernels.hpp"
#include "loops.hpp"

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

template <typename T>
void run_arith(const OpCall& call) {
  const Tensor& out = call.out();
  const std::array<const Tensor*, 2> in{&call.in(0), &call.in(1)};
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

void where_kernel(const OpCall& call) {
  const Tensor& out = call.out();
  WICK_DISPATCH_ALL(out.dtype(), {
    map<T, bool, T, T>(out, [](bool c, T a, T b) { return c ? a : b; },
                       {&call.in(0), &call.in(1), &call.in(2)});
  })
}

}  // namespace wick::cpu
