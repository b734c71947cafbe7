// test_bfloat16.cpp: the bfloat16 dtype on the CPU: the rounding of wick::BFloat16 (every bit
// pattern, a million random floats against a rule written here in double), casts to and from
// every dtype, promotion as PyTorch 1.13 gives it, and ops on bfloat16 tensors, which compute
// in float32 and round once: checked against float64 references within one bfloat16 rounding.
#include <bit>
#include <cmath>
#include <limits>
#include <sstream>

#include "reference.hpp"

using namespace wick;

namespace {

// The nearest bfloat16 to f by the definition: the two neighbours bracketing f (the truncation
// and the next one away from zero), the nearer one, ties to the even bit pattern.
uint16_t nearest_bf16(float f) {
  const uint32_t u = std::bit_cast<uint32_t>(f);
  const uint16_t low = static_cast<uint16_t>(u >> 16), high = static_cast<uint16_t>(low + 1);
  const double x = f;
  const double lo = BFloat16::to_float(low);
  const double hi = (high & 0x7f80) == 0x7f80 && (high & 0x7f) == 0
                        ? std::copysign(std::ldexp(1.0, 128), x)  // past the largest: 2^128
                        : static_cast<double>(BFloat16::to_float(high));
  const double d_lo = std::fabs(x - lo), d_hi = std::fabs(hi - x);
  if (d_lo < d_hi) return low;
  if (d_hi < d_lo) return high;
  return (low & 1) == 0 ? low : high;
}

std::vector<float> random_floats(int64_t n, float scale, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = d(g);
  return v;
}

// A bfloat16 tensor of the given values rounded, and the rounded values as double.
struct Bf16Input {
  Tensor t;
  std::vector<double> values;
};
Bf16Input bf16_input(const Shape& shape, float scale, uint64_t seed) {
  const std::vector<float> raw = random_floats(ref::numel(shape), scale, seed);
  Bf16Input in;
  in.t = tensor(raw, shape).to(kBFloat16);
  for (float f : raw) in.values.push_back(static_cast<float>(BFloat16(f)));
  return in;
}

// One bfloat16 rounding of a float32 result: half a unit in the last of 8 significant bits,
// plus float32's own error. `scale` is the size of the terms for sums (cancellation).
bool within_one_rounding(double got, double want, double scale = 0) {
  return std::fabs(got - want) <= std::ldexp(std::fabs(want), -8) + 1e-6 * (scale + 1e-30);
}

}  // namespace

TEST_CASE("bfloat16: every bit pattern widens exactly and rounds back to itself", "[bf16]") {
  int nans = 0;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const float f = BFloat16::to_float(static_cast<uint16_t>(b));
    CHECK(std::bit_cast<uint32_t>(f) == b << 16);
    if (std::isnan(f)) {
      ++nans;
      const uint16_t r = BFloat16::round_from_float(f);
      REQUIRE(std::isnan(BFloat16::to_float(r)));
      REQUIRE((r & 0x8000) == (b & 0x8000));  // the sign survives
    } else {
      REQUIRE(BFloat16::round_from_float(f) == b);
    }
  }
  CHECK(nans == 2 * 127);
}

TEST_CASE("bfloat16: rounding to nearest, ties to even, overflow to infinity", "[bf16]") {
  CHECK(BFloat16(1.0f).bits == 0x3f80);
  CHECK(BFloat16(-2.0f).bits == 0xc000);
  CHECK(BFloat16(1.0f + 0x1p-8f).bits == 0x3f80);                     // tie, even is 1.0
  CHECK(BFloat16(1.0f + 3 * 0x1p-8f).bits == 0x3f82);                 // tie, even is up
  CHECK(BFloat16(1.0f + 0x1p-8f + 0x1p-20f).bits == 0x3f81);          // just past the tie
  CHECK(BFloat16(std::numeric_limits<float>::max()).bits == 0x7f80);  // rounds to +inf
  CHECK(BFloat16(-std::numeric_limits<float>::infinity()).bits == 0xff80);
  CHECK(BFloat16(std::numeric_limits<float>::denorm_min()).bits == 0x0000);
  CHECK(BFloat16(std::bit_cast<float>(0x00018000u)).bits == 0x0002);  // subnormal tie, to even
  CHECK(BFloat16(std::bit_cast<float>(0x7f800001u)).bits == 0x7fc0);  // signalling NaN, quiet
  std::mt19937_64 g(7);
  for (int i = 0; i < 1000000; ++i) {
    const float f = std::bit_cast<float>(static_cast<uint32_t>(g()));
    if (std::isnan(f)) continue;
    const uint16_t want = nearest_bf16(f);
    if (BFloat16::round_from_float(f) != want) {
      FAIL("float bits " << std::hex << std::bit_cast<uint32_t>(f) << " rounds to "
                         << BFloat16::round_from_float(f) << ", nearest is " << want);
    }
  }
}

