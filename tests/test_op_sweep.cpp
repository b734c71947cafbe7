// test_op_sweep.cpp: every op of wick/op_list.hpp x every dtype x the shapes (), (0,),
// (1,0,3), (20,), (812,), (1029,917), broadcast pairs, and non-contiguous inputs (transposed,
// sliced with step, expanded), each compared with the float64 oracle of reference.hpp, with
// debug fill on so that an output element never written reads as NaN (or 255 for bool).
// The sweep walks the op list itself: an op without a sweep case fails the first test.
// CTest runs it as four tests of every fourth op (WICK_SWEEP_SHARD, tests/CMakeLists.txt).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "op_specs.hpp"
#include "reference.hpp"
#include "wick/op_list.hpp"

using namespace wick;
using op_specs::binary_specs;
using op_specs::BinarySpec;
using op_specs::unary_specs;
using op_specs::UnarySpec;
using ref::Domain;
using ref::Layout;

namespace {

const std::vector<Shape> kShapes = {{}, {0}, {1, 0, 3}, {20}, {812}, {1029, 917}};
const std::vector<std::pair<Shape, Shape>> kBroadcastPairs = {
    {{20}, {}}, {{}, {812}}, {{3, 1, 5}, {4, 5}}, {{1029, 1}, {1, 917}}, {{2, 0, 3}, {1, 3}}};
const std::vector<Layout> kLayouts = {Layout::Contiguous, Layout::Transposed, Layout::Strided,
                                      Layout::Expanded};

std::string label(const Tensor& t, Layout l) {
  return describe(t) + " (" + ref::layout_name(l) + ")";
}

Dtype float_of(Dtype d) { return is_floating(d) ? d : kFloat32; }

// ---- unary ----
void sweep_unary(OpId op) {
  UnarySpec spec = unary_specs().at(op);
  for (Dtype dtype : ref::all_dtypes()) {
    for (const Shape& shape : kShapes) {
      for (Layout layout : kLayouts) {
        Tensor x = ref::make_input(shape, dtype, layout, spec.domain);
        INFO(op_name(op) << " of " << label(x, layout));
        if (dtype == kBool && spec.rejects_bool) {
          CHECK_THROWS_AS(spec.run(x), DtypeError);
          continue;
        }
        ref::PoisonScope poison;
        Tensor y = spec.run(x);
        CHECK(y.sizes() == shape);
        CHECK(y.dtype() == (spec.float_result ? float_of(dtype) : dtype));
        // The oracle sees the input rounded as the kernel sees it (float32 for int inputs).
        ref::check_all(
            y,
            [&](const std::vector<int64_t>& i) {
              double v = ref::value(x, i);
              if (y.dtype() == kFloat32) v = static_cast<float>(v);
              return spec.fn(v);
            },
            std::string(op_name(op)));
      }
    }
  }
  // Non-trivial attributes: a fractional exponent promotes int64 to float32; clamp one side.
  Tensor i = ref::make_input({20}, kInt64, Layout::Contiguous, Domain::Positive);
  CHECK(i.pow(0.5).dtype() == kFloat32);
  ref::check_all(
      i.pow(0.5), [&](auto& idx) { return std::sqrt(ref::value(i, idx)); }, "pow 0.5");
  Tensor f = ref::make_input({812}, kFloat64, Layout::Strided);
  ref::check_all(
      f.clamp_min(0.5), [&](auto& idx) { return std::max(ref::value(f, idx), 0.5); }, "clamp_min");
  ref::check_all(
      f.clamp_max(-0.5), [&](auto& idx) { return std::min(ref::value(f, idx), -0.5); },
      "clamp_max");
}

// ---- binary and comparisons ----
void check_binary(OpId op, const BinarySpec& spec, const Tensor& a, const Tensor& b, Layout la,
                  Layout lb) {
  INFO(op_name(op) << " of " << label(a, la) << " and " << label(b, lb));
  Dtype dtype = a.dtype();
  if ((dtype == kBool && spec.rejects_bool) || (!is_floating(dtype) && spec.floating_only)) {
    CHECK_THROWS_AS(spec.run(a, b), DtypeError);
    return;
  }
  ref::PoisonScope poison;
  Tensor y = spec.run(a, b);
  CHECK(y.sizes() == broadcast_shapes(a.sizes(), b.sizes()));
  Dtype want = spec.compare ? kBool : spec.float_result ? float_of(dtype) : dtype;
  CHECK(y.dtype() == want);
  ref::check_all(
      y,
      [&](const std::vector<int64_t>& i) {
        double va = ref::value(a, i), vb = ref::value(b, i);
        if (y.dtype() == kFloat32) va = static_cast<float>(va), vb = static_cast<float>(vb);
        double r = spec.fn(va, vb);
        if (y.dtype() == kBool && !spec.compare) r = r != 0;  // bool add/mul are or/and
        return r;
      },
      std::string(op_name(op)));
}

void sweep_binary(OpId op) {
  BinarySpec spec = binary_specs().at(op);
  for (Dtype dtype : ref::all_dtypes()) {
    for (const Shape& shape : kShapes) {
      for (Layout la : kLayouts) {
        Layout lb = kLayouts[(static_cast<size_t>(la) + 1) % kLayouts.size()];
        Tensor a =
            ref::make_input(shape, dtype, la, op == OpId::pow ? Domain::SmallInt : Domain::Any);
        Tensor b = ref::make_input(shape, dtype, lb, spec.domain_b);
        if (op == OpId::pow && dtype == kInt64) b = b.abs();  // int64 to negative powers: see docs
        check_binary(op, spec, a, b, la, lb);
      }
    }
    for (const auto& [sa, sb] : kBroadcastPairs) {
      Tensor a = ref::make_input(sa, dtype, Layout::Strided,
                                 op == OpId::pow ? Domain::SmallInt : Domain::Any);
      Tensor b = ref::make_input(sb, dtype, Layout::Transposed, spec.domain_b);
      if (op == OpId::pow && dtype == kInt64) b = b.abs();
      check_binary(op, spec, a, b, Layout::Strided, Layout::Transposed);
    }
  }
}

// ---- where ----
void sweep_where() {
  for (Dtype dtype : ref::all_dtypes()) {
    for (const Shape& shape : kShapes) {
      for (Layout layout : kLayouts) {
        Tensor c = ref::make_input(shape, kBool, layout);
        Tensor a = ref::make_input(shape, dtype, Layout::Contiguous);
        Tensor b = ref::make_input({}, dtype, Layout::Contiguous);  // broadcast from 0-d
        INFO("where of " << label(c, layout) << ", " << describe(a) << ", " << describe(b));
        ref::PoisonScope poison;
        Tensor y = where(c, a, b);
        CHECK(y.dtype() == dtype);
        ref::check_all(
            y, [&](auto& i) { return ref::value(c, i) ? ref::value(a, i) : ref::value(b, i); },
            "where");
      }
    }
  }
  CHECK_THROWS_AS(where(ones({2}), ones({2}), ones({2})), DtypeError);
}

// ---- reductions ----
// Reduces x over `dims` (empty = all) in double; returns values (and first-extreme indices).
struct RefReduce {
  Tensor values;  // float64 or int64 on the CPU, keepdim shape
  std::vector<double> index;
};
RefReduce reference_reduce(const Tensor& x, OpId op, const std::vector<int64_t>& dims, bool all) {
  Shape kept = x.sizes();
  std::vector<bool> red(x.sizes().size(), all);
  for (int64_t d : dims) red[d < 0 ? d + x.dim() : d] = true;
  for (size_t d = 0; d < red.size(); ++d) {
    if (red[d]) kept[d] = 1;
  }
  int64_t n_out = ref::numel(kept);
  std::vector<double> acc(static_cast<size_t>(n_out), op == OpId::max   ? -INFINITY
                                                      : op == OpId::min ? INFINITY
                                                                        : 0.0);
  std::vector<double> arg(static_cast<size_t>(n_out), -1), count(static_cast<size_t>(n_out), 0);
  ref::for_each_index(x.sizes(), [&](const std::vector<int64_t>& i) {
    int64_t o = 0, pos = 0;
    for (size_t d = 0; d < i.size(); ++d) {
      o = o * kept[d] + (red[d] ? 0 : i[d]);
      if (red[d]) pos = pos * x.sizes()[d] + i[d];
    }
    double v = ref::value(x, i);
    double& a = acc[o];
    bool first = count[o] == 0;
    count[o] += 1;
    if (op == OpId::sum || op == OpId::mean) {
      a += v;
    } else if (!std::isnan(a) || first) {
      bool better = op == OpId::max ? v > a : v < a;
      if (first || std::isnan(v) || better) {
        a = v;
        arg[o] = static_cast<double>(pos);
      }
    }
  });
  if (op == OpId::mean) {
    for (size_t o = 0; o < acc.size(); ++o) acc[o] /= count[o];
  }
  RefReduce r;
  r.values = wick::tensor(acc, kept, TensorOptions(kFloat64));
  r.index = arg;
  return r;
}

void check_reduce(OpId op, const Tensor& x, Layout layout, std::optional<int64_t> dim,
                  bool keepdim) {
  INFO(op_name(op) << " of " << label(x, layout) << " dim " << (dim ? std::to_string(*dim) : "all")
                   << " keepdim " << keepdim);
  const bool all = !dim.has_value();
  if ((op == OpId::mean) && !is_floating(x.dtype())) {
    CHECK_THROWS_AS(dim ? mean(x, *dim, keepdim) : mean(x), DtypeError);
    return;
  }
  int64_t reduced = 1;
  if (all) {
    reduced = x.numel();
  } else if (x.dim() > 0) {
    reduced = x.sizes()[*dim < 0 ? *dim + x.dim() : *dim];
  }
  if ((op == OpId::max || op == OpId::min) && reduced == 0) {
    CHECK_THROWS_AS(all ? max(x) : std::get<0>(max(x, *dim, keepdim)), IndexError);
    return;
  }
  ref::PoisonScope poison;
  Tensor got, idx;
  if (op == OpId::sum) got = all ? sum(x) : sum(x, *dim, keepdim);
  if (op == OpId::mean) got = all ? mean(x) : mean(x, *dim, keepdim);
  if (op == OpId::max) {
    if (all)
      got = max(x);
    else
      std::tie(got, idx) = max(x, *dim, keepdim);
  }
  if (op == OpId::min) {
    if (all)
      got = min(x);
    else
      std::tie(got, idx) = min(x, *dim, keepdim);
  }
  Dtype want = op == OpId::sum && !is_floating(x.dtype()) ? kInt64 : x.dtype();
  CHECK(got.dtype() == want);
  RefReduce r =
      reference_reduce(x, op, all ? std::vector<int64_t>{} : std::vector<int64_t>{*dim}, all);
  Tensor expected = r.values;
  if (!keepdim || all)
    expected = all ? expected.reshape({}) : (x.dim() > 0 ? expected.squeeze(*dim) : expected);
  REQUIRE(got.sizes() == expected.sizes());
  // Float32 sums over 10^6 elements: the kernel accumulates in double, so only the final
  // rounding differs; 4x the float32 tolerance leaves room for nothing else.
  ref::check_all(
      got, [&](auto& i) { return ref::value(expected, i); }, std::string(op_name(op)), 4.0);
  if (idx.defined()) {
    CHECK(idx.dtype() == kInt64);
    std::vector<double> gi = ref::values(idx);
    REQUIRE(gi.size() == r.index.size());
    for (size_t k = 0; k < gi.size(); ++k) {
      if (gi[k] != r.index[k]) {
        FAIL_CHECK("index " << k << " is " << gi[k] << ", expected " << r.index[k]);
        break;
      }
    }
    // argmax/argmin over the dim agree with the indices of max/min; as in PyTorch they are not
    // implemented for bool (max and min over a dim are).
    auto arg = [&] {
      return op == OpId::max ? argmax(x, *dim, keepdim) : argmin(x, *dim, keepdim);
    };
    if (x.dtype() == kBool) {
      CHECK_THROWS_AS(arg(), DtypeError);
    } else {
      CHECK(ref::values(arg()) == gi);
    }
  }
}

void sweep_reduce(OpId op) {
  for (Dtype dtype : ref::all_dtypes()) {
    for (const Shape& shape : kShapes) {
      for (Layout layout : kLayouts) {
        // Small integers make ties, which test "first index wins".
        Tensor x = ref::make_input(shape, dtype, layout, Domain::SmallInt);
        check_reduce(op, x, layout, std::nullopt, false);
        for (int64_t d = -static_cast<int64_t>(shape.size());
             d < static_cast<int64_t>(shape.size()); ++d) {
          check_reduce(op, x, layout, d, false);
          check_reduce(op, x, layout, d, true);
        }
      }
    }
  }
  // Several dims at once, and NaN propagation.
  Tensor x = ref::make_input({4, 5, 6}, kFloat64, Layout::Transposed);
  if (op == OpId::sum || op == OpId::mean) {
    Tensor got = op == OpId::sum ? sum(x, {0, 2}) : mean(x, {0, 2}, true);
    RefReduce r0 = reference_reduce(x, op, {0, 2}, false);
    ref::check_all(
        got.reshape({5}), [&](auto& i) { return ref::value(r0.values.reshape({5}), i); },
        "multi-dim");
  } else {
    Tensor n = ref::make_input({7}, kFloat32, Layout::Contiguous);
    ref::write_at(n, 3, NAN);
    Tensor got = op == OpId::max ? max(n) : min(n);
    CHECK(std::isnan(got.item<float>()));
    CHECK((op == OpId::max ? argmax(n) : argmin(n)).item<int64_t>() == 3);
  }
}

// ---- softmax ----
void sweep_softmax(OpId op) {
  const bool log_form = op == OpId::log_softmax;
  for (Dtype dtype : ref::all_dtypes()) {
    for (const Shape& shape : kShapes) {
      for (Layout layout : kLayouts) {
        Tensor x = ref::make_input(shape, dtype, layout);
        for (int64_t d = -1; d < static_cast<int64_t>(std::max<size_t>(shape.size(), 1)); ++d) {
          INFO(op_name(op) << " of " << label(x, layout) << " dim " << d);
          auto run = [&] { return log_form ? log_softmax(x, d) : softmax(x, d); };
          if (!is_floating(dtype)) {
            CHECK_THROWS_AS(run(), DtypeError);
            continue;
          }
          ref::PoisonScope poison;
          Tensor y = run();
          CHECK(y.sizes() == shape);
          if (shape.empty()) {
            ref::check_all(
                y, [&](auto&) { return log_form ? 0.0 : 1.0; }, std::string(op_name(op)));
            continue;
          }
          // Each row's max and sum of exp, computed once: rows are indexed by the position
          // with the softmax dim set to 0.
          int64_t wd = d < 0 ? d + static_cast<int64_t>(shape.size()) : d;
          Shape row_shape = shape;
          row_shape[wd] = 1;
          auto row_of = [&](const std::vector<int64_t>& i) {
            int64_t r = 0;
            for (size_t k = 0; k < i.size(); ++k)
              r = r * row_shape[k] + (static_cast<int64_t>(k) == wd ? 0 : i[k]);
            return r;
          };
          std::vector<double> row_max(static_cast<size_t>(ref::numel(row_shape)), -INFINITY);
          std::vector<double> row_total(row_max.size(), 0.0);
          ref::for_each_index(shape, [&](auto& i) {
            double& m = row_max[row_of(i)];
            m = std::max(m, ref::value(x, i));
          });
          ref::for_each_index(shape, [&](auto& i) {
            row_total[row_of(i)] += std::exp(ref::value(x, i) - row_max[row_of(i)]);
          });
          ref::check_all(
              y,
              [&](const std::vector<int64_t>& i) {
                double v = ref::value(x, i) - row_max[row_of(i)];
                return log_form ? v - std::log(row_total[row_of(i)])
                                : std::exp(v) / row_total[row_of(i)];
              },
              std::string(op_name(op)));
        }
      }
    }
  }
  // Large values stay finite (the max is subtracted first).
  Tensor big = wick::tensor({1000.0, 1001.0, 1002.0});
  CHECK(allclose(softmax(big, 0), softmax(big - 1000.0, 0)));
}

// ---- matmul (the full size sweep is in test_matmul.cpp) ----

void sweep_matmul() {
  for (Dtype dtype : {kInt64, kFloat32, kFloat64}) {
    for (auto [sa, sb] : std::vector<std::pair<Shape, Shape>>{{{20}, {20}},
                                                              {{7, 20}, {20}},
                                                              {{20}, {20, 5}},
                                                              {{33, 16}, {16, 7}},
                                                              {{0, 3}, {3, 4}},
                                                              {{3, 0}, {0, 4}},
                                                              {{2, 1, 5, 6}, {3, 6, 4}},
                                                              {{1029, 17}, {17, 9}}}) {
      for (Layout layout : kLayouts) {
        Tensor a = ref::make_input(sa, dtype, layout);
        Tensor b = ref::make_input(sb, dtype, Layout::Transposed);
        INFO("matmul of " << label(a, layout) << " and " << describe(b));
        ref::PoisonScope poison;
        Tensor y = matmul(a, b);
        Tensor want = reference_matmul(a, b);
        REQUIRE(y.sizes() == want.sizes());
        ref::check_all(
            y, [&](auto& i) { return ref::value(want, i); }, "matmul", 10.0);
      }
    }
  }
  CHECK_THROWS_AS(matmul(ones({2, 2}, kBool), ones({2, 2}, kBool)), DtypeError);
}

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
        default:
          FAIL("not a view op");
      }
      if (op != OpId::view) CHECK(y.storage() == x.storage());  // no copy
      ref::check_all(y, want, std::string(op_name(op)));
    }
  }
}

