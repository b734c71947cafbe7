// test_norm.cpp: layer_norm and layer_norm_backward on the GPU against the CPU kernels run on
// float64 inputs (float32 widened), for both forms of the rows kernels (a warp per row up to
// 4096 elements, a block per row beyond), more rows than one capped grid covers, every layout
// the boundary packs, each affine combination, rows with NaN and inf, and every output mask.
// Tolerances: float32 results come from double statistics rounded once, then * w + b in float32
// (FMA on the GPU): 1e-5 relative plus 4e-6 absolute (a few ulps of |xhat w| + |b| up to about
// 12); float64: the sums run in another order, 1e-12 relative plus 1e-10 absolute where dx cancels.
#include <array>

#include "gpu_test.hpp"

using namespace gpu_test;

namespace {

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Tolerance norm_tol(Dtype dtype) {
  return dtype == kFloat32 ? Tolerance{1e-5, 4e-6} : Tolerance{1e-12, 1e-10};
}

struct NormCase {
  Shape shape;
  int64_t k;  // normalized dims
};

void check_layer_norm(const NormCase& c, Dtype dtype, Layout layout, bool with_weight,
                      bool with_bias, bool specials) {
  const Shape norm(c.shape.end() - c.k, c.shape.end());
  const Pair x = make_input(c.shape, dtype, layout, Domain::Any, specials);
  const Pair g = make_input(c.shape, dtype, layout, Domain::Any);
  const Pair w = with_weight ? make_input(norm, dtype, Layout::Contiguous) : Pair{};
  const Pair b = with_bias ? make_input(norm, dtype, Layout::Contiguous) : Pair{};
  const auto wide = [](const Tensor& t) { return t.defined() ? widen(t) : t; };
  const std::string what = "layer_norm of " + label(x.cpu, layout) + " over " +
                           std::to_string(c.k) + " dims" + (with_weight ? ", weight" : "") +
                           (with_bias ? ", bias" : "") + (specials ? ", NaN/inf" : "");
  const Tolerance tol = norm_tol(dtype);
  {
    PoisonScope poison;
    check_close(layer_norm(x.gpu, norm, w.gpu, b.gpu),
                layer_norm(wide(x.cpu), norm, wide(w.cpu), wide(b.cpu)), tol, what);
  }
  if (specials) return;
  for (const std::array<bool, 3> mask :
       {std::array<bool, 3>{true, true, true}, {true, false, false}, {false, true, true}}) {
    PoisonScope poison;
    const auto got = layer_norm_backward(g.gpu, x.gpu, norm, w.gpu, 1e-5, mask);
    const auto want = layer_norm_backward(wide(g.cpu), wide(x.cpu), norm, wide(w.cpu), 1e-5, mask);
    for (int i = 0; i < 3; ++i) {
      INFO("output " << i << " of mask " << mask[0] << mask[1] << mask[2]);
      REQUIRE(got[i].defined() == mask[i]);
      if (mask[i]) check_close(got[i], want[i], tol, "backward of " + what);
    }
  }
}

}  // namespace

TEST_CASE("gpu sweep: layer_norm and layer_norm_backward", "[sweep]") {
  const int64_t longer = small_run() ? 5000 : 20000;  // past 4096: a block per row
  const int64_t many = small_run() ? 20001 : 150001;  // more rows than one capped grid
  const std::vector<NormCase> cases{{{20}, 1},
                                    {big2d(), 1},
                                    {{7, 33}, 2},
                                    {{3, longer}, 1},
                                    {{many, 3}, 1},
                                    {{2, 3, 4, 5}, 3},
                                    {{0, 5}, 1},
                                    {{4, 1}, 1},
                                    // Rows long enough for lane_sum's unrolled loops: in
                                    // 16-byte vectors (1000) and in elements (999).
                                    {{5, 1000}, 1},
                                    {{5, 999}, 1}};
  for (Dtype dtype : {kFloat32, kFloat64}) {
    for (const NormCase& c : cases) {
      for (Layout layout :
           {Layout::Contiguous, Layout::Transposed, Layout::Strided, Layout::Offset}) {
        // The large cases in one layout with full affine: the rest is the same code.
        const bool large = numel_of(c.shape) > 50000;
        for (int affine = 0; affine < 3; ++affine) {
          if (large && (layout != Layout::Contiguous || affine != 0)) continue;
          check_layer_norm(c, dtype, layout, affine != 1, affine == 0, false);
        }
        if (c.shape.size() == 2 && !large) check_layer_norm(c, dtype, layout, true, true, true);
      }
    }
  }
  // bfloat16: computed in float32 and rounded once on both devices; the two float32 results
  // differ by a few float32 ulps, so the roundings may differ by one bfloat16 step.
  {
    Tensor x = randn({37, 70}).to(kBFloat16), w = randn({70}).to(kBFloat16);
    Tensor b = randn({70}).to(kBFloat16), g = randn({37, 70}).to(kBFloat16);
    const Tolerance bf16{0x1p-7, 0x1p-7};
    check_close(layer_norm(x.to(kCUDA), {70}, w.to(kCUDA), b.to(kCUDA)), layer_norm(x, {70}, w, b),
                bf16, "bfloat16 layer_norm");
    const auto got =
        layer_norm_backward(g.to(kCUDA), x.to(kCUDA), {70}, w.to(kCUDA), 1e-5, {true, true, true});
    const auto want = layer_norm_backward(g, x, {70}, w, 1e-5, {true, true, true});
    for (int i = 0; i < 3; ++i) check_close(got[i], want[i], bf16, "bfloat16 layer_norm_backward");
  }
  // Integer and bool inputs are refused on the GPU as on the CPU.
  CHECK_THROWS_AS(layer_norm(ones({2, 3}, kInt64).to(kCUDA), {3}), DtypeError);
}
