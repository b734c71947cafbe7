// hopper_ptx.cuh: the Hopper (sm_90a) instructions behind steps 11 to 13 of the matmul ladder, one
// small wrapper each, with a host version for tests/cuda/cuda_emulator.hpp:
//  - mbarrier: a shared-memory barrier with an arrival count and a transaction byte count that
//    completes a phase when both reach zero; waits go by phase parity;
//  - TMA (cp.async.bulk.tensor): the tensor memory accelerator copies a box of a tensor, as a
//    tensor map describes it (made on the host, TmaMap below), into shared memory with the
//    128-byte swizzle, fills what lies outside the tensor with zeros, and reports its bytes to
//    an mbarrier;
//  - wgmma.mma_async: a warpgroup (4 warps, 128 threads) multiplies a 64 x 16 A tile by a
//    16 x N B tile of bfloat16 (N = 128 in step 11, 256 in step 12), or 64 x 8 by 8 x N of TF32
//    (step 13, N = 256), both read from shared memory through 64-bit descriptors, into N / 2 FP32
//    accumulators per thread;
//  - setmaxnreg: moves registers from the producer warpgroup to the consumers.
// The instructions exist for sm_90a only: compiled for anything else the wrappers trap (the
// dispatcher never runs steps 11 to 13 there).
#pragma once

#include <cstdint>

#if !defined(__CUDACC__)
#include <cstring>
#endif

namespace wick::gpu::gemm {

// A tensor map: 128 opaque bytes the driver's cuTensorMapEncodeTiled writes (the emulator's
// encoder writes its own fields). Passed to kernels by value as a __grid_constant__ parameter.
struct alignas(64) TmaMap {
  uint64_t opaque[16];
};

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WICK_SM90A 1
#else
#define WICK_SM90A 0
#endif

// The shared-memory address (the .shared window) of a pointer into shared memory.
__device__ __forceinline__ uint32_t smem_address(const void* p) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
#elif !defined(__CUDACC__)
  return emu::shared_offset(p);
#else
  (void)p;
  return 0;
#endif
}

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
#if WICK_SM90A
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_address(bar)), "r"(count));
#elif !defined(__CUDACC__)
  emu::mbar_init(bar, count);
#else
  (void)bar, (void)count;
#endif
}

// Makes initialised barriers visible to the other threads and to the TMA unit.
__device__ __forceinline__ void mbar_init_fence() {
#if WICK_SM90A
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
#if WICK_SM90A
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_address(bar)) : "memory");
#elif !defined(__CUDACC__)
  emu::mbar_arrive(bar, 0);
#else
  (void)bar;
#endif
}

// Arrives and announces `bytes` more of transactions (the TMA copies of this phase).
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
#if WICK_SM90A
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_address(bar)),
               "r"(bytes)
               : "memory");
#elif !defined(__CUDACC__)
  emu::mbar_arrive(bar, bytes);
#else
  (void)bar, (void)bytes;
#endif
}

// Waits until the phase of parity `parity` has completed. On the GPU a wait that never ends (a
// transaction count that does not match what TMA delivers, a bad tensor map) traps after about
// 2^26 tries (each try_wait suspends the thread for a while; seconds in all), so the launch
// fails with an error instead of hanging the device, as the emulator's deadlock check does.
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
#if WICK_SM90A
  for (uint32_t tries = 0;; ++tries) {
    uint32_t done;
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(smem_address(bar)), "r"(parity)
        : "memory");
    if (done != 0) return;
    if (tries == (1u << 26)) __trap();
  }
#elif defined(__CUDA_ARCH__)
  (void)bar, (void)parity;
  __trap();
#elif !defined(__CUDACC__)
  for (long spins = 0; !emu::mbar_phase_done(bar, parity); ++spins) {
    if (spins > 100000000L) emu::fail("an mbarrier wait never completed (a deadlock)");
    emu::yield();
  }
#else
  (void)bar, (void)parity;
#endif
}

// The box of `map` at element coordinates (c0, c1, c2), innermost first, into `dst` (1024-byte
// aligned), completing its bytes on `bar`.
__device__ __forceinline__ void tma_load_3d(void* dst, const TmaMap* map, int32_t c0, int32_t c1,
                                            int32_t c2, uint64_t* bar) {
#if WICK_SM90A
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(smem_address(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(smem_address(bar))
      : "memory");
#elif defined(__CUDA_ARCH__)
  (void)dst, (void)map, (void)c0, (void)c1, (void)c2, (void)bar;
  __trap();
#elif !defined(__CUDACC__)
  emu::tma_load(dst, map->opaque, c0, c1, c2, bar);
#else
  (void)dst, (void)map, (void)c0, (void)c1, (void)c2, (void)bar;
#endif
}

// The descriptor of a K-major operand tile in shared memory written by TMA with the 128-byte
// swizzle: rows of 128 bytes (64 bfloat16 or 32 floats), 8-row groups 1024 bytes apart (the stride
// byte offset); the leading byte offset is unused in this mode (1 by convention); mode 1 = 128B.
// Start, offsets: bytes >> 4 in 14-bit fields. Advancing K by one instruction's 32 bytes (16
// bfloat16, 8 TF32) adds 2 to the start field: the hardware swizzles the computed addresses, as
// TMA did.
__device__ __forceinline__ uint64_t wgmma_desc(const void* tile) {
  const uint64_t start = (smem_address(tile) & 0x3FFFF) >> 4;
  const uint64_t leading = 1, stride = 1024 >> 4, swizzle_128b = 1;
  return start | (leading << 16) | (stride << 32) | (swizzle_128b << 62);
}

__device__ __forceinline__ void wgmma_fence() {
#if WICK_SM90A
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit() {
#if WICK_SM90A
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
#if WICK_SM90A
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
#endif
}

// The accumulator operands of a wgmma with N = 128 (64 per thread) or 256 (128), for the
// wrappers below: the register list of the instruction's text and the asm's output operands. The
// two descriptors and scale-d follow as %64, %65, %66 (N = 128) or %128, %129, %130 (N = 256).
#define WICK_WGMMA_D_REGS_0_63                                                                 \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, " \
  "%38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, " \
  "%56, %57, %58, %59, %60, %61, %62, %63"
#define WICK_WGMMA_D_REGS_64 "{" WICK_WGMMA_D_REGS_0_63 "}"
#define WICK_WGMMA_D_REGS_128                                                                    \
  "{" WICK_WGMMA_D_REGS_0_63                                                                     \
  ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, " \
  "%82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, "   \
  "%100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, "   \
  "%115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}"
#define WICK_WGMMA_D_OUT_64                                                                       \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
      "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),    \
      "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),  \
      "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),  \
      "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),  \
      "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),  \
      "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),  \
      "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),  \
      "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define WICK_WGMMA_D_OUT_128                                                                     \
  WICK_WGMMA_D_OUT_64, "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]),          \
      "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), \
      "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), \
      "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), \
      "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), \
      "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]),           \
      "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]),        \
      "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]),        \
      "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]),        \
      "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]),        \
      "+f"(d[127])

