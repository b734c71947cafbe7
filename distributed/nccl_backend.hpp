// nccl_backend.hpp: the NCCL transport for CUDA tensors (internal; compiled only when
// WICK_DISTRIBUTED_NCCL). One non-blocking communicator per group, bound to one GPU, made on the
// first CUDA collective: rank 0's ncclUniqueId reaches the others through `broadcast_id` (an
// MPI broadcast with a deadline), then ncclCommInitRankConfig (config.blocking = 0) is polled
// with ncclCommGetAsyncError. Collectives run on wick's stream of that device (the legacy
// default stream, Note [One stream per device] in kernels/cuda/runtime.hpp), so they are
// ordered with every wick op; a Work is complete when a CUDA event recorded after it has fired.
// On a timeout or an asynchronous NCCL error the communicator is aborted (ncclCommAbort).
// Compiled in CI; it has not run yet (no GPU was lent): see docs/distributed.md.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "detail.hpp"

namespace wick::distributed::detail {

using BroadcastBytes = std::function<void(void* data, size_t nbytes)>;

std::unique_ptr<Transport> make_nccl_transport(int device, const TransportContext* context,
                                               const BroadcastBytes& broadcast_id);

}  // namespace wick::distributed::detail
