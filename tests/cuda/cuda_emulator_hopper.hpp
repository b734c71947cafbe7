// cuda_emulator_hopper.hpp: the Hopper part of cuda_emulator.hpp (which includes it at its end
// and defines everything used here): dynamic shared memory, mbarriers, TMA copies and wgmma, as
// gemm/hopper_ptx.cuh uses them.
#pragma once

// ---- Hopper (sm_90a): dynamic shared memory, mbarrier, TMA, wgmma (hopper_ptx.cuh) ----
namespace emu {

inline unsigned char* dynamic_shared() { return g_launch.dynamic_shared; }

// A kernel that can never finish: say so and stop, rather than spin for ever.
[[noreturn]] inline void fail(const char* why) {
  std::fprintf(stderr, "cuda_emulator: %s in block (%u, %u, %u), thread %d\n", why, blockIdx.x,
               blockIdx.y, blockIdx.z, flat_thread());
  std::abort();
}

// The .shared window address of p: its offset in the block's dynamic shared memory, whose base
// is 1024-byte aligned, so that the swizzle patterns (which go by address bits) come out as on
// the GPU.
inline uint32_t shared_offset(const void* p) {
  return static_cast<uint32_t>(static_cast<const unsigned char*>(p) - g_launch.dynamic_shared);
}

inline void mbar_complete_if_done(Launch::Mbarrier& b) {
  if (b.pending == 0 && b.tx == 0) {
    b.phase ^= 1;
    b.pending = b.count;
  }
}
inline void mbar_init(const void* bar, uint32_t count) {
  g_launch.mbarriers[bar] = Launch::Mbarrier{count, count, 0, 0};
}
// An arrival that also announces `tx_bytes` of transactions (0: a plain arrive).
inline void mbar_arrive(const void* bar, uint32_t tx_bytes) {
  Launch::Mbarrier& b = g_launch.mbarriers.at(bar);
  b.tx += tx_bytes;
  --b.pending;
  mbar_complete_if_done(b);
}
inline void mbar_complete_tx(const void* bar, uint32_t bytes) {
  Launch::Mbarrier& b = g_launch.mbarriers.at(bar);
  b.tx -= bytes;
  mbar_complete_if_done(b);
}
// try_wait.parity: the phase of this parity has completed when the current phase's parity
// differs from it.
inline bool mbar_phase_done(const void* bar, uint32_t parity) {
  return g_launch.mbarriers.at(bar).phase != (parity & 1);
}

// The emulator's tensor map, in TmaMap's 128 bytes (fake_runtime.cpp's cuTensorMapEncodeTiled
// and test_gemm_emulated.cpp write it).
struct EmuTensorMap {
  uint64_t magic;  // kTensorMapMagic
  const unsigned char* address;
  uint64_t dims[3];     // elements, innermost first
  uint64_t strides[2];  // bytes, of dims 1 and 2
  uint32_t box[3];      // elements
  uint32_t element_bytes;
  uint32_t swizzle_bytes;  // 0 (none) or 128
};
inline constexpr uint64_t kTensorMapMagic = 0x7769636b746d6170ull;  // "wicktmap"
static_assert(sizeof(EmuTensorMap) <= 128, "a tensor map is 128 bytes");

// Physical shared address of a logical one under the 128-byte swizzle: the 16-byte chunk index
// (bits 4-6) XOR the row within the 1024-byte pattern (bits 7-9).
inline uint32_t swizzle_128b(uint32_t address) { return address ^ (((address >> 7) & 7u) << 4); }

inline void tma_load(void* dst, const uint64_t* opaque, int32_t c0, int32_t c1, int32_t c2,
                     const void* bar) {
  EmuTensorMap map;
  std::memcpy(&map, opaque, sizeof map);
  if (map.magic != kTensorMapMagic) std::abort();  // not a map the emulator made
  const uint32_t dst_offset = shared_offset(dst);
  const int32_t coords[3] = {c0, c1, c2};
  const uint32_t e = map.element_bytes;
  uint32_t linear = 0;
  for (uint32_t z = 0; z < map.box[2]; ++z) {
    for (uint32_t y = 0; y < map.box[1]; ++y) {
      for (uint32_t x = 0; x < map.box[0]; ++x, linear += e) {
        const int64_t gx = int64_t{coords[0]} + x, gy = int64_t{coords[1]} + y,
                      gz = int64_t{coords[2]} + z;
        uint32_t address = dst_offset + linear;
        if (map.swizzle_bytes == 128) address = swizzle_128b(address);
        if (address + e > g_launch.dynamic_bytes) fail("a TMA box past dynamic shared memory");
        unsigned char* out = g_launch.dynamic_shared + address;
        const bool inside = gx >= 0 && gy >= 0 && gz >= 0 && uint64_t(gx) < map.dims[0] &&
                            uint64_t(gy) < map.dims[1] && uint64_t(gz) < map.dims[2];
        if (!inside) {
          std::memset(out, 0, e);  // out-of-bounds elements are filled with zeros
          continue;
        }
        std::memcpy(out,
                    map.address + uint64_t(gx) * e + uint64_t(gy) * map.strides[0] +
                        uint64_t(gz) * map.strides[1],
                    e);
      }
    }
  }
  mbar_complete_tx(bar, linear);  // the whole box counts, fills included
}

// Element (row, k) of a K-major operand of kBytes-byte elements through a wgmma descriptor
// (start, stride byte offset between 8-row groups, 128-byte swizzle), as float: bfloat16 (2) or
// float32 read as TF32 (4). TF32 as the PTX ISA says wgmma.mma_async reads it: "will truncate lower
// 13 bits of the 32-bit input data before multiplication is issued" (truncation, not rounding).
template <int kBytes>
inline float wgmma_operand(uint64_t desc, int row, int k) {
  static_assert(kBytes == 2 || kBytes == 4);
  const uint32_t start = static_cast<uint32_t>(desc & 0x3FFF) << 4;
  const uint32_t stride = static_cast<uint32_t>((desc >> 32) & 0x3FFF) << 4;
  const auto mode = static_cast<uint32_t>(desc >> 62);
  uint32_t address = start + static_cast<uint32_t>(row / 8) * stride +
                     static_cast<uint32_t>(row % 8) * 128 + static_cast<uint32_t>(k) * kBytes;
  if (mode == 1) address = swizzle_128b(address);
  if (address + kBytes > g_launch.dynamic_bytes) {
    fail("a wgmma operand read past dynamic shared memory");
  }
  uint32_t wide = 0;
  if constexpr (kBytes == 2) {
    uint16_t bits;
    std::memcpy(&bits, g_launch.dynamic_shared + address, 2);
    wide = uint32_t{bits} << 16;
  } else {
    std::memcpy(&wide, g_launch.dynamic_shared + address, 4);
    wide &= ~uint32_t{0x1FFF};  // TF32: 10 mantissa bits kept, the low 13 dropped
  }
  float f;
  std::memcpy(&f, &wide, 4);
  return f;
}

// wgmma.mma_async m64nNkK, both operands K-major in shared memory: .f32.bf16.bf16 with K = 16
// (kBytes 2: steps 11 and 12) or .f32.tf32.tf32 with K = 8 (kBytes 4: step 13), 32 bytes of K
// either way. This thread's N / 2 accumulators, in the layout of hopper_ptx.cuh (the PTX ISA's
// m64nNk16 / m64nNk8 D layout: N / 8 column groups of 8, 4 values per group per thread), computed
// at issue (the emulator has no asynchrony to model: the kernel waits for the group before reusing
// the stage).
template <int kN, int kBytes>
inline void wgmma_m64nN(float (&d)[kN / 2], uint64_t desc_a, uint64_t desc_b, int scale_d) {
  static_assert(kN % 8 == 0 && kN >= 8 && kN <= 256, "wgmma's N: a multiple of 8 up to 256");
  constexpr int kK = 32 / kBytes;
  const int t = flat_thread() % 128, warp = t / 32, lane = t % 32, g = lane / 4, tig = lane % 4;
  for (int i = 0; i < kN / 8; ++i) {
    for (int r = 0; r < 4; ++r) {
      const int row = 16 * warp + g + (r >= 2 ? 8 : 0), col = 8 * i + 2 * tig + (r & 1);
      float sum = scale_d ? d[4 * i + r] : 0.f;
      for (int k = 0; k < kK; ++k) {
        sum = std::fma(wgmma_operand<kBytes>(desc_a, row, k), wgmma_operand<kBytes>(desc_b, col, k),
                       sum);
      }
      d[4 * i + r] = sum;
    }
  }
}

// What fake_runtime.cpp's cuTensorMapEncodeTiled and the tests call: a 3-d tiled map.
inline void encode_tensor_map(uint64_t* opaque, const void* address, uint32_t element_bytes,
                              const uint64_t (&dims)[3], const uint64_t (&strides)[2],
                              const uint32_t (&box)[3], uint32_t swizzle_bytes) {
  EmuTensorMap map{};
  map.magic = kTensorMapMagic;
  map.address = static_cast<const unsigned char*>(address);
  for (int i = 0; i < 3; ++i) map.dims[i] = dims[i], map.box[i] = box[i];
  map.strides[0] = strides[0], map.strides[1] = strides[1];
  map.element_bytes = element_bytes;
  map.swizzle_bytes = swizzle_bytes;
  std::memset(opaque, 0, 128);
  std::memcpy(opaque, &map, sizeof map);
}

}  // namespace emu
