// nccl_backend.cpp: the NCCL transport (see nccl_backend.hpp for the design). Types: bool
// travels as ncclUint8 (sum and max are ncclMax, i.e. logical or; min is ncclMin), int64 as
// ncclInt64, float32/float64 as ncclFloat32/ncclFloat64; average is ncclAvg (NCCL >= 2.10,
// else a sum and a division). Every NCCL call may answer ncclInProgress (non-blocking
// communicator): the state is then polled with ncclCommGetAsyncError until it settles, within
// the collective's deadline. Compiled in CI, not yet run (no GPU lent): docs/distributed.md.
#include "nccl_backend.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>
#include <utility>

#include "runtime.hpp"  // kernels/cuda: WICK_CUDA_CHECK, DeviceGuard
#include "wick/ops.hpp"

namespace wick::distributed::detail {
namespace {

ncclDataType_t nccl_type(Dtype dtype) {
  switch (dtype) {
    case kBool:
      return ncclUint8;
    case kInt64:
      return ncclInt64;
    case kFloat32:
      return ncclFloat32;
    case kFloat64:
      return ncclFloat64;
    case kBFloat16:
      return ncclBfloat16;
  }
  return ncclUint8;
}

constexpr bool kHasNcclAvg = NCCL_VERSION_CODE >= NCCL_VERSION(2, 10, 0);

ncclRedOp_t nccl_op(ReduceOp op, Dtype dtype) {
  if (dtype == kBool) return op == ReduceOp::Min ? ncclMin : ncclMax;
  switch (op) {
    case ReduceOp::Sum:
      return ncclSum;
    case ReduceOp::Average:
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 10, 0)
      return ncclAvg;
#else
      return ncclSum;  // divided afterwards
#endif
    case ReduceOp::Max:
      return ncclMax;
    case ReduceOp::Min:
      return ncclMin;
  }
  return ncclSum;
}

// The communicator, shared by the transport and its Works (a Work's timeout aborts it).
struct Comm {
  ncclComm_t comm = nullptr;
  int device = 0;
  bool aborted = false;

  void abort() noexcept {
    if (comm != nullptr && !aborted) {
      ncclCommAbort(comm);
      aborted = true;
      comm = nullptr;
    }
  }

  [[noreturn]] void fail(ncclResult_t result, const char* call, const std::string& what) {
    std::string detail = comm != nullptr ? ncclGetLastError(comm) : "";
    abort();
    ::wick::detail::fail<CommError>(what.c_str(), call, " failed on cuda:", device, ": ",
                                    ncclGetErrorString(result), detail.empty() ? "" : " (", detail,
                                    detail.empty() ? "" : ")",
                                    "; the NCCL communicator was aborted");
  }

  void check_alive(const std::string& what) const {
    WICK_CHECK(!aborted, distributed::CommError, what.c_str(),
               "the NCCL communicator was aborted after an earlier timeout or error");
  }

  // Polls the communicator until an operation that answered ncclInProgress has settled.
  void wait_ready(const std::string& what, Clock::time_point deadline, Health& health) {
    Backoff backoff;
    for (;;) {
      ncclResult_t state = ncclSuccess;
      ncclResult_t result = ncclCommGetAsyncError(comm, &state);
      if (result != ncclSuccess) fail(result, "ncclCommGetAsyncError", what);
      if (state == ncclSuccess) return;
      if (state != ncclInProgress) fail(state, "ncclCommGetAsyncError", what);
      if (Clock::now() > deadline) {
        abort();
        throw_timeout(what, backoff.elapsed_s(), health);
      }
      backoff.pause();
    }
  }
};

class NcclWork final : public PollWork {
 public:
  NcclWork(std::string what, Clock::time_point deadline, std::shared_ptr<Health> health,
           std::shared_ptr<Comm> comm)
      : PollWork(std::move(what), deadline, std::move(health)), comm_(std::move(comm)) {
    WICK_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), this->what().c_str(),
                    comm_->device);
  }
  ~NcclWork() override {
    finish_in_destructor();
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  cudaEvent_t event() const { return event_; }

 protected:
  bool test() override {
    comm_->check_alive(what());
    ncclResult_t state = ncclSuccess;
    ncclResult_t result = ncclCommGetAsyncError(comm_->comm, &state);
    if (result != ncclSuccess) comm_->fail(result, "ncclCommGetAsyncError", what());
    if (state != ncclSuccess && state != ncclInProgress) {
      comm_->fail(state, "ncclCommGetAsyncError", what());
    }
    const cudaError_t ready = cudaEventQuery(event_);
    if (ready == cudaSuccess) return true;
    if (ready == cudaErrorNotReady) return false;
    WICK_CUDA_CHECK(ready, what().c_str(), comm_->device);
    return false;
  }
  void on_timeout() override { comm_->abort(); }

 private:
  std::shared_ptr<Comm> comm_;
  cudaEvent_t event_ = nullptr;
};

