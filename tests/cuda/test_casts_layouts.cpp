// test_casts_layouts.cpp: the GPU's fill, copy and casts between every dtype pair, arange,
// in-place ops on views, result layouts, and the rounding details that must equal the CPU's
// bit for bit (add/sub with alpha, the sign of zero, bfloat16, nextafter). The op sweep itself
// is test_ops.cpp; tolerances as there (docs/cuda-backend.md).
#include <cmath>
#include <limits>

#include "gpu_test.hpp"
#include "layout_cases.hpp"
#include "sweep_check.hpp"

using namespace gpu_test;

TEST_CASE("gpu sweep: fill, copy and casts between every dtype pair", "[sweep]") {
  PoisonScope poison;
  for (Dtype dtype : all_dtypes()) {
    // Factories and fill_ on a strided view.
    for (const Shape& shape : sweep_shapes()) {
      check_close(full(shape, 3, TensorOptions().dtype(dtype).device(kCUDA)),
                  full(shape, 3, TensorOptions().dtype(dtype)), {},
                  "full " + describe(full(shape, 3, dtype)));
      check_close(zeros(shape, TensorOptions().dtype(dtype).device(kCUDA)), zeros(shape, dtype), {},
                  "zeros");
    }
    Pair x = make_input(big2d(), dtype, Layout::Contiguous);
    x.cpu.slice(1, 1, std::nullopt, 3).fill_(7);
    x.gpu.slice(1, 1, std::nullopt, 3).fill_(7);
    check_close(x.gpu, x.cpu, {}, "fill_ on a view with a step");
    // Casts: every source layout, every target dtype; values include NaN, inf and numbers
    // beyond int64 (which become INT64_MIN, as on the CPU).
    for (Dtype to : all_dtypes()) {
      for (Layout layout : all_layouts()) {
        for (Domain domain : {Domain::Any, Domain::Huge}) {
          Pair s = make_input(big2d(), dtype, layout, domain, true);
          check_close(s.gpu.to(to), s.cpu.to(to), {},
                      "cast " + label(s.cpu, layout) + " to " + dtype_name(to));
        }
      }
      // copy_ into a strided destination of another dtype.
      Pair dst = make_input({40, 30}, to, Layout::Strided);
      Pair src = make_input({40, 30}, dtype, Layout::Transposed);
      dst.cpu.copy_(src.cpu);
      dst.gpu.copy_(src.gpu);
      check_close(
          dst.gpu, dst.cpu, {},
          std::string("copy_ ") + dtype_name(dtype) + " into a " + "strided " + dtype_name(to));
    }
    // Broadcasting copy_ and clone of expanded / transposed tensors.
    Pair row = make_input({1, 917}, dtype, Layout::Contiguous);
    Tensor dst_cpu = empty({50, 917}, dtype),
           dst_gpu = empty({50, 917}, TensorOptions().dtype(dtype).device(kCUDA));
    dst_cpu.copy_(row.cpu);
    dst_gpu.copy_(row.gpu);
    check_close(dst_gpu, dst_cpu, {}, "broadcasting copy_");
    for (Layout layout : all_layouts()) {
      Pair t = make_input(big2d(), dtype, layout);
      check_close(t.gpu.clone(), t.cpu.clone(), {}, "clone " + label(t.cpu, layout));
      check_close(t.gpu.contiguous(), t.cpu.contiguous(), {}, "contiguous");
    }
  }
}

TEST_CASE("gpu sweep: arange gives the CPU's values, bit for bit", "[sweep]") {
  PoisonScope poison;
  const int64_t big = small_run() ? 1000 : 3 * 32768 + 7;
  const int64_t top = std::numeric_limits<int64_t>::max();
  struct Case {
    Scalar start, end, step;
    Dtype dtype;
  };
  for (const Case& c : std::vector<Case>{{0, big, 1, kInt64},
                                         {top - 30, top, 3, kInt64},
                                         {int64_t{1} << 53, (int64_t{1} << 53) + 9, 2, kFloat64},
                                         {0, big, 1, kFloat32},
                                         {-3.5, 1000.25, 0.37, kFloat32},
                                         {-3.5, 1000.25, 0.37, kFloat64},
                                         {0.1, 0.3 * static_cast<double>(big), 0.3, kFloat64},
                                         {5.0, -2.0, -0.25, kBFloat16},
                                         {1e8, 1e8 + 100, 1, kFloat32}}) {
    const Tensor cpu = arange(c.start, c.end, c.step, TensorOptions(c.dtype));
    const Tensor gpu = arange(c.start, c.end, c.step, TensorOptions(c.dtype).device(kCUDA));
    CHECK(gpu.dtype() == c.dtype);
    check_close(gpu, cpu, {},
                "arange(" + std::to_string(c.start.to_double()) + ", " +
                    std::to_string(c.end.to_double()) + ", " + std::to_string(c.step.to_double()) +
                    ") of " + dtype_name(c.dtype));
  }
  CHECK(arange(0, TensorOptions().device(kCUDA)).numel() == 0);
}

