// driver.cpp (gemm): the blocking loops of gemm.hpp's loop nest, the packing calls and the
// threads. The threads form a grid, tn along N and tm along M; each cell of the grid is one
// chunk of the thread pool (thread_pool.hpp) and packs everything it multiplies: its A rows of
// each block and its B columns, so no cell waits for another. Splitting M is preferred when
// every cell gets at least kMinPanelsPerThread A panels: no A is then packed twice, and each
// cell's B block stays in its own core's L2; measured on the 2-vCPU Zen 4 with 2 threads, this
// took 512^3 from 165-173 to 203-221 GFLOP/s and 1024^3 from 182-186 to 197-215 (N split
// before; alternating runs of both builds, docs/cpu-gemm.md). With fewer A panels
// (64 x 1024 x 2048: 163 vs 135) N is split, and every cell of a row of the grid packs the same
// A rows: tn times the A packing, which is 1/(2 n / tn) of a cell's FLOPs per element.
// Until 2026-12-05 the A block was packed by all threads together, with an OpenMP barrier per
// KC step; a barrier waits for every thread, and on a busy machine for one the OS has not
// scheduled (docs/cpu-kernels.md, "Threads and shared CPUs"). Now a cell that no worker has
// claimed is run by the caller.
// Products under kMinFlopsPerThread per thread run on fewer threads (a wake costs a few us).
// Small products on one thread skip the packing (direct_x86.hpp) where the ISA has a direct
// kernel and B's rows have unit stride; the sums run in the same order, so the bits are the same.
// Packing buffers (every cell's A and B blocks) are carved from one buffer that the calling
// thread keeps between calls and grows before the job starts, so an allocation failure is a
// wick::OutOfMemoryError on the caller, never inside a worker.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "wick/error.hpp"

#include "gemm.hpp"
#include "kernels.hpp"
#include "loops.hpp"
#include "pack.hpp"
#include "thread_pool.hpp"