class NcclTransport final : public Transport {
 public:
  NcclTransport(int device, const TransportContext* context, const BroadcastBytes& broadcast_id)
      : context_(context), comm_(std::make_shared<Comm>()) {
    comm_->device = device;
    const std::string what = "NCCL communicator on cuda:" + std::to_string(device);
    ncclUniqueId id{};
    if (context->rank == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId", what);
    broadcast_id(&id, sizeof(id));
    gpu::DeviceGuard guard(device, "distributed");
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    const Clock::time_point deadline = context->deadline();
    ncclResult_t result =
        ncclCommInitRankConfig(&comm_->comm, context->size, id, context->rank, &config);
    if (result != ncclSuccess && result != ncclInProgress) {
      comm_->fail(result, "ncclCommInitRankConfig", what);
    }
    comm_->wait_ready(what, deadline, *context->health);
  }

  ~NcclTransport() override {
    if (comm_->comm == nullptr || comm_->aborted) return;
    if (context_->health->broken) {
      comm_->abort();
      return;
    }
    // ncclCommFinalize waits for the peers (globally quiescent); bounded like a collective.
    gpu::DeviceGuard guard(comm_->device, "distributed");
    const Clock::time_point deadline = context_->deadline();
    const ncclResult_t result = ncclCommFinalize(comm_->comm);
    if ((result != ncclSuccess && result != ncclInProgress) || !settled(deadline)) {
      comm_->abort();
      return;
    }
    ncclCommDestroy(comm_->comm);
    comm_->comm = nullptr;
  }

  std::shared_ptr<PollWork> all_reduce(const Tensor& buffer, ReduceOp op,
                                       std::string what) override {
    auto work = launch(std::move(what), buffer, [&](ncclComm_t comm, cudaStream_t stream) {
      return ncclAllReduce(buffer.raw_data(), buffer.raw_data(),
                           static_cast<size_t>(buffer.numel()), nccl_type(buffer.dtype()),
                           nccl_op(op, buffer.dtype()), comm, stream);
    });
    if (!kHasNcclAvg && op == ReduceOp::Average && context_->size > 1) {
      work->then([buffer, size = context_->size] {
        Tensor out = buffer;
        out.div_(size);
      });
    }
    return work;
  }

  std::shared_ptr<PollWork> broadcast(const Tensor& buffer, int root, std::string what) override {
    return launch(std::move(what), buffer, [&](ncclComm_t comm, cudaStream_t stream) {
      return ncclBroadcast(buffer.raw_data(), buffer.raw_data(),
                           static_cast<size_t>(buffer.numel()), nccl_type(buffer.dtype()), root,
                           comm, stream);
    });
  }

  std::shared_ptr<PollWork> all_gather(const Tensor& input, const Tensor& output,
                                       std::string what) override {
    return launch(std::move(what), input, [&](ncclComm_t comm, cudaStream_t stream) {
      return ncclAllGather(input.raw_data(), output.raw_data(), static_cast<size_t>(input.numel()),
                           nccl_type(input.dtype()), comm, stream);
    });
  }

  std::shared_ptr<PollWork> reduce_scatter(const Tensor& input, const Tensor& output, ReduceOp op,
                                           std::string what) override {
    auto work = launch(std::move(what), output, [&](ncclComm_t comm, cudaStream_t stream) {
      return ncclReduceScatter(input.raw_data(), output.raw_data(),
                               static_cast<size_t>(output.numel()), nccl_type(input.dtype()),
                               nccl_op(op, input.dtype()), comm, stream);
    });
    if (!kHasNcclAvg && op == ReduceOp::Average && context_->size > 1) {
      work->then([output, size = context_->size] {
        Tensor out = output;
        out.div_(size);
      });
    }
    return work;
  }

 private:
  void check(ncclResult_t result, const char* call, const std::string& what) {
    if (result != ncclSuccess) comm_->fail(result, call, what);
  }

  // Polls the communicator's state until it settles or the deadline; false on error or timeout.
  bool settled(Clock::time_point deadline) const noexcept {
    Backoff backoff;
    for (;;) {
      ncclResult_t state = ncclSuccess;
      if (ncclCommGetAsyncError(comm_->comm, &state) != ncclSuccess) return false;
      if (state == ncclSuccess) return true;
      if (state != ncclInProgress || Clock::now() > deadline) return false;
      backoff.pause();
    }
  }

  // Enqueues one NCCL call on wick's stream of the communicator's device and records the event
  // that tells the Work it is done. `sized` is the tensor whose numel() is the count (0: no call).
  template <typename Call>
  std::shared_ptr<PollWork> launch(std::string what, const Tensor& sized, Call&& call) {
    comm_->check_alive(what);
    const Clock::time_point deadline = context_->deadline();
    WICK_CHECK(sized.device().index() == comm_->device, DeviceError, what.c_str(),
               "this group's NCCL communicator is bound to cuda:", comm_->device,
               "; the tensor is ", describe(sized));
    gpu::DeviceGuard guard(comm_->device, "distributed");
    // Note [One stream per device]: wick's ops run on the legacy default stream.
    cudaStream_t stream = cudaStreamLegacy;
    if (sized.numel() > 0) {
      ncclResult_t result = call(comm_->comm, stream);
      if (result == ncclInProgress) {
        comm_->wait_ready(what, deadline, *context_->health);
      } else if (result != ncclSuccess) {
        comm_->fail(result, "NCCL collective", what);
      }
    }
    auto work = std::make_shared<NcclWork>(std::move(what), deadline, context_->health, comm_);
    WICK_CUDA_CHECK(cudaEventRecord(work->event(), stream), work->what().c_str(), comm_->device);
    return work;
  }

  const TransportContext* context_;
  std::shared_ptr<Comm> comm_;
};

}  // namespace

std::unique_ptr<Transport> make_nccl_transport(int device, const TransportContext* context,
                                               const BroadcastBytes& broadcast_id) {
  return std::make_unique<NcclTransport>(device, context, broadcast_id);
}

}  // namespace wick::distributed::detail