TEST_CASE("gpu sweep: in-place ops on views", "[sweep]") {
  PoisonScope poison;
  for (Dtype dtype : {kInt64, kFloat32, kFloat64}) {
    Pair a = make_input(big2d(), dtype, Layout::Transposed);
    Pair b = make_input({big2d()[1]}, dtype, Layout::Strided);
    a.cpu.add_(b.cpu);
    a.gpu.add_(b.gpu);
    check_close(a.gpu, a.cpu, {kExact32, 0}, "add_ of a broadcast row into a transposed view");
    a.cpu.mul_(3);
    a.gpu.mul_(3);
    check_close(a.gpu, a.cpu, {kExact32, 0}, "mul_ by a scalar");
    Tensor sub_cpu = a.cpu.narrow(0, 2, 5), sub_gpu = a.gpu.narrow(0, 2, 5);
    sub_cpu.sub_(1);
    sub_gpu.sub_(1);
    check_close(a.gpu, a.cpu, {kExact32, 0}, "sub_ on a narrowed view");
  }
}

TEST_CASE("gpu: results take PyTorch's layouts, with the CPU's values", "[sweep]") {
  // tests/layout_cases.hpp: exp(x.t()) is laid out as x.t() on the GPU too, and walked by the
  // strided kernel in the output's memory order (collapse_in_memory_order).
  PoisonScope poison;
  const layout_cases::Inputs cpu{Device(kCPU)}, gpu{Device(kCUDA)};
  for (const auto& [name, make] : layout_cases::cases()) {
    INFO(name);
    const Tensor on_gpu = make(gpu), on_cpu = make(cpu);
    CHECK(on_gpu.is_cuda());
    CHECK(on_gpu.strides() == on_cpu.strides());
    check_close(on_gpu, on_cpu, tol_for(on_cpu.dtype(), 1e-6, 1e-14), name);
  }
  // Large enough for many blocks: the transposed result and its inputs, in place too.
  Pair a = make_input(big2d(), kFloat32, Layout::Transposed);
  Pair b = make_input(big2d(), kFloat32, Layout::Transposed);
  const Tensor product = a.gpu * b.gpu;
  CHECK(product.strides() == a.gpu.strides());
  check_close(product, a.cpu * b.cpu, {kExact32, 0}, "a.t() * b.t()");
  a.gpu.mul_(b.gpu);
  a.cpu.mul_(b.cpu);
  check_close(a.gpu, a.cpu, {kExact32, 0}, "a.t().mul_(b.t())");
}

TEST_CASE("gpu: add and sub with alpha round once, as on the CPU", "[sweep]") {
  PoisonScope poison;
  // a + alpha * b is one fused multiply-add on both devices (PyTorch's rounding), so the bits
  // agree, contiguous (the vectorised paths) or not.
  for (Dtype dtype : {kFloat32, kFloat64}) {
    for (Layout layout : all_layouts()) {
      Pair a = make_input(big2d(), dtype, layout);
      Pair b = make_input(big2d(), dtype, Layout::Contiguous);
      check_close(add(a.gpu, b.gpu, 0.1), add(a.cpu, b.cpu, 0.1), {},
                  "add with alpha 0.1, " + label(a.cpu, layout));
      check_close(sub(b.gpu, a.gpu, 0.3), sub(b.cpu, a.cpu, 0.3), {},
                  "sub with alpha 0.3, " + label(a.cpu, layout));
    }
    Pair p = make_input(big2d(), dtype, Layout::Contiguous);
    Pair g = make_input(big2d(), dtype, Layout::Contiguous);
    p.gpu.add_(g.gpu, -0.01);
    p.cpu.add_(g.cpu, -0.01);
    check_close(p.gpu, p.cpu, {}, "add_ with alpha -0.01 (SGD's update)");
    // A broadcast row and a 0-d operand (stride 0 on both devices).
    Pair row = make_input({1, big2d()[1]}, dtype, Layout::Contiguous);
    Pair zero_d = make_input({}, dtype, Layout::Contiguous);
    check_close(add(p.gpu, row.gpu, 0.1), add(p.cpu, row.cpu, 0.1), {}, "add with alpha, a row");
    check_close(sub(p.gpu, zero_d.gpu, 0.3), sub(p.cpu, zero_d.cpu, 0.3), {},
                "sub with alpha, a 0-d operand");
  }
}

