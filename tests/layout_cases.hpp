// layout_cases.hpp: the cases of tests/golden/make_layouts.py (elementwise ops, copies and casts
// on transposed, permuted, sliced and broadcast operands), built in wick on any device, and
// PyTorch's result sizes, strides and values for them (golden/layouts.inc). Shared by the CPU
// test (test_layouts.cpp) and the GPU suite (tests/cuda/test_ops.cpp).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "wick/wick.hpp"

namespace layout_cases {

using namespace wick;

// i * 0.37 - 6.1 in row-major order, computed in float64 and rounded to float32, as the script.
inline Tensor ramp(const Shape& sizes, Device device) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return (arange(0, n, 1, TensorOptions(kFloat64)) * 0.37 - 6.1)
      .to(kFloat32)
      .reshape(sizes)
      .to(device);
}

struct Inputs {
  explicit Inputs(Device device)
      : x(ramp({5, 7}, device)),
        u(ramp({7, 5}, device)),
        r5(ramp({5}, device)),
        c7(ramp({7, 1}, device)),
        z(ramp({2, 3, 4}, device)),
        z2(ramp({3, 4, 2}, device)),
        s3(ramp({3, 1, 4}, device)),
        t3(ramp({4, 1, 3}, device)) {}
  Tensor x, u, r5, c7, z, z2, s3, t3;
};

struct Golden {
  std::string name;
  std::vector<int64_t> sizes, strides;
  std::vector<double> values;
};

inline const std::vector<Golden>& goldens() {
  static const std::vector<Golden> rows = {
#include "golden/layouts.inc"
  };
  return rows;
}

using Case = std::function<Tensor(const Inputs&)>;

inline const std::map<std::string, Case>& cases() {
  static const std::map<std::string, Case> all = {
      {"exp(x.t())", [](const Inputs& i) { return i.x.t().exp(); }},
      {"x.t() * x.t()", [](const Inputs& i) { return i.x.t() * i.x.t(); }},
      {"x.t() + u", [](const Inputs& i) { return i.x.t() + i.u; }},
      {"u + x.t()", [](const Inputs& i) { return i.u + i.x.t(); }},
      {"x.t() + 1", [](const Inputs& i) { return i.x.t() + 1; }},
      {"2 * x.t()", [](const Inputs& i) { return 2 * i.x.t(); }},
      {"x.t() + r5", [](const Inputs& i) { return i.x.t() + i.r5; }},
      {"x.t() + c7", [](const Inputs& i) { return i.x.t() + i.c7; }},
      {"where(x.t() > 0, x.t(), 0)",
       [](const Inputs& i) {
         return where(i.x.t() > 0, i.x.t(),
                      scalar_tensor(0.0, TensorOptions().device(i.x.device())));
       }},
      {"where(u > 0, x.t(), x.t())",
       [](const Inputs& i) { return where(i.u > 0, i.x.t(), i.x.t()); }},
      {"x.t() < u", [](const Inputs& i) { return i.x.t() < i.u; }},
      {"x.t() == u", [](const Inputs& i) { return i.x.t() == i.u; }},
      {"tanh(z.permute(2, 0, 1))",
       [](const Inputs& i) {
         return i.z.permute({2, 0, 1}).tanh();
       }},
      {"z.permute(2, 0, 1) + z.permute(2, 0, 1)",
       [](const Inputs& i) {
         return i.z.permute({2, 0, 1}) + i.z.permute({2, 0, 1});
       }},
      {"z.permute(2, 0, 1) * z2.permute(1, 2, 0)",
       [](const Inputs& i) {
         return i.z.permute({2, 0, 1}) * i.z2.permute({1, 2, 0});
       }},
      {"z2.permute(1, 2, 0) * z.permute(2, 0, 1)",
       [](const Inputs& i) {
         return i.z2.permute({1, 2, 0}) * i.z.permute({2, 0, 1});
       }},
      {"s3.permute(2, 1, 0) * 2",
       [](const Inputs& i) {
         return i.s3.permute({2, 1, 0}) * 2;
       }},
      {"s3.permute(2, 1, 0) + t3",
       [](const Inputs& i) {
         return i.s3.permute({2, 1, 0}) + i.t3;
       }},
      {"x[:, ::2].t() * 2", [](const Inputs& i) { return i.x.slice(1, 0, 7, 2).t() * 2; }},
      {"x.t()[1:] * 2", [](const Inputs& i) { return i.x.t().slice(0, 1) * 2; }},
      {"z.permute(2, 0, 1)[:, :, ::2] + 1",
       [](const Inputs& i) {
         return i.z.permute({2, 0, 1}).slice(2, 0, 3, 2) + 1;
       }},
      {"x.t().unsqueeze(0) + x.t().unsqueeze(1)",
       [](const Inputs& i) { return i.x.t().unsqueeze(0) + i.x.t().unsqueeze(1); }},
      {"x[0].expand(5, 7) * 3",
       [](const Inputs& i) {
         return i.x.select(0, 0).expand({5, 7}) * 3;
       }},
      {"x.t().to(float64)", [](const Inputs& i) { return i.x.t().to(kFloat64); }},
      {"x.t().to(int64) + x.t()", [](const Inputs& i) { return i.x.t().to(kInt64) + i.x.t(); }},
      {"x.t().to(bfloat16)", [](const Inputs& i) { return i.x.t().to(kBFloat16); }},
      {"x.t().clone()", [](const Inputs& i) { return i.x.t().clone(); }},
      {"x[:, ::2].t().clone()", [](const Inputs& i) { return i.x.slice(1, 0, 7, 2).t().clone(); }},
      {"z.permute(2, 0, 1)[:, :, ::2].clone()",
       [](const Inputs& i) {
         return i.z.permute({2, 0, 1}).slice(2, 0, 3, 2).clone();
       }},
      {"x.t().contiguous()", [](const Inputs& i) { return i.x.t().contiguous(); }},
      {"sigmoid(x.t()).neg()", [](const Inputs& i) { return i.x.t().sigmoid().neg(); }},
      {"x.t().pow(2)", [](const Inputs& i) { return i.x.t().pow(2); }},
      {"x.t().clamp(-0.5, 0.5)", [](const Inputs& i) { return i.x.t().clamp(-0.5, 0.5); }},
      {"maximum(x.t(), u)", [](const Inputs& i) { return maximum(i.x.t(), i.u); }},
      {"x.t() + tensor(2.0)", [](const Inputs& i) { return i.x.t() + scalar_tensor(2.0); }},
      {"relu(x.t())", [](const Inputs& i) { return i.x.t().relu(); }},
      {"x.t().clone().mul_(2)",
       [](const Inputs& i) {
         Tensor c = i.x.t().clone();
         c.mul_(2);
         return c;
       }},
      {"x.t() / u.t().t()", [](const Inputs& i) { return i.x.t() / i.u.t().t(); }},
  };
  return all;
}

}  // namespace layout_cases
