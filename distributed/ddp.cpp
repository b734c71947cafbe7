// ddp.cpp: DistributedDataParallel (ddp.hpp): the structure check, the parameter broadcast and
// the bucketed gradient average of Note [Gradient buckets]. Everything runs under NoGradGuard;
// averaged gradients become views into the bucket's flat buffer (no copy back), the way
// PyTorch's gradient_as_bucket_view does. Tested by tests/distributed/test_ddp.cpp.
#include "wick/distributed/ddp.hpp"

#include <sstream>

#include "wick/autograd.hpp"
#include "wick/ops.hpp"

namespace wick::distributed {
namespace {

// Consecutive runs of `order` (indices into params) that share dtype and device, cut so that a
// bucket holds at most cap_bytes (a larger parameter gets a bucket of its own).
std::vector<GradientBucket> make_buckets(const std::vector<Tensor>& params,
                                         const std::vector<size_t>& order, int64_t cap_bytes) {
  std::vector<GradientBucket> buckets;
  for (size_t i : order) {
    const Tensor& p = params[i];
    const auto nbytes = static_cast<int64_t>(p.nbytes());
    const bool fits =
        !buckets.empty() && buckets.back().dtype == p.dtype() &&
        buckets.back().device == p.device() &&
        (buckets.back().numel * static_cast<int64_t>(element_size(p.dtype())) + nbytes <=
         cap_bytes);
    if (!fits) {
      GradientBucket bucket;
      bucket.dtype = p.dtype();
      bucket.device = p.device();
      buckets.push_back(bucket);
    }
    buckets.back().parameters.push_back(i);
    buckets.back().numel += p.numel();
  }
  return buckets;
}

// FNV-1a over the parameters' ranks, sizes and dtypes.
int64_t structure_hash(const std::vector<Tensor>& params) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](int64_t v) {
    for (int byte = 0; byte < 8; ++byte) {
      h ^= static_cast<uint64_t>(v >> (8 * byte)) & 0xffu;
      h *= 1099511628211ull;
    }
  };
  for (const Tensor& p : params) {
    mix(p.dim());
    for (int64_t s : p.sizes()) mix(s);
    mix(static_cast<int64_t>(p.dtype()));
  }
  return static_cast<int64_t>(h);
}

Tensor flat_slice(const Tensor& flat, int64_t offset, const Tensor& like) {
  return flat.narrow(0, offset, like.numel()).view(like.sizes());
}

}  // namespace

DistributedDataParallel::DistributedDataParallel(const nn::Module& module,
                                                 std::shared_ptr<ProcessGroup> group,
                                                 DistributedDataParallelOptions options)
    : group_(std::move(group)), options_(options), parameters_(module.parameters()) {
  WICK_CHECK(group_ != nullptr, ValueError, "DistributedDataParallel", "the process group is null");
  WICK_CHECK(options_.bucket_cap_bytes > 0, ValueError, "DistributedDataParallel",
             "bucket_cap_bytes must be positive, got ", options_.bucket_cap_bytes);
  check_same_structure();
  if (options_.broadcast_parameters) broadcast_parameters(0);
  // Note [Gradient buckets]: reverse registration order, parameters that take gradients only.
  std::vector<size_t> order;
  for (size_t i = parameters_.size(); i-- > 0;) {
    if (parameters_[i].requires_grad()) order.push_back(i);
  }
  buckets_ = make_buckets(parameters_, order, options_.bucket_cap_bytes);
}