namespace wick::cpu::gemm {

template <typename T>
KernelSet<T> kernels_for(Isa isa);

template <>
KernelSet<float> kernels_for<float>(Isa isa) {
#if defined(WICK_GEMM_X86)
  if (isa == Isa::avx512) return avx512_kernels_f32();
  if (isa == Isa::avx2) return avx2_kernels_f32();
#endif
  (void)isa;
  return portable_kernels_f32();
}

template <>
KernelSet<double> kernels_for<double>(Isa isa) {
#if defined(WICK_GEMM_X86)
  if (isa == Isa::avx512) return avx512_kernels_f64();
  if (isa == Isa::avx2) return avx2_kernels_f64();
#endif
  (void)isa;
  return portable_kernels_f64();
}

template <>
KernelSet<BF16Bits> kernels_for<BF16Bits>(Isa isa) {
#if defined(WICK_GEMM_X86)
  if (isa == Isa::avx512 && cpu_has_avx512_bf16()) return avx512_kernels_bf16();
#endif
  (void)isa;
  return {};  // no kernel: has_bf16_gemm() is false
}

bool has_bf16_gemm() { return kernels_for<BF16Bits>(active_isa()).macro != nullptr; }

namespace {

// At most this many rows of A (and C) per M block. One pass of the macro-kernel over a block
// touches every C row of the block once per B block, and from N = 1024 floats up each row is
// its own 4 KiB page: 1024 rows plus a 2 MiB A block (512 pages) stay inside the 2048-entry L2
// TLB of Zen 3. On the AVX2 EPYC, 2048 x 256 x 2048 in one block of 2048 rows ran at 0.97-1.03
// of OpenBLAS's speed and in two of 1024 at 1.01-1.09 (docs/cpu-gemm.md, "A smaller A block").
constexpr int64_t kMaxRowsPerBlock = 1024;

// Below this many FLOPs per thread a product uses fewer threads (docs/cpu-gemm.md, "When a
// small product stays on one thread"). 2 x 128^3: products under 8.4 MFLOP run on one thread
// (and skip the packing where direct_x86.hpp can). Timed alone, 2 threads won from 2 x 64^3
// per thread on (128^3: 233 against 161 GFLOP/s), since both cores keep the operands of a call
// repeated in a loop; inside the MLP training step the split lost (width 64, five 256 x 64 x 64
// products: 156 us a step on 2 threads against 112 on one), the operands being fresh in the
// caller's cache and each half of C read by the caller's next op.
constexpr double kMinFlopsPerThread = 2.0 * 128 * 128 * 128;
std::atomic<double> g_min_flops_per_thread{kMinFlopsPerThread};

// A one-thread product skips the packing up to this many multiply-adds (m n k), and where a row
// of B (and of C) spans at most kMaxDirectRowBytes. Measured on the 2-vCPU Xeon, one thread,
// direct against packed in the same rounds (docs/cpu-gemm.md, "Small products without
// packing"): inside both limits 0.98x (16 x 512 x 512 float64) to 3.5x (16^3 float32), 1.37x
// at 64^3; outside them the direct kernel lost: 512 x 64 x 512 0.96x (float64 0.87x),
// 128 x 128 x 1024 0.95x, and 64 x 256 x 1024 float64 0.61x, whose B strip walks 256 rows
// 8 KiB apart (a page each).
constexpr int64_t kDefaultDirectVolume = int64_t{1} << 22;
constexpr int64_t kMaxDirectRowBytes = 4096;
std::atomic<int64_t> g_direct_volume{kDefaultDirectVolume};

// A 64-byte aligned buffer that grows and is kept by its thread.
// A thread-local one sets *destroyed_flag when its thread's thread-locals are destroyed: a
// product run after that (from a static destructor, after main) uses call-local buffers instead
// of the freed block (a review found the GEMM writing into it).
class Buffer {
 public:
  explicit Buffer(bool* destroyed_flag = nullptr) : destroyed_flag_(destroyed_flag) {}
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    std::free(data_);
    data_ = nullptr;
    capacity_ = 0;
    if (destroyed_flag_ != nullptr) *destroyed_flag_ = true;
  }
  void* get(size_t bytes) {
    if (bytes > capacity_) {
      std::free(data_);
      capacity_ = (bytes + 4095) / 4096 * 4096;
      data_ = std::aligned_alloc(64, capacity_);
      if (data_ == nullptr) {
        const size_t wanted = capacity_;
        capacity_ = 0;
        WICK_CHECK(false, OutOfMemoryError, "matmul", "could not allocate ", wanted,
                   " bytes for the CPU GEMM's packing buffers");
      }
    }
    return data_;
  }
  // Frees the memory when it is more than `bytes`, so that one large product does not pin it
  // for the rest of its thread's life.
  void trim(size_t bytes) {
    if (capacity_ <= bytes) return;
    std::free(data_);
    data_ = nullptr;
    capacity_ = 0;
  }

