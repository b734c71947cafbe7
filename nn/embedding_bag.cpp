// embedding_bag.cpp: embedding_bag from the bag layout read on the host: the kept entries (not
// padding) in input order and the bag of each. Their rows come from embedding (which also
// applies max_norm and checks the range); sum and mean add them into [B, dim] with index_add in
// input order, as PyTorch's CPU kernel adds them; max gathers each bag's rows side by side
// ([B, widest, dim], a short bag padded by repeating its last row, which cannot change a
// maximum) and takes the first largest, as PyTorch's kernel, which replaces the running
// maximum only by a larger value.
#include "wick/nn/embedding_bag.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "wick/autograd.hpp"

#include "im2col.hpp"

namespace wick::nn {
namespace {

EmbeddingBagMode from_reduction(Reduction r, const char* op) {
  WICK_CHECK(r != Reduction::None, ValueError, op, "mode must be kSum, kMean or kMax, not kNone");
  return r == Reduction::Sum ? EmbeddingBagMode::Sum : EmbeddingBagMode::Mean;
}

const char* mode_name(EmbeddingBagMode m) {
  return m == EmbeddingBagMode::Sum ? "sum" : m == EmbeddingBagMode::Mean ? "mean" : "max";
}

// The bags: kept entry positions in input order, the bag of each, and each bag's count.
struct Bags {
  int64_t count = 0;
  std::vector<int64_t> positions, bag_of, sizes;
};

Bags read_bags(const char* op, const Tensor& input, const Tensor& offsets,
               const EmbeddingBagFuncOptions& o, std::optional<int64_t> padding) {
  const std::vector<int64_t> entries = input.reshape({-1}).to(kCPU).to_vector<int64_t>();
  const auto total = static_cast<int64_t>(entries.size());
  std::vector<int64_t> starts;
  if (input.dim() == 2) {
    for (int64_t b = 0; b < input.size(0); ++b) starts.push_back(b * input.size(1));
    starts.push_back(total);
  } else {
    starts = offsets.to(kCPU).to_vector<int64_t>();
    if (!o.include_last_offset()) starts.push_back(total);
    WICK_CHECK(!starts.empty(), ValueError, op,
               "with include_last_offset, offsets must hold at least one entry, got ",
               describe(offsets));
    WICK_CHECK(starts.size() == 1 || starts.front() == 0, ValueError, op,
               "offsets[0] must be 0 (the first bag starts at the first entry), got ",
               starts.front());
    for (size_t i = 1; i < starts.size(); ++i) {
      WICK_CHECK(starts[i - 1] <= starts[i] && starts[i] <= total, ValueError, op, "offsets ",
                 describe(offsets), " must be non-decreasing and at most the input's ", total,
                 " entries");
    }
  }
  Bags bags;
  bags.count = static_cast<int64_t>(starts.size()) - 1;
  bags.sizes.assign(static_cast<size_t>(bags.count), 0);
  for (int64_t b = 0; b < bags.count; ++b) {
    for (int64_t t = starts[static_cast<size_t>(b)]; t < starts[static_cast<size_t>(b) + 1]; ++t) {
      if (padding && entries[static_cast<size_t>(t)] == *padding) continue;
      bags.positions.push_back(t);
      bags.bag_of.push_back(b);
      ++bags.sizes[static_cast<size_t>(b)];
    }
  }
  return bags;
}

// The largest row of each bag, first of equals; zeros for an empty bag.
Tensor bag_max(const Tensor& rows, const Bags& bags, int64_t dim) {
  int64_t widest = 1;
  for (int64_t s : bags.sizes) widest = std::max(widest, s);
  std::vector<int64_t> index(static_cast<size_t>(bags.count * widest), 0);
  std::vector<double> empty(static_cast<size_t>(bags.count), 0.0);
  int64_t first = 0;  // this bag's first kept row
  for (int64_t b = 0; b < bags.count; ++b) {
    const int64_t size = bags.sizes[static_cast<size_t>(b)];
    empty[static_cast<size_t>(b)] = size == 0 ? 1.0 : 0.0;
    for (int64_t j = 0; j < widest; ++j) {
      index[static_cast<size_t>(b * widest + j)] = size == 0 ? 0 : first + std::min(j, size - 1);
    }
    first += size;
  }
  const Tensor picked =
      rows.index_select(
              0, tensor(index, Shape{bags.count * widest}, TensorOptions(kInt64)).to(rows.device()))
          .reshape({bags.count, widest, dim});
  const Tensor best =
      gather(picked, 1, detail::max_choice(picked.detach(), 1, Tensor())).squeeze(1);
  const Tensor is_empty =
      tensor(empty, Shape{bags.count, 1}, TensorOptions(kFloat64)).to(rows.device());
  return where(ne(is_empty, 0), Scalar(0.0), best);
}

}  // namespace

EmbeddingBagFuncOptions& EmbeddingBagFuncOptions::mode(Reduction r) {
  mode_ = from_reduction(r, "embedding_bag");
  return *this;
}

EmbeddingBagOptions& EmbeddingBagOptions::mode(Reduction r) {
  mode_ = from_reduction(r, "nn::EmbeddingBag");
  return *this;
}

Tensor functional::embedding_bag(const Tensor& input, const Tensor& weight,
                                 const EmbeddingBagFuncOptions& options) {
  const char* op = "embedding_bag";
  WICK_CHECK(input.defined() && weight.defined(), ValueError, op,
             "input and weight must be defined tensors");
  WICK_CHECK(weight.dim() == 2 && weight.is_floating_point(), ShapeError, op,
             "weight must be a floating [num_embeddings, dim], got ", describe(weight));
  WICK_CHECK(input.dtype() == kInt64 && (input.dim() == 1 || input.dim() == 2), ShapeError, op,
             "input must be int64 [B, N] or [T] (with offsets), got ", describe(input));
  WICK_CHECK(!options.scale_grad_by_freq() && !options.sparse(), ValueError, op,
             "scale_grad_by_freq and sparse gradients are not supported by wick");
  const Tensor& offsets = options.offsets();
  if (input.dim() == 2) {
    WICK_CHECK(!offsets.defined(), ValueError, op, "offsets must be undefined for a 2-D input ",
               describe(input), " (each row is a bag), got ", describe(offsets));
  } else {
    WICK_CHECK(offsets.defined() && offsets.dim() == 1 && offsets.dtype() == kInt64, ValueError, op,
               "a 1-D input ", describe(input), " needs 1-D int64 offsets, got ",
               offsets.defined() ? describe(offsets) : std::string("none"));
  }
  const Tensor& sample_weights = options.per_sample_weights();
  if (sample_weights.defined()) {
    WICK_CHECK(options.mode() == EmbeddingBagMode::Sum, ValueError, op,
               "per_sample_weights is only supported for mode sum, got mode ",
               mode_name(options.mode()));
    WICK_CHECK(
        sample_weights.sizes() == input.sizes() && sample_weights.dtype() == weight.dtype() &&
            sample_weights.device() == weight.device(),
        ShapeError, op, "per_sample_weights ", describe(sample_weights),
        " must have the input's sizes ", describe(input), " and the weight's dtype and device");
  }
  const int64_t num = weight.size(0), dim = weight.size(1);
  std::optional<int64_t> padding = options.padding_idx();
  if (padding) {
    WICK_CHECK(*padding >= -num && *padding < num, IndexError, op, "padding_idx ", *padding,
               " must be within [", -num, ", ", num, ")");
    if (*padding < 0) padding = *padding + num;
  }
  const Bags bags = read_bags(op, input, offsets, options, padding);
  const auto kept = static_cast<int64_t>(bags.positions.size());
  if (kept == 0) return zeros({bags.count, dim}, weight.options().requires_grad(false));
  const TensorOptions index_options = TensorOptions(kInt64);
  const Tensor positions = tensor(bags.positions, Shape{kept}, index_options).to(input.device());
  EmbeddingFuncOptions lookup;
  lookup.max_norm(options.max_norm()).norm_type(options.norm_type());
  Tensor rows = embedding(input.reshape({-1}).index_select(0, positions), weight, lookup);
  if (options.mode() == EmbeddingBagMode::Max) return bag_max(rows, bags, dim);
  if (sample_weights.defined()) {
    rows = rows * sample_weights.reshape({-1}).index_select(0, positions).unsqueeze(1);
  }
  const Tensor bag_of = tensor(bags.bag_of, Shape{kept}, index_options).to(input.device());
  const Tensor sums =
      index_add(zeros({bags.count, dim}, weight.options().requires_grad(false)), 0, bag_of, rows);
  if (options.mode() == EmbeddingBagMode::Sum) return sums;
  std::vector<double> divisors(bags.sizes.begin(), bags.sizes.end());
  for (double& d : divisors) d = std::max(d, 1.0);  // an empty bag's zeros stay zeros
  return sums / tensor(divisors, Shape{bags.count, 1}, TensorOptions(kFloat64))
                    .to(weight.dtype())
                    .to(weight.device());
}

EmbeddingBagImpl::EmbeddingBagImpl(EmbeddingBagOptions options) : options_(std::move(options)) {
  const char* op = "nn::EmbeddingBag";
  const int64_t num = options_.num_embeddings(), dim = options_.embedding_dim();
  WICK_CHECK(num >= 0 && dim >= 0, ValueError, op, "num_embeddings ", num, " and embedding_dim ",
             dim, " must not be negative");
  if (options_.padding_idx()) {
    const int64_t p = *options_.padding_idx();
    WICK_CHECK(p >= -num && p < num, IndexError, op, "padding_idx ", p, " must be within [", -num,
               ", ", num, ")");
    options_.padding_idx(p < 0 ? p + num : p);
  }
  if (options_._weight().defined()) {
    WICK_CHECK(options_._weight().sizes() == Shape({num, dim}), ShapeError, op,
               "_weight must have shape [num_embeddings, embedding_dim] = ", Shape({num, dim}),
               ", got ", describe(options_._weight()));
    weight = register_parameter("weight", options_._weight());
  } else {
    weight = register_parameter("weight", empty({num, dim}));
    reset_parameters();
  }
}

void EmbeddingBagImpl::reset_parameters() {
  NoGradGuard no_grad;
  weight.copy_(randn(weight.sizes(), weight.options()));
  if (options_.padding_idx()) weight.select(0, *options_.padding_idx()).fill_(0);
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets,
                                 const Tensor& per_sample_weights) const {
  return functional::embedding_bag(input, weight,
                                   EmbeddingBagFuncOptions()
                                       .offsets(offsets)
                                       .max_norm(options_.max_norm())
                                       .norm_type(options_.norm_type())
                                       .scale_grad_by_freq(options_.scale_grad_by_freq())
                                       .mode(options_.mode())
                                       .sparse(options_.sparse())
                                       .per_sample_weights(per_sample_weights)
                                       .include_last_offset(options_.include_last_offset())
                                       .padding_idx(options_.padding_idx()));
}

std::string EmbeddingBagImpl::extra_repr() const {
  std::ostringstream out;
  out << options_.num_embeddings() << ", " << options_.embedding_dim();
  if (options_.max_norm()) out << ", max_norm=" << *options_.max_norm();
  if (options_.norm_type() != 2.0) out << ", norm_type=" << options_.norm_type();
  out << ", mode=" << mode_name(options_.mode());
  if (options_.padding_idx()) out << ", padding_idx=" << *options_.padding_idx();
  return out.str();
}

}  // namespace wick::nn
