// test_op_sweep.cpp: every op of wick/op_list.hpp x every dtype x the shapes (), (0,),
// (1,0,3), (20,), (812,), (1029,917), broadcast pairs, and non-contiguous inputs (transposed,
// sliced with step, expanded), each compared with the float64 oracle of reference.hpp, with
// debug fill on so that an output element never written reads as NaN (or 255 for bool).
// The sweep walks the op list itself: an op without a sweep case fails the first test.
// Creation, copy, arange, cat, stack and views are swept in test_op_sweep_shapes.cpp, layer_norm
// in test_layer_norm.cpp, index_select and index_add in test_index.cpp, resample in
// test_resample.cpp, gather and scatter_add in test_gather.cpp, scatter_reduce in test_scatter.cpp,
// sort in test_sort.cpp, cumsum, cumprod and prod in test_scan.cpp (sweep_common.hpp declares
// them). CTest runs it as four tests of every fourth op (WICK_SWEEP_SHARD, tests/CMakeLists.txt).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "op_specs.hpp"
#include "reference.hpp"
#include "sweep_common.hpp"
#include "wick/op_list.hpp"

using namespace wick;
using op_specs::binary_specs;
using op_specs::BinarySpec;
using op_specs::unary_specs;
using op_specs::UnarySpec;
using ref::Domain;
using ref::Layout;

namespace {

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
  if ((dtype == kBool && spec.rejects_bool) || (!is_floating(dtype) && spec.floating_only) ||
      (is_floating(dtype) && spec.integer_only)) {
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

// make_input, with NonZero drawn as Positive and then every stored value of the base given a
// random sign. (Done here, not in make_input's loop: that inlined differently and GCC 12 then
// reported a false -Wfree-nonheap-object in other sweeps.)
Tensor make_divisor(const Shape& shape, Dtype dtype, Layout layout, Domain domain) {
  if (domain != Domain::NonZero) return ref::make_input(shape, dtype, layout, domain);
  Tensor t = ref::make_input(shape, dtype, layout, Domain::Positive);
  if (dtype == kBool) return t;
  const int64_t stored = static_cast<int64_t>(t.storage()->nbytes() / element_size(dtype));
  for (int64_t offset = 0; offset < stored; ++offset) {
    if (ref::rng()() & 1) ref::write_at(t, offset, -ref::read_at(t, offset));
  }
  return t;
}

void sweep_binary(OpId op) {
  BinarySpec spec = binary_specs().at(op);
  for (Dtype dtype : ref::all_dtypes()) {
    for (const Shape& shape : kShapes) {
      for (Layout la : kLayouts) {
        Layout lb = kLayouts[(static_cast<size_t>(la) + 1) % kLayouts.size()];
        Tensor a =
            ref::make_input(shape, dtype, la, op == OpId::pow ? Domain::SmallInt : Domain::Any);
        Tensor b = make_divisor(shape, dtype, lb, spec.domain_b);
        if (op == OpId::pow && dtype == kInt64) b = b.abs();  // int64 to negative powers: see docs
        check_binary(op, spec, a, b, la, lb);
      }
    }
    for (const auto& [sa, sb] : kBroadcastPairs) {
      Tensor a = ref::make_input(sa, dtype, Layout::Strided,
                                 op == OpId::pow ? Domain::SmallInt : Domain::Any);
      Tensor b = make_divisor(sb, dtype, Layout::Transposed, spec.domain_b);
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
          case OpId::index_select:
          case OpId::index_add:
            sweep_index(op);
            break;
          case OpId::resample:
          case OpId::resample_backward:
            sweep_resample(op);
            break;
          case OpId::gather:
          case OpId::scatter_add:
            sweep_gather(op);
            break;
          case OpId::scatter_reduce:
            sweep_scatter_reduce();
            break;
          case OpId::sort:
            sweep_sort();
            break;
          case OpId::cumsum:
            sweep_cumsum();
            break;
          case OpId::cumprod:
            sweep_cumprod();
            break;
          case OpId::cummax:
          case OpId::cummin:
            sweep_cum_extreme(op);
            break;
          case OpId::logcumsumexp:
            sweep_logcumsumexp();
            break;
          case OpId::searchsorted:
            sweep_searchsorted();
            break;
          case OpId::lu_factor:
          case OpId::lu_solve:
          case OpId::linalg_solve:
          case OpId::det:
            sweep_linalg(op);
            break;
          case OpId::cholesky_factor:
          case OpId::triangular_solve:
          case OpId::linalg_cholesky:
          case OpId::linalg_solve_triangular:
            sweep_cholesky(op);
            break;
          case OpId::prod:
            sweep_prod();
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
          case OpId::diagonal:
          case OpId::unfold:
            sweep_views(op);
            break;
          default:
            FAIL("op " << op_name(op) << " has no sweep case: add one to test_op_sweep.cpp");
        }
      }
    }
  }
}
