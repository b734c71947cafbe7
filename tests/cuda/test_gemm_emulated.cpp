// test_gemm_emulated.cpp: every kernel of the matmul ladder (kernels/cuda/gemm/), run on the CPU
// by cuda_emulator.hpp, against a float64 reference. Runs on every machine, CI included: it
// checks the kernels' index maths, edge tiles, batch strides, transposed and strided operands,
// shared-memory staging and the tensor-core fragment layouts. Speed and true concurrency are
// the GPU suite's business (tests/cuda/test_gemm_ladder.cpp, skipped without a GPU).
// Sizes are those of the issue up to 129 (the emulator runs one CPU thread per CUDA thread,
// so 1000^3 would take minutes); M, N, K of 1000 and more are covered by the GPU suite.
// Each run draws fresh inputs (seeded from the clock; the seed is printed first); C starts as NaN.
#include <catch2/catch.hpp>

// The emulator first: it defines the CUDA keywords and built-ins the kernels use.
#include "cuda_emulator.hpp"

#include "gemm/01_naive.cuh"
#include "gemm/02_coalesced.cuh"
#include "gemm/03_shared_tiles.cuh"
#include "gemm/04_blocktile_1d.cuh"
#include "gemm/05_blocktile_2d.cuh"
#include "gemm/06_vectorized.cuh"
#include "gemm/07_warptile.cuh"
#include "gemm/08_cp_async.cuh"
#include "gemm/08_cp_async_variants.cuh"
#include "gemm/09_tf32_mma.cuh"
#include "gemm/10_bf16_mma.cuh"
#include "gemm/11_wgmma_tma.cuh"
#include "gemm/12_wgmma_wide.cuh"
#include "gemm/13_wgmma_tf32.cuh"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

using namespace wick::gpu::gemm;
using wick::BFloat16;

namespace {

template <typename T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, BFloat16>) {
    return static_cast<float>(v);
  } else {
    return static_cast<double>(v);
  }
}

std::mt19937_64& rng() {
  static std::mt19937_64 gen = [] {
    const auto seed =
        static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    std::printf("test_gemm_emulated: seed %llu\n", static_cast<unsigned long long>(seed));
    return std::mt19937_64(seed);
  }();
  return gen;
}

enum class Layout { RowMajor, Transposed, Strided };
const char* layout_name(Layout l) {
  return l == Layout::RowMajor ? "row-major" : l == Layout::Transposed ? "transposed" : "strided";
}

// An operand of rows x cols per batch, in one buffer, with its strides.
template <typename T>
struct Operand {
  std::vector<T> data;
  int64_t rs = 0, cs = 0, bs = 0;
  T at(int64_t z, int64_t r, int64_t c) const {
    return data[static_cast<size_t>(z * bs + r * rs + c * cs)];
  }
};

template <typename T>
Operand<T> make_operand(int64_t batch, int64_t rows, int64_t cols, Layout layout, bool broadcast) {
  Operand<T> op;
  // Leading dims padded to a multiple of the 16-byte chunk (4 floats, 8 bfloat16) and past it,
  // as a sliced view would have them.
  constexpr int64_t pad = sizeof(T) == 2 ? 8 : 4;
  const int64_t ld_row = (cols + pad - 1) / pad * pad + pad;
  const int64_t ld_col = (rows + pad - 1) / pad * pad + pad;
  int64_t per_batch = 0;
  switch (layout) {
    case Layout::RowMajor:
      op.rs = ld_row, op.cs = 1, per_batch = rows * ld_row;
      break;
    case Layout::Transposed:
      op.rs = 1, op.cs = ld_col, per_batch = cols * ld_col;
      break;
    case Layout::Strided:
      op.rs = 2 * ld_row, op.cs = 2, per_batch = rows * 2 * ld_row;
      break;
  }
  per_batch = (per_batch + pad - 1) / pad * pad;
  op.bs = broadcast ? 0 : per_batch;
  op.data.assign(static_cast<size_t>((broadcast ? 1 : batch) * per_batch + 8), T(0));
  std::uniform_int_distribution<int> ints(-8, 8);
  std::uniform_real_distribution<double> reals(-1.0, 1.0);
  for (auto& v : op.data) {
    if constexpr (std::is_integral_v<T>) {
      v = ints(rng());
    } else if constexpr (std::is_same_v<T, BFloat16>) {
      v = BFloat16(static_cast<float>(reals(rng())));
    } else {
      v = static_cast<T>(reals(rng()));
    }
  }
  return op;
}