TEST_CASE("bfloat16 tensors: casts to and from every dtype", "[bf16]") {
  const std::vector<float> raw = {0.0f,       -0.0f,       1.0f,
                                  -3.140625f, 1.00390625f, 65535.0f,
                                  1e-40f,     3.4e38f,     std::numeric_limits<float>::infinity(),
                                  0.5f,       -2.75f};
  Tensor f = tensor(raw);
  Tensor h = f.to(kBFloat16);
  CHECK(h.dtype() == kBFloat16);
  CHECK(h.element_size() == 2);
  CHECK(h.nbytes() == 2 * raw.size());
  const std::vector<BFloat16> bits = h.to_vector<BFloat16>();
  for (size_t i = 0; i < raw.size(); ++i) CHECK(bits[i].bits == BFloat16(raw[i]).bits);
  // Widening is exact: float32 and float64 read the rounded values.
  const std::vector<float> back = h.to(kFloat32).to_vector<float>();
  const std::vector<double> back64 = h.to(kFloat64).to_vector<double>();
  for (size_t i = 0; i < raw.size(); ++i) {
    CHECK(back[i] == static_cast<float>(bits[i]));
    CHECK(back64[i] == static_cast<double>(static_cast<float>(bits[i])));
  }
  // int64: integers up to 256 are exact, larger ones round to 8 significant bits; back by
  // truncation, as torch does.
  Tensor ints = tensor(std::vector<int64_t>{0, 7, -256, 257, 1000001});
  CHECK(ints.to(kBFloat16).to(kFloat32).to_vector<float>() ==
        std::vector<float>{0, 7, -256, 256, 999424});
  CHECK(tensor({2.75, -2.75, 0.5}).to(kBFloat16).to(kInt64).to_vector<int64_t>() ==
        std::vector<int64_t>{2, -2, 0});
  // bool: nonzero is true, NaN included.
  Tensor nan_h = tensor({0.0, std::nan(""), -0.0, 1e-30}).to(kBFloat16);
  CHECK(nan_h.to(kBool).to_vector<bool>() == std::vector<bool>{false, true, false, true});
  CHECK(tensor(std::vector<bool>{true, false}).to(kBFloat16).to(kFloat32).to_vector<float>() ==
        std::vector<float>{1, 0});
  // float64 goes through float32 (c10::BFloat16's constructor takes a float).
  CHECK(tensor({1.0 + 0x1p-8 + 0x1p-40}, kFloat64).to(kBFloat16).to_vector<BFloat16>()[0].bits ==
        0x3f80);
  // Strided and same-dtype copies keep the bits.
  Tensor m = tensor(random_floats(12, 1, 3), {3, 4}).to(kBFloat16);
  Tensor mt = m.t().contiguous();
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      CHECK(ref::value(mt, {j, i}) == ref::value(m, {i, j}));
    }
  }
  CHECK(tensor({-0.0}).to(kBFloat16).item().to_double() == 0.0);
  CHECK(tensor({-3.140625}).to(kBFloat16).item().to_double() == -3.140625);
  CHECK(arange(0, 5, 1, TensorOptions(kBFloat16)).to(kFloat32).to_vector<float>() ==
        std::vector<float>{0, 1, 2, 3, 4});
  CHECK(full({2}, 1.0 / 3.0, kBFloat16).to_vector<BFloat16>()[0].bits == BFloat16(1.0f / 3).bits);
}

TEST_CASE("bfloat16 promotion follows PyTorch", "[bf16][dtype]") {
  Tensor h = ones({2}, kBFloat16), f = ones({2}), d = ones({2}, kFloat64), i = ones({2}, kInt64);
  CHECK(promote_types(kBFloat16, kFloat32) == kFloat32);
  CHECK(promote_types(kInt64, kBFloat16) == kBFloat16);
  CHECK(promote_types(kBool, kBFloat16) == kBFloat16);
  CHECK((h + f).dtype() == kFloat32);
  CHECK((h + d).dtype() == kFloat64);
  CHECK((h + i).dtype() == kBFloat16);
  CHECK((h + 1.5).dtype() == kBFloat16);
  CHECK((h * scalar_tensor(2.0)).dtype() == kBFloat16);  // a 0-d float32 does not win
  CHECK((scalar_tensor(2.0, kBFloat16) + f).dtype() == kFloat32);
  CHECK((h < f).dtype() == kBool);
  CHECK(is_floating(kBFloat16));
  CHECK(std::string(dtype_name(kBFloat16)) == "bfloat16");
  Tensor h2 = ones({2}, kBFloat16);
  CHECK_THROWS_AS(i.add_(h2), DtypeError);  // bfloat16 into int64 in place
  std::ostringstream s;
  s << tensor({1.5, -2.0}).to(kBFloat16);
  CHECK(s.str().find("dtype=bfloat16") != std::string::npos);
}

