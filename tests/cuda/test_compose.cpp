// test_compose.cpp: the ops made of other ops (core/src/ops_compose.cpp, ops_sample.cpp,
// indexing.cpp, ops_einsum.cpp, ops_median.cpp, ops_vector.cpp, ops_unique.cpp, ops_nan.cpp,
// ops_pointwise.cpp, ops_matrix.cpp, ops_quantile.cpp, ops_arrange.cpp, ops_search.cpp) on the
// device, against the same calls on the CPU: they run through the GPU kernels of the ops they
// are made of, so these check the arrangement, not new kernels.
#include <cmath>
#include <limits>

#include "gpu_test.hpp"

using namespace gpu_test;

TEST_CASE("gpu: flip, roll, repeat, diag, norm, masked_select and the samplers run on the device",
          "[sweep]") {
  const Tensor m = randn({3, 4, 5});
  const Tensor d = m.to(kCUDA);
  check_close(d.flip({0, 2}), m.flip({0, 2}), {}, "flip");
  check_close(d.roll({2, -1}, {1, 2}), m.roll({2, -1}, {1, 2}), {}, "roll");
  check_close(d.repeat({2, 1, 1, 3}), m.repeat({2, 1, 1, 3}), {}, "repeat");
  check_close(d.repeat_interleave(2, 1), m.repeat_interleave(2, 1), {}, "repeat_interleave");
  check_close(d.select(0, 1).diag(1), m.select(0, 1).diag(1), {}, "diag of a matrix");
  check_close(diag(d.select(1, 0).select(0, 2), -2), diag(m.select(1, 0).select(0, 2), -2), {},
              "diag of a vector");
  check_close(d.norm(2, {2}), m.norm(2, {2}), {1e-6, 1e-6}, "norm");
  const Tensor mask = gt(m, 0.5);
  const Tensor picked = d.masked_select(mask.to(kCUDA));
  CHECK(picked.device().is_cuda());
  check_close(picked, m.masked_select(mask), {}, "masked_select");
  check_close(d.nonzero(), m.nonzero(), {}, "nonzero");
  // libtorch's indexing: basic indices, an int64 pair and a mask, on the device.
  using indexing::Slice;
  const Tensor rows = tensor({2, 0}), cols = tensor({1, 4});
  check_close(d.index({Slice(), rows.to(kCUDA), cols.to(kCUDA)}), m.index({Slice(), rows, cols}),
              {}, "index pair");
  check_close(d.index({1, Slice(1, 3), "..."}), m.index({1, Slice(1, 3), "..."}), {}, "index");
  check_close(d.index({mask.to(kCUDA)}), m.index({mask}), {}, "index by mask");
  Tensor put_cpu = m.clone(), put_gpu = d.clone();
  put_cpu.index_put_({rows, Slice(), 1}, -7.0);
  put_gpu.index_put_({rows.to(kCUDA), Slice(), 1}, -7.0);
  check_close(put_gpu, put_cpu, {}, "index_put_ with a tensor index");
  // The samplers draw from the same Philox stream on both devices: one seed, the same values.
  auto draws = [](Device device) {
    manual_seed(99);
    const auto on = TensorOptions(kInt64).device(device);
    const Tensor w = tensor({{1.0, 0.0, 3.0, 4.0}, {2.0, 2.0, 0.5, 0.0}}).to(device);
    return std::vector<Tensor>{randint(-5, 7, {300}, on), randperm(257, on),
                               bernoulli(full({200}, 0.3, TensorOptions(kFloat32).device(device))),
                               multinomial(w, 50, true), multinomial(w, 3, false)};
  };
  const std::vector<Tensor> cpu = draws(kCPU), gpu = draws(kCUDA);
  for (size_t i = 0; i < cpu.size(); ++i) {
    INFO("sampler " << i);
    CHECK(gpu[i].device().is_cuda());
    check_close(gpu[i], cpu[i], {}, "sampler");
  }
}

