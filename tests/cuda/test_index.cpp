// test_index.cpp: index_select, index_add, gather, scatter_add, scatter and scatter_reduce (every
// mode), resample and its backward, index_copy, index_fill and take_along_dim on the GPU against
// the CPU kernels, bit for bit: every dtype (bfloat16 included) x shapes with 0-size dims, one long
// dim (more elements than one capped grid covers) and three dims x every dim x every layout the
// boundary packs, with repeated indices (gather and scatter_add also with an index smaller than
// self outside dim). index_add and scatter_add add repeated targets in index order on both
// devices, and index.cu is built with -fmad=false (no FMA; gather.cu only adds), so the results
// must be equal, not close.
// Also: an out-of-range index is an IndexError before any kernel runs, and the device works on.
#include <random>

#include "gpu_test.hpp"
#include "index_cases.hpp"

using namespace gpu_test;

using index_cases::draw_index;

namespace {

const std::vector<Shape>& index_shapes() {
  static const std::vector<Shape> s{{0}, {1, 0, 3}, {20}, {4, 7, 9}, big2d()};
  return s;
}

}  // namespace

TEST_CASE("gpu sweep: index_select and index_add give the CPU's bits", "[sweep]") {
  PoisonScope poison;
  std::vector<Dtype> dtypes = all_dtypes();
  dtypes.push_back(kBFloat16);
  for (Dtype dtype : dtypes) {
    for (const Shape& shape : index_shapes()) {
      const auto nd = static_cast<int64_t>(shape.size());
      for (int64_t dim = 0; dim < nd; ++dim) {
        for (Layout layout : all_layouts()) {
          const Domain domain = dtype == kInt64 ? Domain::SmallInt : Domain::Any;
          Pair x = make_input(shape, dtype, layout, domain);
          const int64_t size = shape[static_cast<size_t>(dim)];
          const Tensor idx = draw_index(size, size > 100 ? 300 : 9, uint64_t(dim * 17 + nd));
          const Tensor idx_gpu = idx.to(kCUDA);
          const std::string what = label(x.cpu, layout) + " along dim " + std::to_string(dim);
          check_close(index_select(x.gpu, dim, idx_gpu), index_select(x.cpu, dim, idx), {},
                      "index_select of " + what);
          if (dtype == kBool) continue;
          Shape source_shape = shape;
          source_shape[static_cast<size_t>(dim)] = idx.numel();
          Pair source = make_input(source_shape, dtype, layout, domain);
          const Scalar alpha = is_floating(dtype) ? Scalar(0.75) : Scalar(3);
          check_close(index_add(x.gpu, dim, idx_gpu, source.gpu, alpha),
                      index_add(x.cpu, dim, idx, source.cpu, alpha), {}, "index_add of " + what);
        }
      }
    }
  }
}

TEST_CASE("gpu: an out-of-range index is an IndexError; the device works on", "[sweep]") {
  const Tensor table = ones({4, 3}).to(kCUDA);
  CHECK_THROWS_AS(index_select(table, 0, tensor({0, 4}).to(kCUDA)), IndexError);
  CHECK_THROWS_AS(index_add(table, 0, tensor({-1}).to(kCUDA), ones({1, 3}).to(kCUDA)), IndexError);
  CHECK_THROWS_AS(index_select(table, 0, tensor({0})), DeviceError);  // index on the CPU
  CHECK(index_select(table, 0, tensor({3, 3}).to(kCUDA)).sum().item<double>() == 6.0);
}

TEST_CASE("gpu: index_add with many repeats of few rows gives the CPU's bits", "[sweep]") {
  // 2000 indices into 5 rows (each row's 400 adds serial, in index order), with outer blocks,
  // a 1-D self (one column) and rows never named; float32 so that the order shows in the bits.
  for (const Shape& shape : {Shape{5}, Shape{3, 5, 7}, Shape{2, 5, 40}}) {
    const int64_t dim = shape.size() == 1 ? 0 : 1;
    Pair x = make_input(shape, kFloat32, Layout::Contiguous);
    const Tensor idx = draw_index(4, 2000, 11);  // rows 0..3: row 4 is never named
    Shape source_shape = shape;
    source_shape[static_cast<size_t>(dim)] = 2000;
    Pair source = make_input(source_shape, kFloat32, Layout::Contiguous);
    check_close(index_add(x.gpu, dim, idx.to(kCUDA), source.gpu, 0.3),
                index_add(x.cpu, dim, idx, source.cpu, 0.3), {},
                "index_add of " + describe(x.cpu) + " with 2000 indices");
  }
}

