// process_group.cpp: ProcessGroup (process_group.hpp) and what every transport shares: the MPI
// environment (initialised on demand, finalised at exit, under a watchdog after a timeout),
// bounded waits (Backoff, PollWork), the descriptor handshake that turns a mismatch across ranks
// into the same wick::Error on every rank, the staging of non-contiguous tensors, and the routing
// of CPU tensors to MPI and CUDA tensors to NCCL (or through host memory over MPI where this build
// has no NCCL). Tested by tests/distributed (collectives, mismatches, timeouts).
#include "wick/distributed/process_group.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "detail.hpp"
#include "mpi_backend.hpp"
#include "wick/autograd.hpp"
#include "wick/cuda.hpp"
#include "wick/ops.hpp"
#if defined(WICK_DISTRIBUTED_NCCL)
#include "nccl_backend.hpp"
#endif

namespace wick::distributed {

// ---------------------------------------------------------------------------------------------
// The MPI environment, bounded waits
// ---------------------------------------------------------------------------------------------
namespace detail {
namespace {

std::atomic<bool> g_poisoned{false};
std::atomic<int64_t> g_finalize_limit_ms{0};

// Buffers an abandoned MPI or NCCL operation may still write into: never freed.
std::vector<Tensor>& graveyard() {
  static auto* tensors = new std::vector<Tensor>();
  return *tensors;
}

// Note [Finalize after a timeout]: skipping MPI_Finalize (so that the launcher tears the job
// down) made Open MPI 4.1's mpirun crash or hang in its own teardown when a peer was already
// inside MPI_Finalize; finalizing leaves every launcher a clean job. But a peer that hangs would
// hold MPI_Finalize for ever, so after a timeout a watchdog thread ends the process (exit status
// 1) if MPI_Finalize has not returned within the group's timeout (at least 10 s).
void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized != 0) return;
  if (g_poisoned.load()) {
    const auto limit =
        std::chrono::milliseconds(std::max<int64_t>(g_finalize_limit_ms.load(), 10000));
    std::thread([limit] {
      std::this_thread::sleep_for(limit);
      std::fprintf(stderr,
                   "wick::distributed: MPI_Finalize did not return within %.1f s after a "
                   "timeout; exiting\n",
                   std::chrono::duration<double>(limit).count());
      std::_Exit(1);
    }).detach();
  }
  MPI_Finalize();
}

void ensure_mpi() {
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized != 0) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    WICK_CHECK(finalized == 0, distributed::CommError, "ProcessGroup::world",
               "MPI is already finalized");
    return;
  }
  int provided = 0;
  check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread",
            "ProcessGroup::world");
  std::atexit(finalize_at_exit);
}

std::string seconds(double s) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(s < 10 ? 2 : 1) << s << " s";
  return out.str();
}

}  // namespace

void poison_process(std::chrono::milliseconds finalize_limit) {
  g_poisoned = true;
  int64_t previous = g_finalize_limit_ms.load();
  while (previous < finalize_limit.count() &&
         !g_finalize_limit_ms.compare_exchange_weak(previous, finalize_limit.count())) {
  }
}

void Backoff::pause() {
  if (Clock::now() - start_ < std::chrono::milliseconds(100)) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

double Backoff::elapsed_s() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void throw_timeout(const std::string& what, double waited_s, Health& health) {
  health.broken = true;
  health.reason = "timed out in " + what;
  poison_process(std::chrono::milliseconds(std::llround(waited_s * 1000)));
  ::wick::detail::fail<TimeoutError>(
      what.c_str(), "no answer from the other ranks after ", seconds(waited_s),
      " (the group's timeout): a peer has exited, crashed or hangs, or is calling a different "
      "collective. The process group is unusable now");
}

bool PollWork::is_completed() {
  if (done_) return true;
  WICK_CHECK(!failed_, distributed::CommError, what_.c_str(), "this collective failed earlier");
  bool finished = false;
  try {
    finished = test();
  } catch (const Error& e) {
    failed_ = true;
    health_->broken = true;
    health_->reason = e.what();
    poison_process(std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - start_));
    for (Tensor& t : keep_alive_) graveyard().push_back(std::move(t));
    throw;
  }
  if (finished) complete();
  return finished;
}

void PollWork::wait() {
  Backoff backoff;
  while (!is_completed()) {
    if (Clock::now() > deadline_) fail_timeout();
    backoff.pause();
  }
}

