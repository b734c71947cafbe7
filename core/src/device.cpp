// device.cpp: Device parsing and printing, dtype names, Shape printing, Scalar printing.
#include <cctype>
#include <limits>

#include "wick/device.hpp"
#include "wick/dtype.hpp"
#include "wick/error.hpp"
#include "wick/scalar.hpp"
#include "wick/shape.hpp"

namespace wick {

const char* device_type_name(DeviceType type) { return type == kCPU ? "cpu" : "cuda"; }

Device::Device(DeviceType type, int index) : type_(type), index_(index) {
  // A DeviceType cast from an integer indexes the backend table: checked here, once.
  WICK_CHECK(static_cast<int>(type) >= 0 && static_cast<int>(type) < kNumDeviceTypes, DeviceError,
             "Device", "unknown device type ", static_cast<int>(type), " (expected cpu or cuda)");
  WICK_CHECK(index >= -1, DeviceError, "Device", "device index must be >= 0, got ", index);
  WICK_CHECK(!(type == kCPU && index > 0), DeviceError, "Device",
             "cpu has one device (index 0), got cpu:", index);
  if (type == kCPU) index_ = -1;
}

Device::Device(const std::string& spec) : type_(kCPU), index_(-1) {
  std::string type_part = spec;
  std::string index_part;
  size_t colon = spec.find(':');
  if (colon != std::string::npos) {
    type_part = spec.substr(0, colon);
    index_part = spec.substr(colon + 1);
    bool digits = !index_part.empty() && index_part.size() <= 6;
    for (char c : index_part) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    // "cuda:01" is refused, as c10 does: one device, one spelling.
    digits = digits && (index_part.size() == 1 || index_part[0] != '0');
    WICK_CHECK(digits, DeviceError, "Device", "bad device index in '", spec,
               "' (expected e.g. 'cuda:1')");
  }
  if (type_part == "cpu") {
    type_ = kCPU;
  } else if (type_part == "cuda") {
    type_ = kCUDA;
  } else {
    detail::fail<DeviceError>("Device", "unknown device type '", type_part, "' in '", spec,
                              "' (expected 'cpu', 'cuda' or 'cuda:N')");
  }
  if (!index_part.empty()) index_ = std::stoi(index_part);
  WICK_CHECK(!(type_ == kCPU && index_ > 0), DeviceError, "Device",
             "cpu has one device (index 0), got '", spec, "'");
  if (type_ == kCPU) index_ = -1;
}

std::string Device::str() const {
  std::string s = device_type_name(type_);
  if (index_ >= 0) s += ":" + std::to_string(index_);
  return s;
}

std::ostream& operator<<(std::ostream& out, const Device& device) { return out << device.str(); }
std::ostream& operator<<(std::ostream& out, DeviceType type) {
  return out << device_type_name(type);
}

const char* dtype_name(Dtype dtype) {
  switch (dtype) {
    case Dtype::Bool:
      return "bool";
    case Dtype::Int64:
      return "int64";
    case Dtype::Float32:
      return "float32";
    case Dtype::Float64:
      return "float64";
    case Dtype::BFloat16:
      return "bfloat16";
  }
  return "unknown";
}
std::ostream& operator<<(std::ostream& out, Dtype dtype) { return out << dtype_name(dtype); }

std::ostream& operator<<(std::ostream& out, const Shape& shape) {
  out << '[';
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i];
  return out << ']';
}

int64_t checked_numel(const Shape& sizes, const char* op) {
  bool empty = false;
  for (int64_t d : sizes) {
    WICK_CHECK(d >= 0, ShapeError, op, "negative dimension ", d, " in size ", sizes);
    empty = empty || d == 0;
  }
  // A 0 anywhere makes the count 0, whatever comes before it: [2^63-1, 2, 0] is empty, not an
  // overflow (its strides are checked where they are made).
  if (empty) return 0;
  int64_t n = 1;
  for (int64_t d : sizes) {
    WICK_CHECK(!__builtin_mul_overflow(n, d, &n), ShapeError, op, "size ", sizes,
               " has more elements than int64 can count");
  }
  return n;
}

std::ostream& operator<<(std::ostream& out, const Scalar& s) {
  if (s.kind() == kBool) return out << (s.to<bool>() ? "True" : "False");
  if (s.kind() == kInt64) return out << s.to_int64();
  return out << s.to_double();
}

}  // namespace wick