TEST_CASE("ops on bfloat16 compute in float32 and round once", "[bf16]") {
  const Bf16Input a = bf16_input({33, 17}, 1.0f, 11), b = bf16_input({33, 17}, 1.0f, 12);
  struct Case {
    const char* name;
    Tensor got;
    std::function<double(double, double)> want;
  };
  const Tensor bt = b.t + 2.0f;  // keeps divisors away from 0
  const std::vector<Case> cases = {
      {"add", a.t + b.t, [](double x, double y) { return x + y; }},
      {"mul", a.t * b.t, [](double x, double y) { return x * y; }},
      {"div", a.t / bt,
       [](double x, double y) {
         return x / static_cast<float>(BFloat16(static_cast<float>(y + 2.0)));
       }},
      {"exp", exp(a.t), [](double x, double) { return std::exp(x); }},
      {"tanh", tanh(a.t), [](double x, double) { return std::tanh(x); }},
      {"sigmoid", sigmoid(a.t), [](double x, double) { return 1 / (1 + std::exp(-x)); }},
      {"relu", relu(a.t), [](double x, double) { return x > 0 ? x : 0; }},
      {"pow", pow(a.t, 2.0), [](double x, double) { return x * x; }},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    REQUIRE(c.got.dtype() == kBFloat16);
    const std::vector<double> got = ref::values(c.got);
    int bad = 0;
    for (size_t k = 0; k < got.size(); ++k) {
      const double want = c.want(a.values[k], b.values[k]);
      if (!within_one_rounding(got[k], want) && bad++ < 3) {
        FAIL_CHECK("element " << k << ": " << got[k] << ", expected " << want);
      }
      // Exactly one rounding: the result is a bfloat16 value.
      REQUIRE(static_cast<float>(BFloat16(static_cast<float>(got[k]))) == got[k]);
    }
    CHECK(bad == 0);
  }
  // Reductions, softmax and matmul accumulate in float32.
  double total = 0, abs_total = 0;
  for (double x : a.values) {
    total += x;
    abs_total += std::fabs(x);
  }
  const Tensor s = a.t.sum();
  CHECK(s.dtype() == kBFloat16);
  CHECK(within_one_rounding(s.item().to_double(), total, abs_total));
  const Tensor sm = softmax(a.t, 1);
  CHECK(sm.dtype() == kBFloat16);
  for (int64_t r = 0; r < 33; ++r) {
    double z = 0;
    for (int64_t j = 0; j < 17; ++j) z += std::exp(a.values[static_cast<size_t>(r * 17 + j)]);
    for (int64_t j = 0; j < 17; ++j) {
      const double want = std::exp(a.values[static_cast<size_t>(r * 17 + j)]) / z;
      CHECK(within_one_rounding(ref::value(sm, {r, j}), want));
    }
  }
  const Bf16Input m = bf16_input({17, 9}, 1.0f, 13);
  const Tensor p = matmul(a.t, m.t);
  CHECK(p.dtype() == kBFloat16);
  for (int64_t r = 0; r < 33; ++r) {
    for (int64_t c = 0; c < 9; ++c) {
      double want = 0, scale = 0;
      for (int64_t k = 0; k < 17; ++k) {
        const double term =
            a.values[static_cast<size_t>(r * 17 + k)] * m.values[static_cast<size_t>(k * 9 + c)];
        want += term;
        scale += std::fabs(term);
      }
      CHECK(within_one_rounding(ref::value(p, {r, c}), want, scale));
    }
  }
}