 private:
  void* data_ = nullptr;
  size_t capacity_ = 0;
  bool* destroyed_flag_;
};

thread_local bool t_buffers_destroyed = false;
thread_local Buffer tl_pack_buffer(&t_buffers_destroyed);

template <typename T>
using PackA = void (*)(const ConstMatrix<T>&, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       T*);
template <typename T>
using PackB = void (*)(const ConstMatrix<T>&, int64_t, int64_t, int64_t, int64_t, T*);

template <typename T>
PackA<T> pack_a_for(int mr) {
  switch (mr) {
    case 4:
      return &pack_a<T, 4>;
    case 6:
      return &pack_a<T, 6>;
    case 8:
      return &pack_a<T, 8>;
    case 12:
      return &pack_a<T, 12>;
    default:  // a micro-kernel shape without a packer: a build error in spirit
      WICK_CHECK(false, Error, "matmul", "internal: no A packer for MR = ", mr);
      return nullptr;
  }
}

template <typename T>
PackB<T> pack_b_for(int nr) {
  switch (nr) {
    case 4:
      return &pack_b<T, 4>;
    case 8:
      return &pack_b<T, 8>;
    case 16:
      return &pack_b<T, 16>;
    case 24:
      return &pack_b<T, 24>;
    case 32:
      return &pack_b<T, 32>;
    case 48:
      return &pack_b<T, 48>;
    case 64:
      return &pack_b<T, 64>;
    default:
      WICK_CHECK(false, Error, "matmul", "internal: no B packer for NR = ", nr);
      return nullptr;
  }
}

template <typename T>
struct Plan {
  ConstMatrix<T> a, b;
  Product<T>* c;
  BF16Bits* rounded;  // gemm_rounded's output, or null
  int64_t ldc, m, n, k;
  KernelSet<T> ks;
  Blocking bl;
  PackA<T> pack_a;
  PackB<T> pack_b;
  int tn, tm;       // the grid of cells: tn along N, tm along M
  T* bufs;          // cell t's A block at bufs + t * (a_block + b_block), then its B block
  int64_t a_block;  // elements, a multiple of 32 (64 bytes or more)
  int64_t b_block;
};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Below this many MR-row panels of A per thread, the grid prefers splitting N (see the top).
constexpr int64_t kMinPanelsPerThread = 8;

// The thread grid tn x tm = nt with the least work for the busiest thread, in micro-tiles;
// ties go to the smaller tn (split M) when M has kMinPanelsPerThread panels per thread, else
// to the larger tn.
void choose_grid(int nt, int64_t m_units, int64_t n_units, int& tn, int& tm) {
  int64_t best = -1;
  const bool prefer_m = m_units >= kMinPanelsPerThread * nt;
  for (int i = 0; i < nt; ++i) {
    const int cand = prefer_m ? i + 1 : nt - i;
    if (nt % cand != 0) continue;
    const int64_t work = ceil_div(n_units, cand) * ceil_div(m_units, nt / cand);
    if (best < 0 || work < best) {
      best = work;
      tn = cand;
      tm = nt / cand;
    }
  }
}

// Grid cell `cell` (of tn x tm): rows q0..q1 of each M block's panels, columns j_begin..j_end.
template <typename T>
void run_cell(const Plan<T>& plan, int64_t cell) {
  const Blocking& bl = plan.bl;
  const int64_t mr = bl.mr, nr = bl.nr;
  const int64_t n_units = ceil_div(plan.n, nr);
  const int64_t tn = plan.tn, tm = plan.tm, tn_index = cell % tn, tm_index = cell / tn;
  // This cell's columns: whole NR panels, split evenly.
  const int64_t j_begin = n_units * tn_index / tn * nr;
  const int64_t j_end = std::min(plan.n, n_units * (tn_index + 1) / tn * nr);
  T* a_buf = plan.bufs + cell * (plan.a_block + plan.b_block);
  T* b_buf = a_buf + plan.a_block;
  for (int64_t ic = 0; ic < plan.m; ic += bl.mc) {
    const int64_t mc = std::min(bl.mc, plan.m - ic);
    const int64_t panels = ceil_div(mc, mr);
    const int64_t q0 = panels * tm_index / tm, q1 = panels * (tm_index + 1) / tm;
    const int64_t rows0 = q0 * mr, rows1 = std::min(mc, q1 * mr);
    if (rows1 <= rows0) continue;
    for (int64_t pc = 0; pc < plan.k; pc += bl.kc) {
      const int64_t kc = std::min(bl.kc, plan.k - pc);
      const int64_t packed_kc = ceil_div(kc, kDepthUnit<T>) * kDepthUnit<T>;
      // This cell's A rows, as panels 0..q1-q0 of a block that starts at row ic + rows0.
      plan.pack_a(plan.a, ic + rows0, rows1 - rows0, pc, kc, 0, q1 - q0, a_buf);
      for (int64_t jc = j_begin; jc < j_end; jc += bl.nc) {
        const int64_t nc = std::min(bl.nc, j_end - jc);
        plan.pack_b(plan.b, pc, kc, jc, nc, b_buf);
        const MacroArgs<T> args{rows1 - rows0,
                                nc,
                                packed_kc,
                                a_buf,
                                b_buf,
                                plan.c != nullptr ? plan.c + (ic + rows0) * plan.ldc + jc : nullptr,
                                plan.ldc,
                                pc > 0,
                                plan.rounded != nullptr && pc + kc >= plan.k
                                    ? plan.rounded + (ic + rows0) * plan.ldc + jc
                                    : nullptr};
        plan.ks.macro(args);
      }
    }
  }
}

// gemm_rounded's float32 C, when K spans several blocks.
thread_local Buffer tl_sum_buffer(&t_buffers_destroyed);
// Between calls a thread keeps at most this much of each: a 2048 x 2048 float32 C (a larger
// one is an O(m n) allocation next to O(m n k) work), and the packing blocks of 64 MiB (a team
// of about 64 threads at the default blocking), so that one large product, or a user thread
// that ran one, does not pin more for the rest of the thread's life.
constexpr size_t kKeptSumBytes = size_t{16} << 20;
constexpr size_t kKeptPackBytes = size_t{64} << 20;
struct TrimOnReturn {
  Buffer& pack;
  Buffer& sums;
  ~TrimOnReturn() {
    pack.trim(kKeptPackBytes);
    sums.trim(kKeptSumBytes);
  }
};

// gemm, or (rounded not null) gemm_rounded, which passes c = null.
template <typename T>
void run_gemm(const ConstMatrix<T>& a, const ConstMatrix<T>& b, Product<T>* c, BF16Bits* rounded,
              int64_t ldc, int threads) {
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    for (int64_t i = 0; i < m; ++i) {
      if (rounded != nullptr) {
        std::fill(rounded + i * ldc, rounded + i * ldc + n, BF16Bits{0});
      } else {
        std::fill(c + i * ldc, c + i * ldc + n, Product<T>(0));
      }
    }
    return;
  }
  const Isa isa = active_isa();
  Plan<T> plan{
      a,       b,       c, rounded, ldc,     m, n, k, kernels_for<T>(isa), blocking_for<T>(isa),
      nullptr, nullptr, 1, 1,       nullptr, 0, 0};
  // K in equal steps of at most KC: 4096 = 6 x 672 + 64 would end on a step whose micro-kernels
  // spend as long loading and storing C as multiplying; six steps of 586 and one of 580 do not.
  // (A bfloat16 step is rounded up to whole depth pairs: an odd one would pad every panel.)
  const int64_t kc_max = plan.bl.kc;
  plan.bl.kc = k <= kc_max
                   ? ceil_div(k, kDepthUnit<T>) * kDepthUnit<T>
                   : ceil_div(ceil_div(k, ceil_div(k, kc_max)), kDepthUnit<T>) * kDepthUnit<T>;