TEST_CASE("gpu: einsum, median, kthvalue, mode, frexp, xlog1py and index_put_ run on the device",
          "[sweep]") {
  const Tensor a = randn({2, 3, 4}), b = randn({2, 4, 5}), sq = randn({4, 4});
  const Tensor da = a.to(kCUDA), db = b.to(kCUDA);
  // Contractions are one matmul each: matmul's tolerance (docs/cuda-backend.md).
  check_close(einsum("bij,bjk->bik", {da, db}), einsum("bij,bjk->bik", {a, b}), {1e-5, 1e-5},
              "einsum batched matmul");
  check_close(einsum("ii->i", {sq.to(kCUDA)}), einsum("ii->i", {sq}), {}, "einsum diagonal");
  check_close(einsum("...ij,...jk", {da.narrow(0, 0, 1), db}),
              einsum("...ij,...jk", {a.narrow(0, 0, 1), b}), {1e-5, 1e-5}, "einsum broadcast");
  // Order statistics through sort and topk: the CPU's values and positions, NaN included.
  Tensor x = randint(0, 5, {6, 9}).to(kFloat32);
  x.index_put_({2, 4}, std::nan(""));
  const Tensor dx = x.to(kCUDA);
  check_close(std::get<0>(dx.median(1)), std::get<0>(x.median(1)), {}, "median values");
  check_close(std::get<1>(dx.median(1)), std::get<1>(x.median(1)), {}, "median positions");
  check_close(std::get<1>(dx.nanmedian(0)), std::get<1>(x.nanmedian(0)), {}, "nanmedian");
  check_close(std::get<1>(dx.kthvalue(3, 1)), std::get<1>(x.kthvalue(3, 1)), {}, "kthvalue");
  check_close(dx.median(), x.median(), {}, "median of all");
  check_close(std::get<0>(dx.mode(1)), std::get<0>(x.mode(1)), {}, "mode values");
  check_close(std::get<1>(dx.mode(0)), std::get<1>(x.mode(0)), {}, "mode positions");
  // frexp and xlog1py (composites of unary and binary kernels): the CPU's bits.
  const Tensor wide = randn({40}) * 1e30f;
  check_close(std::get<0>(frexp(wide.to(kCUDA))), std::get<0>(frexp(wide)), {}, "frexp mantissa");
  check_close(std::get<1>(frexp(wide.to(kCUDA))), std::get<1>(frexp(wide)), {}, "frexp exponent");
  const Tensor p = randn({5, 8}), q = rand({8}) * 3 - 1.5f;
  check_close(xlog1py(p.to(kCUDA), q.to(kCUDA)), xlog1py(p.to(kFloat64), q.to(kFloat64)),
              {1e-5, 1e-6}, "xlog1py");
  // Repeated positions: accumulated in index order, or the last one kept.
  const Tensor rows = tensor({1, 1, 0, 1});
  const Tensor vals = tensor({1.0f, 2.0f, 3.0f, 4.0f});
  Tensor acc_cpu = zeros({3}), acc_gpu = zeros({3}).to(kCUDA);
  acc_cpu.index_put_({rows}, vals, true);
  acc_gpu.index_put_({rows.to(kCUDA)}, vals.to(kCUDA), true);
  check_close(acc_gpu, acc_cpu, {}, "index_put_ accumulate");
  Tensor last_cpu = zeros({3}), last_gpu = zeros({3}).to(kCUDA);
  last_cpu.index_put_({rows}, vals);
  last_gpu.index_put_({rows.to(kCUDA)}, vals.to(kCUDA));
  check_close(last_gpu, last_cpu, {}, "index_put_ last write");
}

TEST_CASE("gpu: diff, cross, meshgrid, cdist, unique and bincount run on the device", "[sweep]") {
  const Tensor a = randn({4, 3}), b = randn({4, 3});
  const Tensor da = a.to(kCUDA), db = b.to(kCUDA);
  check_close(diff(da, 2, 0), diff(a, 2, 0), {1e-6, 1e-6}, "diff");
  check_close(linalg_cross(da, db), linalg_cross(a, b), {1e-6, 1e-6}, "cross");
  const std::vector<Tensor> grid = meshgrid({da.select(1, 0), db.select(0, 1)}, "xy");
  check_close(grid[1], meshgrid({a.select(1, 0), b.select(0, 1)}, "xy")[1], {}, "meshgrid");
  check_close(cdist(da, db, 1), cdist(a, b, 1), {1e-6, 1e-6}, "cdist p=1");
  const Tensor big1 = randn({30, 4}), big2 = randn({27, 4});
  check_close(cdist(big1.to(kCUDA), big2.to(kCUDA)), cdist(big1, big2), {1e-4, 1e-4},
              "cdist through matmul");
  const Tensor v = randint(0, 6, {40});
  auto [gv, gi, gc] = unique(v.to(kCUDA), true, true, true);
  auto [cv, ci, cc] = unique(v, true, true, true);
  check_close(gv, cv, {}, "unique values");
  check_close(gi, ci, {}, "unique inverse");
  check_close(gc, cc, {}, "unique counts");
  check_close(bincount(v.to(kCUDA)), bincount(v), {}, "bincount");
}

