// test_op_sweep_shapes.cpp: the op sweep's cases for creation (fill, rand, randn, arange),
// copy and cast, cat and stack, and the view ops, each against the float64 oracle of
// reference.hpp with debug fill on; test_op_sweep.cpp walks the op list and calls them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "sweep_common.hpp"

using namespace wick;
using ref::Domain;
using ref::Layout;

// ---- creation and copy ----
void sweep_fill() {
  for (Dtype dtype : ref::all_dtypes()) {
    for (const Shape& shape : kShapes) {
      for (Layout layout : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
        Tensor t = ref::make_input(shape, dtype, layout);
        INFO("fill_ of " << label(t, layout));
        t.fill_(1);
        ref::check_all(
            t, [](auto&) { return 1.0; }, "fill_");
        t.zero_();
        ref::check_all(
            t, [](auto&) { return 0.0; }, "zero_");
        ref::PoisonScope poison;
        ref::check_all(
            full(shape, 2.5, dtype),
            [&](auto&) { return dtype == kInt64  ? 2.0
                                : dtype == kBool ? 1.0
                                                 : 2.5; }, "full");
        ref::check_all(
            ones(shape, dtype), [](auto&) { return 1.0; }, "ones");
        ref::check_all(
            zeros(shape, dtype), [](auto&) { return 0.0; }, "zeros");
      }
    }
  }
  // Writing to an expanded tensor would write one element many times.
  CHECK_THROWS_AS(zeros({1, 3}).expand({4, 3}).fill_(1), ValueError);
}

void sweep_random(OpId op) {
  for (Dtype dtype : {kFloat32, kFloat64}) {
    manual_seed(7);
    ref::PoisonScope poison;
    Tensor t = op == OpId::rand ? rand({1029, 917}, dtype) : randn({1029, 917}, dtype);
    std::vector<double> v = ref::values(t);
    double mean = 0, sq = 0, lo = INFINITY, hi = -INFINITY;
    for (double x : v) mean += x, sq += x * x, lo = std::min(lo, x), hi = std::max(hi, x);
    mean /= v.size();
    double var = sq / v.size() - mean * mean;
    if (op == OpId::rand) {
      CHECK(lo >= 0.0);
      CHECK(hi < 1.0);
      CHECK(std::fabs(mean - 0.5) < 0.002);
      CHECK(std::fabs(var - 1.0 / 12) < 0.002);
    } else {
      CHECK(std::fabs(mean) < 0.005);
      CHECK(std::fabs(var - 1.0) < 0.005);
      CHECK(lo < -4.0);  // a million normals reach past 4 sigma
      CHECK(hi > 4.0);
    }
    for (const Shape& shape : kShapes) {
      Tensor s = op == OpId::rand ? rand(shape, dtype) : randn(shape, dtype);
      CHECK(s.sizes() == shape);
      for (double x : ref::values(s)) CHECK(std::isfinite(x));
    }
  }
  CHECK_THROWS_AS(rand({2}, kInt64), DtypeError);
}

void sweep_copy() {
  for (Dtype from : ref::all_dtypes()) {
    for (Dtype to : ref::all_dtypes()) {
      for (const Shape& shape : kShapes) {
        for (Layout layout : kLayouts) {
          Tensor src = ref::make_input(shape, from, layout);
          Tensor dst =
              ref::make_input(shape, to, layout == Layout::Expanded ? Layout::Transposed : layout);
          INFO("copy_ of " << label(src, layout) << " into " << describe(dst));
          dst.copy_(src);
          auto cast = [&](double v) {
            if (to == kBool) return v != 0 ? 1.0 : 0.0;
            if (to == kInt64) return std::trunc(v);
            if (to == kFloat32) return static_cast<double>(static_cast<float>(v));
            return v;
          };
          ref::check_all(
              dst, [&](auto& i) { return cast(ref::value(src, i)); }, "copy_");
          ref::PoisonScope poison;
          Tensor converted = src.to(to);
          CHECK(converted.dtype() == to);
          ref::check_all(
              converted, [&](auto& i) { return cast(ref::value(src, i)); }, "to(dtype)");
          ref::check_all(
              src.contiguous(), [&](auto& i) { return ref::value(src, i); }, "contiguous");
        }
      }
    }
  }
  // copy_ broadcasts the source; it can't shrink it.
  Tensor dst = zeros({3, 4});
  dst.copy_(arange(4));
  ref::check_all(
      dst, [](auto& i) { return double(i[1]); }, "broadcast copy_");
  CHECK_THROWS_AS(dst.copy_(ones({2, 4})), ShapeError);
}

