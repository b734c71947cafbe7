// mpi_backend.cpp: the MPI transport. Each collective is one non-blocking MPI call
// (MPI_Iallreduce, MPI_Ibcast, MPI_Iallgather, MPI_Ireduce_scatter_block), or several for
// all_reduce and broadcast of more than 2^31 - 1 elements (MPI counts are int). Average is a
// sum followed by a division by the group size; on bool tensors sum and max are MPI_MAX on
// uint8 (logical or) and min MPI_MIN (logical and), as PyTorch's backends do. Polling and
// deadlines: PollWork (process_group.cpp). Tested by tests/distributed (test_collectives.cpp).
#include "mpi_backend.hpp"

#include <algorithm>
#include <climits>

#include "wick/autograd.hpp"
#include "wick/ops.hpp"

namespace wick::distributed::detail {

void check_mpi(int code, const char* call, const std::string& what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  ::wick::detail::fail<CommError>(what.c_str(), call, " failed: ", std::string(text, length));
}

MPI_Datatype mpi_type(Dtype dtype) {
  switch (dtype) {
    case kBool:
      return MPI_UINT8_T;
    case kInt64:
      return MPI_INT64_T;
    case kFloat32:
      return MPI_FLOAT;
    case kFloat64:
      return MPI_DOUBLE;
    case kBFloat16:
      return MPI_UINT16_T;  // moved as bits; reductions are refused in mpi_op()
  }
  return MPI_DATATYPE_NULL;
}

MPI_Request* MpiWork::add_request() {
  requests_.push_back(MPI_REQUEST_NULL);
  return &requests_.back();
}

bool MpiWork::test() {
  if (requests_.empty()) return true;
  int flag = 0;
  check_mpi(
      MPI_Testall(static_cast<int>(requests_.size()), requests_.data(), &flag, MPI_STATUSES_IGNORE),
      "MPI_Testall", what());
  return flag != 0;
}

namespace {

MPI_Op mpi_op(ReduceOp op, Dtype dtype) {
  WICK_CHECK(dtype != kBFloat16, DtypeError, "reduce",
             "the MPI backend cannot reduce bfloat16 tensors (MPI has no bfloat16 arithmetic); "
             "reduce a float32 copy");
  if (dtype == kBool) return op == ReduceOp::Min ? MPI_MIN : MPI_MAX;
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Average:
      return MPI_SUM;
    case ReduceOp::Max:
      return MPI_MAX;
    case ReduceOp::Min:
      return MPI_MIN;
  }
  return MPI_OP_NULL;
}

// MPI counts are int: the largest piece one call moves.
constexpr int64_t kMaxCount = INT_MAX;

int checked_count(int64_t count, const std::string& what) {
  WICK_CHECK(count <= kMaxCount, ValueError, what.c_str(), "MPI moves at most 2^31 - 1 elements ",
             "per rank in this collective; got ", count);
  return static_cast<int>(count);
}

class MpiTransport final : public Transport {
 public:
  MpiTransport(MPI_Comm comm, const TransportContext* context) : comm_(comm), context_(context) {}

  std::shared_ptr<PollWork> all_reduce(const Tensor& buffer, ReduceOp op,
                                       std::string what) override {
    auto work = make_work(std::move(what));
    char* data = static_cast<char*>(buffer.raw_data());
    const size_t element = buffer.element_size();
    for (int64_t start = 0; start < buffer.numel(); start += kMaxCount) {
      const int64_t count = std::min(kMaxCount, buffer.numel() - start);
      check_mpi(MPI_Iallreduce(MPI_IN_PLACE, data + static_cast<size_t>(start) * element,
                               static_cast<int>(count), mpi_type(buffer.dtype()),
                               mpi_op(op, buffer.dtype()), comm_, work->add_request()),
                "MPI_Iallreduce", work->what());
    }
    if (op == ReduceOp::Average && context_->size > 1) {
      work->then([buffer, size = context_->size] {
        Tensor out = buffer;
        out.div_(size);
      });
    }
    return work;
  }

  std::shared_ptr<PollWork> broadcast(const Tensor& buffer, int root, std::string what) override {
    auto work = make_work(std::move(what));
    char* data = static_cast<char*>(buffer.raw_data());
    const size_t element = buffer.element_size();
    for (int64_t start = 0; start < buffer.numel(); start += kMaxCount) {
      const int64_t count = std::min(kMaxCount, buffer.numel() - start);
      check_mpi(MPI_Ibcast(data + static_cast<size_t>(start) * element, static_cast<int>(count),
                           mpi_type(buffer.dtype()), root, comm_, work->add_request()),
                "MPI_Ibcast", work->what());
    }
    return work;
  }

  std::shared_ptr<PollWork> all_gather(const Tensor& input, const Tensor& output,
                                       std::string what) override {
    auto work = make_work(std::move(what));
    if (input.numel() == 0) return work;
    const int count = checked_count(input.numel(), work->what());
    const MPI_Datatype type = mpi_type(input.dtype());
    check_mpi(MPI_Iallgather(input.raw_data(), count, type, output.raw_data(), count, type, comm_,
                             work->add_request()),
              "MPI_Iallgather", work->what());
    return work;
  }

  std::shared_ptr<PollWork> reduce_scatter(const Tensor& input, const Tensor& output, ReduceOp op,
                                           std::string what) override {
    auto work = make_work(std::move(what));
    if (output.numel() == 0) return work;
    const int count = checked_count(output.numel(), work->what());
    check_mpi(MPI_Ireduce_scatter_block(input.raw_data(), output.raw_data(), count,
                                        mpi_type(input.dtype()), mpi_op(op, input.dtype()), comm_,
                                        work->add_request()),
              "MPI_Ireduce_scatter_block", work->what());
    if (op == ReduceOp::Average && context_->size > 1) {
      work->then([output, size = context_->size] {
        Tensor out = output;
        out.div_(size);
      });
    }
    return work;
  }

 private:
  std::shared_ptr<MpiWork> make_work(std::string what) const {
    return std::make_shared<MpiWork>(std::move(what), context_->deadline(), context_->health);
  }

  MPI_Comm comm_;
  const TransportContext* context_;
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport(MPI_Comm comm, const TransportContext* context) {
  return std::make_unique<MpiTransport>(comm, context);
}

}  // namespace wick::distributed::detail
