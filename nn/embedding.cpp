// embedding.cpp: functional::embedding, functional::one_hot and EmbeddingImpl
// (wick/nn/embedding.hpp).
#include "wick/nn/embedding.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "wick/autograd.hpp"
#include "wick/dispatch.hpp"

namespace wick::nn {
namespace {

// padding_idx in [-num, num) -> [0, num); a ValueError naming `op` otherwise.
int64_t wrap_padding(int64_t padding_idx, int64_t num_embeddings, const char* op) {
  WICK_CHECK(padding_idx >= -num_embeddings && padding_idx < num_embeddings, ValueError, op,
             "padding_idx ", padding_idx, " must be within num_embeddings ", num_embeddings);
  return padding_idx < 0 ? padding_idx + num_embeddings : padding_idx;
}

// The norm_type-norm of each row of `rows` [k, dim], in float64: p = 0 counts the nonzero
// entries and +-inf is the largest or smallest magnitude, as torch.norm.
Tensor row_norms(const Tensor& rows, double p) {
  const Tensor a = rows.to(kFloat64).abs();
  if (p == 0.0) return sum(ne(a, 0).to(kFloat64), 1);
  if (p == 1.0) return sum(a, 1);
  if (p == 2.0) return sqrt(sum(a * a, 1));
  if (std::isinf(p)) return p > 0 ? amax(a, 1) : amin(a, 1);
  return pow(sum(pow(a, p), 1), 1.0 / p);
}

// The sorted distinct values of `flat` (read on the host), checked against [0, num) so that
// an out-of-range index is refused before the table changes.
std::vector<int64_t> distinct_rows(const Tensor& flat, const Tensor& weight, const char* op) {
  std::vector<int64_t> ids = flat.to(kCPU).to_vector<int64_t>();
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  const int64_t num = weight.size(0);
  WICK_CHECK(ids.empty() || (ids.front() >= 0 && ids.back() < num), IndexError, op,
             "index out of range in self: the table ", describe(weight), " has ", num,
             " rows, and the input holds values from ", ids.front(), " to ", ids.back());
  return ids;
}

// PyTorch's embedding_renorm_: each distinct row the input names whose norm exceeds max_norm
// is multiplied, in place and unrecorded, by max_norm / (norm + 1e-7). The norms of those rows
// only are computed (one gather and one host copy); rows under max_norm are not touched.
void renorm_rows(const Tensor& weight, const std::vector<int64_t>& ids, double max_norm, double p) {
  if (ids.empty()) return;
  NoGradGuard no_grad;
  const Tensor named = tensor(ids, TensorOptions(kInt64).device(weight.device()));
  const std::vector<double> norms =
      row_norms(index_select(weight.detach(), 0, named), p).to(kCPU).to_vector<double>();
  for (size_t k = 0; k < ids.size(); ++k) {
    if (norms[k] > max_norm) {
      Tensor row = weight.select(0, ids[k]);
      row.mul_(max_norm / (norms[k] + 1e-7));
    }
  }
}

}  // namespace

Tensor functional::embedding(const Tensor& input, const Tensor& weight,
                             const EmbeddingFuncOptions& options) {
  const char* op = "embedding";
  WICK_CHECK(input.defined() && weight.defined(), ValueError, op,
             "input and weight must be defined tensors");
  WICK_CHECK(weight.dim() == 2, ShapeError, op, "'weight' must be 2-D, got ", describe(weight));
  WICK_CHECK(input.dtype() == kInt64, DtypeError, op, "expected int64 indices for input, got ",
             describe(input));
  WICK_CHECK(!options.scale_grad_by_freq() && !options.sparse(), ValueError, op,
             "scale_grad_by_freq and sparse gradients are not supported by wick");
  WICK_CHECK(input.device() == weight.device(), DeviceError, op, "input ", describe(input),
             " and weight ", describe(weight), " are on different devices");
  const Tensor flat = input.reshape({input.numel()});
  if (flat.numel() > 0) {
    // Checked first (before max_norm changes the table), naming embedding: one host read of
    // both bounds, which index_select then trusts.
    const std::vector<int64_t> bounds = stack({min(flat), max(flat)}).to(kCPU).to_vector<int64_t>();
    WICK_CHECK(bounds[0] >= 0 && bounds[1] < weight.size(0), IndexError, op,
               "index out of range in self: the input ", describe(input), " holds values from ",
               bounds[0], " to ", bounds[1], ", and the weight ", describe(weight), " has ",
               weight.size(0), " rows");
  }
  std::optional<int64_t> padding;
  if (options.padding_idx()) padding = wrap_padding(*options.padding_idx(), weight.size(0), op);
  if (options.max_norm()) {
    WICK_CHECK(is_floating(weight.dtype()), DtypeError, op,
               "max_norm needs a floating weight, got ", describe(weight));
    renorm_rows(weight, distinct_rows(flat, weight, op), *options.max_norm(), options.norm_type());
  }
  Tensor rows;
  {
    const wick::detail::IndexesInRange checked_above(/*host_tensors_too=*/true);
    rows = index_select(weight, 0, flat);
  }
  if (padding && rows.requires_grad()) {
    // The padding row's lookups carry no gradient; their values are the row as it is.
    rows = where(eq(flat, *padding).unsqueeze(1), rows.detach(), rows);
  }
  Shape out_sizes = input.sizes();
  out_sizes.push_back(weight.size(1));
  return rows.view(out_sizes);
}

Tensor functional::one_hot(const Tensor& tensor, int64_t num_classes) {
  const char* op = "one_hot";
  WICK_CHECK(tensor.defined(), ValueError, op, "tensor must be defined");
  WICK_CHECK(tensor.dtype() == kInt64, DtypeError, op,
             "is only applicable to an int64 index tensor (as PyTorch), got ", describe(tensor));
  WICK_CHECK(num_classes >= -1, ValueError, op,
             "num_classes must be -1 (inferred) or at least 0, got ", num_classes);
  int64_t classes = num_classes;
  if (tensor.numel() == 0) {
    WICK_CHECK(classes >= 0, ValueError, op,
               "can not infer the number of classes from an empty tensor ", describe(tensor));
  } else {
    const std::vector<int64_t> bounds =
        stack({min(tensor), max(tensor)}).to(kCPU).to_vector<int64_t>();
    WICK_CHECK(bounds[0] >= 0, IndexError, op, "class values must be non-negative, got ", bounds[0],
               " in ", describe(tensor));
    if (classes == -1) {
      WICK_CHECK(bounds[1] < std::numeric_limits<int64_t>::max(), ValueError, op, "cannot make ",
                 bounds[1], " + 1 classes");
      classes = bounds[1] + 1;
    }
    WICK_CHECK(bounds[1] < classes, IndexError, op,
               "class values must be smaller than num_classes ", classes, ", got ", bounds[1],
               " in ", describe(tensor));
  }
  const Tensor each_class = arange(classes, TensorOptions(kInt64).device(tensor.device()));
  return eq(tensor.unsqueeze(-1), each_class).to(kInt64);
}

EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options) : options_(std::move(options)) {
  const char* op = "nn::Embedding";
  const int64_t num = options_.num_embeddings(), dim = options_.embedding_dim();
  WICK_CHECK(num >= 0 && dim >= 0, ValueError, op, "num_embeddings ", num, " and embedding_dim ",
             dim, " must not be negative");
  if (options_.padding_idx()) {
    options_.padding_idx(wrap_padding(*options_.padding_idx(), num, op));
  }
  if (options_._weight().defined()) {
    const Tensor& given = options_._weight();
    WICK_CHECK(given.sizes() == Shape({num, dim}), ShapeError, op,
               "_weight must have shape [num_embeddings, embedding_dim] = ", Shape({num, dim}),
               ", got ", describe(given));
    // The given tensor itself (its storage shared, as PyTorch's Parameter(_weight)).
    weight = register_parameter("weight", given.detach());
  } else {
    weight = register_parameter("weight", randn({num, dim}));
    reset_parameters_padding();
  }
}