// ---- arange: element i is start + i * step, in int64 or in double, then converted ----
void sweep_arange() {
  ref::PoisonScope poison;            // an element the kernel did not write reads as NaN or -1
  const int64_t big = 3 * 32768 + 7;  // past the CPU's parallel grain: split over the threads
  struct Case {
    double start, end, step;
    Dtype dtype;
  };
  for (const Case& c : std::vector<Case>{{0, double(big), 1, kFloat32},
                                         {-3.5, 1000.25, 0.37, kFloat32},
                                         {-3.5, 1000.25, 0.37, kFloat64},
                                         {0.1, double(big) * 0.3, 0.3, kFloat64},
                                         {5, -2, -0.25, kBFloat16},
                                         {1e8, 1e8 + 100, 1, kFloat32}}) {
    INFO("arange(" << c.start << ", " << c.end << ", " << c.step << ", " << c.dtype << ")");
    Tensor t = arange(c.start, c.end, c.step, TensorOptions(c.dtype));
    const auto n = static_cast<int64_t>(std::ceil((c.end - c.start) / c.step));
    REQUIRE(t.sizes() == std::vector<int64_t>{n});
    CHECK(t.dtype() == c.dtype);
    const std::vector<double> got = t.to(kFloat64).to_vector<double>();
    for (int64_t i = 0; i < n; ++i) {
      const double exact = c.start + static_cast<double>(i) * c.step;
      const double want = c.dtype == kFloat32    ? double(float(exact))
                          : c.dtype == kBFloat16 ? double(float(BFloat16(float(exact))))
                                                 : exact;
      if (got[static_cast<size_t>(i)] != want) {
        FAIL_CHECK("element " << i << " is " << got[static_cast<size_t>(i)] << ", expected "
                              << want);
        break;
      }
    }
  }
  // int64 numbers count exactly: near INT64_MAX, with a step whose multiples overflow, and
  // into float64 results (rounded once from the exact integer).
  const int64_t top = std::numeric_limits<int64_t>::max();
  Tensor edge = arange(top - 10 * 3, top, 3);
  REQUIRE(edge.numel() == 10);
  for (int64_t i = 0; i < 10; ++i) CHECK(edge.to_vector<int64_t>()[i] == top - 30 + 3 * i);
  Tensor wide = arange(int64_t{1} << 60, (int64_t{1} << 60) + 4 * big, 4);
  std::vector<int64_t> w = wide.to_vector<int64_t>();
  REQUIRE(static_cast<int64_t>(w.size()) == big);
  for (int64_t i = 0; i < big; i += 997) CHECK(w[i] == (int64_t{1} << 60) + 4 * i);
  // Integer numbers into floating results: each value is the exact int64 start + i * step
  // rounded once to the dtype (bfloat16: to float32, then bfloat16), whether the kernel counts
  // in double (everything under 2^52) or in int64 (a range that crosses 2^52), stepping up or
  // down.
  struct IntCase {
    int64_t start, end, step;
  };
  const int64_t two52 = int64_t{1} << 52;
  for (Dtype dtype : {kFloat32, kFloat64, kBFloat16}) {
    for (const IntCase& c :
         std::vector<IntCase>{{-5, big - 5, 1},
                              {1000, -2 * big, -3},
                              {two52 - 3 * big, two52 + 3 * big, 5},
                              {two52 + 7, two52 - 700, -7},
                              {-(int64_t{1} << 40), int64_t{1} << 40, 12345677}}) {
      INFO("arange(" << c.start << ", " << c.end << ", " << c.step << ", " << dtype << ")");
      const std::vector<double> got =
          arange(c.start, c.end, c.step, TensorOptions(dtype)).to(kFloat64).to_vector<double>();
      REQUIRE(!got.empty());
      for (size_t i = 0; i < got.size(); ++i) {
        const int64_t exact = c.start + static_cast<int64_t>(i) * c.step;
        const auto as_float = static_cast<float>(exact);
        const double want = dtype == kFloat64   ? static_cast<double>(exact)
                            : dtype == kFloat32 ? double(as_float)
                                                : double(float(BFloat16(as_float)));
        if (got[i] != want) {
          FAIL_CHECK("element " << i << " is " << got[i] << ", expected " << want);
          break;
        }
      }
    }
  }
  Tensor as_double =
      arange((int64_t{1} << 53) + 1, (int64_t{1} << 53) + 8, 2, TensorOptions(kFloat64));
  CHECK(as_double.to_vector<double>() == std::vector<double>{9007199254740992.0, 9007199254740996.0,
                                                             9007199254740996.0,
                                                             9007199254741000.0});
}

