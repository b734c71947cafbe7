// byte_reader.hpp: turns a fuzzer's input bytes into the choices a fuzz program makes (which
// op, which shape, which value). Reads past the end give zeros, so every byte string decodes
// to some program and short inputs give short, simple programs. Shared by fuzz_ops.cpp and
// fuzz_autograd.cpp; the decoding is documented in docs/reliability.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace wick::fuzz {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool done() const { return pos_ >= size_; }
  size_t remaining() const { return done() ? 0 : size_ - pos_; }

  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(byte() | (byte() << 8)); }
  uint32_t u32() { return static_cast<uint32_t>(u16()) | (static_cast<uint32_t>(u16()) << 16); }
  uint64_t u64() { return static_cast<uint64_t>(u32()) | (static_cast<uint64_t>(u32()) << 32); }
  bool flag() { return (byte() & 1) != 0; }
  // A value in [0, n), n >= 1.
  uint32_t below(uint32_t n) { return n <= 1 ? 0 : (n <= 256 ? byte() % n : u16() % n); }
  // A raw double from 8 bytes (any bit pattern: NaN payloads, denormals, infinities).
  double raw_double() {
    uint64_t bits = u64();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Special values that break naive code: signed zeros, infinities, NaN, the edges of float32
// and float64, denormals, and integers at the edges of int64.
inline double special_double(uint8_t which) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  switch (which % 16) {
    case 0:
      return 0.0;
    case 1:
      return -0.0;
    case 2:
      return kInf;
    case 3:
      return -kInf;
    case 4:
      return std::numeric_limits<double>::quiet_NaN();
    case 5:
      return 3.4028234663852886e38;  // FLT_MAX
    case 6:
      return -3.5e38;  // just past -FLT_MAX
    case 7:
      return 1.7976931348623157e308;  // DBL_MAX
    case 8:
      return 4.9406564584124654e-324;  // smallest denormal
    case 9:
      return 1.1754943508222875e-38;  // FLT_MIN
    case 10:
      return 9.2233720368547758e18;  // 2^63
    case 11:
      return -9.2233720368547758e18;  // -2^63
    case 12:
      return 1e10;
    case 13:
      return 88.7;  // exp overflows float32 just above this
    case 14:
      return 0.5;
    default:
      return -1.0;
  }
}

}  // namespace wick::fuzz
