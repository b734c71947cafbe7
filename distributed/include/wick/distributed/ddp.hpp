// ddp.hpp: wick::distributed::DistributedDataParallel, data parallelism for an nn::Module. At
// construction every rank checks that the others hold the same parameter list (count, shapes,
// dtypes), and rank 0's parameter values are broadcast to all. After loss.backward(),
// average_gradients() replaces each parameter's gradient by the average over the ranks, so
// any optimizer then takes the same step everywhere (the parameters stay identical).
// Note [Gradient buckets]: gradients travel in flat buckets of at most bucket_cap_bytes (25 MB,
// as PyTorch), filled in reverse registration order (roughly the order backward produces them)
// and split where the dtype or device changes; the buckets and their order are fixed at
// construction, so the reductions are the same from run to run. All buckets' all-reduces are
// started before the first is waited for. A parameter whose gradient is undefined on every rank
// keeps it undefined; one that has it on some ranks only gets zeros from the others.
// Note [Overlap with backward]: PyTorch starts a bucket's all-reduce as soon as its gradients
// are ready during backward. That needs a "gradient of this leaf is ready" hook in the autograd
// engine (autograd::register_grad_ready_hook, designed in docs/distributed.md). Where autograd
// has it (WICK_AUTOGRAD_HAS_GRAD_READY_HOOK), each bucket is launched from the hook of its last
// parameter, buckets strictly in order; otherwise, and for buckets whose parameters got no
// gradient, average_gradients() launches them. With the hook, call average_gradients() after
// every backward() (or turn overlap_with_backward off to accumulate over several passes).
// Tested by tests/distributed/test_ddp.cpp (1, 2 and 3 ranks equal 1 process on the
// concatenated batch, float64).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "wick/distributed/process_group.hpp"
#include "wick/nn/module.hpp"

namespace wick::distributed {

struct DistributedDataParallelOptions {
  // The most bytes one bucket holds (a parameter larger than this gets a bucket of its own).
  int64_t bucket_cap_bytes = 25 * 1024 * 1024;
  // Broadcast rank 0's parameters at construction (off: the caller guarantees equal values).
  bool broadcast_parameters = true;
  // Run the group's descriptor handshake before each bucket's all-reduce too (the parameter
  // list is checked once at construction; off saves one small all-gather per bucket and step).
  bool check_buckets = false;
  // Start each bucket's all-reduce from the backward pass (Note [Overlap with backward]); has
  // an effect only where autograd has the grad-ready hook.
  bool overlap_with_backward = true;
};

// One bucket: indices into parameters(), in the order they sit in the flat buffer.
struct GradientBucket {
  std::vector<size_t> parameters;
  Dtype dtype = kFloat32;
  Device device;
  int64_t numel = 0;
};

class DistributedDataParallel {
 public:
  // Collective: every rank constructs it with a module of the same structure.
  DistributedDataParallel(const nn::Module& module, std::shared_ptr<ProcessGroup> group,
                          DistributedDataParallelOptions options = {});
  ~DistributedDataParallel();
  // The backward hooks point at this object: it stays where it was made.
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;
  // From a module handle (nn::Sequential, nn::Linear, ...).
  template <typename Holder>
  requires requires(const Holder& h) {
    typename Holder::Impl;
    h.ptr();
  }
  DistributedDataParallel(const Holder& holder, std::shared_ptr<ProcessGroup> group,
                          DistributedDataParallelOptions options = {})
      : DistributedDataParallel(static_cast<const nn::Module&>(*holder), std::move(group),
                                options) {}

  // Averages every gradient across the ranks (collective; call after backward(), before the
  // optimizer's step()).
  void average_gradients();
  // Gives every rank root's parameter values (collective).
  void broadcast_parameters(int root = 0);

  const std::vector<Tensor>& parameters() const { return parameters_; }
  const std::vector<GradientBucket>& buckets() const { return buckets_; }
  ProcessGroup& group() const { return *group_; }
  // True when buckets start during backward (Note [Overlap with backward]).
  bool overlaps_backward() const { return !hook_handles_.empty(); }
  // How many buckets the last average_gradients() found already started by backward.
  size_t buckets_started_in_backward() const { return last_started_in_backward_; }

 private:
  struct BucketState {
    size_t ready = 0;  // parameters whose gradient is final for this step
    Tensor flat;
    std::shared_ptr<Work> work;
  };
  void check_same_structure();
  void on_grad_ready(size_t parameter);
  void launch(size_t bucket);
  void reset_step();

  std::shared_ptr<ProcessGroup> group_;
  DistributedDataParallelOptions options_;
  std::vector<Tensor> parameters_;
  std::vector<GradientBucket> buckets_;
  std::vector<BucketState> state_;
  std::vector<size_t> bucket_of_;  // parameter -> bucket (buckets_.size(): none)
  std::vector<bool> ready_;        // parameter -> its hook fired this step
  std::vector<int64_t> has_grad_;  // in bucket order: 1 where this rank had a gradient
  size_t next_launch_ = 0;         // buckets start strictly in order
  size_t started_in_backward_ = 0;
  size_t last_started_in_backward_ = 0;
  std::vector<uint64_t> hook_handles_;
};

}  // namespace wick::distributed