TEST_CASE("gpu sweep: resample and resample_backward give the CPU's bits", "[sweep]") {
  // float32, float64 and bfloat16 x the index shapes x every dim x every layout, 1 to 4 taps
  // with a repeated source, and a position no tap names; -fmad=false keeps each product and
  // add one rounding, as on the CPU, so the results must be equal.
  PoisonScope poison;
  for (Dtype dtype : {kFloat32, kFloat64, kBFloat16}) {
    for (const Shape& shape : index_shapes()) {
      const auto nd = static_cast<int64_t>(shape.size());
      for (int64_t dim = 0; dim < nd; ++dim) {
        for (Layout layout : all_layouts()) {
          const int64_t size = shape[static_cast<size_t>(dim)];
          const int64_t taps = size == 0 ? 0 : 1 + (dim + static_cast<int64_t>(layout)) % 4;
          const int64_t outputs = size > 100 ? 150 : 6;
          const Tensor flat =
              draw_index(std::max<int64_t>(size - 1, 1), taps * outputs, uint64_t(dim * 13 + nd));
          const Tensor idx = flat.reshape({taps, outputs});
          Pair weight = make_input({taps, outputs}, dtype, Layout::Contiguous);
          Pair x = make_input(shape, dtype, layout);
          const std::string what = label(x.cpu, layout) + " along dim " + std::to_string(dim);
          check_close(resample(x.gpu, dim, idx.to(kCUDA), weight.gpu),
                      resample(x.cpu, dim, idx, weight.cpu), {}, "resample of " + what);
          Shape grad_shape = shape;
          grad_shape[static_cast<size_t>(dim)] = outputs;
          Pair g = make_input(grad_shape, dtype, layout);
          check_close(resample_backward(g.gpu, dim, idx.to(kCUDA), weight.gpu, size),
                      resample_backward(g.cpu, dim, idx, weight.cpu, size), {},
                      "resample_backward of " + what);
        }
      }
    }
  }
  CHECK_THROWS_AS(resample(ones({2, 3}).to(kCUDA), 1, tensor({0, 3}).reshape({1, 2}).to(kCUDA),
                           ones({1, 2}).to(kCUDA)),
                  IndexError);
  CHECK_THROWS_AS(
      resample(ones({2, 3}).to(kCUDA), 1, tensor({0, 1}).reshape({1, 2}), ones({1, 2}).to(kCUDA)),
      DeviceError);
}

TEST_CASE("gpu sweep: gather and scatter_add give the CPU's bits", "[sweep]") {
  PoisonScope poison;
  std::vector<Dtype> dtypes = all_dtypes();
  dtypes.push_back(kBFloat16);
  for (Dtype dtype : dtypes) {
    for (const Shape& shape : index_shapes()) {
      const auto nd = static_cast<int64_t>(shape.size());
      for (int64_t dim = 0; dim < nd; ++dim) {
        for (int shrink : {0, 1, 2}) {
          for (Layout layout : all_layouts()) {
            const Domain domain = dtype == kInt64 ? Domain::SmallInt : Domain::Any;
            Pair x = make_input(shape, dtype, layout, domain);
            const int64_t size = shape[static_cast<size_t>(dim)];
            Tensor idx = index_cases::draw_gather_index(shape, dim, size > 100 ? 300 : 9, shrink,
                                                        uint64_t(dim * 17 + nd));
            if (layout == Layout::Transposed && idx.dim() >= 2) {
              idx = idx.transpose(0, -1).contiguous().transpose(0, -1);
            }
            const Tensor idx_gpu = idx.to(kCUDA);
            const std::string what = label(x.cpu, layout) + " along dim " + std::to_string(dim) +
                                     " with an index " + describe(idx);
            check_close(gather(x.gpu, dim, idx_gpu), gather(x.cpu, dim, idx), {},
                        "gather of " + what);
            if (dtype == kBool) continue;
            Pair src = make_input(idx.sizes(), dtype, layout, domain);
            check_close(scatter_add(x.gpu, dim, idx_gpu, src.gpu),
                        scatter_add(x.cpu, dim, idx, src.cpu), {}, "scatter_add of " + what);
          }
        }
      }
    }
  }
}

