// torch_peer.hpp: libtorch's matmul as a bench peer, behind plain pointers so that only
// torch_peer.cpp sees torch's headers (built only when find_package(Torch) succeeds).
#pragma once

#include <cstdint>

namespace torch_peer {
void set_threads(int threads);
// C[m x n] = A[m x k] @ B[k x n], all row-major float, C written in place (at::mm_out); with
// trans_b, B is stored n x k and C = A @ B^T.
void mm(const float* a, const float* b, float* c, int64_t m, int64_t k, int64_t n, bool trans_b);
}  // namespace torch_peer
