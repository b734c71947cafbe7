// gemm.hpp: wick's own GEMM, C = A @ B for float, double and bfloat16 (float32 sums; AVX512_BF16
// only), in the structure of BLIS (Van Zee and van de Geijn, 2015): A and B are packed into panels
// (where any strides and transposes are absorbed), blocked for the caches the machine reports, and
// multiplied by a register-blocked micro-kernel chosen at run time for the CPU: AVX-512, AVX2+FMA,
// or portable C++. The loop nest, with C row-major so that SIMD vectors run along N:
//
//   for ic in [0, M) step MC          the A block, MC x KC, packed and shared by the threads (L3)
//     for pc in [0, K) step KC
//       pack A[ic:ic+MC, pc:pc+KC] into MR-row panels           (threads split the panels)
//       for jc in this thread's columns step NC                  the B block, KC x NC (L2)
//         pack B[pc:pc+KC, jc:jc+NC] into NR-column panels       (each thread its own)
//         for ir step MR: for jr step NR:                        A micro-panel KC x MR (L1)
//           micro-kernel: C[ir:ir+MR, jr:jr+NR] (+)= A panel . B panel, in registers
//
// bfloat16 has one more micro-kernel, for CPUs with AVX512_BF16 (Zen 4 and later, Cooper Lake,
// Sapphire Rapids): vdpbf16ps multiplies pairs of bfloat16 along the depth and adds both
// products to a float32 accumulator, twice the multiply-adds of a float32 FMA per instruction.
// Its panels hold depth pairs (kernel_avx512_bf16.cpp); C is float32.
// Tested in tests/cpu_gemm/ (every ISA at odd sizes against a long-double reference) and by the
// matmul tests; measured in bench/cpu/ (docs/cpu-gemm.md has the worklog and the figures).
#pragma once

#include <cstdint>

namespace wick::cpu::gemm {

// The instruction sets with a micro-kernel, in increasing order.
enum class Isa { portable = 0, avx2 = 1, avx512 = 2 };

const char* isa_name(Isa isa);
// The best the CPU supports (portable on non-x86 builds).
Isa best_supported_isa();
// The ISA used by gemm(): read once from the environment variable WICK_CPU_ISA
// (portable|avx2|avx512; a request above what the CPU supports falls back to the best it has),
// else the best supported. set_isa() overrides it (tests and the bench); the same clamp applies.
Isa active_isa();
void set_isa(Isa isa);

// A bfloat16 value as its bits (wick::BFloat16's layout, without its inline functions, which
// the ISA files must not instantiate: kernels.hpp).
struct BF16Bits {
  uint16_t bits;
};

// The type of C for inputs of type T: T itself, float for bfloat16.
template <typename T>
struct ProductOf {
  using type = T;
};
template <>
struct ProductOf<BF16Bits> {
  using type = float;
};
template <typename T>
using Product = typename ProductOf<T>::type;

// A read-only matrix view with strides in elements (any sign-free strides, including 0).
template <typename T>
struct ConstMatrix {
  const T* data;
  int64_t rows, cols;
  int64_t row_stride, col_stride;
};

// Cache blocking, in elements. kc: the depth of one packed panel pair; mc: rows of the packed A
// block; nc: columns of one packed B block. Derived from the cache sizes in /sys (or sysconf)
// and the micro-kernel's MR x NR; see blocking.cpp.
struct Blocking {
  int64_t mc, kc, nc;
  int mr, nr;
};
template <typename T>
Blocking blocking_for(Isa isa);
// Overrides the derived blocking for one ISA and type (the bench's tuning sweeps); zeros restore
// it. MC x KC is a budget for the packed A block: the driver takes K in equal steps of at most
// KC, then M in equal blocks of about MC x KC / step rows, at most 1024 (driver.cpp).
template <typename T>
void set_blocking(Isa isa, int64_t mc, int64_t kc, int64_t nc);

// The largest m * n * k that a one-thread gemm() multiplies without packing where the ISA has a
// direct kernel, B's rows have unit stride and span at most 4 KiB (direct_x86.hpp); the bits are
// the packed path's. 0 packs everything (tests and the bench); a negative value restores the
// default, 2^22.
void set_direct_volume(int64_t volume);

// The FLOPs per thread below which a product uses fewer threads (driver.cpp's default, 2 x
// 128^3). 0 lets any product split (tests of the threaded path at small sizes); a negative
// value restores the default.
void set_min_flops_per_thread(double flops);

// C[m x n] = A[m x k] @ B[k x n], C row-major with row stride ldc. `threads` bounds the threads
// (thread_pool.hpp) (1: run on the calling thread; <= 0: cpu::max_threads(), wick::set_num_threads'
// number); small products run on fewer threads whatever it says. k == 0 writes zeros.
// T: float, double or BF16Bits (C float; only where has_bf16_gemm() says so).
template <typename T>
void gemm(const ConstMatrix<T>& a, const ConstMatrix<T>& b, Product<T>* c, int64_t ldc,
          int threads = 0);

// out[m x n] = A @ B rounded once to bfloat16, row stride ldo: gemm<BF16Bits> whose last depth
// block rounds each C tile as it leaves the registers (a float32 C, kept by the calling thread
// between calls, only when K spans several blocks). Only where has_bf16_gemm() says so.
void gemm_rounded(const ConstMatrix<BF16Bits>& a, const ConstMatrix<BF16Bits>& b, BF16Bits* out,
                  int64_t ldo, int threads = 0);

// True when gemm<BF16Bits> may run: the CPU has AVX512_BF16 and the active ISA is avx512
// (WICK_CPU_ISA=avx2 turns it off with the float32 AVX-512 kernels).
bool has_bf16_gemm();

}  // namespace wick::cpu::gemm