TEST_CASE(
    "gpu: nansum, nan_to_num, isclose, addcmul, logaddexp, xlogy, kron, rot90, diag_embed, "
    "baddbmm and histc run on the device",
    "[sweep]") {
  Tensor m = randn({4, 6});
  m = where(gt(m, 1.0), std::numeric_limits<double>::quiet_NaN(), m);
  m = where(lt(m, -1.5), -std::numeric_limits<double>::infinity(), m);
  const Tensor d = m.to(kCUDA);
  check_close(d.nansum({1}), m.nansum({1}), {1e-6, 1e-6}, "nansum");
  check_close(d.nanmean(), m.nanmean(), {1e-6, 1e-6}, "nanmean");
  check_close(d.nan_to_num(0.5), m.nan_to_num(0.5), {}, "nan_to_num");
  check_close(count_nonzero(d, {0}), count_nonzero(m, {0}), {}, "count_nonzero");
  const Tensor n = m + 1e-7;
  check_close(isclose(d, n.to(kCUDA), 1e-5, 1e-8, true), isclose(m, n, 1e-5, 1e-8, true), {},
              "isclose");
  const Tensor a = randn({3, 1}), b = randn({4}), c = randn({3, 4});
  check_close(addcmul(a.to(kCUDA), b.to(kCUDA), c.to(kCUDA), 0.5), addcmul(a, b, c, 0.5),
              {1e-6, 1e-6}, "addcmul");
  check_close(addcdiv(c.to(kCUDA), a.to(kCUDA), b.to(kCUDA), -2), addcdiv(c, a, b, -2),
              {1e-6, 1e-6}, "addcdiv");
  check_close(logaddexp(a.to(kCUDA), c.to(kCUDA)), logaddexp(a, c), {1e-6, 1e-6}, "logaddexp");
  check_close(xlogy(c.to(kCUDA), b.abs().to(kCUDA)), xlogy(c, b.abs()), {1e-6, 1e-6}, "xlogy");
  check_close(kron(a.to(kCUDA), c.to(kCUDA)), kron(a, c), {1e-6, 1e-6}, "kron");
  check_close(rot90(c.to(kCUDA), 3), rot90(c, 3), {}, "rot90");
  check_close(diag_embed(c.to(kCUDA), -1), diag_embed(c, -1), {}, "diag_embed");
  const Tensor b1 = randn({2, 3, 5}), b2 = randn({2, 5, 4});
  check_close(baddbmm(c.to(kCUDA), b1.to(kCUDA), b2.to(kCUDA), 0.5, 2), baddbmm(c, b1, b2, 0.5, 2),
              {1e-5, 1e-5}, "baddbmm");
  const Tensor values = randn({1000});
  check_close(histc(values.to(kCUDA), 10, -2, 2), histc(values, 10, -2, 2), {}, "histc");
}

TEST_CASE("gpu: quantile, isin, the stacks, tensordot and the NaN-aware selects run on the device",
          "[sweep]") {
  Tensor m = randn({5, 7});
  m.index_put_({tensor({1, 3}), tensor({2, 6})}, tensor({NAN, NAN}));
  const Tensor d = m.to(kCUDA);
  const Tensor q = tensor({0.1f, 0.5f, 0.95f});
  for (const char* mode : {"linear", "lower", "higher", "midpoint", "nearest"}) {
    check_close(quantile(d, q.to(kCUDA), 1, false, mode), quantile(m, q, 1, false, mode), {},
                std::string("quantile ") + mode);
    check_close(nanquantile(d, q.to(kCUDA), 0, true, mode), nanquantile(m, q, 0, true, mode), {},
                std::string("nanquantile ") + mode);
  }
  const Tensor pool = tensor({0.5f, -1.0f, NAN, 2.0f});
  const Tensor probe = tensor({{2.0f, 0.5f, 3.0f}, {NAN, -1.0f, 0.0f}});
  CHECK(equal(isin(probe.to(kCUDA), pool.to(kCUDA)).to(kCPU), isin(probe, pool)));
  check_close(vstack({d, d.select(0, 0)}), vstack({m, m.select(0, 0)}), {}, "vstack");
  check_close(column_stack({d, d.select(1, 0)}), column_stack({m, m.select(1, 0)}), {},
              "column_stack");
  const Tensor b = randn({7, 3});
  check_close(tensordot(d, b.to(kCUDA), 1), tensordot(m, b, 1), {1e-5, 1e-5}, "tensordot");
  check_close(fmax(d, d.flip({0})), fmax(m, m.flip({0})), {}, "fmax");
  check_close(fmin(d, d.flip({1})), fmin(m, m.flip({1})), {}, "fmin");
  check_close(frac(d * 3.0), frac(m * 3.0), {}, "frac");
  check_close(heaviside(d, d.flip({0})), heaviside(m, m.flip({0})), {}, "heaviside");
  check_close(floor_divide(d, 0.3), floor_divide(m, 0.3), {}, "floor_divide");
}