void DistributedDataParallel::check_same_structure() {
  int64_t numel = 0;
  for (const Tensor& p : parameters_) numel += p.numel();
  Tensor mine = tensor(std::vector<int64_t>{static_cast<int64_t>(parameters_.size()), numel,
                                            structure_hash(parameters_)});
  if (group_->size() == 1) return;
  const std::vector<int64_t> all = group_->all_gather(mine).to_vector<int64_t>();
  bool same = true;
  for (size_t r = 1; r < all.size() / 3; ++r) {
    for (size_t k = 0; k < 3; ++k) same = same && all[3 * r + k] == all[k];
  }
  if (same) return;
  std::ostringstream ranks;
  for (size_t r = 0; r < all.size() / 3; ++r) {
    ranks << (r > 0 ? "; " : "") << "rank " << r << ": " << all[3 * r] << " parameters, "
          << all[3 * r + 1] << " elements, structure hash " << std::hex << all[3 * r + 2]
          << std::dec;
  }
  ::wick::detail::fail<ShapeError>("DistributedDataParallel",
                                   "the ranks' modules differ (parameter count, shapes or "
                                   "dtypes): ",
                                   ranks.str());
}

void DistributedDataParallel::broadcast_parameters(int root) {
  if (group_->size() == 1) return;
  NoGradGuard no_grad;
  std::vector<size_t> order(parameters_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const std::vector<GradientBucket> buckets =
      make_buckets(parameters_, order, options_.bucket_cap_bytes);
  std::vector<Tensor> flats;
  std::vector<std::shared_ptr<Work>> works;
  for (const GradientBucket& bucket : buckets) {
    Tensor flat = empty({bucket.numel}, TensorOptions().dtype(bucket.dtype).device(bucket.device));
    int64_t offset = 0;
    for (size_t i : bucket.parameters) {
      flat_slice(flat, offset, parameters_[i]).copy_(parameters_[i]);
      offset += parameters_[i].numel();
    }
    works.push_back(group_->broadcast_async(flat, root));
    flats.push_back(flat);
  }
  for (auto& work : works) work->wait();
  for (size_t b = 0; b < buckets.size(); ++b) {
    int64_t offset = 0;
    for (size_t i : buckets[b].parameters) {
      parameters_[i].copy_(flat_slice(flats[b], offset, parameters_[i]));
      offset += parameters_[i].numel();
    }
  }
}

void DistributedDataParallel::average_gradients() {
  if (group_->size() == 1) return;
  NoGradGuard no_grad;
  // The buckets' descriptors were checked once, at construction (same parameter list on every
  // rank), so their all-reduces skip the handshake unless asked for.
  const bool checked = group_->check_shapes();
  group_->set_check_shapes(options_.check_buckets);
  struct Restore {
    ProcessGroup& group;
    bool on;
    ~Restore() { group.set_check_shapes(on); }
  } restore{*group_, checked};

  // Launch every bucket, in the fixed order (Note [Gradient buckets]); missing gradients are
  // zeros. Then ask which parameters have a gradient on some rank (logical or), launched after
  // the buckets so that a future backward hook can start buckets earlier without reordering.
  std::vector<Tensor> flats;
  std::vector<std::shared_ptr<Work>> works;
  std::vector<int64_t> has;
  for (const GradientBucket& bucket : buckets_) {
    Tensor flat = empty({bucket.numel}, TensorOptions().dtype(bucket.dtype).device(bucket.device));
    int64_t offset = 0;
    for (size_t i : bucket.parameters) {
      Tensor slice = flat_slice(flat, offset, parameters_[i]);
      const Tensor& grad = parameters_[i].grad();
      if (grad.defined()) {
        slice.copy_(grad);
      } else {
        slice.zero_();
      }
      has.push_back(grad.defined() ? 1 : 0);
      offset += parameters_[i].numel();
    }
    works.push_back(group_->all_reduce_async(flat, ReduceOp::Average));
    flats.push_back(flat);
  }
  Tensor any = tensor(has);
  works.push_back(group_->all_reduce_async(any, ReduceOp::Max));
  for (auto& work : works) work->wait();

  const std::vector<int64_t> any_grad = any.to_vector<int64_t>();
  size_t position = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    int64_t offset = 0;
    for (size_t i : buckets_[b].parameters) {
      if (any_grad[position++] != 0) {
        parameters_[i].mutable_grad() = flat_slice(flats[b], offset, parameters_[i]);
      }
      offset += parameters_[i].numel();
    }
  }
}

}  // namespace wick::distributed