// The ops this run sweeps: all of them, unless WICK_SWEEP_OPS names some (comma-separated; the
// forced-ISA rerun in tests/cpu_gemm sweeps matmul only) or WICK_SWEEP_SHARD=i/n picks ops i,
// i + n, i + 2n, ... of the op list (CTest runs the sweep as n tests, spread over the cores).
std::vector<bool> selected_ops() {
  std::vector<bool> chosen(kNumOps, true);
  if (const char* names = std::getenv("WICK_SWEEP_OPS")) {
    chosen.assign(kNumOps, false);
    std::string list = names;
    for (size_t begin = 0; begin <= list.size();) {
      size_t end = std::min(list.find(',', begin), list.size());
      std::string name = list.substr(begin, end - begin);
      size_t k = 0;
      while (k < kNumOps && kOpNames[k] != name) ++k;
      if (k == kNumOps) FAIL("WICK_SWEEP_OPS names '" << name << "', not an op of the op list");
      chosen[k] = true;
      begin = end + 1;
    }
  }
  if (const char* shard = std::getenv("WICK_SWEEP_SHARD")) {
    int index = -1, count = 0;
    if (std::sscanf(shard, "%d/%d", &index, &count) != 2 || count < 1 || index < 0 ||
        index >= count)
      FAIL("WICK_SWEEP_SHARD is '" << shard << "', not i/n with 0 <= i < n");
    for (size_t k = 0; k < kNumOps; ++k)
      if (static_cast<int>(k % static_cast<size_t>(count)) != index) chosen[k] = false;
  }
  return chosen;
}

}  // namespace