TEST_CASE("numbers in bfloat16 ops take bfloat16 values first, as in PyTorch", "[bf16]") {
  // Golden values from PyTorch 1.13 (python3-torch, CPU): the number becomes a bfloat16 before
  // the float32 computation, whether it is an operand (-0.1 + 0.1 is 0) or an attribute
  // (pow's exponent 88.7 is 88.5 and 257 is 256; clamp's bound 0.1 is 0.10009765625).
  const Tensor x = tensor({-0.1, 1.0, 100.0, 2.5}).to(kBFloat16);
  CHECK((x + 0.1).to_vector<double>() == std::vector<double>{0.0, 1.1015625, 100.0, 2.59375});
  CHECK((x * 0.1).to_vector<double>() ==
        std::vector<double>{-0.010009765625, 0.10009765625, 10.0, 0.25});
  CHECK(eq(abs(x), 0.1).to_vector<double>() == std::vector<double>{1, 0, 0, 0});
  const Tensor two_and_a_half = tensor({2.5}).to(kBFloat16);
  CHECK(pow(two_and_a_half, 88.7).item<double>() == 1.6485542525848078e+35);
  CHECK(pow(two_and_a_half, 88.7).item<double>() == pow(two_and_a_half, 88.5).item<double>());
  const Tensor near_one = tensor({1.0078125}).to(kBFloat16);
  CHECK(pow(near_one, 257).item<double>() == 7.34375);
  CHECK(pow(near_one, 257).item<double>() == pow(near_one, 256).item<double>());
  CHECK(clamp(x, 0.1, std::nullopt).to_vector<double>() ==
        std::vector<double>{0.10009765625, 1.0, 100.0, 2.5});
  CHECK(clamp(tensor({300.0}).to(kBFloat16), std::nullopt, 257).item<double>() == 256.0);
  // float32 keeps the number as a float32.
  CHECK(pow(tensor({2.5f}), 88.7).item<double>() != pow(tensor({2.5f}), 88.5).item<double>());
}

TEST_CASE("add and sub with alpha on bfloat16 round once, as in PyTorch", "[bf16]") {
  // PyTorch 1.13 computes a + alpha * b for two bfloat16 tensors in float32 with alpha rounded
  // to bfloat16, and rounds the sum once; a multiply then an add would round twice and give
  // -0.46875, 1.234375, -0.21484375, 0.3125 for the first four. Golden values from
  // torch.add(a, b, alpha=0.1) and torch.sub(a, b, alpha=0.3) (python3-torch, CPU).
  const Tensor a = tensor({-0.31640625, 1.390625, -0.2890625, 0.177734375}).to(kBFloat16);
  const Tensor b = tensor({-1.5078125, -1.6015625, 0.734375, 1.359375}).to(kBFloat16);
  const std::vector<double> want_add{-0.466796875, 1.2265625, -0.2158203125, 0.314453125};
  CHECK(add(a, b, 0.1).to_vector<double>() == want_add);
  CHECK(add(a, b, 0.1).dtype() == kBFloat16);
  Tensor in_place = a.clone();
  in_place.add_(b, 0.1);
  CHECK(in_place.to_vector<double>() == want_add);
  const Tensor c = tensor({0.349609375, 0.11962890625, -0.2470703125, -1.5546875}).to(kBFloat16);
  const Tensor d = tensor({1.703125, 0.97265625, -0.62890625, 0.55859375}).to(kBFloat16);
  const std::vector<double> want_sub{-0.1630859375, -0.1728515625, -0.057861328125, -1.7265625};
  CHECK(c.sub(d, 0.3).to_vector<double>() == want_sub);
  Tensor c_in_place = c.clone();
  c_in_place.sub_(d, 0.3);
  CHECK(c_in_place.to_vector<double>() == want_sub);
  // A 0-d b too: PyTorch keeps the product in float32 beside a tensor with dims.
  const Tensor e = tensor({-1.609375, 1.6875}).to(kBFloat16);
  const Tensor f = scalar_tensor(-1.6015625).to(kBFloat16);
  const std::vector<double> want_0d{-1.7734375, 1.5234375};
  CHECK(add(e, f, 0.1).to_vector<double>() == want_0d);
  Tensor e_in_place = e.clone();
  e_in_place.add_(f, 0.1);
  CHECK(e_in_place.to_vector<double>() == want_0d);
  // Gradients flow through the float32 product: d(a + alpha b)/db = alpha (0.1 as bfloat16).
  Tensor x = a.clone().requires_grad_(true), y = b.clone().requires_grad_(true);
  add(x, y, 0.1).sum().backward();
  CHECK(y.grad().dtype() == kBFloat16);
  CHECK(y.grad().to_vector<double>() == std::vector<double>(4, 0.10009765625));
  CHECK(x.grad().to_vector<double>() == std::vector<double>(4, 1.0));
}

TEST_CASE("bfloat16 in place, on views, and through autograd", "[bf16][autograd]") {
  const Bf16Input a = bf16_input({4, 5}, 1.0f, 21);
  Tensor x = a.t.clone();
  x.t().add_(1.0);  // a transposed view of bfloat16, written in place
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      const float want = static_cast<float>(BFloat16(static_cast<float>(a.values[i * 5 + j] + 1)));
      CHECK(ref::value(x, {i, j}) == want);
    }
  }
  Tensor w = tensor({1.5, -2.0, 0.25}).to(kBFloat16).requires_grad_();
  (w * w).sum().backward();
  REQUIRE(w.grad().defined());
  CHECK(w.grad().dtype() == kBFloat16);
  CHECK(w.grad().to(kFloat32).to_vector<float>() == std::vector<float>{3.0f, -4.0f, 0.5f});
}

