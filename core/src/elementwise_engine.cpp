// elementwise_engine.cpp: what every elementwise op runs through (elementwise.hpp): PyTorch's
// result_type, the operands' common device and broadcast shape, each input cast and expanded
// for the kernel, the result's layout, the kernel launch and the autograd record. The op
// rules on top of it (which dtype an op computes in, its operand checks, in-place forms) are
// in ops_elementwise.cpp; the promotion rules are written out in docs/type-promotion.md.
#include <optional>

#include "elementwise.hpp"
#include "internal.hpp"
#include "wick/dim_order.hpp"
#include "wick/ops.hpp"

namespace wick::detail {

namespace {
// PyTorch's combine_categories: a lower-priority group only matters when it is of a higher
// category (bool < integer < floating) than the higher-priority group.
std::optional<Dtype> combine(std::optional<Dtype> higher, std::optional<Dtype> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (is_floating(*higher)) return higher;
  if (*higher == kBool || is_floating(*lower)) return promote_types(*higher, *lower);
  return higher;
}

}  // namespace

// torch.result_type: tensors with dims outrank 0-d tensors, which outrank numbers.
Dtype result_type(std::initializer_list<Operand> operands) {
  std::optional<Dtype> dim_result, zero_dim_result, number_result;
  auto join = [](std::optional<Dtype>& acc, Dtype d) { acc = acc ? promote_types(*acc, d) : d; };
  for (const Operand& o : operands) {
    if (o.is_scalar()) {
      join(number_result, o.scalar.kind() == kFloat64 ? kDefaultFloat : o.scalar.kind());
    } else if (o.tensor->dim() == 0) {
      join(zero_dim_result, o.tensor->dtype());
    } else {
      join(dim_result, o.tensor->dtype());
    }
  }
  return *combine(dim_result, combine(zero_dim_result, number_result));
}

// The device the operands run on: that of the tensors; a 0-d cpu tensor may join any device
// (as in PyTorch), every other mix is an error.
Device common_device(const char* op, std::initializer_list<Operand> operands) {
  std::optional<Device> device;
  for (const Operand& o : operands) {
    if (o.is_scalar() || (o.tensor->dim() == 0 && o.tensor->device().is_cpu())) continue;
    if (!device) device = o.tensor->device();
    if (o.tensor->device() != *device) {
      std::string all;
      for (const Operand& p : operands) {
        if (!p.is_scalar()) all += (all.empty() ? "" : " and ") + describe(*p.tensor);
      }
      fail<DeviceError>(op, "expected all tensors on one device, got ", all);
    }
  }
  if (device) return *device;
  for (const Operand& o : operands) {
    if (!o.is_scalar()) return o.tensor->device();
  }
  return Device(kCPU);
}

Shape broadcast_all(const char* op, std::initializer_list<Operand> operands) {
  Shape out;
  for (const Operand& o : operands) {
    if (o.is_scalar() || o.tensor->sizes() == out) continue;
    try {
      out = wick::broadcast_shapes(out, o.tensor->sizes());
    } catch (const ShapeError&) {
      // The message is built only on failure: describe() is far too slow for the hot path.
      std::string all;
      for (const Operand& p : operands) {
        if (!p.is_scalar()) all += (all.empty() ? "" : " and ") + describe(*p.tensor);
      }
      fail<ShapeError>(op, "operands could not be broadcast together: ", all);
    }
  }
  return out;
}

// The tensor a kernel reads for operand o: on `device`, of `dtype`, expanded to `sizes`.
Tensor prepare(const Operand& o, Dtype dtype, Device device, const Shape& sizes) {
  Tensor t;
  if (o.is_scalar()) {
    t = make_empty({}, dtype, device, "scalar");
    fill_kernel(t, o.scalar);
  } else if (o.tensor->dtype() != dtype || o.tensor->device() != device) {
    t = o.tensor->detach().to(device, dtype);  // detached: the cast is part of this op
  } else {
    t = *o.tensor;  // kernels ignore autograd state, so no detached copy is needed
  }
  return expand_view(t, sizes);
}

namespace {
// Inputs this large whose layout crosses the result's are copied into the result's layout first.
constexpr int64_t kRelayoutMinElements = int64_t{1} << 14;

// On the CPU, an input laid out across the result (a.t() + b: the loop walks the result's
// rows, and a.t() steps a row of a, 4 KiB for a [1024, 1024] float32, per element) is first
// copied into the result's layout by the copy kernel's tiled transpose (transpose_copy.cpp),
// then the op runs on operands that all step one element: a.t() + b took 3.5 ms on one Zen 5
// thread, against 0.34 ms for the copy and 0.11 for a contiguous add (docs/cpu-kernels.md).
// Only for a dense input (no broadcast, no gaps) whose stride along the result's fastest dim
// is not 1; every other input is walked as it is.
void lay_out_like(Tensor& input, const Tensor& result) {
  if (input.numel() < kRelayoutMinElements || input.strides() == result.strides()) return;
  const Shape& sizes = result.sizes();
  size_t fastest = sizes.size();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] > 1 && result.strides()[d] == 1) fastest = d;
  }
  // The copy takes the result's strides, so the result must be dense too (an in-place target
  // may be a slice with gaps).
  if (fastest == sizes.size() || input.strides()[fastest] == 1 ||
      !is_non_overlapping_and_dense(sizes, input.strides()) ||
      !is_non_overlapping_and_dense(sizes, result.strides())) {
    return;
  }
  Tensor copy =
      make_empty_dense(sizes, result.strides(), input.dtype(), input.device(), "elementwise");
  copy_into(copy, input);
  input = copy;
}

}  // namespace

