// device.hpp: where a tensor's bytes live. Device = a type (cpu, cuda) plus an index, parsed
// from "cpu", "cuda", "cuda:1" as PyTorch's c10::Device is. Tested in tests/test_device_dtype.cpp.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace wick {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
inline constexpr int kNumDeviceTypes = 2;
inline constexpr DeviceType kCPU = DeviceType::CPU;
inline constexpr DeviceType kCUDA = DeviceType::CUDA;

const char* device_type_name(DeviceType type);

class Device {
 public:
  // index -1 means "the current device" of that type; CPU always has index -1.
  Device(DeviceType type = kCPU, int index = -1);  // NOLINT: implicit from kCPU/kCUDA on purpose
  Device(const std::string& spec);                 // NOLINT: "cpu", "cuda", "cuda:1"
  Device(const char* spec) : Device(std::string(spec)) {}  // NOLINT

  DeviceType type() const { return type_; }
  int index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_ == kCPU; }
  bool is_cuda() const { return type_ == kCUDA; }
  std::string str() const;

  friend bool operator==(const Device& a, const Device& b) {
    return a.type_ == b.type_ && a.index_ == b.index_;
  }
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }

 private:
  DeviceType type_;
  int index_;
};

std::ostream& operator<<(std::ostream& out, const Device& device);
std::ostream& operator<<(std::ostream& out, DeviceType type);

}  // namespace wick
