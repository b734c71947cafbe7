// test_main.cpp: Catch2's runner under MPI. Every rank runs every test case in declaration
// order (collectives need the same sequence everywhere), then the ranks agree on the verdict:
// the program fails on every rank when a test failed on any. Run by CTest through mpirun with
// 1, 2 and 3 ranks (tests/distributed/CMakeLists.txt). Also the shared helpers of
// test_support.hpp.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "test_support.hpp"

namespace wick_test {
namespace {
std::shared_ptr<wick::distributed::ProcessGroup> g_group;
}  // namespace

wick::distributed::ProcessGroup& group() { return *g_group; }
std::shared_ptr<wick::distributed::ProcessGroup> shared_group() { return g_group; }

const char* layout_name(Layout layout) {
  switch (layout) {
    case Layout::Contiguous:
      return "contiguous";
    case Layout::Transposed:
      return "transposed";
    case Layout::Strided:
      return "strided";
    case Layout::Offset:
      return "offset";
    case Layout::Scalar:
      return "0-d";
    case Layout::Empty:
      return "empty";
  }
  return "?";
}

double as_dtype(double x, wick::Dtype dtype) {
  if (dtype == wick::kBool) return x != 0 ? 1 : 0;
  return x;
}

// The view of base that `layout` uses.
wick::Tensor view_of(Layout layout, const wick::Tensor& base) {
  switch (layout) {
    case Layout::Transposed:
      return base.t();  // [4, 3], strides [1, 4]
    case Layout::Strided:
      return base.slice(1, 1, 9, 2);  // [2, 4], every other column of [2, 9]
    case Layout::Offset:
      return base.narrow(0, 3, 6);  // elements 3..8 of 11
    default:
      return base;
  }
}

wick::Shape base_sizes(Layout layout) {
  switch (layout) {
    case Layout::Contiguous:
    case Layout::Transposed:
      return {3, 4};
    case Layout::Strided:
      return {2, 9};
    case Layout::Offset:
      return {11};
    case Layout::Scalar:
      return wick::Shape();
    case Layout::Empty:
      return {2, 0};
  }
  return wick::Shape();
}

const std::vector<wick::Device>& devices() {
  static const std::vector<wick::Device> list = [] {
    std::vector<wick::Device> d{wick::Device(wick::kCPU)};
    const wick::Device gpu = group().default_device();
    const bool own_gpu = gpu.is_cuda() && group().local_size() <= wick::cuda::device_count();
    wick::Tensor everyone = wick::tensor(std::vector<int64_t>{own_gpu ? 1 : 0});
    group().all_reduce(everyone, wick::distributed::ReduceOp::Min);
    if (everyone.item<int64_t>() == 1) d.push_back(gpu);
    if (group().rank() == 0) {
      std::printf("distributed tests: devices cpu%s%s\n", d.size() > 1 ? " and " : "",
                  d.size() > 1 ? (gpu.str() + (wick::distributed::ProcessGroup::has_nccl()
                                                   ? " (NCCL)"
                                                   : " (through host memory, no NCCL)"))
                                     .c_str()
                               : " (no GPU per rank)");
    }
    return d;
  }();
  return list;
}

Viewed make_viewed(Layout layout, wick::Dtype dtype, const std::function<double(int64_t)>& value,
                   wick::Device device) {
  wick::NoGradGuard no_grad;
  Viewed v;
  v.layout = layout;
  v.base =
      wick::full(base_sizes(layout), kSentinel, wick::TensorOptions().dtype(dtype).device(device));
  v.view = view_of(layout, v.base);
  std::vector<double> values(static_cast<size_t>(v.view.numel()));
  for (size_t k = 0; k < values.size(); ++k) values[k] = value(static_cast<int64_t>(k));
  if (!values.empty()) v.view.copy_(wick::tensor(values, v.view.sizes()).to(dtype));
  return v;
}

bool sentinel_intact(const Viewed& v) {
  std::vector<wick::Tensor> outside;
  if (v.layout == Layout::Strided) outside.push_back(v.base.slice(1, 0, 9, 2));
  if (v.layout == Layout::Offset) {
    outside.push_back(v.base.narrow(0, 0, 3));
    outside.push_back(v.base.narrow(0, 9, 2));
  }
  for (const wick::Tensor& t : outside) {
    for (double x : t.to_vector<double>()) {
      if (x != as_dtype(kSentinel, v.base.dtype())) return false;
    }
  }
  return true;
}

}  // namespace wick_test

int main(int argc, char** argv) {
  wick_test::g_group = wick::distributed::ProcessGroup::world();
  auto& group = *wick_test::g_group;
  Catch::Session session;
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  const int failed = session.run();
  // Every rank learns whether any rank failed.
  wick::Tensor verdict = wick::tensor(std::vector<int64_t>{failed});
  try {
    group.all_reduce(verdict, wick::distributed::ReduceOp::Max);
  } catch (const wick::Error& e) {
    std::fprintf(stderr, "rank %d: could not agree on the verdict: %s\n", group.rank(), e.what());
    return 1;
  }
  const int64_t worst = verdict.item<int64_t>();
  if (group.rank() == 0) {
    std::printf("distributed tests on %d rank(s): %s\n", group.size(),
                worst == 0 ? "all passed on every rank" : "FAILED on some rank");
  }
  return worst == 0 ? 0 : 1;
}