// Runs op over operands into a new tensor (out == nullptr) or into *out (in place).
Tensor elementwise(OpId op, std::initializer_list<Operand> operands, Dtype compute, Dtype out_dtype,
                   const Attrs& attrs, Tensor* out) {
  const char* name = detail::user_name(op);
  Device device = common_device(name, operands);
  Shape sizes = broadcast_all(name, operands);
  Tensor result;
  if (out != nullptr) {
    WICK_CHECK(sizes == out->sizes(), ShapeError, name, "output with shape ", out->sizes(),
               " doesn't match the broadcast shape ", sizes);
    result = *out;
  }
  std::array<Tensor, 3> prepared;
  std::array<Tensor, 3> originals;
  std::array<const Shape*, 3> prepared_strides{};
  bool same_shape = true;  // every input a tensor of the result's sizes: PyTorch's fast setup
  OpCall call;
  call.op = op;
  int i = 0;
  for (const Operand& o : operands) {
    // where's condition stays bool; every other input takes the compute dtype.
    Dtype dtype = (op == OpId::where && i == 0) ? kBool : compute;
    prepared[i] = prepare(o, dtype, device, sizes);
    // An in-place output that shares storage with an input through another layout would be
    // read after being written: give the kernel a private copy of that input.
    if (out != nullptr && prepared[i].storage() == result.storage() &&
        !(prepared[i].strides() == result.strides() &&
          prepared[i].storage_offset() == result.storage_offset())) {
      prepared[i] = prepared[i].clone();
    }
    originals[i] = o.is_scalar() ? prepared[i] : *o.tensor;
    same_shape = same_shape && !o.is_scalar() && o.tensor->sizes() == sizes;
    prepared_strides[i] = &prepared[i].strides();
    call.inputs[i] = &prepared[i];
    ++i;
  }
  if (out == nullptr) {
    // The result takes its inputs' layout, as in PyTorch (wick/dim_order.hpp): exp(x.t()) is
    // transposed like x.t(), so that the loop reads and writes memory in order.
    const Shape strides = elementwise_result_strides(sizes, prepared_strides.data(), i, same_shape);
    result = make_empty_dense(sizes, strides, out_dtype, device, name);
  }
  if (device.is_cpu()) {
    for (int k = 0; k < i; ++k) lay_out_like(prepared[k], result);
  }
  call.num_inputs = i;
  call.outputs[0] = &result;
  call.num_outputs = 1;
  if (attrs.a) call.scalar_a = *attrs.a, call.has_a = true;
  if (attrs.b) call.scalar_b = *attrs.b, call.has_b = true;
  if (result.numel() > 0) run_kernel(call, device);
  if (out == nullptr) {
    for (int k = 0; k < i; ++k) call.inputs[k] = &originals[k];
    maybe_record(call);
  }
  return result;
}

}  // namespace wick::detail