void PollWork::complete() {
  done_ = true;
  NoGradGuard no_grad;
  std::vector<std::function<void()>> steps = std::move(steps_);
  steps_.clear();
  for (auto& step : steps) step();
  keep_alive_.clear();
}

void PollWork::fail_timeout() {
  failed_ = true;
  on_timeout();
  for (Tensor& t : keep_alive_) graveyard().push_back(std::move(t));
  keep_alive_.clear();
  throw_timeout(what_, std::chrono::duration<double>(Clock::now() - start_).count(), *health_);
}

void PollWork::finish_in_destructor() noexcept {
  if (done_ || failed_) return;
  try {
    wait();
  } catch (...) {  // NOLINT: a destructor must not throw; the group is marked broken
  }
}

}  // namespace detail

// ---------------------------------------------------------------------------------------------
// Names and defaults
// ---------------------------------------------------------------------------------------------
const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
      return "sum";
    case ReduceOp::Average:
      return "average";
    case ReduceOp::Max:
      return "max";
    case ReduceOp::Min:
      return "min";
  }
  return "?";
}

std::chrono::milliseconds default_timeout() {
  const char* env = std::getenv("WICK_DISTRIBUTED_TIMEOUT");
  if (env == nullptr || *env == '\0') return std::chrono::minutes(10);
  char* end = nullptr;
  const double s = std::strtod(env, &end);
  WICK_CHECK(end != env && *end == '\0' && std::isfinite(s) && s > 0, ValueError,
             "WICK_DISTRIBUTED_TIMEOUT", "expected a positive number of seconds, got '", env, "'");
  return std::chrono::milliseconds(std::llround(s * 1000.0));
}

// ---------------------------------------------------------------------------------------------
// The descriptor handshake
// ---------------------------------------------------------------------------------------------
namespace {

enum class Kind : int64_t {
  AllReduce = 1,
  Broadcast = 2,
  AllGather = 3,
  ReduceScatter = 4,
  Barrier = 5
};

const char* kind_name(int64_t kind) {
  switch (static_cast<Kind>(kind)) {
    case Kind::AllReduce:
      return "all_reduce";
    case Kind::Broadcast:
      return "broadcast";
    case Kind::AllGather:
      return "all_gather";
    case Kind::ReduceScatter:
      return "reduce_scatter";
    case Kind::Barrier:
      return "barrier";
  }
  return "an unknown collective";
}

// What one rank says about the collective it is entering: 24 int64.
constexpr int kSeq = 0, kKind = 1, kDtype = 2, kDevice = 3, kArg = 4, kNdim = 5, kFlags = 6,
              kVersion = 7, kSizes = 8;
constexpr int kDescriptorLen = kSizes + Shape::kMaxDims;
constexpr int64_t kUndefinedTensor = -1, kNoTensor = -2;
constexpr int64_t kFlagOverlap = 1;  // an in-place target with overlapping elements
constexpr int64_t kDescriptorVersion = 1;
using Descriptor = std::array<int64_t, kDescriptorLen>;

Descriptor make_descriptor(int64_t seq, Kind kind, const Tensor* tensor, int64_t arg) {
  Descriptor d{};
  d[kSeq] = seq;
  d[kKind] = static_cast<int64_t>(kind);
  d[kArg] = arg;
  d[kVersion] = kDescriptorVersion;
  if (tensor == nullptr) {
    d[kDtype] = kNoTensor;
    return d;
  }
  if (!tensor->defined()) {
    d[kDtype] = kUndefinedTensor;
    return d;
  }
  d[kDtype] = static_cast<int64_t>(tensor->dtype());
  d[kDevice] = static_cast<int64_t>(tensor->device().type());
  d[kNdim] = tensor->dim();
  for (int64_t i = 0; i < tensor->dim(); ++i) {
    d[static_cast<size_t>(kSizes + i)] = tensor->sizes()[static_cast<size_t>(i)];
    if (tensor->strides()[static_cast<size_t>(i)] == 0 &&
        tensor->sizes()[static_cast<size_t>(i)] > 1) {
      d[kFlags] |= kFlagOverlap;
    }
  }
  return d;
}

std::string render_shape(const Descriptor& d) {
  std::ostringstream out;
  out << "[";
  for (int64_t i = 0; i < d[kNdim]; ++i)
    out << (i > 0 ? ", " : "") << d[static_cast<size_t>(kSizes + i)];
  out << "]";
  return out.str();
}

std::string render_tensor(const Descriptor& d) {
  if (d[kDtype] == kUndefinedTensor) return "an undefined tensor";
  if (d[kDtype] == kNoTensor) return "no tensor";
  return render_shape(d) + " " + dtype_name(static_cast<Dtype>(d[kDtype])) + " " +
         device_type_name(static_cast<DeviceType>(d[kDevice]));
}

// "rank 0: x; ranks 1, 2: y": the ranks grouped by what `render` says of their descriptors.
template <typename Render>
std::string by_rank(const std::vector<std::pair<int, Descriptor>>& all, Render render) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (const auto& [rank, d] : all) {
    std::string text = render(d);
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == text; });
    if (it == groups.end()) {
      groups.push_back({std::move(text), {rank}});
    } else {
      it->second.push_back(rank);
    }
  }
  std::ostringstream out;
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::vector<int>& ranks = groups[g].second;
    out << (g > 0 ? "; " : "") << (ranks.size() == 1 ? "rank " : "ranks ");
    for (size_t i = 0; i < ranks.size() && i < 8; ++i) out << (i > 0 ? ", " : "") << ranks[i];
    if (ranks.size() > 8) out << " and " << ranks.size() - 8 << " more";
    out << ": " << groups[g].first;
  }
  return out.str();
}

