// timeout_probe.cpp: a rank leaves the job; the others must get a TimeoutError within the
// group's timeout instead of hanging. Run by check_timeout.cmake under mpirun with 2 or 3 ranks:
//   timeout_probe MODE TIMEOUT_S
// The last rank is the one that leaves, as MODE says:
//   finalize  it returns from main while the others enter all_reduce (a clean early exit;
//             OpenMPI holds it in MPI_Finalize until the job ends);
//   crash     it calls _Exit(3) without MPI_Finalize (under mpirun --enable-recovery, so that
//             the launcher does not kill the others first);
//   hang      it sleeps for 4 x TIMEOUT_S (a stuck peer);
//   ddp       every rank trains with DistributedDataParallel and it leaves after 2 of 5 steps,
//             so the others are inside average_gradients().
// A MODE ending in "-nocheck" turns the descriptor handshake off, so that the wait that times
// out is the MPI_Iallreduce itself rather than the handshake before it.
// Each other rank prints "timeout_probe: PASS on rank R" when the error came between 0.95 and
// 1 x TIMEOUT_S + 10 s after the call and the group refuses further collectives afterwards.
#include <wick/distributed.hpp>
#include <wick/wick.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace dist = wick::distributed;
namespace nn = wick::nn;
using Clock = std::chrono::steady_clock;

namespace {

// Five DDP steps of a small model; `steps` may stop early (the leaving rank).
void train(const std::shared_ptr<dist::ProcessGroup>& group, int steps) {
  wick::manual_seed(0);
  nn::Sequential model(nn::Linear(4, 8), nn::ReLU(), nn::Linear(8, 1));
  dist::DistributedDataParallel ddp(model, group);
  wick::optim::SGD optimizer(model->parameters(), wick::optim::SGDOptions(0.1));
  for (int step = 0; step < steps; ++step) {
    wick::Tensor loss = model(wick::ones({2, 4})).sum();
    optimizer.zero_grad();
    loss.backward();
    ddp.average_gradients();
    optimizer.step();
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s finalize|crash|hang|ddp[-nocheck] TIMEOUT_S\n", argv[0]);
    return 2;
  }
  std::string mode = argv[1];
  const bool nocheck = mode.size() > 8 && mode.substr(mode.size() - 8) == "-nocheck";
  if (nocheck) mode = mode.substr(0, mode.size() - 8);
  const double timeout_s = std::atof(argv[2]);
  dist::ProcessGroupOptions options;
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  options.check_shapes = !nocheck;
  auto group = dist::ProcessGroup::world(options);
  const int rank = group->rank();
  if (group->size() < 2) {
    std::fprintf(stderr, "timeout_probe needs at least 2 ranks\n");
    return 2;
  }
  group->barrier();  // everybody is here
  if (rank == group->size() - 1) {
    std::printf("rank %d: leaving the job (%s)\n", rank, mode.c_str());
    std::fflush(stdout);
    if (mode == "crash") std::_Exit(3);
    if (mode == "hang") {
      std::this_thread::sleep_for(std::chrono::duration<double>(4 * timeout_s));
    }
    if (mode == "ddp") train(group, 2);
    return 0;
  }
  const Clock::time_point start = Clock::now();
  double since_call = 0;
  try {
    if (mode == "ddp") {
      train(group, 5);
    } else {
      wick::Tensor t = wick::ones({1000});
      group->all_reduce(t);
    }
    std::printf("rank %d: FAIL: no error although a rank left\n", rank);
    return 1;
  } catch (const dist::TimeoutError& e) {
    since_call = std::chrono::duration<double>(Clock::now() - start).count();
    std::printf("rank %d: TimeoutError after %.2f s (timeout %.2f s): %s\n", rank, since_call,
                timeout_s, e.what());
  } catch (const wick::Error& e) {
    std::printf("rank %d: FAIL: expected a TimeoutError, got: %s\n", rank, e.what());
    return 1;
  }
  bool refused = false;
  try {
    group->barrier();
  } catch (const dist::CommError& e) {
    refused = true;
    std::printf("rank %d: the group refuses further collectives: %s\n", rank, e.what());
  }
  // In ddp mode the two steps before the leaver's exit also count.
  const bool in_time =
      (mode == "ddp" || since_call >= 0.95 * timeout_s) && since_call <= timeout_s + 10;
  const bool pass = in_time && refused && group->is_broken();
  std::printf("timeout_probe: %s on rank %d\n", pass ? "PASS" : "FAIL", rank);
  std::fflush(stdout);
  return pass ? 0 : 1;
}