namespace {

// A bfloat16 tensor's bit patterns, in row-major order.
std::vector<uint16_t> bf16_bits(const Tensor& t) {
  const Tensor c = t.contiguous();
  std::vector<uint16_t> bits(static_cast<size_t>(c.numel()));
  // (An empty tensor may have no data pointer: memcpy must not see it.)
  if (!bits.empty()) std::memcpy(bits.data(), c.raw_data(), bits.size() * sizeof(uint16_t));
  return bits;
}

// got and want hold the same bits, any NaN matching any NaN (neither library promises a payload).
void check_same_bits(const Tensor& got, const Tensor& want) {
  REQUIRE(got.dtype() == want.dtype());
  REQUIRE(got.sizes() == want.sizes());
  if (got.dtype() == kBool) {
    CHECK(got.to_vector<bool>() == want.to_vector<bool>());
    return;
  }
  REQUIRE(got.dtype() == kBFloat16);
  const std::vector<uint16_t> g = bf16_bits(got), w = bf16_bits(want);
  int bad = 0;
  for (size_t k = 0; k < g.size(); ++k) {
    const float gf = BFloat16::to_float(g[k]), wf = BFloat16::to_float(w[k]);
    const bool same = g[k] == w[k] || (std::isnan(gf) && std::isnan(wf));
    if (!same && bad++ < 3) {
      FAIL_CHECK("element " << k << ": bits " << g[k] << " (" << gf << "), expected " << w[k]
                            << " (" << wf << ")");
    }
  }
  CHECK(bad == 0);
}

// bfloat16 values covering the edges: both zeros, both infinities, NaN, the largest finite
// value, subnormals, values near 1 and spread normals.
std::vector<float> edge_values(int64_t n, uint64_t seed) {
  const std::vector<float> special{0.0f,
                                   -0.0f,
                                   std::numeric_limits<float>::infinity(),
                                   -std::numeric_limits<float>::infinity(),
                                   std::numeric_limits<float>::quiet_NaN(),
                                   BFloat16::to_float(0x7f7f),  // the largest finite bfloat16
                                   BFloat16::to_float(0x0001),  // the smallest subnormal
                                   -BFloat16::to_float(0x0040),
                                   1.0f,
                                   -1.0f,
                                   1.0078125f,
                                   0.5f};
  std::vector<float> v = random_floats(n, 3.0f, seed);
  std::mt19937_64 g(seed + 1);
  for (size_t k = 0; k < v.size(); ++k) {
    if (g() % 8 == 0) v[k] = special[g() % special.size()];
  }
  return v;
}

}  // namespace