TEST_CASE("gpu sweep: scatter and scatter_reduce give the CPU's bits in every mode", "[sweep]") {
  PoisonScope poison;
  std::vector<Dtype> dtypes = all_dtypes();
  dtypes.push_back(kBFloat16);
  const std::vector<Shape> shapes{{0}, {20}, {4, 7, 9}};
  for (Dtype dtype : dtypes) {
    for (const Shape& shape : shapes) {
      const auto nd = static_cast<int64_t>(shape.size());
      for (int64_t dim = 0; dim < nd; ++dim) {
        for (int shrink : {0, 2}) {  // many columns, and one (the grouped-rows route)
          for (Layout layout : {Layout::Contiguous, Layout::Transposed}) {
            const Domain domain = dtype == kInt64 ? Domain::SmallInt : Domain::Any;
            Pair x = make_input(shape, dtype, layout, domain);
            const Tensor idx =
                index_cases::draw_gather_index(shape, dim, 9, shrink, uint64_t(dim * 13 + nd));
            const Tensor idx_gpu = idx.to(kCUDA);
            Pair src = make_input(idx.sizes(), dtype, layout, domain);
            const std::string what = label(x.cpu, layout) + " along dim " + std::to_string(dim) +
                                     " with an index " + describe(idx);
            check_close(scatter(x.gpu, dim, idx_gpu, src.gpu), scatter(x.cpu, dim, idx, src.cpu),
                        {}, "scatter of " + what);
            for (const char* mode : {"sum", "prod", "mean", "amax", "amin"}) {
              if (dtype == kBool && std::string(mode) == "mean") continue;
              for (bool include_self : {true, false}) {
                check_close(
                    scatter_reduce(x.gpu, dim, idx_gpu, src.gpu, mode, include_self),
                    scatter_reduce(x.cpu, dim, idx, src.cpu, mode, include_self), {},
                    std::string(mode) + (include_self ? "" : " without self") + " of " + what);
              }
            }
          }
        }
      }
    }
  }
  // index_copy, index_fill and take_along_dim on the device.
  const Tensor rows = arange(12, kFloat32).reshape({4, 3});
  const Tensor on_gpu = rows.to(kCUDA);
  CHECK(equal(on_gpu.index_copy(0, tensor({3, 0}).to(kCUDA), ones({2, 3}).to(kCUDA)).to(kCPU),
              rows.index_copy(0, tensor({3, 0}), ones({2, 3}))));
  CHECK(equal(on_gpu.index_fill(1, tensor({-1, 0}).to(kCUDA), 7.5).to(kCPU),
              rows.index_fill(1, tensor({-1, 0}), 7.5)));
  CHECK(equal(on_gpu.take_along_dim(tensor({{2}, {0}, {1}, {1}}).to(kCUDA), 1).to(kCPU),
              rows.take_along_dim(tensor({{2}, {0}, {1}, {1}}), 1)));
  CHECK_THROWS_AS(on_gpu.scatter_reduce(0, tensor({{4}}).to(kCUDA), ones({1, 1}).to(kCUDA), "amax"),
                  IndexError);
}

