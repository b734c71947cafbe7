// tensor_options.hpp: dtype, device and requires_grad for factories, spelled as libtorch's
// TensorOptions: wick::TensorOptions().dtype(wick::kFloat64).device(wick::kCUDA).
#pragma once

#include <optional>

#include "wick/device.hpp"
#include "wick/dtype.hpp"

namespace wick {

class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(Dtype dtype) : dtype_(dtype) {}  // NOLINT: zeros({2}, kInt64)
  TensorOptions(Device device) : device_(device), has_device_(true) {}  // NOLINT: zeros({2}, kCUDA)
  TensorOptions(DeviceType type) : device_(type), has_device_(true) {}  // NOLINT

  TensorOptions dtype(Dtype d) const {
    TensorOptions o = *this;
    o.dtype_ = d;
    return o;
  }
  TensorOptions device(Device d) const {
    TensorOptions o = *this;
    o.device_ = d;
    o.has_device_ = true;
    return o;
  }
  TensorOptions requires_grad(bool r) const {
    TensorOptions o = *this;
    o.requires_grad_ = r;
    return o;
  }
  Dtype dtype() const { return dtype_.value_or(kDefaultFloat); }
  bool has_dtype() const { return dtype_.has_value(); }
  Device device() const { return device_; }
  bool has_device() const { return has_device_; }
  bool requires_grad() const { return requires_grad_; }

 private:
  std::optional<Dtype> dtype_;  // unset: the default float, or what the data says (tensor())
  Device device_ = kCPU;
  bool has_device_ = false;  // unset: the CPU, or the source's device (*_like)
  bool requires_grad_ = false;
};

}  // namespace wick
