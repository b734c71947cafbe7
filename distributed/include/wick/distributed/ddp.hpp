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
// Note [No overlap with backward yet]: PyTorch starts a bucket's all-reduce as soon as its
// gradients are ready during backward; that needs a "gradient of this leaf is ready" hook in the
// autograd engine, which docs/distributed.md designs; until it exists the buckets are reduced
// after backward. Tested by tests/distributed/test_ddp.cpp (2 and 3 ranks equal 1 rank on the
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

 private:
  void check_same_structure();

  std::shared_ptr<ProcessGroup> group_;
  DistributedDataParallelOptions options_;
  std::vector<Tensor> parameters_;
  std::vector<GradientBucket> buckets_;
};

}  // namespace wick::distributed