TEST_CASE("gpu: relu, tanh and pow keep the sign of zero, as on the CPU", "[sweep]") {
  // The sweep compares values, and -0 == 0: the sign is checked here. PyTorch: relu(-0.) and
  // tanh(-0.) are -0., pow(-0., 0.5) is -0. (sqrt) and pow(-inf, 0.5) is nan.
  for (Dtype dtype : {kFloat32, kFloat64}) {
    const Tensor x = tensor({-0.0, 0.0, std::nan(""), -1.0, 2.0}).to(dtype).to(kCUDA);
    const std::vector<double> got = x.relu().to(kCPU).to(kFloat64).to_vector<double>();
    CHECK(std::signbit(got[0]));
    CHECK((got[0] == 0 && got[1] == 0 && !std::signbit(got[1])));
    CHECK(std::isnan(got[2]));
    CHECK((got[3] == 0 && !std::signbit(got[3]) && got[4] == 2));
    CHECK(std::signbit(x.tanh().to(kCPU).to(kFloat64).to_vector<double>()[0]));
    const Tensor edges = tensor({-0.0, -INFINITY}).to(dtype).to(kCUDA);
    const std::vector<double> root = edges.pow(0.5).to(kCPU).to(kFloat64).to_vector<double>();
    CHECK((root[0] == 0 && std::signbit(root[0]) && std::isnan(root[1])));
    const std::vector<double> rsqrt = edges.pow(-0.5).to(kCPU).to(kFloat64).to_vector<double>();
    CHECK((rsqrt[0] == -INFINITY && std::isnan(rsqrt[1])));
  }
}

TEST_CASE("gpu: bfloat16 casts and ops give the CPU's bits", "[bf16]") {
  PoisonScope poison;
  // Casts from and to every dtype, every layout, with NaN, inf and huge values: the GPU rounds
  // exactly as the CPU (through float32, to nearest even), so the results are compared exactly.
  for (Dtype dtype : all_dtypes()) {
    for (Layout layout : all_layouts()) {
      for (Domain domain : {Domain::Any, Domain::Huge}) {
        Pair s = make_input(big2d(), dtype, layout, domain, true);
        check_close(s.gpu.to(kBFloat16), s.cpu.to(kBFloat16), {},
                    "cast " + label(s.cpu, layout) + " to bfloat16");
        Pair h = make_input(big2d(), kBFloat16, layout, domain, true);
        check_close(h.gpu.to(dtype), h.cpu.to(dtype), {},
                    "cast " + label(h.cpu, layout) + " to " + dtype_name(dtype));
      }
    }
  }
  // Ops compute in float32 and round once on both devices: for the correctly rounded ones
  // (+ - * / sqrt, comparisons) the bits agree; on transposed and broadcast operands too.
  Pair a = make_input(big2d(), kBFloat16, Layout::Transposed);
  Pair b = make_input(big2d(), kBFloat16, Layout::Strided);
  Pair row = make_input({1, big2d()[1]}, kBFloat16, Layout::Contiguous, Domain::Positive);
  check_close(a.gpu + b.gpu, a.cpu + b.cpu, {}, "bfloat16 add");
  check_close(a.gpu * row.gpu, a.cpu * row.cpu, {}, "bfloat16 mul, broadcast row");
  check_close(a.gpu / row.gpu, a.cpu / row.cpu, {}, "bfloat16 div");
  check_close(sqrt(row.gpu), sqrt(row.cpu), {}, "bfloat16 sqrt");
  check_close(a.gpu < b.gpu, a.cpu < b.cpu, {}, "bfloat16 lt");
  check_close((a.gpu + 1.5).dtype() == kBFloat16 ? a.gpu + 1.5 : Tensor(), a.cpu + 1.5, {},
              "bfloat16 + a number stays bfloat16");
  Tensor in_place_gpu = a.gpu.clone(), in_place_cpu = a.cpu.clone();
  in_place_gpu.t().mul_(2.0);
  in_place_cpu.t().mul_(2.0);
  check_close(in_place_gpu, in_place_cpu, {}, "bfloat16 mul_ on a transposed view");
  // Functions and accumulations: within one bfloat16 rounding of the CPU (2^-8 relative) plus
  // float32 accumulation order.
  check_close(exp(a.gpu), exp(a.cpu), {0x1p-7, 0}, "bfloat16 exp");
  check_close(softmax(a.gpu, 1), softmax(a.cpu, 1), {0x1p-7, 1e-6}, "bfloat16 softmax");
  check_close(a.gpu.sum(0), a.cpu.sum(0), {0x1p-7, 1e-3}, "bfloat16 sum over dim 0");
  Pair m = make_input({big2d()[1], 40}, kBFloat16, Layout::Transposed);
  Tensor p_gpu = matmul(a.gpu, m.gpu), p_cpu = matmul(a.cpu, m.cpu);
  CHECK(p_gpu.dtype() == kBFloat16);
  // Each product is a sum of K terms of size ~1: float32 order differences stay near 1e-5 of K.
  check_close(p_gpu, p_cpu, {0x1p-7, 1e-5 * static_cast<double>(big2d()[1])}, "bfloat16 matmul");
}