  // Inside a chunk, or while another host thread's job holds the pool, the product runs on
  // this thread alone: one cell, rather than nt cells run one after another with their
  // packing repeated.
  // The default team is at most the CPUs this process may run on: set_num_threads(1024) on two
  // CPUs would make 1024 cells, each with its own packing blocks (a review saw a 700^3 product
  // ask for 986 MB), and no more speed than two.
  int nt = in_parallel_region() || pool_busy()
               ? 1
               : (threads > 0 ? threads : std::min(max_threads(), available_cpus()));
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const double min_flops = g_min_flops_per_thread.load(std::memory_order_relaxed);
  nt = min_flops <= 0 ? nt : static_cast<int>(std::clamp<double>(flops / min_flops, 1.0, nt));
  const int64_t m_units = ceil_div(m, plan.bl.mr), n_units = ceil_div(n, plan.bl.nr);
  nt = static_cast<int>(std::min<int64_t>(nt, m_units * n_units));
  if constexpr (!std::is_same_v<T, BF16Bits>) {
    // Decided before the M blocking below: at 16^3 the divisions of the plan were a visible
    // part of the call. A B with one column has no column stride to speak of.
    if (nt == 1 && plan.ks.direct != nullptr && (b.col_stride == 1 || n == 1) &&
        n * static_cast<int64_t>(sizeof(T)) <= kMaxDirectRowBytes &&
        flops / 2 <= static_cast<double>(g_direct_volume.load(std::memory_order_relaxed))) {
      plan.ks.direct(a, b, c, ldc, plan.bl.kc);
      return;
    }
  }