TEST_CASE("bfloat16 elementwise kernels give the float32 result's bits, rounded once",
          "[bf16][loops]") {
  // The CPU's elementwise kernels widen bfloat16 in registers (kernels/cpu/loops.hpp,
  // in_compute_type); the reference widens whole tensors to float32, runs the float32 op and
  // rounds its result. Sizes cover runs below and above the clones' and the repeated-operand
  // thresholds (32 and 64 elements) and the parallel split (2^16 elements); the layouts are
  // contiguous, a broadcast row (stride 0), a 0-d operand, a transposed operand and in place.
  for (int64_t cols : {int64_t{7}, int64_t{33}, int64_t{100}, int64_t{70001}}) {
    const int64_t rows = cols > 1000 ? 2 : 5;
    INFO("rows " << rows << ", cols " << cols);
    const Tensor a32 =
        tensor(edge_values(rows * cols, 21), {rows, cols}).to(kBFloat16).to(kFloat32);
    const Tensor b32 =
        tensor(edge_values(rows * cols, 22), {rows, cols}).to(kBFloat16).to(kFloat32);
    const Tensor row32 = tensor(edge_values(cols, 23), {1, cols}).to(kBFloat16).to(kFloat32);
    const Tensor zero_d32 = scalar_tensor(-1.5f);
    const Tensor at32 = tensor(edge_values(rows * cols, 24), {cols, rows})
                            .to(kBFloat16)
                            .to(kFloat32)
                            .transpose(0, 1);
    const Tensor a = a32.to(kBFloat16), b = b32.to(kBFloat16), row = row32.to(kBFloat16),
                 zero_d = zero_d32.to(kBFloat16), at = at32.to(kBFloat16);
    const Tensor mask = gt(b, a);
    using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;
    const std::vector<std::pair<const char*, Binary>> binaries = {
        {"add", [](const Tensor& x, const Tensor& y) { return add(x, y); }},
        {"sub", [](const Tensor& x, const Tensor& y) { return sub(x, y); }},
        {"mul", [](const Tensor& x, const Tensor& y) { return mul(x, y); }},
        {"div", [](const Tensor& x, const Tensor& y) { return div(x, y); }},
        {"pow", [](const Tensor& x, const Tensor& y) { return pow(x, y); }},
        {"maximum", [](const Tensor& x, const Tensor& y) { return maximum(x, y); }},
        {"minimum", [](const Tensor& x, const Tensor& y) { return minimum(x, y); }},
        {"sigmoid_backward",
         [](const Tensor& x, const Tensor& y) { return sigmoid_backward(x, y); }},
        {"tanh_backward", [](const Tensor& x, const Tensor& y) { return tanh_backward(x, y); }},
        // alpha 0.3 is 0.30078125 in bfloat16, which both forms use.
        {"add alpha", [](const Tensor& x, const Tensor& y) { return add(x, y, 0.30078125); }},
        {"sub alpha", [](const Tensor& x, const Tensor& y) { return sub(x, y, 0.30078125); }},
        {"eq", [](const Tensor& x, const Tensor& y) { return eq(x, y); }},
        {"ne", [](const Tensor& x, const Tensor& y) { return ne(x, y); }},
        {"lt", [](const Tensor& x, const Tensor& y) { return lt(x, y); }},
        {"le", [](const Tensor& x, const Tensor& y) { return le(x, y); }},
        {"gt", [](const Tensor& x, const Tensor& y) { return gt(x, y); }},
        {"ge", [&](const Tensor& x, const Tensor& y) { return ge(x, y); }},
        {"where", [&](const Tensor& x, const Tensor& y) { return where(mask, x, y); }},
    };
    const auto narrow = [](const Tensor& t) { return t.dtype() == kBool ? t : t.to(kBFloat16); };
    for (const auto& [name, op] : binaries) {
      INFO(name);
      check_same_bits(op(a, b), narrow(op(a32, b32)));
      check_same_bits(op(a, row), narrow(op(a32, row32)));
      check_same_bits(op(row, a), narrow(op(row32, a32)));
      check_same_bits(op(zero_d, b), narrow(op(zero_d32, b32)));
      check_same_bits(op(at, b), narrow(op(at32, b32)));
    }
    Tensor in_place = a.clone();
    in_place.add_(b, 0.30078125);
    check_same_bits(in_place, add(a32, b32, 0.30078125).to(kBFloat16));
    using Unary = std::function<Tensor(const Tensor&)>;
    const std::vector<std::pair<const char*, Unary>> unaries = {
        {"neg", [](const Tensor& x) { return neg(x); }},
        {"abs", [](const Tensor& x) { return abs(x); }},
        {"exp", [](const Tensor& x) { return exp(x); }},
        {"log", [](const Tensor& x) { return log(x); }},
        {"sqrt", [](const Tensor& x) { return sqrt(x); }},
        {"relu", [](const Tensor& x) { return relu(x); }},
        {"sigmoid", [](const Tensor& x) { return sigmoid(x); }},
        {"tanh", [](const Tensor& x) { return tanh(x); }},
        {"pow 0.5", [](const Tensor& x) { return pow(x, 0.5); }},
        {"pow -0.5", [](const Tensor& x) { return pow(x, -0.5); }},
        {"pow -1", [](const Tensor& x) { return pow(x, -1.0); }},
        {"pow 2", [](const Tensor& x) { return pow(x, 2.0); }},
        {"pow 1.75", [](const Tensor& x) { return pow(x, 1.75); }},
        {"clamp", [](const Tensor& x) { return clamp(x, -0.5, 0.5); }},
        {"clamp_min", [](const Tensor& x) { return clamp_min(x, -0.5); }},
        {"clamp_max", [](const Tensor& x) { return clamp_max(x, 0.5); }},
        {"clamp NaN bound",
         [](const Tensor& x) { return clamp(x, std::numeric_limits<double>::quiet_NaN(), 0.5); }},
    };
    for (const auto& [name, op] : unaries) {
      INFO(name);
      check_same_bits(op(a), op(a32).to(kBFloat16));
      check_same_bits(op(at), op(at32).to(kBFloat16));
      check_same_bits(op(row.expand({rows, cols})), op(row32.expand({rows, cols})).to(kBFloat16));
    }
    // pow(x, 3) and pow(x, -2) round their product x * x to bfloat16 first, as PyTorch's CPU
    // kernel does: the same bits as those steps as bfloat16 ops.
    for (const Tensor& x : {a, at}) {
      check_same_bits(pow(x, 3.0), mul(mul(x, x), x));
      check_same_bits(pow(x, -2.0), pow(mul(x, x), -1.0));
    }
  }
}