TEST_CASE("gpu: scatter_add with long columns of repeats gives the CPU's bits; errors", "[sweep]") {
  // 2000 positions along dim into 4 of 5 targets, per column (the column kernel: each column's
  // adds serial in index order) and for one column (index_add's kernel); float32 so that the
  // order shows in the bits.
  for (const Shape& shape : {Shape{5}, Shape{3, 5, 7}, Shape{2, 5, 40}}) {
    const int64_t dim = shape.size() == 1 ? 0 : 1;
    Shape index_shape = shape;
    index_shape[static_cast<size_t>(dim)] = 2000;
    Shape row = shape;
    row[static_cast<size_t>(dim)] = 4;  // values in [0, 4): target 4 is never named
    const Tensor idx = index_cases::draw_gather_index(row, dim, 2000, 0, 5);
    REQUIRE(idx.sizes() == index_shape);
    Pair x = make_input(shape, kFloat32, Layout::Contiguous);
    Pair src = make_input(index_shape, kFloat32, Layout::Contiguous);
    check_close(scatter_add(x.gpu, dim, idx.to(kCUDA), src.gpu),
                scatter_add(x.cpu, dim, idx, src.cpu), {},
                "scatter_add of " + describe(x.cpu) + " with 2000 positions along dim");
  }
  // A few indices into a long dim: the host groups them with a comparison sort, not a count
  // over the dim (index_add directly, and scatter_add's one-column route).
  {
    Pair x = make_input(Shape{300000}, kFloat32, Layout::Contiguous);
    const Tensor idx = tensor({299999, 7, 299999, 123456, 7, 299999});
    Pair src = make_input(Shape{6}, kFloat32, Layout::Contiguous);
    check_close(index_add(x.gpu, 0, idx.to(kCUDA), src.gpu, 0.3),
                index_add(x.cpu, 0, idx, src.cpu, 0.3), {}, "index_add into [300000]");
    check_close(scatter_add(x.gpu, 0, idx.to(kCUDA), src.gpu), scatter_add(x.cpu, 0, idx, src.cpu),
                {}, "scatter_add into [300000]");
  }
  const Tensor table = ones({4, 3}).to(kCUDA);
  CHECK_THROWS_AS(gather(table, 0, tensor({{0, 4}}).to(kCUDA)), IndexError);
  CHECK_THROWS_AS(scatter_add(table, 1, tensor({{-1}}).to(kCUDA), ones({1, 1}).to(kCUDA)),
                  IndexError);
  CHECK_THROWS_AS(gather(table, 0, tensor({{0}})), DeviceError);  // index on the CPU
  // After the errors: values, a 0-d gather and an empty index on the device.
  const Tensor rows = arange(12, kFloat32).reshape({4, 3}).to(kCUDA);
  CHECK(gather(rows, 1, tensor({{2}, {0}, {1}, {2}}).to(kCUDA)).to(kCPU).to_vector<float>() ==
        std::vector<float>{2, 3, 7, 11});
  CHECK(gather(tensor(5.0f).to(kCUDA), 0, tensor({0, 0}).to(kCUDA)).to(kCPU).to_vector<float>() ==
        std::vector<float>{5, 5});
  CHECK(equal(scatter_add(rows, 0, zeros({0}, kInt64).to(kCUDA), ones({2}).to(kCUDA)).to(kCPU),
              rows.to(kCPU)));
  // The in-place forms on the device.
  Tensor acc = zeros({3}).to(kCUDA);
  acc.index_add_(0, tensor({1, 1}).to(kCUDA), ones({2}).to(kCUDA));
  acc.scatter_add_(0, tensor({2}).to(kCUDA), full({1}, 5.0).to(kCUDA));
  CHECK(acc.to(kCPU).to_vector<float>() == std::vector<float>{0, 2, 5});
}

TEST_CASE("gpu: one_hot gives the CPU's result on the device", "[sweep]") {
  const Tensor idx = tensor({3, 0, 2, 2, 1});
  const Tensor got = nn::functional::one_hot(idx.to(kCUDA), 5);
  CHECK(got.device().is_cuda());
  check_close(got, nn::functional::one_hot(idx, 5), {}, "one_hot of 5 classes");
  check_close(nn::functional::one_hot(idx.to(kCUDA)), nn::functional::one_hot(idx), {},
              "one_hot of max + 1 classes");
  CHECK_THROWS_AS(nn::functional::one_hot(idx.to(kCUDA), 3), IndexError);
}