void EmbeddingImpl::reset_parameters() {
  NoGradGuard no_grad;
  weight.copy_(randn(weight.sizes(), weight.options()));
  reset_parameters_padding();
}

void EmbeddingImpl::reset_parameters_padding() {
  if (!options_.padding_idx()) return;
  NoGradGuard no_grad;
  weight.select(0, *options_.padding_idx()).fill_(0);
}

Tensor EmbeddingImpl::forward(const Tensor& input) const {
  return functional::embedding(input, weight, options_.func_options());
}

std::string EmbeddingImpl::extra_repr() const {
  std::ostringstream out;
  out << options_.num_embeddings() << ", " << options_.embedding_dim();
  if (options_.padding_idx()) out << ", padding_idx=" << *options_.padding_idx();
  if (options_.max_norm()) out << ", max_norm=" << *options_.max_norm();
  if (options_.norm_type() != 2.0) out << ", norm_type=" << options_.norm_type();
  return out.str();
}

Embedding Embedding::from_pretrained(const Tensor& embeddings,
                                     const EmbeddingFromPretrainedOptions& options) {
  WICK_CHECK(embeddings.defined() && embeddings.dim() == 2, ShapeError,
             "nn::Embedding::from_pretrained", "embeddings must be 2-D, got ",
             embeddings.defined() ? describe(embeddings) : std::string("an undefined tensor"));
  const EmbeddingFuncOptions& f = options.func_options();
  Embedding module(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                       .padding_idx(f.padding_idx())
                       .max_norm(f.max_norm())
                       .norm_type(f.norm_type())
                       .scale_grad_by_freq(f.scale_grad_by_freq())
                       .sparse(f.sparse())
                       ._weight(embeddings));
  module->weight.requires_grad_(!options.freeze());
  return module;
}

}  // namespace wick::nn