TEST_CASE("bfloat16 reductions give the float32 result's bits, rounded once", "[bf16][reduce]") {
  // reduce.cpp sums contiguous bfloat16 itself (vec::sum_bf16: sum_f32's lanes over widened
  // elements) and hands the other reductions float32 copies; either way the result is the
  // float32 kernel's on the widened input, rounded once more. 70001 columns cross the blocked
  // sums' 16384 and the parallel split.
  for (int64_t cols : {int64_t{5}, int64_t{37}, int64_t{1000}, int64_t{70001}}) {
    const int64_t rows = cols > 1000 ? 3 : 20;
    INFO("rows " << rows << ", cols " << cols);
    std::vector<float> values = random_floats(rows * cols, 3.0f, 31);
    const Tensor a32 = tensor(values, {rows, cols}).to(kBFloat16).to(kFloat32);
    const Tensor a = a32.to(kBFloat16);
    const Tensor at32 = a32.transpose(0, 1), at = a.transpose(0, 1);
    using Reduction = std::function<Tensor(const Tensor&)>;
    const std::vector<std::pair<const char*, Reduction>> reductions = {
        {"sum", [](const Tensor& x) { return sum(x); }},
        {"sum -1", [](const Tensor& x) { return sum(x, -1); }},
        {"sum 0", [](const Tensor& x) { return sum(x, 0); }},
        {"sum {0, 1}",
         [](const Tensor& x) {
           return sum(x, Shape{0, 1});
         }},
        {"amax 0", [](const Tensor& x) { return amax(x, 0); }},
        {"amax -1", [](const Tensor& x) { return amax(x, -1); }},
        {"max", [](const Tensor& x) { return max(x); }},
    };
    for (const auto& [name, op] : reductions) {
      INFO(name);
      check_same_bits(op(a), op(a32).to(kBFloat16));
      check_same_bits(op(at), op(at32).to(kBFloat16));
    }
    // A mean is the bfloat16 sum divided by the count as a bfloat16 number, as in PyTorch.
    for (const Tensor& x : {a, at}) {
      const double n = static_cast<double>(x.numel());
      check_same_bits(mean(x), div(sum(x), n));
      check_same_bits(mean(x, -1, true), div(sum(x, -1, true), static_cast<double>(x.sizes()[1])));
      check_same_bits(mean(x, 0), div(sum(x, 0), static_cast<double>(x.sizes()[0])));
    }
  }
  // NaN and infinities pass through the sums; an empty sum is 0 and an empty mean NaN.
  const Tensor edges = tensor(edge_values(4000, 32), {4000}).to(kBFloat16);
  check_same_bits(sum(edges), sum(edges.to(kFloat32)).to(kBFloat16));
  const Tensor empty = zeros({0, 3}, kBFloat16);
  check_same_bits(sum(empty, 0), zeros({3}, kBFloat16));
  CHECK(std::isnan(mean(empty, 0).to_vector<float>()[0]));
}

TEST_CASE("bfloat16 softmax and log_softmax give the float32 result's bits, rounded once",
          "[bf16][softmax]") {
  // softmax.cpp widens contiguous bfloat16 a row (or a block of side-by-side rows) at a time
  // into float32 buffers and runs the float32 code there; other layouts get whole float32
  // copies. Either way: the float32 op on the widened input, rounded once. Shapes: rows along
  // the last dim below and above the lanes and the parallel grain, side-by-side rows (a dim
  // that is not last) narrower and wider than the 64-column blocks, a dim of size 1, a
  // transposed input, edge values (NaN, infinities, huge), a row of -inf, and empty tensors.
  struct Case {
    Shape shape;
    int64_t dim;
    bool edges;
  };
  const std::vector<Case> cases = {
      {{7, 1}, 1, false},    {{5, 37}, 1, false},    {{3, 1000}, -1, false}, {{2, 70001}, 1, false},
      {{1500, 40}, 1, true}, {{37, 3}, 0, false},    {{9, 100}, 0, true},    {{2, 5, 70}, 1, false},
      {{4, 1, 6}, 1, false}, {{300, 130}, 0, false}, {{0, 4}, 1, false},     {{3, 0}, 0, false},
  };
  for (const Case& c : cases) {
    INFO("shape " << c.shape.size() << "-d, numel " << ref::numel(c.shape) << ", dim " << c.dim);
    const int64_t numel = ref::numel(c.shape);
    const std::vector<float> values =
        c.edges ? edge_values(numel, 41) : random_floats(numel, 4.0f, 42);
    const Tensor a32 = tensor(values, c.shape).to(kBFloat16).to(kFloat32);
    const Tensor a = a32.to(kBFloat16);
    check_same_bits(softmax(a, c.dim), softmax(a32, c.dim).to(kBFloat16));
    check_same_bits(log_softmax(a, c.dim), log_softmax(a32, c.dim).to(kBFloat16));
    if (c.shape.size() == 2) {
      const Tensor at32 = a32.transpose(0, 1), at = a.transpose(0, 1);
      check_same_bits(softmax(at, c.dim), softmax(at32, c.dim).to(kBFloat16));
      check_same_bits(log_softmax(at, c.dim), log_softmax(at32, c.dim).to(kBFloat16));
    }
  }
  // A row of -inf is NaN throughout (0 / 0), as in PyTorch; its neighbours are unaffected.
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor rows =
      tensor(std::vector<float>{-inf, -inf, -inf, 0.0f, 1.0f, 2.0f}, {2, 3}).to(kBFloat16);
  const std::vector<float> got = softmax(rows, 1).to(kFloat32).to_vector<float>();
  for (int j = 0; j < 3; ++j) CHECK(std::isnan(got[static_cast<size_t>(j)]));
  check_same_bits(softmax(rows, 1).narrow(0, 1, 1),
                  softmax(rows.to(kFloat32), 1).narrow(0, 1, 1).to(kBFloat16));
}

