// test_scheduler_state.cpp: LRScheduler::state_dict / load_state_dict: every scheduler kind
// resumes its schedule bit for bit from a checkpoint, whichever state loads first, and a
// malformed state is refused without changing anything.
#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <utility>
#include <vector>
#include <wick/wick.hpp>

namespace optim = wick::optim;
using wick::Tensor;

TEST_CASE("a scheduler's state resumes its schedule exactly, whichever state loads first") {
  // Each kind: 7 steps, a checkpoint of the optimizer and the scheduler, 9 more; then a fresh
  // optimizer and scheduler (other rates on purpose) load the checkpoint and take the same 9
  // steps: every rate must be equal, bit for bit.
  using Make = std::function<std::unique_ptr<optim::LRScheduler>(optim::Optimizer&)>;
  const std::vector<std::pair<const char*, Make>> kinds = {
      {"StepLR", [](optim::Optimizer& o) { return std::make_unique<optim::StepLR>(o, 3, 0.5); }},
      {"ExponentialLR",
       [](optim::Optimizer& o) { return std::make_unique<optim::ExponentialLR>(o, 0.9); }},
      {"MultiStepLR",
       [](optim::Optimizer& o) {
         return std::make_unique<optim::MultiStepLR>(o, std::vector<int64_t>{2, 9, 12}, 0.3);
       }},
      {"CosineAnnealingLR",
       [](optim::Optimizer& o) { return std::make_unique<optim::CosineAnnealingLR>(o, 5, 0.01); }},
      {"LambdaLR", [](optim::Optimizer& o) {
         return std::make_unique<optim::LambdaLR>(o, [](int64_t e) { return 1.0 / (1.0 + e); });
       }}};
  for (const auto& [name, make] : kinds) {
    for (bool scheduler_first : {true, false}) {
      INFO(name << (scheduler_first ? ", scheduler state loaded first" : ", optimizer first"));
      Tensor w = wick::zeros({1}, wick::kFloat64).requires_grad_();
      optim::SGD sgd({w}, optim::SGDOptions(0.7));
      auto schedule = make(sgd);
      for (int i = 0; i < 7; ++i) schedule->step();
      const auto optimizer_state = sgd.state_dict();
      const auto scheduler_state = schedule->state_dict();
      std::vector<double> rates;
      for (int i = 0; i < 9; ++i) {
        schedule->step();
        rates.push_back(sgd.lr());
      }
      Tensor w2 = wick::zeros({1}, wick::kFloat64).requires_grad_();
      optim::SGD resumed({w2}, optim::SGDOptions(0.2));
      auto resumed_schedule = make(resumed);
      if (scheduler_first) resumed_schedule->load_state_dict(scheduler_state);
      resumed.load_state_dict(optimizer_state);
      if (!scheduler_first) resumed_schedule->load_state_dict(scheduler_state);
      CHECK(resumed_schedule->step_count() == 7);
      for (double rate : rates) {
        resumed_schedule->step();
        CHECK(resumed.lr() == rate);
      }
    }
  }
  // Malformed states are refused, and change nothing.
  Tensor w = wick::zeros({1}).requires_grad_();
  optim::SGD sgd({w}, optim::SGDOptions(0.5));
  optim::StepLR schedule(sgd, 2);
  schedule.step();
  auto state = schedule.state_dict();
  state["last_epoch"] = wick::full({}, -1, wick::kInt64);
  CHECK_THROWS_AS(schedule.load_state_dict(state), wick::ValueError);
  state.erase("last_epoch");
  CHECK_THROWS_WITH(schedule.load_state_dict(state), Catch::Contains("last_epoch"));
  state = schedule.state_dict();
  state["base_lr"] = wick::full({}, 1.0, wick::kFloat32);
  CHECK_THROWS_AS(schedule.load_state_dict(state), wick::ValueError);
  CHECK(schedule.step_count() == 1);
  CHECK(sgd.lr() == 0.5);
}