  // M in equal blocks of whole MR panels: as few as keep each block within the A bytes that
  // blocking.cpp budgets (MC x KC, so a shorter K step takes more rows) and within
  // kMaxRowsPerBlock rows, give or take 10%. 1024^3 (K steps of 512) stays one block where MC
  // says 780 rows, and no block is a sliver: 2048 rows as 1560 + 488 packed all of B again for
  // the second block, which has a third of the first's FMAs.
  const int64_t rows_in_budget =
      std::clamp<int64_t>(plan.bl.mc * kc_max / plan.bl.kc, plan.bl.mr, kMaxRowsPerBlock);
  const int64_t m_blocks = ceil_div(m * 10, rows_in_budget * 11);
  plan.bl.mc = ceil_div(ceil_div(m, m_blocks), plan.bl.mr) * plan.bl.mr;
  if constexpr (std::is_same_v<T, BF16Bits>) {
    WICK_CHECK(plan.ks.macro != nullptr, Error, "matmul",
               "internal: the bfloat16 GEMM was called on a CPU without AVX512_BF16");
    plan.pack_a = plan.ks.pack_a;
    plan.pack_b = plan.ks.pack_b;
  } else {
    plan.pack_a = plan.ks.pack_a ? plan.ks.pack_a : pack_a_for<T>(plan.ks.mr);
    plan.pack_b = plan.ks.pack_b ? plan.ks.pack_b : pack_b_for<T>(plan.ks.nr);
  }
  choose_grid(nt, m_units, n_units, plan.tn, plan.tm);

  // Every size rounded up to 32 elements, so each block starts 64-byte aligned. A cell's A
  // block holds its share of one M block's panels, and its B block at most ceil(n_units / tn)
  // panels (tn >= 1 bounds it by n).
  const int64_t packed_kc = ceil_div(std::min(plan.bl.kc, k), kDepthUnit<T>) * kDepthUnit<T>;
  const int64_t cell_panels = ceil_div(ceil_div(std::min(plan.bl.mc, m), plan.bl.mr), plan.tm);
  plan.a_block = ceil_div(cell_panels * plan.bl.mr * packed_kc, 32) * 32;
  plan.b_block = ceil_div(std::min(plan.bl.nc, n_units * plan.bl.nr) * packed_kc, 32) * 32;
  Buffer call_pack, call_sums;  // used only once this thread's buffers are destroyed
  const bool destroyed = t_buffers_destroyed;
  TrimOnReturn buffers{destroyed ? call_pack : tl_pack_buffer,
                       destroyed ? call_sums : tl_sum_buffer};
  if (rounded != nullptr && k > plan.bl.kc) {
    // Several depth blocks: the sums wait in a float32 C with the output's row stride.
    plan.c = static_cast<Product<T>*>(
        buffers.sums.get(sizeof(float) * static_cast<size_t>((m - 1) * ldc + n)));
  }
  plan.bufs = static_cast<T*>(
      buffers.pack.get(sizeof(T) * static_cast<size_t>((plan.a_block + plan.b_block) * nt)));
  if (nt == 1) {
    run_cell(plan, 0);
    return;
  }
  run_chunks(nt, [&plan](int64_t cell) { run_cell(plan, cell); });
}

}  // namespace

void set_min_flops_per_thread(double flops) {
  g_min_flops_per_thread.store(flops < 0 ? kMinFlopsPerThread : flops, std::memory_order_relaxed);
}

void set_direct_volume(int64_t volume) {
  g_direct_volume.store(volume < 0 ? kDefaultDirectVolume : volume, std::memory_order_relaxed);
}

template <typename T>
void gemm(const ConstMatrix<T>& a, const ConstMatrix<T>& b, Product<T>* c, int64_t ldc,
          int threads) {
  run_gemm<T>(a, b, c, nullptr, ldc, threads);
}

void gemm_rounded(const ConstMatrix<BF16Bits>& a, const ConstMatrix<BF16Bits>& b, BF16Bits* out,
                  int64_t ldo, int threads) {
  run_gemm<BF16Bits>(a, b, nullptr, out, ldo, threads);
}

template void gemm<float>(const ConstMatrix<float>&, const ConstMatrix<float>&, float*, int64_t,
                          int);
template void gemm<double>(const ConstMatrix<double>&, const ConstMatrix<double>&, double*, int64_t,
                           int);
template void gemm<BF16Bits>(const ConstMatrix<BF16Bits>&, const ConstMatrix<BF16Bits>&, float*,
                             int64_t, int);

}  // namespace wick::cpu::gemm
