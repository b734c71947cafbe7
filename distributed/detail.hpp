// detail.hpp: wick::distributed internals shared by process_group.cpp and the two transports
// (mpi_backend.cpp, nccl_backend.cpp); not installed. A Transport runs one collective on
// contiguous buffers of one device type and returns a PollWork; ProcessGroup does everything
// that does not depend on the transport (descriptor handshake, staging of non-contiguous
// tensors, writing results back). Note [Bounded waits] is in process_group.hpp.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "wick/distributed/process_group.hpp"

namespace wick::distributed::detail {

using Clock = std::chrono::steady_clock;

// Shared by a group and its Works: set once a wait timed out or a transport failed.
struct Health {
  bool broken = false;
  std::string reason;
};

// Marks the process after a timeout or a transport failure: MPI_Finalize at exit is then
// bounded by a watchdog of finalize_limit (Note [Finalize after a timeout], process_group.cpp).
void poison_process(std::chrono::milliseconds finalize_limit);

// The polling rhythm of every bounded wait: yield for the first 100 ms (collectives that are
// merely slow keep their latency), then sleep 200 us between polls (a peer that is gone for
// longer does not cost a core).
class Backoff {
 public:
  Backoff() : start_(Clock::now()) {}
  void pause();
  double elapsed_s() const;

 private:
  Clock::time_point start_;
};

// A collective in flight: test() polls the transport; wait() polls until done or the deadline,
// then runs the finishing steps (an average's division, a copy back into a strided tensor).
class PollWork : public Work {
 public:
  PollWork(std::string what, Clock::time_point deadline, std::shared_ptr<Health> health)
      : what_(std::move(what)), deadline_(deadline), health_(std::move(health)) {}
  // Subclasses must call finish_in_destructor() in their own destructor (test() is virtual).
  ~PollWork() override = default;

  bool is_completed() override;
  void wait() override;

  // Run in order once the transport is done. Tensors in keep_alive live as long as the Work,
  // and for ever after a timeout (the transport may still write into them).
  void then(std::function<void()> step) { steps_.push_back(std::move(step)); }
  void keep_alive(Tensor t) { keep_alive_.push_back(std::move(t)); }
  const std::string& what() const { return what_; }

 protected:
  // true when the transport has finished; throws CommError on a transport failure.
  virtual bool test() = 0;
  // After a timeout: cancel what can be cancelled (NCCL: ncclCommAbort).
  virtual void on_timeout() {}
  void finish_in_destructor() noexcept;

 private:
  void complete();
  [[noreturn]] void fail_timeout();

  std::string what_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point deadline_;
  std::shared_ptr<Health> health_;
  std::vector<std::function<void()>> steps_;
  std::vector<Tensor> keep_alive_;
  bool done_ = false;
  bool failed_ = false;
};

// One device type's way of moving bytes. Buffers are contiguous, on the transport's device, of
// the same dtype; `what` names the collective in messages.
class Transport {
 public:
  virtual ~Transport() = default;
  // In place on buffer.
  virtual std::shared_ptr<PollWork> all_reduce(const Tensor& buffer, ReduceOp op,
                                               std::string what) = 0;
  virtual std::shared_ptr<PollWork> broadcast(const Tensor& buffer, int root, std::string what) = 0;
  // output holds size() * input.numel() elements.
  virtual std::shared_ptr<PollWork> all_gather(const Tensor& input, const Tensor& output,
                                               std::string what) = 0;
  // input holds size() * output.numel() elements.
  virtual std::shared_ptr<PollWork> reduce_scatter(const Tensor& input, const Tensor& output,
                                                   ReduceOp op, std::string what) = 0;
};

struct TransportContext {
  int rank = 0;
  int size = 1;
  std::chrono::milliseconds timeout{0};
  std::shared_ptr<Health> health;
  Clock::time_point deadline() const { return Clock::now() + timeout; }
};

// Throws TimeoutError (and marks the group broken) after `what` waited past its deadline.
[[noreturn]] void throw_timeout(const std::string& what, double waited_s, Health& health);

}  // namespace wick::distributed::detail