TEST_CASE("bfloat16 pow(x, 3), pow(x, -2) and mean round as PyTorch's CPU kernels", "[bf16]") {
  // Golden values from PyTorch 1.13 (python3-torch, CPU). Its bfloat16 pow(x, 3) is (x * x) * x
  // and pow(x, -2) is 1 / (x * x), each product rounded to bfloat16; rounding the float32 power
  // once would give 0.00101470947265625, 0.00106048583984375 and 99.0, 95.0. Its mean is the
  // bfloat16 sum divided by the count as a bfloat16 number; the float32 mean rounded once
  // would give 1.3671875, -0.81640625 and 1.140625.
  const Tensor x = tensor({0.1005859375, 0.10205078125}).to(kBFloat16);
  CHECK(pow(x, 3.0).to_vector<double>() ==
        std::vector<double>{0.0010223388671875, 0.001068115234375});
  const Tensor y = tensor({0.1005859375, 0.1025390625}).to(kBFloat16);
  CHECK(pow(y, -2.0).to_vector<double>() == std::vector<double>{98.5, 95.5});
  CHECK(mean(tensor({0.828125, 1.078125, 2.203125}).to(kBFloat16)).item<double>() == 1.375);
  CHECK(mean(tensor({-1.7890625, 1.8046875, -3.90625, 2.84375, -3.03125}).to(kBFloat16))
            .item<double>() == -0.8125);
  const Tensor rows = tensor(
      std::vector<double>{0.443359375, -2.71875, 5.6875, 0.828125, 1.078125, 2.203125}, {2, 3});
  CHECK(mean(rows.to(kBFloat16), 1).to_vector<double>() == std::vector<double>{1.1328125, 1.375});
  // float32 keeps one rounding.
  CHECK(pow(tensor({0.1005859375f}), 3.0).item<double>() ==
        static_cast<double>(0.1005859375f * 0.1005859375f * 0.1005859375f));
}

TEST_CASE("bfloat16 sin, cos, tan: large arguments take libm's reduction", "[bf16]") {
  // The chunked loop (vec_kernels.cpp map_bf16_block) once wrote its results over its
  // arguments, so trig_f32's second pass tested the results for |x| >= 2^20: sin(1e30) gave
  // NaN and cos(4.9e16) -4192 (found by review). bfloat16 trig is float32's of the widened
  // value, rounded once: contiguous, strided and float32 rounded must agree.
  std::vector<float> values;
  for (int e = -3; e <= 127; e += 2) values.push_back(std::ldexp(1.37f, e));
  values.push_back(1e30f);
  values.push_back(4.9e16f);
  values.push_back(-3e20f);
  const Tensor x = tensor(values).to(kBFloat16);
  const Tensor widened = x.to(kFloat32);
  CHECK(equal(sin(x), sin(widened).to(kBFloat16)));
  CHECK(equal(cos(x), cos(widened).to(kBFloat16)));
  CHECK(equal(tan(x), tan(widened).to(kBFloat16)));
  const Tensor every_other = x.slice(0, 0, x.size(0), 2);
  CHECK(equal(sin(every_other), sin(every_other.contiguous())));
  CHECK(std::abs(cos(tensor({4.9e16f}).to(kBFloat16)).to(kFloat32).item<float>()) <= 1.0f);
}
