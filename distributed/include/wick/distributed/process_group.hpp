// process_group.hpp: wick::distributed::ProcessGroup, the ranks of an MPI job and the
// collectives between them on wick tensors: all_reduce (sum, average, max, min), broadcast,
// all_gather, reduce_scatter, barrier. CPU tensors travel through MPI, CUDA tensors through NCCL
// (its communicator is made on first use, bootstrapped by broadcasting ncclUniqueId over MPI).
// Every dtype (bool, int64, float32, float64), any strides (non-contiguous tensors are staged
// through a contiguous copy and written back). Before each collective the ranks exchange a
// small descriptor (kind, sequence number, dtype, device type, shape, op or root), so that a
// mismatch is a wick::Error on every rank instead of a hang or garbage; and every wait is
// bounded by a timeout, after which TimeoutError is thrown and the group is unusable.
// Note [Bounded waits]: MPI collectives are started non-blocking (MPI_Iallreduce, ...) and
// polled with MPI_Test against a deadline; NCCL runs with a non-blocking communicator, polled
// with ncclCommGetAsyncError and a CUDA event, and is aborted (ncclCommAbort) on timeout.
// Tested by tests/distributed under mpirun with 1, 2 and 3 ranks; see docs/distributed.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "wick/tensor.hpp"

namespace wick::distributed {

// A peer did not take part in a collective before the group's timeout (it exited, crashed,
// hangs, or called something else). The group is broken afterwards: every later call throws.
class TimeoutError : public Error {
  using Error::Error;
};
// MPI or NCCL reported a failure (a lost connection, a peer's abort, a bad argument).
class CommError : public Error {
  using Error::Error;
};

enum class ReduceOp : int8_t { Sum = 0, Average = 1, Max = 2, Min = 3 };
// "sum", "average", "max", "min".
const char* reduce_op_name(ReduceOp op);

// The timeout of a group when none is given: $WICK_DISTRIBUTED_TIMEOUT seconds (a decimal
// number) if set, else 600 s, as PyTorch's NCCL default.
std::chrono::milliseconds default_timeout();

struct ProcessGroupOptions {
  // How long one collective may wait for its peers.
  std::chrono::milliseconds timeout = default_timeout();
  // Exchange and compare a descriptor before every collective (one small MPI_Allgather of 16
  // int64 per rank). Off: a mismatch across ranks is undefined (MPI may truncate or hang until
  // the timeout); a local argument error then throws on that rank only.
  bool check_shapes = true;
};

// A collective in flight. wait() returns when this rank's part is done (results written back
// into the caller's tensors) or throws TimeoutError / CommError. Dropping a Work that was not
// waited for waits for it (errors are then swallowed and the group marked broken).
class Work {
 public:
  virtual ~Work() = default;
  // Polls once; true when wait() would return at once.
  virtual bool is_completed() = 0;
  virtual void wait() = 0;
};

class ProcessGroup {
 public:
  // The group of every process of the MPI job (MPI_COMM_WORLD, duplicated so that wick's
  // traffic never mixes with the user's). Initialises MPI when nobody has, and finalises it at
  // exit; after a timeout that MPI_Finalize is bounded by a watchdog that ends the process with
  // status 1 (Note [Finalize after a timeout] in process_group.cpp). Collective: every rank
  // must call it.
  static std::shared_ptr<ProcessGroup> world(ProcessGroupOptions options = {});
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const;
  int size() const;
  // Rank and count among the processes on this machine (MPI_Comm_split_type, shared memory):
  // the GPU to use is local_rank() % cuda::device_count().
  int local_rank() const;
  int local_size() const;
  // cuda:local_rank() % device_count() when wick has a usable GPU, else cpu.
  Device default_device() const;
  // True when this build can reduce CUDA tensors (NCCL found at build time).
  static bool has_nccl();

  std::chrono::milliseconds timeout() const;
  void set_timeout(std::chrono::milliseconds timeout);
  bool check_shapes() const;
  void set_check_shapes(bool on);
  // True after a timeout or a communication error; every collective then throws.
  bool is_broken() const;

  // ---- collectives; every rank calls the same ones in the same order ----
  // In place: tensor becomes the reduction of every rank's tensor. Average is sum / size() and
  // needs a floating dtype. On bool tensors sum and max are logical or, min logical and.
  void all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::Sum);
  std::shared_ptr<Work> all_reduce_async(const Tensor& tensor, ReduceOp op = ReduceOp::Sum);
  // In place: tensor becomes root's tensor.
  void broadcast(const Tensor& tensor, int root = 0);
  std::shared_ptr<Work> broadcast_async(const Tensor& tensor, int root = 0);
  // A new contiguous tensor [size(), *input.sizes()] whose row r is rank r's input (same shape
  // on every rank).
  Tensor all_gather(const Tensor& input);
  // input [size() * k, ...]: rank r gets rows [r k, (r + 1) k) of the reduction of every
  // rank's input, as a new contiguous tensor [k, ...] (torch's reduce_scatter_tensor).
  Tensor reduce_scatter(const Tensor& input, ReduceOp op = ReduceOp::Sum);
  // Returns when every rank has entered it (a host barrier over MPI; it does not wait for
  // queued GPU work: call cuda::synchronize() first when that matters).
  void barrier();

  // Implementation state (MPI communicators, the NCCL communicator): process_group.cpp.
  struct State;
  explicit ProcessGroup(std::unique_ptr<State> state);

 private:
  std::unique_ptr<State> state_;
};

}  // namespace wick::distributed