TEST_CASE("gpu: diagonal, unfold, unique over a dim and the layout and numeric composites",
          "[sweep]") {
  const Tensor m = randn({3, 4, 5});
  const Tensor d = m.to(kCUDA);
  // The views read the device storage through their strides (no kernel of their own).
  check_close(d.diagonal(1, 0, 2), m.diagonal(1, 0, 2), {}, "diagonal");
  check_close(d.unfold(2, 3, 1).sum({-1}), m.unfold(2, 3, 1).sum({-1}), {1e-6, 1e-6}, "unfold");
  const Tensor rows = randint(0, 2, {30, 3});
  for (int i = 0; i < 3; ++i) {
    auto [v, inv, counts] = unique_dim(rows.to(kCUDA), 0, true, true, true);
    auto [cv, cinv, ccounts] = unique_dim(rows, 0, true, true, true);
    check_close(v, cv, {}, "unique_dim values");
    check_close(inv, cinv, {}, "unique_dim inverse");
    check_close(counts, ccounts, {}, "unique_dim counts");
  }
  const auto where_gpu = where(gt(d, 0.5)), where_cpu = where(gt(m, 0.5));
  REQUIRE(where_gpu.size() == 3);
  for (size_t i = 0; i < 3; ++i) check_close(where_gpu[i], where_cpu[i], {}, "where(condition)");
  const Tensor v = randn({5});
  check_close(block_diag({d.select(0, 0), v.to(kCUDA)}), block_diag({m.select(0, 0), v}), {},
              "block_diag");
  check_close(combinations(v.to(kCUDA), 3), combinations(v, 3), {}, "combinations");
  check_close(select_scatter(d, d.select(1, 0) * 2.0, 1, 3),
              select_scatter(m, m.select(1, 0) * 2.0, 1, 3), {}, "select_scatter");
  check_close(diagonal_scatter(d, zeros({5, 3}, kCUDA), 0, 0, 1),
              diagonal_scatter(m, zeros({5, 3}), 0, 0, 1), {}, "diagonal_scatter");
  check_close(cov(d.select(2, 0)), cov(m.select(2, 0)), {1e-5, 1e-6}, "cov");
  check_close(trapezoid(d, 0.5, 1), trapezoid(m, 0.5, 1), {1e-6, 1e-6}, "trapezoid");
  check_close(logaddexp2(d, d.flip({0})), logaddexp2(m, m.flip({0})), {1e-5, 1e-6}, "logaddexp2");
  check_close(tril_indices(4, 5, 1, kCUDA), tril_indices(4, 5, 1), {}, "tril_indices");
}

TEST_CASE("gpu: linalg_solve, linalg_inv, det and slogdet run on the device", "[sweep]") {
  manual_seed(11);
  const Tensor a = randn({3, 5, 5}, kFloat64) + eye(5, kFloat64) * 2.0;
  const Tensor b = randn({3, 5, 2}, kFloat64);
  const Tensor da = a.to(kCUDA), db = b.to(kCUDA);
  const Tensor x = linalg_solve(da, db);
  CHECK(x.device().is_cuda());
  check_close(x, linalg_solve(a, b), {1e-12, 1e-12}, "linalg_solve");
  check_close(linalg_inv(da), linalg_inv(a), {1e-12, 1e-12}, "linalg_inv");
  check_close(det(da), det(a), {1e-12, 1e-12}, "det");
  check_close(std::get<1>(slogdet(da)), std::get<1>(slogdet(a)), {1e-12, 1e-12}, "slogdet");
  CHECK_THROWS_AS(linalg_inv(zeros({2, 2}, TensorOptions(kFloat64).device(kCUDA))), ValueError);
}

