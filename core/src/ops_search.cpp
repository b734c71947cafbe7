// ops_search.cpp: the op boundary for searchsorted and bucketize (torch.searchsorted,
// torch.bucketize). For each value, the position at which it would be inserted into a sorted
// sequence to keep it sorted: the first element >= the value, or with right the first > it.
// A 1-D sequence serves every value; an N-D one holds one sequence per row, and the values must
// have its leading dims. The order is sort's (kernels/sort_order.hpp: NaN above every number),
// so a sequence that sort() produced, NaNs last, is searched correctly. PyTorch 1.13 compares
// with >= only, so past a NaN in the sequence its answers are not insertion points
// (searchsorted([1, 3, 5, nan], 4) is 4 there, 2 here); without NaN in the sequence both agree.
// Kernel contract: input 0 the sequences [rows, m] and input 1 the values [rows, n], contiguous,
// of one dtype (int64, float32 or float64; bfloat16 and mixed dtypes are promoted here); output
// [rows, n] int64; scalar_a: right (bool). Kernels: kernels/cpu/search.cpp, kernels/cuda/search.cu.
// Not differentiable (the result is an index).
// isin is a search too: elements looked up in the sorted test elements. argwhere is nonzero, and
// where(condition) its columns.
#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

constexpr const char* kName = "searchsorted";

// Sequences and values agree on every dim but the last (or the sequence is 1-D).
void check_rows(const char* name, const Tensor& seq, const Tensor& values) {
  WICK_CHECK(seq.dim() >= 1, ShapeError, name, "the sorted sequence needs at least one dim, got ",
             describe(seq));
  if (seq.dim() == 1) return;
  bool match = values.dim() == seq.dim();
  for (int64_t d = 0; match && d + 1 < seq.dim(); ++d) match = seq.size(d) == values.size(d);
  WICK_CHECK(
      match, ShapeError, name,
      "the sorted sequence must be 1-D or share every dim but the last with the values, got ",
      describe(seq), " and values ", describe(values));
}

Tensor search(const char* name, const Tensor& sorted_sequence, const Tensor& values, bool right,
              const Tensor& sorter) {
  detail::check_defined(name, {&sorted_sequence, &values});
  detail::check_same_device(name, {&sorted_sequence, &values});
  check_rows(name, sorted_sequence, values);
  WICK_CHECK(sorted_sequence.dtype() != kBool && values.dtype() != kBool, DtypeError, name,
             "takes no bool operands, as PyTorch: sequence ", describe(sorted_sequence),
             ", values ", describe(values));
  Tensor seq = sorted_sequence;
  if (sorter.defined()) {
    detail::check_same_device(name, {&sorted_sequence, &sorter});
    WICK_CHECK(sorter.dtype() == kInt64, DtypeError, name, "sorter must be int64, got ",
               describe(sorter));
    WICK_CHECK(sorter.sizes() == sorted_sequence.sizes(), ShapeError, name,
               "sorter must have the sequence's shape: ", describe(sorter), " for ",
               describe(sorted_sequence));
    detail::check_index_range(name, sorted_sequence, sorted_sequence.dim() - 1, sorter, false);
    seq = gather(sorted_sequence.detach(), -1, sorter);
  }
  Dtype k = detail::result_type_of(seq, values);
  if (k == kBFloat16) k = kFloat32;  // exact, and the order is the same
  Tensor out = detail::make_empty(values.sizes(), kInt64, values.device(), name);
  const int64_t m = seq.size(-1);
  if (out.numel() == 0) return out;
  if (m == 0) return out.zero_();
  const int64_t rows = seq.numel() / m;
  const int64_t n = values.numel() / rows;
  const Tensor seq_rows = seq.detach().to(k).contiguous().reshape({rows, m});
  const Tensor value_rows = values.detach().to(k).contiguous().reshape({rows, n});
  Tensor out_rows = out.view({rows, n});
  OpCall call;
  call.op = OpId::searchsorted;
  call.inputs[0] = &seq_rows;
  call.inputs[1] = &value_rows;
  call.num_inputs = 2;
  call.outputs[0] = &out_rows;
  call.num_outputs = 1;
  call.scalar_a = Scalar(right);
  call.has_a = true;
  run_kernel(call, values.device());
  return out;
}