TEST_CASE(
    "gpu: the composite ops (isnan, logical, masked_fill, tril, logsumexp, split) run on "
    "the device as on the CPU",
    "[sweep]") {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = tensor({{1.0, std::nan(""), inf}, {-inf, 0.0, -2.5}});
  const Tensor d = x.to(kCUDA);
  check_close(d.isnan(), x.isnan(), {}, "isnan");
  check_close(d.isinf(), x.isinf(), {}, "isinf");
  check_close(d.isfinite(), x.isfinite(), {}, "isfinite");
  check_close(logical_xor(d, d.t().narrow(0, 0, 1).t()), logical_xor(x, x.t().narrow(0, 0, 1).t()),
              {}, "logical_xor");
  check_close(d.any(1), x.any(1), {}, "any");
  check_close(d.all(), x.all(), {}, "all");
  const Tensor mask = tensor({true, false, true});
  const Tensor filled = d.masked_fill(mask.to(kCUDA), -1.0);
  CHECK(filled.device().is_cuda());
  check_close(filled, x.masked_fill(mask, -1.0), {}, "masked_fill");
  CHECK_THROWS_AS(d.masked_fill(mask, -1.0), DeviceError);
  const Tensor m = randn({2, 5, 4});
  check_close(m.to(kCUDA).tril(-1), m.tril(-1), {}, "tril");
  check_close(m.to(kCUDA).triu(2), m.triu(2), {}, "triu");
  check_close(m.to(kCUDA).logsumexp(Shape{0, 2}, true), m.logsumexp(Shape{0, 2}, true),
              {1e-6, 1e-6}, "logsumexp");
  check_close(x.to(kCUDA).logsumexp(1), x.logsumexp(1), {1e-6, 1e-6}, "logsumexp with inf");
  const std::vector<Tensor> pieces = m.to(kCUDA).chunk(2, 1);
  REQUIRE(pieces.size() == 2);
  check_close(pieces[1], m.chunk(2, 1)[1], {}, "chunk");
  check_close(d.sin(), x.sin(), {2e-7, 1e-7}, "sin with inf and nan");
}

TEST_CASE("gpu: nextafter steps each dtype as the CPU does, bit for bit", "[sweep]") {
  for (Dtype dtype : {kFloat32, kFloat64, kBFloat16}) {
    for (bool specials : {false, true}) {
      Pair a = make_input({812}, dtype, Layout::Strided, Domain::Any, specials);
      Pair b = make_input({812}, dtype, Layout::Contiguous, Domain::Any, specials);
      const Tensor want = nextafter(a.cpu, b.cpu);
      const Tensor got = nextafter(a.gpu, b.gpu).to(kCPU);
      INFO("nextafter of " << describe(a.cpu) << (specials ? " with NaN/inf" : ""));
      REQUIRE(got.dtype() == dtype);
      CHECK(equal(isnan(got), isnan(want)));
      const Tensor zero = zeros({}, dtype);
      CHECK(equal(where(isnan(want), zero, got), where(isnan(want), zero, want)));
    }
  }
}
