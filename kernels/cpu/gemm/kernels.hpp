// kernels.hpp (gemm): what each ISA file exports to the driver: the micro-tile shape MR x NR and
// a macro-kernel that multiplies one packed A block by one packed B block. Internal to
// kernels/cpu/gemm/. The ISA files are compiled with their own -m flags (kernels/CMakeLists.txt),
// so this header declares types and functions only: no inline code that a -mavx512f file could
// emit a copy of for the linker to pick up elsewhere.
#pragma once

#include <cstdint>

#include "gemm.hpp"

namespace wick::cpu::gemm {

// One call of the macro-kernel: C[0:mc, 0:nc] (+)= packed A block . packed B block, where
//  - packed_a holds ceil(mc / MR) panels, each kc x MR (row i of the panel at [p * MR + i] for
//    depth p), the rows past mc zero;
//  - packed_b holds ceil(nc / NR) panels, each kc x NR ([p * NR + j]), the columns past nc zero;
//  - c is row-major with row stride ldc; accumulate = false overwrites it (the first KC block);
//  - rounded (bfloat16 only; null otherwise): the last KC block writes C + the product rounded
//    to bfloat16 there (row stride ldc too) instead of into c.
// Both packed buffers are 64-byte aligned. bfloat16 panels hold the depth in pairs (kc even,
// the pair past an odd depth zero): see kernel_avx512_bf16.cpp.
template <typename T>
struct MacroArgs {
  int64_t mc, nc, kc;
  const T* packed_a;
  const T* packed_b;
  Product<T>* c;
  int64_t ldc;
  bool accumulate;
  BF16Bits* rounded;
};

// Packing, see pack.hpp: A panels [q0, q1) of the block at row i0 (mc rows) and depth p0 (kc),
// and the B block at depth p0 (kc) and column j0 (nc columns).
// The depth of a packed panel is a multiple of this: a bfloat16 panel stores pairs.
template <typename T>
inline constexpr int64_t kDepthUnit = 1;
template <>
inline constexpr int64_t kDepthUnit<BF16Bits> = 2;

template <typename T>
using PackA = void (*)(const ConstMatrix<T>& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc,
                       int64_t q0, int64_t q1, T* dst);
template <typename T>
using PackB = void (*)(const ConstMatrix<T>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc,
                       T* dst);

// C[m x n] = A @ B without packing (direct_x86.hpp), for a B whose rows have unit stride (or
// n == 1); K in steps of kc, summed in the packed path's order: the same bits.
template <typename T>
using Direct = void (*)(const ConstMatrix<T>& a, const ConstMatrix<T>& b, T* c, int64_t ldc,
                        int64_t kc);

template <typename T>
struct KernelSet {
  int mr = 0, nr = 0;
  void (*macro)(const MacroArgs<T>&) = nullptr;
  PackA<T> pack_a = nullptr;  // null: the driver's plain C++ packing (pack.hpp)
  PackB<T> pack_b = nullptr;
  Direct<T> direct = nullptr;  // null: every product is packed
};

// True when the CPU (and the OS) can run AVX512_BF16 code, with AVX512BW (isa.cpp).
bool cpu_has_avx512_bf16();

// Defined in kernel_portable.cpp, kernel_avx2.cpp, kernel_avx512.cpp and
// kernel_avx512_bf16.cpp; the x86 ones exist only in x86 builds (WICK_GEMM_X86) and must only
// be called when the CPU has the ISA. A bfloat16 set always brings its own packers.
KernelSet<float> portable_kernels_f32();
KernelSet<double> portable_kernels_f64();
#if defined(WICK_GEMM_X86)
KernelSet<float> avx2_kernels_f32();
KernelSet<double> avx2_kernels_f64();
KernelSet<float> avx512_kernels_f32();
KernelSet<double> avx512_kernels_f64();
KernelSet<BF16Bits> avx512_kernels_bf16();
#endif

}  // namespace wick::cpu::gemm