TEST_CASE("gpu: backward rules trust a device index; the kernels still guard it", "[sweep]") {
  // The backward rules skip the range check of a device index (a synchronisation each):
  // detail::IndexesInRange. Where an index changed through a raw device write, the kernels
  // still keep every access inside the tensors.
  Tensor x = arange(20, kFloat32).reshape({4, 5}).to(kCUDA).requires_grad_();
  const Tensor idx = tensor({{1}, {0}, {4}, {2}}).to(kCUDA);
  const Tensor picked = x.gather(1, idx);
  const Tensor rows = x.index_select(0, tensor({3, 3, 0}).to(kCUDA));
  const Tensor sorted = std::get<0>(x.sort(1));
  const uint64_t before = detail::index_range_checks();
  (picked.sum() + rows.sum() + sorted.sum()).backward();
  CHECK(detail::index_range_checks() == before);
  CHECK(x.grad().to(kCPU).select(0, 3).to_vector<float>() == std::vector<float>{3, 3, 4, 3, 3});
  // Inside the scope, an out-of-range device index: gather and index_select read zeros,
  // scatter_add adds nothing, index_add (which groups the index on the host) refuses it.
  const detail::IndexesInRange trusted;
  const Tensor bad = tensor({{7}, {0}, {-3}, {2}}).to(kCUDA);
  const Tensor table = (arange(20, kFloat32) + 1.0).reshape({4, 5}).to(kCUDA);
  CHECK(table.gather(1, bad).to(kCPU).to_vector<float>() == std::vector<float>{0, 6, 0, 18});
  CHECK(table.index_select(0, tensor({9, 1}).to(kCUDA)).to(kCPU).sum().item<double>() ==
        6 + 7 + 8 + 9 + 10);
  CHECK(scatter_add(zeros({4, 5}).to(kCUDA), 1, bad, ones({4, 1}).to(kCUDA))
            .to(kCPU)
            .sum()
            .item<double>() == 2.0);
  CHECK_THROWS_AS(
      index_add(zeros({4, 5}).to(kCUDA), 0, tensor({5}).to(kCUDA), ones({1, 5}).to(kCUDA)),
      IndexError);
}

TEST_CASE("gpu: conv2d and pooling (im2col by index_select) match the CPU, forward and backward",
          "[sweep]") {
  namespace F = nn::functional;
  const Tensor x = randn({2, 4, 7, 6});
  const Tensor w = randn({6, 2, 3, 2});
  const Tensor b = randn({6});
  const auto options = nn::Conv2dFuncOptions().stride({2, 1}).padding(1).dilation({1, 2}).groups(2);
  auto run = [&](Device device) {
    Tensor xd = x.to(device).requires_grad_(), wd = w.to(device).requires_grad_();
    Tensor bd = b.to(device).requires_grad_();
    const Tensor y = F::conv2d(xd, wd, nn::Conv2dFuncOptions(options).bias(bd));
    const Tensor pooled = F::max_pool2d(y, nn::MaxPool2dOptions(2).stride(1).padding(1));
    const Tensor averaged =
        F::avg_pool2d(y, nn::AvgPool2dOptions(3).padding(1).count_include_pad(false));
    (pooled.sum() + (averaged * averaged).sum()).backward();
    return std::vector<Tensor>{y.detach(), pooled.detach(), averaged.detach(),
                               xd.grad(),  wd.grad(),       bd.grad()};
  };
  // pad's index_select modes and its constant mode on the device.
  for (nn::PadMode mode : {nn::kConstant, nn::kReflect, nn::kReplicate, nn::kCircular}) {
    const nn::PadFuncOptions pad = nn::PadFuncOptions({2, 1, 1, 3}).mode(mode).value(-1.5);
    check_close(F::pad(x.to(kCUDA), pad), F::pad(x, pad), {}, "pad");
  }
  const std::vector<Tensor> gpu = run(kCUDA), cpu = run(kCPU);
  const char* names[] = {"conv2d", "max_pool2d", "avg_pool2d", "d input", "d weight", "d bias"};
  for (size_t i = 0; i < gpu.size(); ++i) {
    CHECK(gpu[i].device().is_cuda());
    check_close(gpu[i], cpu[i], {1e-5, 1e-5}, names[i]);
  }
}

