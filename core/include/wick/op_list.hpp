// op_list.hpp: the one list of ops that backends implement and autograd differentiates.
// Adding an op starts here (docs/adding-an-op.md): X(name, kind, differentiable).
// The name table and the op count are generated from this list, and the static_assert below
// fails to compile when kOpNames and OpId disagree, so an op cannot be half-added.
// Kinds: Kernel ops need one kernel per backend; View ops build a view and run no kernel;
// Composite ops run other ops' kernels (cat: one copy per input) and have none of their own.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace wick {

#define WICK_OP_LIST(X)                       \
  /* creation */                              \
  X(fill, Kernel, false)                      \
  X(arange, Kernel, false)                    \
  X(rand, Kernel, false)                      \
  X(randn, Kernel, false)                     \
  X(copy, Kernel, true)                       \
  /* unary elementwise */                     \
  X(neg, Kernel, true)                        \
  X(abs, Kernel, true)                        \
  X(exp, Kernel, true)                        \
  X(log, Kernel, true)                        \
  X(sqrt, Kernel, true)                       \
  X(relu, Kernel, true)                       \
  X(sigmoid, Kernel, true)                    \
  X(tanh, Kernel, true)                       \
  X(erf, Kernel, true)                        \
  X(log1p, Kernel, true)                      \
  X(expm1, Kernel, true)                      \
  X(sin, Kernel, true)                        \
  X(cos, Kernel, true)                        \
  X(tan, Kernel, true)                        \
  X(asin, Kernel, true)                       \
  X(acos, Kernel, true)                       \
  X(atan, Kernel, true)                       \
  X(sinh, Kernel, true)                       \
  X(cosh, Kernel, true)                       \
  X(log2, Kernel, true)                       \
  X(log10, Kernel, true)                      \
  X(asinh, Kernel, true)                      \
  X(acosh, Kernel, true)                      \
  X(atanh, Kernel, true)                      \
  X(erfc, Kernel, true)                       \
  X(erfinv, Kernel, true)                     \
  X(exp2, Kernel, true)                       \
  X(lgamma, Kernel, true)                     \
  X(digamma, Kernel, true)                    \
  X(polygamma, Kernel, true)                  \
  X(rsqrt, Kernel, true)                      \
  X(reciprocal, Kernel, true)                 \
  X(floor, Kernel, true)                      \
  X(ceil, Kernel, true)                       \
  X(round, Kernel, true)                      \
  X(trunc, Kernel, true)                      \
  X(sign, Kernel, true)                       \
  X(pow_scalar, Kernel, true)                 \
  X(clamp, Kernel, true)                      \
  /* binary elementwise */                    \
  X(add, Kernel, true)                        \
  X(sub, Kernel, true)                        \
  X(mul, Kernel, true)                        \
  X(div, Kernel, true)                        \
  X(pow, Kernel, true)                        \
  X(maximum, Kernel, true)                    \
  X(minimum, Kernel, true)                    \
  X(atan2, Kernel, true)                      \
  X(hypot, Kernel, true)                      \
  X(fmod, Kernel, true)                       \
  X(remainder, Kernel, true)                  \
  X(floor_divide, Kernel, true)               \
  X(trunc_divide, Kernel, true)               \
  X(copysign, Kernel, true)                   \
  X(sigmoid_backward, Kernel, true)           \
  X(tanh_backward, Kernel, true)              \
  /* integer and bit ops */                   \
  X(bitwise_and, Kernel, false)               \
  X(bitwise_or, Kernel, false)                \
  X(bitwise_xor, Kernel, false)               \
  X(bitwise_left_shift, Kernel, false)        \
  X(bitwise_right_shift, Kernel, false)       \
  X(gcd, Kernel, false)                       \
  X(lcm, Kernel, false)                       \
  X(nextafter, Kernel, false)                 \
  /* comparisons and selection */             \
  X(eq, Kernel, false)                        \
  X(ne, Kernel, false)                        \
  X(lt, Kernel, false)                        \
  X(le, Kernel, false)                        \
  X(gt, Kernel, false)                        \
  X(ge, Kernel, false)                        \
  X(where, Kernel, true)                      \
  /* reductions */                            \
  X(sum, Kernel, true)                        \
  X(mean, Kernel, true)                       \
  X(max, Kernel, true)                        \
  X(min, Kernel, true)                        \
  X(prod, Kernel, true)                       \
  /* rows and matrices */                     \
  X(softmax, Kernel, true)                    \
  X(log_softmax, Kernel, true)                \
  X(layer_norm, Kernel, true)                 \
  X(layer_norm_backward, Kernel, false)       \
  X(matmul, Kernel, true)                     \
  X(lu_factor, Kernel, false)                 \
  X(lu_solve, Kernel, false)                  \
  X(linalg_solve, Composite, true)            \
  X(cholesky_factor, Kernel, false)           \
  X(triangular_solve, Kernel, false)          \
  X(linalg_cholesky, Composite, true)         \
  X(linalg_solve_triangular, Composite, true) \
  X(det, Composite, true)                     \
  /* indexing */                              \
  X(index_select, Kernel, true)               \
  X(index_add, Kernel, true)                  \
  X(gather, Kernel, true)                     \
  X(scatter_add, Composite, true)             \
  X(scatter_reduce, Kernel, true)             \
  X(resample, Kernel, true)                   \
  X(resample_backward, Kernel, false)         \
  /* ordering and scans */                    \
  X(sort, Kernel, true)                       \
  X(cumsum, Kernel, true)                     \
  X(cumprod, Kernel, true)                    \
  X(cummax, Kernel, true)                     \
  X(cummin, Kernel, true)                     \
  X(logcumsumexp, Kernel, true)               \
  X(searchsorted, Kernel, false)              \
  /* joining */                               \
  X(cat, Composite, true)                     \
  X(stack, Composite, true)                   \
  /* views: no kernel */                      \
  X(view, View, true)                         \
  X(transpose, View, true)                    \
  X(permute, View, true)                      \
  X(expand, View, true)                       \
  X(slice, View, true)                        \
  X(select, View, true)                       \
  X(diagonal, View, true)                     \
  X(unfold, View, true)