template <typename Field>
bool differ(const std::vector<std::pair<int, Descriptor>>& all, Field field) {
  for (const auto& entry : all) {
    if (field(entry.second) != field(all.front().second)) return true;
  }
  return false;
}

// Throws the same error on every rank when the ranks' calls do not fit together, or when the
// (agreed) call is invalid. `all` holds every rank's descriptor, or only this rank's when the
// handshake is off.
void check_agreement(const std::vector<std::pair<int, Descriptor>>& all, int size, const char* op) {
  const std::string context =
      std::string(op) + " (collective #" + std::to_string(all.front().second[kSeq]) + ")";
  const char* where = context.c_str();
  if (differ(all, [](const Descriptor& d) { return std::make_pair(d[kSeq], d[kKind]); }) ||
      differ(all, [](const Descriptor& d) { return d[kVersion]; })) {
    ::wick::detail::fail<ValueError>(
        where,
        "the ranks are not calling the same collective: ", by_rank(all, [](const Descriptor& d) {
          return std::string(kind_name(d[kKind])) + " #" + std::to_string(d[kSeq]);
        }));
  }
  for (const auto& [rank, d] : all) {
    WICK_CHECK(d[kDtype] != kUndefinedTensor, ValueError, where, "rank ", rank,
               " passed an undefined tensor");
  }
  if (differ(all, [](const Descriptor& d) { return d[kDevice]; })) {
    ::wick::detail::fail<DeviceError>(
        where, "tensors are on different device types across ranks: ", by_rank(all, render_tensor));
  }
  if (differ(all, [](const Descriptor& d) { return d[kDtype]; })) {
    ::wick::detail::fail<DtypeError>(where,
                                     "dtypes differ across ranks: ", by_rank(all, render_tensor));
  }
  if (differ(all, render_shape)) {
    ::wick::detail::fail<ShapeError>(where,
                                     "shapes differ across ranks: ", by_rank(all, render_tensor));
  }
  const Descriptor& d = all.front().second;
  const auto kind = static_cast<Kind>(d[kKind]);
  if (kind == Kind::AllReduce || kind == Kind::ReduceScatter) {
    if (differ(all, [](const Descriptor& x) { return x[kArg]; })) {
      ::wick::detail::fail<ValueError>(
          where, "reduce ops differ across ranks: ", by_rank(all, [](const Descriptor& x) {
            return std::string(reduce_op_name(static_cast<ReduceOp>(x[kArg])));
          }));
    }
    WICK_CHECK(d[kArg] >= 0 && d[kArg] <= static_cast<int64_t>(ReduceOp::Min), ValueError, where,
               "unknown reduce op ", d[kArg]);
    WICK_CHECK(static_cast<ReduceOp>(d[kArg]) != ReduceOp::Average ||
                   is_floating(static_cast<Dtype>(d[kDtype])),
               DtypeError, where, "average needs a floating tensor, got ", render_tensor(d),
               "; reduce with sum and divide");
  }
  if (kind == Kind::Broadcast) {
    if (differ(all, [](const Descriptor& x) { return x[kArg]; })) {
      ::wick::detail::fail<ValueError>(
          where, "broadcast roots differ across ranks: ", by_rank(all, [](const Descriptor& x) {
            return "root " + std::to_string(x[kArg]);
          }));
    }
    WICK_CHECK(d[kArg] >= 0 && d[kArg] < size, IndexError, where, "root ", d[kArg],
               " is not a rank of this group of ", size);
  }
  if (kind == Kind::ReduceScatter) {
    WICK_CHECK(d[kNdim] >= 1 && d[kSizes] % size == 0, ShapeError, where, "the input ",
               render_tensor(d), " needs a first dimension that is a multiple of the group size ",
               size);
  }
  if (kind == Kind::AllReduce || kind == Kind::Broadcast) {
    for (const auto& [rank, x] : all) {
      WICK_CHECK((x[kFlags] & kFlagOverlap) == 0, ValueError, where, "rank ", rank,
                 " passed an expanded tensor (several elements share one memory location), which "
                 "cannot be written in place; clone() it first");
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// ProcessGroup
// ---------------------------------------------------------------------------------------------
struct ProcessGroup::State {
  MPI_Comm comm = MPI_COMM_NULL;
  int local_rank = 0;
  int local_size = 1;
  bool check_shapes = true;
  int64_t sequence = 0;
  detail::TransportContext context;
  std::unique_ptr<detail::Transport> mpi;
  std::unique_ptr<detail::Transport> nccl;
  int nccl_device = -1;

  ~State() {
    nccl.reset();  // NCCL: finalize and destroy, or abort when broken
    mpi.reset();
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0 && !context.health->broken && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }

  detail::Health& health() { return *context.health; }

  std::shared_ptr<detail::MpiWork> mpi_work(std::string what) {
    return std::make_shared<detail::MpiWork>(std::move(what), context.deadline(), context.health);
  }

  // Every collective starts here: refuses a broken group, numbers the call, exchanges and
  // checks descriptors. Returns the name of the call used in messages.
  std::string begin(const char* op, Kind kind, const Tensor* tensor, int64_t arg,
                    const char* detail = nullptr) {
    WICK_CHECK(!health().broken, distributed::CommError, op,
               "the process group is unusable after an earlier failure: ", health().reason);
    const int64_t seq = ++sequence;
    const Descriptor mine = make_descriptor(seq, kind, tensor, arg);
    std::vector<std::pair<int, Descriptor>> all;
    if (check_shapes && context.size > 1) {
      all = exchange(mine, std::string(op) + " #" + std::to_string(seq));
    } else {
      all.push_back({context.rank, mine});
    }
    check_agreement(all, context.size, op);
    std::string what = std::string(op) + " #" + std::to_string(seq);
    if (tensor != nullptr) what += " of " + describe(*tensor);
    if (detail != nullptr) what += std::string(" (") + detail + ")";
    return what;
  }

  std::vector<std::pair<int, Descriptor>> exchange(const Descriptor& mine,
                                                   const std::string& what) {
    Tensor send = empty({kDescriptorLen}, TensorOptions().dtype(kInt64));
    Tensor recv = empty({context.size, kDescriptorLen}, TensorOptions().dtype(kInt64));
    std::memcpy(send.raw_data(), mine.data(), sizeof(Descriptor));
    auto work = mpi_work(what + " (descriptor handshake)");
    detail::check_mpi(MPI_Iallgather(send.raw_data(), kDescriptorLen, MPI_INT64_T, recv.raw_data(),
                                     kDescriptorLen, MPI_INT64_T, comm, work->add_request()),
                      "MPI_Iallgather", work->what());
    work->keep_alive(send);
    work->keep_alive(recv);
    work->wait();
    std::vector<std::pair<int, Descriptor>> all(static_cast<size_t>(context.size));
    const auto* values = static_cast<const int64_t*>(recv.raw_data());
    for (int r = 0; r < context.size; ++r) {
      all[static_cast<size_t>(r)].first = r;
      std::memcpy(all[static_cast<size_t>(r)].second.data(), values + r * kDescriptorLen,
                  sizeof(Descriptor));
    }
    return all;
  }

  // Broadcasts raw bytes from rank 0 over MPI within the deadline (the NCCL unique id).
  void broadcast_bytes(void* data, size_t nbytes, const std::string& what) {
    Tensor buffer = empty({static_cast<int64_t>((nbytes + 7) / 8)}, TensorOptions().dtype(kInt64));
    std::memcpy(buffer.raw_data(), data, nbytes);
    auto work = mpi_work(what + " (NCCL unique id)");
    detail::check_mpi(MPI_Ibcast(buffer.raw_data(), static_cast<int>(nbytes), MPI_BYTE, 0, comm,
                                 work->add_request()),
                      "MPI_Ibcast", work->what());
    work->keep_alive(buffer);
    work->wait();
    std::memcpy(data, buffer.raw_data(), nbytes);
  }

  struct Route {
    detail::Transport* transport;
    Device device;  // where the transport's buffers live
  };

  Route route(const Tensor& t, const std::string& what) {
    if (t.is_cpu()) return {mpi.get(), Device(kCPU)};
#if defined(WICK_DISTRIBUTED_NCCL)
    const int index = t.device().index();
    if (!nccl) {
      nccl = detail::make_nccl_transport(
          index, &context, [&](void* data, size_t nbytes) { broadcast_bytes(data, nbytes, what); });
      nccl_device = index;
    }
    WICK_CHECK(index == nccl_device, DeviceError, what.c_str(),
               "this group's NCCL communicator is bound to cuda:", nccl_device,
               " (one GPU per process); the tensor is on cuda:", index);
    return {nccl.get(), t.device()};
#else
    (void)what;
    return {mpi.get(), Device(kCPU)};  // no NCCL in this build: through host memory
#endif
  }
};

namespace {

// A contiguous tensor with t's values on `device`; t itself (detached) when it already is one.
Tensor stage(const Tensor& t, Device device) {
  NoGradGuard no_grad;
  Tensor d = t.detach();
  if (d.device() != device) return d.to(device).contiguous();
  return d.contiguous();
}

// After an in-place collective on `buffer`: write it back into `tensor` if it was staged, else
// count the write in the tensor's version (autograd's in-place check).
void finish_in_place(detail::PollWork& work, const Tensor& tensor, const Tensor& buffer) {
  if (buffer.storage() != tensor.storage()) {
    work.keep_alive(buffer);
    work.then([tensor, buffer] {
      Tensor target = tensor;
      target.copy_(buffer);
    });
  } else {
    work.keep_alive(tensor);
    work.then([tensor] { tensor.storage()->bump_version(); });
  }
}

Shape with_first(int64_t first, const Shape& rest) {
  std::vector<int64_t> sizes{first};
  sizes.insert(sizes.end(), rest.begin(), rest.end());
  return Shape(sizes);
}

}  // namespace

ProcessGroup::ProcessGroup(std::unique_ptr<State> state) : state_(std::move(state)) {}
ProcessGroup::~ProcessGroup() = default;

std::shared_ptr<ProcessGroup> ProcessGroup::world(ProcessGroupOptions options) {
  detail::ensure_mpi();
  auto state = std::make_unique<State>();
  state->context.timeout = options.timeout;
  state->context.health = std::make_shared<detail::Health>();
  state->check_shapes = options.check_shapes;
  // A bounded MPI_Comm_idup: a rank that never arrives is a timeout, not a hang. The handle
  // lives on the heap until the call completes (it is abandoned after a timeout).
  auto* dup = new MPI_Comm(MPI_COMM_NULL);
  {
    auto work = state->mpi_work("ProcessGroup::world (MPI_Comm_idup of MPI_COMM_WORLD)");
    detail::check_mpi(MPI_Comm_idup(MPI_COMM_WORLD, dup, work->add_request()), "MPI_Comm_idup",
                      work->what());
    work->wait();
  }
  state->comm = *dup;
  delete dup;
  const std::string what = "ProcessGroup::world";
  detail::check_mpi(MPI_Comm_set_errhandler(state->comm, MPI_ERRORS_RETURN),
                    "MPI_Comm_set_errhandler", what);
  detail::check_mpi(MPI_Comm_rank(state->comm, &state->context.rank), "MPI_Comm_rank", what);
  detail::check_mpi(MPI_Comm_size(state->comm, &state->context.size), "MPI_Comm_size", what);
  // Every rank is known to be here (the idup completed), so this blocking split is safe.
  MPI_Comm local = MPI_COMM_NULL;
  detail::check_mpi(MPI_Comm_split_type(state->comm, MPI_COMM_TYPE_SHARED, state->context.rank,
                                        MPI_INFO_NULL, &local),
                    "MPI_Comm_split_type", what);
  detail::check_mpi(MPI_Comm_rank(local, &state->local_rank), "MPI_Comm_rank", what);
  detail::check_mpi(MPI_Comm_size(local, &state->local_size), "MPI_Comm_size", what);
  MPI_Comm_free(&local);
  state->mpi = detail::make_mpi_transport(state->comm, &state->context);
  return std::make_shared<ProcessGroup>(std::move(state));
}

int ProcessGroup::rank() const { return state_->context.rank; }
int ProcessGroup::size() const { return state_->context.size; }
int ProcessGroup::local_rank() const { return state_->local_rank; }
int ProcessGroup::local_size() const { return state_->local_size; }

Device ProcessGroup::default_device() const {
  if (cuda::is_available()) return Device(kCUDA, state_->local_rank % cuda::device_count());
  return Device(kCPU);
}

bool ProcessGroup::has_nccl() {
#if defined(WICK_DISTRIBUTED_NCCL)
  return true;
#else
  return false;
#endif
}

std::chrono::milliseconds ProcessGroup::timeout() const { return state_->context.timeout; }
void ProcessGroup::set_timeout(std::chrono::milliseconds timeout) {
  WICK_CHECK(timeout.count() > 0, ValueError, "ProcessGroup::set_timeout",
             "the timeout must be positive, got ", timeout.count(), " ms");
  state_->context.timeout = timeout;
}
bool ProcessGroup::check_shapes() const { return state_->check_shapes; }
void ProcessGroup::set_check_shapes(bool on) { state_->check_shapes = on; }
bool ProcessGroup::is_broken() const { return state_->context.health->broken; }

std::shared_ptr<Work> ProcessGroup::all_reduce_async(const Tensor& tensor, ReduceOp op) {
  State& s = *state_;
  const std::string what =
      s.begin("all_reduce", Kind::AllReduce, &tensor, static_cast<int64_t>(op), reduce_op_name(op));
  const State::Route route = s.route(tensor, what);
  const Tensor buffer = stage(tensor, route.device);
  auto work = route.transport->all_reduce(buffer, op, what);
  finish_in_place(*work, tensor, buffer);
  return work;
}

void ProcessGroup::all_reduce(const Tensor& tensor, ReduceOp op) {
  all_reduce_async(tensor, op)->wait();
}

std::shared_ptr<Work> ProcessGroup::broadcast_async(const Tensor& tensor, int root) {
  State& s = *state_;
  const std::string root_text = "root " + std::to_string(root);
  const std::string what = s.begin("broadcast", Kind::Broadcast, &tensor, root, root_text.c_str());
  const State::Route route = s.route(tensor, what);
  const Tensor buffer = stage(tensor, route.device);
  auto work = route.transport->broadcast(buffer, root, what);
  finish_in_place(*work, tensor, buffer);
  return work;
}

void ProcessGroup::broadcast(const Tensor& tensor, int root) {
  broadcast_async(tensor, root)->wait();
}

Tensor ProcessGroup::all_gather(const Tensor& input) {
  State& s = *state_;
  const std::string what = s.begin("all_gather", Kind::AllGather, &input, 0);
  const State::Route route = s.route(input, what);
  const Tensor send = stage(input, route.device);
  Tensor output = empty(with_first(size(), input.sizes()),
                        TensorOptions().dtype(input.dtype()).device(route.device));
  auto work = route.transport->all_gather(send, output, what);
  work->keep_alive(send);
  work->keep_alive(output);
  work->wait();
  return output.device() == input.device() ? output : output.to(input.device());
}

Tensor ProcessGroup::reduce_scatter(const Tensor& input, ReduceOp op) {
  State& s = *state_;
  const std::string what = s.begin("reduce_scatter", Kind::ReduceScatter, &input,
                                   static_cast<int64_t>(op), reduce_op_name(op));
  const State::Route route = s.route(input, what);
  const Tensor send = stage(input, route.device);
  Shape sizes = input.sizes();
  sizes[0] /= size();
  Tensor output = empty(sizes, TensorOptions().dtype(input.dtype()).device(route.device));
  auto work = route.transport->reduce_scatter(send, output, op, what);
  work->keep_alive(send);
  work->keep_alive(output);
  work->wait();
  return output.device() == input.device() ? output : output.to(input.device());
}

void ProcessGroup::barrier() {
  State& s = *state_;
  const std::string what = s.begin("barrier", Kind::Barrier, nullptr, 0);
  auto work = s.mpi_work(what);
  detail::check_mpi(MPI_Ibarrier(s.comm, work->add_request()), "MPI_Ibarrier", work->what());
  work->wait();
}

}  // namespace wick::distributed
