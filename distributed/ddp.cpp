// ddp.cpp: DistributedDataParallel (ddp.hpp): the structure check, the parameter broadcast and
// the bucketed gradient average of Note [Gradient buckets]. Everything runs under NoGradGuard;
// averaged gradients become views into the bucket's flat buffer (no copy back), the way
// PyTorch's gradient_as_bucket_view does. Tested by tests/distributed/test_ddp.cpp.
#include "wick/distributed/ddp.hpp"

#include <sstream>
#include <utility>

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
  bucket_of_.assign(parameters_.size(), buckets_.size());
  for (size_t b = 0; b < buckets_.size(); ++b) {
    for (size_t i : buckets_[b].parameters) bucket_of_[i] = b;
  }
  reset_step();
#if defined(WICK_AUTOGRAD_HAS_GRAD_READY_HOOK)
  if (options_.overlap_with_backward && group_->size() > 1) {
    for (size_t b = 0; b < buckets_.size(); ++b) {
      for (size_t i : buckets_[b].parameters) {
        hook_handles_.push_back(autograd::register_grad_ready_hook(
            parameters_[i], [this, i](const Tensor&) { on_grad_ready(i); }));
      }
    }
  }
#endif
}

DistributedDataParallel::~DistributedDataParallel() {
#if defined(WICK_AUTOGRAD_HAS_GRAD_READY_HOOK)
  for (uint64_t handle : hook_handles_) autograd::remove_grad_ready_hook(handle);
#endif
}

void DistributedDataParallel::reset_step() {
  state_.assign(buckets_.size(), BucketState{});
  ready_.assign(parameters_.size(), false);
  has_grad_.assign(parameters_.size(), 0);
  next_launch_ = 0;
}

// Called from backward (the grad-ready hook) when parameter i's gradient is final.
void DistributedDataParallel::on_grad_ready(size_t i) {
  const size_t b = bucket_of_[i];
  if (b == buckets_.size()) return;
  WICK_CHECK(b >= next_launch_, ValueError, "DistributedDataParallel",
             "a second backward() reached parameter ", i, " after its bucket's all-reduce had ",
             "started; call average_gradients() after every backward(), or set ",
             "overlap_with_backward = false to accumulate gradients over several passes");
  if (ready_[i]) return;
  ready_[i] = true;
  ++state_[b].ready;
  while (next_launch_ < buckets_.size() &&
         state_[next_launch_].ready == buckets_[next_launch_].parameters.size()) {
    launch(next_launch_++);
    ++started_in_backward_;
  }
  // MPI moves data only inside MPI calls: poll what is in flight to keep it going.
  for (size_t k = 0; k < next_launch_; ++k) state_[k].work->is_completed();
}

// Packs bucket b's gradients (zeros where there is none) and starts its all-reduce.
void DistributedDataParallel::launch(size_t b) {
  NoGradGuard no_grad;
  const GradientBucket& bucket = buckets_[b];
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
    has_grad_[i] = grad.defined() ? 1 : 0;
    offset += parameters_[i].numel();
  }
  // The parameter list was checked at construction: skip the per-call handshake unless asked.
  const bool checked = group_->check_shapes();
  group_->set_check_shapes(options_.check_buckets);
  struct Restore {
    ProcessGroup& group;
    bool on;
    ~Restore() { group.set_check_shapes(on); }
  } restore{*group_, checked};
  state_[b].flat = flat;
  state_[b].work = group_->all_reduce_async(flat, ReduceOp::Average);
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
  // Buckets backward has not started (no hook here, or parameters without a gradient), in
  // order; then which parameters have a gradient on some rank (logical or), launched after the
  // buckets so that the sequence of collectives is the same with and without the hook.
  const size_t started = started_in_backward_;
  while (next_launch_ < buckets_.size()) launch(next_launch_++);
  std::vector<int64_t> has;
  for (const GradientBucket& bucket : buckets_) {
    for (size_t i : bucket.parameters) has.push_back(has_grad_[i]);
  }
  Tensor any = tensor(has);
  std::shared_ptr<Work> any_work = group_->all_reduce_async(any, ReduceOp::Max);
  for (BucketState& s : state_) s.work->wait();
  any_work->wait();

  const std::vector<int64_t> any_grad = any.to_vector<int64_t>();
  size_t position = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    int64_t offset = 0;
    for (size_t i : buckets_[b].parameters) {
      if (any_grad[position++] != 0) {
        parameters_[i].mutable_grad() = flat_slice(state_[b].flat, offset, parameters_[i]);
      }
      offset += parameters_[i].numel();
    }
  }
  reset_step();
  started_in_backward_ = 0;
  last_started_in_backward_ = started;
}

}  // namespace wick::distributed
