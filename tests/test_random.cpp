// test_random.cpp: Philox-4x32-10 against the published known-answer vectors (Random123's
// kat_vectors), and the properties wick promises: manual_seed makes runs repeatable, element
// i depends only on (seed, offset, i) (so thread count and tensor shape don't matter), and
// successive calls continue the stream instead of repeating it.
#include "reference.hpp"
#include "wick/philox.hpp"

using namespace wick;

TEST_CASE("philox: known-answer vectors", "[random]") {
  struct Kat {
    philox::Block counter;
    uint32_t k0, k1;
    philox::Block expected;
  };
  const Kat kats[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       0xffffffff,
       0xffffffff,
       {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       0xa4093822,
       0x299f31d0,
       {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const Kat& kat : kats) {
    philox::Block out = philox::philox4x32_10(kat.counter, kat.k0, kat.k1);
    for (int i = 0; i < 4; ++i) CHECK(out.v[i] == kat.expected.v[i]);
  }
}

TEST_CASE("random: manual_seed repeats, the stream continues, shape does not matter", "[random]") {
  manual_seed(42);
  std::vector<float> first = randn({1000}).to_vector<float>();
  std::vector<float> second = randn({1000}).to_vector<float>();
  manual_seed(42);
  CHECK(randn({1000}).to_vector<float>() == first);
  CHECK(first != second);
  // The same numbers whatever the shape, and element i is the stream's element i.
  manual_seed(42);
  std::vector<float> shaped = randn({10, 100}).to_vector<float>();
  CHECK(shaped == first);
  for (uint64_t i : {0ull, 1ull, 2ull, 3ull, 4ull, 999ull}) {
    CHECK(first[i] == philox::randn_element<float>(42, 0, i));
  }
  // Offsets advance by whole blocks of four, so the second call starts at block 250.
  CHECK(second[0] == philox::randn_element<float>(42, 250, 0));
  manual_seed(3);
  std::vector<double> u = rand({5}, kFloat64).to_vector<double>();
  for (uint64_t i = 0; i < 5; ++i) CHECK(u[i] == philox::rand_element<double>(3, 0, i));
}

TEST_CASE("random: values do not depend on the thread count", "[random]") {
  manual_seed(9);
  std::vector<float> big = rand({300000}).to_vector<float>();
  for (uint64_t i = 0; i < big.size(); i += 997) {
    REQUIRE(big[i] == philox::rand_element<float>(9, 0, i));
  }
}

TEST_CASE("random: bfloat16 rand is k / 256 in [0, 1), from the float32 stream", "[random][bf16]") {
  // Found by review: rounding the float32 values to nearest gave exactly 1.0 for about 0.2%
  // of the elements. PyTorch 1.13 makes k / 256 with k uniform in 0..255 (max 0.9961).
  manual_seed(5);
  std::vector<float> f32 = rand({200000}).to_vector<float>();
  manual_seed(5);
  Tensor b = rand({200000}, kBFloat16);
  REQUIRE(b.dtype() == kBFloat16);
  std::vector<float> got = b.to(kFloat32).to_vector<float>();
  std::vector<int64_t> counts(256, 0);
  for (size_t i = 0; i < got.size(); ++i) {
    const float k = got[i] * 256.0f;
    REQUIRE(k == std::floor(f32[i] * 256.0f));  // the top 8 bits of the same stream
    REQUIRE(k >= 0.0f);
    REQUIRE(k <= 255.0f);
    ++counts[static_cast<size_t>(k)];
  }
  // Each of the 256 values about 200000 / 256 = 781 times (binomial sd about 28).
  for (int64_t c : counts) CHECK(std::abs(c - 781) < 200);
  CHECK(rand({3}, TensorOptions(kBFloat16).requires_grad(true)).requires_grad());
}

TEST_CASE("random: the batched kernels give the reference functions' bits", "[random]") {
  // random.cpp computes 64 Philox blocks at a time and each Box-Muller pair once; every element
  // must still be philox::rand_element / randn_element's, for ranges that start and end inside a
  // block or a pair (odd sizes, offsets left by earlier calls, the split across two threads).
  for (int threads : {1, 2}) {
    const int saved = get_num_threads();
    set_num_threads(threads);
    manual_seed(1234);
    uint64_t offset = 0;
    for (int64_t n : {1, 2, 3, 5, 255, 257, 8193, 100001}) {
      const std::vector<float> u32 = rand({n}).to_vector<float>();
      for (int64_t i = 0; i < n; ++i) {
        REQUIRE(u32[i] == philox::rand_element<float>(1234, offset, static_cast<uint64_t>(i)));
      }
      offset += philox::blocks_for(static_cast<uint64_t>(n));
      const std::vector<double> n64 = randn({n}, kFloat64).to_vector<double>();
      for (int64_t i = 0; i < n; ++i) {
        REQUIRE(n64[i] == philox::randn_element<double>(1234, offset, static_cast<uint64_t>(i)));
      }
      offset += philox::blocks_for(static_cast<uint64_t>(n));
      const std::vector<float> n32 = randn({n}).to_vector<float>();
      for (int64_t i = 0; i < n; ++i) {
        REQUIRE(n32[i] == philox::randn_element<float>(1234, offset, static_cast<uint64_t>(i)));
      }
      offset += philox::blocks_for(static_cast<uint64_t>(n));
    }
    set_num_threads(saved);
  }
}

TEST_CASE("random: randn's first values, from an independent Philox and Box-Muller in Python",
          "[random]") {
  // Philox-4x32-10 written out in Python, and Box-Muller, sqrt(-2 log u1) (cos, sin)(2 pi u2),
  // evaluated with mpmath at 40 digits and rounded to double: seed 42, offset 0. The stream's
  // definition pinned outside the code that implements it; philox.hpp's log and sincos are
  // within 2 ulps of it (libm's cos(2 pi u2), whose argument is rounded, missed element 10 by 8).
  const double want[] = {-0x1.f0bcb75618958p-1, 0x1.8d59cf6099692p-3,  -0x1.3c51a41acf63bp+0,
                         0x1.ec8676a61759ep+0,  -0x1.2bc05f972144ap-4, 0x1.1cf41ea22a41dp-3,
                         -0x1.1b4e66440e067p+0, 0x1.4e85fa52d9414p-2,  -0x1.590c8742d6ab3p-2,
                         -0x1.09996d782ab51p-1, 0x1.3043e2f48a525p-3,  -0x1.fd8cdada81fd1p-1};
  manual_seed(42);
  const std::vector<double> got = randn({12}, kFloat64).to_vector<double>();
  for (size_t i = 0; i < 12; ++i) {
    INFO("element " << i);
    const double ulp = std::nextafter(std::abs(want[i]), INFINITY) - std::abs(want[i]);
    CHECK(std::abs(got[i] - want[i]) <= 2 * ulp);
  }
}

TEST_CASE("random: philox.hpp's log and sincos against libm", "[random]") {
  // Over the whole range randn feeds them: log of (w + 0.5) / 2^32 for w across 32 bits
  // (both of log_positive's branches, values near 1), sin and cos of 2 pi t for t in [0, 1]
  // (every quarter turn, both of k_cos's cases). Against std::log within 2 ulps; against
  // std::sin and std::cos of 2 pi t computed in long double, within 3e-16.
  const long double two_pi = 6.283185307179586476925286766559L;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int k = 0; k < 200000; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t word = static_cast<uint32_t>(state >> 32);
    if (k < 64) word = k < 32 ? static_cast<uint32_t>(k) : 0xffffffffu - static_cast<uint32_t>(k);
    const double u = (word + 0.5) * (1.0 / 4294967296.0);
    const double want = std::log(u);
    const double ulp = std::nextafter(std::abs(want), INFINITY) - std::abs(want);
    INFO("word " << word);
    REQUIRE(std::abs(philox::log_positive(u) - want) <= 2 * ulp);
    double s = 0, c = 0;
    philox::sincos_turns(u, &s, &c);
    REQUIRE(std::abs(s - static_cast<double>(std::sin(two_pi * u))) <= 3e-16);
    REQUIRE(std::abs(c - static_cast<double>(std::cos(two_pi * u))) <= 3e-16);
  }
  for (double t : {0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0}) {
    double s = 0, c = 0;
    philox::sincos_turns(t, &s, &c);
    CHECK(std::abs(s - static_cast<double>(std::sin(two_pi * t))) <= 3e-16);
    CHECK(std::abs(c - static_cast<double>(std::cos(two_pi * t))) <= 3e-16);
  }
}
