// blocking.cpp: MC, KC and NC from the cache sizes the machine reports, following the analytic
// model of Low et al. ("Analytical modeling is enough for high-performance BLIS", 2016):
//  - KC: the A micro-panel (KC x MR), reused by every micro-kernel call across a B block, takes
//    about half of L1 (the other half streams B micro-panels through);
//  - NC: the packed B block (KC x NC) takes about half of L2 (private per core on Zen 4);
//  - MC: the packed A block (MC x KC, shared by the threads) takes a quarter of L3, at most
//    2 MiB; the driver turns MC x KC into rows for the K step it takes (more rows for a shorter
//    step) and splits M evenly. The macro-kernel streams the A block from L3 once per B block:
//    on the AVX2 EPYC, whose L3 other guests share, a 3.2 MiB block (MC 1560) ran 2048^3 at
//    0.89 of OpenBLAS's speed on one thread, where 1.5-2 MiB blocks ran at 0.95-0.99
//    (docs/cpu-gemm.md, "A smaller A block").
// Sizes come from /sys/devices/system/cpu/cpu0/cache (sysconf(_SC_LEVEL*_CACHE_SIZE) as a
// fallback; some hypervisors report a host's L3 there), with 32 KiB / 1 MiB / 8 MiB defaults.
// On the Zen 4 VM (L1d 32 KiB, L2 1 MiB, L3 32 MiB) float AVX-512 gets KC 512, NC 256, MC 1024
// (MC 2048 before the 2 MiB cap; not re-measured there), and on the AVX2 EPYC (L1d 32 KiB,
// L2 512 KiB) float AVX2 gets KC 672, NC 96, MC 780.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <fstream>
#include <string>

#include "gemm.hpp"
#include "kernels.hpp"

namespace wick::cpu::gemm {

template <typename T>
KernelSet<T> kernels_for(Isa isa);  // driver.cpp

namespace {

struct CacheSizes {
  int64_t l1 = 32 << 10, l2 = 1 << 20, l3 = 8 << 20;  // bytes
};

// "32K", "1024K", "32M" -> bytes; 0 when unreadable.
int64_t read_size(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text.empty()) return 0;
  int64_t value = 0;
  size_t i = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
    value = value * 10 + (text[i] - '0');
  if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) value <<= 10;
  if (i < text.size() && (text[i] == 'M' || text[i] == 'm')) value <<= 20;
  return value;
}

CacheSizes detect_caches() {
  CacheSizes sizes;
  bool found[4] = {};
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::ifstream level_file(dir + "/level"), type_file(dir + "/type");
    int level = 0;
    std::string type;
    if (!(level_file >> level) || !(type_file >> type)) break;
    if (type == "Instruction" || level < 1 || level > 3) continue;
    const int64_t bytes = read_size(dir + "/size");
    if (bytes <= 0) continue;
    (level == 1 ? sizes.l1 : level == 2 ? sizes.l2 : sizes.l3) = bytes;
    found[level] = true;
  }
#if defined(_SC_LEVEL1_DCACHE_SIZE)
  const std::array<int, 4> names = {0, _SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE,
                                    _SC_LEVEL3_CACHE_SIZE};
  for (int level = 1; level <= 3; ++level) {
    if (found[level]) continue;
    const long bytes = sysconf(names[level]);
    if (bytes > 0) (level == 1 ? sizes.l1 : level == 2 ? sizes.l2 : sizes.l3) = bytes;
  }
#endif
  return sizes;
}

const CacheSizes& caches() {
  static const CacheSizes sizes = detect_caches();
  return sizes;
}

int64_t round_down(int64_t v, int64_t unit) { return std::max(unit, v / unit * unit); }

template <typename T>
Blocking derive(Isa isa) {
  const KernelSet<T> ks = kernels_for<T>(isa);
  if (ks.macro == nullptr) return Blocking{16, 16, 16, 1, 1};  // bfloat16 without its kernel
  const CacheSizes& c = caches();
  const int64_t elem = static_cast<int64_t>(sizeof(T));
  Blocking b{};
  b.mr = ks.mr;
  b.nr = ks.nr;
  b.kc = std::clamp<int64_t>(round_down(c.l1 / 2 / (ks.mr * elem), 16), 64, 1024);
  b.nc = std::clamp<int64_t>(round_down(c.l2 / 2 / (b.kc * elem), ks.nr), ks.nr, 8192);
  const int64_t a_bytes = std::min<int64_t>(c.l3 / 4, 2 << 20);
  b.mc = std::clamp<int64_t>(round_down(a_bytes / (b.kc * elem), ks.mr), ks.mr, 16384);
  return b;
}

// Overrides from set_blocking(), per ISA: mc, kc, nc; mc == 0 means none. Atomics, so that
// gemm() reads them without a lock.
template <typename T>
std::array<std::array<std::atomic<int64_t>, 3>, 3>& overrides() {
  static std::array<std::array<std::atomic<int64_t>, 3>, 3> table{};
  return table;
}

}  // namespace

template <typename T>
Blocking blocking_for(Isa isa) {
  static const std::array<Blocking, 3> derived = {
    derive<T>(Isa::portable),
#if defined(WICK_GEMM_X86)
    derive<T>(Isa::avx2),
    derive<T>(Isa::avx512)
#else
    derive<T>(Isa::portable),
    derive<T>(Isa::portable)
#endif
  };
  const int i = static_cast<int>(isa);
  Blocking b = derived[i];
  const auto& o = overrides<T>()[i];
  if (o[0].load(std::memory_order_relaxed) > 0) {
    b.mc = o[0].load(std::memory_order_relaxed);
    b.kc = o[1].load(std::memory_order_relaxed);
    b.nc = o[2].load(std::memory_order_relaxed);
  }
  return b;
}

template <typename T>
void set_blocking(Isa isa, int64_t mc, int64_t kc, int64_t nc) {
  auto& o = overrides<T>()[static_cast<int>(isa)];
  if (mc <= 0 || kc <= 0 || nc <= 0) {
    o[0].store(0);
    return;
  }
  const KernelSet<T> ks = kernels_for<T>(isa);
  // No kernel for T on this ISA (bfloat16 without AVX512_BF16): nothing to tune.
  if (ks.mr == 0 || ks.nr == 0) return;
  o[1].store(kc);
  o[2].store(round_down(nc, ks.nr));
  o[0].store(round_down(mc, ks.mr));
}

template Blocking blocking_for<float>(Isa);
template Blocking blocking_for<double>(Isa);
template Blocking blocking_for<BF16Bits>(Isa);
template void set_blocking<float>(Isa, int64_t, int64_t, int64_t);
template void set_blocking<double>(Isa, int64_t, int64_t, int64_t);
template void set_blocking<BF16Bits>(Isa, int64_t, int64_t, int64_t);

}  // namespace wick::cpu::gemm