// A number searched for: a 0-d tensor of the sequence's floating dtype when both are floating
// (0.1 against float64 stays the double 0.1), else float64 or int64 (bool as int64); promoted
// with the sequence as a 0-d tensor is.
Tensor value_tensor(const Scalar& value, const Tensor& seq) {
  Dtype d = kInt64;
  if (value.is_floating()) d = is_floating(seq.dtype()) ? seq.dtype() : kFloat64;
  return full({}, value.kind() == kBool ? Scalar(int64_t{value.to<bool>()}) : value,
              TensorOptions(d).device(seq.device()));
}

}  // namespace

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool right,
                    const Tensor& sorter) {
  return search(kName, sorted_sequence, values, right, sorter);
}
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool right,
                    const Tensor& sorter) {
  detail::check_defined(kName, {&sorted_sequence});
  return search(kName, sorted_sequence, value_tensor(value, sorted_sequence), right, sorter);
}
Tensor bucketize(const Tensor& input, const Tensor& boundaries, bool right) {
  detail::check_defined("bucketize", {&input, &boundaries});
  WICK_CHECK(boundaries.dim() == 1, ShapeError, "bucketize", "boundaries must be 1-D, got ",
             describe(boundaries));
  return search("bucketize", boundaries, input, right, Tensor());
}
Tensor bucketize(const Scalar& input, const Tensor& boundaries, bool right) {
  detail::check_defined("bucketize", {&boundaries});
  return bucketize(value_tensor(input, boundaries), boundaries, right);
}

Tensor isin(const Tensor& elements, const Tensor& test_elements, bool invert) {
  const char* op = "isin";
  detail::check_defined(op, {&elements, &test_elements});
  detail::check_same_device(op, {&elements, &test_elements});
  // Compared in the promoted dtype (bool as int64, which searchsorted takes): sort the test
  // elements, find each element's first place >= it, and check that the element there equals
  // it. NaN equals nothing, as in PyTorch.
  Dtype common = promote_types(elements.dtype(), test_elements.dtype());
  if (common == kBool) common = kInt64;
  const Tensor values = elements.detach().to(common);
  const Tensor pool = test_elements.detach().reshape({test_elements.numel()}).to(common);
  Tensor found;
  if (pool.numel() == 0) {
    found = zeros(elements.sizes(), TensorOptions(kBool).device(elements.device()));
  } else {
    const Tensor sorted = std::get<0>(sort(pool));
    const Tensor place =
        clamp_max(searchsorted(sorted, values.reshape({values.numel()})), pool.numel() - 1);
    // Positions made here, in range: no range check (a synchronisation on a GPU).
    const detail::IndexesInRange made_here(/*host_tensors_too=*/true);
    found = eq(sorted.index_select(0, place), values.reshape({values.numel()}))
                .reshape(elements.sizes());
  }
  return invert ? logical_not(found) : found;
}
Tensor isin(const Tensor& elements, const Scalar& test_element, bool invert) {
  detail::check_defined("isin", {&elements});
  // A 0-d tensor of the number's own dtype (scalar_tensor would make every number float32).
  return isin(elements, full({}, test_element, TensorOptions().device(elements.device())), invert);
}
Tensor isin(const Scalar& element, const Tensor& test_elements, bool invert) {
  detail::check_defined("isin", {&test_elements});
  return isin(full({}, element, TensorOptions().device(test_elements.device())), test_elements,
              invert);
}

Tensor argwhere(const Tensor& a) {
  detail::check_defined("argwhere", {&a});
  return nonzero(a);
}

std::vector<Tensor> where(const Tensor& condition) {
  detail::check_defined("where", {&condition});
  // A 0-d condition answers as a 1-element one: (tensor([0]),) when it holds (torch's rule).
  const Tensor positions = nonzero(condition.dim() == 0 ? condition.reshape({1}) : condition);
  return positions.unbind(1);
}

Tensor Tensor::isin(const Tensor& test_elements, bool invert) const {
  return wick::isin(*this, test_elements, invert);
}
Tensor Tensor::argwhere() const { return wick::argwhere(*this); }

}  // namespace wick
