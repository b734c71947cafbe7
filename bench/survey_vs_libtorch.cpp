// survey_vs_libtorch.cpp: a broad survey of wick against libtorch (Debian's libtorch-dev 1.13)
// on the CPU, to find the ops and shapes where wick is slow. bench_vs_libtorch times the rows the
// report shows, a few seconds each; this program times many more cases briefly, each pair
// interleaved in rounds (paired.hpp) on the same inputs and thread count, and prints one
// markdown table, slowest ratio first. A case it finds slow that gets fixed earns a row in
// bench_vs_libtorch, where the fix is measured properly (docs/cpu-kernels.md).
//
//   wick_survey_vs_libtorch [--filter=SUBSTRING] [--threads=1,2] [--seconds=0.6]
//
// Columns: wick's and libtorch's median round (microseconds per call) and the median of the
// per-round speed ratios (libtorch's time over wick's: above 1, wick is faster) with its 25th and
// 75th percentiles. Inputs are float32 [1024, 1024] ("M") unless a case says otherwise; libtorch
// gets copies of wick's values. The cases are in survey_cases_ops.cpp and survey_cases_models.cpp.
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "paired.hpp"
#include "paired_rows.hpp"
#include "survey_cases.hpp"
#include "torch_threads.hpp"

#include "wick/wick.hpp"

namespace {

using namespace survey;

std::vector<Case> cases() {
  std::vector<Case> all;
  add_op_cases(all);
  add_model_cases(all);
  return all;
}

struct Row {
  std::string name;
  int threads;
  double wick_us, torch_us, ratio, ratio_lo, ratio_hi;
};

Row time_case(const Case& c, int threads, double seconds) {
  bench::set_threads(threads);
  const Pair pair = c.make();
  double slowest_call = 0;
  for (const auto* call : {&pair.wick, &pair.torch}) {  // warm up, and size the rounds
    const double t0 = paired::now_s();
    (*call)();
    slowest_call = std::max(slowest_call, paired::now_s() - t0);
  }
  paired::Options opt = paired::options_for(threads, 2, slowest_call, seconds);
  opt.rounds = std::max(opt.rounds, 7);
  const auto s = paired::time_interleaved({pair.wick, pair.torch}, opt);
  const std::vector<double> ratios = paired::speed_ratios(s[0], s[1]);
  return {c.name,
          threads,
          paired::median(s[0]) * 1e6,
          paired::median(s[1]) * 1e6,
          paired::median(ratios),
          paired::quantile(ratios, 0.25),
          paired::quantile(ratios, 0.75)};
}

bool starts_with(const char* arg, const char* prefix, const char** value) {
  const size_t n = std::strlen(prefix);
  if (std::strncmp(arg, prefix, n) != 0) return false;
  *value = arg + n;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string filter;
  std::vector<int> thread_counts = {1, 2};
  double seconds = 0.6;
  for (int i = 1; i < argc; ++i) {
    const char* value = nullptr;
    if (starts_with(argv[i], "--filter=", &value)) {
      filter = value;
    } else if (starts_with(argv[i], "--seconds=", &value)) {
      seconds = std::atof(value);
    } else if (starts_with(argv[i], "--threads=", &value)) {
      thread_counts.clear();
      std::stringstream list(value);
      for (std::string item; std::getline(list, item, ',');)
        thread_counts.push_back(std::stoi(item));
    } else {
      std::fprintf(stderr, "usage: %s [--filter=SUBSTRING] [--threads=1,2] [--seconds=0.6]\n",
                   argv[0]);
      return 2;
    }
  }
  wick::manual_seed(0);
  std::vector<Row> rows;
  for (const Case& c : cases()) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    for (int threads : thread_counts) {
      rows.push_back(time_case(c, threads, seconds));
      std::fprintf(stderr, "%-50s %d thr. %6.2f\n", c.name.c_str(), threads, rows.back().ratio);
    }
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.ratio < b.ratio; });
  std::printf("| case | threads | wick, us | libtorch, us | wick's speed / libtorch's |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    std::printf("| %s | %d | %.3g | %.3g | %.2f (%.2f-%.2f) |\n", r.name.c_str(), r.threads,
                r.wick_us, r.torch_us, r.ratio, r.ratio_lo, r.ratio_hi);
  }
  return 0;
}