void sweep_layer_norm(OpId op);  // test_layer_norm.cpp

TEST_CASE("op sweep: every op in the op list has a sweep case", "[sweep][ops]") {
  auto unary = unary_specs();
  auto binary = binary_specs();
  const std::vector<bool> chosen = selected_ops();
  REQUIRE(std::count(chosen.begin(), chosen.end(), true) > 0);
  for (size_t k = 0; k < kNumOps; ++k) {
    OpId op = static_cast<OpId>(k);
    if (!chosen[k]) continue;
    DYNAMIC_SECTION("op " << op_name(op)) {
      if (unary.count(op)) {
        sweep_unary(op);
      } else if (binary.count(op)) {
        sweep_binary(op);
      } else {
        switch (op) {
          case OpId::fill:
            sweep_fill();
            break;
          case OpId::arange:
            sweep_arange();
            break;
          case OpId::rand:
          case OpId::randn:
            sweep_random(op);
            break;
          case OpId::copy:
            sweep_copy();
            break;
          case OpId::where:
            sweep_where();
            break;
          case OpId::sum:
          case OpId::mean:
          case OpId::max:
          case OpId::min:
            sweep_reduce(op);
            break;
          case OpId::softmax:
          case OpId::log_softmax:
            sweep_softmax(op);
            break;
          case OpId::layer_norm:
          case OpId::layer_norm_backward:
            sweep_layer_norm(op);
            break;
          case OpId::matmul:
            sweep_matmul();
            break;
          case OpId::cat:
            sweep_cat();
            break;
          case OpId::stack:
            sweep_stack();
            break;
          case OpId::view:
          case OpId::transpose:
          case OpId::permute:
          case OpId::expand:
          case OpId::slice:
          case OpId::select:
            sweep_views(op);
            break;
          default:
            FAIL("op " << op_name(op) << " has no sweep case: add one to test_op_sweep.cpp");
        }
      }
    }
  }
}
