// mpi_backend.hpp: the MPI transport (CPU tensors, and CUDA tensors staged through the host
// where NCCL is missing) and the MPI helpers ProcessGroup uses for its handshake and barrier;
// internal, not installed. Every call is non-blocking and polled against a deadline
// (Note [Bounded waits] in process_group.hpp); communicators use MPI_ERRORS_RETURN, so an MPI
// failure becomes a CommError instead of an abort. Tested by tests/distributed.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "detail.hpp"

namespace wick::distributed::detail {

// Throws CommError "<what>: <call> failed: <MPI error string>" unless code is MPI_SUCCESS.
void check_mpi(int code, const char* call, const std::string& what);

// The MPI type that carries one element of dtype (bool travels as uint8).
MPI_Datatype mpi_type(Dtype dtype);

// A set of MPI requests polled with MPI_Testall.
class MpiWork final : public PollWork {
 public:
  MpiWork(std::string what, Clock::time_point deadline, std::shared_ptr<Health> health)
      : PollWork(std::move(what), deadline, std::move(health)) {}
  ~MpiWork() override { finish_in_destructor(); }
  // Adds a request the Work owns (started by the caller).
  MPI_Request* add_request();

 protected:
  bool test() override;

 private:
  std::vector<MPI_Request> requests_;
};

std::unique_ptr<Transport> make_mpi_transport(MPI_Comm comm, const TransportContext* context);

}  // namespace wick::distributed::detail