TEST_CASE("gpu: lu_factor and lu_solve equal the CPU's, pivots exactly", "[sweep]") {
  manual_seed(12);
  // From 256 rows (batches of at most 4) the grid factors a matrix, two launches per column;
  // each thread of the 256 then searches two rows or more for the pivot.
  for (int64_t n :
       small_run() ? std::vector<int64_t>{1, 7, 40, 260} : std::vector<int64_t>{1, 7, 40, 300}) {
    for (Dtype dtype : {kFloat64, kFloat32}) {
      INFO("n = " << n << ", " << dtype_name(dtype));
      const Tensor a = randn({3, n, n}, dtype).transpose(-2, -1);
      const Tensor b = randn({3, n, 5}, dtype);
      const auto [lu, pivots] = linalg_lu_factor(a);
      const auto [dlu, dpivots] = linalg_lu_factor(a.to(kCUDA));
      CHECK(dlu.device().is_cuda());
      const Tensor x = linalg_lu_solve(dlu, dpivots, b.to(kCUDA));
      // float32 of 300 rows: the GPU's fused multiply-adds round differently, and two nearly
      // equal candidates may then swap places as pivot; the solve must still be as good.
      if (dtype == kFloat32 && n > 40) {
        const Tensor x64 = x.to(kCPU).to(kFloat64), a64 = a.to(kFloat64);
        const double residual = (matmul(a64, x64) - b.to(kFloat64)).abs().max().item<double>();
        const double scale = a64.abs().max().item<double>() * x64.abs().max().item<double>() * n;
        CHECK(residual / scale < 30 * 1.2e-7);
        continue;
      }
      CHECK(dpivots.to(kCPU).to_vector<int64_t>() == pivots.to_vector<int64_t>());
      const double tol = dtype == kFloat64 ? 1e-10 : 1e-3;
      check_close(dlu, lu, {tol, tol}, "lu_factor");
      check_close(x, linalg_lu_solve(lu, pivots, b), {tol, tol}, "lu_solve");
    }
  }
  // A NaN on the diagonal stays the pivot on both devices; a zero pivot divides nothing, but a
  // NaN below it still spreads through the update (LAPACK's rule), as on the CPU.
  const Tensor odd = tensor(std::vector<double>{NAN, 1, 5, 2, 0, 0, 3, 0, 1}, {3, 3}, kFloat64);
  const auto [lu, pivots] = linalg_lu_factor(odd);
  const auto [dlu, dpivots] = linalg_lu_factor(odd.to(kCUDA));
  CHECK(dpivots.to(kCPU).to_vector<int64_t>() == pivots.to_vector<int64_t>());
  const Tensor zero_column = tensor(std::vector<double>{0, 1, 0, 2}, {2, 2}, kFloat64);
  CHECK(std::get<1>(linalg_lu_factor(zero_column.to(kCUDA))).to(kCPU).to_vector<int64_t>() ==
        std::vector<int64_t>{1, 2});
  // Pivots that name a row above their own, as torch allows (its value, as on the CPU).
  const Tensor some_lu =
      tensor(std::vector<double>{2, 1, 0, 0.5, 3, 1, 0.25, 0.5, 4}, {3, 3}, kFloat64);
  const Tensor upward =
      linalg_lu_solve(some_lu.to(kCUDA), tensor(std::vector<int64_t>{3, 1, 2}, {3}).to(kCUDA),
                      tensor(std::vector<double>{1, 2, 3}, {3, 1}, kFloat64).to(kCUDA));
  check_close(upward,
              tensor(std::vector<double>{1.1041666666666667, -0.20833333333333334, 0.625}, {3, 1},
                     kFloat64),
              {1e-15, 1e-15}, "lu_solve, upward pivots");
  const Tensor nan_below = tensor(std::vector<double>{0, 1, NAN, 3}, {2, 2}, kFloat64);
  const std::vector<double> f =
      std::get<0>(linalg_lu_factor(nan_below.to(kCUDA))).to(kCPU).to_vector<double>();
  CHECK((f[0] == 0 && f[1] == 1 && std::isnan(f[2]) && std::isnan(f[3])));
  CHECK(std::isnan(det(nan_below.to(kCUDA)).item<double>()));
  // The grid path (from 256 rows): a zero column with a NaN below its pivot; the NaNs land
  // where the CPU's do.
  const int64_t n = 260;
  Tensor big = randn({n, n}, kFloat64);
  big.select(1, 0).fill_(0.0);
  big.select(0, 100).select(0, 0).fill_(NAN);
  const Tensor big_lu = std::get<0>(linalg_lu_factor(big.to(kCUDA))).to(kCPU);
  const Tensor cpu_lu = std::get<0>(linalg_lu_factor(big));
  CHECK(big_lu.select(0, 0).select(0, 0).item<double>() == 0);
  CHECK(equal(isnan(big_lu), isnan(cpu_lu)));
  CHECK(isnan(big_lu).any().item<bool>());
}

