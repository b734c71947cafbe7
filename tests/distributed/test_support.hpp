// test_support.hpp: what the distributed tests share: the world group made by test_main.cpp,
// tensors built from double values in any dtype and layout, and reading them back.
#pragma once

#include <wick/distributed.hpp>
#include <wick/wick.hpp>

#include <functional>
#include <memory>
#include <vector>

namespace wick_test {

// The group every test uses (ProcessGroup::world(), made once by main).
wick::distributed::ProcessGroup& group();
std::shared_ptr<wick::distributed::ProcessGroup> shared_group();

inline const std::vector<wick::Dtype>& all_dtypes() {
  static const std::vector<wick::Dtype> dtypes{wick::kBool, wick::kInt64, wick::kFloat32,
                                               wick::kFloat64};
  return dtypes;
}

// The devices every rank can test on: the CPU, and its GPU (default_device()) when every rank
// has one of its own (NCCL needs one GPU per rank). Collective on first call.
const std::vector<wick::Device>& devices();

// The layouts a collective must handle: contiguous, a transposed view, a strided slice (every
// other element of a larger buffer), a narrowed view with an offset, a 0-d tensor, empty.
enum class Layout { Contiguous, Transposed, Strided, Offset, Scalar, Empty };
inline const std::vector<Layout>& all_layouts() {
  static const std::vector<Layout> layouts{Layout::Contiguous, Layout::Transposed, Layout::Strided,
                                           Layout::Offset,     Layout::Scalar,     Layout::Empty};
  return layouts;
}
const char* layout_name(Layout layout);

// A tensor of `dtype` in `layout` whose k-th element (row-major) is value(k), with `base` the
// buffer it views (the rest of base holds kSentinel).
struct Viewed {
  wick::Tensor view;
  wick::Tensor base;
  Layout layout = Layout::Contiguous;
};
inline constexpr double kSentinel = -7;
Viewed make_viewed(Layout layout, wick::Dtype dtype, const std::function<double(int64_t)>& value,
                   wick::Device device = wick::kCPU);
// Every element of base outside the view still holds kSentinel.
bool sentinel_intact(const Viewed& v);

// What an element of `dtype` holds when written from `x` (bool: x != 0).
double as_dtype(double x, wick::Dtype dtype);

}  // namespace wick_test