// ---- cat: every element from its input, cast to the promoted dtype ----
void sweep_cat() {
  ref::PoisonScope poison;  // an element cat did not write reads as NaN (or 255 for bool)
  const std::vector<Shape> parts = {{3, 1, 4}, {3, 5, 4}, {3, 2, 4}};
  for (Dtype first : ref::all_dtypes()) {
    for (Dtype others : ref::all_dtypes()) {
      for (Layout layout : kLayouts) {
        for (int64_t dim = 0; dim < 3; ++dim) {
          // Three inputs with sizes 1, 5 and 2 along dim; the first of another dtype.
          std::vector<Tensor> inputs;
          std::vector<int64_t> starts;
          int64_t total = 0;
          for (size_t k = 0; k < parts.size(); ++k) {
            Shape sizes = {3, 3, 4};
            sizes[dim] = parts[k][1];
            inputs.push_back(ref::make_input(sizes, k == 0 ? first : others, layout));
            starts.push_back(total);
            total += sizes[dim];
          }
          INFO("cat along " << dim << " of " << label(inputs[0], layout) << ", "
                            << describe(inputs[1]) << ", " << describe(inputs[2]));
          const Dtype want_dtype = promote_types(first, others);
          Tensor y = cat(inputs, dim - 3);  // a negative dim wraps
          CHECK(y.dtype() == want_dtype);
          CHECK(y.is_contiguous());
          Shape want_sizes = {3, 3, 4};
          want_sizes[dim] = total;
          REQUIRE(y.sizes() == want_sizes);
          auto cast = [&](double v) {
            if (want_dtype == kFloat32) return static_cast<double>(static_cast<float>(v));
            return v;
          };
          ref::check_all(
              y,
              [&](auto& i) {
                size_t k = 0;
                while (k + 1 < inputs.size() && i[dim] >= starts[k + 1]) ++k;
                std::vector<int64_t> j = i;
                j[dim] -= starts[k];
                return cast(ref::value(inputs[k], j));
              },
              "cat");
        }
      }
    }
  }
  // 1-D, empty parts, and PyTorch's legacy empties ([0] tensors of any dtype are skipped).
  ref::check_all(
      cat({arange(3), arange(0), arange(2)}), [](auto& i) { return i[0] < 3 ? i[0] : i[0] - 3; },
      "cat of 1-D tensors");
  Tensor m = ref::make_input({2, 3}, kFloat64, Layout::Contiguous);
  Tensor joined = cat({zeros({0}, TensorOptions(kInt64)), m, empty({2, 0}), m}, 1);
  CHECK(joined.sizes() == std::vector<int64_t>{2, 6});
  CHECK(joined.dtype() == kFloat64);
  ref::check_all(
      joined,
      [&](auto& i) {
        return ref::value(m, {i[0], i[1] % 3});
      },
      "cat with empties");
  CHECK(cat({zeros({0}), zeros({0}, TensorOptions(kFloat64))}).sizes() == std::vector<int64_t>{0});
}