TEST_CASE("gpu: conv_transpose2d, fold, interpolate and instance_norm match the CPU, with grads",
          "[sweep]") {
  namespace F = nn::functional;
  const Tensor x = randn({2, 4, 5, 4});
  const Tensor w = randn({4, 3, 3, 2});
  const Tensor b = randn({6});
  auto run = [&](Device device) {
    Tensor xd = x.to(device).requires_grad_(), wd = w.to(device).requires_grad_();
    Tensor bd = b.to(device).requires_grad_();
    const Tensor up = F::conv_transpose2d(xd, wd,
                                          nn::ConvTranspose2dFuncOptions()
                                              .bias(bd)
                                              .stride(2)
                                              .padding({1, 0})
                                              .output_padding(1)
                                              .groups(2));
    const Tensor folded = F::fold(F::unfold(xd, nn::UnfoldOptions(2).padding(1)),
                                  nn::FoldOptions({5, 4}, 2).padding(1));
    const Tensor resized =
        F::interpolate(xd, nn::InterpolateFuncOptions().scale_factor({1.5, 2}).mode(nn::kBicubic));
    const Tensor normed = F::instance_norm(up);
    (normed * normed.detach()).sum().backward();
    (folded.sum() + resized.pow(2).sum()).backward();
    return std::vector<Tensor>{up.detach(), folded.detach(), resized.detach(), normed.detach(),
                               xd.grad(),   wd.grad(),       bd.grad()};
  };
  const std::vector<Tensor> gpu = run(kCUDA), cpu = run(kCPU);
  const char* names[] = {"conv_transpose2d", "fold(unfold)", "interpolate", "instance_norm",
                         "d input",          "d weight",     "d bias"};
  for (size_t i = 0; i < gpu.size(); ++i) {
    CHECK(gpu[i].device().is_cuda());
    check_close(gpu[i], cpu[i], {1e-4, 1e-4}, names[i]);
  }
}

TEST_CASE("gpu: pooling with indices, unpooling, adaptive max and embedding_bag match the CPU",
          "[sweep]") {
  namespace F = nn::functional;
  const Tensor x = randn({2, 3, 7, 6});
  const Tensor table = randn({9, 4});
  const Tensor bags = tensor(std::vector<int64_t>{1, 2, 8, 0, 5, 5, 3}, Shape{7}, kInt64);
  const Tensor starts = tensor(std::vector<int64_t>{0, 3, 3}, Shape{3}, kInt64);
  auto run = [&](Device device) {
    Tensor xd = x.to(device).requires_grad_(), td = table.to(device).requires_grad_();
    const auto [pooled, where_from] =
        F::max_pool2d_with_indices(xd, nn::MaxPool2dOptions(3).stride(2).padding(1));
    const Tensor unpooled = F::max_unpool2d(
        pooled, where_from, nn::MaxUnpool2dOptions(3).stride(2).padding(1).output_size({7, 6}));
    const auto [adaptive, adaptive_from] = F::adaptive_max_pool2d_with_indices(xd, nn::Size2(3, 4));
    const Tensor bagged =
        F::embedding_bag(bags.to(device), td,
                         nn::EmbeddingBagFuncOptions().offsets(starts.to(device)).mode(nn::kMax));
    (unpooled.pow(2).sum() + adaptive.sum() + bagged.pow(2).sum()).backward();
    return std::vector<Tensor>{pooled.detach(),   where_from,    unpooled.detach(),
                               adaptive.detach(), adaptive_from, bagged.detach(),
                               xd.grad(),         td.grad()};
  };
  const std::vector<Tensor> gpu = run(kCUDA), cpu = run(kCPU);
  const char* names[] = {"max_pool2d",       "indices",       "max_unpool2d", "adaptive_max_pool2d",
                         "adaptive indices", "embedding_bag", "d input",      "d table"};
  for (size_t i = 0; i < gpu.size(); ++i) {
    CHECK(gpu[i].device().is_cuda());
    check_close(gpu[i], cpu[i], {1e-5, 1e-5}, names[i]);
  }
}