struct Case {
  int64_t m, n, k, batch;
  Layout a_layout, b_layout;
  bool broadcast_b;
  std::string describe() const {
    std::ostringstream s;
    s << "M=" << m << " N=" << n << " K=" << k << " batch=" << batch << ", A "
      << layout_name(a_layout) << ", B " << layout_name(b_layout)
      << (broadcast_b ? " broadcast over the batch" : "");
    return s.str();
  }
};

template <typename Step>
auto kernel_of(const auto& p) {
  if constexpr (requires { Step::kernel_for(p); }) {
    return Step::kernel_for(p);
  } else {
    return Step::kernel;
  }
}

// Runs Step on one case and returns ||C - C_ref||_F / ||C_ref||_F (0 for exact int64 results;
// +inf when an element was never written or an int64 differs).
// grid_z > 0 caps the grid's batch dim, so that each block loops over several batches, as
// blocks do past 65535 batches.
template <typename T, template <typename> class Step>
double run_case(const Case& cs, unsigned grid_z = 0) {
  const Operand<T> a = make_operand<T>(cs.batch, cs.m, cs.k, cs.a_layout, false);
  const Operand<T> b = make_operand<T>(cs.batch, cs.k, cs.n, cs.b_layout, cs.broadcast_b);
  T poison;
  if constexpr (std::is_same_v<T, BFloat16>) {
    poison = BFloat16::from_bits(0x7fc0);  // NaN
  } else {
    poison =
        std::is_integral_v<T> ? std::numeric_limits<T>::min() : std::numeric_limits<T>::quiet_NaN();
  }
  std::vector<T> c(static_cast<size_t>(cs.batch * cs.m * cs.n), poison);
  Problem<T> p;
  p.a = a.data.data(), p.b = b.data.data(), p.c = c.data();
  p.m = cs.m, p.n = cs.n, p.k = cs.k;
  p.a_rs = a.rs, p.a_cs = a.cs, p.b_rs = b.rs, p.b_cs = b.cs;
  p.batch = cs.batch, p.a_bs = a.bs, p.b_bs = b.bs, p.c_bs = cs.m * cs.n;
  REQUIRE(Step<T>::fits(p));
  const auto kernel = kernel_of<Step<T>>(p);
  dim3 grid = Step<T>::grid(p);
  if (grid_z > 0 && grid.z > grid_z) grid.z = grid_z;
  size_t shared_bytes = 0;  // past 48 KiB, asked for first as ladder.cu does
  if constexpr (requires { Step<T>::kDynamicSharedBytes; }) {
    shared_bytes = static_cast<size_t>(Step<T>::kDynamicSharedBytes);
    emu::set_max_dynamic_shared(reinterpret_cast<const void*>(kernel), shared_bytes);
  }
  emu::g_launch.config_error = false;
  emu::launch_shared(kernel, grid, Step<T>::block(), shared_bytes, p);
  REQUIRE_FALSE(emu::g_launch.config_error);
  double diff = 0, norm = 0;
  for (int64_t z = 0; z < cs.batch; ++z) {
    for (int64_t i = 0; i < cs.m; ++i) {
      for (int64_t j = 0; j < cs.n; ++j) {
        double want = 0;
        for (int64_t k = 0; k < cs.k; ++k) {
          want += to_double(a.at(z, i, k)) * to_double(b.at(z, k, j));
        }
        const double got = to_double(c[static_cast<size_t>((z * cs.m + i) * cs.n + j)]);
        if (std::isnan(got) || (std::is_integral_v<T> && got != want)) {
          return std::numeric_limits<double>::infinity();
        }
        diff += (got - want) * (got - want);
        norm += want * want;
      }
    }
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

std::vector<Case> cases(bool vector_layouts_only) {
  const std::vector<std::array<int64_t, 3>> sizes{
      {1, 1, 1},       {7, 7, 7},       {16, 16, 16}, {33, 17, 65}, {127, 129, 33},
      {128, 128, 128}, {129, 127, 131}, {5, 6, 0},    {1, 129, 7},  {129, 1, 16}};
  std::vector<Case> out;
  for (const auto& s : sizes)
    out.push_back({s[0], s[1], s[2], 1, Layout::RowMajor, Layout::RowMajor, false});
  const std::vector<Layout> layouts =
      vector_layouts_only
          ? std::vector<Layout>{Layout::RowMajor, Layout::Transposed}
          : std::vector<Layout>{Layout::RowMajor, Layout::Transposed, Layout::Strided};
  for (Layout la : layouts) {
    for (Layout lb : layouts) {
      out.push_back({33, 65, 17, 1, la, lb, false});
      out.push_back({130, 70, 9, 1, la, lb, false});
    }
  }
  out.push_back({17, 33, 9, 3, Layout::RowMajor, Layout::RowMajor, false});
  out.push_back({17, 33, 9, 3, Layout::Transposed, Layout::RowMajor, true});
  if (vector_layouts_only) {  // the 128-bit-load steps: 8's variants have tiles up to 256 wide
    out.push_back({130, 260, 33, 1, Layout::RowMajor, Layout::Transposed, false});
    out.push_back({260, 130, 33, 1, Layout::Transposed, Layout::RowMajor, false});
    out.push_back({9, 12, 300, 2, Layout::RowMajor, Layout::RowMajor, false});  // 19 K slices
    out.push_back({9, 12, 300, 2, Layout::Transposed, Layout::Transposed, true});
  }
  return out;
}

template <typename T, template <typename> class Step>
void check_step(double tolerance, bool vector_layouts_only = false) {
  for (const Case& cs : cases(vector_layouts_only)) {
    INFO(Step<T>::kName << ": " << cs.describe());
    const double err = run_case<T, Step>(cs);
    CHECK(err <= tolerance);
  }
}

}  // namespace

TEST_CASE("emulated ladder: 01 naive", "[gemm][emulated]") { check_step<float, Naive>(1e-6); }
TEST_CASE("emulated ladder: 02 coalesced", "[gemm][emulated]") {
  check_step<float, Coalesced>(1e-6);
}
TEST_CASE("emulated ladder: 03 shared-memory tiles", "[gemm][emulated]") {
  check_step<float, SharedTiles>(1e-6);
}
TEST_CASE("emulated ladder: 04 1-D block tiling", "[gemm][emulated]") {
  check_step<float, Blocktile1d>(1e-6);
}
TEST_CASE("emulated ladder: 05 2-D block tiling, every dtype and both shapes", "[gemm][emulated]") {
  check_step<float, Blocktile2d>(1e-6);
  check_step<float, Blocktile2dSmall>(1e-6);
  check_step<double, Blocktile2d>(1e-14);
  check_step<int64_t, Blocktile2dSmall>(0);
}
TEST_CASE("emulated ladder: 06 vectorised loads", "[gemm][emulated]") {
  check_step<float, Vectorized>(1e-6, true);
}
TEST_CASE("emulated ladder: 07 warp tiling", "[gemm][emulated]") {
  check_step<float, Warptile>(1e-6, true);
}
TEST_CASE("emulated ladder: 08 double buffering with cp.async", "[gemm][emulated]") {
  check_step<float, CpAsync>(1e-6, true);
}
TEST_CASE("emulated ladder: 08's tile variants (by name only)", "[gemm][emulated]") {
  // The edge shapes, layouts and batches of every step, plus tiles past one and two block tiles
  // of each variant (N 260 over 256-wide tiles, M 260 over 256-tall ones) and a K of 19 to 38
  // slices, so that the ring of 3 stages wraps, within a batch and across batches.
  check_step<float, CpAsync128x256S3>(1e-6, true);
  check_step<float, CpAsync256x128S3>(1e-6, true);
  check_step<float, CpAsync128x128T128S3>(1e-6, true);
  check_step<float, CpAsync128x128S3>(1e-6, true);
}

TEST_CASE("emulated ladder: 09 TF32 tensor cores (mma.sync m16n8k8)", "[gemm][emulated]") {
  // TF32 keeps 10 mantissa bits: relative error of a product about 2^-11, of a sum of K
  // products about that over sqrt(K) cancellations; 2e-3 of the norm is the bound.
  check_step<float, Tf32Mma>(2e-3, true);
}
TEST_CASE("emulated ladder: 09 TF32 in every layout: edges, the stage ring, batches",
          "[gemm][emulated][tf32]") {
  // Step 9 relabels the mma's k slots, A's rows (for a[k][m] stages) and B's columns, and
  // swizzles its stages differently per orientation: every layout pair on M, N, K of 1, 7,
  // 33, 127 and 129, K that is not a multiple of BK = 32 and K past the 3-stage ring (161, 200:
  // 6 and 7 slices), single rows and columns, K = 0, and batches with and without a broadcast
  // B whose last slice sits in each of the 3 stages (1 to 4 slices: the next batch's first
  // copies must wait for every warp to finish the last one).
  const std::vector<std::array<int64_t, 4>> shapes{
      {1, 1, 1, 1},       {7, 7, 7, 1},     {33, 33, 33, 1},  {127, 129, 33, 1}, {129, 127, 95, 1},
      {129, 129, 161, 1}, {1, 129, 200, 1}, {130, 1, 40, 1},  {17, 33, 70, 3},   {5, 6, 0, 2},
      {17, 33, 9, 3},     {33, 17, 40, 2},  {17, 40, 100, 2}, {100, 100, 32, 3}, {100, 90, 60, 2}};
  for (Layout la : {Layout::RowMajor, Layout::Transposed}) {
    for (Layout lb : {Layout::RowMajor, Layout::Transposed}) {
      for (const auto& s : shapes) {
        for (bool broadcast : {false, true}) {
          if (broadcast && s[3] == 1) continue;
          const Case cs{s[0], s[1], s[2], s[3], la, lb, broadcast};
          INFO("09_tf32_mma: " << cs.describe());
          CHECK(run_case<float, Tf32Mma>(cs) <= 2e-3);
          if (s[3] > 1) {  // one block row of batches: each block loops over all of them
            INFO("grid z = 1");
            CHECK(run_case<float, Tf32Mma>(cs, 1) <= 2e-3);
          }
        }
      }
    }
  }
}

TEST_CASE("emulated ladder: 09 TF32 rounds its inputs to nearest", "[gemm][emulated][tf32]") {
  // The emulated tensor core, like the hardware, ignores the low 13 bits of an fp32 register:
  // unrounded inputs give about 6.8e-4 of the norm on these uniform inputs (truncation, biased
  // towards zero), rounded ones about 2.6e-4. 4.5e-4 tells them apart at 64 x 64 x 64.
  for (Layout la : {Layout::RowMajor, Layout::Transposed}) {
    for (Layout lb : {Layout::RowMajor, Layout::Transposed}) {
      const Case cs{64, 64, 64, 1, la, lb, false};
      INFO("09_tf32_mma: " << cs.describe());
      CHECK(run_case<float, Tf32Mma>(cs) <= 4.5e-4);
    }
  }
}

TEST_CASE("emulated ladder: 10 BF16 tensor cores (mma.sync m16n8k16)", "[gemm][emulated]") {
  // Products of bfloat16 are exact and the sums FP32; C is rounded to bfloat16 (half an ulp of
  // 8 significant bits: at most 2^-8 relative): the Frobenius error stays below 2^-8 of the
  // norm, inside the 1e-2. A wrong fragment layout gives errors of order 1.
  check_step<BFloat16, Bf16Mma>(0x1p-8, true);
}

namespace {

// float32 read as TF32 by wgmma: the low 13 mantissa bits dropped (truncation toward zero), as
// the PTX ISA says for .tf32 and cuda_emulator_hopper.hpp does.
double tf32_truncated(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  bits &= ~uint32_t{0x1FFF};
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

// Frobenius errors of a wgmma step's C against the float64 product of the inputs as given
// (`exact`) and of the inputs as the tensor cores read them (`as_read`: bfloat16 unchanged, float32
// truncated to TF32), relative to that reference's norm.
struct WgmmaErrors {
  double exact = 0, as_read = 0;
};

// Step 11 (G = WgmmaGeometry), 12 (WgmmaWideGeometry) or 13 (WgmmaTf32Geometry, float32) as
// gemm/hopper.cu launches it, with the emulator's tensor maps: A row-major and B a transposed view
// (both K-major), batches with and without a broadcast B.
template <typename G>
WgmmaErrors run_wgmma_case(const Case& cs) {
  using T = typename G::Element;
  const Operand<T> a = make_operand<T>(cs.batch, cs.m, cs.k, Layout::RowMajor, false);
  const Operand<T> b = make_operand<T>(cs.batch, cs.k, cs.n, Layout::Transposed, cs.broadcast_b);
  T poison;
  if constexpr (std::is_same_v<T, BFloat16>) {
    poison = BFloat16::from_bits(0x7fc0);
  } else {
    poison = std::numeric_limits<float>::quiet_NaN();
  }
  std::vector<T> c(static_cast<size_t>(cs.batch * cs.m * cs.n), poison);
  Problem<T> p;
  p.a = a.data.data(), p.b = b.data.data(), p.c = c.data();
  p.m = cs.m, p.n = cs.n, p.k = cs.k;
  p.a_rs = a.rs, p.a_cs = a.cs, p.b_rs = b.rs, p.b_cs = b.cs;
  p.batch = cs.batch, p.a_bs = a.bs, p.b_bs = b.bs, p.c_bs = cs.m * cs.n;
  REQUIRE(wgmma_tma_fits(p));
  TmaMap maps[2];
  const TmaShape shapes[2] = {tma_shape_a<G>(p), tma_shape_b<G>(p)};
  const void* bases[2] = {p.a, p.b};
  for (int i = 0; i < 2; ++i) {
    REQUIRE(shapes[i].element_bytes == sizeof(T));
    emu::encode_tensor_map(maps[i].opaque, bases[i], shapes[i].element_bytes, shapes[i].dims,
                           shapes[i].strides, shapes[i].box, 128);
  }
  // Past 48 KiB of dynamic shared memory, as gemm/hopper.cu asks with cudaFuncSetAttribute.
  emu::set_max_dynamic_shared(reinterpret_cast<const void*>(&wgmma_tma_kernel<G>), G::kSharedBytes);
  emu::launch_shared(&wgmma_tma_kernel<G>, tile_grid<dim3>(p.n, G::BN, p.m, G::BM, p.batch),
                     dim3(G::kThreads), G::kSharedBytes, p, maps[0], maps[1],
                     shapes[0].batched ? 1 : 0, shapes[1].batched ? 1 : 0);
  const auto read = [](T v) {
    if constexpr (std::is_same_v<T, float>) {
      return tf32_truncated(v);
    } else {
      return to_double(v);
    }
  };
  double diff = 0, norm = 0, diff_read = 0, norm_read = 0;
  for (int64_t z = 0; z < cs.batch; ++z) {
    for (int64_t i = 0; i < cs.m; ++i) {
      for (int64_t j = 0; j < cs.n; ++j) {
        double want = 0, want_read = 0;
        for (int64_t k = 0; k < cs.k; ++k) {
          want += to_double(a.at(z, i, k)) * to_double(b.at(z, k, j));
          want_read += read(a.at(z, i, k)) * read(b.at(z, k, j));
        }
        const double got = to_double(c[static_cast<size_t>((z * cs.m + i) * cs.n + j)]);
        const double inf = std::numeric_limits<double>::infinity();
        if (std::isnan(got)) return {inf, inf};
        diff += (got - want) * (got - want);
        norm += want * want;
        diff_read += (got - want_read) * (got - want_read);
        norm_read += want_read * want_read;
      }
    }
  }
  const auto ratio = [](double d, double n) { return n > 0 ? std::sqrt(d / n) : std::sqrt(d); };
  return {ratio(diff, norm), ratio(diff_read, norm_read)};
}

}  // namespace

namespace {

// The shapes both wgmma steps run: edges in every dim, a K long enough for the stage ring to
// wrap, single rows and columns, batches, a broadcast B.
std::vector<Case> wgmma_shapes() {
  return {
      {1, 1, 1, 1, Layout::RowMajor, Layout::Transposed, false},
      {7, 7, 7, 1, Layout::RowMajor, Layout::Transposed, false},
      {16, 16, 16, 1, Layout::RowMajor, Layout::Transposed, false},
      {33, 17, 65, 1, Layout::RowMajor, Layout::Transposed, false},
      {128, 128, 128, 1, Layout::RowMajor, Layout::Transposed, false},
      {129, 127, 131, 1, Layout::RowMajor, Layout::Transposed, false},
      {130, 70, 300, 1, Layout::RowMajor, Layout::Transposed, false},  // 5 K tiles: the ring wraps
      {1, 129, 7, 1, Layout::RowMajor, Layout::Transposed, false},
      {129, 1, 16, 1, Layout::RowMajor, Layout::Transposed, false},
      {17, 33, 9, 3, Layout::RowMajor, Layout::Transposed, false},
  };
}

}  // namespace

TEST_CASE("emulated ladder: 11 Hopper wgmma with TMA (sm_90a)", "[gemm][emulated]") {
  // The same bound as step 10: exact products, FP32 sums, C rounded once to bfloat16. The
  // emulator checks the pipeline (mbarrier phases, the stage ring across K tiles and batches),
  // TMA's zero fill at the edges, and the swizzled layout as TMA writes it and wgmma reads it;
  // whether the hardware agrees with the descriptor encoding is for the first GPU run.
  std::vector<Case> shapes = wgmma_shapes();
  shapes.push_back({17, 33, 70, 3, Layout::RowMajor, Layout::Transposed, true});
  for (const Case& cs : shapes) {
    INFO("11_wgmma_tma: " << cs.describe());
    CHECK(run_wgmma_case<WgmmaGeometry>(cs).exact <= 0x1p-8);
  }
}

TEST_CASE("emulated ladder: 12 Hopper wgmma on 128 x 256 tiles (sm_90a)", "[gemm][emulated]") {
  // Step 11's kernel on the wide tile: wgmma.m64n256k16 (128 accumulators a thread), B^T boxes of
  // 256 rows, 48 KiB stages. Step 11's shapes, plus N past one and two 256-wide tiles (the
  // second tile mostly TMA's zero fill) and K tiles that wrap the ring across batches.
  std::vector<Case> shapes = wgmma_shapes();
  for (const Case& cs : std::vector<Case>{
           {17, 256, 33, 1, Layout::RowMajor, Layout::Transposed, false},  // one full N tile
           {33, 300, 70, 1, Layout::RowMajor, Layout::Transposed,
            false},  // 2 N tiles, the second 44
           {17, 257, 70, 3, Layout::RowMajor, Layout::Transposed, true},
           {9, 40, 200, 2, Layout::RowMajor, Layout::Transposed, false},  // 4 K tiles x 2 batches
       }) {
    shapes.push_back(cs);
  }
  for (const Case& cs : shapes) {
    INFO("12_wgmma_wide: " << cs.describe());
    CHECK(run_wgmma_case<WgmmaWideGeometry>(cs).exact <= 0x1p-8);
  }
}

TEST_CASE("emulated ladder: 13 Hopper TF32 wgmma on 128 x 256 tiles (sm_90a)", "[gemm][emulated]") {
  // Step 12's kernel on float32: wgmma.m64n256k8.tf32 (K = 8 an instruction, 32 floats a stage
  // row, 4 instructions a stage), float32 TMA boxes of 32 x 128 and 32 x 256. Two bounds:
  //  - against the float64 product of the inputs as wgmma reads them (truncated to TF32): FP32
  //    accumulation alone, 1e-5; a wrong descriptor, k advance, swizzle or TMA box gives O(1);
  //  - against the exact float64 product: truncation shrinks each input by up to 2^-10 of itself
  //    (2^-11.5 on average), each product by up to 2^-9; 2e-3 of the norm (step 9's emulated bound)
  //    holds with cancellation in sums of few terms (the typical error is about 7e-4).
  // Shapes: step 12's, plus K not a multiple of 32 (a partial last K tile: TMA's zero fill) or of
  // 4 (rows padded to 16 bytes), K tiles that wrap the ring across batches, edge M and N.
  std::vector<Case> shapes = wgmma_shapes();
  for (const Case& cs : std::vector<Case>{
           {17, 256, 33, 1, Layout::RowMajor, Layout::Transposed, false},    // K: 32 + 1
           {33, 300, 70, 1, Layout::RowMajor, Layout::Transposed, false},    // 2 N tiles, K 3 tiles
           {130, 257, 161, 1, Layout::RowMajor, Layout::Transposed, false},  // 2 x 2 tiles, 6 K
           {17, 257, 70, 3, Layout::RowMajor, Layout::Transposed, true},     // broadcast B
           {9, 40, 200, 2, Layout::RowMajor, Layout::Transposed, false},  // 7 K tiles x 2 batches
           {64, 64, 32, 1, Layout::RowMajor, Layout::Transposed, false},  // exactly one K tile
       }) {
    shapes.push_back(cs);
  }
  double worst = 0;
  for (const Case& cs : shapes) {
    INFO("13_wgmma_tf32: " << cs.describe());
    const WgmmaErrors err = run_wgmma_case<WgmmaTf32Geometry>(cs);
    CHECK(err.as_read <= 1e-5);
    CHECK(err.exact <= 2e-3);
    worst = std::max(worst, err.exact);
  }
  std::printf("13_wgmma_tf32: worst error against the exact product %.2e\n", worst);
}
