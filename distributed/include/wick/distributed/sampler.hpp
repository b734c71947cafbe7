// sampler.hpp: wick::distributed::DistributedSampler, each rank's share of a data set of n
// samples, with PyTorch's rules (torch.utils.data.DistributedSampler): the epoch's order is a
// permutation of 0..n-1 (shuffle) or the identity, padded by repeating its head to a multiple
// of the number of ranks (or cut to one, drop_last), and rank r takes every num_replicas-th
// index starting at r. The permutation depends only on (seed, epoch), through a
// platform-independent generator (SplitMix64 and Fisher-Yates), so every rank computes the same
// one and set_epoch() reshuffles. With rank r's batches of b, step k of all ranks together
// covers positions [k R b, (k + 1) R b) of the epoch's order: one process with batches of R b
// sees the same samples per step. Tested by tests/distributed/test_sampler.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "wick/distributed/process_group.hpp"

namespace wick::distributed {

struct DistributedSamplerOptions {
  bool shuffle = true;
  uint64_t seed = 0;
  // Drop the tail so that every rank gets n / num_replicas samples (else pad by repeating).
  bool drop_last = false;
};

class DistributedSampler {
 public:
  DistributedSampler(int64_t dataset_size, int num_replicas, int rank,
                     DistributedSamplerOptions options = {});
  // The group's size and rank; rank 0's seed is broadcast so that every rank shuffles alike
  // (collective).
  DistributedSampler(int64_t dataset_size, ProcessGroup& group,
                     DistributedSamplerOptions options = {});

  void set_epoch(int64_t epoch) { epoch_ = epoch; }
  int64_t epoch() const { return epoch_; }
  // This rank's indices for the current epoch, in order.
  std::vector<int64_t> indices() const;
  // The whole epoch's order (padded or cut to total_size()); indices() is a stride of it.
  std::vector<int64_t> epoch_order() const;
  int64_t num_samples() const { return num_samples_; }  // per rank
  int64_t total_size() const { return num_samples_ * num_replicas_; }
  uint64_t seed() const { return options_.seed; }

 private:
  int64_t dataset_size_;
  int num_replicas_;
  int rank_;
  DistributedSamplerOptions options_;
  int64_t num_samples_ = 0;
  int64_t epoch_ = 0;
};

// The permutation of 0..n-1 for (seed, epoch): Fisher-Yates driven by SplitMix64, with unbiased
// bounded draws. Same result on every platform.
std::vector<int64_t> random_permutation(int64_t n, uint64_t seed, int64_t epoch);

}  // namespace wick::distributed