TEST_CASE("gpu: cholesky and triangular solves equal the CPU's", "[sweep]") {
  manual_seed(13);
  // From 256 rows (batches of at most 4) the grid factors a matrix, one launch per column.
  for (int64_t n : std::vector<int64_t>{1, 7, 40, 260}) {
    for (Dtype dtype : {kFloat64, kFloat32}) {
      INFO("n = " << n << ", " << dtype_name(dtype));
      const int64_t batch = n > 256 ? 1 : 3;
      const Tensor x = randn({batch, n, n}, kFloat64);
      const Tensor a =
          (matmul(x, x.transpose(-2, -1)) / static_cast<double>(n) + eye(n, kFloat64)).to(dtype);
      const double tol = dtype == kFloat64 ? 1e-10 : 1e-4;
      const auto [l, info] = linalg_cholesky_ex(a);
      const auto [dl, dinfo] = linalg_cholesky_ex(a.to(kCUDA));
      CHECK(dl.device().is_cuda());
      CHECK(dinfo.to(kCPU).to_vector<int64_t>() == info.to_vector<int64_t>());
      check_close(dl, l, {tol, tol}, "cholesky");
      check_close(linalg_cholesky(a.to(kCUDA), true), linalg_cholesky(a, true), {tol, tol},
                  "cholesky, upper");
      const Tensor b = randn({batch, n, 3}, dtype), db = b.to(kCUDA);
      for (bool upper : {false, true}) {
        for (bool unit : {false, true}) {
          const Tensor t = upper ? l.transpose(-2, -1) : l, dt = t.to(kCUDA);
          check_close(linalg_solve_triangular(dt, db, upper, true, unit),
                      linalg_solve_triangular(t, b, upper, true, unit), {tol, tol},
                      "solve_triangular");
        }
      }
      check_close(linalg_solve_triangular(dl, db.transpose(-2, -1), false, false),
                  linalg_solve_triangular(l, b.transpose(-2, -1), false, false), {tol, tol},
                  "solve_triangular from the right");
      check_close(cholesky_solve(db, dl), cholesky_solve(b, l), {tol * 10, tol * 10},
                  "cholesky_solve");
    }
  }
  // A failed pivot: the same info, NaN in the same places (the columns from it on), zeros above.
  const Tensor failing =
      tensor(std::vector<double>{4, 2, -2, 2, 1, 4, -2, 4, 9, 1, 0, 0, 0, -1, 0, 0, 0, 1},
             {2, 3, 3}, kFloat64);
  const auto [l, info] = linalg_cholesky_ex(failing);
  const auto [dl, dinfo] = linalg_cholesky_ex(failing.to(kCUDA));
  CHECK(dinfo.to(kCPU).to_vector<int64_t>() == std::vector<int64_t>{2, 2});
  const std::vector<double> want = l.to_vector<double>(), got = dl.to(kCPU).to_vector<double>();
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK((std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i]));
  }
  CHECK_THROWS_AS(linalg_cholesky(failing.to(kCUDA)), ValueError);
  // The grid path fails too, and then keeps NaN in the columns after.
  const int64_t n = 260;
  Tensor big = eye(n, kFloat64) * 2.0;
  big.index_put_({100, 100}, -1.0);
  const auto [gl, ginfo] = linalg_cholesky_ex(big.to(kCUDA));
  CHECK(ginfo.to(kCPU).item<int64_t>() == 101);
  const Tensor glc = gl.to(kCPU);
  CHECK(glc.index({99, 99}).item<double>() == std::sqrt(2.0));
  CHECK(std::isnan(glc.index({259, 259}).item<double>()));
  CHECK(glc.index({0, 259}).item<double>() == 0);
}
