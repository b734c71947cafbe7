// torch_peer.cpp: see torch_peer.hpp. from_blob wraps the bench's buffers without copying and
// mm_out writes into C, so torch does the same work as the other peers (no allocation).
#include "torch_peer.hpp"

#include <torch/torch.h>

namespace torch_peer {

void set_threads(int threads) { torch::set_num_threads(threads); }

void mm(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n, bool trans_b) {
  auto opts = torch::TensorOptions().dtype(torch::kFloat32);
  torch::Tensor ta = torch::from_blob(const_cast<float*>(a), {m, k}, opts);
  // B stored as n x k and used transposed: a view, as the other peers read it, no copy.
  torch::Tensor tb = trans_b ? torch::from_blob(const_cast<float*>(b), {n, k}, opts).t()
                             : torch::from_blob(const_cast<float*>(b), {k, n}, opts);
  torch::Tensor tc = torch::from_blob(c, {m, n}, opts);
  torch::NoGradGuard no_grad;
  at::mm_out(tc, ta, tb);
}

}  // namespace torch_peer