// stack: equal-sized inputs (the first of another dtype) joined along a new dim.
void sweep_stack() {
  ref::PoisonScope poison;
  for (Dtype first : ref::all_dtypes()) {
    for (Dtype others : ref::all_dtypes()) {
      for (Layout layout : kLayouts) {
        for (int64_t dim = 0; dim <= 3; ++dim) {
          std::vector<Tensor> same;
          for (int k = 0; k < 3; ++k) {
            same.push_back(ref::make_input({3, 5, 4}, k == 0 ? first : others, layout));
          }
          INFO("stack along " << dim << " of " << label(same[0], layout) << " and "
                              << describe(same[1]));
          const Dtype want_dtype = promote_types(first, others);
          Tensor s = stack(same, dim - 4);  // a negative dim wraps over dim() + 1
          CHECK(s.dtype() == want_dtype);
          CHECK(s.is_contiguous());
          REQUIRE(s.dim() == 4);
          REQUIRE(s.size(dim) == 3);
          ref::check_all(
              s,
              [&](auto& i) {
                std::vector<int64_t> j = i;
                const int64_t k = j[dim];
                j.erase(j.begin() + dim);
                const double v = ref::value(same[k], j);
                return want_dtype == kFloat32 ? static_cast<double>(static_cast<float>(v)) : v;
              },
              "stack");
        }
      }
    }
  }
  ref::check_all(
      stack({tensor({1.0}).sum(), tensor({2.0}).sum()}), [](auto& i) { return i[0] + 1.0; },
      "stack of 0-d tensors");
  CHECK(stack({zeros({0, 2}), zeros({0, 2})}, 1).sizes() == std::vector<int64_t>{0, 2, 2});
}

// ---- views: results read the base's elements at the right places ----
void sweep_views(OpId op) {
  for (Dtype dtype : ref::all_dtypes()) {
    for (Layout layout : kLayouts) {
      Tensor x = ref::make_input({4, 5, 6}, dtype, layout);
      INFO(op_name(op) << " of " << label(x, layout));
      Tensor y;
      std::function<double(const std::vector<int64_t>&)> want;
      const Tensor c = x.contiguous();
      const Tensor s = x.select(1, 2).unsqueeze(1);
      switch (op) {
        case OpId::view: {
          y = c.view({5, -1, 2});
          want = [&](auto& i) {
            int64_t flat = i[0] * 24 + i[1] * 2 + i[2];
            return ref::value(c, {flat / 30, flat / 6 % 5, flat % 6});
          };
          break;
        }
        case OpId::transpose:
          y = x.transpose(0, 2);
          want = [&](auto& i) { return ref::value(x, {i[2], i[1], i[0]}); };
          break;
        case OpId::permute:
          y = x.permute({1, 2, 0});
          want = [&](auto& i) { return ref::value(x, {i[2], i[0], i[1]}); };
          break;
        case OpId::expand:
          y = s.expand({2, 4, 7, 6});
          want = [&](auto& i) { return ref::value(s, {i[1], 0, i[3]}); };
          break;
        case OpId::slice:
          y = x.slice(2, 1, 6, 2);
          want = [&](auto& i) { return ref::value(x, {i[0], i[1], 1 + 2 * i[2]}); };
          break;
        case OpId::select:
          y = x.select(1, -1);
          want = [&](auto& i) { return ref::value(x, {i[0], 4, i[1]}); };
          break;
        case OpId::diagonal:  // [4, 6] plane, offset -1 along dim 2: (k + 1, :, k), k < 3
          y = x.diagonal(-1, 2, 0);
          want = [&](auto& i) { return ref::value(x, {i[1], i[0], i[1] + 1}); };
          break;
        case OpId::unfold:  // windows of 3, 2 apart, along dim 2 (of 6): 2 of them
          y = x.unfold(2, 3, 2);
          want = [&](auto& i) { return ref::value(x, {i[0], i[1], 2 * i[2] + i[3]}); };
          break;
        default:
          FAIL("not a view op");
      }
      if (op != OpId::view) CHECK(y.storage() == x.storage());  // no copy
      ref::check_all(y, want, std::string(op_name(op)));
    }
  }
}