// d (64 x kN FP32 per warpgroup, kN / 2 per thread) = A (64 x kK) B (kK x kN) + (scale_d ? d : 0),
// A and B K-major in shared memory, read through descriptors (wgmma_desc), kN = 128 (step 11) or
// 256 (steps 12, 13):
//  - T = BFloat16 (steps 11, 12): wgmma.m64nNk16.f32.bf16.bf16, kK = 16;
//  - T = float (step 13): wgmma.m64nNk8.f32.tf32.tf32, kK = 8. The PTX ISA: .tf32 takes no
//    transpose immediates (both operands must be K-major) and "will truncate lower 13 bits of the
//    32-bit input data before multiplication is issued": float32 bit patterns are read as TF32 by
//    truncation, not rounded to nearest (step 9's cvt.rna.tf32.f32).
// Either way an instruction reads 32 bytes of K along each operand row. Accumulator layout (PTX
// ISA, wgmma D for m64nNk16 and m64nNk8 alike): warp w of the warpgroup holds rows 16 w to
// 16 w + 15; lane (g = lane / 4, t = lane % 4) holds, for each 8-column group i < kN / 8, d[4 i]
// and d[4 i + 1] at row 16 w + g, columns 8 i + 2 t and + 1, and d[4 i + 2], d[4 i + 3] at row
// 16 w + g + 8.
template <typename T, int kN>
__device__ __forceinline__ void wgmma_m64nN(float (&d)[kN / 2], uint64_t desc_a, uint64_t desc_b,
                                            int scale_d) {
  static_assert(kN == 128 || kN == 256, "wgmma is wrapped for N = 128 and 256");
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "bfloat16 or float32 read as TF32");
#if WICK_SM90A
  if constexpr (kN == 128 && sizeof(T) == 2) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " WICK_WGMMA_D_REGS_64
        ", %64, %65, p, 1, 1, 0, 0;\n}\n"
        : WICK_WGMMA_D_OUT_64
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  } else if constexpr (kN == 256 && sizeof(T) == 2) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " WICK_WGMMA_D_REGS_128
        ", %128, %129, p, 1, 1, 0, 0;\n}\n"
        : WICK_WGMMA_D_OUT_128
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  } else if constexpr (kN == 128) {  // TF32: scale-a and scale-b, no transpose immediates
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " WICK_WGMMA_D_REGS_64
        ", %64, %65, p, 1, 1;\n}\n"
        : WICK_WGMMA_D_OUT_64
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " WICK_WGMMA_D_REGS_128
        ", %128, %129, p, 1, 1;\n}\n"
        : WICK_WGMMA_D_OUT_128
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  }
#elif defined(__CUDA_ARCH__)
  (void)d, (void)desc_a, (void)desc_b, (void)scale_d;
  __trap();
#elif !defined(__CUDACC__)
  emu::wgmma_m64nN<kN, static_cast<int>(sizeof(T))>(d, desc_a, desc_b, scale_d);
#else
  (void)d, (void)desc_a, (void)desc_b, (void)scale_d;
#endif
}
#undef WICK_WGMMA_D_REGS_0_63
#undef WICK_WGMMA_D_REGS_64
#undef WICK_WGMMA_D_REGS_128
#undef WICK_WGMMA_D_OUT_64
#undef WICK_WGMMA_D_OUT_128

// Keeps the compiler from moving reads or writes of the accumulators across this point (into
// the span between wgmma_fence and wgmma_wait, where only wgmma may touch them; ptxas would
// otherwise serialise the wgmmas, warning C7514).
template <int kCount>
__device__ __forceinline__ void wgmma_fence_operands(float (&d)[kCount]) {
#if WICK_SM90A
#pragma unroll
  for (int i = 0; i < kCount; ++i) asm volatile("" : "+f"(d[i])::"memory");
#else
  (void)d;
#endif
}

// Registers per thread for the rest of the kernel, for every thread of the warpgroup.
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_dec() {
#if WICK_SM90A
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
#endif
}
template <int kRegisters>
__device__ __forceinline__ void setmaxnreg_inc() {
#if WICK_SM90A
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
#endif
}

}  // namespace wick::gpu::gemm
