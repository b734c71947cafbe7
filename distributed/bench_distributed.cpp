// bench_distributed.cpp: the numbers behind docs/distributed.md.
//   mpirun -np N wick_bench_distributed allreduce [max_mb] [cpu|cuda]
//     all_reduce (sum, float32) from 1 KB to max_mb (default 256) MB, reported as nccl-tests
//     does: time, algorithm bandwidth (bytes / time) and bus bandwidth (algbw x 2(n-1)/n, what a
//     ring moves per link); beside it a plain blocking MPI_Allreduce on the same buffer (CPU),
//     the cost of wick's bounded wait and handshake.
//   mpirun -np N wick_bench_distributed ddp
//     one DDP step (forward, backward, average_gradients, SGD step) of an MLP 256-1024-1024-10
//     on a global batch of 256 split over N ranks, against the same step without the average.
// Napkin maths printed with each table; rank 0 prints.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <wick/distributed.hpp>
#include <wick/wick.hpp>

namespace dist = wick::distributed;
namespace nn = wick::nn;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Mean seconds per call of fn over enough calls to fill ~0.25 s (at least 3), after a warm-up;
// every rank runs the same number of calls (rank 0 decides).
template <typename Fn>
double time_per_call(dist::ProcessGroup& group, Fn fn) {
  fn();
  group.barrier();
  const Clock::time_point probe = Clock::now();
  fn();
  wick::Tensor estimate = wick::tensor(std::vector<double>{seconds_since(probe)});
  group.all_reduce(estimate, dist::ReduceOp::Max);
  const int calls = std::clamp(static_cast<int>(0.25 / estimate.item<double>()), 3, 1000);
  group.barrier();
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < calls; ++i) fn();
  wick::Tensor elapsed = wick::tensor(std::vector<double>{seconds_since(start) / calls});
  group.all_reduce(elapsed, dist::ReduceOp::Max);
  return elapsed.item<double>();
}

void bench_allreduce(dist::ProcessGroup& group, int64_t max_mb, bool on_gpu) {
  const int n = group.size();
  const wick::Device device = on_gpu ? group.default_device() : wick::Device(wick::kCPU);
  const double bus_factor = n > 1 ? 2.0 * (n - 1) / n : 0.0;
  if (group.rank() == 0) {
    std::printf("all_reduce sum float32 on %s, %d ranks (busbw = algbw x 2(n-1)/n = x %.2f)\n",
                device.str().c_str(), n, bus_factor);
    std::printf("%12s %12s %11s %9s %9s %11s %9s\n", "bytes", "elements", "wick us", "algbw GB/s",
                "busbw GB/s", "MPI us", "MPI busbw");
  }
  group.set_check_shapes(false);  // measured separately below
  for (int64_t bytes = 1024; bytes <= max_mb * 1024 * 1024; bytes *= 4) {
    const int64_t count = bytes / 4;
    wick::Tensor t = wick::ones({count}, wick::TensorOptions().device(device));
    const double wick_s = time_per_call(group, [&] {
      group.all_reduce(t, dist::ReduceOp::Sum);
      if (on_gpu) wick::cuda::synchronize();
    });
    double mpi_s = 0;
    if (!on_gpu) {
      mpi_s = time_per_call(group, [&] {
        MPI_Allreduce(MPI_IN_PLACE, t.data_ptr<float>(), static_cast<int>(count), MPI_FLOAT,
                      MPI_SUM, MPI_COMM_WORLD);
      });
    }
    if (group.rank() == 0) {
      const double algbw = static_cast<double>(bytes) / wick_s / 1e9;
      std::printf("%12lld %12lld %11.1f %9.3f %9.3f", static_cast<long long>(bytes),
                  static_cast<long long>(count), wick_s * 1e6, algbw, algbw * bus_factor);
      if (!on_gpu) {
        std::printf(" %11.1f %9.3f", mpi_s * 1e6,
                    static_cast<double>(bytes) / mpi_s / 1e9 * bus_factor);
      }
      std::printf("\n");
    }
  }
  group.set_check_shapes(true);
  wick::Tensor small = wick::ones({256}, wick::TensorOptions().device(device));
  const double checked = time_per_call(group, [&] { group.all_reduce(small); });
  group.set_check_shapes(false);
  const double unchecked = time_per_call(group, [&] { group.all_reduce(small); });
  group.set_check_shapes(true);
  if (group.rank() == 0) {
    std::printf("1 KB all_reduce: %.1f us with the descriptor handshake, %.1f us without\n",
                checked * 1e6, unchecked * 1e6);
  }
}

void bench_ddp(const std::shared_ptr<dist::ProcessGroup>& shared) {
  dist::ProcessGroup& group = *shared;
  const int n = group.size();
  const int64_t global_batch = 256, local_batch = global_batch / n;
  wick::manual_seed(0);
  nn::Sequential model(nn::Linear(256, 1024), nn::ReLU(), nn::Linear(1024, 1024), nn::ReLU(),
                       nn::Linear(1024, 10));
  dist::DistributedDataParallel ddp(model, shared);
  wick::optim::SGD optimizer(model->parameters(), wick::optim::SGDOptions(0.01));
  nn::CrossEntropyLoss criterion;
  wick::Tensor x = wick::randn({local_batch, 256});
  wick::Tensor y = wick::zeros({local_batch}, wick::TensorOptions().dtype(wick::kInt64));
  auto step = [&](bool average) {
    wick::Tensor loss = criterion(model(x), y);
    optimizer.zero_grad();
    loss.backward();
    if (average) ddp.average_gradients();
    optimizer.step();
  };
  int64_t params = 0;
  for (const wick::Tensor& p : model->parameters()) params += p.numel();
  const double with = time_per_call(group, [&] { step(true); });
  const double without = time_per_call(group, [&] { step(false); });
  if (group.rank() == 0) {
    std::printf(
        "DDP step, MLP 256-1024-1024-10 (%lld parameters, %.1f MB of float32 gradients in "
        "%zu bucket(s)), global batch %lld = %d x %lld\n",
        static_cast<long long>(params), static_cast<double>(params) * 4 / 1e6, ddp.buckets().size(),
        static_cast<long long>(global_batch), n, static_cast<long long>(local_batch));
    std::printf(
        "  step with average_gradients: %.2f ms; without: %.2f ms; communication share "
        "%.0f%%\n",
        with * 1e3, without * 1e3, 100.0 * (with - without) / with);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "allreduce";
  auto group = dist::ProcessGroup::world();
  try {
    if (mode == "allreduce") {
      const int64_t max_mb = argc > 2 ? std::atoll(argv[2]) : 256;
      const bool on_gpu = argc > 3 && std::string(argv[3]) == "cuda";
      bench_allreduce(*group, max_mb, on_gpu);
    } else if (mode == "ddp") {
      bench_ddp(group);
    } else {
      std::fprintf(stderr, "usage: %s allreduce [max_mb] [cpu|cuda] | ddp\n", argv[0]);
      return 2;
    }
  } catch (const wick::Error& e) {
    std::fprintf(stderr, "rank %d: %s\n", group->rank(), e.what());
    return 1;
  }
  return 0;
}