enum class OpKind : uint8_t { Kernel, View, Composite };

enum class OpId : uint16_t {
#define WICK_OP_ENUM(name, kind, diff) name,
  WICK_OP_LIST(WICK_OP_ENUM)
#undef WICK_OP_ENUM
};

inline constexpr std::array kOpNames = {
#define WICK_OP_NAME(name, kind, diff) std::string_view(#name),
    WICK_OP_LIST(WICK_OP_NAME)
#undef WICK_OP_NAME
};
inline constexpr std::array kOpKinds = {
#define WICK_OP_KIND(name, kind, diff) OpKind::kind,
    WICK_OP_LIST(WICK_OP_KIND)
#undef WICK_OP_KIND
};
inline constexpr std::array kOpDifferentiable = {
#define WICK_OP_DIFF(name, kind, diff) diff,
    WICK_OP_LIST(WICK_OP_DIFF)
#undef WICK_OP_DIFF
};
inline constexpr size_t kNumOps = kOpNames.size();
// The last op's id + 1 must equal the table size, and every table must be as long.
#define WICK_OP_LAST(name, kind, diff) +0 * static_cast<int>(OpId::name) + 1
static_assert(kNumOps == (0 WICK_OP_LIST(WICK_OP_LAST)), "op name table out of step with OpId");
#undef WICK_OP_LAST
static_assert(kOpKinds.size() == kNumOps && kOpDifferentiable.size() == kNumOps);

constexpr std::string_view op_name(OpId op) { return kOpNames[static_cast<size_t>(op)]; }
constexpr OpKind op_kind(OpId op) { return kOpKinds[static_cast<size_t>(op)]; }
constexpr bool op_differentiable(OpId op) { return kOpDifferentiable[static_cast<size_t>(op)]; }

}  // namespace wick
